"""The twenty-second user sweep on the GPU (the principal issue: "every dot program on tensor cores,
correct"): every program of ``tileorch.testing.user_programs22`` runs through ``tileorch.cutile.launch`` on
its spec's ragged shapes and grid (tests/gpu/sweep_harness.gpu_run: every array inside a larger buffer of
the fill, NaN for floats, an integer sentinel; outputs start as the fill and the tails must stay it; the
path the program compiles to checked against its table entry).  The tensor-core programs rerun
tests/unit/test_user_sweep22_emulated.py's cases (float64 numpy references; f16, bf16, tf32, int8 / uint8
and the fp8 cases the emulator cannot run) with the emulator swapped for the GPU; the column-major A view
runs by its own test (a torch ``.t()`` view: the harness places contiguous arrays); the programs the tiers
refuse rerun tests/unit/test_user_sweep22_interp.py's references (``sweep_harness.numpy_reference_tests``:
the SIMT path's mma.sync on the GPU).  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep22_gpu.py``."""

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
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
import test_user_sweep22_emulated as s22e  # noqa: E402
import test_user_sweep22_interp as s22i  # noqa: E402

from tileorch.testing.user_programs22 import PROGRAMS  # noqa: E402

REFUSED = {name: p for name, p in PROGRAMS.items() if p.path == "simt"}
COLUMN_MAJOR = "gemm_a_column_major_view"


def run(name: str, inputs: dict) -> dict:
    return sweep_harness.gpu_run(PROGRAMS, name, inputs)


@pytest.mark.parametrize("case", sorted(set(s22e.CASES) - {COLUMN_MAJOR}))
def test_emulated_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s22e, "emulate", run)
    s22e.CASES[case]()


def test_a_column_major_view_on_the_gpu():
    """A given as ``x.t()`` of a row-major ``[K, M]`` tensor (strides ``(1, M)``), ragged M and N."""
    from tileorch.testing import launch_path

    p = PROGRAMS[COLUMN_MAJOR]
    rng = np.random.default_rng(2622)
    a = rng.standard_normal((200, 128)).astype(np.float16)
    b = (rng.standard_normal((128, 136)) * 0.25).astype(np.float16)
    at = torch.from_numpy(np.ascontiguousarray(a.T)).cuda()
    args = (at.t(), torch.from_numpy(b).cuda(), sweep_harness.filled((200, 136), torch.float32), 128, 64, 64)
    assert args[0].stride() == (1, 200)
    launch_path.checked_launch(COLUMN_MAJOR, p.path, p.kernel, p.grid, args,
                               lambda: sweep_harness.launch(p.grid, p.kernel, args))  # (and the path it ran)
    y = args[2].cpu().numpy().astype(np.float64)
    assert not np.isnan(y).any()
    np.testing.assert_allclose(y, a.astype(np.float64) @ b.astype(np.float64), atol=2e-2, rtol=2e-3)


test_every_refused_program_has_a_test, test_on_the_gpu_against_numpy = sweep_harness.numpy_reference_tests(
    REFUSED, s22i)
