"""Review 26's CPU tests of conversions and of the GEMM tier's session-25 paths, run again on the GPU: each test of
tests/unit/test_review26_conversions.py with its emulator run swapped for ``sweep_harness.gpu_run`` (the
program launched by ``tileorch.cutile.launch``, outputs in buffers of the fill with a checked tail): float ->
every integer width of NaN / +-inf / out of range from f16, f32 and f64 (the hardware's ``cvt.rzi`` NaN results
that the lowering relies on: f16 sources and unsigned 64-bit were never measured), constants out of range (the
backend fix: they were folded to poison and their stores dropped), truncation through an integer, directed
square roots.  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_review26_gpu.py``."""

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
import test_review26_conversions as conv  # noqa: E402
import test_user_sweep_interp as interp  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

CONVERSIONS = sorted(n for n in dir(conv) if n.startswith("test_") and n != "test_scalar_conversions_stay_one_cvt_rzi")


def _gpu(monkeypatch, name, kernel, spec, grid, inputs):
    return sweep_harness.gpu_run({name: UserProgram(kernel, spec, grid, "simt")}, name, inputs)


@pytest.mark.parametrize("test", CONVERSIONS)
def test_conversions_on_the_gpu(test, monkeypatch):
    monkeypatch.setattr(interp, "NP", {**interp.NP, "uint64": np.uint64, "uint16": np.uint16})
    monkeypatch.setattr(conv, "_emulate", _gpu)
    fn = getattr(conv, test)
    params = getattr(fn, "pytestmark", [])
    cases = [m.args for m in params if m.name == "parametrize"]
    if not cases:
        fn(monkeypatch)
        return
    (names, values), = cases
    for v in values:
        fn(monkeypatch, v)
