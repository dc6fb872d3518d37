"""The thirteenth user sweep's programs as PTX (after LLVM, not the MLIR the SIMT interpreter runs) run
CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator``, against the same independent numpy
references as test_user_sweep13_interp.py: each test there named in :data:`EMULATED` runs again with
its ``run`` swapped for test_user_sweep10_emulated.emulate (its program table pointed at this
sweep's; outputs NaN / sentinel prefilled, ragged sizes, the launcher's parameter order).  The
compiles are shared with test_user_sweep13_compile.py (``compile_once``).  Needs cuda-tile, no GPU,
no ptxas."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep13_interp as s13  # noqa: E402

from tileorch.testing.user_programs13 import PROGRAMS  # noqa: E402

EMULATED = ["test_load_order_f_transpose", "test_store_order_f_transpose", "test_load_order_tuple_rank3",
            "test_gather_2d_outer_indices_padding", "test_gather_3d_broadcast_mask", "test_scatter_2d_lower_triangle",
            "test_bitcast_f32_exponent_and_negate", "test_minimum_maximum_nan_modes",
            "test_int32_floordiv_mod_negatives", "test_int64_divmod_runtime_scalar", "test_bid_and_num_blocks_three_axes",
            "test_quantize_fp8_rowwise_saturating", "test_while_halving_until_small", "test_long_row_sum_loop_break",
            "test_strided_view_slices", "test_pair_axpby"]
"""The tests of test_user_sweep13_interp.py run here on the PTX (a CI-sized subset: every test there
passed on the emulator when this sweep was written, session 21; ``TILEORCH_EMULATE_ALL=1`` runs all):
the transposing orders, the multi-dimensional gathers and scatter, bits, NaN, integer division (where
a zero divisor in an idle program slot stopped the emulator), three grid axes, fp8 saturation, the
``while`` loop the interpreter does not model, a strided view and a 2-D / 3-D pair."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
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
