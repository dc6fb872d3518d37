"""The twentieth user sweep on the GPU (issue 20 and the principal tier: dot and attention-shaped
programs acceptance runs that we will not see): every program of ``tileorch.testing.user_programs20``
runs through ``tileorch.cutile.launch`` on its spec's ragged shapes and grid (tests/gpu/sweep_harness.gpu_run:
every array inside a larger buffer of the fill, NaN for floats, an integer sentinel; outputs start as
the fill and the tails must stay it; the path the program compiles to checked against its table
entry).  The tensor-core programs rerun tests/unit/test_user_sweep20_emulated.py's cases (float64
numpy references; f16, bf16, tf32 and int8) with the emulator swapped for the GPU; the programs the
tiers refuse rerun tests/unit/test_user_sweep20_interp.py's references
(``sweep_harness.numpy_reference_tests``: the SIMT path's mma.sync on the GPU).  Skipped without a
GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep20_gpu.py``."""

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
import test_user_sweep20_emulated as s20e  # noqa: E402
import test_user_sweep20_interp as s20i  # noqa: E402

from tileorch.testing.user_programs20 import PROGRAMS  # noqa: E402

TABLE = {**PROGRAMS, **s20e.TWINS}
REFUSED = {name: p for name, p in PROGRAMS.items() if p.path == "simt"}
INTERPRETED = {**REFUSED, **{n: PROGRAMS[n] for n in ("attn_gqa_group_loop_inside", "gemm_column_sums_atomic")}}
"""The programs test_user_sweep20_interp.py's references run: the refused ones, the GQA group loop (refused
until session 26, now on the chained tier) and the column sums added atomically beside Y (refused until session
41, now on the GEMM tier): their references rerun there."""


def run(name: str, inputs: dict) -> dict:
    return sweep_harness.gpu_run(TABLE, name, inputs)


@pytest.mark.parametrize("case", sorted(s20e.CASES))
def test_emulated_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s20e, "emulate", run)
    monkeypatch.setattr(s20e, "chained", run)
    s20e.CASES[case]()


test_every_refused_program_has_a_test, test_on_the_gpu_against_numpy = sweep_harness.numpy_reference_tests(
    INTERPRETED, s20i)
