"""The twenty-first user sweep's invalid half (``tileorch.testing.user_programs21``): programs a user
gets wrong.  :data:`INVALID` (cuTile's front end accepts them: a rank-1 tile stored into a matrix, a
``keepdims`` column stored into a vector, NaN / -inf padding of int arrays, directed roundings of
an f16 ``sqrt`` / ``mul`` / ``truediv``, toward-zero conversions other than f32 -> f16 / bf16, a million-element
compare and gather, a system-scope ``atomic_add``) stop with ``file:line:col: error:`` at the user's
line and the reason, never a traceback or an internal error, by four routes: the driver,
``tileorch compile`` on the exported ``.tileirbc`` (a subset), ``tileorch compile`` on the program as
``cuda_tile`` text in a ``.mlir`` file (the error at the text's line of the op it names; the
entries whose error is an invalid type, raised by the bytecode reader, have no text), and
``tileorch.cutile.launch`` (stand-in device arrays and driver: nothing launched).
:data:`REJECTED_BY_CUTILE` (the brief's mismatched elementwise shapes, a store of the wrong dtype, an
index tuple of the wrong rank, a tile of 96, 16-bit and f16 atomics, a reduction over a missing axis,
an unequal ``cat``, rounding modes cuTile does not take ...): cuTile's exporter raises its own error
naming the user's line, so no tileorch input exists for them; the test keeps cuTile's behaviour in
sight."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs21  # noqa: E402
from tileorch.testing.user_programs21 import INVALID, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import cutile_rejects_tests, invalid_sweep_tests, invalid_text_and_launch_tests  # noqa: E402

SOURCE = user_programs21.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["row_norm_stored_as_a_vector_into_a_matrix", "f16_std_by_sqrt_rounded_up",
                                          "rank_in_a_vocab_row_of_1024"])
test_tileorch_compile_of_the_mlir_text_exits_non_zero_at_its_line, test_cutile_launch_stops_at_the_users_line = \
    invalid_text_and_launch_tests(INVALID, SOURCE, [
        "f16_std_by_sqrt_rounded_up", "f16_to_bf16_truncated", "f64_reference_to_f16_truncated",
        "interval_lower_bound_mul_round_down", "mean_divided_toward_zero", "rank_in_a_vocab_row_of_1024",
        "gather_a_whole_1024x1024_block", "multi_gpu_counter_system_scope"])

test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)
