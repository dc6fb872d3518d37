"""Review 27 on the GPU, where the PTX emulator cannot be its own oracle.

* The emulator's edge cases (tests/unit/test_review27_emulator_edges.py) against the H200, bit for bit: the same
  hand-written PTX run by the emulator and by the GPU -- ``max`` / ``min`` of signed zeros and NaN (f16, f32,
  f64), ``setp.ne`` / ``setp.neu`` with NaN, shifts past the width (``shl.b16`` by amounts of 2^16 and more),
  ``MIN / -1``, and division by zero, whose value the PTX ISA leaves unspecified (a difference there says the
  emulator's pinned value is not the machine's; the compiler no longer divides by zero).
* Each test of tests/unit/test_review27_integer_semantics.py with its emulator run swapped for
  ``sweep_harness.gpu_run`` (the program launched by ``tileorch.cutile.launch``, sentinel-prefilled outputs).
Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_review27_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
pytest.importorskip("ml_dtypes")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
import test_review27_emulator_edges as edges  # noqa: E402
import test_user_sweep_interp as interp  # noqa: E402
from test_review27_integer_semantics import (  # noqa: E402,F401  (collected here with this module's ``emulate``)
    N, test_a_divisor_llvm_folds_to_zero_keeps_the_stores, test_a_loaded_zero_divisor_is_the_same_defined_value,
    test_a_right_shift_llvm_folds_past_the_width, test_arange_on_a_ragged_last_tile,
    test_bitcast_f16_i16_keeps_every_bit, test_cdiv_near_the_largest_value,
    test_floor_division_and_modulo_with_negative_operands, test_integer_sum_and_product_wrap,
    test_min_by_minus_one_wraps, test_select_and_maximum_with_nan_and_signed_zeros,
    test_truncation_and_extension_chains, test_unsigned_max_min_and_compare_with_the_top_bit_set,
    test_unsigned_modulo_with_the_top_bit_set, test_float_modulo_is_exact_and_keeps_a_finite_dividend_over_infinity,
    test_variable_shift_amounts_past_the_width_clamp)

from tileorch import runtime  # noqa: E402
from tileorch.testing.user_programs import UserProgram  # noqa: E402


@pytest.fixture
def emulate(monkeypatch):
    """The CPU tests' ``emulate`` on the GPU: ``kernel(*arrays, N)`` launched, every array after the run."""
    monkeypatch.setattr(interp, "NP", {**interp.NP, "uint64": np.uint64, "uint16": np.uint16})

    def run(kernel, arrays, grid=(1,), bn=N):
        name = f"rv27gpu_{kernel._pyfunc.__name__}_{'_'.join(a.dtype.name for a in arrays)}_{bn}"
        spec = [(a.shape, a.dtype.name) for a in arrays] + [bn]
        out = sweep_harness.gpu_run({name: UserProgram(kernel, spec, grid, "simt")}, name, dict(enumerate(arrays)))
        return [out[i] for i in range(len(arrays))]
    return run


def _on_gpu(ptx: str, data: np.ndarray, threads: int) -> np.ndarray:
    buf = runtime.DeviceBuffer.from_array(data)
    runtime.launch(runtime.Module(ptx, label="review27").kernel("k"), 1, threads, [buf])
    return buf.download(data.dtype).reshape(data.shape)


@pytest.mark.parametrize("op", sorted(edges.INT_CASES))
def test_integer_edges_emulator_equals_the_gpu(op):
    cases = edges.INT_CASES[op]
    data = np.zeros((len(cases), 3), np.uint64)
    data[:, 0] = [a for a, _, _ in cases]
    data[:, 1] = [b for _, b, _ in cases]
    data[:, 2] = 0x7777777777777777
    gpu = _on_gpu(edges.int_kernel(op), data, len(cases))[:, 2]
    emulated = edges.run_int_case(op, cases)
    assert gpu.tolist() == emulated.tolist(), (op, [hex(v) for v in gpu.tolist()], [hex(v) for v in emulated.tolist()])


@pytest.mark.parametrize("ty, dtype", [("f16", np.float16), ("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("op", ["max", "min", "max.NaN", "min.NaN"])
def test_max_min_emulator_equals_the_gpu(op, ty, dtype):
    if op.endswith("NaN") and ty == "f64":
        pytest.skip("no max.NaN.f64 in PTX")
    pairs = edges.PAIRS + [(np.nan, np.nan), (np.nan, 1.0)]
    data = np.zeros((len(pairs), 3), dtype)
    data[:, :2] = pairs
    data[:, 2] = 7
    ptx = edges._kernel(ty, op)
    gpu = _on_gpu(ptx, data, len(pairs))[:, 2]
    edges.emulate(ptx, data, len(pairs))
    emulated = data[:, 2]
    # bit for bit except NaN payloads (the emulator keeps an input NaN's; the GPU's canonical NaN): NaN-ness equal
    assert np.array_equal(np.isnan(gpu), np.isnan(emulated)), (op, ty, gpu, emulated)
    num = ~np.isnan(gpu)
    assert np.array_equal(np.signbit(gpu[num]), np.signbit(emulated[num])) and np.array_equal(gpu[num], emulated[num]), \
        (op, ty, gpu, emulated)


@pytest.mark.parametrize("ty, dtype", [("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("cmp", ["ne", "neu", "eq", "equ", "lt", "ltu"])
def test_setp_emulator_equals_the_gpu(cmp, ty, dtype):
    data = np.zeros((len(edges.SETP_X), 3), dtype)
    data[:, 0], data[:, 1], data[:, 2] = edges.SETP_X, edges.SETP_Y, 7
    gpu = _on_gpu(edges.setp_kernel(ty, cmp), data, len(edges.SETP_X))[:, 2]
    assert gpu.tolist() == edges.run_setp(ty, dtype, cmp).tolist(), (cmp, ty, gpu)


@pytest.mark.parametrize("op", sorted(edges.CVT_CASES))
def test_integer_cvt_emulator_equals_the_gpu(op):
    cases = edges.CVT_CASES[op]
    data = np.zeros((len(cases), 3), np.uint64)
    data[:, 0] = [a for a, _ in cases]
    gpu = _on_gpu(edges.cvt_kernel(op), data.copy(), len(cases))[:, 2]
    edges.emulate(edges.cvt_kernel(op), data, len(cases))
    assert gpu.tolist() == data[:, 2].tolist(), (op, [hex(v) for v in gpu.tolist()], [hex(v) for v in data[:, 2].tolist()])
