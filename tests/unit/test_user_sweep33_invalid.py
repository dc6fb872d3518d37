"""The thirty-third user sweep's invalid inputs (``tileorch.testing.user_programs33``), through the shared skeletons
of invalid_sweep_checks.py:

* :data:`INVALID` programs (cuTile accepts them, tileorch cannot run them: a 2-D tile stored into a 1-D array): the
  located error at the user's line by the driver, ``tileorch compile`` and ``tileorch.cutile.launch``;
* :data:`REJECTED_BY_CUTILE` (written while writing this sweep's valid programs: ``astype`` to int32 with a rounding
  mode, ``atomic_max`` of f32, a head dim of 48 as a tile width, int8 / bf16 dots into f32 / f16 accumulators,
  ``gather`` with float indices, one index tile for a 2-D atomic, ``cumsum`` / ``argmax`` / ``bid`` axes out of range
  or not constant, ``transpose`` of a vector, ``@`` of disagreeing inner dims, ``where`` of unbroadcastable shapes,
  ``full`` of a runtime shape, ``.item()`` of 64 elements, ``math.exp`` of a tile, a kernel returning a value,
  ``extract`` past the tile, ``cat`` of different row counts, ``range`` of a float, e5m2 x e4m3 and int64 dots):
  cuTile's own error at the user's line;
* hand-written ``cuda_tile`` text of the sliding-window attention with one mistake each (:data:`TEXT_MISTAKES`):
  ``tileorch compile`` exits non-zero with ``k.mlir:L:C: error:`` at the line of the mistake (for a value of the
  wrong type: at its first use, as MLIR's parser reports it), no traceback;
* launch mistakes at ``tileorch.cutile.launch`` (:data:`LAUNCH_MISTAKES`) on the int8 GEMM with its dequantising
  epilogue: an exception naming what is wrong, nothing launched."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs33  # noqa: E402
from tileorch.testing.user_programs33 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (_device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  invalid_text_and_launch_tests, launch_mistake_tests, text_mistake_tests)

SOURCE = user_programs33.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["store_2d_tile_at_1d_index"])
_text_route, test_cutile_launch_stops_at_the_users_line = invalid_text_and_launch_tests(INVALID, SOURCE, [])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)

BASE = "attn_causal_window_scalar_arg"
"""The valid program whose ``cuda_tile`` text the mistakes below edit (signed ``divi`` with a rounding, ``maxi`` /
``mini``, a ``for`` from a computed first tile, ``cmpf`` with its ordering, ``select``, ``exp2``, ``ftof``, ``fma``,
two ``mmaf``)."""

_SAME = "but has been previously used or defined with type"
TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "divi_rounding_sideways": ("%89 = divi %88, %64 signed rounding<negative_inf>",
                               "%89 = divi %88, %64 signed rounding<sideways>", "expected rounding to be one of",
                               "%89 = divi %88, %64 signed rounding<sideways>"),
    "maxi_of_the_f32_scale": ("%90 = maxi %84, %89 signed", "%90 = maxi %84, %28 signed",
                              _SAME + " !cuda_tile.tile<f32>", "%90 = maxi %84, %28"),
    "cmpf_without_its_ordering": ("%150 = cmpf equal ordered %149, %115", "%150 = cmpf equal %149, %115",
                                  "expected 'comparison_ordering' to be one of", "%150 = cmpf equal %149"),
    "for_step_of_the_f32_scale": ("(%90 to %95, step %96)", "(%90 to %95, step %28)",
                                  _SAME + " !cuda_tile.tile<f32>", "step %28"),
    "cmpf_to_i32": ("-> tile<64x1xi1>\n", "-> tile<64x1xi32>\n",
                    "operand is used with type !cuda_tile.tile<64x1xi1>, " + _SAME + " !cuda_tile.tile<64x1xi32>",
                    "%151 = select %150"),
    "divf_of_i32_tiles": ("%89 = divi %88, %64 signed rounding<negative_inf> : tile<i32>",
                          "%89 = divf %88, %64 : tile<i32>",
                          "operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got 'tile<i32>'",
                          "%89 = divf %88"),
    "ftof_to_i16": ("%166 = ftof %154  : tile<64x64xf32> -> tile<64x64xf16>",
                    "%166 = ftof %154  : tile<64x64xf32> -> tile<64x64xi16>", _SAME + " !cuda_tile.tile<64x64xi16>",
                    "%169 = mmaf %166"),
    "fma_of_two_operands": ("%162 = fma %124, %156, %161  : tile<64x1xf32>", "%162 = fma %124, %156  : tile<64x1xf32>",
                            "Expected ','", "%162 = fma %124, %156"),
    "mmaf_accumulating_into_the_window": ("%130 = mmaf %75, %129, %99", "%130 = mmaf %75, %129, %29",
                                          _SAME + " !cuda_tile.tile<i32>", "%130 = mmaf %75, %129, %29"),
    "iota_of_a_2d_tile": ("%77 = iota : tile<64xi32>", "%77 = iota : tile<8x8xi32>",
                          _SAME + " !cuda_tile.tile<8x8xi32>", "%80 = addi %79, %77"),
    "broadcast_to_32_rows": ("%79 = broadcast %78 : tile<1xi32> -> tile<64xi32>",
                             "%79 = broadcast %78 : tile<1xi32> -> tile<32xi32>", _SAME + " !cuda_tile.tile<32xi32>",
                             "%80 = addi %79, %77"),
}

test_a_cuda_tile_text_mistake_stops_at_its_line = text_mistake_tests(PROGRAMS, BASE, TEXT_MISTAKES)


def _x(i, shape, dt="int8"):
    return _device_array(i, shape, dt)


LAUNCHED = "gemm_int8_int32_acc_dequant_f16"
_OK = (_x(0, (100, 128)), _x(1, (128, 80)), _x(2, (100,), "float32"), _x(3, (80,), "float32"),
       _x(4, (100, 80), "float16"), 64, 64, 64)
LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "a_in_f16": (LAUNCHED, (2, 2), (_x(0, (100, 128), "float16"),) + _OK[1:], Exception,
                 "x and y must have the same dtype unless they are int8/uint8, got float16 int8"),
    "row_scales_as_a_column": (LAUNCHED, (2, 2), _OK[:2] + (_x(2, (100, 1), "float32"),) + _OK[3:], Exception,
                               "Index size 1 does not match the array rank 2"),
    "a_k_tile_of_96": (LAUNCHED, (2, 2), _OK[:7] + (96,), Exception, "is not a power of two"),
    "a_grid_with_an_empty_axis": (LAUNCHED, (2, 2, 0), _OK, ValueError, "grid extents must be positive"),
    "c_on_the_row_scales": (LAUNCHED, (2, 2), _OK[:4] + (_x(2, (100, 80), "float16"),) + _OK[5:], ValueError,
                            "argument 4 ('C') shares memory with argument 2 ('SA')"),
    "tk_left_out": (LAUNCHED, (2, 2), _OK[:7], TypeError,
                    "kernel 'gemm_int8_int32_acc_dequant_f16' takes 8 arguments (A, B, SA, SB, C, TM, TN, TK), got 7"),
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
