"""The checks a user sweep's ``_invalid`` file runs on its table of programs that cannot run as
written (sweeps 17 and 19): compiled by the driver and by ``tileorch compile`` on the exported
``.tileirbc``, each stops with ``file:line:col: error:`` at the line of the user's source that the
entry's ``notes`` quote, its message holds the entry's ``error``, the command exits non-zero, and
nothing reads as a traceback or an internal error."""

from __future__ import annotations

import inspect
import os

import pytest


def compile_cli(path, capsys) -> tuple[int, str]:
    """``tileorch compile PATH`` in this process (no ptxas, no cache): its exit code and everything it printed."""
    from tileorch.cli.main import main

    try:
        code = main(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out + out.err


def line_of(kernel, text: str) -> int:
    """The line of ``kernel``'s body (past its docstring) that holds ``text``."""
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    start = next(i for i, ln in enumerate(lines) if '"""' in ln)
    end = start if lines[start].count('"""') == 2 else next(i for i in range(start + 1, len(lines))
                                                            if '"""' in lines[i])
    return first + next(i for i, ln in enumerate(lines) if i > end and text in ln)


def invalid_sweep_tests(invalid: dict, source: str, on_the_command_line: list[str]):
    """The two tests of a sweep's ``_invalid`` file for its table ``invalid`` (kernels defined in
    the file ``source``): the driver's located error for every entry, and ``tileorch compile``'s
    exit status and output for the entries named in ``on_the_command_line``.  A file binds them
    to its ``test_`` names."""

    def bytecode(name):
        from tileorch.testing.export import cutile_bytecode

        p = invalid[name]
        return cutile_bytecode(p.kernel, p.spec)

    @pytest.mark.parametrize("name", sorted(invalid))
    def test_the_driver_stops_at_the_users_line(name):
        from tileorch.diagnostics import CompileError, LocatedError
        from tileorch.driver import compile_program

        p = invalid[name]
        with pytest.raises((LocatedError, CompileError)) as info:
            compile_program(bytecode(name), name, arch="sm_90a", ptxas=False)
        message = str(info.value)
        assert message.startswith(f"{source}:{line_of(p.kernel, p.notes)}:"), message
        assert ": error: " in message and p.error in message, message
        assert "internal error" not in message and "Traceback" not in message, message

    @pytest.mark.parametrize("name", on_the_command_line)
    def test_tileorch_compile_exits_non_zero_with_the_located_error(name, tmp_path, capsys):
        from tileorch.cli.main import main

        path = tmp_path / f"{name}.tileirbc"
        path.write_bytes(bytecode(name))
        try:
            code = main(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull])
        except SystemExit as exc:  # how the command line ends on an error
            code = exc.code
        out = capsys.readouterr()
        text = out.out + out.err
        p = invalid[name]
        assert code != 0, text
        assert f"{source}:{line_of(p.kernel, p.notes)}:" in text and p.error in text, text
        assert "Traceback" not in text and "internal error" not in text, text

    return test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error


def _cuda_tile_text(p) -> str:
    """The program's CUDA Tile IR as ``cuda_tile`` text (what a user writing MLIR by hand gives
    ``tileorch compile``: the exporter's locations are not printed, so errors name the text's lines)."""
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.testing.export import cutile_bytecode

    return str(read_bytecode(cutile_bytecode(p.kernel, p.spec)))


def _device_array(i: int, shape, dtype: str):
    """A stand-in device array (``__cuda_array_interface__``, never dereferenced) of a numpy dtype."""
    import numpy as np

    class Dev:
        __cuda_array_interface__ = {"data": (0x7F0000000000 + (i + 1) * 0x10000000, False), "shape": tuple(shape),
                                    "typestr": np.dtype(dtype).str, "strides": None, "version": 3}

    return Dev()


def invalid_text_and_launch_tests(invalid: dict, source: str, as_text: list[str]):
    """Two more routes for a sweep's table ``invalid``: ``tileorch compile`` on the programs named in
    ``as_text`` written as ``cuda_tile`` text (a ``.mlir`` file: ``k.mlir:L:C: error:`` at the line of
    the op the message names, or of some op, the message, a non-zero exit, no traceback; programs
    whose error the bytecode reader raises, an invalid type, have no text to write), and
    ``tileorch.cutile.launch``
    on stand-in device arrays (entries whose arrays have numpy dtypes; the launch path with a fake
    driver: the located error at the user's line, nothing launched).  A file binds them to its
    ``test_`` names."""
    import re

    @pytest.mark.parametrize("name", as_text)
    def test_tileorch_compile_of_the_mlir_text_exits_non_zero_at_its_line(name, tmp_path, capsys):
        from tileorch.cli.main import main

        text = _cuda_tile_text(invalid[name])
        path = tmp_path / "k.mlir"
        path.write_text(text)
        try:
            code = main(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull])
        except SystemExit as exc:
            code = exc.code
        out = capsys.readouterr()
        said = out.out + out.err
        m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): error: (.*)", said)
        assert code != 0 and m and invalid[name].error in m.group(3), said
        assert "Traceback" not in said and "internal error" not in said, said
        line = text.splitlines()[int(m.group(1)) - 1]
        named = re.search(r"'cuda_tile\.(\w+)'", m.group(3)) or re.search(r"'(make_partition_view)'", m.group(3))
        assert (named.group(1) if named else "=") in line, (line, said)

    @pytest.mark.parametrize("name", sorted(n for n, p in invalid.items()
                                            if all(not isinstance(s, tuple) or s[1] not in ("bfloat16",)
                                                   and not s[1].startswith("float8") for s in p.spec)))
    def test_cutile_launch_stops_at_the_users_line(name, monkeypatch):
        from test_cutile_launch import FakeDriver  # the driver calls of a module load and a launch, no GPU

        from tileorch.diagnostics import CompileError, LocatedError
        from tileorch.launchers import cutile as rc
        from tileorch.runtime import device as rt_device
        from tileorch.runtime.driver import use_api

        p = invalid[name]
        args = tuple(_device_array(i, s[0], s[1]) if isinstance(s, tuple) else s for i, s in enumerate(p.spec))
        drv = FakeDriver({})
        monkeypatch.setenv("TILEORCH_CACHE", "0")
        rc.clear_caches()
        rt_device.forget_devices()
        try:
            with use_api(drv), pytest.raises((LocatedError, CompileError)) as info:
                rc.launch(0, p.grid, p.kernel, args)
        finally:
            rt_device.forget_devices()
            rc.clear_caches()
        message = str(info.value)
        assert message.startswith(f"{source}:{line_of(p.kernel, p.notes)}:") and p.error in message, message
        assert not drv.launches

    return test_tileorch_compile_of_the_mlir_text_exits_non_zero_at_its_line, test_cutile_launch_stops_at_the_users_line


def cutile_rejects_tests(rejected: dict, source: str):
    """The test of a sweep's table ``rejected`` (name -> (kernel, spec, words of cuTile's message,
    the source text of the line it names)): cuTile's exporter raises, its message holds the words
    and names the user's line in ``source``.  A file binds it to its ``test_`` name."""

    @pytest.mark.parametrize("name", sorted(rejected))
    def test_cutile_rejects_at_the_users_line(name):
        from tileorch.testing.export import cutile_bytecode

        kernel, spec, words, line_text = rejected[name]
        with pytest.raises(Exception) as info:
            cutile_bytecode(kernel, spec)
        message = str(info.value)
        assert words in message, message
        assert f'"{source}", line {line_of(kernel, line_text)}' in message, message

    return test_cutile_rejects_at_the_users_line
