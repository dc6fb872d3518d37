"""Session 27's cover set on the GPU (``tileorch.testing.cover27_programs``: dots with different A operands in one K
loop, two K loops one after the other): every program the tensor-core tier takes runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid (tests/gpu/sweep_harness.gpu_run: every array inside
a larger buffer of NaN, outputs start as NaN and the tails must stay it; the path checked against the table entry),
rerunning tests/unit/test_cover27_emulated.py's cases (float64 numpy references) with the emulator swapped for the
GPU.  benchmarks/cover27.py times the same programs against their SIMT path and torch (fp32 torch references there).
Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_cover27_gpu.py``."""

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
import test_cover27_emulated as c27e  # noqa: E402

from tileorch.testing.cover27_programs import PROGRAMS  # noqa: E402


def run(name: str, inputs: dict) -> dict:
    return sweep_harness.gpu_run(PROGRAMS, name, inputs)


@pytest.mark.parametrize("case", sorted(c27e.CASES))
def test_emulated_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(c27e, "emulate", run)
    c27e.CASES[case]()
