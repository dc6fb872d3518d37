"""A diagnostic at an op of a ``ct.function`` helper that cuTile inlined into the kernel names the helper's line
(``file:line:col: error:``, as before) and then each call on the way from the kernel as ``file:line:col: note:
called from`` (MLIR's call-site notes), innermost call first; through the bytecode reader's error, a lowering's
located error, the tier's refusal remark, and ``tileorch compile`` on CUDA Tile IR text with ``loc(callsite(...))``.
Found in session 30: the helper's line only, so a user could not tell which call of the helper failed.  Frames of
cuTile's own library (``_stub.py``) stay out: an op written in the kernel has no note."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")

from xdsl.dialects.builtin import (CallSiteLoc, FileLineColLoc, FusedLoc, IntAttr, NameLoc, StringAttr,  # noqa: E402
                                   UnitAttr)

from tileorch.diagnostics import call_sites, called_from_notes  # noqa: E402


def _at(name, line, col=1):
    return FileLineColLoc(StringAttr(name), IntAttr(line), IntAttr(col))


def _where(loc):
    return [(p.filename.data, p.line.data) for p in call_sites(loc)]


def test_call_sites_are_the_callers_innermost_first():
    assert _where(_at("h.py", 3)) == []
    assert _where(CallSiteLoc(_at("h.py", 3), _at("k.py", 9))) == [("k.py", 9)]
    # both nestings MLIR writes: callsite(callsite(h at m) at k) and callsite(h at callsite(m at k))
    assert _where(CallSiteLoc(CallSiteLoc(_at("h.py", 3), _at("m.py", 5)), _at("k.py", 9))) == [("m.py", 5), ("k.py", 9)]
    assert _where(CallSiteLoc(_at("h.py", 3), CallSiteLoc(_at("m.py", 5), _at("k.py", 9)))) == [("m.py", 5), ("k.py", 9)]
    assert _where(NameLoc(StringAttr("x"), CallSiteLoc(_at("h.py", 3), _at("k.py", 9)))) == [("k.py", 9)]
    assert _where(FusedLoc([CallSiteLoc(_at("h.py", 3), _at("k.py", 9))], UnitAttr())) == [("k.py", 9)]
    assert called_from_notes(CallSiteLoc(_at("h.py", 3, 7), _at("k.py", 9, 2))) == "\nk.py:9:2: note: called from"


ct = pytest.importorskip("cuda.tile")

from tileorch.testing import inlined_helper_programs as progs  # noqa: E402

SOURCE = progs.__file__


def _position(comment: str, text: str) -> str:
    """``SOURCE:line:col`` of ``text`` on the line of SOURCE ending with the comment ``# comment`` (cuTile's
    columns: 0-based)."""
    with open(SOURCE) as f:
        lines = f.read().splitlines()
    found = [(i + 1, ln) for i, ln in enumerate(lines) if ln.rstrip().endswith(f"# {comment}") and text in ln]
    assert len(found) == 1, (comment, text, found)
    line, ln = found[0]
    return f"{SOURCE}:{line}:{ln.index(text)}"


def _compile(name):
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    return compile_program(cutile_bytecode(progs.KERNELS[name], progs.SPECS[name]), name, arch="sm_90a",
                           ptxas=False)


def _error(name) -> list[str]:
    from tileorch.diagnostics import CompileError, LocatedError

    with pytest.raises((LocatedError, CompileError)) as info:
        _compile(name)
    return str(info.value).splitlines()


def test_the_readers_error_in_a_helper_notes_the_kernels_call():
    lines = _error("helper_stores_1d_tile_into_2d")
    assert lines[0].startswith(_position("a 1-D tile into a 2-D array: the reader's error", "ct.store") +
                               ": error: 'make_partition_view' has an invalid result type"), lines
    assert lines[1:] == [_position("the kernel's call", "_store_row(Y, x)") + ": note: called from"], lines


def test_a_helper_called_from_a_helper_notes_both_calls_innermost_first():
    lines = _error("helper_in_helper_stores_1d_tile")
    assert lines[0].startswith(_position("a 1-D tile into a 2-D array: the reader's error", "ct.store") + ": error:")
    assert lines[1:] == [_position("the inner call", "_store_row(Y, x)") + ": note: called from",
                         _position("the kernel's call", "_store_row_twice_removed(Y, x)") + ": note: called from"], lines


def test_a_lowerings_located_error_in_a_helper_notes_the_call():
    lines = _error("helper_system_scope_atomic")
    assert lines[0].startswith(_position("the SIMT lowering's error", "ct.atomic_add") + ": error: "), lines
    assert "system-scope atomic_rmw" in lines[0], lines
    assert lines[1:] == [_position("the kernel's call", "_system_add(Y, x, BN)") + ": note: called from"], lines


def test_the_tiers_refusal_in_a_helper_notes_the_call_under_its_first_line():
    result = _compile("mm_helper_loads_neg_inf_padded_a")
    assert result.kind == "simt"
    refusal, = [r for r in result.remarks if "tensor-core path refused" in r]
    lines = refusal.splitlines()
    assert lines[0].startswith(_position("the tier's refusal", "ct.load") + ": warning: this dot operand is loaded "
                               "with padding_mode=NEG_INF"), lines
    assert lines[0].endswith("]") and "[the tensor-core path refused this kernel: " in lines[0], lines
    assert lines[1:] == [_position("the kernel's call", "_neg_inf_tile(A, i, k, tm, tk)") + ": note: called from"]


def test_an_op_written_in_the_kernel_has_no_note():
    """store_1d_tile_into_2d_array (sweep 17): the same mistake in the kernel; ct.store is inlined from cuTile's
    library, whose frames are not calls of the user's."""
    from tileorch.diagnostics import CompileError
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs17 import INVALID

    p = INVALID["store_1d_tile_into_2d_array"]
    with pytest.raises(CompileError) as info:
        compile_program(cutile_bytecode(p.kernel, p.spec), "s", arch="sm_90a", ptxas=False)
    assert len(str(info.value).splitlines()) == 1 and "note:" not in str(info.value), str(info.value)


def test_tileorch_compile_on_text_with_a_call_site_location_prints_the_notes(tmp_path, capsys):
    """CUDA Tile IR text (the system-scope atomic kernel as the reader gives it) whose atomic carries
    ``loc(callsite("helper.py":6:4 at callsite("mid.py":11:4 at "kernel.py":17:4)))``: the command's error is at
    helper.py, with the two calls as notes, and it exits non-zero."""
    from tileorch.cli.main import main
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.testing.export import cutile_bytecode

    name = "helper_system_scope_atomic"
    text = str(read_bytecode(cutile_bytecode(progs.KERNELS[name], progs.SPECS[name]))).splitlines()
    at, = [i for i, ln in enumerate(text) if "atomic_rmw_tko" in ln]
    text[at] += ' loc(callsite("helper.py":6:4 at callsite("mid.py":11:4 at "kernel.py":17:4)))'
    path = tmp_path / "k.mlir"
    path.write_text("\n".join(text) + "\n")
    try:
        code = main(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    lines = (out.out + out.err).splitlines()
    assert code != 0
    i = next(i for i, ln in enumerate(lines) if ln.startswith("helper.py:6:4: error: "))
    assert lines[i + 1:i + 3] == ["mid.py:11:4: note: called from", "kernel.py:17:4: note: called from"], lines


def _expect_combined(lines: list[str]) -> None:
    """The SIMT path's error at the helper's atomic, its own call right under it, then the refusal as one located
    note (no ``error:``/``warning:`` word, no ``[...]`` bracket) with the refusal's call under it."""
    assert lines[0].startswith(_position("the SIMT lowering's error", "ct.atomic_add") + ": error: "), lines
    assert lines[0].endswith("(LLVM's NVPTX backend would emit it at device scope)"), lines
    assert lines[1] == _position("the failing call", "_system_add(Y") + ": note: called from", lines
    assert lines[2].startswith(_position("the tier's refusal", "ct.load") + ": note: the SIMT path was taken because "
                               "the tensor-core path refused the kernel here: this dot operand is loaded with "
                               "padding_mode=NEG_INF"), lines
    assert lines[2].endswith("(ZERO, or no padding mode, runs on it)"), lines
    assert lines[3:] == [_position("the refused call", "_neg_inf_tile(A, i, k, tm, tk)") + ": note: called from"]
    assert not any(" error: " in ln or " warning: " in ln or "[" in ln for ln in lines[1:]), lines


def test_the_simt_error_with_a_refusal_note_keeps_each_call_under_its_own_line():
    """(issue 22, item 3) Was: the error's own "called from" printed after the refusal note's, where it read as
    the refusal's call."""
    _expect_combined(_error("mm_helper_refused_then_helper_atomic"))


def test_the_same_message_through_tileorch_compile_and_the_cutile_launchers_compile():
    """The Python exception of ``tileorch.compile`` (a CompileError whose lines are the diagnostic's lines) and
    of the cuTile launcher's compile step (``tileorch.cutile.launch`` before any GPU work) read the same."""
    import tileorch
    from tileorch.diagnostics import CompileError, LocatedError
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import cutile_bytecode, described_arguments

    name = "mm_helper_refused_then_helper_atomic"
    with pytest.raises(CompileError) as info:
        tileorch.compile(cutile_bytecode(progs.KERNELS[name], progs.SPECS[name]), "sm_90a", name=name, ptxas=False,
                         cache=False)
    _expect_combined(str(info.value).splitlines())
    args = described_arguments(progs.KERNELS[name], progs.SPECS[name])
    with pytest.raises((LocatedError, CompileError)) as info:
        rc.compiled(progs.KERNELS[name], args, "sm_90a", "persistent")
    _expect_combined(str(info.value).splitlines())


def test_a_suffix_ends_the_first_line_not_the_last_note():
    """``(after PASS)`` of a verifier error found after a pass (``TILEORCH_VERIFY_EACH_PASS``, the driver's layout
    passes) ends the error's line; its notes stay under it (was: appended to the last note)."""
    from tileorch.diagnostics import suffixed

    text = "h.py:3:7: error: bad\nk.py:9:2: note: called from"
    assert suffixed(text, " (after p)") == "h.py:3:7: error: bad (after p)\nk.py:9:2: note: called from"
    assert suffixed("h.py:3:7: error: bad", " (after p)") == "h.py:3:7: error: bad (after p)"
