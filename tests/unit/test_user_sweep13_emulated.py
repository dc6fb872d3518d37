"""The thirteenth user sweep's programs as PTX (after LLVM, not the MLIR the SIMT interpreter runs) run
CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator``, against the same independent numpy
references as test_user_sweep13_interp.py: each test there named in :data:`EMULATED` runs again with
its ``run`` swapped for test_user_sweep10_emulated.emulate (its program table pointed at this
sweep's; outputs NaN / sentinel prefilled, ragged sizes, the launcher's parameter order).  The
compiles are shared with test_user_sweep13_compile.py (``compile_once``).  Needs cuda-tile, no GPU,
no ptxas."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep13_interp as s13  # noqa: E402

from tileorch.testing.user_programs13 import PROGRAMS  # noqa: E402

EMULATED = sorted(n for n in dir(s13) if n.startswith("test_"))


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s13, "run", s10e.emulate)
    fn = getattr(s13, test)
    params = getattr(fn, "pytestmark", [])
    if params:  # the parametrized tests: every value
        mark = params[0]
        for value in mark.args[1]:
            fn(value)
    else:
        fn()
