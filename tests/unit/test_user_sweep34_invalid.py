"""The thirty-fourth user sweep's invalid inputs (``tileorch.testing.user_programs34``), through the shared skeletons
of invalid_sweep_checks.py:

* :data:`INVALID` programs (cuTile accepts them, tileorch cannot run them: a 4-D tile stored into a 3-D array, a
  tile of a million f32 elements, ``ct.mma_scaled`` on Hopper): the located error at the user's line by the driver,
  ``tileorch compile`` and ``tileorch.cutile.launch``;
* :data:`REJECTED_BY_CUTILE` (type errors users make, written while writing this sweep: an accumulator of the K tile's
  shape, a misspelt keyword, f16 x bf16 / int16 / 1-D ``mma``, ``arange(100)``, reshape / permute / broadcast /
  expand_dims / sum axes that do not fit, numpy and Python lists in a kernel, ``static_iter`` / tile shapes / latency
  of runtime values, a float store index, bitwise and of floats, an empty tile, item assignment, a printf format of the
  wrong type, an ``order`` of three axes for a matrix, an implicit uint64 -> int8 store): cuTile's own error at the
  user's line;
* hand-written ``cuda_tile`` text of the bottom-right causal attention with one mistake each (:data:`TEXT_MISTAKES`):
  ``tileorch compile`` exits non-zero with ``k.mlir:L:C: error:`` at the line of the mistake (for a value of the
  wrong type: at its first use, as MLIR's parser reports it), no traceback;
* other files given as the program and broken exports (:data:`OTHER_FILES`), and the module's text written twice
  in one file (found by this sweep: an internal error in the TileAS tier, then "builtin.module is still present";
  now a located error at the second module);
* launch mistakes at ``tileorch.cutile.launch`` (:data:`LAUNCH_MISTAKES`) on the GEMM with an f32 bias into f16:
  an exception naming what is wrong, nothing launched."""

from __future__ import annotations

import os
import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs34  # noqa: E402
from tileorch.testing.user_programs34 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (_device_array, _program_bytecode, compile_cli, cutile_rejects_tests,  # noqa: E402
                                  invalid_sweep_tests, invalid_text_and_launch_tests, launch_mistake_tests,
                                  other_file_tests, text_mistake_tests)

SOURCE = user_programs34.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["store_4d_tile_into_3d_output", "mma_scaled_e5m2_on_hopper"])
_text_route, test_cutile_launch_stops_at_the_users_line = invalid_text_and_launch_tests(INVALID, SOURCE, [])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)

BASE = "attn_causal_bottom_right_sq_lt_sk"
"""The valid program whose ``cuda_tile`` text the mistakes below edit (``mini`` / ``divi`` of the key bound, a
``for`` carrying three values, ``permute``, two ``mmaf``, ``cmpi`` / ``andi`` / ``select``, ``reduce``, ``exp2``,
``fma``, ``ftof``, a 3-D partition view)."""

_SAME = "but has been previously used or defined with type"
TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "mini_signedness_misspelt": ("%91 = mini %90, %45 signed", "%91 = mini %90, %45 signd",
                                 "expected signedness to be one of: {'unsigned', 'signed'}", "%91 = mini %90, %45 signd"),
    "divi_rounding_nearest_even": ("%92 = divi %91, %63 signed rounding<positive_inf>",
                                   "%92 = divi %91, %63 signed rounding<nearest_even>",
                                   "rounding mode must be one of 'zero', 'positive_inf' or 'negative_inf', got "
                                   "'nearest_even'", "%92 = divi"),
    "reduce_dim_2_of_a_matrix": ("%133 = reduce %132 dim=1", "%133 = reduce %132 dim=2",
                                 "dim 2 is out of range for operands of rank 2", "%133 = reduce %132 dim=2"),
    "permute_of_three_axes": ("permute %117 [1, 0]", "permute %117 [1, 0, 2]", "expected permutation of size 2, got 3",
                              "permute %117 [1, 0, 2]"),
    "mmaf_accumulating_into_a_column": ("%119 = mmaf %75, %118, %97", "%119 = mmaf %75, %118, %85",
                                        _SAME + " !cuda_tile.tile<64x1xf32>", "%119 = mmaf %75, %118, %85"),
    "load_view_with_two_indices": ("%72[%68, %64, %71]", "%72[%68, %64]",
                                   "expected 3 index operands (based on view type), got 2", "%72[%68, %64]"),
    "partition_view_tile_of_two_dims": ("%72 = make_partition_view %43 : partition_view<tile=(1x64x64)",
                                        "%72 = make_partition_view %43 : partition_view<tile=(64x64)",
                                        "expected tensor_view rank and tile rank to match, got tensor_view of rank 3 "
                                        "and tiles of rank 2", "%72 = make_partition_view"),
    "continue_of_two_values": ("continue %156, %149, %138 : tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>",
                               "continue %156, %149 : tile<64x64xf32>, tile<64x1xf32>",
                               "'continue' has 2 operands, but its parent expects 3", "continue %156, %149 :"),
    "exp3": ("%141 = exp2 %140", "%141 = exp3 %140", "Operation exp3 is not registered", "%141 = exp3"),
    "store_of_the_f32_tile": ("%163 = store_view_tko weak %161,", "%163 = store_view_tko weak %159,",
                              _SAME + " !cuda_tile.tile<64x64xf32>", "%163 = store_view_tko weak %159"),
    "iota_of_65": ("%77 = iota : tile<64xi32>", "%77 = iota : tile<65xi32>", "all dimensions must be powers of two",
                   "%77 = iota : tile<65xi32>"),
    "select_of_an_i32_condition": ("%132 = select %131, %120, %107 : tile<64x64xi1>",
                                   "%132 = select %126, %120, %107 : tile<64x64xi32>",
                                   "operand #0 must be tile of i1 values, but got 'tile<64x64xi32>'", "%132 = select"),
    "assume_div_by_3": ("%30 = assume div_by<16>, %0", "%30 = assume div_by<3>, %0",
                        "divisor must be a power of 2, got 3", "%30 = assume div_by<3>"),
    "get_tile_block_id_of_four_results": ("%64, %65, %66 = get_tile_block_id", "%64, %65, %66, %300 = get_tile_block_id",
                                          "Operation has 3 results, but was given 4 to bind", "get_tile_block_id"),
}

test_a_cuda_tile_text_mistake_stops_at_its_line = text_mistake_tests(PROGRAMS, BASE, TEXT_MISTAKES)

OTHER_FILES = {
    # name: (file name, its bytes from the program's, words of the error)
    "a_gzip_of_the_export": ("k.tileirbc.gz", lambda d: b"\x1f\x8b\x08\x00" + d[:40],
                             "this is gzip-compressed data, not MLIR text: decompress it first"),
    # was "invalid UTF-8 byte 0xff" (sweep 34): the byte-order mark says what the file is
    "utf16_text": ("k.mlir", lambda d: "builtin.module {}\n".encode("utf-16-le").join([b"\xff\xfe", b""]),
                   "this is UTF-16 text (its byte-order mark FF FE), not UTF-8: save the file as UTF-8"),
    "utf16_big_endian_text": ("k.mlir", lambda d: b"\xfe\xff" + "builtin.module {}\n".encode("utf-16-be"),
                              "this is UTF-16 text (its byte-order mark FE FF), not UTF-8: save the file as UTF-8"),
    "the_last_byte_dropped": ("k.tileirbc", lambda d: d[:-1], "unexpected end of bytecode"),
    "a_json_file": ("k.json", lambda d: b'{"kernel": 1}\n', "Could not parse entire input"),
}

(test_another_binary_or_a_broken_export_exits_non_zero_naming_the_file, test_every_dropped_byte_exits_cleanly) = \
    other_file_tests(PROGRAMS, BASE, OTHER_FILES, every=331)


def _text(name=BASE) -> str:
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode

    return str(read_bytecode(_program_bytecode(PROGRAMS, name)))


def test_the_module_text_twice_stops_at_the_second_module(tmp_path, capsys):
    """Two ``builtin.module`` texts in one file (the parser's implicit module around both): before this sweep the
    TileAS tier raised an internal error and the backend said "builtin.module is still present" at 1:1; now
    ``k.mlir:L:1: error:`` at the second module's line, a non-zero exit."""
    text = _text()
    path = tmp_path / "k.mlir"
    path.write_text(text + "\n" + text)
    code, said = compile_cli(path, capsys)
    second = len(text.splitlines()) + 1
    assert code != 0 and f"{path}:{second}:1: error: a second top-level builtin.module: this input holds 2 modules" \
        in said, said
    assert "Traceback" not in said and "internal error" not in said, said


def test_a_module_of_two_kernels_with_a_dot_says_why_it_runs_simt(tmp_path, capsys):
    """One ``cuda_tile.module`` with two entries, a GEMM and a clamp (hand-written text): before this sweep the tier's
    per-module analyses refused the GEMM with a wrong reason ("this dot is not in a loop"), and two GEMMs (two
    attention kernels) in one module raised DuplicatedNameError; now a located remark at the second kernel says the
    tier compiles a module of one kernel, and the SIMT path compiles both."""
    a, b = _text("gemm_k_16_one_tile").splitlines(), _text("clamp_by_scalar_minimum_maximum").splitlines()
    path = tmp_path / "k.mlir"
    path.write_text("\n".join(a[:-2] + b[2:-2] + a[-2:]) + "\n")
    code, said = compile_cli(path, capsys)
    second = len(a) - 2 + 1
    assert code == 0 and re.search(rf"{re.escape(str(path))}:{second}:\d+: remark: this module defines 2 kernels", said)
    assert "the tensor-core path refused this kernel" in said and "not in a loop" not in said, said
    twice = tmp_path / "k2.mlir"
    body = a[2:-2]
    twice.write_text("\n".join(a[:2] + body + [ln.replace("entry @", "entry @second_") for ln in body] + a[-2:]) + "\n")
    code, said = compile_cli(twice, capsys)
    assert code == 0 and "this module defines 2 kernels" in said and "internal error" not in said, said


def _x(i, shape, dt="float16"):
    return _device_array(i, shape, dt)


LAUNCHED = "gemm_f16_out_f32_bias_row"
_OK = (_x(0, (100, 128)), _x(1, (128, 80)), _x(2, (80,), "float32"), _x(3, (100, 80)), 64, 64, 64)
LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "a_tile_m_of_48": (LAUNCHED, (2, 2), _OK[:4] + (48,) + _OK[5:], Exception, "is not a power of two"),
    "the_bias_left_out": (LAUNCHED, (2, 2), _OK[:2] + _OK[3:], TypeError,
                          "kernel 'gemm_f16_out_f32_bias_row' takes 7 arguments"),
    "a_grid_of_no_programs": (LAUNCHED, (0, 2), _OK, ValueError, "grid extents must be positive"),
    "c_on_a": (LAUNCHED, (2, 2), _OK[:3] + (_x(0, (100, 80)),) + _OK[4:], ValueError,
               "argument 3 ('C') shares memory with argument 0 ('A')"),
    "the_bias_as_a_row_matrix": (LAUNCHED, (2, 2), _OK[:2] + (_x(2, (1, 80), "float32"),) + _OK[3:], Exception,
                                 "Index size 1 does not match the array rank 2"),
}

(test_a_launch_mistake_raises_naming_what_is_wrong, test_the_launch_of_a_valid_program_gets_as_far_as_the_driver) = \
    launch_mistake_tests(PROGRAMS, LAUNCH_MISTAKES, SOURCE,
                         (LAUNCHED, (2, 2), _OK, ("no kernel named", "No module named 'cuda.bindings'")))


def test_the_sweep_has_its_invalid_inputs():
    """About 35 invalid inputs (the brief): cuTile's refusals, tileorch's located refusals, text mistakes, other files
    and launch mistakes."""
    assert len(REJECTED_BY_CUTILE) + len(INVALID) + len(TEXT_MISTAKES) + len(OTHER_FILES) + len(LAUNCH_MISTAKES) >= 35


def test_a_cuda_tile_module_pasted_twice_stops_at_the_second(tmp_path, capsys):
    """The ``cuda_tile.module @kernels`` pasted twice into one ``builtin.module``: before this sweep
    ``k.mlir:1:1: error: Redefinition of symbol "kernels"`` (the symbol table's line); now at the second
    definition, naming the first."""
    lines = _text().splitlines()
    inner = lines[1:-1]  # the cuda_tile.module, without the builtin.module's own lines
    path = tmp_path / "k.mlir"
    path.write_text("\n".join([lines[0]] + inner + inner + [lines[-1]]) + "\n")
    code, said = compile_cli(path, capsys)
    second = 1 + len(inner) + 1
    assert code != 0 and f'{path}:{second}:3: error: Redefinition of symbol "kernels", first defined at {path}:2:3' \
        in said, said
    assert "Traceback" not in said and "internal error" not in said, said
