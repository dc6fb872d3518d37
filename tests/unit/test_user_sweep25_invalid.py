"""The twenty-fifth user sweep's invalid inputs (``tileorch.testing.user_programs25``), the kinds the invalid
halves of sweeps 17, 19, 21 and 24 did not try:

* hand-written ``cuda_tile`` text with one mistake each (:data:`TEXT_MISTAKES`: a type that disagrees with an
  operand's, an undefined or redefined value, a wrong index count, an unknown op, a reshape or broadcast that
  changes the element count, a float compare by ``cmpi``, a float constant typed i32, a tile dimension not a
  power of two, an ``if`` on an i32, an unknown element type, strides of another rank): ``tileorch compile``
  exits non-zero with ``k.mlir:L:C: error:`` at the line of the mistake (or of the use that meets it), no
  traceback;
* malformed bytecode (:data:`BYTECODE_MISTAKES`: cut short, a trailing tail, an unknown version, a corrupt
  operand reference): ``file: error: invalid CUDA Tile IR bytecode at offset N: ...``, non-zero, no
  traceback (and tests/unit/test_cuda_tile_bytecode_errors.py's reader-level cases);
* :data:`INVALID` programs (an MX block-scaled ``mma_scaled``, a 4M-element tile): the located error at the
  user's line by the driver, ``tileorch compile`` and ``tileorch.cutile.launch``;
* :data:`REJECTED_BY_CUTILE` (e5m2 x e4m3 in one ``mma``): cuTile's own error at the user's line;
* launch mistakes: a float for an ``int`` scalar (a warning naming the parameter: cuTile compiles a float32
  variant silently), a 4-D grid, a numpy integer scalar, a 1-D array for a kernel indexing 2-D tiles and mixed
  f16 / f32 GEMM operands (cuTile's error at the user's line, nothing loaded)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs25  # noqa: E402
from tileorch.testing.user_programs25 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (compile_cli, _device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  invalid_text_and_launch_tests, line_of)

SOURCE = user_programs25.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, sorted(INVALID))
test_tileorch_compile_of_the_mlir_text_exits_non_zero_at_its_line, test_cutile_launch_stops_at_the_users_line = \
    invalid_text_and_launch_tests(INVALID, SOURCE, ["mx_block_scaled_mma_on_hopper"])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)

BASE = "early_return_past_the_rows"
"""The valid program whose ``cuda_tile`` text and bytecode the mistakes below edit."""

TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "mulf_declares_an_int_type": ("%36 = mulf %35, %30  : tile<1x32xf32>", "%36 = mulf %35, %30  : tile<1x32xi32>",
                                  "but has been previously used or defined with type", "%36 = mulf"),
    "use_of_an_undefined_value": ("%36 = mulf %35, %30 ", "%36 = mulf %35, %99 ", "use of undeclared SSA value name",
                                  "%36 = mulf"),
    "a_value_defined_twice": ("%36 = mulf %35, %30 ", "%35 = mulf %35, %30 ", "SSA value %35 is already defined",
                              "%35 = mulf"),
    "store_view_of_another_tile": ("%37 = make_partition_view %23 : partition_view<tile=(1x32)",
                                   "%37 = make_partition_view %23 : partition_view<tile=(1x64)",
                                   "but has been previously used or defined with type", "store_view_tko"),
    "one_index_for_a_2d_view": ("load_view_tko weak %29[%24, %28]", "load_view_tko weak %29[%24]",
                                "expected 2 index operands (based on view type), got 1", "load_view_tko"),
    "an_unknown_op": ("%36 = mulf %35, %30", "%36 = mulx %35, %30", "Operation mulx is not registered", "mulx"),
    "reshape_changes_the_count": ("reshape %33 : tile<f32> -> tile<1x1xf32>",
                                  "reshape %33 : tile<f32> -> tile<1x2xf32>",
                                  "but has been previously used or defined with type", "broadcast %34"),
    "broadcast_to_more_rows": ("broadcast %34 : tile<1x1xf32> -> tile<1x32xf32>",
                               "broadcast %34 : tile<1x1xf32> -> tile<2x32xf32>",
                               "but has been previously used or defined with type", "%36 = mulf"),
    "cmpi_of_floats": ("%27 = cmpi greater_than_or_equal %24, %10, signed : tile<i32> -> tile<i1>",
                       "%27 = cmpi greater_than_or_equal %33, %33, signed : tile<f32> -> tile<i1>",
                       "must be tile of i1 or i8 or i16 or i32 or i64 values, but got 'tile<f32>'", "%27 = cmpi"),
    "a_float_constant_typed_i32": ("%14 = constant <i32: 1> : tile<i32>", "%14 = constant <f32: 1.5> : tile<i32>",
                                   "mismatch between the element type: f32 and the tile element type i32",
                                   "%14 = constant"),
    "a_tile_of_30_columns": ("partition_view<tile=(1x32), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>\n",
                             "partition_view<tile=(1x30), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>\n",
                             "tile shape dimensions must have power of two length but got [1, 30]",
                             "%29 = make_partition_view"),
    "if_on_an_i32": ("if %27 {", "if %24 {", "but has been previously used or defined with type", "if %24"),
    "an_i7_parameter": ("%10: tile<i32>)", "%10: tile<i7>)", "invalid tile element type i7", "entry @"),
    "strides_of_another_rank": ("shape = [%16, %17], strides = [%18, 1]", "shape = [%16, %17], strides = [%18]",
                                "expected strides declaration to contain 2 elements", "%19 = make_tensor_view"),
}


def _base_text() -> str:
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[BASE]
    return str(read_bytecode(cutile_bytecode(p.kernel, p.spec)))



@pytest.mark.parametrize("name", sorted(TEXT_MISTAKES))
def test_a_cuda_tile_text_mistake_stops_at_its_line(name, tmp_path, capsys):
    old, new, words, line_text = TEXT_MISTAKES[name]
    text = _base_text()
    assert text.count(old) == 1, name
    text = text.replace(old, new)
    path = tmp_path / "k.mlir"
    path.write_text(text)
    code, said = compile_cli(path, capsys)
    m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): error: (.*)", said)
    assert code != 0 and m and words in m.group(3), said
    assert line_text in text.splitlines()[int(m.group(1)) - 1], (text.splitlines()[int(m.group(1)) - 1], said)
    assert "Traceback" not in said and "internal error" not in said, said


@pytest.mark.parametrize("stride", [2**31 + 8, 2**48 + 1])
def test_an_epilogue_vector_with_a_static_stride_past_int32_is_refused_at_its_line(stride, tmp_path, capsys):
    """The bias vector of a tier GEMM's epilogue given a static stride past 2**31 in hand-written ``cuda_tile`` (the
    bytecode fuzz of this sweep flipped a byte of its stride 1): the epilogue's 32-bit index arithmetic took
    2**31 + 8 silently (a sign-extended, negative stride: wrong addresses) and 2**48 + 1 stopped the tier with an
    internal error (an i32 constant out of range).  Now the tier refuses it at the view's line and the SIMT path's
    located error stops the compile, with the tier's reason as its note."""
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS["gemm_bias_gelu_residual"]
    text = str(read_bytecode(cutile_bytecode(p.kernel, p.spec)))
    unit = "tensor_view<?xf16, strides=[1]>"
    lines = text.splitlines()
    at = next(i for i, ln in enumerate(lines) if "make_tensor_view" in ln and unit in ln)
    lines[at] = lines[at].replace("strides = [1]", f"strides = [{stride}]")
    text = "\n".join(lines).replace(unit, f"tensor_view<?xf16, strides=[{stride}]>")
    path = tmp_path / "k.mlir"
    path.write_text(text)
    code, said = compile_cli(path, capsys)
    assert code != 0 and f"{path}:{at + 1}:" in said and f"static stride {stride} does not fit" in said, said
    assert f"the epilogue reads an array with a static size or stride of {stride}" in said, said
    assert "Traceback" not in said and "internal error" not in said, said


def _bytecode():
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[BASE]
    return cutile_bytecode(p.kernel, p.spec)


BYTECODE_MISTAKES = {
    # name: (the bytes from the program's, words of the error)
    "cut_in_half": (lambda d: d[:len(d) // 2], "exceeds the remaining"),
    "one_byte_short": (lambda d: d[:-1], "unexpected end of bytecode"),
    "a_tail_after_the_end": (lambda d: d + b"\x07\x01\x02", "end section is not the last section (3 bytes follow it)"),
    "an_unknown_version": (lambda d: d[:8] + bytes([99]) + d[9:], "unsupported bytecode version 99."),
    "an_operand_past_the_values": (lambda d: d[:114] + bytes([d[114] ^ 0xFF]) + d[115:], "operand refers to value"),
}


@pytest.mark.parametrize("name", sorted(BYTECODE_MISTAKES))
def test_malformed_bytecode_exits_non_zero_saying_where(name, tmp_path, capsys):
    edit, words = BYTECODE_MISTAKES[name]
    path = tmp_path / "k.tileirbc"
    path.write_bytes(edit(_bytecode()))
    code, said = compile_cli(path, capsys)
    assert code != 0 and re.search(rf"{re.escape(str(path))}: error: invalid CUDA Tile IR bytecode at offset \d+: ",
                                   said) and words in said, said
    assert "Traceback" not in said and "internal error" not in said, said


# --------------------------------------------------------------------------------------------- launch mistakes


def _launch(kernel, grid, args, monkeypatch):
    """``tileorch.cutile.launch(0, grid, kernel, args)`` on a fake driver: (the exception or None, the driver)."""
    from test_cutile_launch import FakeDriver

    from tileorch.launchers import cutile as rc
    from tileorch.runtime import device as rt_device
    from tileorch.runtime.driver import use_api

    drv = FakeDriver({})
    monkeypatch.setenv("TILEORCH_CACHE", "0")
    rc.clear_caches()
    rt_device.forget_devices()
    try:
        with use_api(drv):
            rc.launch(0, grid, kernel, args)
    except Exception as exc:  # noqa: BLE001 - the test reads it
        return exc, drv
    finally:
        rt_device.forget_devices()
        rc.clear_caches()
    return None, drv


def _x(i, shape=(10, 30), dt="float32"):
    return _device_array(i, shape, dt)


def test_a_float_for_an_int_scalar_is_warned_naming_the_parameter(monkeypatch):
    """``limit: int`` given 7.5: cuTile types a scalar by its value and compiles a float32 variant (``r >= 7.5``),
    silently before (found by this sweep); now a warning names the parameter, the kernel and its line."""
    import inspect

    from tileorch.launchers.cutile import describe_arguments

    kernel = PROGRAMS[BASE].kernel
    first = inspect.getsourcelines(kernel._annotated_function.pyfunc)[1]
    with pytest.warns(UserWarning) as caught:
        describe_arguments(kernel, (_x(0), _x(1), 7.5, 32))
    words = (f"argument 2 ('limit') is annotated int (kernel '{BASE}', {SOURCE}:{first}), got float 7.5: cuTile "
             "types a scalar by its value")
    assert any(words in str(w.message) for w in caught), [str(w.message) for w in caught]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        describe_arguments(kernel, (_x(0), _x(1), 7, 32))  # an int: nothing said
        describe_arguments(PROGRAMS["fp8_e4m3_gemm_scaled_f32_out"].kernel,  # a float for `scale: float`: nothing
                           (_x(0, (128, 128), "uint8"), _x(1, (128, 128), "uint8"), _x(2, (128, 128)), 0.25, 64, 64,
                            64))


LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "a_grid_of_four_dims": (BASE, (10, 1, 1, 1), (_x(0), _x(1), 7, 32), ValueError,
                            "grid must be a tuple of 1 to 3 ints, got 4 of them"),
    "a_numpy_integer_scalar": (BASE, (10,), (_x(0), _x(1), "np.int64", 32), TypeError,
                               "argument 2 ('limit') is a numpy int64 scalar: pass a Python int"),
    "a_1d_array_for_2d_tiles": (BASE, (10,), (_x(0, (300,)), _x(1), 7, 32), Exception,
                                "Index size 2 does not match the array rank 1"),
    "gemm_operands_f16_and_f32": ("gemm_k_not_a_multiple_of_the_tile", (4, 3),
                                  (_x(0, (200, 100), "float16"), _x(1, (100, 136)), _x(2, (200, 136)), 64, 64, 32),
                                  Exception, "x and y must have the same dtype"),
}


@pytest.mark.parametrize("name", sorted(LAUNCH_MISTAKES))
def test_a_launch_mistake_raises_naming_what_is_wrong(name, monkeypatch):
    import numpy as np

    prog, grid, args, kind, words = LAUNCH_MISTAKES[name]
    args = tuple(np.int64(7) if a == "np.int64" else a for a in args)
    exc, drv = _launch(PROGRAMS[prog].kernel, grid, args, monkeypatch)
    assert isinstance(exc, kind) and words in str(exc), repr(exc)
    assert "internal error" not in str(exc) and not drv.loaded and not drv.launches
    if kind is Exception:  # cuTile's own error: at the user's line of the kernel's source
        assert f'"{SOURCE}", line ' in str(exc), str(exc)
