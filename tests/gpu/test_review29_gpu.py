"""Review 29 on the GPU, where the PTX emulator cannot be the oracle.

* The dot programs of tests/unit/test_review29_dots.py the emulator's runner cannot run: N = 5 and N = 1 (C's
  rows staged through the launcher's padded copy), K = 0 with an epilogue operand (y = Ct^T), int8 x int8 with
  a tanh epilogue, an int32 accumulator stored as bf16 with sums past 2^24 (one rounding: exact int64 product
  rounded to bf16 once), and the programs the tier now takes (rows on program id 1 with one column tile; a
  block-diagonal product into a C narrower than B), and the accumulator scaled in the loop (now the SIMT path).
* The conversion tests of tests/unit/test_review29_conversions.py (integers and f64 to bf16 once, int32 to
  e4m3), the six-type ``astype`` test of test_review29_tiles.py and the math edge tests of test_review29_math.py
  (atan2, pow, bitcast of a bf16 NaN, sin / tan of -0, sinh / cosh near the f32 maximum) with their emulator run
  swapped for the GPU.
Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_review29_gpu.py``."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
ml_dtypes = pytest.importorskip("ml_dtypes")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
import test_review29_dots as dots  # noqa: E402
from test_review28_gpu import emulate  # noqa: E402,F401  (the CPU tests' ``emulate`` on the GPU)
from test_review29_conversions import (  # noqa: E402,F401  (collected here with this module's ``emulate``)
    _round, test_an_int32_rounds_to_e4m3_once, test_an_integer_rounds_to_bf16_once, test_f64_rounds_to_bf16_once)
from test_review29_math import (  # noqa: E402,F401
    test_atan2_at_zeros_infinities_and_nan, test_bitcast_of_a_bf16_nan_keeps_its_bits, test_pow_signs_and_special_cases,
    test_sin_tan_of_zeros_and_sinh_cosh_near_the_f32_maximum)
from test_review29_tiles import test_astype_between_six_types_at_edge_values  # noqa: E402,F401

from tileorch.testing.user_programs import UserProgram  # noqa: E402


GRIDS = {"matmul_op_n5": (3, 1), "n1_column": (2, 1), "k0_with_epilogue": (3, 2), "int8_tanh_epilogue": (3, 2),
         "int8_store_bf16": (2, 2), "m_on_axis1_one_n_tile": (1, 3), "batch4_per_program": (1, 1, 2),
         "diagonal_blocks_narrow_c": (2,)}
RNG = np.random.default_rng(2931)


def _run(name, inputs, ran=None):
    p = UserProgram(getattr(dots, dots.KERNELS.get(name, name)), dots.SPECS[name], GRIDS[name], "gemm")
    return sweep_harness.gpu_run({name: p}, name, inputs, ran=ran)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _check(y, ref, atol=3e-2, rtol=1e-2):
    y = np.asarray(y, np.float64)
    assert not np.isnan(y).any(), "unwritten outputs"
    np.testing.assert_allclose(y, ref, atol=atol, rtol=rtol)


def test_five_columns():
    a, b = _h(130, 80), _h(80, 5, scale=0.25)
    _check(_run("matmul_op_n5", {0: a, 1: b})[2], a.astype(np.float64) @ b.astype(np.float64))


def test_one_column():
    a, b = _h(128, 256), _h(256, 1, scale=0.25)
    _check(_run("n1_column", {0: a, 1: b})[2], a.astype(np.float64) @ b.astype(np.float64))


def test_k_zero_with_an_epilogue_operand():
    """K = 0: the program compiles to the tier; its launch runs the SIMT path by design (an empty contraction, the
    launcher's K = 0 reason), which computes the epilogue on a zero accumulator."""
    c = _h(72, 130)
    _check(_run("k0_with_epilogue", {2: c}, ran="simt")[3], c.T.astype(np.float64), 1e-3, 0)


def test_int8_with_a_tanh_epilogue():
    a = RNG.integers(-128, 128, (130, 96)).astype(np.int8)
    b = RNG.integers(-128, 128, (96, 80)).astype(np.int8)
    s = (RNG.random(80) * 1e-4).astype(np.float32)
    y = _run("int8_tanh_epilogue", {0: a, 1: b, 2: s})[3]
    _check(y, np.tanh((a.astype(np.int64) @ b.astype(np.int64)) * s.astype(np.float64)[None, :]), 2e-3, 2e-3)


def test_an_int32_accumulator_stored_as_bf16_rounds_once():
    """Sums past 2^24 (K = 2048 products of about 126 x 126, one sign per row of A: |sum| ~ 3.3e7): the one
    rounding of the exact int64 product.  (Random signs per element summed to < 2^24, where one rounding and
    two agree: the H200 run of session 29 found the premise false.)"""
    sign = RNG.choice(np.array([-1, 1], np.int8), (256, 1))
    a = (sign * RNG.choice(np.array([127, 126], np.int8), (256, 2048))).astype(np.int8)
    b = RNG.choice(np.array([127, 125], np.int8), (2048, 256))
    y = np.asarray(_run("int8_store_bf16", {0: a, 1: b})[2], np.float64)
    exact = a.astype(np.int64) @ b.astype(np.int64)
    assert np.abs(exact).max() > 2 ** 24
    want = np.array([float(_round(Fraction(int(v)), 7)) for v in exact.ravel()]).reshape(exact.shape)
    np.testing.assert_array_equal(y, want)


def test_rows_on_program_id_1_and_one_column_tile():
    a, b = _h(130, 96), _h(96, 64, scale=0.25)
    _check(_run("m_on_axis1_one_n_tile", {0: a, 1: b})[2], a.astype(np.float64) @ b.astype(np.float64))


def test_four_matrices_per_program():
    a, b = _h(8, 64, 64), _h(8, 64, 64, scale=0.25)
    _check(_run("batch4_per_program", {0: a, 1: b})[2],
           np.einsum("lmk,lkn->lmn", a.astype(np.float64), b.astype(np.float64)))


def test_diagonal_blocks_into_a_narrow_c():
    """Block-diagonal product stored at (b, 0): C [128, 64] narrower than B [96, 128] (the tier takes it since
    review 29; the launcher passes C's columns)."""
    a, b = _h(128, 96), _h(96, 128, scale=0.25)
    y = _run("diagonal_blocks_narrow_c", {0: a, 1: b})[2]
    want = np.concatenate([a[:64].astype(np.float64) @ b[:, :64], a[64:].astype(np.float64) @ b[:, 64:]])
    _check(y, want)


def test_an_accumulator_scaled_in_the_loop_decays():
    """``ct.mma(a, b, acc * 0.5)``: refused by the tensor-core tier since review 29 (it dropped the scaling), the
    SIMT path's mma.sync kernel on the GPU."""
    a, b = _h(130, 96), _h(96, 80, scale=0.25)
    p = UserProgram(dots.acc_scaled_in_loop, dots.SPECS["acc_scaled_in_loop"], (3, 2), "simt")
    y = sweep_harness.gpu_run({"acc_scaled_in_loop": p}, "acc_scaled_in_loop", {0: a, 1: b})[2]
    want = np.zeros((130, 80))
    for k in range(3):
        want = want * 0.5 + a[:, 32 * k:32 * k + 32].astype(np.float64) @ b[32 * k:32 * k + 32].astype(np.float64)
    _check(y, want)
