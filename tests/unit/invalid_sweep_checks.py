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


def _program_bytecode(programs: dict, base: str) -> bytes:
    from tileorch.testing.export import cutile_bytecode

    p = programs[base]
    return cutile_bytecode(p.kernel, p.spec)


def text_mistake_tests(programs: dict, base: str, mistakes: dict):
    """The test of a sweep's table ``mistakes`` (name -> (the text replaced, its replacement, words of the error,
    text of the line the error names)) of edits to the ``cuda_tile`` text of the valid program ``programs[base]``
    (what a user writing Tile IR by hand gets wrong): ``tileorch compile`` exits non-zero with
    ``k.mlir:L:C: error:`` holding the words at the line holding the text, no traceback or internal error.  The
    replaced text must occur once.  A file binds it to its ``test_`` name."""

    def base_text() -> str:
        from tileorch.frontend.cuda_tile_bytecode import read_bytecode

        return str(read_bytecode(_program_bytecode(programs, base)))

    @pytest.mark.parametrize("name", sorted(mistakes))
    def test_a_cuda_tile_text_mistake_stops_at_its_line(name, tmp_path, capsys):
        import re

        old, new, words, line_text = mistakes[name]
        text = base_text()
        assert text.count(old) == 1, name
        text = text.replace(old, new)
        path = tmp_path / "k.mlir"
        path.write_text(text)
        code, said = compile_cli(path, capsys)
        m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): error: (.*)", said)
        assert code != 0 and m and words in m.group(3), said
        lines = text.splitlines()
        at = int(m.group(1))
        assert line_text in (lines[at - 1] if at <= len(lines) else ""), (at, said)
        assert "Traceback" not in said and "internal error" not in said, said

    return test_a_cuda_tile_text_mistake_stops_at_its_line


def other_file_tests(programs: dict, base: str, files: dict, every: int = 41, corrupt: str = "drop"):
    """The two tests of a sweep's table ``files`` (name -> (file name, its bytes from the bytecode of
    ``programs[base]``, words of the error[, the file the error names instead, at any line])): ``tileorch compile``
    of each exits non-zero naming the file (at ``:1:1`` or without a position) with the words, no traceback; and the
    program's bytecode with each ``every``-th byte dropped (``corrupt="drop"``) or flipped (``"flip"``) in turn
    either compiles or exits non-zero with an error, never a traceback or an internal error.  A file binds them to
    its ``test_`` names."""

    @pytest.mark.parametrize("name", sorted(files))
    def test_another_binary_or_a_broken_export_exits_non_zero_naming_the_file(name, tmp_path, capsys):
        import re

        file_name, edit, words = files[name][:3]
        path = tmp_path / file_name
        path.write_bytes(edit(_program_bytecode(programs, base)))
        code, said = compile_cli(path, capsys)
        where = rf"{re.escape(str(path))}(:1:1)?" if len(files[name]) == 3 else rf"{re.escape(files[name][3])}(:\d+:\d+)?"
        assert code != 0 and re.search(rf"{where}: error: ", said) and words in said, said
        assert "Traceback" not in said and "internal error" not in said, said

    def test_every_dropped_byte_exits_cleanly(tmp_path, capsys):
        data = _program_bytecode(programs, base)
        for at in range(8, len(data), every):
            path = tmp_path / f"k{at}.tileirbc"
            changed = b"" if corrupt == "drop" else bytes([data[at] ^ 0xFF])
            path.write_bytes(data[:at] + changed + data[at + 1:])
            code, said = compile_cli(path, capsys)
            assert "Traceback" not in said and "internal error" not in said, (at, said)
            assert code == 0 or ": error: " in said, (at, said)

    return test_another_binary_or_a_broken_export_exits_non_zero_naming_the_file, test_every_dropped_byte_exits_cleanly


def launch_on_a_fake_driver(kernel, grid, args, monkeypatch):
    """``tileorch.cutile.launch(0, grid, kernel, args)`` on a fake driver (test_cutile_launch.FakeDriver: the
    driver calls of a module load and a launch, no GPU): (the exception or None, the driver)."""
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


def launch_mistake_tests(programs: dict, mistakes: dict, source: str, control: tuple):
    """The two tests of a sweep's table ``mistakes`` (name -> (program, grid, args, kind, words of the message))
    of arguments given wrong to ``tileorch.cutile.launch`` (stand-in device arrays, a fake driver): each raises an
    exception holding the words, with nothing loaded or launched -- ``kind`` ``"located"``: tileorch's own error at
    the user's line of ``source``; ``Exception``: cuTile's own error naming the kernel's line in ``source``; else
    the exception's type.  ``control`` = (program, grid, args, words): the same program with right arguments
    reaches the fake driver's module load (whose failure holds the words), so each mistake is what stopped its
    launch (``words`` a tuple: any of them).  A file binds them to its ``test_`` names."""

    @pytest.mark.parametrize("name", sorted(mistakes))
    def test_a_launch_mistake_raises_naming_what_is_wrong(name, monkeypatch):
        from tileorch.diagnostics import CompileError, LocatedError

        prog, grid, args, kind, words = mistakes[name]
        exc, drv = launch_on_a_fake_driver(programs[prog].kernel, grid, args, monkeypatch)
        assert exc is not None and words in str(exc), repr(exc)
        assert "internal error" not in str(exc) and not drv.loaded and not drv.launches
        if kind == "located":
            assert isinstance(exc, (CompileError, LocatedError)) and str(exc).startswith(f"{source}:"), str(exc)
        elif kind is Exception:
            assert f'"{source}", line ' in str(exc), str(exc)
        else:
            assert isinstance(exc, kind), repr(exc)

    def test_the_launch_of_a_valid_program_gets_as_far_as_the_driver(monkeypatch):
        prog, grid, args, words = control
        exc, drv = launch_on_a_fake_driver(programs[prog].kernel, grid, args, monkeypatch)
        assert exc is not None and any(w in str(exc) for w in ((words,) if isinstance(words, str) else words)), \
            repr(exc)

    return (test_a_launch_mistake_raises_naming_what_is_wrong,
            test_the_launch_of_a_valid_program_gets_as_far_as_the_driver)
