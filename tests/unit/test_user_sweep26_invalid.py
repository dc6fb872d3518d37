"""The twenty-sixth user sweep's invalid inputs (``tileorch.testing.user_programs26``), kinds the invalid halves of
sweeps 17 to 25 did not try:

* :data:`INVALID` programs (NVFP4 e2m1 by ``astype`` and by ``pack_to_bytes``, a 4-D tile of 524288 elements;
  ``atan2`` on f64 was one until session 35, which lowers it: tileaa_to_simt/f64_trig.py): the located error at the user's line by the driver, ``tileorch compile`` and
  ``tileorch.cutile.launch``;
* :data:`REJECTED_BY_CUTILE` (an int8 ``mma`` into f32, ``atomic_cas`` on f16, an e8m0 cast rounding to nearest,
  a list comprehension): cuTile's own error at the user's line;
* hand-written ``cuda_tile`` text with one mistake each in a loop-carrying kernel (:data:`TEXT_MISTAKES`: a
  ``continue`` of too few or swapped values, a float loop bound, too few results bound, a step of constant 0,
  ``yield`` for ``continue``, a result index past the end, an unknown signedness or padding keyword, a non-power-of
  two constant, ``div_by<0>`` / ``<3>``, an inverted ``bounded``, a zero stride or tile extent, an entry with a
  result, a redefined entry, a missing ``}``, a non-MLIR file): ``tileorch compile`` exits non-zero with
  ``k.mlir:L:C: error:`` at the line of the mistake, no traceback;
* malformed bytecode files (:data:`BYTECODE_MISTAKES`: empty, the magic number alone, a wrong magic number, the
  module twice, a zero pad after the end, version 13.0): a non-zero exit naming the file, no traceback;
* launch mistakes at ``tileorch.cutile.launch`` (:data:`LAUNCH_MISTAKES`: too few / too many arguments, a str, a
  None, a complex, a host numpy array, grids of 0, -1, a float or past CUDA's y limit, a scalar past int32, a
  shape past int32, an array of another rank, a float for a ``ct.Constant[int]``, a tile size not a power of two, a
  float tile stored into an int8 array): an exception naming what is wrong, nothing loaded or launched."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs26  # noqa: E402
from tileorch.testing.user_programs26 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (compile_cli, _device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  invalid_text_and_launch_tests)

SOURCE = user_programs26.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["fp4_e2m1_packed_to_bytes"])
test_tileorch_compile_of_the_mlir_text_exits_non_zero_at_its_line, test_cutile_launch_stops_at_the_users_line = \
    invalid_text_and_launch_tests(INVALID, SOURCE, ["four_d_tile_half_a_million"])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)

BASE = "loop_zero_trips_carries_init"
"""The valid program whose ``cuda_tile`` text and bytecode the mistakes below edit (a ``for`` carrying three
values)."""

_CONTINUE = "continue %41, %40, %39 : tile<64xi32>, tile<64xf32>, tile<64xf32>"
_VIEW = "partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>\n"
TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "continue_two_of_three": (_CONTINUE, "continue %41, %40 : tile<64xi32>, tile<64xf32>",
                              "'continue' has 2 operands, but its parent expects 3", "continue %41, %40"),
    "continue_values_swapped": (_CONTINUE, "continue %40, %41, %39 : tile<64xf32>, tile<64xi32>, tile<64xf32>",
                                "'continue' operand #0 has type tile<64xf32>, but its parent expects tile<64xi32>",
                                "continue %40, %41"),
    "for_upper_bound_a_float": ("for %34 in (%25 to %6, step %26)", "for %34 in (%25 to %27, step %26)",
                                "but has been previously used or defined with type !cuda_tile.tile<f32>",
                                "for %34 in (%25 to %27"),
    "for_two_results_bound_of_three": ("%33:3 = for", "%33:2 = for", "Operation has 3 results, but was given 2",
                                       "%33:2 = for"),
    "for_step_the_constant_zero": ("%26 = constant <i32: 1> : tile<i32>", "%26 = constant <i32: 0> : tile<i32>",
                                   "the step of this for loop is the constant 0", "%33:3 = for"),
    "yield_for_continue": (_CONTINUE, _CONTINUE.replace("continue", "yield"),
                           "'cuda_tile.yield' expects parent op to be one of", "yield %41"),
    "result_index_past_the_end": ("%42 = maxf %33#1, %33#2", "%42 = maxf %33#1, %33#3",
                                  "Tuple is of size 3 but tried to access element 3", "%42 = maxf"),
    "itof_unknown_signedness": ("itof %33#0 signed ", "itof %33#0 sideways ",
                                "expected signedness to be one of", "%43 = itof"),
    "unknown_padding_value": ("%20 = make_partition_view %14 : partition_view<tile=(64), padding_value = zero,",
                              "%20 = make_partition_view %14 : partition_view<tile=(64), padding_value = seven,",
                              "invalid padding_value attribute specification", "%20 = make_partition_view"),
    "constant_63_wide": ("%12 = constant <i32: 1> : tile<64xi32>", "%12 = constant <i32: 1> : tile<63xi32>",
                         "all dimensions must be powers of two, got [63]", "%12 = constant"),
    "assume_div_by_zero": ("%8 = assume div_by<16>, %0", "%8 = assume div_by<0>, %0", "divisor must be positive",
                           "%8 = assume div_by<0>"),
    "assume_div_by_three": ("%8 = assume div_by<16>, %0", "%8 = assume div_by<3>, %0",
                            "divisor must be a power of 2, got 3", "%8 = assume div_by<3>"),
    "bounded_lower_above_upper": ("assume bounded<0, ?>, %1", "assume bounded<5, 2>, %1",
                                  "lower bound (5) must not exceed upper bound (2)", "%13 = assume bounded<5, 2>"),
    "a_zero_stride": ("strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>\n      %15",
                      "strides = [0] : tile<i32> -> tensor_view<?xf32, strides=[0]>\n      %15",
                      "expected strictly positive integer, got 0", "%14 = make_tensor_view"),
    "a_view_tile_of_zero": (_VIEW, _VIEW.replace("tile=(64)", "tile=(0)"), "a view's tile extents must be strictly "
                            "positive", "%20 = make_partition_view"),
    "entry_returning_a_value": (") optimization_hints", ") -> tile<i32> optimization_hints",
                                "entry op must not return values", "entry @"),
    "float_literal_a_word": ("<f32: 5.000000e-01>", "<f32: half>", "expected floating point literal",
                             "%27 = constant"),
}


def _base_text() -> str:
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[BASE]
    return str(read_bytecode(cutile_bytecode(p.kernel, p.spec)))



def _located(path, text, said):
    """(line number, the line's text, the message) of the first ``path:L:C: error:`` in ``said``."""
    m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): error: (.*)", said)
    assert m, said
    lines = text.splitlines()
    at = int(m.group(1))
    return at, (lines[at - 1] if at <= len(lines) else ""), m.group(3)


@pytest.mark.parametrize("name", sorted(TEXT_MISTAKES))
def test_a_cuda_tile_text_mistake_stops_at_its_line(name, tmp_path, capsys):
    old, new, words, line_text = TEXT_MISTAKES[name]
    text = _base_text()
    assert text.count(old) == 1, name
    text = text.replace(old, new)
    path = tmp_path / "k.mlir"
    path.write_text(text)
    code, said = compile_cli(path, capsys)
    _, line, message = _located(path, text, said)
    assert code != 0 and words in message, said
    assert line_text in line, (line, said)
    assert "Traceback" not in said and "internal error" not in said, said


@pytest.mark.parametrize("name", ["an_entry_defined_twice", "the_last_brace_missing", "not_mlir_at_all"])
def test_a_module_level_text_mistake_stops_at_its_line(name, tmp_path, capsys):
    """Whole-module mistakes: the kernel pasted twice (the second ``entry`` redefines the symbol), the file cut
    before its last ``}`` (the error at the end of the input, saying a ``}`` is missing), and a file that is no
    MLIR."""
    text = _base_text()
    lines = text.splitlines()
    if name == "an_entry_defined_twice":
        entry = [i for i, ln in enumerate(lines) if ln.strip().startswith("entry @")][0]
        end = entry + next(i for i, ln in enumerate(lines[entry:]) if ln == "    }") + 1
        text = "\n".join(lines[:end] + lines[entry:end] + lines[end:]) + "\n"
        words, line_text = "Redefinition of symbol", "entry @"
    elif name == "the_last_brace_missing":
        text = text.rstrip()[:-1]
        words, line_text = "a '}' is missing", ""
    else:
        text = "hello world, this is a kernel\n"
        words, line_text = "Operation hello is not registered", "hello"
    path = tmp_path / "k.mlir"
    path.write_text(text)
    code, said = compile_cli(path, capsys)
    at, line, message = _located(path, text, said)
    assert code != 0 and words in message and line_text in line, said
    if name == "an_entry_defined_twice":
        assert at > [i for i, ln in enumerate(lines) if ln.strip().startswith("entry @")][0] + 1, said  # the 2nd
    assert "Traceback" not in said and "internal error" not in said, said


def _bytecode():
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[BASE]
    return cutile_bytecode(p.kernel, p.spec)


BYTECODE_MISTAKES = {
    # name: (the file's bytes from the program's, words of the error)
    "an_empty_file": (lambda d: b"", "is empty: CUDA Tile IR bytecode starts with the 8-byte magic number"),
    "the_magic_number_alone": (lambda d: d[:8], "at offset 8: unexpected end of bytecode"),
    "a_wrong_magic_number": (lambda d: b"\x7fTileIX\x00" + d[8:], "is not CUDA Tile IR bytecode: it starts with "
                             "7f 54 69 6c 65 49 58 00"),
    "the_module_twice": (lambda d: d + d, f"end section is not the last section ({len(_bytecode())} bytes follow it)"),
    "zero_padding_after_the_end": (lambda d: d + b"\x00" * 16, "end section is not the last section (16 bytes "
                                   "follow it)"),
    "version_13_0": (lambda d: d[:8] + bytes([13, 0]) + d[10:], "unsupported bytecode version 13.0.0"),
}


@pytest.mark.parametrize("name", sorted(BYTECODE_MISTAKES))
def test_malformed_bytecode_exits_non_zero_naming_the_file(name, tmp_path, capsys):
    edit, words = BYTECODE_MISTAKES[name]
    path = tmp_path / "k.tileirbc"
    path.write_bytes(edit(_bytecode()))
    code, said = compile_cli(path, capsys)
    assert code != 0 and re.search(rf"{re.escape(str(path))}(:\d+:\d+)?: error: ", said) and words in said, said
    assert "Traceback" not in said and "internal error" not in said, said


# --------------------------------------------------------------------------------------------- launch mistakes


def _launch(kernel, grid, args, monkeypatch):
    """``tileorch.cutile.launch(0, grid, kernel, args)`` on a fake driver: (the exception or None, the driver,
    the warnings' texts)."""
    import warnings

    from test_cutile_launch import FakeDriver

    from tileorch.launchers import cutile as rc
    from tileorch.runtime import device as rt_device
    from tileorch.runtime.driver import use_api

    drv = FakeDriver({})
    monkeypatch.setenv("TILEORCH_CACHE", "0")
    rc.clear_caches()
    rt_device.forget_devices()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with use_api(drv):
                rc.launch(0, grid, kernel, args)
        except Exception as exc:  # noqa: BLE001 - the test reads it
            return exc, drv, [str(w.message) for w in caught]
        finally:
            rt_device.forget_devices()
            rc.clear_caches()
    return None, drv, [str(w.message) for w in caught]


def _x(i, shape, dt="float32"):
    return _device_array(i, shape, dt)


KV = "kv_cache_append_at_position"
_KV = (_x(0, (4, 48), "float16"), _x(1, (4, 48), "float16"), _x(2, (4, 20, 48), "float16"),
       _x(3, (4, 20, 48), "float16"), 13, 64)
EW = "elementwise_fourteen_arguments"


def _ew(out1="float32", a=0.5):
    dts = ["float32", "int8", "float16", "float64", "bool", "float32", "float32", out1, "float32"]
    return tuple(_x(i, (100,), dt) for i, dt in enumerate(dts)) + (a, -2.0, 3, 1.5, 64)


LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "one_argument_too_few": (KV, (4,), _KV[:4] + (64,), TypeError,
                             "kernel 'kv_cache_append_at_position' takes 6 arguments (K, V, KC, VC, pos, BD), got 5"),
    "one_argument_too_many": (KV, (4,), _KV + (1,), TypeError, "takes 6 arguments (K, V, KC, VC, pos, BD), got 7"),
    "a_str_for_an_int": (KV, (4,), _KV[:4] + ("13", 64), TypeError, "argument 4 ('pos'): cannot pass a str"),
    "none_for_an_array": (KV, (4,), (None,) + _KV[1:], TypeError, "argument 0 ('K'): cannot pass a NoneType"),
    "a_complex_scalar": (EW, (2,), _ew(a=1j), TypeError, "argument 9 ('a'): cannot pass a complex"),
    "a_host_numpy_array": (KV, (4,), ("numpy",) + _KV[1:], TypeError,
                           "argument 0 ('K') is a numpy array, in host memory"),
    "a_grid_of_zero": (KV, (0,), _KV, ValueError, "grid extents must be positive, got (0,)"),
    "a_negative_grid": (KV, (-1,), _KV, ValueError, "grid extents must be positive, got (-1,)"),
    "a_float_grid": (KV, (4.0,), _KV, TypeError, "grid must be a tuple of 1 to 3 ints, got (4.0,)"),
    "a_grid_past_cudas_y_limit": (KV, (1, 70000), _KV, ValueError, "exceeds what CUDA launches (x at most "
                                  "2147483647, y and z at most 65535)"),
    "an_int_past_int32": (KV, (4,), _KV[:4] + (2**40, 64), ValueError,
                          "argument 4 ('pos') = 1099511627776 does not fit in int32; annotate the parameter with "
                          "ct.ScalarInt64"),
    "a_shape_past_int32": (KV, (4,), (_x(0, (4, 2**31), "float16"),) + _KV[1:], ValueError,
                           "exceed the int32 index range; annotate the parameter with ct.IndexedWithInt64"),
    "a_cache_of_rank_2": (KV, (4,), _KV[:2] + (_x(2, (80, 48), "float16"),) + _KV[3:], Exception,
                          "Index size 3 does not match the array rank 2"),
    "a_float_for_a_constant_int": (KV, (4,), _KV[:5] + (64.0,), Exception,
                                   "Expected a tuple of integers, but element #1 has type Tile[float32,()]"),
    "a_tile_of_48": (KV, (4,), _KV[:5] + (48,), Exception, "Dimension #1 of shape (1, 48) is not a power of two"),
    "a_float_tile_into_int8": (EW, (2,), _ew(out1="int8"), Exception,
                               "Stored tile is incompatible with array's dtype: cannot implicitly cast float32 to "
                               "int8"),
}


@pytest.mark.parametrize("name", sorted(LAUNCH_MISTAKES))
def test_a_launch_mistake_raises_naming_what_is_wrong(name, monkeypatch):
    import numpy as np

    prog, grid, args, kind, words = LAUNCH_MISTAKES[name]
    args = tuple(np.zeros((4, 48), np.float16) if isinstance(a, str) and a == "numpy" else a for a in args)
    exc, drv, said = _launch(PROGRAMS[prog].kernel, grid, args, monkeypatch)
    assert isinstance(exc, kind) and words in str(exc), repr(exc)
    assert "internal error" not in str(exc) and not drv.loaded and not drv.launches
    if kind is Exception:  # cuTile's own error: at the user's line of the kernel's source
        assert f'"{SOURCE}", line ' in str(exc), str(exc)
    if name == "a_float_for_a_constant_int":  # and tileorch's warning first, naming the parameter
        assert any("argument 5 ('BD') is declared ct.Constant[int]" in s and "got float 64.0: pass an int (64)" in s
                   for s in said), said


def test_the_launch_of_a_valid_program_gets_as_far_as_the_driver(monkeypatch):
    """The control for the table above: the same arguments, right, reach the (fake) driver's module load -- so
    each mistake is what stopped its launch."""
    exc, drv, _ = _launch(PROGRAMS[KV].kernel, (4,), _KV, monkeypatch)
    assert exc is not None and "no kernel named 'kv_cache_append_at_position_" in str(exc), repr(exc)
