"""Session 29's cover set on the GPU (``tileorch.testing.cover29_programs``: an MLP block written as two loops, the
second over the output's column tiles; a scalar K trip count beside it; the per-row scale after the loop): every
program the tensor-core tier takes runs through ``tileorch.cutile.launch`` on its spec's ragged shapes and grid
(tests/gpu/sweep_harness.gpu_run: every array inside a larger buffer of NaN, outputs start as NaN and the tails must
stay it; the path checked against the table entry), rerunning tests/unit/test_cover29_emulated.py's cases (float64
numpy references) with the emulator swapped for the GPU.  benchmarks/cover29.py times them against torch.  Skipped
without a GPU; needs torch, cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_cover29_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

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
import test_cover29_emulated as c29e  # noqa: E402

from tileorch.testing.cover29_programs import PROGRAMS  # noqa: E402


def run(name: str, inputs: dict) -> dict:
    return sweep_harness.gpu_run(PROGRAMS, name, inputs)  # (an int of inputs: that scalar argument's value)


@pytest.mark.parametrize("case", sorted(c29e.CASES))
def test_emulated_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(c29e, "emulate", run)
    c29e.CASES[case]()
