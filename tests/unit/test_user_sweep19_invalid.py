"""The nineteenth user sweep's invalid half (``tileorch.testing.user_programs19``): programs a user
gets wrong.  :data:`INVALID` (cuTile's front end accepts them: an unsigned ``//``, tiles too large
for the registers or for shared memory in a ``cumsum`` / ``permute`` / ``full`` / ``cat``, a
system-scope ``atomic_xchg``, conversions and scans rounded toward zero, an e8m0 tile): compiled by
the driver and by ``tileorch compile`` on the exported ``.tileirbc``, each stops with
``file:line:col: error:`` at the line of the user's source that the entry's ``notes`` quote, the
message says why, the command exits non-zero, and nothing reads as a traceback or an internal
error.  :data:`REJECTED_BY_CUTILE` (non-power-of-two tiles, a constant given a float, an extract
past the tile, shape / rank / type mismatches, a negative ``range`` step, float atomics cuTile does
not have...): cuTile's exporter raises its own error naming the user's line, so no tileorch input
exists for them; the test keeps cuTile's behaviour in sight."""

from __future__ import annotations

import inspect
import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs19  # noqa: E402
from tileorch.testing.user_programs19 import INVALID, REJECTED_BY_CUTILE  # noqa: E402

SOURCE = user_programs19.__file__


def _line_of(kernel, text: str) -> int:
    """The line of ``kernel``'s body (past its docstring) that holds ``text``."""
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    start = next(i for i, ln in enumerate(lines) if '"""' in ln)
    end = start if lines[start].count('"""') == 2 else next(i for i in range(start + 1, len(lines))
                                                            if '"""' in lines[i])
    body = end + 1
    return first + next(i for i, ln in enumerate(lines) if i >= body and text in ln)


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


@pytest.mark.parametrize("name", ["uint32_floor_division", "cumsum_down_512x512_f32", "e8m0_scales_widened"])
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


@pytest.mark.parametrize("name", sorted(REJECTED_BY_CUTILE))
def test_cutile_rejects_at_the_users_line(name):
    from tileorch.testing.export import cutile_bytecode

    kernel, spec, words, line_text = REJECTED_BY_CUTILE[name]
    with pytest.raises(Exception) as info:
        cutile_bytecode(kernel, spec)
    message = str(info.value)
    assert words in message, message
    assert f'"{SOURCE}", line {_line_of(kernel, line_text)}' in message, message
