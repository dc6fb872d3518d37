"""The thirty-seventh user sweep's invalid inputs (``tileorch.testing.user_programs37``: attention-shaped and
two-dot programs), through the shared skeletons of invalid_sweep_checks.py:

* :data:`REJECTED_BY_CUTILE` -- the mistakes of users writing attention and MLP chains in cuTile: K's tile given to
  the dot untransposed, two head-dim constants that disagree, a 3-D Q tile given to the dot, P not cast to V's type,
  the head dim 80 or a 48-row query tile as a tile size, the PV accumulator of the QK head dim (``d_v != d_qk``), a
  permute of three axes of a 2-D tile, the samples' transposed K load with an ``order`` of three axes, ``latency=0``,
  ``rounding_mode="approx"`` as a string, the row max over axis 2, ``l_i`` updated without ``keepdims`` in the key
  loop (the loop-carried state changes shape), the row max not expanded before ``s - m``, the f32 accumulator stored
  into an f16 output, three indices for a 4-D array, the head dim as a run-time ``int``, ``K.shape[3]`` of a 3-D K,
  ``flush_to_zero`` from a run-time argument, ``padding_mode="zero"``, an int32 accumulator for f16 scores,
  ``ct.bid(3)``, the MLP's second weight loaded the input's width instead of the hidden chunk's, the causal mask
  built transposed, fp8 P with f16 V, the key tiles walked last-first (a negative ``range`` step): cuTile's own
  error at the user's line;
* :data:`INVALID` -- a program cuTile accepts and tileorch cannot run (a whole short sequence's 256 x 512 f32 scores
  in one tile, no key loop): the located error at the user's line by the driver, ``tileorch compile`` (non-zero exit)
  and ``tileorch.cutile.launch`` (nothing launched);
* hand-written ``cuda_tile`` text of the decode attention program with one mistake each (:data:`TEXT_MISTAKES`:
  a permute of a repeated axis or of three axes, a dot whose rows are not its accumulator's, a reduction over dim 2,
  a loop continuing with two of its three values, a view load with two indices for a 3-D view, a store of a tile the
  view's tile is not, a max reduction's identity of f16, the loop's initial values swapped):
  ``tileorch compile`` exits non-zero with ``k.mlir:L:C: error:`` at the line of the mistake, no traceback."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs37  # noqa: E402
from tileorch.testing.user_programs37 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (cutile_rejects_tests, invalid_sweep_tests, invalid_text_and_launch_tests,  # noqa: E402
                                  text_mistake_tests)

SOURCE = user_programs37.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["scores_tile_256_by_512"])
_text_route, test_cutile_launch_stops_at_the_users_line = invalid_text_and_launch_tests(INVALID, SOURCE, [])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)

BASE = "s37_decode_rows_16_d64"
"""The valid program whose ``cuda_tile`` text the mistakes below edit (a 16-row decode attention: a key loop of
three loop-carried values, ``permute`` of K, two ``mmaf``, max / sum reductions, 3-D partition views)."""

_CONTINUE = "continue %143, %136, %125 : tile<16x64xf32>, tile<16x1xf32>, tile<16x1xf32>"
_STORE_VIEW = ("partition_view<tile=(1x16x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>\n      %151 = store_view_tko "
               "weak %149, %150[%63, %144, %145] token = %29 : tile<1x16x64xf16>, partition_view<tile=(1x16x64), "
               "tensor")
_LOOP = "%98:3 = for %99 in (%82 to %81, step %83) : tile<i32> iter_values(%100 = %80, %101 = %79, %102 = %78)"
TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "permute_of_a_repeated_axis": ("%111 = permute %105 [1, 0]", "%111 = permute %105 [0, 0]",
                                   "permutation must be a permutation of [0, rank)", "permute %105 [0, 0]"),
    "permute_of_three_axes": ("%111 = permute %105 [1, 0]", "%111 = permute %105 [1, 0, 2]",
                              "expected permutation of size 2, got 3", "permute %105 [1, 0, 2]"),
    "scores_dot_of_the_k_tile_rows": ("%112 = mmaf %77, %111, %87 : tile<16x64xf16>",
                                      "%112 = mmaf %105, %111, %87 : tile<64x64xf16>",
                                      "acc shape must be 64x64, got 16x64", "mmaf %105, %111, %87"),
    "row_max_over_dim_2": ("%120 = reduce %119 dim=1", "%120 = reduce %119 dim=2",
                           "dim 2 is out of range for operands of rank 2", "reduce %119 dim=2"),
    "loop_continues_with_two_of_three": (_CONTINUE, "continue %143, %136 : tile<16x64xf32>, tile<16x1xf32>",
                                         "'continue' has 2 operands, but its parent expects 3", "continue %143, %136"),
    "q_load_with_two_indices": ("%75, %76 = load_view_tko weak %74[%63, %72, %73]",
                                "%75, %76 = load_view_tko weak %74[%63, %72]",
                                "expected 3 index operands (based on view type), got 2", "%74[%63, %72] token"),
    "o_view_of_32_rows_for_a_16_row_tile": (_STORE_VIEW, _STORE_VIEW.replace("1x16x64), tensor", "1x32x64), tensor"),
                                            "expected tile type to be tile<1x32x64xf16> (based on view type), got "
                                            "tile<1x16x64xf16>", "store_view_tko weak %149"),
    "max_identity_of_f16": ("identities=[0xff800000 : f32]", "identities=[0xfc00 : f16]",
                            "identity #0 type must match operand element type f32", "reduce %119 dim=1"),
    "loop_initial_values_swapped": (_LOOP, _LOOP.replace("%100 = %80, %101 = %79", "%100 = %79, %101 = %80"),
                                    "operand is used with type !cuda_tile.tile<16x64xf32>, but has been previously "
                                    "used or defined with type !cuda_tile.tile<16x1xf32>", "iter_values(%100 = %79"),
}

test_a_cuda_tile_text_mistake_stops_at_its_line = text_mistake_tests(PROGRAMS, BASE, TEXT_MISTAKES)


def test_the_sweep_has_its_invalid_inputs():
    """About 30 invalid inputs (the brief): cuTile's refusals, tileorch's located refusal, text mistakes."""
    assert len(REJECTED_BY_CUTILE) + len(INVALID) + len(TEXT_MISTAKES) >= 30
