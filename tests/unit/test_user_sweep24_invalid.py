"""The twenty-fourth user sweep (``tileorch.testing.user_programs24``): invalid inputs the sweeps 17,
19 and 21 did not try.  :data:`INVALID` stops with ``file:line:col: error:`` at the user's line by the
four routes of ``invalid_sweep_checks``; :data:`WARNED` compiles with a located ``warning:`` at the
user's line; :data:`REJECTED_BY_CUTILE` is refused by cuTile's front end at the user's line; and
launch-time mistakes through ``tileorch.cutile.launch`` (stand-in device arrays, a fake driver) raise
a Python exception whose message names the argument / parameter and what is wrong, nothing loaded or
launched, or are accepted where the decision is that they run (strided arrays, overlapping arrays)."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs24  # noqa: E402
from tileorch.testing.user_programs24 import INVALID, LAUNCH, REJECTED_BY_CUTILE, WARNED  # noqa: E402
from invalid_sweep_checks import (_device_array, cutile_rejects_tests, invalid_sweep_tests,  # noqa: E402
                                  invalid_text_and_launch_tests, line_of)

SOURCE = user_programs24.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["printf_a_whole_512x512_tile"])
test_tileorch_compile_of_the_mlir_text_exits_non_zero_at_its_line, test_cutile_launch_stops_at_the_users_line = \
    invalid_text_and_launch_tests(INVALID, SOURCE, sorted(INVALID))

test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)


def _def_line(kernel) -> int:
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if ln.startswith("def "))


@pytest.mark.parametrize("name", sorted(WARNED))
def test_the_driver_warns_at_the_users_line(name):
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    kernel, spec, words, text = WARNED[name]
    program = compile_program(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False)
    line = _def_line(kernel) if text is None else line_of(kernel, text)
    said = [r for r in program.remarks if ": warning: " in r and words in r]
    assert said and said[0].startswith(f"{SOURCE}:{line}:"), program.remarks


def test_num_ctas_past_16_is_refused_when_the_kernel_is_defined():
    import cuda.tile as ct

    with pytest.raises(ValueError, match=r"num_ctas should be \[1, 16\], got 32"):
        ct.kernel(num_ctas=32)(LAUNCH._annotated_function.pyfunc)


# --------------------------------------------------------------------------------------------- launch mistakes


class _Strided:
    """A stand-in device array at ``ptr`` with explicit byte ``strides`` (None: contiguous)."""

    def __init__(self, ptr, shape, strides, typestr="<f4"):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": tuple(shape), "typestr": typestr,
                                         "strides": strides, "version": 3}


class _StreamOfDevice1:
    """A stream object saying, as torch's do, that it belongs to cuda:1."""

    device_index = 1

    def __cuda_stream__(self):
        return (0, 0x1234)


def _launch(grid, args, monkeypatch, stream=0):
    """``tileorch.cutile.launch(stream, grid, scale_by_two, args)`` on a fake driver: (the exception or
    None, the driver)."""
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
            rc.launch(stream, grid, LAUNCH, args)
    except Exception as exc:  # noqa: BLE001 - the test reads it
        return exc, drv
    finally:
        rt_device.forget_devices()
        rc.clear_caches()
    return None, drv


def _x(i=0, n=256):
    return _device_array(i, (n,), "float32")


BASE = 0x7F0000000000

LAUNCH_MISTAKES = {
    # name: (grid, args, stream, exception type, words of its message)
    "one_argument_missing": ((2,), (_x(0), _x(1)), 0, TypeError, "kernel 'scale_by_two' takes 3 arguments "
                                                                 "(X, Y, BN), got 2"),
    "one_argument_too_many": ((2,), (_x(0), _x(1), 128, 1), 0, TypeError, "takes 3 arguments (X, Y, BN), got 4"),
    "a_host_numpy_array": ((2,), ("numpy", _x(1), 128), 0, TypeError, "argument 0 ('X') is a numpy array, in host "
                                                                      "memory"),
    "a_string_for_an_array": ((2,), (_x(0), "Y", 128), 0, TypeError, "argument 1 ('Y'): cannot pass a str"),
    "grid_of_zero_programs": ((0,), (_x(0), _x(1), 128), 0, ValueError, "grid extents must be positive, got (0,)"),
    "grid_with_a_negative_dim": ((2, -1), (_x(0), _x(1), 128), 0, ValueError, "grid extents must be positive"),
    "grid_y_past_65535": ((1, 70000), (_x(0), _x(1), 128), 0, ValueError, "exceeds what CUDA launches"),
    "grid_of_floats": ((2.0,), (_x(0), _x(1), 128), 0, TypeError, "grid must be a tuple of 1 to 3 ints"),
    "a_stream_of_another_device": ((2,), (_x(0), _x(1), 128), "device1", ValueError,
                                   "is on cuda:1; tileorch.cutile.launch runs kernels on device 0"),
    "sizes_past_2_31_without_int64_indices": ((1,), (_x(0, 2**31 + 5), _x(1, 2**31 + 5), 128), 0, ValueError,
                                              "argument 0 ('X'): shape (2147483653,) or strides (1,) exceed the "
                                              "int32 index range; annotate the parameter with ct.IndexedWithInt64"),
    "a_misaligned_base_address": ((1,), (_Strided(BASE + 2, (256,), None), _x(1), 128), 0, ValueError,
                                  "argument 0 ('X'): base address 0x7f0000000002 is not a multiple of its 4-byte"),
}


@pytest.mark.parametrize("name", sorted(LAUNCH_MISTAKES))
def test_a_launch_mistake_raises_naming_what_is_wrong(name, monkeypatch):
    import numpy as np

    grid, args, stream, kind, words = LAUNCH_MISTAKES[name]
    args = tuple(np.zeros(256, np.float32) if a == "numpy" else a for a in args)
    exc, drv = _launch(grid, args, monkeypatch, _StreamOfDevice1() if stream == "device1" else stream)
    assert type(exc) is kind and words in str(exc), repr(exc)
    assert "internal error" not in str(exc) and not drv.loaded and not drv.launches


def test_a_float_for_a_constant_int_names_the_parameter_and_the_kernel(monkeypatch):
    """Before: cuTile typed 128.0 as a float tile and failed at the load's ``shape=(BN,)`` ("Expected a
    tuple of integers, but element #0 has type Tile[float32,()]"), naming neither the parameter nor the
    value (and would have computed silently with 0.5 where a float is allowed).  Now a warning at the
    launch names both, and cuTile's error at the export carries the same words as a note.  (Not an
    error of its own: cuTile never reads the T of ``Constant[T]``, so a float used only where floats are
    allowed is a valid cuTile program; review, session 32.)"""
    import inspect

    with pytest.warns(UserWarning) as caught:
        exc, drv = _launch((2,), (_x(0), _x(1), 128.0), monkeypatch)
    first = inspect.getsourcelines(LAUNCH._annotated_function.pyfunc)[1]
    words = (f"argument 2 ('BN') is declared ct.Constant[int] (kernel 'scale_by_two', {SOURCE}:{first}), "
             "got float 128.0: pass an int (128)")
    assert any(words in str(w.message) for w in caught), [str(w.message) for w in caught]
    assert exc is not None and words in "\n".join(getattr(exc, "__notes__", [])), repr(exc)
    assert not drv.loaded


def test_a_bool_for_a_constant_int_is_what_cutile_takes_for_a_flag():
    """cuTile types a bool given to ``ct.Constant[int]`` as a Bool constant (``if FLAG:`` flags are written
    so): accepted, no warning (review, session 32: the sweep's first version refused it)."""
    import warnings

    from tileorch.launchers.cutile import ConstantArg, describe_arguments

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        args = describe_arguments(LAUNCH, (_x(0), _x(1), True))
    assert isinstance(args[2], ConstantArg) and args[2].value is True


def test_strided_and_overlapping_arrays_are_accepted_as_what_they_are():
    """Decided: a non-contiguous array runs with its strides (cuTile's loads take any stride), and arrays
    that overlap, one written, compile into one alias group (no read-only cache path, loads ordered after
    the program's own stores); which program's store another program reads is the user's race, as on
    cuTile."""
    from tileorch.launchers.cutile import describe_arguments

    x, y, _ = describe_arguments(LAUNCH, (_Strided(BASE, (256,), (8,)), _x(1), 128))
    assert x.strides == (2,) and not x.alias_groups
    x, y, _ = describe_arguments(LAUNCH, (_Strided(BASE, (256,), None), _Strided(BASE + 256, (256,), None), 128))
    assert x.alias_groups and x.alias_groups == y.alias_groups
