"""Adversarial int8 C from an integer dot's int32 accumulator (session 25: the direct epilogue stores an 8-bit C
requantised in the epilogue, W8A8) on the PTX emulator against numpy, the output prefilled with a sentinel byte.
Chosen to break it: no clamp written (``ftoi`` to int8 saturates at 127 / -128 by itself, truncating toward zero),
negative and NaN scales (NaN -> 0), a per-row scale vector, the int32 accumulator narrowed with ``astype(int8)``
directly (integer truncation: the low byte, wrapping), uint8 (0 .. 255); ragged M, N, K.  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

RNG = np.random.default_rng(2628)
C = ct.Constant
ZERO = ct.PaddingMode.ZERO


@ct.kernel
def i8_requant_no_clamp(A, B, Y, scale: float, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=(acc.astype(ct.float32) * scale).astype(Y.dtype))


@ct.kernel
def i8_requant_row_scale(A, B, S, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    s = ct.load(S, index=(bm,), shape=(tm,), padding_mode=ZERO)
    y = ct.minimum(ct.maximum(acc.astype(ct.float32) * s[:, None], -128.0), 127.0)
    ct.store(Y, index=(bm, bn), tile=y.astype(ct.int8))


@ct.kernel
def i8_narrowed_accumulator(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The int32 accumulator narrowed to int8 as an integer (``trunci``: the low byte)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(ct.int8))


def _run(monkeypatch, name, kernel, spec, inputs, out):
    from tileorch.testing.gemm_emulation import compile_cutile

    p = UserProgram(kernel, spec, (1,), "gemm", "", "", (out,))
    s4.add_sweep_programs(monkeypatch, {name: p})
    prog = compile_cutile(kernel, spec, name, config="cluster_m=1,epilogue=direct")
    assert prog.kind == "gemm" and prog.gemm_config.out_dtype in ("s8", "u8"), prog.gemm_config
    return s4._s3_gemm(name, inputs)[out]


def _ints(m, k, n):
    return RNG.integers(-128, 128, (m, k)).astype(np.int8), RNG.integers(-128, 128, (k, n)).astype(np.int8)


def _acc(a, b):
    return a.astype(np.int64) @ b.astype(np.int64)


def _ftoi(x, lo, hi):
    """Tile IR ``ftoi``: toward zero, saturating, NaN 0 (``x`` the f32 values as float64)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(x), 0, np.clip(np.trunc(np.nan_to_num(x, nan=0.0)), lo, hi)).astype(np.int64)


@pytest.mark.parametrize("dt,scale", [("int8", 0.01), ("int8", -0.013), ("int8", float("nan")), ("uint8", 0.007),
                                      ("int8", float("inf"))])
def test_requantised_without_a_clamp_saturates(monkeypatch, dt, scale):
    """Products of up to ~2e5 times 0.01: far past int8's range both ways; saturated by the conversion alone."""
    m, k, n = 130, 100, 72
    a, b = _ints(m, k, n)
    np_dt = np.int8 if dt == "int8" else np.uint8
    spec = [((m, k), "int8"), ((k, n), "int8"), ((m, n), dt), scale, 64, 64, 64]
    y = _run(monkeypatch, f"rv26_i8_noclamp_{dt}_{scale}", i8_requant_no_clamp, spec,
             {0: a, 1: b, 2: np.full((m, n), 99, np_dt)}, 2)
    lo, hi = (-128, 127) if dt == "int8" else (0, 255)
    with np.errstate(invalid="ignore"):
        f = (_acc(a, b).astype(np.float32) * np.float32(scale)).astype(np.float64)
    want = _ftoi(f, lo, hi)
    if np.isfinite(scale):
        assert (want == lo).any() and (want == hi).any()
    np.testing.assert_array_equal(y.astype(np.int64), want)


def test_requantised_by_a_row_scale_vector_with_negative_and_nan_rows(monkeypatch):
    m, k, n = 200, 64, 130
    a, b = _ints(m, k, n)
    s = (RNG.standard_normal(m) * 0.01).astype(np.float32)
    s[3], s[4], s[5] = np.nan, -0.0, -np.inf
    spec = [((m, k), "int8"), ((k, n), "int8"), ((m,), "float32"), ((m, n), "int8"), 64, 64, 64]
    y = _run(monkeypatch, "rv26_i8_rowscale", i8_requant_row_scale, spec,
             {0: a, 1: b, 2: s, 3: np.full((m, n), 99, np.int8)}, 3)
    with np.errstate(invalid="ignore"):
        f = (_acc(a, b).astype(np.float32) * s[:, None]).astype(np.float64)
    # ct.maximum / ct.minimum drop a NaN operand (cuTile's default): a NaN row clamps to -128 then stays
    want = np.where(np.isnan(f), -128, np.clip(np.trunc(np.nan_to_num(f)), -128, 127)).astype(np.int64)
    np.testing.assert_array_equal(y.astype(np.int64), want)


def test_the_accumulator_narrowed_as_an_integer_wraps(monkeypatch):
    m, k, n = 70, 200, 130
    a, b = _ints(m, k, n)
    spec = [((m, k), "int8"), ((k, n), "int8"), ((m, n), "int8"), 64, 64, 64]
    prog_inputs = {0: a, 1: b, 2: np.full((m, n), 99, np.int8)}
    y = _run(monkeypatch, "rv26_i8_narrowed", i8_narrowed_accumulator, spec, prog_inputs, 2)
    np.testing.assert_array_equal(y, _acc(a, b).astype(np.int32).astype(np.int8))
