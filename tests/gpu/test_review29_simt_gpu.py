"""Review 29 on the GPU, where the PTX emulator cannot be the oracle: the SIMT programs of
tests/unit/test_review29_simt_math.py, test_review29_simt_memory.py and test_review29_simt_control.py with their
emulator run swapped for a launch through ``tileorch.cutile.launch`` (``sweep_harness.gpu_run``: outputs NaN /
sentinel-prefilled inside larger buffers).  The emulator computes ``ex2.approx`` / ``lg2.approx`` / ``sin.approx``
exactly and runs a warp's atomics in lane order; here the hardware's MUFU results meet the same tolerances (pow,
atan2, sinh / cosh near overflow, log2 of a subnormal: ``lg2.approx`` without ``.ftz``), PTX ``div.rz`` / ``.rm`` /
``.rp`` are checked against exact rational quotients, and only the atomics whose result is order-free (a tiled
view's and / xor / min; the old values the CPU tests check in lane order are not).  Skipped without a GPU; needs
torch, cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_review29_simt_gpu.py``."""

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
if UNIT not in sys.path:  # the CPU tests (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

from test_review28_gpu import emulate  # noqa: E402,F401  (the CPU tests' emulate, launched on the GPU)
from test_review29_simt_math import (  # noqa: E402,F401  (collected here with this module's ``emulate``)
    test_atan2_signed_zeros_and_infinities, test_bf16_math_and_nan_propagating_row_max,
    test_exp2_log2_rsqrt_sqrt_specials, test_float_mod_and_floordiv_negative,
    test_float_to_integer_saturates_nan_to_zero,
    test_floor_ceil_f16, test_hyperbolic_near_overflow, test_i16_bit_operations_and_arithmetic_shift,
    test_int64_divmod_signs_and_wide_divisors, test_integer_to_float_rounds_to_nearest_even,
    test_integer_wrap_around_at_the_minimum, test_maximum_minimum_with_nan_both_ways, test_pow_special_cases,
    test_truediv_with_directed_roundings, test_u64_shifts_by_runtime_amounts_past_the_width)
from test_review29_simt_control import (  # noqa: E402,F401
    test_3d_gather_by_three_broadcast_index_tiles, test_a_loop_bound_read_from_memory,
    test_a_tile_index_past_either_end_loads_padding_and_stores_nothing, test_advanced_indexing_rows_in_and_out,
    test_bool_reductions_any_all_count_and_running_count, test_int8_and_int64_indices_past_32_bits_are_out_of_bounds,
    test_pack_to_bytes_and_unpack_as_int16, test_powers_by_python_ints_keep_signs_and_specials,
    test_while_loop_breaks_on_a_loaded_value)
from test_review29_simt_memory import (  # noqa: E402,F401
    test_bool_tiles, test_float_reductions_with_nan_on_each_axis, test_gather_pads_masked_and_out_of_bounds_from_a_tile,
    test_insert_a_block_at_a_tile_index, test_int16_reductions_down_the_first_axis_of_a_3d_tile,
    test_int64_cumsum_and_reversed_cumprod_of_a_3d_tile, test_one_by_n_and_n_by_one_tiles,
    test_overlapping_tiled_view_windows, test_padding_mode_bits_on_f16,
    test_reduce_over_a_tuple_custom_argmax_ties_first,
    test_reversed_custom_scan_down_the_columns, test_scatter_2d_broadcast_mask_and_bounds,
    test_slice_with_runtime_bounds_then_tiled_view, test_tiled_view_and_xor_min_on_a_ragged_tile,
    test_uint8_reductions_compare_unsigned_and_wrap)
