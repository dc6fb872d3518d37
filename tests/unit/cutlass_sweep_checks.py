"""The checks a user sweep's ``_cutlass`` file runs on its CUTLASS-dialect inputs (``cutlass`` IR written by hand, the
commands a user runs on it), shared from sweep 29 on (sweeps 26-28 wrote them out in each file):

* each input compiles (``tileorch compile``, exit 0, no traceback) to PTX holding its patterns;
* ``tileorch check`` on each input either proves it (``OK: all properties hold``) or stops with a located error
  at the line of the op it names (an input it cannot model: nothing claimed);
* ``tileorch-opt`` prints each input in a form it parses back to the same text (a round trip);
* edits that compile but break the protocol: ``tileorch check`` exits non-zero naming the property at the op's line;
* edits ``tileorch compile`` refuses: a non-zero exit with ``k.mlir:L:C: error:`` at the op's line.

A file binds the tests :func:`cutlass_sweep_tests` returns to its ``test_`` names."""

from __future__ import annotations

import os
import re

import pytest


def run_cli(argv, capsys) -> tuple[int, str]:
    """``tileorch ARGV`` in this process: its exit code and everything it printed."""
    from tileorch.cli.main import main

    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out + out.err


def write_input(tmp_path, text: str, name: str = "k.mlir"):
    path = tmp_path / name
    path.write_text(text)
    return path


def located(path, said: str, text: str) -> tuple[str, str]:
    """(line text, message) of the first ``k.mlir:L:C: error:`` in ``said``."""
    m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): error: (.*)", said)
    assert m, said
    lines = text.splitlines()
    at = int(m.group(1))
    return (lines[at - 1] if at <= len(lines) else ""), m.group(3)


def seq_bar_pingpong(comment: str, kernel: str, phases: list, regs: tuple[int, int], alternate: bool,
                     groups: int = 2) -> str:
    """A ping-pong input (the form sweeps 29 and 30 write): an ``OrderedSequenceBarrier<len(phases), 2>`` orders two
    math warp groups through ``phases`` (group 0 first in each), each phase a call of an empty function, the producer
    warp group gives its registers back.  ``phases``: (the phase's function, the name of the sequence state it waits
    on -- the first is ``st`` -- and a line the phase runs after its call, or ""); ``regs``: (the producer's, the math
    groups' ``setmaxnreg``); ``alternate``: each group takes every ``groups``-th tile (from its group index), else
    all walk every tile; ``groups``: the math warp groups (warp groups 1 to ``groups``; the barrier's length).
    ``comment``: the ``//`` lines above the module."""
    depth = len(phases)
    funcs = "".join(f"  func.func @{f}(%tile: i32) {{\n    func.return\n  }}\n" for f, _, _ in phases)
    states = [st for _, st, _ in phases] + ["st_next"]
    body = ""
    for i, (f, st, after) in enumerate(phases):
        body += f"        cutlass.seq_bar.wait %order, %{st} group(%group)\n"
        body += f"        func.call @{f}(%tile) : (i32) -> ()\n"
        body += f"        {after}\n" if after else ""
        body += f"        %{states[i + 1]} = cutlass.seq_bar.arrive %order, %{st} group(%group)\n"
    start, step = ("%group", f"%c{groups}_i32") if alternate else ("%c0_i32", "%c1_i32")
    steps = (f"      %c{groups}_i32 = arith.constant {groups} : i32\n" if alternate else
             "      %c0_i32 = arith.constant 0 : i32\n      %c1_i32 = arith.constant 1 : i32\n")
    threads, mask = 128 * (groups + 1), ((1 << groups) - 1) << 1
    return f"""{comment}
builtin.module attributes {{cutlass.target = "sm_90a"}} {{
{funcs}  func.func @{kernel}(%n_tiles: i32) attributes {{nvvm.kernel, nvvm.maxntid = array<i32: {threads}, 1, 1>, \
nvvm.minctasm = 1 : i32}} {{
    %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = {depth}, length = {groups}>
    %order = cutlass.seq_bar.init %sb group_size(128)
    cutlass.async.exec cta mask(1) threads({threads}) {{
      cutlass.named_barrier.arrive_and_wait barrier_id = 0
    }}
    cutlass.async.exec warpgroup mask(1) regs({regs[0]}) {{
    }}
    cutlass.async.exec warpgroup mask({mask}) regs({regs[1]}) {{
      %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %c128 = arith.constant 128 : index
      %c1 = arith.constant 1 : index
      %wg = arith.divui %tid, %c128 : index
      %group_index = arith.subi %wg, %c1 : index
      %group = arith.index_cast %group_index : index to i32
      %st0 = cutlass.seq_bar.state.create %order group(%group)
{steps}      %last = scf.for %tile = {start} to %n_tiles step {step} iter_args(%st = %st0) -> \
(!cutlass.seq_bar_state<{depth}>) : i32 {{
{body}        scf.yield %st_next : !cutlass.seq_bar_state<{depth}>
      }}
    }}
    func.return
  }}
}}
"""


def _edited(inputs: dict, edit: tuple) -> str:
    base, old, new = edit[:3]
    assert inputs[base].count(old) == 1, (base, old)
    return inputs[base].replace(old, new)


def _gate(ci: set | None, name: str) -> None:
    """Skip ``name`` outside the CI set unless ``TILEORCH_EMULATE_ALL=1`` (the suite's time budget)."""
    if ci is not None and name not in ci and not os.environ.get("TILEORCH_EMULATE_ALL"):
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs it")


def cutlass_sweep_tests(inputs: dict, ptx_needs: dict, checks: dict, check_failures: dict, compile_errors: dict,
                        printed_needs: dict | None = None, ci: set | None = None):
    """The five tests of a sweep's ``_cutlass`` file::

        (test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input,
         test_the_input_round_trips_through_tileorch_opt, test_a_broken_protocol_compiles_and_fails_the_check,
         test_an_invalid_input_stops_at_its_line) = cutlass_sweep_tests(INPUTS, PTX_NEEDS, CHECKS, ...)

    ``inputs``: name -> the input's text.  ``ptx_needs``: name -> regular expressions its PTX must match, each a
    pattern or ``(pattern, count)`` (the PTX holds exactly ``count`` matches).  ``checks``: name -> ``"ok"`` (proved)
    or ``(words, line text)`` (a located error whose message holds the words, at the line holding the text; no
    ``FAILED`` verdict).  ``check_failures`` / ``compile_errors``: name -> ``(input name, text replaced, its
    replacement, words of the error, text of the line it names)``.  ``printed_needs``: name -> text
    ``tileorch-opt``'s print must hold.  ``ci``: the names (of inputs and of edits) whose tests CI runs; the
    others run with ``TILEORCH_EMULATE_ALL=1`` (None: all in CI)."""
    printed_needs = printed_needs or {}

    @pytest.mark.parametrize("name", sorted(inputs))
    def test_the_input_compiles_to_its_ptx(name, tmp_path, capsys):
        _gate(ci, name)
        path = write_input(tmp_path, inputs[name])
        out = tmp_path / "k.ptx"
        code, said = run_cli(["compile", str(path), "--no-ptxas", "--no-cache", "-o", str(out)], capsys)
        assert code == 0 and "Traceback" not in said and "internal error" not in said, said
        ptx = out.read_text()
        for need in ptx_needs.get(name, []):
            pattern, count = need if isinstance(need, tuple) else (need, None)
            found = len(re.findall(pattern, ptx))
            assert found if count is None else found == count, (pattern, found)

    @pytest.mark.parametrize("name", sorted(checks))
    def test_tileorch_check_on_the_input(name, tmp_path, capsys):
        _gate(ci, name)
        path = write_input(tmp_path, inputs[name])
        code, said = run_cli(["check", str(path)], capsys)
        assert "Traceback" not in said and "internal error" not in said, said
        if checks[name] == "ok":
            assert code == 0 and "OK: all properties hold" in said and "FAILED" not in said, said
            return
        words, line_text = checks[name]
        line, message = located(path, said, inputs[name])
        assert code != 0 and words in message and line_text in line, (line, said)
        assert "FAILED" not in said, said

    @pytest.mark.parametrize("name", sorted(inputs))
    def test_the_input_round_trips_through_tileorch_opt(name, tmp_path, capsys):
        _gate(ci, name)
        from tileorch.tools.opt import main

        def opt(path) -> str:
            try:
                main([str(path)])
            except SystemExit as exc:
                assert not exc.code, exc.code
            return capsys.readouterr().out

        printed = opt(write_input(tmp_path, inputs[name]))
        for text in printed_needs.get(name, []):
            assert text in printed, text
        assert opt(write_input(tmp_path, printed, "again.mlir")) == printed

    @pytest.mark.parametrize("name", sorted(check_failures))
    def test_a_broken_protocol_compiles_and_fails_the_check(name, tmp_path, capsys):
        _gate(ci, name)
        text = _edited(inputs, check_failures[name])
        words, line_text = check_failures[name][3:]
        path = write_input(tmp_path, text)
        code, said = run_cli(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull], capsys)
        assert code == 0, said
        code, said = run_cli(["check", str(path)], capsys)
        line, message = located(path, said, text)
        assert code != 0 and words in message and line_text in line, (line, said)
        assert "Traceback" not in said, said

    @pytest.mark.parametrize("name", sorted(compile_errors))
    def test_an_invalid_input_stops_at_its_line(name, tmp_path, capsys):
        _gate(ci, name)
        text = _edited(inputs, compile_errors[name])
        words, line_text = compile_errors[name][3:]
        path = write_input(tmp_path, text)
        code, said = run_cli(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull], capsys)
        line, message = located(path, said, text)
        assert code != 0 and words in message and line_text in line, (line, said)
        assert "Traceback" not in said and "internal error" not in said, said

    return (test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input,
            test_the_input_round_trips_through_tileorch_opt, test_a_broken_protocol_compiles_and_fails_the_check,
            test_an_invalid_input_stops_at_its_line)
