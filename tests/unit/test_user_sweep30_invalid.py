"""The thirtieth user sweep's invalid inputs (``tileorch.testing.user_programs30``), through the shared skeletons of
invalid_sweep_checks.py:

* :data:`INVALID` programs (cuTile accepts them, tileorch cannot run them: a 0-d array written by a tiled store, a
  system-scope atomic add of a loss, int32 exponents converted straight to e8m0, a prefix sum and a product rounded
  toward zero, an fp4 e2m1 round trip): the located error at the user's line by the driver, ``tileorch compile``
  and ``tileorch.cutile.launch``;
* :data:`REJECTED_BY_CUTILE` (attention-shaped mistakes: an f16 Q against a bf16 K, P left f32 for the ``P V`` dot,
  a 2-D index into ``[BH, S, D]``, a head dim of 48 as a tile, a max over axis 2 of a 2-D tile, a runtime tile
  shape, an accumulator whose dtype changes in the loop; a GEMM accumulator of half the width; an f32 row stored
  into f16): cuTile's own error at the user's line;
* hand-written ``cuda_tile`` text of an attention kernel with one mistake each (:data:`TEXT_MISTAKES`: reshapes,
  reduce dims, identities and bodies, broadcasts, compares, selects, loop-carried values, view indices, block ids,
  ``mmaf`` accumulators, iota, permutations, integer ``divf``): ``tileorch compile`` exits non-zero with
  ``k.mlir:L:C: error:`` at the line of the mistake, no traceback;
* other files given as the program (:data:`OTHER_FILES`: a cubin, PTX, Python source, a zip, a BOM): a non-zero
  exit naming the file and what it is;
* launch mistakes at ``tileorch.cutile.launch`` (:data:`LAUNCH_MISTAKES`) on the attention program: an exception
  naming what is wrong, nothing launched."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs30  # noqa: E402
from tileorch.testing.user_programs30 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (_device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  invalid_text_and_launch_tests, launch_mistake_tests, other_file_tests,
                                  text_mistake_tests)

SOURCE = user_programs30.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["row_sum_stored_into_0d_array", "fake_quantize_fp4_e2m1"])
test_tileorch_compile_of_the_mlir_text_exits_non_zero_at_its_line, test_cutile_launch_stops_at_the_users_line = \
    invalid_text_and_launch_tests(INVALID, SOURCE, ["cumsum_rounded_toward_zero"])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)


BASE = "attn_natural_exp_max_subtracted"
"""The valid program whose ``cuda_tile`` text and bytecode the mistakes below edit (3-D Q / K / V / O views, a key
loop carrying the accumulator, the row max and the row sum, two ``mmaf``, reduces with bodies, a masked ``select``)."""

_LOOP_END = "continue %135, %128, %117 : tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>"
TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "reshape_of_k_to_128x32": ("%100 = reshape %98 : tile<1x64x64xf16> -> tile<64x64xf16>",
                               "%100 = reshape %98 : tile<1x64x64xf16> -> tile<128x32xf16>",
                               "previously used or defined with type !cuda_tile.tile<128x32xf16>", "%101 = permute"),
    "reduce_along_dim_2": ("%112 = reduce %111 dim=1", "%112 = reduce %111 dim=2",
                           "dim 2 is out of range for operands of rank 2", "%112 = reduce %111 dim=2"),
    "reduce_identity_i32": ("identities=[0xff800000 : f32]", "identities=[0 : i32]",
                            "identity #0 type must match operand element type f32", "%112 = reduce"),
    "max_reduce_yielding_an_i32": ("%115 = maxf %113, %114 : tile<f32>\n          yield %115 : tile<f32>",
                                   "%115 = maxf %113, %114 : tile<f32>\n          yield %62 : tile<i32>",
                                   "'yield' must return one scalar tile per operand with its element type",
                                   "yield %62"),
    "broadcast_of_the_rescale_to_32_rows": ("%133 = broadcast %122 : tile<64x1xf32> -> tile<64x64xf32>",
                                            "%133 = broadcast %122 : tile<64x1xf32> -> tile<32x64xf32>",
                                            "previously used or defined with type !cuda_tile.tile<32x64xf32>",
                                            "%134 = mulf %95, %133"),
    "cmpi_declared_i32": ("%109 = cmpi less_than %108, %87, signed : tile<1x64xi32> -> tile<1x64xi1>",
                          "%109 = cmpi less_than %108, %87, signed : tile<1x64xi32> -> tile<1x64xi32>",
                          "previously used or defined with type !cuda_tile.tile<1x64xi32>", "%110 = broadcast %109"),
    "select_on_the_scores": ("%111 = select %110, %103, %90 : tile<64x64xi1>",
                             "%111 = select %103, %103, %90 : tile<64x64xf32>",
                             "operand #0 must be tile of i1 values, but got 'tile<64x64xf32>'", "%111 = select %103"),
    "continue_two_of_three": (_LOOP_END, "continue %135, %128 : tile<64x64xf32>, tile<64x1xf32>",
                              "'continue' has 2 operands, but its parent expects 3", "continue %135, %128 :"),
    "continue_p_for_the_max": (_LOOP_END, "continue %135, %128, %120 : tile<64x64xf32>, tile<64x1xf32>, "
                               "tile<64x64xf32>", "'continue' operand #2 has type tile<64x64xf32>, but its parent "
                               "expects tile<64x1xf32>", "continue %135, %128, %120"),
    "k_load_without_the_column_index": ("load_view_tko weak %81[%67, %94, %80]", "load_view_tko weak %81[%67, %94]",
                                        "expected 3 index operands (based on view type), got 2", "%81[%67, %94]"),
    "o_stored_as_the_2d_tile": ("%142 = store_view_tko weak %140, %141[%67, %63, %136] token = %29 : "
                                "tile<1x64x64xf16>", "%142 = store_view_tko weak %139, %141[%67, %63, %136] token = "
                                "%29 : tile<64x64xf16>", "expected tile type to be tile<1x64x64xf16> (based on view "
                                "type), got tile<64x64xf16>", "%142 = store_view_tko"),
    "block_id_bound_to_four_names": ("%63, %64, %65 = get_tile_block_id", "%63, %64, %65, %200 = get_tile_block_id",
                                     "Operation has 3 results, but was given 4 to bind", "%63, %64, %65, %200"),
    "mmaf_into_an_f16_accumulator": ("%102 = mmaf %73, %101, %82 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>",
                                     "%200 = constant <f16: 0.0> : tile<64x64xf16>\n        %102 = mmaf %73, %101, "
                                     "%200 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf16>",
                                     "previously used or defined with type !cuda_tile.tile<64x64xf16>",
                                     "%103 = mulf %102"),
    "iota_of_63": ("%85 = iota : tile<64xi32>", "%85 = iota : tile<63xi32>",
                   "all dimensions must be powers of two, got [63]", "%85 = iota"),
    "divf_of_the_key_index": ("%104 = muli %94, %62 : tile<i32>", "%104 = divf %94, %62 : tile<i32>",
                              "operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got 'tile<i32>'",
                              "%104 = divf"),
    "maxf_of_the_unreshaped_row_max": ("%117 = maxf %97, %116 : tile<64x1xf32>", "%117 = maxf %97, %112 : "
                                       "tile<64x1xf32>", "previously used or defined with type "
                                       "!cuda_tile.tile<64xf32>", "%117 = maxf %97, %112"),
    "permute_0_0": ("%101 = permute %100 [1, 0]", "%101 = permute %100 [0, 0]",
                    "permutation must be a permutation of [0, rank)", "%101 = permute %100 [0, 0]"),
    "a_value_never_defined": ("%117 = maxf %97, %116 : tile<64x1xf32>", "%117 = maxf %97, %300 : tile<64x1xf32>",
                              "use of undeclared SSA value name '%300'", "%117 = maxf %97, %300"),
    "a_rank_4_tile_of_the_q_view": ("%70 = make_partition_view %43 : partition_view<tile=(1x64x64)",
                                    "%70 = make_partition_view %43 : partition_view<tile=(1x64x64x1)",
                                    "expected tensor_view rank and tile rank to match, got tensor_view of rank 3 and "
                                    "tiles of rank 4", "%70 = make_partition_view"),
    "a_float_loop_step": ("%79 = constant <i32: 1> : tile<i32>", "%79 = constant <f32: 1.0> : tile<f32>",
                          "previously used or defined with type !cuda_tile.tile<f32>", "for %94 in"),
    "q_view_of_i32_elements": ("%43 = make_tensor_view %30, shape = [%38, %39, %40], strides = [%41, %42, 1] : "
                               "tile<i32> -> tensor_view<?x?x?xf16", "%43 = make_tensor_view %30, shape = [%38, %39, "
                               "%40], strides = [%41, %42, 1] : tile<i32> -> tensor_view<?x?x?xi32",
                               "previously used or defined with type !cuda_tile.tile<ptr<f16>>",
                               "%43 = make_tensor_view"),
}

test_a_cuda_tile_text_mistake_stops_at_its_line = text_mistake_tests(PROGRAMS, BASE, TEXT_MISTAKES)


OTHER_FILES = {
    # name: (file name, its bytes from the program's, words of the error)
    "a_cubin": ("k.cubin", lambda d: b"\x7fELF\x02\x01\x01\x33" + bytes(56),
                "this is an ELF file (a cubin or another compiled binary), not MLIR text"),
    "ptx_named_mlir": ("k.mlir", lambda d: b"//\n.version 8.0\n.target sm_90a\n.address_size 64\n",
                       "this is PTX (it starts with a .version or .target directive), not MLIR text"),
    "the_kernel_source": ("attn.py", lambda d: b"import cuda.tile as ct\n\n@ct.kernel\ndef f(X):\n    pass\n",
                          "attn.py is Python source; tileorch compiles MLIR text or CUDA Tile IR"),
    "a_zip_of_the_export": ("k.zip", lambda d: b"PK\x03\x04" + d[:64], "this is a zip archive, not MLIR text"),
    "text_with_a_bom": ("k.mlir", lambda d: b"\xef\xbb\xbfbuiltin.module {}\n", "unexpected byte-order mark (U+FEFF)"),
}

(test_another_binary_or_a_broken_export_exits_non_zero_naming_the_file, test_every_dropped_byte_exits_cleanly) = \
    other_file_tests(PROGRAMS, BASE, OTHER_FILES, every=97)


def _x(i, shape, dt="float16"):
    return _device_array(i, shape, dt)


_ATT = tuple(_x(i, (2, 150, 64)) for i in range(4))
LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "query_tiles_of_48": (BASE, (4, 2), _ATT + (0.125, 48, 64, 64), Exception,
                          "Dimension #1 of shape (1, 48, 64) is not a power of two"),
    "a_numpy_float32_scale": (BASE, (3, 2), _ATT + (__import__("numpy").float32(0.125), 64, 64, 64), TypeError,
                              "argument 4 ('sm_scale') is a numpy float32 scalar: pass a Python int, float or bool"),
    "k_as_bhsd_4d": (BASE, (3, 2), (_ATT[0], _x(1, (1, 2, 150, 64))) + _ATT[2:] + (0.125, 64, 64, 64), Exception,
                     "Index size 3 does not match the array rank 4"),
    "k_in_f32": (BASE, (3, 2), (_ATT[0], _x(1, (2, 150, 64), "float32")) + _ATT[2:] + (0.125, 64, 64, 64),
                  Exception, "x and y must have the same dtype unless they are int8/uint8, got float16 float32"),
    "the_scale_as_an_array": (BASE, (3, 2), _ATT + (_x(4, (1,), "float32"), 64, 64, 64), Exception,
                              "Unsupported operand types for *: Tile[float32,(64,64)] and Array[float32,(?):(?)]"),
    "a_four_axis_grid": (BASE, (3, 2, 1, 1), _ATT + (0.125, 64, 64, 64), ValueError,
                         "grid must be a tuple of 1 to 3 ints, got 4 of them"),
    "a_head_dim_tile_of_0": (BASE, (3, 2), _ATT + (0.125, 64, 64, 0), Exception,
                             "Dimension #2 of shape (1, 64, 0) is not positive"),
}

(test_a_launch_mistake_raises_naming_what_is_wrong, test_the_launch_of_a_valid_program_gets_as_far_as_the_driver) = \
    launch_mistake_tests(PROGRAMS, LAUNCH_MISTAKES, SOURCE,
                         (BASE, (3, 2), _ATT + (0.125, 64, 64, 64),
                          # the module load; on a host without cuda-python, the tensor maps' encoding before it
                          ("no kernel named", "No module named 'cuda.bindings'")))
