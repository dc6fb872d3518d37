"""The thirty-second user sweep's invalid inputs (``tileorch.testing.user_programs32``), through the shared skeletons
of invalid_sweep_checks.py:

* :data:`INVALID` programs (cuTile accepts them, tileorch cannot run them: MX block scales stored e8m0 and widened
  to f32): the located error at the user's line by the driver and ``tileorch compile``;
* :data:`REJECTED_BY_CUTILE` (K untransposed in the scores' dot, axes out of range for ``max`` / ``sum`` /
  ``num_tiles``, index and shape ranks that disagree with the array, a 96-wide tile, loop-carried values changing
  dtype or shape, a dot accumulator of the wrong shape or an int32 one for f16, ``permute`` of one axis, ``cat`` of
  two dtypes, ``latency=20``, a reshape doubling the elements, an f32 tile stored into
  an f16 array, ``padding_mode="zero"``, ``arange`` of a runtime extent, an f16 x bf16 dot, ``&`` of floats,
  ``bid(0.0)``): cuTile's own error at the user's line;
* hand-written ``cuda_tile`` text of an attention kernel with one mistake each (:data:`TEXT_MISTAKES`: ``mmaf`` /
  ``select`` / ``exp2`` / ``ftof`` / ``reshape`` operands of the wrong type or shape, ``permute`` axes, a misspelt
  ``cmpi`` predicate, ``reduce``'s dimension and identity, a ``for`` whose carried values or ``continue`` disagree
  with its results, a tile where a token goes, index counts, a bad ``padding_value``, ``assume`` predicates out of
  their rules, tensor views of the wrong element type or rank, ``get_tile_block_id`` bound to two results, a store of
  the wrong tile type): ``tileorch compile`` exits non-zero with ``k.mlir:L:C: error:`` at the line of the mistake
  (for a value of the wrong type: at its first use, as MLIR's parser reports it), no traceback;
* launch mistakes at ``tileorch.cutile.launch`` (:data:`LAUNCH_MISTAKES`) on ``alpha A B + beta C`` in place: an
  exception naming what is wrong, nothing launched."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs32  # noqa: E402
from tileorch.testing.user_programs32 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (_device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  launch_mistake_tests, text_mistake_tests)

SOURCE = user_programs32.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["mx_scales_e8m0_widened_to_f32"])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)

BASE = "attn_output_row_scale_after_loop"
"""The valid program whose ``cuda_tile`` text the mistakes below edit (3-D views, a key loop carrying three tiles,
two ``mmaf``, ``permute``, ``reduce`` with identities, ``select``, ``exp2``, ``ftof``, tokens)."""

_SAME = "but has been previously used or defined with type"
_ACC = "%113 = mmaf %84, %112, %93"
_PERM = "%112 = permute %111 [1, 0]"
_FTOF = "%143 = ftof %131  : tile<64x64xf32> -> tile<64x64xf16>"
_VIEW = ("%50 = make_tensor_view %35, shape = [%45, %46, %47], strides = [%48, %49, 1] : tile<i32> -> "
         "tensor_view<?x?x?xf16")
TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "mmaf_accumulator_of_a_row_vector": (_ACC, "%113 = mmaf %84, %112, %86", _SAME + " !cuda_tile.tile<64x1xf32>",
                                         "%113 = mmaf %84, %112, %86"),
    "permute_repeating_an_axis": (_PERM, "%112 = permute %111 [0, 0]",
                                  "permutation must be a permutation of [0, rank)", "%112 = permute %111 [0, 0]"),
    "permute_of_three_axes": (_PERM, "%112 = permute %111 [1, 0, 2]", "expected permutation of size 2, got 3",
                              "%112 = permute"),
    "reshape_dropping_half": ("%84 = reshape %82 : tile<1x64x64xf16> -> tile<64x64xf16>",
                              "%84 = reshape %82 : tile<1x64x64xf16> -> tile<64x32xf16>",
                              _SAME + " !cuda_tile.tile<64x32xf16>", "%113 = mmaf %84"),
    "cmpi_predicate_misspelt": ("%120 = cmpi less_than", "%120 = cmpi less_then",
                                "expected 'comparison_predicate' to be one of", "%120 = cmpi less_then"),
    "reduce_dim_2_of_2d": ("%123 = reduce %122 dim=1", "%123 = reduce %122 dim=2",
                           "dim 2 is out of range for operands of rank 2", "%123 = reduce %122 dim=2"),
    "reduce_identity_of_i32": ("identities=[0xff800000 : f32]", "identities=[0 : i32]",
                               "identity #0 type must match operand element type f32", "identities=[0 : i32]"),
    "continue_of_the_wrong_type": ("continue %146, %139, %128 :", "continue %146, %139, %146 :",
                                   _SAME + " !cuda_tile.tile<64x64xf32>", "continue %146, %139, %146"),
    "iter_value_of_the_wrong_type": ("%108 = %85)", "%108 = %87)", _SAME + " !cuda_tile.tile<64x64xf32>",
                                     "%104:3 = for %105"),
    "token_of_an_i32": ("%148, %149 = load_view_tko weak %147[%78, %74] token = %34",
                        "%148, %149 = load_view_tko weak %147[%78, %74] token = %80",
                        "operand is used with type !cuda_tile.token, " + _SAME + " !cuda_tile.tile<i32>",
                        "token = %80"),
    "load_view_with_two_of_three_indices": ("%82, %83 = load_view_tko weak %81[%78, %74, %80]",
                                            "%82, %83 = load_view_tko weak %81[%78, %74]",
                                            "expected 3 index operands (based on view type), got 2",
                                            "%82, %83 = load_view_tko weak %81[%78, %74]"),
    "padding_value_one": ("partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, "
                          "strides=[?,?,1]>>\n      %82",
                          "partition_view<tile=(1x64x64), padding_value = one, tensor_view<?x?x?xf16, "
                          "strides=[?,?,1]>>\n      %82", "invalid padding_value attribute specification. Got \"one\"",
                          "%81 = make_partition_view"),
    "assume_div_by_12": ("%35 = assume div_by<16>, %0", "%35 = assume div_by<12>, %0",
                         "divisor must be a power of 2, got 12", "%35 = assume div_by<12>"),
    "assume_bounded_5_to_2": ("%45 = assume bounded<0, ?>, %1", "%45 = assume bounded<5, 2>, %1",
                              "lower bound (5) must not exceed upper bound (2)", "%45 = assume bounded<5, 2>"),
    "exp2_of_i32": ("%131 = exp2 %130 : tile<64x64xf32>", "%131 = exp2 %118 : tile<64xi32>",
                    _SAME + " !cuda_tile.tile<64xi32>", "%134 = reduce %131"),
    "ftof_changing_shape": (_FTOF, _FTOF.replace("-> tile<64x64xf16>", "-> tile<64x32xf16>"),
                            _SAME + " !cuda_tile.tile<64x32xf16>", "%146 = mmaf %143"),
    "tensor_view_of_f32_on_an_f16_pointer": (_VIEW, _VIEW.replace("xf16", "xf32"),
                                             "operand is used with type !cuda_tile.tile<ptr<f32>>",
                                             "%50 = make_tensor_view"),
    "tensor_view_of_two_extents": (_VIEW, _VIEW.replace("shape = [%45, %46, %47]", "shape = [%45, %46]"),
                                   "expected shape declaration to contain 3 elements due to tensor_view type, but 2",
                                   "%50 = make_tensor_view"),
    "block_id_of_two_results": ("%74, %75, %76 = get_tile_block_id", "%74, %75 = get_tile_block_id",
                                "Operation has 3 results, but was given 2 to bind", "%74, %75 = get_tile_block_id"),
    "store_tile_of_f32_into_f16_view": ("%158 = store_view_tko weak %156, %157[%78, %74, %151] token = %34 : "
                                        "tile<1x64x64xf16>",
                                        "%158 = store_view_tko weak %154, %157[%78, %74, %151] token = %34 : "
                                        "tile<64x64xf32>",
                                        "expected tile type to be tile<1x64x64xf16> (based on view type), got "
                                        "tile<64x64xf32>", "%158 = store_view_tko weak %154"),
    "select_on_an_f32_condition": ("%122 = select %121, %114, %101 : tile<64x64xi1>",
                                   "%122 = select %114, %114, %101 : tile<64x64xf32>",
                                   "operand #0 must be tile of i1 values, but got 'tile<64x64xf32>'",
                                   "%122 = select %114"),
}

test_a_cuda_tile_text_mistake_stops_at_its_line = text_mistake_tests(PROGRAMS, BASE, TEXT_MISTAKES)




def _x(i, shape, dt="float16"):
    return _device_array(i, shape, dt)


LAUNCHED = "gemm_alpha_beta_c_in_place"
_OK = (_x(0, (100, 64)), _x(1, (64, 80)), _x(2, (100, 80), "float32"), 1.5, -0.5, 64, 64, 32)
LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "c_in_f16": (LAUNCHED, (2, 2), _OK[:2] + (_x(2, (100, 80)),) + _OK[3:], Exception,
                 "Stored tile is incompatible with array's dtype: cannot implicitly cast float32 to float16"),
    "a_given_a_batch_dimension": (LAUNCHED, (2, 2), (_x(0, (1, 100, 64)),) + _OK[1:], Exception,
                                  "Index size 2 does not match the array rank 3"),
    "a_k_tile_of_48": (LAUNCHED, (2, 2), _OK[:7] + (48,), Exception,
                       "Dimension #1 of shape (64, 48) is not a power of two"),
    "a_grid_of_no_columns": (LAUNCHED, (2, 0), _OK, ValueError, "grid extents must be positive, got (2, 0)"),
    "c_on_a_s_memory": (LAUNCHED, (2, 2), _OK[:2] + (_x(0, (100, 80), "float32"),) + _OK[3:], ValueError,
                        "argument 2 ('C') shares memory with argument 0 ('A') without being the same view"),
    "alpha_a_numpy_array": (LAUNCHED, (2, 2), _OK[:3] + (np.array([1.5], np.float32),) + _OK[4:], TypeError,
                            "argument 3 ('alpha') is a numpy array, in host memory"),
    "tk_left_out": (LAUNCHED, (2, 2), _OK[:7], TypeError,
                    "kernel 'gemm_alpha_beta_c_in_place' takes 8 arguments (A, Bm, C, alpha, beta, TM, TN, TK), got 7"),
}

(test_a_launch_mistake_raises_naming_what_is_wrong, test_the_launch_of_a_valid_program_gets_as_far_as_the_driver) = \
    launch_mistake_tests(PROGRAMS, LAUNCH_MISTAKES, SOURCE,
                         (LAUNCHED, (2, 2), _OK,
                          # the module load; on a host without cuda-python, the tensor maps' encoding before it
                          ("no kernel named", "No module named 'cuda.bindings'")))


def test_the_sweep_has_its_invalid_inputs():
    """About 35 invalid inputs (the brief): cuTile's refusals, tileorch's located refusals, text mistakes and launch
    mistakes."""
    assert len(REJECTED_BY_CUTILE) + len(INVALID) + len(TEXT_MISTAKES) + len(LAUNCH_MISTAKES) >= 35
