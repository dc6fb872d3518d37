"""The twelfth user sweep on the GPU (issue 21's op-coverage audit): every program of
``tileorch.testing.user_programs12`` (SIMT path) runs through ``tileorch.cutile.launch`` on its spec's
ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep12_interp.py: each test there runs again with its ``run`` swapped for
:func:`gpu_run` (every array inside a larger buffer of the fill: NaN / an integer sentinel / the fp8
NaN byte / the byte 2 for bool, whose tail must stay the fill; the outputs start as the fill).  On
the GPU: int64 atomics racing between CTAs (add, max, cas with one winner per slot), fp8 conversions
by the hardware's cvt, unsigned / 16-bit reductions and scans.  Skipped without a GPU; needs torch,
cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_user_sweep12_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
pytest.importorskip("ml_dtypes")

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import test_user_sweep12_interp as s12  # noqa: E402
import sweep_harness  # noqa: E402

from tileorch.testing.user_programs12 import PROGRAMS  # noqa: E402


def gpu_run(name: str, inputs: dict) -> dict:
    """tests/gpu/sweep_harness.gpu_run for this sweep's programs (all on the SIMT path)."""
    return sweep_harness.gpu_run(PROGRAMS, name, inputs)


ON_GPU = sorted(n for n in dir(s12) if n.startswith("test_"))


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s12)
    assert all(f'run("{name}"' in source for name in PROGRAMS), [n for n in PROGRAMS if f'run("{n}"' not in source]


@pytest.mark.parametrize("test", ON_GPU)
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s12, "run", gpu_run)
    getattr(s12, test)()
