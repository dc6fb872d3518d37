"""Session 32's attention zoo (``tileorch.testing.attnzoo32_programs``): each chained kernel's PTX run on the CPU
by ``tileorch.testing.ptx_emulator`` (every CTA of the launch, the launcher's own tensor maps and parameters:
test_user_sweep3_emulated's runner) against numpy float64 references written from the programs' docstrings,
outputs NaN-prefilled, small ragged sizes (``s3.resized``: the same compiled kernel at other launch-time sizes).
The emulator's WGMMA is f16: a bf16 program runs as its f16 twin (its bf16 form compiles in
test_attnzoo32_compile.py and runs on the GPU in tests/gpu/test_attnzoo32_gpu.py).  Cache rows past a
sequence's valid length hold large finite values (a read of them shows).  ``TILEORCH_EMULATE_ALL=1`` adds the
larger cases.  Needs cuda-tile."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
from test_attention_programs2_emulated import _attn, _scores  # noqa: E402  (numpy references)
from test_attention_programs3_emulated import _f16_twin  # noqa: E402

from tileorch.testing.attnzoo32_programs import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(32020)
LN2 = math.log(2.0)
TWINS = {f"{n}__f16": _f16_twin(p) for n, p in PROGRAMS.items() if any(
    isinstance(s, tuple) and s[1] == "bfloat16" for s in p.spec)}
_check = s4._check
EXTENDED = pytest.mark.skipif(not os.environ.get("TILEORCH_EMULATE_ALL"),
                              reason="CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every case")


@pytest.fixture(autouse=True)
def _zoo(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _run(name, inputs, grid, shapes=None, scalars=None):
    """The program's (or its f16 twin's) arrays after the emulated launch of ``grid``; ``shapes`` / ``scalars``:
    other launch-time sizes than the spec's (the same compiled kernel)."""
    key = f"{name}__f16" if f"{name}__f16" in TWINS else name
    grid3 = tuple(grid) + (1,) * (3 - len(grid))
    prog = s3.resized(key, shapes or {}, scalars) if shapes or scalars else None
    return s3._chained(key, inputs, grid3, program=prog)


def _masked(s, ok):
    return np.where(ok, s, -np.inf)


def _causal(sq, sk, off=0):
    return np.arange(sk)[None, :] <= np.arange(off, off + sq)[:, None]


def test_gqa8_decode_sequence_major_lengths():
    """Batch 0 holds 300 valid keys, batch 1 170 (its rows 170.. hold large values the mask must hide)."""
    q, k, v = _h(2, 1, 16, 128), _h(2, 300, 2, 128), _h(2, 300, 2, 128)
    lens = np.array([300, 170], np.int32)
    k[1, 170:], v[1, 170:] = 30.0, 1000.0
    o = _run("z32_decode_gqa8_bshd_lens", {0: q, 1: k, 2: v, 3: lens}, (2, 2))[4]
    for b in range(2):
        for h in range(16):
            n, g = lens[b], h // 8
            _check(o[b, 0, h], _attn(_scores(q[b, 0, h][None], k[b, :n, g], 1 / math.sqrt(128)), v[b, :n, g])[0])


@EXTENDED
def test_paged_slots_gathered_on_the_chained_kernel():
    """16-token pages in a shuffled table (``[H, slots, D]`` caches, the row ``Table[b, t // 16] * 16 + t % 16``),
    256 and 150 valid keys; the pages no sequence names hold large values (a read of them shows).  Session 37:
    ``tileas-paged-gather`` loads each 64-key tile as four 16-row TMA boxes."""
    q, kc, vc = _h(2, 2, 64), _h(2, 512, 64), _h(2, 512, 64)
    perm = RNG.permutation(32)
    table = perm[:32].reshape(2, 16).astype(np.int32)
    lens = np.array([256, 150], np.int32)
    unused = [int(table[1, p]) for p in range(-(-150 // 16), 16)]
    for p in unused:
        kc[:, p * 16:(p + 1) * 16], vc[:, p * 16:(p + 1) * 16] = 30.0, 1000.0
    o = _run("z32_paged_slot_gather", {0: q, 1: kc, 2: vc, 3: table, 4: lens}, (2, 2))[5]
    for b in range(2):
        t = np.arange(lens[b])
        slot = table[b, t // 16] * 16 + t % 16
        for h in range(2):
            _check(o[b, h], _attn(_scores(q[b, h][None], kc[h, slot], 0.125), vc[h, slot])[0])


def test_split_kv_partials_with_an_empty_split():
    """300 keys in 5 tiles over 4 splits (the grid's first axis): 2, 2, 1 and 0 tiles.  Each split's partial
    against numpy; the empty split stores O = 0 and LSE = -inf; the partials combined give the attention."""
    q, k, v = _h(1, 1, 64), _h(1, 1, 300, 64), _h(1, 1, 300, 64)
    out = _run("z32_split_kv_grid_splits", {0: q, 1: k, 2: v}, (4, 1, 1),
               {0: q.shape, 1: k.shape, 2: v.shape, 3: (1, 1, 4, 64), 4: (1, 1, 4)})
    op, lp = out[3][0, 0], out[4][0, 0]
    s = _scores(q[0, 0][None], k[0, 0], 0.125)[0]
    for sp, (lo, hi) in enumerate([(0, 128), (128, 256), (256, 300)]):
        e = np.exp(s[lo:hi] - s[lo:hi].max())
        _check(op[sp], (e / e.sum()) @ v[0, 0, lo:hi].astype(np.float64))
        np.testing.assert_allclose(lp[sp] * LN2, np.log(np.exp(s[lo:hi]).sum()), atol=2e-3, rtol=1e-3)
    assert lp[3] == -np.inf and (op[3] == 0).all(), (lp, op[3])
    w = np.exp2(lp - lp.max())
    _check((w[:, None] * op).sum(0) / w.sum(), _attn(s[None], v[0, 0])[0])


def test_chunked_prefill_per_sequence_offsets():
    """Sequence 0: 150 queries at the end of 300 keys; sequence 1: 40 queries at the end of 100 keys (its
    query tiles 1 and 2 return at once: their rows stay NaN; keys past 100 hold large values)."""
    q, k, v = _h(4, 150, 64), _h(4, 300, 64), _h(4, 300, 64)
    k[2:, 100:], v[2:, 100:] = 30.0, 1000.0
    ql, kl = np.array([150, 40], np.int32), np.array([300, 100], np.int32)
    o = _run("z32_chunk_prefill_lens", {0: q, 1: k, 2: v, 3: ql, 4: kl}, (3, 4))[5]
    for bh in range(4):
        nq, nk = ql[bh // 2], kl[bh // 2]
        ref = _attn(_masked(_scores(q[bh, :nq], k[bh, :nk], 0.125), _causal(nq, nk, nk - nq)), v[bh, :nk])
        _check(o[bh, :nq], ref)
    assert np.isnan(o[2:, 64:]).all()  # the skipped programs' tiles


def test_sink_tile_peeled_before_the_window_loop():
    """64 sink keys (key tile 0, its step peeled) and a causal 100-key window over 300 keys."""
    q, k, v = _h(2, 300, 64), _h(2, 300, 64), _h(2, 300, 64)
    o = _run("z32_sink_tile_peeled_window", {0: q, 1: k, 2: v}, (5, 2))[3]
    i, j = np.arange(300)[:, None], np.arange(300)[None, :]
    _check(o, _attn(_masked(_scores(q, k, 0.125), (j <= i) & ((j < 64) | (j > i - 100))), v))


@pytest.mark.parametrize("prefetch", ["0", "1"])
def test_alibi_from_left_padded_position_ids(monkeypatch, prefetch):
    """Batch 0 unpadded, batch 1 left-padded by 70 tokens (position -1: masked as keys; its pad query rows not
    compared); ALiBi from the loaded positions, causal by position; the key positions' loads after / before the
    wait for S (``TILEORCH_ATTN_ROW_PREFETCH``)."""
    monkeypatch.setenv("TILEORCH_ATTN_ROW_PREFETCH", prefetch)
    q, k, v = _h(2, 2, 160, 64), _h(2, 2, 160, 64), _h(2, 2, 160, 64)
    pos = np.stack([np.arange(160), np.r_[np.full(70, -1), np.arange(90)]]).astype(np.int32)
    o = _run("z32_alibi_position_ids_bf16", {0: q, 1: k, 2: v, 3: pos}, (3, 2, 2))[4]
    for b in range(2):
        pq, pk = pos[b][:, None], pos[b][None, :]
        real = pos[b] >= 0
        for h in range(2):
            slope = 2.0 ** (-8.0 * (h + 1) / 2)
            s = _scores(q[b, h], k[b, h], 0.125) + slope * (pk - pq)
            ref = _attn(_masked(s[real], ((pk >= 0) & (pk <= pq))[real]), v[b, h])
            _check(o[b, h][real], ref)


@pytest.mark.parametrize("softmax_exp,prefetch", [("full", "0"), ("ex2", "1")])
def test_hf_additive_f16_mask_broadcast(monkeypatch, softmax_exp, prefetch):
    """``[B, 1, 1, Sk]`` f16 mask: batch 1 drops keys 120.. (``finfo(f16).min``), batch 0 keys 7 and 50; the
    loop's natural exp as the program asks (full) and as ``ex2.approx`` (``TILEORCH_ATTN_SOFTMAX_EXP=ex2``), the
    mask row's loads after / before the wait for S (``TILEORCH_ATTN_ROW_PREFETCH``)."""
    monkeypatch.setenv("TILEORCH_ATTN_SOFTMAX_EXP", softmax_exp)
    monkeypatch.setenv("TILEORCH_ATTN_ROW_PREFETCH", prefetch)
    q, k, v = _h(4, 100, 64), _h(4, 170, 64), _h(4, 170, 64)
    mask = np.zeros((2, 1, 1, 170), np.float16)
    mask[1, ..., 120:] = np.finfo(np.float16).min
    mask[0, ..., [7, 50]] = np.finfo(np.float16).min
    o = _run("z32_hf_additive_mask_f16", {0: q, 1: k, 2: v, 3: mask}, (2, 4))[4]
    for bh in range(4):
        _check(o[bh], _attn(_scores(q[bh], k[bh], 0.125) + mask[bh // 2, 0, 0].astype(np.float64), v[bh]))


def test_per_query_temperature_column():
    q, k, v = _h(2, 128, 64), _h(2, 150, 64), _h(2, 150, 64)
    tau = RNG.uniform(0.5, 2.0, (2, 128)).astype(np.float32)
    o = _run("z32_row_temperature", {0: q, 1: k, 2: v, 3: tau}, (2, 2))[4]
    _check(o, _attn(_scores(q, k, 0.125) / tau[..., None], v))


def test_off_by_one_softmax_causal():
    """``exp(s) / (1 + sum exp(s))``: the reference appends a zero logit with a zero value row."""
    q, k, v = _h(2, 150, 64, scale=0.3), _h(2, 150, 64), _h(2, 150, 64)
    o = _run("z32_softmax_off_by_one", {0: q, 1: k, 2: v}, (3, 2))[3]
    s = _masked(_scores(q, k, 0.125), _causal(150, 150))
    e = np.exp(s)
    _check(o, (e / (1.0 + e.sum(-1, keepdims=True))) @ v.astype(np.float64))


def test_key_tiles_walked_last_first():
    q, k, v = _h(2, 128, 64), _h(2, 170, 64), _h(2, 170, 64)
    o = _run("z32_keys_last_tile_first", {0: q, 1: k, 2: v}, (2, 2))[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_cross_attention_d112_f32_out():
    """Head dim 112 (a 128-wide tile over 112 columns), 130 queries x 170 keys, O f32."""
    q, k, v = _h(2, 130, 112), _h(2, 170, 112), _h(2, 170, 112)
    o = _run("z32_cross_d112_bf16_f32out", {0: q, 1: k, 2: v}, (3, 2), {0: q.shape, 3: (2, 130, 112)})[3]
    _check(o, _attn(_scores(q, k, 1 / math.sqrt(112)), v))


@pytest.mark.parametrize("seq", [100, pytest.param(150, marks=EXTENDED)])
def test_causal_d160(seq):
    q, k, v = _h(2, seq, 160), _h(2, seq, 160), _h(2, seq, 160)
    o = _run("z32_causal_d160", {0: q, 1: k, 2: v}, (-(-seq // 64), 2), {i: q.shape for i in range(4)})[3]
    _check(o, _attn(_masked(_scores(q, k, 1 / math.sqrt(160)), _causal(seq, seq)), v))


@pytest.mark.parametrize("k_ahead", ["0", "1"])
def test_qk_rmsnorm_before_the_dot(monkeypatch, k_ahead):
    """Q's and each K tile's rows RMS-normalised (f32, weights), rounded to f16 as the kernel casts them; the K
    prologue in the tile's own iteration / one tile ahead (``TILEORCH_ATTN_K_AHEAD``; two CTAs of two instances
    each: the ring's index runs on across instances)."""
    monkeypatch.setenv("TILEORCH_ATTN_K_AHEAD", k_ahead)
    q, k, v = _h(2, 128, 64), _h(2, 150, 64), _h(2, 150, 64)
    wq, wk = RNG.uniform(0.5, 1.5, 64).astype(np.float32), RNG.uniform(0.5, 1.5, 64).astype(np.float32)
    o = _run("z32_qk_rmsnorm", {0: q, 1: k, 2: v, 3: wq, 4: wk}, (2, 2))[5]

    def norm(x, w):
        x = x.astype(np.float64)
        return (x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w).astype(np.float16)
    _check(o, _attn(_scores(norm(q, wq), norm(k, wk), 0.125), v))


@EXTENDED
def test_qk_rmsnorm_k_ahead_two_consumer_groups(monkeypatch):
    """The q-k norm program at 128 x 128 tiles (two consumer warp groups sharing the K prologue, the benchmark's
    form) with ``TILEORCH_ATTN_K_AHEAD=1``: three key tiles, ragged."""
    import dataclasses

    p = PROGRAMS["z32_qk_rmsnorm"]
    spec = list(p.spec)
    spec[0], spec[1], spec[2], spec[5] = ((2, 256, 64), "float16"), ((2, 300, 64), "float16"), \
        ((2, 300, 64), "float16"), ((2, 256, 64), "float16")
    spec[-3] = spec[-2] = 128
    s4.add_sweep_programs(monkeypatch, {"z32_qk_rmsnorm_128": dataclasses.replace(p, spec=spec, grid=(2, 2))})
    monkeypatch.setenv("TILEORCH_ATTN_K_AHEAD", "1")
    q, k, v = _h(2, 256, 64), _h(2, 300, 64), _h(2, 300, 64)
    wq, wk = RNG.uniform(0.5, 1.5, 64).astype(np.float32), RNG.uniform(0.5, 1.5, 64).astype(np.float32)
    o = s3._chained("z32_qk_rmsnorm_128", {0: q, 1: k, 2: v, 3: wq, 4: wk}, (2, 2, 1))[5]

    def norm(x, w):
        x = x.astype(np.float64)
        return (x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w).astype(np.float16)
    _check(o, _attn(_scores(norm(q, wq), norm(k, wk), 0.125), v))


def test_two_heads_a_program_split_into_chains():
    """Two MHA heads a program (four dots, two chains in one key loop): split by tileas-split-chains into two
    programs of one chain each (the launch's axis 0 doubled); both heads of every pair against numpy, ragged keys
    (170: a partial last key tile; the program does not mask it: padded keys are zeros, as the program's math says)
    and a partial query tile."""
    q, k, v = _h(2, 4, 100, 64), _h(2, 4, 128, 64), _h(2, 4, 128, 64)
    o = _run("z32_two_mha_heads", {0: q, 1: k, 2: v}, (2, 2, 2),
             {0: q.shape, 1: k.shape, 2: v.shape, 3: (2, 4, 100, 64)})[3]
    for b in range(2):
        for h in range(4):
            _check(o[b, h], _attn(_scores(q[b, h], k[b, h], 0.125), v[b, h]))


@pytest.mark.parametrize("softmax_exp", ["full", "ex2"])
def test_lse_alone_on_the_chained_kernel(monkeypatch, softmax_exp):
    """The natural LSE of the scaled scores alone (one dot a key tile, only reduced): the chained kernel with an
    unread second dot (tileas-row-statistics-chain) stores the row vector alone; 150 queries (a partial query tile:
    rows past 150 unstored) x 170 keys (a partial key tile masked by the program); the exp as written and as
    ex2.approx (TILEORCH_ATTN_SOFTMAX_EXP)."""
    monkeypatch.setenv("TILEORCH_ATTN_SOFTMAX_EXP", softmax_exp)
    q, k = _h(2, 150, 64), _h(2, 170, 64)
    lse = _run("z32_lse_only", {0: q, 1: k}, (3, 2))[2]
    s = _scores(q, k, 0.125)
    ref = s.max(-1) + np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1))
    assert not np.isnan(lse).any()
    np.testing.assert_allclose(lse, ref, atol=2e-3, rtol=1e-3)


import cuda.tile as ct  # noqa: E402

from tileorch.testing.attnzoo32_programs import _kpos, _online, _state  # noqa: E402
from tileorch.testing.user_programs import UserProgram  # noqa: E402


@ct.kernel
def _two_heads_causal(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Heads 2p and 2p + 1 of ``[BH, S, D]`` arrays in one causal key loop, the mask computed once and read by both
    chains (a shared op), the trip count growing with the query tile (heavy first); a test program of this file."""
    qt, bp = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    z = ct.PaddingMode.ZERO
    q0 = ct.load(Q, index=(2 * bp, qt, 0), shape=(1, BM, D), padding_mode=z).reshape((BM, D))
    q1 = ct.load(Q, index=(2 * bp + 1, qt, 0), shape=(1, BM, D), padding_mode=z).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m0, l0, a0 = _state(BM, D)
    m1, l1, a1 = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = _kpos(j, BN)
        ok = (kpos <= qpos) & (kpos < seq)
        k0 = ct.load(K, index=(2 * bp, j, 0), shape=(1, BN, D), padding_mode=z).reshape((BN, D))
        s0 = ct.where(ok, ct.mma(q0, ct.transpose(k0), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale, -math.inf)
        v0 = ct.load(V, index=(2 * bp, j, 0), shape=(1, BN, D), padding_mode=z).reshape((BN, D))
        m0, l0, a0 = _online(s0, m0, l0, a0, v0, V.dtype)
        k1 = ct.load(K, index=(2 * bp + 1, j, 0), shape=(1, BN, D), padding_mode=z).reshape((BN, D))
        s1 = ct.where(ok, ct.mma(q1, ct.transpose(k1), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale, -math.inf)
        v1 = ct.load(V, index=(2 * bp + 1, j, 0), shape=(1, BN, D), padding_mode=z).reshape((BN, D))
        m1, l1, a1 = _online(s1, m1, l1, a1, v1, V.dtype)
    ct.store(O, index=(2 * bp, qt, 0), tile=(a0 / l0).astype(O.dtype).reshape((1, BM, D)))
    ct.store(O, index=(2 * bp + 1, qt, 0), tile=(a1 / l1).astype(O.dtype).reshape((1, BM, D)))


@pytest.mark.parametrize("persistent", ["0", "1"])
def test_two_heads_causal_shared_mask_split(monkeypatch, persistent):
    """The causal two-heads program split into one-chain programs (grid axis 0 doubled: heavy first along it, the
    snake-dealt persistent kernel and one CTA per instance): 4 heads of 150 queries / keys against numpy."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    f16 = "float16"
    s4.add_sweep_programs(monkeypatch, {"z33_two_heads_causal": UserProgram(
        _two_heads_causal, [((4, 150, 64), f16)] * 4 + [0.125 * 1.4426950408889634, 64, 64, 64], (3, 2), "chained",
        outputs=(3,))})
    q, k, v = _h(4, 150, 64), _h(4, 150, 64), _h(4, 150, 64)
    o = s3._chained("z33_two_heads_causal", {0: q, 1: k, 2: v}, (3, 2, 1))[3]
    for bh in range(4):
        _check(o[bh], _attn(_masked(_scores(q[bh], k[bh], 0.125), _causal(150, 150)), v[bh]))


def test_lse_alone_128_tiles_two_consumer_groups(monkeypatch):
    """The LSE alone at 128 x 128 tiles (two consumer warp groups, the benchmark's form), 200 queries x 300 keys."""
    import dataclasses

    p = PROGRAMS["z32_lse_only"]
    spec = list(p.spec)
    spec[0], spec[1], spec[2] = ((2, 200, 64), "float16"), ((2, 300, 64), "float16"), ((2, 200), "float32")
    spec[-3] = spec[-2] = 128
    s4.add_sweep_programs(monkeypatch, {"z32_lse_only_128": dataclasses.replace(p, spec=spec, grid=(2, 2))})
    q, k = _h(2, 200, 64), _h(2, 300, 64)
    lse = s3._chained("z32_lse_only_128", {0: q, 1: k}, (2, 2, 1))[2]
    s = _scores(q, k, 0.125)
    ref = s.max(-1) + np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1))
    assert not np.isnan(lse).any()
    np.testing.assert_allclose(lse, ref, atol=2e-3, rtol=1e-3)


def _kv(A, h, j, BN, D):
    return ct.load(A, index=(h, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))


@ct.kernel
def _three_heads(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Heads 3p, 3p + 1 and 3p + 2 of ``[BH, S, D]`` arrays side by side in one key loop (three chains: the grid's
    axis 0 tripled, a progression of step 1); ragged keys masked; a test program of this file."""
    qt, p = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q0 = _kv(Q, 3 * p, qt, BM, D)
    q1 = _kv(Q, 3 * p + 1, qt, BM, D)
    q2 = _kv(Q, 3 * p + 2, qt, BM, D)
    m0, l0, a0 = _state(BM, D)
    m1, l1, a1 = _state(BM, D)
    m2, l2, a2 = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        ok = _kpos(j, BN) < seq
        z = ct.zeros((BM, BN), dtype=ct.float32)
        s0 = ct.where(ok, ct.mma(q0, ct.transpose(_kv(K, 3 * p, j, BN, D)), z) * qk_scale, -math.inf)
        s1 = ct.where(ok, ct.mma(q1, ct.transpose(_kv(K, 3 * p + 1, j, BN, D)), z) * qk_scale, -math.inf)
        s2 = ct.where(ok, ct.mma(q2, ct.transpose(_kv(K, 3 * p + 2, j, BN, D)), z) * qk_scale, -math.inf)
        m0, l0, a0 = _online(s0, m0, l0, a0, _kv(V, 3 * p, j, BN, D), V.dtype)
        m1, l1, a1 = _online(s1, m1, l1, a1, _kv(V, 3 * p + 1, j, BN, D), V.dtype)
        m2, l2, a2 = _online(s2, m2, l2, a2, _kv(V, 3 * p + 2, j, BN, D), V.dtype)
    ct.store(O, index=(3 * p, qt, 0), tile=(a0 / l0).astype(O.dtype).reshape((1, BM, D)))
    ct.store(O, index=(3 * p + 1, qt, 0), tile=(a1 / l1).astype(O.dtype).reshape((1, BM, D)))
    ct.store(O, index=(3 * p + 2, qt, 0), tile=(a2 / l2).astype(O.dtype).reshape((1, BM, D)))


def test_three_heads_a_program_split_into_three_chains(monkeypatch):
    """Three chains (G = 3: program x -> 3x + part, pid // 3) over 6 heads, 100 queries x 150 keys, against numpy."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    f16 = "float16"
    prog = UserProgram(_three_heads, [((6, 100, 64), f16)] + [((6, 150, 64), f16)] * 2 + [((6, 100, 64), f16),
                       0.125 * 1.4426950408889634, 64, 64, 64], (2, 2), "chained", outputs=(3,))
    low = lower_once(cutile_bytecode(prog.kernel, prog.spec), "z33_three_heads", arch="sm_90a")
    assert low.kind == "chained" and low.chained["grid_split"] == [0, 3], list(low.remarks)
    s4.add_sweep_programs(monkeypatch, {"z33_three_heads": prog})
    q, k, v = _h(6, 100, 64), _h(6, 150, 64), _h(6, 150, 64)
    o = s3._chained("z33_three_heads", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    for bh in range(6):
        _check(o[bh], _attn(_scores(q[bh], k[bh], 0.125), v[bh]))
