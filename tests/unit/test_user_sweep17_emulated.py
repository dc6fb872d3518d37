"""The seventeenth user sweep's programs as PTX (after LLVM, not the MLIR the SIMT interpreter runs) run
CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator``, against the same independent numpy
references as test_user_sweep17_interp.py: each test there named in :data:`EMULATED` runs again with
its ``run`` swapped for test_user_sweep10_emulated.emulate (its program table pointed at this
sweep's; outputs NaN / sentinel prefilled, ragged sizes, the launcher's parameter order).  The
compiles are shared with test_user_sweep17_compile.py (``compile_once``).  Needs cuda-tile, no GPU,
no ptxas."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep17_interp as s17  # noqa: E402

from tileorch.testing.user_programs17 import PROGRAMS  # noqa: E402

EMULATED = ["test_segmented_max_argmax_int64_offsets", "test_histogram_float_max_cas_loop",
            "test_bucket_lists_by_xchg_heads", "test_last_program_reduces_partials", "test_e5m2_saturate_roundtrip",
            "test_nan_inf_max_min_argmax", "test_integer_overflow_wraps", "test_shifts_by_runtime_amounts",
            "test_int16_uint16_saturate_and_wrap", "test_int64_index_math_past_2_32", "test_six_outputs_six_dtypes",
            "test_permute_4d_odd_tile_larger", "test_chained_scan_flag_lookback",
            "test_negative_ids_dropped_by_bounds_checks", "test_compaction_by_lane_atomic_slots"]
"""The tests of test_user_sweep17_interp.py run here on the PTX (a CI-sized subset, ``TILEORCH_EMULATE_ALL=1``
runs all): per-warp programs with loops of different trip counts, the CAS retry loop and xchg lists
(PTX atomics), the cross-instance ticket and the chained scan's flags, per-lane slots from one counter,
ids of -1 and past the tables through the bounds checks, the conversions whose PTX instructions saturate or wrap
(fp8, int16 / uint16, int8), NaN in ``max.f32`` / ``argmax``, shifts past the width (PTX clamps, LLVM
calls it poison), 64-bit index math, six store widths, the 4-D permute."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
    EMULATED = sorted(n for n in dir(s17) if n.startswith("test_"))


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s17, "run", s10e.emulate)
    getattr(s17, test)()
