"""The checks a user sweep's ``_invalid`` file runs on its table of programs that cannot run as
written (sweeps 17 and 19): compiled by the driver and by ``tileorch compile`` on the exported
``.tileirbc``, each stops with ``file:line:col: error:`` at the line of the user's source that the
entry's ``notes`` quote, its message holds the entry's ``error``, the command exits non-zero, and
nothing reads as a traceback or an internal error."""

from __future__ import annotations

import inspect
import os

import pytest


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
