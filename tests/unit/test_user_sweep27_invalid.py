"""The twenty-seventh user sweep's invalid inputs (``tileorch.testing.user_programs27``), kinds the invalid halves of
sweeps 17 to 26 did not try:

* :data:`INVALID` programs (cuTile accepts them, tileorch cannot run them): the located error at the user's line by
  the driver, ``tileorch compile`` and ``tileorch.cutile.launch``;
* :data:`REJECTED_BY_CUTILE`: cuTile's own error at the user's line;
* hand-written ``cuda_tile`` text of a GEMM with one mistake each (:data:`TEXT_MISTAKES`): ``tileorch compile``
  exits non-zero with ``k.mlir:L:C: error:`` at the line of the mistake, no traceback;
* malformed bytecode files (:data:`BYTECODE_MISTAKES`): a non-zero exit naming the file, no traceback;
* launch mistakes at ``tileorch.cutile.launch`` (:data:`LAUNCH_MISTAKES`): an exception naming what is wrong,
  nothing loaded or launched."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs27  # noqa: E402
from tileorch.testing.user_programs27 import INVALID, PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from invalid_sweep_checks import (compile_cli, _device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  invalid_text_and_launch_tests)

SOURCE = user_programs27.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["quantize_to_fp8_e5m3", "mx_block_scaled_mma"])
test_tileorch_compile_of_the_mlir_text_exits_non_zero_at_its_line, test_cutile_launch_stops_at_the_users_line = \
    invalid_text_and_launch_tests(INVALID, SOURCE, ["e8m0_scales_rounded_toward_zero"])
test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)



BASE = "gemm_k104_last_k_tile_partial"
"""The valid program whose ``cuda_tile`` text and bytecode the mistakes below edit (a GEMM: views, a ``for``
carrying the accumulator, ``mmaf``, a tile store)."""

_MMAF = "%54 = mmaf %50, %52, %49 : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>"
_C_VIEW = ("%55 = make_partition_view %33 : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>\n"
           "      %56 = store_view_tko weak %47, %55[%35, %39] token = %15 : tile<64x64xf32>, partition_view<tile=(64x64),")
_A_VIEW = "partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>\n      %46"
TEXT_MISTAKES = {
    # name: (the text replaced, its replacement, words of the error, text of the line the error names)
    "mmaf_of_a_times_a": (_MMAF, _MMAF.replace("%50, %52", "%50, %50").replace("tile<32x64xf16>", "tile<64x32xf16>"),
                          "lhs K dimension (32) must match rhs K dimension (64)", "%54 = mmaf %50, %50"),
    "mmaf_accumulating_into_an_i32_scalar": (_MMAF, "%54 = mmaf %50, %52, %42 : tile<64x32xf16>, tile<32x64xf16>, "
                                                    "tile<i32>", "has been previously used or defined with type "
                                                                 "!cuda_tile.tile<i32>", "continue %54"),
    "load_with_one_index_of_two": ("load_view_tko weak %45[%35, %48]", "load_view_tko weak %45[%35]",
                                   "expected 2 index operands (based on view type), got 1", "%50, %51 = load_view_tko"),
    "c_view_narrower_than_the_tile": (_C_VIEW, _C_VIEW.replace("tile=(64x64)", "tile=(64x32)"),
                                      "expected tile type to be tile<64x32xf32> (based on view type), got "
                                      "tile<64x64xf32>", "%56 = store_view_tko"),
    "divi_rounding_sideways": ("rounding<positive_inf>", "rounding<sideways>", "expected rounding to be one of",
                               "%42 = divi"),
    "block_id_bound_to_two_names": ("%35, %36, %37 = get_tile_block_id", "%35, %36 = get_tile_block_id",
                                    "Operation has 3 results, but was given 2 to bind", "%35, %36 = get_tile_block_id"),
    "tensor_view_given_one_stride": ("strides = [%24, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>",
                                     "strides = [1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>",
                                     "expected strides declaration to contain 2 elements due to tensor_view type",
                                     "%25 = make_tensor_view"),
    "an_undeclared_value": ("%54 = mmaf %50, %52, %49", "%54 = mmaf %50, %99, %49",
                            "use of undeclared SSA value name '%99'", "%54 = mmaf %50, %99"),
    "a_value_defined_twice": ("%44 = constant <i32: 1> : tile<i32>", "%43 = constant <i32: 1> : tile<i32>",
                              "SSA value %43 is already defined", "%43 = constant <i32: 1>"),
    "continue_in_the_entry_body": ("      return\n", "      continue %47 : tile<64x64xf32>\n",
                                   "'cuda_tile.continue' expects parent op to be one of", "continue %47"),
    "a_view_tile_of_rank_3": (_A_VIEW, _A_VIEW.replace("tile=(64x32)", "tile=(64x32x2)"),
                              "expected tensor_view rank and tile rank to match", "%45 = make_partition_view"),
    "a_pointer_to_i3": ("%0: tile<ptr<f16>>", "%0: tile<ptr<i3>>", "pointee type must be a number type, got i3",
                        "entry @"),
    "a_negative_tile_extent": ("%41 = constant <f32: 0.000000e+00> : tile<64x64xf32>",
                               "%41 = constant <f32: 0.000000e+00> : tile<64x-64xf32>", "expected element type",
                               "%41 = constant"),
}


def _base_text() -> str:
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode

    return str(read_bytecode(_bytecode()))


def _bytecode():
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[BASE]
    return cutile_bytecode(p.kernel, p.spec)


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


BYTECODE_MISTAKES = {
    # name: (the file's bytes from the program's, words of the error)
    "cut_in_half": (lambda d: d[:len(d) // 2], "exceeds the remaining"),
    "the_last_byte_missing": (lambda d: d[:-1], f"at offset {len(_bytecode()) - 1}: unexpected end of bytecode"),
    "version_99": (lambda d: d[:8] + bytes([99]) + d[9:], "unsupported bytecode version 99.4.0 (newer than the newest "
                   "this reader knows)"),
    "version_13_9": (lambda d: d[:8] + bytes([13, 9]) + d[10:], "unsupported bytecode version 13.9.0"),
    "zeros_after_the_header": (lambda d: d[:16] + bytes(len(d) - 16), "end section is not the last section"),
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


def _x(i, shape, dt="float32"):
    return _device_array(i, shape, dt)


def _dev(i, shape, dt="float32", strides=None, data=None):
    """A stand-in device array with byte ``strides`` and a ``data`` address of the test's choosing."""
    import numpy as np

    class Dev:
        __cuda_array_interface__ = {"data": (0x7F0000000000 + (i + 1) * 0x10000000 if data is None else data, False),
                                    "shape": tuple(shape), "typestr": np.dtype(dt).str,
                                    "strides": None if strides is None else tuple(strides), "version": 3}

    return Dev()


def _plain_function(X, Y, BN):
    """Not decorated with ``@ct.kernel``."""


SD = "seeded_dropout_pcg_hash"
_SD = (_x(0, (300,)), _x(1, (300,)), _x(2, (300,), "bool"), 20260, 0.3, 128)
I64 = "int64_arithmetic_past_2_pow_32"
_I64 = (_x(0, (100,), "int64"), _x(1, (100,), "int64"), 2**40 + 5, 64)
BMM = "bmm_4d_heads_weight_broadcast_over_batch"
_BMM = (_x(0, (2, 3, 70, 64), "float16"), _x(1, (1, 3, 64, 80), "float16"), _x(2, (2, 3, 70, 80)), 64, 64, 32)
I8 = "int8_gemm_int32_out"
_I8 = (_x(0, (130, 96), "int8"), _x(1, (96, 72), "int8"), _x(2, (130, 72), "int32"), 64, 64, 32)
BIG = "gemm_int64_indexed_operands"

LAUNCH_MISTAKES = {
    # name: (program, grid, args, exception type, words of its message)
    "a_grid_of_four_dimensions": (SD, (1, 1, 1, 3), _SD, ValueError,
                                  "grid must be a tuple of 1 to 3 ints, got 4 of them: (1, 1, 1, 3)"),
    "a_numpy_float32_scalar": (SD, (3,), _SD[:4] + ("np.float32",) + _SD[5:], TypeError,
                               "argument 4 ('p') is a numpy float32 scalar: pass a Python int, float or bool"),
    "a_float_past_float32": (SD, (3,), _SD[:4] + (1e39,) + _SD[5:], ValueError,
                             "argument 4 ('p') = 1e+39 does not fit in float32"),
    "a_list_for_a_constant": (SD, (3,), _SD[:5] + ([128],), TypeError,  # (was "tuple parameters are not supported")
                              "argument 5 ('BN') is a ct.Constant parameter: it takes a Python bool, int or float, "
                              "got list"),
    "a_reversed_view": (SD, (3,), (_dev(0, (300,), strides=(-4,)),) + _SD[1:], ValueError,
                        "a negative stride (a reversed view) is not supported by cuTile kernels"),
    "a_misaligned_base_address": (SD, (3,), (_dev(0, (300,), data=0x7F0000000002),) + _SD[1:], ValueError,
                                  "base address 0x7f0000000002 is not a multiple of its 4-byte float32 elements"),
    "strides_not_whole_elements": (SD, (3,), (_dev(0, (300,), strides=(6,)),) + _SD[1:], ValueError,
                                   "has strides (6,) bytes, not a multiple of its 4-byte elements"),
    "a_null_pointer": (SD, (3,), (_dev(0, (300,), data=0),) + _SD[1:], ValueError,
                       "has 300 elements at address 0 (a null pointer)"),
    "a_negative_extent": (SD, (3,), (_dev(0, (-300,)),) + _SD[1:], ValueError,
                          "has shape (-300,): an extent is negative"),
    "a_complex64_array": (SD, (3,), (_x(0, (300,), "complex64"),) + _SD[1:], TypeError,
                          "which cuTile kernels do not take"),
    "an_array_for_a_scalar_int64": (I64, (2,), _I64[:2] + (_x(2, (1,), "int64"),) + _I64[3:], TypeError,
                                    "argument 2 ('base') is annotated as a scalar, got an array"),
    "a_float_for_a_scalar_int64": (I64, (2,), _I64[:2] + (5.0,) + _I64[3:], TypeError,
                                   "argument 2 ('base') is annotated as an int64 scalar, got a float (5.0)"),
    "not_a_ct_kernel": (None, (3,), _SD, TypeError,
                        "kernel must be a function decorated with @cuda.tile.kernel, got function"),
    "an_int64_indexed_gemm_operand_of_2_pow_31": (
        BIG, (2, 2), (_x(0, (2**31, 64), "float16"), _x(1, (64, 80), "float16"), _x(2, (100, 80)), 64, 64, 32),
        ValueError, "reach 2**31: ct.IndexedWithInt64 is accepted, but tileorch's kernels compute sizes"),
    "f16_arrays_for_the_int8_gemm": (I8, (3, 2), (_x(0, (130, 96), "float16"), _x(1, (96, 72), "float16")) + _I8[2:],
                                     Exception, "Unsupported acc dtype"),
    "a_3d_array_for_the_4d_bmm": (BMM, (2, 2, 6), (_x(0, (3, 70, 64), "float16"),) + _BMM[1:], Exception,
                                  "Index 3 is out of range for a tuple of length 3"),
}


@pytest.mark.parametrize("name", sorted(LAUNCH_MISTAKES))
def test_a_launch_mistake_raises_naming_what_is_wrong(name, monkeypatch):
    import numpy as np

    prog, grid, args, kind, words = LAUNCH_MISTAKES[name]
    args = tuple(np.float32(0.3) if isinstance(a, str) and a == "np.float32" else a for a in args)
    kernel = _plain_function if prog is None else PROGRAMS[prog].kernel
    exc, drv = _launch(kernel, grid, args, monkeypatch)
    assert isinstance(exc, kind) and words in str(exc), repr(exc)
    assert "internal error" not in str(exc) and not drv.loaded and not drv.launches
    if kind is Exception:  # cuTile's own error: at the user's line of the kernel's source
        assert f'"{SOURCE}", line ' in str(exc), str(exc)


def test_the_launch_of_a_valid_program_gets_as_far_as_the_driver(monkeypatch):
    """The control for the table above: the same arguments, right, reach the (fake) driver's module load -- so
    each mistake is what stopped its launch."""
    exc, drv = _launch(PROGRAMS[SD].kernel, (3,), _SD, monkeypatch)
    assert exc is not None and f"no kernel named '{SD}_" in str(exc), repr(exc)
