"""The twenty-eighth user sweep on the GPU: every program of ``tileorch.testing.user_programs28`` runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep28_interp.py (the SIMT programs and the refused dots) and
tests/unit/test_user_sweep28_emulated.py (the tier's GEMMs), each with its ``run`` / ``emulate`` swapped for
sweep_harness.gpu_run: every array inside a larger buffer of the fill, whose tail must stay the fill; the path each
program compiles to checked against its table entry.  Then the layouts torch hands a user at larger ragged sizes:
SwiGLU against torch, a batched GEMM whose B is ``w.expand(B, K, N)`` (batch stride 0), a GEMM writing a column
slice of a wider tensor, and one storing its output transposed.  Skipped without a GPU; needs torch, cuda-tile and
ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_user_sweep28_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
ml_dtypes = pytest.importorskip("ml_dtypes")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
import test_user_sweep28_emulated as s28e  # noqa: E402
import test_user_sweep28_interp as s28  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import user_programs28 as up  # noqa: E402
from tileorch.testing.user_programs28 import PROGRAMS  # noqa: E402

GEMM = {n for n, p in PROGRAMS.items() if p.path != "simt"}
SIMT = {n: p for n, p in PROGRAMS.items() if n not in GEMM}


LAUNCH_RUNS_SIMT: set = set()  # session 42: bmm_batch_axis2_b_broadcast_stride0 runs on the tier (B broadcast by a batch stride of 0: the b_shared kernel reads its one matrix at batch 0)
"""Tier programs whose launch on their spec's arrays runs the SIMT path by design, with a PerformanceWarning saying
why (none since session 42; before, B broadcast by a batch stride of 0: the batched WGMMA GEMM's tensor maps need contiguous matrices); the harness checks that the launch ran exactly that path (sweep_harness.gpu_run's ``ran``)."""


def _gpu_run(name, inputs, program=None):
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs,
                                 ran="simt" if name in LAUNCH_RUNS_SIMT else None)


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s28)
    assert all(f'run("{n}"' in source for n in SIMT), [n for n in SIMT if f'run("{n}"' not in source]
    assert set(s28e.CASES) == GEMM, GEMM ^ set(s28e.CASES)


@pytest.mark.parametrize("test", sorted(n for n in dir(s28) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s28, "run", _gpu_run)
    s28.every_case(getattr(s28, test))


@pytest.mark.parametrize("case", sorted(s28e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s28e, "emulate", lambda name, inputs: _gpu_run(name, inputs))
    s28e.CASES[case]()


def _cdiv(a, b):
    return -(-a // b)


def test_swiglu_at_size_against_torch():
    """1000 x 1400 x 520, ragged in all three: ``silu(x @ wg) * (x @ wu)`` in f16."""
    m, n, k = 1000, 1400, 520
    x = torch.randn(m, k, device="cuda", generator=_gen(2841), dtype=torch.float16)
    wg = torch.randn(k, n, device="cuda", generator=_gen(2842), dtype=torch.float16) * 0.05
    wu = torch.randn(k, n, device="cuda", generator=_gen(2843), dtype=torch.float16) * 0.05
    y = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    _launch((_cdiv(m, 64), _cdiv(n, 64)), up.swiglu_two_dots_of_one_a_tile, (x, wg, wu, y, 64, 64, 32))
    g, u = x.double() @ wg.double(), x.double() @ wu.double()
    torch.testing.assert_close(y.double(), torch.nn.functional.silu(g) * u, rtol=1e-2, atol=2e-2)


def test_bmm_with_an_expanded_weight_against_torch():
    """``w.expand(4, K, N)``: torch's view of batch stride 0 passed as it is; 4 x 300 x 200 x 256."""
    b, m, n, k = 4, 300, 200, 256
    a = torch.randn(b, m, k, device="cuda", generator=_gen(2844), dtype=torch.float16)
    w = torch.randn(k, n, device="cuda", generator=_gen(2845), dtype=torch.float16)
    we = w.expand(b, k, n)
    assert we.stride(0) == 0
    c = torch.full((b, m, n), float("nan"), device="cuda")
    _launch((_cdiv(m, 64), _cdiv(n, 64), b), up.bmm_batch_axis2_b_broadcast_stride0, (a, we, c, 64, 64, 32))
    torch.testing.assert_close(c.double(), a.double() @ w.double(), rtol=1e-3, atol=5e-2)


def test_gemm_into_a_column_slice_of_a_wider_tensor():
    """``out[:, 128:128 + 320] = a @ b`` with ``out`` 520 columns wide: the columns around the slice stay NaN."""
    m, n, k = 500, 320, 200
    a = torch.randn(m, k, device="cuda", generator=_gen(2846), dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", generator=_gen(2847), dtype=torch.float16)
    out = torch.full((m, 520), float("nan"), device="cuda")
    view = out[:, 128:128 + n]
    _launch((_cdiv(m, 64), _cdiv(n, 64)), up.gemm_into_strided_slice_of_bigger, (a, b, view, 64, 64, 32))
    torch.testing.assert_close(view.double(), a.double() @ b.double(), rtol=1e-3, atol=5e-2)
    assert out[:, :128].isnan().all() and out[:, 128 + n:].isnan().all()


def test_gemm_output_transposed_at_size():
    """``C.T = A @ B`` into a ``[N, M]`` tensor, 700 x 300 x 160."""
    m, n, k = 700, 300, 160
    a = torch.randn(m, k, device="cuda", generator=_gen(2848), dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", generator=_gen(2849), dtype=torch.float16)
    ct_ = torch.full((n, m), float("nan"), device="cuda")
    _launch((_cdiv(m, 64), _cdiv(n, 64)), up.gemm_store_transposed_output, (a, b, ct_, 64, 64, 32))
    torch.testing.assert_close(ct_.double(), (a.double() @ b.double()).T, rtol=1e-3, atol=5e-2)


def test_gemm_into_a_slice_of_an_odd_width_tensor():
    """``out[:, 3:3 + 320] = a @ b`` with ``out`` 515 f32 columns wide: the slice's rows start 2060 bytes apart and
    its base 12 bytes in -- no TMA descriptor can describe it (16-byte strides and base), so the launcher stages
    the output; the columns around the slice stay NaN."""
    m, n, k = 300, 320, 128
    a = torch.randn(m, k, device="cuda", generator=_gen(2850), dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", generator=_gen(2851), dtype=torch.float16)
    out = torch.full((m, 515), float("nan"), device="cuda")
    view = out[:, 3:3 + n]
    _launch((_cdiv(m, 64), _cdiv(n, 64)), up.gemm_into_strided_slice_of_bigger, (a, b, view, 64, 64, 32))
    torch.testing.assert_close(view.double(), a.double() @ b.double(), rtol=1e-3, atol=5e-2)
    assert out[:, :3].isnan().all() and out[:, 3 + n:].isnan().all()


def test_gemv_as_a_dot_at_size():
    """``y = A @ x`` with x ``[4096, 1]`` (rows of 2 bytes: the launcher's padded copy), A 1000 x 4096."""
    m, k = 1000, 4096
    a = torch.randn(m, k, device="cuda", generator=_gen(2852), dtype=torch.float16)
    x = torch.randn(k, 1, device="cuda", generator=_gen(2853), dtype=torch.float16)
    y = torch.full((m, 1), float("nan"), device="cuda")
    _launch((_cdiv(m, 64),), up.gemv_as_a_dot_of_n16, (a, x, y, 64, 16, 32))
    torch.testing.assert_close(y.double(), a.double() @ x.double(), rtol=1e-3, atol=5e-2)
