"""Adversarial guarded K loops (session 25's ``tileas-guarded-k-loop``: a K loop under ``if flag:`` runs to
``select(flag, ub, lb)``; a dot under ``if k < k_stop`` in the loop is cuTile's dot loop over ``[0, min(n, k_stop))``
plus an empty loop the pass drops) on the PTX emulator against numpy float64, outputs NaN-prefilled.  Chosen to
break it: a guard that is false for some CTAs (the row tile's parity), ``k_stop`` 0, negative and past K, a
``k_stop`` that differs per CTA, ``if k >= k_start`` (the dot loop starting past 0).  Each program is on the
GEMM tier (asserted) or refused with a located reason.  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

RNG = np.random.default_rng(2629)
C = ct.Constant
ZERO = ct.PaddingMode.ZERO


@ct.kernel
def k_loop_on_even_row_tiles(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The K loop runs for even row tiles only; odd ones store zeros."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    if bm % 2 == 0:
        for k in range(ct.cdiv(A.shape[1], tk)):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                         ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def dot_under_k_stop(A, B, Y, k_stop: int, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        if k < k_stop:
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                         ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def dot_under_k_stop_per_row_tile(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Row tile ``bm`` sums its first ``bm + 1`` K tiles (block lower-triangular K)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        if k < bm + 1:
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                         ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def dot_from_k_start(A, B, Y, k_start: int, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        if k >= k_start:
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                         ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def k_loop_on_a_loaded_flag(A, B, Flags, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The K loop runs where the row tile's flag (an int32 array, read per CTA) is set; elsewhere Y is 1."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 1.0, dtype=ct.float32)
    f = ct.gather(Flags, bm)
    if f != 0:
        for k in range(ct.cdiv(A.shape[1], tk)):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                         ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


M, K, N = 200, 200, 130


def _inputs():
    return (RNG.standard_normal((M, K)).astype(np.float16),
            (RNG.standard_normal((K, N)) / 4).astype(np.float16))


def _mm(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def _run(monkeypatch, name, kernel, scalars, a, b):
    """The program on the tier (or its located refusal: returns None) on ``a`` and ``b``."""
    from tileorch.diagnostics import LocatedError
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    spec = [((M, K), "float16"), ((K, N), "float16"), ((M, N), "float32"), *scalars, 64, 64, 64]
    prog = compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False)
    if prog.kind != "gemm":
        assert any("test_review26_guarded_k_loop.py:" in str(r) and "warning" in str(r) for r in prog.remarks), \
            prog.remarks
        return None
    p = UserProgram(kernel, spec, (1,), "gemm", "", "", (2,))
    s4.add_sweep_programs(monkeypatch, {name: p})
    try:
        y = s4._s3_gemm(name, {0: a, 1: b})[2].astype(np.float64)
    except LocatedError:  # (the emulator's compile with the direct epilogue refused it)
        raise
    assert not np.isnan(y).any(), f"{np.isnan(y).sum()} outputs unwritten"
    return y


def test_a_k_loop_on_some_ctas_only(monkeypatch):
    a, b = _inputs()
    y = _run(monkeypatch, "rv26_guard_even_tiles", k_loop_on_even_row_tiles, [], a, b)
    if y is None:
        return
    want = _mm(a, b)
    for t in range(1, -(-M // 64), 2):
        want[64 * t:64 * t + 64] = 0
    np.testing.assert_allclose(y, want, atol=2e-2, rtol=2e-3)


@pytest.mark.parametrize("k_stop", [0, -3, 1, 3, 4, 100, 2 ** 31 - 1, -(2 ** 31)])
def test_k_stop_at_zero_negative_and_past_k(monkeypatch, k_stop):
    """K = 200: 4 K tiles (the last ragged); ``k_stop`` <= 0 sums nothing, >= 4 everything."""
    a, b = _inputs()
    y = _run(monkeypatch, f"rv26_k_stop_{k_stop}", dot_under_k_stop, [k_stop], a, b)
    kk = 64 * min(max(k_stop, 0), 4)
    np.testing.assert_allclose(y, _mm(a[:, :kk], b[:kk]), atol=2e-2, rtol=2e-3)


def test_k_stop_per_row_tile(monkeypatch):
    a, b = _inputs()
    y = _run(monkeypatch, "rv26_k_stop_per_tile", dot_under_k_stop_per_row_tile, [], a, b)
    if y is None:
        return
    want = np.concatenate([_mm(a[64 * t:64 * t + 64, :64 * (t + 1)], b[:64 * (t + 1)]) for t in range(4)])
    np.testing.assert_allclose(y, want, atol=2e-2, rtol=2e-3)


@pytest.mark.parametrize("k_start", [0, 1, 3, 4, -2])
def test_dot_from_k_start(monkeypatch, k_start):
    a, b = _inputs()
    y = _run(monkeypatch, f"rv26_k_start_{k_start}", dot_from_k_start, [k_start], a, b)
    if y is None:
        return
    kk = 64 * min(max(k_start, 0), 4)
    np.testing.assert_allclose(y, _mm(a[:, kk:], b[kk:]), atol=2e-2, rtol=2e-3)


def test_a_k_loop_under_a_loaded_flag(monkeypatch):
    """Flags 1, 0, 5, 0 for the four row tiles: tiles 0 and 2 are ``1 + A B``, 1 and 3 all 1."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    a, b = _inputs()
    flags = np.array([1, 0, 5, 0], np.int32)
    spec = [((M, K), "float16"), ((K, N), "float16"), ((4,), "int32"), ((M, N), "float32"), 64, 64, 64]
    prog = compile_once(cutile_bytecode(k_loop_on_a_loaded_flag, spec), "rv26_loaded_flag", arch="sm_90a",
                        ptxas=False)
    if prog.kind != "gemm":
        assert any("test_review26_guarded_k_loop.py:" in str(r) for r in prog.remarks), prog.remarks
        return
    s4.add_sweep_programs(monkeypatch, {"rv26_loaded_flag": UserProgram(k_loop_on_a_loaded_flag, spec, (1,), "gemm",
                                                                        "", "", (3,))})
    y = s4._s3_gemm("rv26_loaded_flag", {0: a, 1: b, 2: flags})[3].astype(np.float64)
    want = 1.0 + _mm(a, b)
    for t in (1, 3):
        want[64 * t:64 * t + 64] = 1.0
    np.testing.assert_allclose(y, want, atol=2e-2, rtol=2e-3)
