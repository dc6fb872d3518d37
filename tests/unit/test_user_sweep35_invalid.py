"""The thirty-fifth user sweep's invalid inputs (``tileorch.testing.user_programs35``), through the shared skeletons
of invalid_sweep_checks.py:

* :data:`INVALID` programs (cuTile accepts them, tileorch cannot run them: a 2-D accumulator stored at a 3-index
  position of a 3-D output, attention with a 1024-row query tile): the located error at the user's line by the
  driver, ``tileorch compile`` and ``tileorch.cutile.launch``;
* :data:`REJECTED_BY_CUTILE` (the mistakes of users porting torch / Triton code to the samples' API: ``ct.sigmoid``,
  a load index of the wrong arity, a tile of 300 columns, f16 x f32 and an int32 accumulator of f16 ``mma``, ``mma``
  without an accumulator, a tile shape from the array's runtime shape, ``ct.bid(3)``, a padding mode given as a
  string, ``cdiv`` of a float, a scatter of a matrix at vector indices, ``value=`` for ``tile=``, ``axis=2`` of a
  row, ``transpose`` of a 3-D tile without axes, a constant argument reassigned to a non-power of two, a float added
  atomically into int32 counts, a kernel returning a tile, ``ct.num_blocks(-1)``): cuTile's own error at the user's
  line;
* hand-written ``cuda_tile`` text of the split-K GEMM with one mistake each (:data:`TEXT_MISTAKES`): ``tileorch
  compile`` exits non-zero with ``k.mlir:L:C: error:`` at the line of the mistake, no traceback;
* other files given as the program (:data:`OTHER_FILES`): a NumPy array and a pickle (found by this sweep: "invalid
  UTF-8 byte 0x93" / "0x80"; now named), a Python source, a truncated export;
* launch mistakes at ``tileorch.cutile.launch`` (:data:`LAUNCH_MISTAKES`) on the split-K GEMM: an exception naming
  what is wrong, nothing launched."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs35  # noqa: E402
from tileorch.testing.user_programs35 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (_device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  invalid_text_and_launch_tests, launch_mistake_tests, other_file_tests,
                                  text_mistake_tests)

SOURCE = user_programs35.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["store_of_a_wrong_tile_shape_in_a_loop"])
_text_route, test_cutile_launch_stops_at_the_users_line = invalid_text_and_launch_tests(INVALID, SOURCE, [])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)

BASE = "split_k_atomic_add_f32"
"""The valid program whose ``cuda_tile`` text the mistakes below edit (``assume``, a ``for`` from the split's first K
tile, ``mmaf``, ``iota`` / ``exti`` / ``cmpi`` / ``andi`` index tiles, ``offset``, ``atomic_rmw_tko``)."""

TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "atomic_rmw_weak": ("atomic_rmw_tko acq_rel device", "atomic_rmw_tko weak device",
                        "memory ordering semantics 'weak' is not allowed for atomics", "atomic_rmw_tko weak"),
    "atomic_rmw_mode_fadd": ("acq_rel device %102, addf,", "acq_rel device %102, fadd,",
                             "expected 'mode' to be one of: 'and', 'or', 'xor', 'add', 'addf'", ", fadd,"),
    "assume_div_by_0": ("%18 = assume div_by<16>, %10", "%18 = assume div_by<0>, %10", "divisor must be positive",
                        "assume div_by<0>"),
    "assume_bounded_5_to_2": ("%30 = assume bounded<0, ?>, %11", "%30 = assume bounded<5, 2>, %11",
                              "lower bound (5) must not exceed upper bound (2)", "assume bounded<5, 2>"),
    "constant_of_i32_for_an_f32_tile": ("%48 = constant <f32: 0.000000e+00> : tile<64x64xf32>",
                                        "%48 = constant <i32: 0> : tile<64x64xf32>",
                                        "mismatch between the element type: i32 and the tile element type f32",
                                        "%48 = constant <i32: 0>"),
    "cmpi_less_then": ("%86 = cmpi less_than %82, %85, unsigned", "%86 = cmpi less_then %82, %85, unsigned",
                       "expected 'comparison_predicate' to be one of", "cmpi less_then"),
    "a_loop_result_past_the_three": ("%103 = join_tokens %15, %57#1, %57#2", "%103 = join_tokens %15, %57#1, %57#3",
                                     "Tuple is of size 3 but tried to access element 3", "%57#3"),
    "yield_ends_the_for": ("continue %68, %64, %67", "yield %68, %64, %67",
                           "'cuda_tile.yield' expects parent op to be one of", "yield %68, %64, %67"),
    "num_cta_in_cga_3": ("optimization_hints=<default = {}>", "optimization_hints=<sm_90 = {num_cta_in_cga = 3}>",
                         "optimization hint num_cta_in_cga = 3 for sm_90 must be a power of two in [1, 16]",
                         "num_cta_in_cga = 3"),
    "occupancy_0": ("optimization_hints=<default = {}>", "optimization_hints=<sm_90 = {occupancy = 0}>",
                    "optimization hint occupancy = 0 for sm_90 must be in [1, 32]", "occupancy = 0"),
    "tensor_view_inner_stride_2": ("strides = [%24, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>",
                                   "strides = [%24, 2] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>",
                                   "input strides dimension 1 does not match tensor_view type (expected 1, got 2)",
                                   "strides = [%24, 2]"),
    "partition_tile_64x48": ("%55 = make_partition_view %25 : partition_view<tile=(64x64)",
                             "%55 = make_partition_view %25 : partition_view<tile=(64x48)",
                             "tile shape dimensions must have power of two length but got [64, 48]", "tile=(64x48)"),
}

test_a_cuda_tile_text_mistake_stops_at_its_line = text_mistake_tests(PROGRAMS, BASE, TEXT_MISTAKES)

_PY = b"import cuda.tile as ct\n\n\n@ct.kernel\ndef k(X):\n    pass\n"
OTHER_FILES = {
    # name: (file name, its bytes from the program's, words of the error)
    # found by this sweep: was "invalid UTF-8 byte 0x93 (the input must be UTF-8 text)"
    "a_numpy_array": ("k.npy", lambda d: b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'shape': (3,), }\n",
                      "this is a NumPy array file (.npy), not MLIR text"),
    # found by this sweep: was "invalid UTF-8 byte 0x80 (the input must be UTF-8 text)"
    "a_pickle": ("k.pt", lambda d: b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94.",
                 "this is a Python pickle (protocol 4: torch.save / pickle.dump output), not MLIR text"),
    "the_python_source": ("k.py", lambda d: _PY, "Run a cuTile kernel with tileorch.cutile.launch"),
    "the_export_cut_after_its_magic": ("k.tileirbc", lambda d: d[:8], "unexpected end of bytecode"),
}

(test_another_binary_or_a_broken_export_exits_non_zero_naming_the_file, test_every_dropped_byte_exits_cleanly) = \
    other_file_tests(PROGRAMS, BASE, OTHER_FILES, every=397)


def _x(i, shape, dt="float16"):
    return _device_array(i, shape, dt)


LAUNCHED = "split_k_atomic_add_f32"
_OK = (_x(0, (100, 320)), _x(1, (320, 80)), _x(2, (100, 80), "float32"), 2, 64, 64, 64)
LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "a_tile_k_of_96": (LAUNCHED, (2, 2, 2), _OK[:6] + (96,), Exception, "is not a power of two"),
    "split_k_left_out": (LAUNCHED, (2, 2, 2), _OK[:3] + _OK[4:], TypeError,
                         "kernel 'split_k_atomic_add_f32' takes 7 arguments"),
    "a_grid_of_no_splits": (LAUNCHED, (2, 2, 0), _OK, ValueError, "grid extents must be positive"),
    "c_on_b": (LAUNCHED, (2, 2, 2), _OK[:2] + (_x(1, (100, 80), "float32"),) + _OK[3:], ValueError,
               "argument 2 ('C') shares memory with argument 1 ('B')"),
}

(test_a_launch_mistake_raises_naming_what_is_wrong, test_the_launch_of_a_valid_program_gets_as_far_as_the_driver) = \
    launch_mistake_tests(PROGRAMS, LAUNCH_MISTAKES, SOURCE,
                         (LAUNCHED, (2, 2, 2), _OK, ("no kernel named", "No module named 'cuda.bindings'")))


def test_the_sweep_has_its_invalid_inputs():
    """About 35 invalid inputs (the brief): cuTile's refusals, tileorch's located refusals, text mistakes, other files
    and launch mistakes."""
    assert len(REJECTED_BY_CUTILE) + len(INVALID) + len(TEXT_MISTAKES) + len(OTHER_FILES) + len(LAUNCH_MISTAKES) >= 35
