"""Review 30 on the GPU, where the PTX emulator cannot be the oracle (torch fp32 / float64 references).

* The int8 and fp8 dequantizing epilogues of tests/unit/test_review30_epilogues.py (the emulator's WGMMA is f16 only).
* The two K loops whose per-step math the tensor-core tier dropped before review 30 (``acc = ct.mma(a, b, acc) + a``,
  a reset after step 1), and the chained MLP loops with math after the second dot (the chained kernel raced the
  WGMMA): refused now, the SIMT path computes them (tests/unit/test_review30_dots.py, test_review30_chained.py).
* GEMM-path programs whose arrays' shapes disagree (a K loop over B's rows with a wider A, an output taller than the
  product, fewer Bs than As): the launch runs them on the SIMT path with a warning (it raised "GEMM shapes do not
  agree" before; tests/unit/test_review30_launch.py).
* GEMM operands as torch views: a column slice of a wider A at an odd element offset, every other row of A, a
  transposed view of B, a column slice of a wider output.
Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_review30_gpu.py``."""

from __future__ import annotations

import sys
import warnings
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

import test_review30_chained as chained  # noqa: E402
import test_review30_dots as dots  # noqa: E402
import test_review30_epilogues as epi  # noqa: E402
import test_review30_launch as launch  # noqa: E402

import tileorch.cutile  # noqa: E402

GEN = torch.Generator(device="cuda").manual_seed(3030)


def _run(grid, kernel, *args):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()


def _randn(*shape, dtype=torch.float16, scale=1.0):
    return (torch.randn(*shape, generator=GEN, device="cuda") * scale).to(dtype)


def _nan(*shape, dtype=torch.float32):
    return torch.full(shape, float("nan"), device="cuda", dtype=dtype)


def _check(y, ref, atol=3e-2, rtol=1e-2):
    y = y.double()
    assert not torch.isnan(y).any(), "unwritten outputs"
    torch.testing.assert_close(y, ref.double(), atol=atol, rtol=rtol)


def test_int8_product_dequantized_with_a_bias():
    a = torch.randint(-128, 128, (130, 96), generator=GEN, device="cuda", dtype=torch.int8)
    b = torch.randint(-128, 128, (96, 80), generator=GEN, device="cuda", dtype=torch.int8)
    sa, sb = torch.rand(130, device="cuda", generator=GEN) * 1e-2, torch.rand(80, device="cuda", generator=GEN) * 1e-2
    bias = torch.randn(80, device="cuda", generator=GEN)
    y = _nan(130, 80, dtype=torch.bfloat16)
    _run((3, 2), epi.int8_dequant_bias, a, b, sa, sb, bias, y, 64, 64, 64)
    ref = (a.double() @ b.double()) * sa.double()[:, None] * sb.double()[None, :] + bias.double()
    _check(y, ref, 2e-2, 1e-2)


def test_fp8_product_with_row_and_column_scales_and_silu():
    a = _randn(130, 128, dtype=torch.float32).to(torch.float8_e4m3fn)
    bt = _randn(80, 128, dtype=torch.float32, scale=0.25).to(torch.float8_e4m3fn)
    sa, sb = torch.rand(130, device="cuda", generator=GEN) + 0.5, torch.rand(80, device="cuda", generator=GEN) + 0.5
    y = _nan(130, 80, dtype=torch.bfloat16)
    _run((3, 2), epi.fp8_scales_silu, a, bt, sa, sb, y, 64, 64, 64)
    z = (a.double() @ bt.double().T) * sa.double()[:, None] * sb.double()[None, :]
    _check(y, z * torch.sigmoid(z), 3e-2, 1e-2)


def test_math_on_the_accumulator_after_the_dot():
    a, b = _randn(130, 96), _randn(96, 64, scale=0.25)
    y = _nan(130, 64)
    _run((3, 2), dots.plus_a_after_the_dot, a, b, y, 64, 32, 32)
    extra = sum(a[:, i:i + 32].double().repeat(1, 2) for i in (0, 32, 64))
    _check(y, a.double() @ b.double() + extra, 1e-3, 1e-3)
    b = _randn(96, 80, scale=0.25)
    y = _nan(130, 80)
    _run((3, 2), dots.reset_after_step_1, a, b, y, 64, 64, 32)
    _check(y, a[:, 64:].double() @ b[64:].double(), 1e-3, 1e-3)


def test_math_after_the_second_dot_of_a_chained_loop():
    x, w1, w2, steps = (torch.from_numpy(a).cuda() if isinstance(a, np.ndarray) else a for a in chained._data())
    steps = [torch.from_numpy(s_).cuda() for s_ in steps]
    for kernel, want in ((chained.chain_plus_one, sum(steps) + 3), (chained.chain_reset, steps[1] + steps[2])):
        y = _nan(chained.M, chained.DOUT)
        _run((-(-chained.M // 64),), kernel, x, w1, w2, y, 64, 32, chained.D, chained.DOUT)
        _check(y, want, 1e-3, 1e-3)


def test_arrays_whose_shapes_disagree_run_on_the_simt_path():
    a, b = _randn(130, 128), _randn(64, 80, scale=0.25)
    y = _nan(130, 80)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        _run((3, 2), launch.k_over_b_rows, a, b, y, 64, 64, 32)
    _check(y, a[:, :64].double() @ b.double(), 1e-3, 1e-3)
    assert any("GEMM shapes do not agree" in str(w.message) for w in said), [str(w.message) for w in said]
    a, y = _randn(130, 64), _nan(192, 80)
    _run((3, 2), launch.k_over_b_rows, a, b, y, 64, 64, 32)
    _check(y[:130], a.double() @ b.double(), 1e-3, 1e-3)
    assert (y[130:] == 0).all()  # (the program stores its zero-padded rows)
    a, b3, y = _randn(3, 130, 64), _randn(2, 64, 80, scale=0.25), _nan(3, 130, 80)
    _run((3, 2, 3), launch.batched, a, b3, y, 64, 64, 32)
    _check(y[:2], a[:2].double() @ b3.double(), 1e-3, 1e-3)
    assert (y[2] == 0).all()  # (B's matrix 2 is all padding)


@pytest.mark.parametrize("view", ["a_column_slice_at_3", "a_every_other_row", "b_transposed_view", "c_column_slice"])
def test_gemm_operands_as_views(view):
    base_a, b = _randn(130, 100), _randn(96, 80, scale=0.25)
    a = base_a[:, 3:99]
    y, y_view = _nan(130, 80), None
    if view == "a_every_other_row":
        a = _randn(260, 96)[::2]
    elif view == "b_transposed_view":
        b = _randn(80, 96, scale=0.25).T
    elif view == "c_column_slice":
        a = base_a[:, :96]
        y_view = _nan(130, 100)
        y = y_view[:, 8:88]
    _run((3, 2), epi.plain_product, a, b, y, 64, 64, 32)
    _check(y, a.double() @ b.double(), 1e-3, 1e-3)
    if y_view is not None:
        assert torch.isnan(y_view[:, :8]).all() and torch.isnan(y_view[:, 88:]).all()
