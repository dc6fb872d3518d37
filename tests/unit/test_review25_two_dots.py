"""Adversarial two-dot programs on tier paths no GPU has run yet, on the PTX emulator against numpy (outputs
NaN-prefilled):

* the epilogue dot (``tileas/epilogue_dot.py``): M below one 64-row tile with K below one K tile; one K step
  with a NaN in X and hidden values past f16's range (the cast between the dots gives +-inf, the second dot
  NaN or inf: exactly numpy's pattern); a row-scale vector at the row tile between the dots; ``relu`` of a
  NaN accumulator (cuTile's default maximum drops the NaN);
* the chained tier's branch around the chain (the varlen guard, ``chained_dots._chain_guards``): two nested
  branches, and one branch whose condition is an ``&`` of two, each instance outside them storing nothing;
* 256-row attention tiles (four consumer warp groups in the setmaxnreg budget) on a causal, ragged program
  that also stores its row LSE.

Needs cuda-tile and ml_dtypes, no GPU."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.attention_programs4 import varlen_query_tile  # noqa: E402
from tileorch.testing.user_programs import UserProgram  # noqa: E402

RNG = np.random.default_rng(2527)
C = ct.Constant
LOG2E = 1.4426950408889634


@ct.kernel
def lowrank(X, La, Lb, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    y = ct.mma(t.astype(ct.float16), ct.load(Lb, index=(0, bn), shape=(R, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y)


@ct.kernel
def lowrank_row_scaled(X, La, S, Lb, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    s = ct.load(S, index=(bm,), shape=(tm,))
    y = ct.mma((t * s[:, None]).astype(ct.float16), ct.load(Lb, index=(0, bn), shape=(R, tn)),
               ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y)


@ct.kernel
def mlp_relu(X, W1, W2, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, 0), shape=(tk, H)), h)
    y = ct.mma(ct.maximum(h, 0.0).astype(ct.float16), ct.load(W2, index=(0, bn), shape=(H, tn)),
               ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y)


def _epilogue_dot(name, kernel, spec, inputs: dict, out: int, e: int) -> np.ndarray:
    """The program's output (A argument 0, B 1, E ``e``), NaN where it stored NaN or did not store."""
    from tileorch.testing.gemm_emulation import compile_cutile, run_gemm

    prog = compile_cutile(kernel, spec, name, config="cluster_m=1,epilogue=direct")
    assert prog.kind == "gemm" and prog.gemm_config.epi_n, prog.remarks
    p = UserProgram(kernel, spec, (1,), "gemm", outputs=(out,))
    arrays = s3._arrays(p, inputs)
    bases = {i: (i + 1) << 32 for i in arrays}
    tile = s3._tile_params(p, s3._described(p, bases), bases)
    (m, k), n = arrays[0].shape, arrays[out].shape[1]
    memory = [(bases[i], arrays[i].view(np.uint8).reshape(-1), f"arg{i}") for i in arrays if i not in (0, 1, e)]
    errors = run_gemm(prog, arrays[0], arrays[1], bases[out], (m, n, k), tile, memory, epi=arrays[e])
    assert not errors, errors[:4]
    return arrays[out].astype(np.float64)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _f16(x):
    with np.errstate(over="ignore"):
        return np.asarray(x, np.float64).astype(np.float16).astype(np.float64)


def _mm(a, b):
    with np.errstate(invalid="ignore"):
        return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def _same(out, ref, atol=2e-2, rtol=1e-2):
    assert np.array_equal(np.isnan(out), np.isnan(ref)), (np.isnan(out).sum(), np.isnan(ref).sum())
    assert np.array_equal(np.isinf(out), np.isinf(ref))
    fin = np.isfinite(ref)
    np.testing.assert_allclose(out[fin], ref[fin], atol=atol, rtol=rtol)


def test_epilogue_dot_below_one_row_tile_and_one_k_tile():
    m, k, r, n = 40, 40, 64, 72
    x, la, lb = _h(m, k), _h(k, r, scale=0.25), _h(r, n, scale=0.25)
    spec = [((m, k), "float16"), ((k, r), "float16"), ((r, n), "float16"), ((m, n), "float32"), r, 64, 64, 64]
    _same(_epilogue_dot("rv25_lowrank_small", lowrank, spec, {0: x, 1: la, 2: lb}, 3, 2), _mm(_f16(_mm(x, la)), lb))


def test_epilogue_dot_nan_and_f16_overflow_between_the_dots():
    """One K step; X holds a NaN (its row of the output NaN) and a row of 30000s whose rank-64 products pass
    65504: the cast to f16 between the dots makes them +-inf, and the second dot inf or NaN (inf - inf)."""
    m, k, r, n = 130, 64, 64, 72
    x, la, lb = _h(m, k), _h(k, r, scale=0.25), _h(r, n, scale=0.25)
    x[3, 5], x[7, 9] = np.nan, 300.0
    x[8, :] = 30000.0
    spec = [((m, k), "float16"), ((k, r), "float16"), ((r, n), "float16"), ((m, n), "float32"), r, 128, 64, 64]
    ref = _mm(_f16(_mm(x, la)), lb)
    assert np.isnan(ref[3]).all() and np.isinf(_f16(_mm(x, la))[8]).any()
    with np.errstate(over="ignore"):  # (the emulator's cvt.rn.f16x2.f32 of the overflowing products)
        out = _epilogue_dot("rv25_lowrank_nan", lowrank, spec, {0: x, 1: la, 2: lb}, 3, 2)
    _same(out, ref, atol=0.1)


def test_epilogue_dot_relu_drops_a_nan_accumulator():
    m, k, h, n = 130, 64, 64, 72
    x, w1, w2 = _h(m, k), _h(k, h, scale=0.25), _h(h, n, scale=0.25)
    x[3, 5] = np.nan
    spec = [((m, k), "float16"), ((k, h), "float16"), ((h, n), "float16"), ((m, n), "float32"), h, 64, 64, 64]
    out = _epilogue_dot("rv25_mlp_relu", mlp_relu, spec, {0: x, 1: w1, 2: w2}, 3, 2)
    _same(out, _mm(_f16(np.fmax(_mm(x, w1), 0)), w2))
    assert np.isfinite(out).all()


def test_epilogue_dot_row_scale_between_the_dots():
    m, k, r, n = 130, 100, 64, 72
    x, la, s, lb = _h(m, k), _h(k, r, scale=0.25), _h(m), _h(r, n, scale=0.25)
    spec = [((m, k), "float16"), ((k, r), "float16"), ((m,), "float16"), ((r, n), "float16"), ((m, n), "float32"),
            r, 64, 64, 64]
    out = _epilogue_dot("rv25_lowrank_row_scaled", lowrank_row_scaled, spec, {0: x, 1: la, 2: s, 3: lb}, 4, 3)
    _same(out, _mm(_f16(_mm(x, la) * s[:, None].astype(np.float64)), lb))


# ----------------------------------------------------------------------------------------------- chained tier


@ct.kernel
def varlen_nested_guards(Q, K, V, CuQ, CuK, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """Varlen attention (``varlen_cu_seqlens_tiles``) for head 0 only: the head's branch inside the sequence's."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q0 = ct.gather(CuQ, b)
    nq = ct.gather(CuQ, b + 1) - q0
    k0 = ct.gather(CuK, b)
    nk = ct.gather(CuK, b + 1) - k0
    if qt * BM < nq:
        if h < 1:
            varlen_query_tile(Q, K, V, O, h, q0, k0, qt, nk, qk_scale, BM, BN, D)


@ct.kernel
def varlen_and_guard(Q, K, V, CuQ, CuK, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """The same, one branch on ``(qt * BM < nq) & (h < 1)``."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q0 = ct.gather(CuQ, b)
    nq = ct.gather(CuQ, b + 1) - q0
    k0 = ct.gather(CuK, b)
    nk = ct.gather(CuK, b + 1) - k0
    if (qt * BM < nq) & (h < 1):
        varlen_query_tile(Q, K, V, O, h, q0, k0, qt, nk, qk_scale, BM, BN, D)


def _attention(q, k, v, causal=True):
    s = _mm(q, np.swapaxes(k, -1, -2)) * 0.125
    if causal:
        i, j = np.arange(s.shape[-2])[:, None], np.arange(s.shape[-1])[None, :]
        s = np.where(j <= i, s, -np.inf)
    mx = s.max(-1, keepdims=True)
    e = np.exp(s - mx)
    return (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64), (mx[..., 0] + np.log(e.sum(-1))) * LOG2E


@pytest.mark.parametrize("name,kernel", [("nested", varlen_nested_guards), ("and", varlen_and_guard)])
@pytest.mark.parametrize("order", ["launch", "reversed"])
def test_varlen_guards_of_two_conditions(monkeypatch, name, kernel, order):
    """Only head 0's instances inside their sequence run the chain; head 1's output stays NaN everywhere, and
    head 0's rows match numpy in either launch order (a skipped instance storing would overwrite them)."""
    q, k, v = _h(2, 384, 64), _h(2, 384, 64), _h(2, 384, 64)
    cu = np.array([0, 128, 192, 350], np.int32)
    spec = [((2, 384, 64), "float16")] * 3 + [((4,), "int32")] * 2 + [((2, 384, 64), "float16"),
                                                                      0.125 * LOG2E, 2, 64, 64, 64]
    name = "rv25_varlen_" + name
    s4.add_sweep_programs(monkeypatch, {name: UserProgram(kernel, spec, (3, 2, 3), "chained", outputs=(5,))})
    out = s3._chained(name, {0: q, 1: k, 2: v, 3: cu, 4: cu}, (3, 2, 3),
                      reorder=(lambda c: c[::-1]) if order == "reversed" else None)[5].astype(np.float64)
    assert np.isnan(out[1]).all()
    for b in range(3):
        s0, n = cu[b], cu[b + 1] - cu[b]
        s4._check(out[0, s0:s0 + n], _attention(q[0, s0:s0 + n], k[0, s0:s0 + n], v[0, s0:s0 + n])[0])


@ct.kernel
def attn_causal_lse(Q, K, V, O, L, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    nk = K.shape[1]
    for j in range(ct.cdiv(min((qt + 1) * BM, nk), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos < nk), s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))
    ct.store(L, index=(bh, qt), tile=(m + ct.log2(den)).reshape((1, BM)))


def test_256_row_tiles_causal_ragged_with_lse(monkeypatch):
    """300 queries and keys in 256-row tiles (the second tile ragged), causal, the row LSE stored beside O:
    four consumer warp groups, their setmaxnreg counts inside the CTA's starting budget."""
    import re

    n, d = 300, 64
    spec = [((2, n, d), "float16")] * 4 + [((2, n), "float32"), 0.125 * LOG2E, 256, 64, d]
    s4.add_sweep_programs(monkeypatch, {"rv25_attn_bm256": UserProgram(attn_causal_lse, spec, (2, 2), "chained",
                                                                       outputs=(3, 4))})
    q, k, v = _h(2, n, d), _h(2, n, d), _h(2, n, d)
    arrays = s3._chained("rv25_attn_bm256", {0: q, 1: k, 2: v}, (2, 2, 1))
    o, lse = _attention(q, k, v)
    s4._check(arrays[3], o)
    s4._check(arrays[4], lse, 1e-3, 1e-4)
    from tileorch.testing.gemm_emulation import compile_cutile

    ptx = compile_cutile(attn_causal_lse, spec, "rv25_attn_bm256").ptx
    counts = sorted({int(c) for c in re.findall(r"setmaxnreg\.\w+\.sync\.aligned\.u32\s+(\d+)", ptx)})
    threads = int(re.search(r"\.maxntid (\d+)", ptx).group(1))
    assert threads == 640 and counts == [24, 112]
    start = 65536 // threads // 8 * 8  # what a CTA of 640 threads starts with per thread (units of 8): 96
    assert 24 + 4 * 112 <= 5 * start  # one thread of each warp group: the last setmaxnreg.inc can be granted
