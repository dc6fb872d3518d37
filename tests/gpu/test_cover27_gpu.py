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


def test_two_k_segments_on_the_gpu():
    """``two_k_loops_own_bounds`` launched with two K (K1 = 128, K2 = 200): the WGMMA kernel's K segments (pair 0's
    2 K tiles, then pair 1's 4, one pipeline) against numpy, Y NaN-prefilled."""
    import dataclasses

    spec = list(PROGRAMS["two_k_loops_own_bounds"].spec)
    spec[0], spec[1] = ((200, 128), "float16"), ((128, 192), "float16")
    programs = {"two_k": dataclasses.replace(PROGRAMS["two_k_loops_own_bounds"], spec=spec)}
    x1, w1, x2, w2 = c27e._h(200, 128), c27e._h(128, 192, scale=0.25), c27e._h(200, 200), c27e._h(200, 192, scale=0.25)
    y = sweep_harness.gpu_run(programs, "two_k", {0: x1, 1: w1, 2: x2, 3: w2})[4]
    c27e.s14e._check(y, c27e._mm(x1, w1) + c27e._mm(x2, w2), 2e-2, 1e-2)
