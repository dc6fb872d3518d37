"""The fourth attention set (``tileorch.testing.attention_programs4``): the chained kernels this set
lifted onto the tensor cores (paged decode whose page number is ``ct.load(Table, (b, j), (1,
1)).item()``: ``tileas-scalar-tile-loads``; dV with ``ct.transpose(p)`` as the dot's A:
``tileas-transpose-computed-operand``; the ``while`` with ``and`` and the do-while:
``tileas-while-to-for``; session 23: the backward's dQ and dK/dV kernels, 200 ragged queries and keys),
the split-KV partials kernel, their PTX run on the
CPU by ``tileorch.testing.ptx_emulator`` (every CTA of the launch, the launcher's own tensor maps:
test_user_sweep3_emulated's runner) against numpy float64 on small ragged instances, outputs
NaN-prefilled.  CPU cost (session 22, 2 shared cores, fresh memo): 12 CPU s, 154 s wall
under load, for the seven tests; compiles shared with test_attention_programs4_compile.py through the
compile memo.  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
from test_attention_programs2_emulated import _attn, _scores  # noqa: E402  (numpy references)

from tileorch.testing.attention_programs4 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(22020)


@pytest.fixture(autouse=True)
def _fourth_attention_set(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _h(*shape):
    return RNG.standard_normal(shape).astype(np.float16)


_check = s4._check


def test_paged_decode_page_read_with_item():
    """Two sequences of 200 and 300 keys in 64-key pages scattered over a 10-page pool (the pages'
    order permuted, unused table entries pointing at a poisoned page), GQA rows (16 query heads per
    KV head, 4 KV heads); the ragged last page masked."""
    q = _h(2, 64, 64)
    kc, vc = _h(10, 4, 64, 64), _h(10, 4, 64, 64)
    table = np.array([[7, 2, 9, 4, 0], [1, 5, 3, 8, 6]], np.int32)
    lens = np.array([200, 300], np.int32)
    kc[0], vc[0] = 60.0, 1000.0  # page 0 is the first sequence's fifth entry: never read (200 keys = 4 pages)
    out = s3._chained("paged_gqa_item", {0: q, 1: kc, 2: vc, 3: table, 4: lens}, (4, 2, 1))[5]
    ref = np.zeros((2, 64, 64))
    for b in range(2):
        pages = table[b, : -(-lens[b] // 64)]
        for g in range(4):
            k = np.concatenate([kc[p, g] for p in pages])[: lens[b]]
            v = np.concatenate([vc[p, g] for p in pages])[: lens[b]]
            ref[b, 16 * g:16 * g + 16] = _attn(_scores(q[b, 16 * g:16 * g + 16], k, 0.125), v)
    _check(out, ref)


def test_split_kv_partials():
    """500 keys (8 tiles, the last one 52 keys) over 4 splits of 2 tiles; each split's normalised
    partial O and natural-log LSE against numpy; combined, they give the attention."""
    q, k, v = _h(2, 64, 64), _h(2, 4, 500, 64), _h(2, 4, 500, 64)
    res = s3._chained("split_kv_partials", {0: q, 1: k, 2: v}, (4, 4, 2))
    op, lp = res[3], res[4]
    for b in range(2):
        for g in range(4):
            qq = q[b, 16 * g:16 * g + 16]
            full = _scores(qq, k[b, g], 0.125)
            for sp in range(4):
                lo, hi = 128 * sp, min(128 * sp + 128, 500)
                s = full[:, lo:hi]
                _check(op[b, g, sp], _attn(s, v[b, g, lo:hi]))
                m = s.max(-1)
                lse = m + np.log(np.exp(s - m[:, None]).sum(-1))
                np.testing.assert_allclose(lp[b, g, sp], lse, atol=2e-3, rtol=1e-3)
            w = np.exp(lp[b, g] - lp[b, g].max(0))
            comb = (op[b, g] * (w / w.sum(0))[:, :, None]).sum(0)
            _check(comb, _attn(full, v[b, g]))


def _dv_reference(q, k, do, m2, scale, causal):
    s = q.astype(np.float64) @ k.astype(np.float64).swapaxes(-1, -2) * scale * 1.4426950408889634
    p = np.exp2(s - m2[..., :, None])
    if causal:
        n = s.shape[-1]
        p = np.where(np.arange(n)[:, None] >= np.arange(n)[None, :], p, 0.0)
    p16 = p.astype(np.float16).astype(np.float64)
    return p16.swapaxes(-1, -2) @ do.astype(np.float64)


@pytest.mark.parametrize("name", ["bwd_dv_transposed_p", "bwd_dv_transposed_p_causal_bf16"])
def test_dv_with_transposed_p(name, monkeypatch):
    """dV += transpose(p) @ dO (``p`` computed from Q K^T in the loop, M the rows' log2 LSE): the chain
    computed transposed by tileas-transpose-computed-operand; 192 queries and keys in 64-row tiles
    (3 key-tile programs per head, 3 query tiles each; causal: from the diagonal). bf16 runs as its
    f16 twin (the emulator's WGMMA is f16)."""
    import dataclasses

    p = PROGRAMS[name]
    twin = dataclasses.replace(p, spec=[(s[0], "float16") if isinstance(s, tuple) and s[1] == "bfloat16" else s
                                        for s in p.spec])
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, name + "__f16": twin})
    q, k, do = _h(2, 192, 64), _h(2, 192, 64), _h(2, 192, 64)
    s = q.astype(np.float64) @ k.astype(np.float64).swapaxes(-1, -2) * 0.125 * 1.4426950408889634
    m2 = s.max(-1) + np.log2(np.exp2(s - s.max(-1, keepdims=True)).sum(-1))  # the forward's log2 LSE
    m2 = m2.astype(np.float32)
    causal = p.spec[6]
    out = s3._chained(name + "__f16", {0: q, 1: k, 2: do, 3: m2}, (3, 2, 1))[4]
    _check(out, _dv_reference(q, k, do, m2, 0.125, causal))


def test_while_with_and_in_the_condition():
    """``while j < n and j * BN < kv_len``: 256 keys in the array, 150 in the cache (3 tiles, the last
    one 22 keys): the loop stops at the smaller bound, the ragged keys masked."""
    q, k, v = _h(2, 128, 64), _h(2, 256, 64), _h(2, 256, 64)
    k[:, 192:], v[:, 192:] = 60.0, 1000.0  # past the cache's third tile: never read
    out = s3._chained("while_and_condition", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(out, _attn(_scores(q, k[:, :150], 0.125), v[:, :150]))


def test_do_while_break_after_the_body():
    """``while True:`` body, ``j += 1``, ``if j >= n: break`` (causal, ``n`` the diagonal's tile count):
    the body runs for every key tile up to the diagonal."""
    q, k, v = _h(2, 192, 64), _h(2, 192, 64), _h(2, 192, 64)
    out = s3._chained("while_true_break_last", {0: q, 1: k, 2: v}, (3, 2, 1))[3]
    i, j = np.arange(192)[:, None], np.arange(192)[None, :]
    _check(out, _attn(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v))


def test_varlen_skipped_instances_store_nothing():
    """The instances past a sequence's query tiles (``if qt * BM < nq:`` false) run no chain and store
    nothing: before, they ran the chain with the loop's trip count and stored their tile at
    ``q0 // BM + qt``, the next sequence's rows (a GPU ran such an instance after the one owning the rows:
    99% of the second sequence wrong on the H100 and H200, session 23; the emulator ran them first, in
    launch order, and the owner's store hid them).  Run alone here: the output stays NaN."""
    q, k, v = _h(2, 384, 64), _h(2, 384, 64), _h(2, 384, 64)
    cu = np.array([0, 128, 192, 350], np.int32)
    skipped = [(2, 0, 0), (2, 1, 0), (1, 0, 1), (2, 0, 1), (1, 1, 1), (2, 1, 1)]  # (qt, h, b): qt * 64 >= nq
    out = s3._chained("varlen_cu_seqlens_tiles", {0: q, 1: k, 2: v, 3: cu, 4: cu}, (3, 2, 3),
                      reorder=lambda ctaids: [c for c in ctaids if c in skipped])[5]
    assert np.isnan(out.astype(np.float64)).all()


def test_varlen_cu_seqlens_tiles_reverse_launch_order():
    """The whole launch in reverse order (the owners of a sequence's rows before the skipped instances)."""
    q, k, v = _h(2, 384, 64), _h(2, 384, 64), _h(2, 384, 64)
    cu = np.array([0, 128, 192, 350], np.int32)
    out = s3._chained("varlen_cu_seqlens_tiles", {0: q, 1: k, 2: v, 3: cu, 4: cu}, (3, 2, 3),
                      reorder=lambda ctaids: ctaids[::-1])[5]
    for b in range(3):
        s0, n = cu[b], cu[b + 1] - cu[b]
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        for h in range(2):
            s = np.where(j <= i, _scores(q[h, s0:s0 + n], k[h, s0:s0 + n], 0.125), -np.inf)
            _check(out[h, s0:s0 + n], _attn(s, v[h, s0:s0 + n]))


def test_varlen_cu_seqlens_tiles_skipped_instances():
    """Three sequences packed at tile-aligned offsets (128, 64 and 158 rows), causal inside each; the
    programs past a sequence's query tiles skip the chain (``if qt * BM < nq:``).  The persistent kernel
    got the instances after a skipped one wrong (H200 and this emulator, 2026-12-05: the third sequence's
    rows of the instances dealt after skipped ones, errors up to 3.4): a chain under a branch of the
    program now runs one CTA per instance (remark)."""
    q, k, v = _h(2, 384, 64), _h(2, 384, 64), _h(2, 384, 64)
    cu = np.array([0, 128, 192, 350], np.int32)
    out = s3._chained("varlen_cu_seqlens_tiles", {0: q, 1: k, 2: v, 3: cu, 4: cu}, (3, 2, 3))[5]
    for b in range(3):
        s0, n = cu[b], cu[b + 1] - cu[b]
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        for h in range(2):
            s = np.where(j <= i, _scores(q[h, s0:s0 + n], k[h, s0:s0 + n], 0.125), -np.inf)
            _check(out[h, s0:s0 + n], _attn(s, v[h, s0:s0 + n]))


def _f16_twin(monkeypatch, name: str, shapes: dict) -> str:
    """``name`` resized to ``shapes`` (test_user_sweep3_emulated.resized: the same program), a bf16
    program as its f16 twin (the emulator's WGMMA is f16-only); the name the runner knows it by."""
    import dataclasses

    p = s3.resized(name, shapes)
    twin = dataclasses.replace(p, spec=[(s[0], "float16") if isinstance(s, tuple) and s[1] == "bfloat16" else s
                                        for s in p.spec])
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, name + "__run": twin})
    return name + "__run"


def _backward_inputs(bh: int, n: int, d: int, scale: float, causal: bool):
    """Q, K, V, dO (f16), the forward's log2-unit LSE ``M`` per query row, ``delta = rowsum(P * dP)``
    (= rowsum(O * dO)), and P (float64) of ``n`` queries and keys."""
    q, k, v, do = _h(bh, n, d), _h(bh, n, d), _h(bh, n, d), _h(bh, n, d)
    s = q.astype(np.float64) @ k.astype(np.float64).swapaxes(-1, -2) * scale * 1.4426950408889634
    if causal:
        s = np.where(np.arange(n)[:, None] >= np.arange(n)[None, :], s, -np.inf)
    m2 = s.max(-1) + np.log2(np.exp2(s - s.max(-1, keepdims=True)).sum(-1))
    p = np.exp2(s - m2[..., None])
    dp = do.astype(np.float64) @ v.astype(np.float64).swapaxes(-1, -2)
    delta = (p * dp).sum(-1)
    return q, k, v, do, m2.astype(np.float32), delta.astype(np.float32), p, dp


@pytest.mark.parametrize("name", ["bwd_dq_d64_f16", "bwd_dq_d64_bf16_causal", "bwd_dq_d128_f16_causal"])
def test_dq_two_first_dots_with_their_own_a(name, monkeypatch):
    """FlashAttention's backward dQ (program (qt, bh): ``S = Q K^T`` and ``dP = dO V^T``, two first
    dots reading their own loop-invariant A tiles, ``dS = P (dP - delta)``, ``dQ += dS K``) on the
    tensor-core tier: 200 queries and keys (the last tiles 8 rows: ragged), dQ NaN-prefilled, against
    numpy (dS rounded to the operands' type as the program's ``astype``)."""
    d = 128 if "d128" in name else 64
    causal, scale, n = name.endswith("_causal"), 1 / np.sqrt(d), 200
    shapes = {i: (2, n, d) for i in (0, 1, 2, 3, 6)} | {4: (2, n), 5: (2, n)}
    run = _f16_twin(monkeypatch, name, shapes)
    q, k, v, do, m2, delta, p, dp = _backward_inputs(2, n, d, scale, causal)
    out = s3._chained(run, {0: q, 1: k, 2: v, 3: do, 4: m2, 5: delta}, (4, 2, 1))[6]
    ds = (p * (dp - delta[..., None].astype(np.float64))).astype(np.float16).astype(np.float64)
    _check(out, ds @ k.astype(np.float64) * scale)


@pytest.mark.parametrize("name", ["bwd_dkdv_d64_f16", "bwd_dkdv_d64_bf16_causal", "bwd_dkdv_d128_f16_causal"])
def test_dkdv_chain_feeding_two_accumulators(name, monkeypatch):
    """FlashAttention's backward dK/dV (program (kt, bh): ``S^T = K Q^T`` and ``dP^T = V dO^T``, first
    dots with their own A tiles K and V; ``dV += P^T dO`` and ``dK += dS^T Q``, two second dots whose B
    tiles are the first dots' (dO, Q: one load each), two accumulators carried by the loop and
    stored after it): 200 queries and keys (ragged last tiles), dK and dV NaN-prefilled, against
    numpy (P^T and dS^T rounded to the operands' type as the program's ``astype``)."""
    d = 128 if "d128" in name else 64
    causal, scale, n = name.endswith("_causal"), 1 / np.sqrt(d), 200
    shapes = {i: (2, n, d) for i in (0, 1, 2, 3, 6, 7)} | {4: (2, n), 5: (2, n)}
    run = _f16_twin(monkeypatch, name, shapes)
    q, k, v, do, m2, delta, p, dp = _backward_inputs(2, n, d, scale, causal)
    out = s3._chained(run, {0: q, 1: k, 2: v, 3: do, 4: m2, 5: delta}, (4, 2, 1))
    pt = p.swapaxes(-1, -2).astype(np.float16).astype(np.float64)
    dst = (p * (dp - delta[..., None].astype(np.float64))).swapaxes(-1, -2).astype(np.float16).astype(np.float64)
    _check(out[7], pt @ do.astype(np.float64))
    _check(out[6], dst @ q.astype(np.float64) * scale)
