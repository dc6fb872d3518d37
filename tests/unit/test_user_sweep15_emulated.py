"""The fifteenth user sweep's programs as PTX (after LLVM, not the MLIR the SIMT interpreter runs) run
CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator``, against the same independent numpy
references as test_user_sweep15_interp.py: each test there named in :data:`EMULATED` runs again with
its ``run`` swapped for test_user_sweep10_emulated.emulate (its program table pointed at this
sweep's; outputs NaN / sentinel prefilled, ragged sizes, the launcher's parameter order).  The
compiles are shared with test_user_sweep15_compile.py (``compile_once``).  Needs cuda-tile, no GPU,
no ptxas."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep15_interp as s15  # noqa: E402

from tileorch.testing.user_programs15 import PROGRAMS  # noqa: E402

EMULATED = ["test_rmsnorm_bwd_partial_dgamma", "test_cross_entropy_fwd_mean_atomic", "test_rope_partial_rotary_positions",
            "test_adamw_step_inplace", "test_quant_fp8_per_group_1x128", "test_argmin_ties_long_rows_bf16",
            "test_exclusive_cumsum_long_carry", "test_swiglu_bwd_inplace", "test_quant_int8_cast_saturates",
            "test_image_to_uint8_saturating"]
"""The tests of test_user_sweep15_interp.py run here on the PTX (a CI-sized subset, ``TILEORCH_EMULATE_ALL=1``
runs all): a loop of rows with a register partial, the long-row cross-entropy with its atomics, the
gathered rotary tables, the in-place optimizer step with scalar powers, the saturating fp8
conversion, ties across tiles, the scan's carry, an in-place bf16 backward and the 8-bit integer
conversions saturating (signed and unsigned: they wrapped before this sweep)."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
    EMULATED = sorted(n for n in dir(s15) if n.startswith("test_"))


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s15, "run", s10e.emulate)
    getattr(s15, test)()
