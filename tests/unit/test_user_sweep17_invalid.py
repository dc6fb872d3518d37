"""The seventeenth user sweep's invalid half (``tileorch.testing.user_programs17.INVALID``): cuTile
programs a user gets wrong that cuTile's own front end accepts (a tile too large for shared memory
in a transpose, a 1-D tile stored into a 2-D array, a system-scope atomic, one tile for a whole
16M-element array).  Compiled by the driver and by ``tileorch compile`` on the exported
``.tileirbc``: each stops with ``file:line:col: error:`` at the line of the user's source that the
entry's ``notes`` quote, the message says why, the command exits non-zero, and nothing reads as a
traceback or an internal error."""

from __future__ import annotations

import inspect
import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs17  # noqa: E402
from tileorch.testing.user_programs17 import INVALID  # noqa: E402

SOURCE = user_programs17.__file__


def _line_of(kernel, text: str) -> int:
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


def _bytecode(name):
    from tileorch.testing.export import cutile_bytecode

    p = INVALID[name]
    return cutile_bytecode(p.kernel, p.spec)


@pytest.mark.parametrize("name", sorted(INVALID))
def test_the_driver_stops_at_the_users_line(name):
    from tileorch.diagnostics import CompileError, LocatedError
    from tileorch.driver import compile_program

    p = INVALID[name]
    with pytest.raises((LocatedError, CompileError)) as info:
        compile_program(_bytecode(name), name, arch="sm_90a", ptxas=False)
    message = str(info.value)
    assert message.startswith(f"{SOURCE}:{_line_of(p.kernel, p.notes)}:"), message
    assert ": error: " in message and p.error in message, message
    assert "internal error" not in message and "Traceback" not in message, message


@pytest.mark.parametrize("name", ["transpose_256x256_f32_tile", "store_1d_tile_into_2d_array"])
def test_tileorch_compile_exits_non_zero_with_the_located_error(name, tmp_path, capsys):
    from tileorch.cli.main import main

    path = tmp_path / f"{name}.tileirbc"
    path.write_bytes(_bytecode(name))
    try:
        code = main(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull])
    except SystemExit as exc:  # how the command line ends on an error
        code = exc.code
    out = capsys.readouterr()
    text = out.out + out.err
    p = INVALID[name]
    assert code != 0, text
    assert f"{SOURCE}:{_line_of(p.kernel, p.notes)}:" in text and p.error in text, text
    assert "Traceback" not in text and "internal error" not in text, text
