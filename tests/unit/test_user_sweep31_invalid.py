"""The thirty-first user sweep's invalid inputs (``tileorch.testing.user_programs31``), through the shared skeletons
of invalid_sweep_checks.py:

* :data:`INVALID` programs (cuTile accepts them, tileorch cannot run them: an MXFP8 GEMM by ``ct.mma_scaled`` -- found
  by this sweep: its error did not say why, now "block-scaled MMA ... is a Blackwell (sm_100) instruction" --, a
  system-scope ``atomic_max``): the located error at the user's line by the driver, ``tileorch compile`` and
  ``tileorch.cutile.launch``;
* :data:`REJECTED_BY_CUTILE` (a fourth grid axis, an ``arange`` of 48, a reshape changing the element count, a float
  atomic index, a float tile shape, a prefix sum over a missing axis, dots whose K or accumulator disagree, a
  repeated permutation axis, a 2-D index into a 3-D output, a returned tile, ``ct.mma`` of vectors): cuTile's own
  error at the user's line;
* hand-written ``cuda_tile`` text of a split-K GEMM with one mistake each (:data:`TEXT_MISTAKES`: atomics' mode,
  ordering, scope and mask, ``mmaf`` operands, a ``for`` without its ``continue`` (a missing terminator) or with a
  float bound or two of three carried values, constants out of their type's range, tiles not powers of two, strides,
  a returning entry, ``offset`` / ``join_tokens`` / ``divi`` / ``cmpi`` operands, optimization hints): ``tileorch
  compile`` exits non-zero with ``k.mlir:L:C: error:`` at the line of the mistake, no traceback;
* what is *not* a mistake in CUDA Tile IR: an ``entry`` whose ``return`` is left out (the dialect gives ``entry``
  an implicit ``return`` terminator: session 38 noticed it compiles; it compiles to the same PTX), an f32 constant
  past the type's range (it is infinity, as the dialect's own tests print it);
* launch mistakes at ``tileorch.cutile.launch`` (:data:`LAUNCH_MISTAKES`) on the split-K program: an exception naming
  what is wrong, nothing launched."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs31  # noqa: E402
from tileorch.testing.user_programs31 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (_device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  invalid_text_and_launch_tests, launch_mistake_tests, text_mistake_tests)

SOURCE = user_programs31.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["mxfp8_gemm_by_mma_scaled"])
test_tileorch_compile_of_the_mlir_text_exits_non_zero_at_its_line, test_cutile_launch_stops_at_the_users_line = \
    invalid_text_and_launch_tests(INVALID, SOURCE, ["global_max_by_system_scope_atomic"])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)


BASE = "split_k_by_hand_atomic_f32_runtime_split"
"""The valid program whose ``cuda_tile`` text the mistakes below edit (2-D views, a K loop of a runtime step carrying
the accumulator and two tokens, ``mmaf``, index tiles by ``iota`` / ``broadcast`` / ``exti``, ``offset`` and an
``atomic_rmw_tko`` of f32 adds)."""

_ATOMIC = "atomic_rmw_tko acq_rel device %97, addf, %52#0, %92, token=%98"
_LOOP = "for %53 in (%44 to %49, step %47)"
_DIVI = "%49 = divi %23, %35 signed rounding<positive_inf>"
_SAME = "but has been previously used or defined with type"
TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "atomic_mode_addi_of_f32": ("addf, %52#0", "addi, %52#0", "expected 'mode' to be one of: 'and', 'or', 'xor', "
                                "'add', 'addf'", "atomic_rmw_tko acq_rel device %97, addi"),
    "atomic_weak_ordering": ("atomic_rmw_tko acq_rel device", "atomic_rmw_tko weak device",
                             "memory ordering semantics 'weak' is not allowed for atomics", "atomic_rmw_tko weak"),
    "atomic_cluster_scope": ("atomic_rmw_tko acq_rel device", "atomic_rmw_tko acq_rel cluster",
                             "expected 'memory_scope' to be one of: 'tl_blk', 'device', 'sys'",
                             "atomic_rmw_tko acq_rel cluster"),
    "atomic_mask_of_the_offsets": (_ATOMIC, _ATOMIC.replace("%92,", "%94,"), _SAME + " !cuda_tile.tile<64x64xi64>",
                                   "%52#0, %94, token"),
    "mmaf_of_a_and_a": ("%63 = mmaf %57, %60, %54", "%63 = mmaf %57, %57, %54",
                        _SAME + " !cuda_tile.tile<64x32xf16>", "%63 = mmaf %57, %57"),
    "for_without_its_continue": ("        continue %63, %59, %62 : tile<64x64xf32>, token, token\n", "",
                                 "'continue' has 0 operands, but its parent expects 3", _LOOP),
    "for_bound_of_the_f32_zeros": (_LOOP, _LOOP.replace("%49", "%48"), _SAME + " !cuda_tile.tile<64x64xf32>",
                                   "for %53 in (%44 to %48"),
    "for_carrying_two_of_three": ("iter_values(%54 = %48, %55 = %15, %56 = %15)", "iter_values(%54 = %48, %55 = %15)",
                                  "mismatch in number of loop-carried values and defined values", _LOOP),
    "iota_of_48": ("%65 = iota : tile<64xi32>", "%65 = iota : tile<48xi32>",
                   "all dimensions must be powers of two, got [48]", "%65 = iota"),
    "i32_constant_of_2_pow_32": ("%33 = constant <i32: 64>", "%33 = constant <i32: 4294967296>",
                                 "integer constant out of range for type", "%33 = constant"),
    "i32_constant_below_its_minimum": ("%33 = constant <i32: 64>", "%33 = constant <i32: -2147483649>",
                                       "integer constant out of range for type", "%33 = constant"),
    "i8_constant_of_300": ("%19 = constant <i32: 1> : tile<i32>", "%19 = constant <i8: 300> : tile<i8>",
                           "integer constant out of range for type", "%19 = constant <i8: 300>"),
    "a_tile_of_64x48": ("%50 = make_partition_view %25 : partition_view<tile=(64x32)",
                        "%50 = make_partition_view %25 : partition_view<tile=(64x48)",
                        "tile shape dimensions must have power of two length but got [64, 48]", "%50 = make_partition"),
    "a_rank_1_tile_of_a_2d_view": ("%50 = make_partition_view %25 : partition_view<tile=(64x32)",
                                   "%50 = make_partition_view %25 : partition_view<tile=(64)",
                                   "expected tensor_view rank and tile rank to match, got tensor_view of rank 2 and "
                                   "tiles of rank 1", "%50 = make_partition"),
    "inner_stride_of_2": ("shape = [%22, %23], strides = [%24, 1]", "shape = [%22, %23], strides = [%24, 2]",
                          "input strides dimension 1 does not match tensor_view type (expected 1, got 2)",
                          "%25 = make_tensor_view"),
    "entry_returning_a_value": ("      return\n", "      return %19 : tile<i32>\n",
                                "entry functions cannot return values", "return %19"),
    "offset_by_f32": ("%97 = offset %96, %94 : tile<64x64xptr<f32>>, tile<64x64xi64>",
                      "%97 = offset %96, %48 : tile<64x64xptr<f32>>, tile<64x64xf32>",
                      "operand #1 must be tile of i1 or i8 or i16 or i32 or i64 values, but got 'tile<64x64xf32>'",
                      "%97 = offset"),
    "join_tokens_of_the_accumulator": ("%98 = join_tokens %15, %52#1, %52#2 : token",
                                       "%98 = join_tokens %15, %52#0, %52#2 : token",
                                       _SAME + " !cuda_tile.tile<64x64xf32>", "%98 = join_tokens"),
    "divi_without_signedness": (_DIVI, _DIVI.replace(" signed", ""),
                                "expected signedness to be one of: {'unsigned', 'signed'}", "%49 = divi"),
    "divi_rounding_up": (_DIVI, _DIVI.replace("positive_inf", "up"),
                         "expected rounding to be one of: 'nearest_even', 'zero'", "%49 = divi"),
    "cmpi_declared_on_i32": ("%81 = cmpi less_than %77, %80, unsigned : tile<64x64xi64>",
                             "%81 = cmpi less_than %77, %80, unsigned : tile<64x64xi32>",
                             _SAME + " !cuda_tile.tile<64x64xi64>", "%81 = cmpi"),
    "a_block_id_as_the_view": ("%57, %58 = load_view_tko weak %50[%36, %53]", "%57, %58 = load_view_tko weak %36[%36, "
                               "%53]", _SAME + " !cuda_tile.tile<i32>", "%57, %58 = load_view_tko weak %36"),
    "cluster_of_3_ctas": ("optimization_hints=<default = {}>", "optimization_hints=<sm_90 = {num_cta_in_cga = 3}>",
                          "optimization hint num_cta_in_cga = 3 for sm_90 must be a power of two in [1, 16]",
                          "entry @"),
    "occupancy_0": ("optimization_hints=<default = {}>", "optimization_hints=<sm_90 = {occupancy = 0}>",
                    "optimization hint occupancy = 0 for sm_90 must be in [1, 32]", "entry @"),
}

test_a_cuda_tile_text_mistake_stops_at_its_line = text_mistake_tests(PROGRAMS, BASE, TEXT_MISTAKES)


def _base_text() -> str:
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[BASE]
    return str(read_bytecode(cutile_bytecode(p.kernel, p.spec)))


def _ptx(tmp_path, capsys, text: str, name: str) -> str:
    path, out = tmp_path / f"{name}.mlir", tmp_path / f"{name}.ptx"
    path.write_text(text)
    from tileorch.cli.main import main

    try:
        code = main(["compile", str(path), "--no-ptxas", "--no-cache", "-o", str(out)])
    except SystemExit as exc:
        code = exc.code
    said = capsys.readouterr()
    assert code == 0 and "Traceback" not in said.out + said.err, said
    return out.read_text()


def test_an_entry_without_its_return_is_the_same_kernel(tmp_path, capsys):
    """CUDA Tile IR's ``entry`` has an implicit ``return`` terminator (the dialect's definition: a single block with
    an implicit terminator), so leaving the ``return`` out is not a mistake: it compiles, to the same PTX."""
    text = _base_text()
    end = "      return\n    }\n  }\n}"
    assert text.count(end) == 1
    assert _ptx(tmp_path, capsys, text.replace(end, "    }\n  }\n}"), "noret") == _ptx(tmp_path, capsys, text, "ret")


def test_an_f32_constant_past_its_range_is_infinity(tmp_path, capsys):
    """``constant <f32: 1.0e+40>`` overflows to +inf (how the dialect's own tests print such a constant), not an
    error: the accumulator's start is +inf in the PTX (``0f7F800000``), printed back as ``0x7F800000``."""
    text = _base_text()
    old = "%48 = constant <f32: 0.000000e+00> : tile<64x64xf32>"
    assert text.count(old) == 1
    text = text.replace(old, "%48 = constant <f32: 1.0e+40> : tile<64x64xf32>")
    assert "0f7F800000" in _ptx(tmp_path, capsys, text, "inf")
    from tileorch.tools.opt import main

    path = tmp_path / "inf.mlir"
    try:
        main([str(path)])
    except SystemExit as exc:
        assert not exc.code
    assert "%48 = constant <f32: 0x7F800000> : tile<64x64xf32>" in capsys.readouterr().out


def _x(i, shape, dt="float16"):
    return _device_array(i, shape, dt)


_SK = (_x(0, (100, 256)), _x(1, (256, 80)), _x(2, (100, 80), "float32"), 64, 64, 32)
LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "zero_splits": (BASE, (2, 2, 0), _SK, ValueError, "grid extents must be positive, got (2, 2, 0)"),
    "a_k_tile_of_24": (BASE, (2, 2, 3), _SK[:5] + (24,), Exception,
                       "Dimension #1 of shape (64, 24) is not a power of two"),
    "a_in_int8_b_in_f16": (BASE, (2, 2, 3), (_x(0, (100, 256), "int8"),) + _SK[1:], Exception,
                           "x and y must have the same dtype unless they are int8/uint8, got int8 float16"),
    "a_numpy_int_tile": (BASE, (2, 2, 3), _SK[:5] + (np.int64(32),), TypeError,
                         "argument 5 ('TK') is a ct.Constant parameter: it takes a Python bool, int or float, got "
                         "int64"),
    "c_as_a_1d_array": (BASE, (2, 2, 3), _SK[:2] + (_x(2, (8000,), "float32"),) + _SK[3:], Exception,
                        "For array of rank 1, `indices` must be a tuple of length 1, or a single scalar/tile"),
}

(test_a_launch_mistake_raises_naming_what_is_wrong, test_the_launch_of_a_valid_program_gets_as_far_as_the_driver) = \
    launch_mistake_tests(PROGRAMS, LAUNCH_MISTAKES, SOURCE,
                         (BASE, (2, 2, 3), _SK,
                          # the module load; on a host without cuda-python, the tensor maps' encoding before it
                          ("no kernel named", "No module named 'cuda.bindings'")))
