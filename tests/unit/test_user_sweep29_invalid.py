"""The twenty-ninth user sweep's invalid inputs (``tileorch.testing.user_programs29``), kinds the invalid halves of
sweeps 17 to 28 did not try:

* :data:`INVALID` programs (cuTile accepts them, tileorch cannot run them: a 0-d array read by a tiled load, a
  running product and a sum rounded toward zero, a system-scope exchange, an e5m3 float): the located error at the
  user's line by the driver, ``tileorch compile`` and ``tileorch.cutile.launch``;
* :data:`REJECTED_BY_CUTILE`: cuTile's own error at the user's line;
* hand-written ``cuda_tile`` text of an int8 GEMM with a requantizing epilogue with one mistake each
  (:data:`TEXT_MISTAKES`: ``mmai`` / ``mmaf`` operand, accumulator and shape rules, signedness, integer casts,
  loops, views and tiles): ``tileorch compile`` exits non-zero with ``k.mlir:L:C: error:`` at the line of the
  mistake, no traceback;
* other binaries given as the program (:data:`OTHER_FILES`: MLIR bytecode, gzip, a doubled or truncated export):
  a non-zero exit naming the file and what it is, no traceback;
* launch mistakes at ``tileorch.cutile.launch`` (:data:`LAUNCH_MISTAKES`: tile constants that are not powers of
  two, negative or floats, a scalar past int32, numpy scalars, a complex, an array for a scalar, a 3-D array, a
  reversed view, a null pointer, a malformed array interface, fp8 bytes given as uint8): an exception naming what
  is wrong, nothing launched."""

from __future__ import annotations


import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs29  # noqa: E402
from tileorch.testing.user_programs29 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (_device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  invalid_text_and_launch_tests, launch_mistake_tests, other_file_tests,
                                  text_mistake_tests)

SOURCE = user_programs29.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["scale_from_0d_array_by_tile_load"])
test_tileorch_compile_of_the_mlir_text_exits_non_zero_at_its_line, test_cutile_launch_stops_at_the_users_line = \
    invalid_text_and_launch_tests(INVALID, SOURCE, ["row_sum_rounded_toward_zero"])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)


BASE = "int8_gemm_requant_by_rounding_shift"
"""The valid program whose ``cuda_tile`` text and bytecode the mistakes below edit (int8 views, a K loop carrying an
int32 accumulator through ``mmai``, a rounding shift, a clamp and a truncation to int8 stored)."""

_MMAI = "%58 = mmai %54, %56, %53 signed signed : tile<64x64xi8>, tile<64x64xi8>, tile<64x64xi32>"
_TRUNC = "%63 = trunci %62 : tile<64x64xi32> -> tile<64x64xi8>"
TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "mmai_without_signedness": ("%56, %53 signed signed :", "%56, %53 :",
                                "expected signedness to be one of: {'unsigned', 'signed'}", "mmai"),
    "mmaf_of_int8_operands": ("%58 = mmai %54, %56, %53 signed signed", "%58 = mmaf %54, %56, %53",
                              "operand #0 must be tile of f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 "
                              "values, but got 'tile<64x64xi8>'", "%58 = mmaf"),
    "mmai_k_of_32_against_64": (_MMAI, "%71 = constant <i8: 1> : tile<32x64xi8>\n        %58 = mmai %54, %71, %53 "
                                "signed signed : tile<64x64xi8>, tile<32x64xi8>, tile<64x64xi32>",
                                "lhs K dimension (64) must match rhs K dimension (32)", "%58 = mmai %54, %71"),
    "mmai_into_an_i16_accumulator": (_MMAI, "%71 = constant <i16: 0> : tile<64x64xi16>\n        %72 = mmai %54, %56, "
                                     "%71 signed signed : tile<64x64xi8>, tile<64x64xi8>, tile<64x64xi16>\n        "
                                     "%58 = addi %53, %53 : tile<64x64xi32>",
                                     "operand #2 must be tile of i32 values, but got 'tile<64x64xi16>'", "%72 = mmai"),
    "mmai_accumulator_64x32": (_MMAI, "%71 = constant <i32: 0> : tile<64x32xi32>\n        %72 = mmai %54, %56, %71 "
                               "signed signed : tile<64x64xi8>, tile<64x64xi8>, tile<64x32xi32>\n        %58 = addi "
                               "%53, %53 : tile<64x64xi32>", "acc shape must be 64x64, got 64x32", "%72 = mmai"),
    "mmaf_bf16_into_f16": (_MMAI, "%71 = constant <bf16: 1.0> : tile<64x64xbf16>\n        %72 = constant <f16: 0.0> "
                           ": tile<64x64xf16>\n        %73 = mmaf %71, %71, %72 : tile<64x64xbf16>, tile<64x64xbf16>, "
                           "tile<64x64xf16>\n        %58 = addi %53, %53 : tile<64x64xi32>",
                           "Input type 'bf16' expects accumulator/result type to be one of {'f32'}, but got 'f16'",
                           "%73 = mmaf"),
    "mmaf_bf16_times_f16": (_MMAI, "%71 = constant <bf16: 1.0> : tile<64x64xbf16>\n        %74 = constant <f16: 1.0> "
                            ": tile<64x64xf16>\n        %72 = constant <f32: 0.0> : tile<64x64xf32>\n        "
                            "%73 = mmaf %71, %74, %72 : tile<64x64xbf16>, tile<64x64xf16>, tile<64x64xf32>\n        "
                            "%58 = addi %53, %53 : tile<64x64xi32>", "all of {lhs, rhs} have the same element type",
                            "%73 = mmaf"),
    "batched_mmai_of_two_batch_sizes": (_MMAI, "%71 = constant <i8: 1> : tile<2x64x64xi8>\n        %75 = constant "
                                        "<i8: 1> : tile<4x64x64xi8>\n        %72 = constant <i32: 0> : "
                                        "tile<2x64x64xi32>\n        %73 = mmai %71, %75, %72 signed signed : "
                                        "tile<2x64x64xi8>, tile<4x64x64xi8>, tile<2x64x64xi32>\n        "
                                        "%58 = addi %53, %53 : "
                                        "tile<64x64xi32>", "batch dimensions of lhs, rhs and acc must match",
                                        "%73 = mmai"),
    "trunci_to_a_wider_type": (_TRUNC, "%70 = trunci %62 : tile<64x64xi32> -> tile<64x64xi64>\n      %63 = trunci "
                               "%70 : tile<64x64xi64> -> tile<64x64xi8>", "truncating to larger or identical integer",
                               "%70 = trunci"),
    "exti_to_a_narrower_type": (_TRUNC, "%63 = exti %62 signed : tile<64x64xi32> -> tile<64x64xi8>",
                                "extending to smaller or identical integer", "%63 = exti"),
    "two_loop_results_one_init": ("iter_values(%53 = %45) -> (tile<64x64xi32>)",
                                  "iter_values(%53 = %45) -> (tile<64x64xi32>, tile<64x64xi32>)",
                                  "mismatch in number of loop-carried values and defined values", "%51 = for"),
    "continue_with_the_int8_tile": ("continue %58 : tile<64x64xi32>", "continue %54 : tile<64x64xi8>",
                                    "'continue' operand #0 has type tile<64x64xi8>, but its parent expects "
                                    "tile<64x64xi32>", "continue %54"),
    "a_load_with_one_index": ("%49[%39, %52]", "%49[%39]", "expected 2 index operands (based on view type), got 1",
                              "load_view_tko weak %49[%39]"),
    "a_rank_3_tile_of_a_rank_2_view": ("%49 = make_partition_view %29 : partition_view<tile=(64x64)",
                                       "%49 = make_partition_view %29 : partition_view<tile=(64x64x1)",
                                       "expected tensor_view rank and tile rank to match", "%49 = make_partition_view"),
    "a_store_tile_of_32_rows": ("%65 = store_view_tko weak %63, %64[%39, %43] token = %15 : tile<64x64xi8>",
                                "%78 = constant <i8: 1> : tile<32x64xi8>\n      %65 = store_view_tko weak %78, "
                                "%64[%39, %43] token = %15 : tile<32x64xi8>",
                                "expected tile type to be tile<64x64xi8> (based on view type), got tile<32x64xi8>",
                                "%65 = store_view_tko"),
    "rounding_sideways": ("rounding<positive_inf>", "rounding<sideways>", "expected rounding to be one of:",
                          "rounding<sideways>"),
    "block_id_bound_to_two_names": ("%42, %43, %44 = get_tile_block_id", "%42, %43 = get_tile_block_id",
                                    "Operation has 3 results, but was given 2 to bind", "%42, %43 = get_tile_block_id"),
    "an_entry_argument_named_twice": ("%1: tile<i32>, %2: tile<i32>", "%1: tile<i32>, %1: tile<i32>",
                                      "SSA value %1 is already defined", "entry @"),
    "a_unit_stride_of_2": ("strides = [%28, 1]", "strides = [%28, 2]",
                           "input strides dimension 1 does not match tensor_view type (expected 1, got 2)",
                           "%29 = make_tensor_view"),
    "assume_div_by_3": ("%16 = assume div_by<16>, %0", "%16 = assume div_by<3>, %0",
                        "divisor must be a power of 2, got 3", "%16 = assume div_by<3>"),
    "a_64x63_constant": ("%22 = constant <i32: 128> : tile<64x64xi32>", "%22 = constant <i32: 128> : tile<64x63xi32>",
                         "all dimensions must be powers of two, got [64, 63]", "%22 = constant"),
    "the_entry_returns_the_accumulator": ("      return\n", "      return %51 : tile<64x64xi32>\n",
                                          "entry functions cannot return values", "return %51"),
    "an_i32_constant_of_2_pow_32": ("%25 = constant <i32: 127>", "%25 = constant <i32: 4294967296>",
                                    "integer constant out of range for type", "%25 = constant"),
}


test_a_cuda_tile_text_mistake_stops_at_its_line = text_mistake_tests(PROGRAMS, BASE, TEXT_MISTAKES)


OTHER_FILES = {
    # name: (file name, its bytes from the program's, words of the error)
    "mlir_bytecode": ("k.mlirbc", lambda d: b"ML\xefR\x00\x05\x01\x02" + d[8:],
                      "this is MLIR bytecode (an --emit-bytecode dump), not MLIR text"),
    "mlir_bytecode_named_mlir": ("k.mlir", lambda d: b"ML\xefR\x00\x05\x01\x02" + d[8:],
                                 "this is MLIR bytecode (an --emit-bytecode dump), not MLIR text"),
    "gzip_of_the_text": ("k.mlir.gz", lambda d: __import__("gzip").compress(b"module {}\n"),
                         "this is gzip-compressed data, not MLIR text: decompress it first"),
    "the_export_twice": ("k.tileirbc", lambda d: d + d, "end section is not the last section"),
    "half_the_export": ("k.tileirbc", lambda d: d[:len(d) // 2], "exceeds the remaining"),
    "the_version_255": ("k.tileirbc", lambda d: d[:8] + b"\xff\xff\xff" + d[11:],
                        "unsupported bytecode version 255.255.255 (newer than the newest this reader knows)"),
}


(test_another_binary_or_a_broken_export_exits_non_zero_naming_the_file, test_every_dropped_byte_exits_cleanly) = \
    other_file_tests(PROGRAMS, BASE, OTHER_FILES)
"""MLIR bytecode and gzip files were "invalid UTF-8 byte 0xef / 0x8b" at 1:3 / 1:2 (found by this sweep); now
``decode_source`` says what they are (diagnostics.OTHER_BINARIES).  Every 41st byte of the GEMM's bytecode dropped
in turn (CI time; this sweep ran every byte dropped and every third byte flipped: none gave a traceback)."""


# --------------------------------------------------------------------------------------------- launch mistakes


def _x(i, shape, dt="float32", strides=None, ptr=None):
    if strides is None and ptr is None:
        return _device_array(i, shape, dt)
    import numpy as np

    class Dev:
        __cuda_array_interface__ = {"data": (0x7F0000000000 + (i + 1) * 0x10000000 if ptr is None else ptr, False),
                                    "shape": tuple(shape), "typestr": np.dtype(dt).str, "strides": strides,
                                    "version": 3}

    return Dev()


class _NoData:
    __cuda_array_interface__ = {"shape": (100, 100), "typestr": "|i1", "version": 3}


I8 = "int8_gemm_int32_ragged_k"
_I8 = (_x(0, (100, 100), "int8"), _x(1, (100, 80), "int8"), _x(2, (100, 80), "int32"))
FD = "int_floordiv_mod_by_runtime_scalars"
_FD = (_x(0, (100,), "int32"), _x(1, (100,), "int32"), _x(2, (100,), "int32"), _x(3, (100,), "int64"))
F8 = "fp8_e4m3_gemm_rows_of_32"

LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "a_tile_of_48_rows": (I8, (2, 2), _I8 + (48, 64, 64), Exception,
                          "Dimension #0 of shape (48, 64) is not a power of two"),
    "a_negative_tile": (I8, (2, 2), _I8 + (-64, 64, 64), Exception, "Dimension #0 of shape (-64, 64) is not positive"),
    "a_float_tile": (I8, (2, 2), _I8 + (64.0, 64, 64), Exception,
                     "Expected a tuple of integers, but element #0 has type Tile[float32,()]"),
    "a_tile_of_2_pow_20_rows": (I8, (2, 2), _I8 + (1 << 20, 64, 64), "located",
                                "tile would exceed the maximum of 16777216 elements"),
    "an_int16_output_for_int32_sums": (I8, (2, 2), _I8[:2] + (_x(2, (100, 80), "int16"), 64, 64, 64), Exception,
                                       "cannot implicitly cast int32 to int16"),
    "a_3d_activation": (I8, (2, 2), (_x(0, (1, 100, 100), "int8"),) + _I8[1:] + (64, 64, 64), Exception,
                        "Index size 2 does not match the array rank 3"),
    "a_reversed_view": (I8, (2, 2), (_x(0, (100, 100), "int8", (-100, 1)),) + _I8[1:] + (64, 64, 64), ValueError,
                        "has strides (-100, 1) (in elements): a negative stride (a reversed view) is not supported"),
    "a_null_pointer": (I8, (2, 2), (_x(0, (100, 100), "int8", ptr=0),) + _I8[1:] + (64, 64, 64), ValueError,
                       "argument 0 ('A') has 10000 elements at address 0 (a null pointer)"),
    "an_interface_without_data": (I8, (2, 2), (_NoData(),) + _I8[1:] + (64, 64, 64), TypeError,
                                  "argument 0 ('A') has a malformed __cuda_array_interface__: no 'data' entry"),
    "a_four_axis_grid": (I8, (2, 2, 1, 1), _I8 + (64, 64, 64), ValueError,
                         "grid must be a tuple of 1 to 3 ints, got 4 of them"),
    "a_divisor_past_int32": (FD, (2,), _FD + (2**40, 5, 64), ValueError,
                             "argument 4 ('d') = 1099511627776 does not fit in int32; annotate the parameter with "
                             "ct.ScalarInt64"),
    "a_numpy_int64_divisor": (FD, (2,), _FD + (__import__("numpy").int64(-7), 5, 64), TypeError,
                              "argument 4 ('d') is a numpy int64 scalar: pass a Python int, float or bool"),
    "a_complex_divisor": (FD, (2,), _FD + (1j, 5, 64), TypeError,
                          "argument 4 ('d'): cannot pass a complex to a cuTile kernel"),
    "an_array_for_the_divisor": (FD, (2,), _FD + (_x(5, (1,), "int32"), 5, 64), Exception,
                                 "Unsupported operand types for //: Tile[int32,(64)] and Array[int32,(?):(?)]"),
    "a_block_of_63": (FD, (2,), _FD + (-7, 5, 63), Exception, "Dimension #0 of shape (63,) is not a power of two"),
    "fp8_bytes_passed_as_uint8": (F8, (3, 2), (_x(0, (70, 128), "uint8"), _x(1, (128, 80), "uint8"), _x(2, (70, 80)),
                                               32, 64, 32), Exception,
                                  "Unsupported acc dtype float32, supported dtypes are (<DType 'int32'>,)"),
    "a_1_element_array_for_the_0d_scale": ("scale_by_scalar_in_0d_and_1_element_arrays", (2,),
                                           (_x(0, (100,)), _x(1, (1,)), _x(2, ()), _x(3, (100,)), 64), Exception,
                                           "For array of rank 1, `indices` must be a tuple of length 1"),
}


(test_a_launch_mistake_raises_naming_what_is_wrong, test_the_launch_of_a_valid_program_gets_as_far_as_the_driver) = \
    launch_mistake_tests(PROGRAMS, LAUNCH_MISTAKES, SOURCE,
                         (I8, (2, 2), _I8 + (64, 64, 64), "no kernel named 'gemm_s8_s32"))
