"""The nineteenth user sweep's programs as PTX (after LLVM, not the MLIR the SIMT interpreter runs) run
CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator``, against the same independent numpy
references as test_user_sweep19_interp.py: each test there named in :data:`EMULATED` runs again with
its ``run`` swapped for test_user_sweep10_emulated.emulate (its program table pointed at this
sweep's; outputs NaN / sentinel prefilled, ragged sizes, the launcher's parameter order).  The
compiles are shared with test_user_sweep19_compile.py (``compile_once``).  Needs cuda-tile, no GPU,
no ptxas."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep19_interp as s19  # noqa: E402

from tileorch.testing.user_programs19 import PROGRAMS  # noqa: E402

EMULATED = ["test_float_to_int_nan_inf_out_of_range", "test_e4m3_from_f16_and_bf16_saturating",
            "test_int8_int64_floordiv_mod_negatives", "test_uint32_divmod_past_2_31", "test_int8_abs_negate_multiply_wrap",
            "test_atomic_or_bitmap_uint32", "test_atomic_and_xor_int64_words", "test_histogram_sum_by_cas_add_loop",
            "test_atomic_xchg_f32_returns_old", "test_atomic_add_int64_tickets", "test_gather_masked_nan_padding_f16",
            "test_gather_2d_index_pair_padding_minus_one", "test_permute_4d_int16_and_reshape",
            "test_scans_axis0_int_types", "test_grid_larger_than_data", "test_one_element_tiles_int64_grid_3d",
            "test_ordered_view_loads_and_stores", "test_tf32_rounding_and_f64_bits"]
"""The tests of test_user_sweep19_interp.py run here on the PTX (a CI-sized subset, ``TILEORCH_EMULATE_ALL=1``
runs all): the conversions whose PTX instructions saturate or wrap (float -> int of NaN / inf / out of
range, e4m3, int8), 8- / 64-bit and unsigned division, the 32- and 64-bit bitwise atomics, the CAS
loop, f32 exchange and int64 tickets, masked and padded gathers (1-D and an index pair), the 4-D
int16 permute, int scans along axis 0, programs past the data, a 3-D grid of one-element tiles and
the ordered view accesses (``ld.acquire`` / ``fence.release`` + ``st.relaxed``), ``cvt.rn.tf32.f32``."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
    EMULATED = sorted(n for n in dir(s19) if n.startswith("test_"))


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s19, "run", s10e.emulate)
    s19.every_case(getattr(s19, test))
