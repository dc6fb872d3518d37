"""The twenty-eighth user sweep's invalid inputs (``tileorch.testing.user_programs28``), kinds the invalid halves of
sweeps 17 to 27 did not try:

* :data:`INVALID` programs (cuTile accepts them, tileorch cannot run them: a 4-bit float, a prefix sum rounded toward
  zero, system-scope atomics): the located error at the user's line by the driver, ``tileorch compile`` and
  ``tileorch.cutile.launch``;
* :data:`REJECTED_BY_CUTILE`: cuTile's own error at the user's line;
* hand-written ``cuda_tile`` text of a softmax with one mistake each (:data:`TEXT_MISTAKES`: reductions, views,
  assumptions, constants, tokens, an unterminated module): ``tileorch compile`` exits non-zero with
  ``k.mlir:L:C: error:`` at the line of the mistake, no traceback;
* malformed bytecode files (:data:`BYTECODE_MISTAKES`): a non-zero exit naming the file, no traceback;
* launch mistakes at ``tileorch.cutile.launch`` (:data:`LAUNCH_MISTAKES`: arity, grids, scalars, host arrays,
  ranks and dtypes): an exception naming what is wrong, nothing launched."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs28  # noqa: E402
from tileorch.testing.user_programs28 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (_device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  invalid_text_and_launch_tests, launch_mistake_tests, other_file_tests,
                                  text_mistake_tests)

SOURCE = user_programs28.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["fp4_e2m1_fake_quantize", "counts_by_system_scope_atomics"])
test_tileorch_compile_of_the_mlir_text_exits_non_zero_at_its_line, test_cutile_launch_stops_at_the_users_line = \
    invalid_text_and_launch_tests(INVALID, SOURCE, ["cumsum_rounded_toward_zero"])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)



BASE = "softmax_with_temperature"
"""The valid program whose ``cuda_tile`` text and bytecode the mistakes below edit (views with a NEG_INF padding,
a launch-time f32 scalar, two reductions with bodies, a tile store)."""

_END = "      return\n    }\n  }\n}"
TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "reduce_identity_of_another_type": ("identities=[0xff800000 : f32]", "identities=[0 : i32]",
                                        "identity #0 type must match operand element type f32", "%34 = reduce"),
    "reduce_dim_past_the_rank": ("%34 = reduce %33 dim=1", "%34 = reduce %33 dim=2",
                                 "dim 2 is out of range for operands of rank 2", "%34 = reduce %33 dim=2"),
    "reduce_body_yielding_two_values": ("yield %37 : tile<f32>", "yield %37, %37 : tile<f32>, tile<f32>",
                                        "'yield' must return one scalar tile per operand", "yield %37, %37"),
    "reduce_body_without_its_yield": ("        %37 = maxf %35, %36 : tile<f32>\n        yield %37 : tile<f32>\n",
                                      "        %37 = maxf %35, %36 : tile<f32>\n",
                                      "terminates block in single-block region but is not a terminator",
                                      "%37 = maxf"),
    "divf_by_the_unbroadcast_scalar": ("%33 = divf %29, %32  : tile<1x128xf32>", "%33 = divf %29, %31  : "
                                       "tile<1x128xf32>", "previously used or defined with type "
                                       "!cuda_tile.tile<1x1xf32>", "%33 = divf %29, %31"),
    "padding_value_neg_one": ("%28 = make_partition_view %19 : partition_view<tile=(1x128), padding_value = neg_inf,",
                              "%28 = make_partition_view %19 : partition_view<tile=(1x128), padding_value = neg_one,",
                              "Got \"neg_one\" but expect one of: zero, neg_zero, nan, pos_inf, neg_inf",
                              "%28 = make_partition_view"),
    "exp3_an_unregistered_op": ("%41 = exp %40", "%41 = exp3 %40", "Operation exp3 is not registered", "%41 = exp3"),
    "the_module_left_open": (_END, "      return\n    }\n", "a '}' is missing", ""),
    "an_f17_element_type": ("%49 = divf %41, %48  : tile<1x128xf32>", "%49 = divf %41, %48  : tile<1x128xf17>",
                            "expected element type", "%49 = divf"),
    "assume_div_by_zero": ("%12 = assume div_by<16>, %0", "%12 = assume div_by<0>, %0",
                           "divisor must be positive, got 0", "%12 = assume div_by<0>"),
    "tensor_view_given_three_extents": ("shape = [%16, %17], strides = [%18, 1]",
                                        "shape = [%16, %17, %18], strides = [%18, 1]",
                                        "expected shape declaration to contain 2 elements due to tensor_view type",
                                        "%19 = make_tensor_view"),
    "an_i32_constant_of_one_half": ("%27 = constant <i32: 0> : tile<i32>", "%27 = constant <i32: 0.5> : tile<i32>",
                                    "expected integer value", "%27 = constant <i32: 0.5>"),
    "bounded_above_below_its_lower_bound": ("%16 = assume bounded<0, ?>, %1", "%16 = assume bounded<5, 2>, %1",
                                            "lower bound (5) must not exceed upper bound (2)",
                                            "%16 = assume bounded<5, 2>"),
    "a_tile_for_the_load_token": ("token = %11 : partition_view<tile=(1x128), padding_value",
                                  "token = %24 : partition_view<tile=(1x128), padding_value",
                                  "used with type !cuda_tile.token, but has been previously used or defined with type "
                                  "!cuda_tile.tile<i32>", "%29, %30 = load_view_tko"),
    "an_f16_store_into_the_f32_view": ("%51 = store_view_tko weak %49, %50[%24, %42] token = %11 : tile<1x128xf32>",
                                       "%51 = store_view_tko weak %49, %50[%24, %42] token = %11 : tile<1x128xf16>",
                                       "previously used or defined with type !cuda_tile.tile<1x128xf32>",
                                       "%51 = store_view_tko"),
}


test_a_cuda_tile_text_mistake_stops_at_its_line = text_mistake_tests(PROGRAMS, BASE, TEXT_MISTAKES)


def _name_with_a_nul(d: bytes) -> bytes:
    """The kernel's (mangled) name in the string table with its 17th byte zeroed."""
    at = d.index(b"softmax_with_temperature_Kt1") + 16
    return d[:at] + b"\0" + d[at + 1:]


BYTECODE_MISTAKES = {
    # name: (file name, its bytes from the program's, words of the error[, the file the error names instead])
    "an_empty_file": ("k.tileirbc", lambda d: b"", "is empty: CUDA Tile IR bytecode starts with the 8-byte magic "
                      "number"),
    "an_elf_header": ("k.tileirbc", lambda d: b"\x7fELF" + d[4:], "it starts with 7f 45 4c 46"),
    "the_magic_number_alone": ("k.tileirbc", lambda d: d[:8], "at offset 8: unexpected end of bytecode"),
    "bytes_after_the_end_section": ("k.tileirbc", lambda d: d + b"\x01\x02\x03garbage", "end section is not the "
                                    "last section (10 bytes follow it)"),
    "a_nul_in_the_kernel_name": ("k.tileirbc", _name_with_a_nul, "is not a valid PTX identifier",
                                 SOURCE),  # (a debug location)
}

# Each byte of the program's bytecode in turn (every 37th: CI time) flipped: ``tileorch compile`` either compiles (a
# constant's bits changed) or exits non-zero with a located error, never a traceback or an internal error (this
# sweep ran every byte flipped, zeroed and dropped: none did).
test_malformed_bytecode_exits_non_zero_naming_the_file, test_every_one_byte_corruption_exits_cleanly = \
    other_file_tests(PROGRAMS, BASE, BYTECODE_MISTAKES, every=37, corrupt="flip")


# --------------------------------------------------------------------------------------------- launch mistakes


def _x(i, shape, dt="float32"):
    return _device_array(i, shape, dt)


ST = "softmax_with_temperature"
_ST = (_x(0, (5, 100)), _x(1, (5, 100)), 0.7, 128)
MP = "masked_mean_pool_by_lengths"
_MP = (_x(0, (4, 20, 32)), _x(1, (4,), "int32"), _x(2, (4, 32)), 8, 32)
HI = "histogram_int32_atomic_bins"
_HI = (_x(0, (300,)), _x(1, (16,), "int32"), -2.0, 2.0, 16, 128)
SW = "swiglu_two_dots_of_one_a_tile"
_SW = (_x(0, (130, 64), "float16"), _x(1, (64, 96), "float16"), _x(2, (64, 96), "float16"),
       _x(3, (130, 96), "float16"), 64, 64, 32)
DF = "defaults_scale_and_tile"
_ARITY = "kernel 'softmax_with_temperature' takes 4 arguments (X, Y, temperature, BN), got "
_SEE = "(arrays must be torch/cupy GPU tensors or DLPack GPU arrays; scalars Python int, float or bool)"

LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "one_argument_too_many": (ST, (5,), _ST + (1,), TypeError, _ARITY + "5"),
    "one_argument_too_few": (ST, (5,), _ST[:3], TypeError, _ARITY + "3"),
    "the_defaults_left_out": (DF, (2,), (_x(0, (100,)), _x(1, (100,))), TypeError,  # (cuTile's launch counts too)
                              "kernel 'defaults_scale_and_tile' takes 4 arguments (X, Y, scale, BN), got 2"),
    "a_grid_of_zero_programs": (ST, (0,), _ST, ValueError, "grid extents must be positive, got (0,)"),
    "a_negative_grid_extent": (ST, (-5,), _ST, ValueError, "grid extents must be positive, got (-5,)"),
    "a_float_grid": (ST, (5.0,), _ST, TypeError, "grid must be a tuple of 1 to 3 ints, got (5.0,)"),
    "a_grid_past_2_pow_31": (ST, (2**31,), _ST, ValueError, "grid (2147483648,) exceeds what CUDA launches"),
    "a_grid_y_past_65535": (SW, (3, 70000), _SW, ValueError, "y and z at most 65535"),
    "a_string_for_the_temperature": (ST, (5,), _ST[:2] + ("0.7",) + _ST[3:], TypeError,
                                     "argument 2 ('temperature'): cannot pass a str to a cuTile kernel " + _SEE),
    "none_for_an_array": (ST, (5,), (None,) + _ST[1:], TypeError,
                          "argument 0 ('X'): cannot pass a NoneType to a cuTile kernel"),
    "a_numpy_array_in_host_memory": (ST, (5,), (np.zeros((5, 100), np.float32),) + _ST[1:], TypeError,
                                     "argument 0 ('X') is a numpy array, in host memory: cuTile kernels take GPU "
                                     "arrays; copy it to the GPU first"),
    "an_int_for_an_array": (ST, (5,), (3,) + _ST[1:], Exception,
                            "Invalid argument #1 of load(): Expected an array, but given value has type "
                            "Tile[int32,()]"),
    "a_0d_array_for_a_2d_one": (ST, (5,), (_x(0, ()),) + _ST[1:], Exception,
                                "Index size 2 does not match the array rank 0"),
    "a_2d_lengths_array": (MP, (4,), _MP[:1] + (_x(1, (4, 1), "int32"),) + _MP[2:], Exception,
                           "Index size 1 does not match the array rank 2"),
    "bool_counts_for_the_histogram": (HI, (3,), _HI[:1] + (_x(1, (16,), "bool"),) + _HI[2:], Exception,
                                      "Unsupported array dtype: bool_"),
    "an_f64_up_weight_beside_f16": (SW, (3, 2), _SW[:2] + (_x(2, (64, 96), "float64"),) + _SW[3:], Exception,
                                    "x and y must have the same dtype unless they are int8/uint8, got float16 float64"),
    "a_uint64_array_under_neg_inf_padding": (ST, (5,), (_x(0, (5, 100), "uint64"),) + _ST[1:], "located",
                                             "padding_value neg_inf can only be used with floating point "
                                             "element types"),
}


# The control: the same arguments, right, reach the (fake) driver's module load -- so each mistake is what stopped
# its launch.
test_a_launch_mistake_raises_naming_what_is_wrong, test_the_launch_of_a_valid_program_gets_as_far_as_the_driver = \
    launch_mistake_tests(PROGRAMS, LAUNCH_MISTAKES, SOURCE, (ST, (5,), _ST, f"no kernel named '{ST}_"))
