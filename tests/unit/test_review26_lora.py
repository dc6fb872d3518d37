"""Adversarial LoRA and K-major-E programs on the epilogue dot (session 25's ``tileas/epilogue_dot.py``:
``lora_rank``, ``lora_own_acc``, ``epi_major``) on the PTX emulator against numpy float64, outputs NaN-prefilled
(test_epilogue_dot_programs' runner).  Chosen to break it: scale 0 against an infinite low-rank product (NaN, not
dropped), a negative scale, a scale so small that scaling before rounding would flush it (``acc + s * mma(..)``
scales the f32 product, not the f16 operand), ranks of 16 and 32 (below the path's 64-column rank tile: refused at
the program's line, or zero-padded), ragged N, E read K-major through ``ct.transpose`` with ragged H and N.
Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_epilogue_dot_programs as edp  # noqa: E402

from tileorch.testing import epilogue_dot_programs as P  # noqa: E402

RNG = np.random.default_rng(2627)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _d(x):
    return np.asarray(x, np.float64)


def _f16(x):
    with np.errstate(over="ignore", invalid="ignore"):
        return _d(x).astype(np.float16).astype(np.float64)


def _same(y, ref, atol=3e-2, rtol=2e-2):
    """NaN and infinities where ``ref`` has them, close elsewhere."""
    assert np.array_equal(np.isnan(y), np.isnan(ref)), (np.isnan(y).sum(), np.isnan(ref).sum())
    assert np.array_equal(np.isinf(y), np.isinf(ref)) and (y[np.isinf(y)] == ref[np.isinf(ref)]).all()
    fin = np.isfinite(ref)
    np.testing.assert_allclose(y[fin], ref[fin], atol=atol, rtol=rtol)


import cuda.tile as ct  # noqa: E402

CC = ct.Constant


@ct.kernel
def lora_subtracted(X, W, La, Lb, Y, s: float, R: CC[int], tm: CC[int], tn: CC[int], tk: CC[int]):
    """``x W - s ((x A) rounded) B`` (the branch subtracted)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk))
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(tk, tn)), acc)
        t = ct.mma(x, ct.load(La, index=(k, 0), shape=(tk, R)), t)
    lo = ct.mma(t.astype(X.dtype), ct.load(Lb, index=(0, bn), shape=(R, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=(acc - s * lo).astype(Y.dtype))


@ct.kernel
def lora_scaled_after_commuted(X, W, La, Lb, Y, s: float, R: CC[int], tm: CC[int], tn: CC[int], tk: CC[int]):
    """``(mma(t, B, zeros) * s) + acc``: the operands of the sum and the product in the other order."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk))
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(tk, tn)), acc)
        t = ct.mma(x, ct.load(La, index=(k, 0), shape=(tk, R)), t)
    lo = ct.mma(t.astype(X.dtype), ct.load(Lb, index=(0, bn), shape=(R, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=(lo * s + acc).astype(Y.dtype))


@ct.kernel
def lora_branch_alone_stored(X, W, La, Lb, Y, R: CC[int], tm: CC[int], tn: CC[int], tk: CC[int]):
    """The main product discarded (``acc`` computed, never read) and the branch ``mma(t, B, zeros)`` stored."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk))
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(tk, tn)), acc)
        t = ct.mma(x, ct.load(La, index=(k, 0), shape=(tk, R)), t)
    lo = ct.mma(t.astype(X.dtype), ct.load(Lb, index=(0, bn), shape=(R, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=lo.astype(Y.dtype))


@ct.kernel
def lowrank_e_permuted(X, La, LbT, Y, R: CC[int], tm: CC[int], tn: CC[int], tk: CC[int]):
    """E given ``[N2, R]`` (K-major), its ``[tn, R]`` tile turned by ``ct.permute(.., (1, 0))``."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    e = ct.permute(ct.load(LbT, index=(bn, 0), shape=(tn, R)), (1, 0))
    y = ct.mma(t.astype(ct.float16), e, ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


def _launched(name, kernel, spec, inputs, out):
    """Output ``out`` of the program on the emulator with the launcher's own operand derivation
    (test_user_sweep3_emulated's runner; NaN results allowed: the caller's sentinel shows unwritten ones)."""
    import test_user_sweep3_emulated as s3
    import test_user_sweep4_emulated as s4

    from tileorch.testing.user_programs import UserProgram

    with pytest.MonkeyPatch.context() as mp:
        s4.add_sweep_programs(mp, {name: UserProgram(kernel, spec, (1,), "gemm", outputs=(out,))})
        return s3._gemm(name, inputs)[out].astype(np.float64)


def _spec(m, k, n, r, s, rank_tile=None, tn=128):
    a = edp._a
    return [a((m, k)), a((k, n)), a((k, r)), a((r, n)), a((m, n)), s, rank_tile or r, 128, tn, 64]


@pytest.mark.parametrize("s", [0.0, -2.0])
def test_lora_scale_zero_and_negative_onto_the_main_dot(s, monkeypatch):
    """``x W + ((s x A) rounded) B``: row 5 of x infinite in one column makes ``x A`` infinite there; times 0 that
    is NaN (and NaN through B), not 0; a negative scale flips the branch's sign.  Ragged M, N, K."""
    m, k, n, r = 130, 136, 200, 64
    x, w, la, lb = _h(m, k), _h(k, n, scale=0.125), _h(k, r, scale=0.125), _h(r, n, scale=0.25)
    la[7, :] = np.abs(la[7, :]) + 0.01  # (x[5, 7] = inf: every column of x A infinite of one sign)
    x[5, 7] = np.inf
    monkeypatch.setattr(edp, "NAN_RESULTS", True)
    sentinel = np.full((m, n), -777.0, np.float16)
    y = edp._emulate(P.lora_linear, _spec(m, k, n, r, s), {0: x, 1: w, 2: la, 3: lb, 4: sentinel}, 4, 3, (2,))
    assert not (y == -777.0).any(), "unwritten outputs"
    with np.errstate(invalid="ignore", over="ignore"):
        t = _f16(s * (_d(x) @ _d(la)))
        ref = _f16(_d(x) @ _d(w) + t @ _d(lb))
    assert np.isnan(ref[5]).all() or s != 0.0
    _same(y, ref)


@pytest.mark.parametrize("s", [0.0, 1e-6, -3.0e4])
def test_lora_added_after_scales_the_f32_product(s):
    """``acc + s * mma(t, B, zeros)``: ``s`` multiplies the f32 product after the dot (1e-6 of an O(1) product is
    ~1e-6, which ``(s t)`` rounded to f16 first would lose to denormals; -3e4 overflows f16 only in the output)."""
    m, k, n, r = 70, 100, 130, 64
    x, w, la, lb = _h(m, k), _h(k, n, scale=0.125), _h(k, r, scale=0.125), _h(r, n, scale=0.25)
    spec = [edp._a((m, k)), edp._a((k, n)), edp._a((k, r)), edp._a((r, n)), edp._a((m, n), "float32"), s, r, 128, 128,
            64]
    y = edp._emulate(P.lora_added_after, spec, {0: x, 1: w, 2: la, 3: lb}, 4, 3, (2,))
    t = _f16(_d(x) @ _d(la))
    main, low = _d(x) @ _d(w), t @ _d(lb)
    ref = main + s * low
    np.testing.assert_allclose(y, ref, atol=2e-3 + 2e-3 * abs(s), rtol=2e-3)
    if s == 1e-6:  # the branch is visible: y - xW carries it
        np.testing.assert_allclose(y - main, s * low, atol=2e-4)


@pytest.mark.parametrize("r", [16, 32])
def test_a_rank_below_the_rank_tile(r):
    """Ranks 16 and 32 written with the rank as the tile (``R = r``): refused at the program's line (the path's
    low-rank tile is 64, 128, 192 or 256 columns) and run on the SIMT path; and the same ranks as a 64-column tile
    (A's columns and B's rows past ``r`` zero) taken and correct."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    m, k, n = 130, 128, 130
    prog = compile_once(cutile_bytecode(P.lora_linear, _spec(m, k, n, r, 0.5)), f"rv26_lora_r{r}", arch="sm_90a",
                        ptxas=False)
    if prog.kind == "gemm":  # taken: it must be right
        pytest.fail(f"rank {r} taken by the tier ({prog.gemm_config}); add its emulated check")
    assert any("epilogue_dot_programs.py:" in str(x) and f"(the second dot's K) is {r}: 64, 128" in str(x)
               for x in prog.remarks), prog.remarks
    x, w, la, lb = _h(m, k), _h(k, n, scale=0.125), _h(k, r, scale=0.125), _h(r, n, scale=0.25)
    la64, lb64 = np.zeros((k, 64), np.float16), np.zeros((64, n), np.float16)
    la64[:, :r], lb64[:r] = la, lb
    spec = _spec(m, k, n, 64, -0.5)
    y = edp._emulate(P.lora_linear, spec, {0: x, 1: w, 2: la64, 3: lb64}, 4, 3, (2,))
    t = _f16(-0.5 * (_d(x) @ _d(la)))
    _same(y, _f16(_d(x) @ _d(w) + t @ _d(lb)))


@pytest.mark.parametrize("h,n", [(72, 130), (64, 200), (100, 70)])
@pytest.mark.parametrize("kernel", ["transpose", "permute", "view"])
def test_k_major_e_through_a_transpose_ragged(h, n, kernel):
    """``(x A) B`` with B given ``[N, H]`` and read by ``ct.transpose``, ``ct.permute`` or a transposed view
    (K-major E), H and N ragged: H past A's columns is zero in both operands; N past B's rows is not stored."""
    m, k = 130, 100
    rank_tile = max(64, 1 << (h - 1).bit_length())
    spec = [edp._a((m, k)), edp._a((k, h)), edp._a((n, h)), edp._a((m, n)), rank_tile, 128, 128, 64]
    x, la, lbt = _h(m, k), _h(k, h, scale=0.125), _h(n, h, scale=0.25)
    kern = {"transpose": P.lowrank_e_transposed, "permute": lowrank_e_permuted,
            "view": P.lowrank_e_view_transposed}[kernel]
    prog = edp._compile(kern, spec)
    assert prog.gemm_config.epi_major == "k", prog.gemm_config
    y = edp._emulate(kern, spec, {0: x, 1: la, 2: lbt}, 3, 2)
    _same(y, _f16(_f16(_d(x) @ _d(la)) @ _d(lbt).T))


@pytest.mark.parametrize("kernel,sign,r", [(lora_subtracted, -1.0, 64), (lora_scaled_after_commuted, 1.0, 128),
                                          (lora_subtracted, -1.0, 128)])
def test_lora_own_accumulator_forms(kernel, sign, r):
    """``acc - s lo`` and ``lo * s + acc`` with ranks 64 and 128, ragged M, N, K, f32 output."""
    m, k, n, s = 130, 136, 200, 0.75
    x, w, la, lb = _h(m, k), _h(k, n, scale=0.125), _h(k, r, scale=0.125), _h(r, n, scale=0.25)
    spec = [edp._a((m, k)), edp._a((k, n)), edp._a((k, r)), edp._a((r, n)), edp._a((m, n), "float32"), s, r, 128, 128,
            64]
    y = edp._emulate(kernel, spec, {0: x, 1: w, 2: la, 3: lb}, 4, 3, (2,))
    t = _f16(_d(x) @ _d(la))
    np.testing.assert_allclose(y, _d(x) @ _d(w) + sign * s * (t @ _d(lb)), atol=3e-3, rtol=2e-3)


def test_the_branch_alone_stored():
    """Only the low-rank product stored (the main accumulator never read: its dot is dead): the tier runs
    ``(x A) B`` as a plain epilogue dot whose first B is A (argument 2); run with the launcher's own operand
    derivation, it must be the branch alone."""
    m, k, n, r = 130, 136, 200, 64
    x, w, la, lb = _h(m, k), _h(k, n, scale=0.125), _h(k, r, scale=0.125), _h(r, n, scale=0.25)
    spec = [edp._a((m, k)), edp._a((k, n)), edp._a((k, r)), edp._a((r, n)), edp._a((m, n), "float32"), r, 128, 128,
            64]
    y = _launched("rv26_lora_alone", lora_branch_alone_stored, spec, {0: x, 1: w, 2: la, 3: lb}, 4)
    assert not np.isnan(y).any()
    np.testing.assert_allclose(y, _f16(_d(x) @ _d(la)) @ _d(lb), atol=3e-3, rtol=2e-3)
