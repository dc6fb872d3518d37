"""Review 28 on the GPU, where the PTX emulator cannot be the oracle.

* The tensor-core programs of tests/unit/test_review28_programs.py whose dots the emulator's WGMMA does not run
  (tf32, e4m3, int8, uint8 x int8) through ``tileorch.cutile.launch`` against numpy float64 / exact int64
  references, outputs NaN / sentinel-prefilled (``sweep_harness.gpu_run``: the path checked against "gemm").
* The CPU files' SIMT tests with their emulator run swapped for the GPU: unsigned ``//``, loops whose counter's
  increment passes the integer maximum (int32, int64, runtime steps, the cluster split on and off: on the GPU the
  launcher picks the cluster), and the integer / conversion / NaN programs of test_review28_programs.py.
Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_review28_gpu.py``."""

from __future__ import annotations

import sys
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
import test_review28_programs as programs  # noqa: E402
import test_user_sweep_interp as interp  # noqa: E402
from test_review28_integer_loops import (  # noqa: E402,F401  (collected here with this module's ``emulate``)
    test_a_constant_step_near_the_maximum_ends, test_a_runtime_step_near_the_maximum_ends,
    test_the_counter_values_near_the_maximum, test_unsigned_floor_division_by_a_tile,
    test_unsigned_floor_division_by_constants)
from test_review28_programs import (  # noqa: E402,F401
    test_an_int64_loop_near_the_int64_maximum, test_float_to_integer_conversions_saturate,
    test_int8_products_that_wrap_and_their_absolute_value, test_int_abs_of_the_minimum_wraps,
    test_integer_scans_wrap, test_small_unsigned_and_signed_integers, test_u64_to_float_rounds_to_nearest,
    test_uint32_hash_and_unsigned_bit_ops, test_unsigned_division_by_a_constant_and_cdiv,
    test_where_on_nan_and_maximum_with_and_without_nan_propagation, test_argmin_skips_nan_unless_asked_to_propagate)

from tileorch.testing.user_programs import UserProgram  # noqa: E402


@pytest.fixture
def emulate(monkeypatch):
    """The CPU tests' ``emulate`` on the GPU: ``kernel(*arrays, *scalars)`` launched, every array after the run."""
    monkeypatch.setattr(interp, "NP", {**interp.NP, "uint16": np.uint16, "uint64": np.uint64})

    def run(kernel, arrays, scalars, grid=(1,)):
        name = f"rv28gpu_{kernel._pyfunc.__name__}_{'_'.join(a.dtype.name for a in arrays)}"
        spec = [(a.shape, "bool_" if a.dtype == np.bool_ else a.dtype.name) for a in arrays] + list(scalars)
        out = sweep_harness.gpu_run({name: UserProgram(kernel, spec, grid, "simt")}, name, dict(enumerate(arrays)))
        return [out[i] for i in range(len(arrays))]
    return run


# (program, launch grid): the tensor-core programs the emulator does not run
GPU_ONLY = {"gemm_tf32": (2, 3), "gemm_fp8_scaled": (2, 2), "gemm_int8_rowscale": (2, 2), "u8_s8_dot": (2, 2)}


def _run(name, inputs):
    p = UserProgram(getattr(programs, programs.KERNELS.get(name, name)), programs.SPECS[name], GPU_ONLY[name], "gemm")
    return sweep_harness.gpu_run({name: p}, name, inputs)


RNG = np.random.default_rng(2829)


def test_tf32_dot_of_f32_loads():
    a = RNG.standard_normal((200, 136)).astype(np.float32)
    b = (RNG.standard_normal((136, 192)) * 0.25).astype(np.float32)
    y = _run("gemm_tf32", {0: a, 1: b})[2]
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(y, ref, atol=3e-2 * np.abs(ref).max(), rtol=0)


def test_e4m3_dot_with_a_scaled_f16_epilogue():
    a = RNG.standard_normal((256, 256)).astype(ml_dtypes.float8_e4m3fn)
    b = (RNG.standard_normal((256, 256)) * 0.5).astype(ml_dtypes.float8_e4m3fn)
    y = _run("gemm_fp8_scaled", {0: a.view(np.uint8), 1: b.view(np.uint8)})[2]
    ref = (a.astype(np.float64) @ b.astype(np.float64)) * 0.125
    np.testing.assert_allclose(y.astype(np.float64), ref, atol=2e-2, rtol=1e-2)


def test_int8_dot_dequantized_per_row_and_column():
    a = RNG.integers(-128, 128, (256, 256)).astype(np.int8)
    b = RNG.integers(-128, 128, (256, 256)).astype(np.int8)
    sa = (RNG.random(256) * 1e-3).astype(np.float32)
    sb = (RNG.random(256) * 1e-3).astype(np.float32)
    y = _run("gemm_int8_rowscale", {0: a, 1: b, 2: sa, 3: sb})[4]
    exact = a.astype(np.int64) @ b.astype(np.int64)
    ref = exact.astype(np.float64) * sa[:, None] * sb[None, :]
    np.testing.assert_allclose(y.astype(np.float64), ref, atol=1e-3, rtol=2e-3)


def test_uint8_times_int8_dot_is_exact():
    a = RNG.integers(0, 256, (256, 256)).astype(np.uint8)
    b = RNG.integers(-128, 128, (256, 256)).astype(np.int8)
    y = _run("u8_s8_dot", {0: a, 1: b})[2]
    np.testing.assert_array_equal(y, (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32))
