"""The twenty-seventh user sweep's CUTLASS-dialect inputs: a hand-written ping-pong kernel (CUTLASS sm90's
"pingpong" ordering: an ``OrderedSequenceBarrier<2, 2>`` making two math warp groups alternate their MMA and
epilogue phases, a producer warp group giving registers back by ``setmaxnreg``) and four edits of it, through the
commands a user runs on cutlass IR:

* the valid module: ``tileorch compile`` writes PTX holding the register hand-over (``setmaxnreg.dec`` 40 /
  ``setmaxnreg.inc`` 232), the epilogue's named barrier 1 of 128 threads and the sequence barrier's waits, exit 0;
  ``tileorch-opt`` prints it again and the print parses to the same module;
* four mistakes a user makes editing it -- math warp groups asking for more registers than the producer gives back,
  sequence-barrier groups larger than the CTA, an epilogue barrier id past the hardware's 16, a loop-carried state
  of another depth: ``tileorch compile`` stops with ``k.mlir:L:C: error:`` at the op, non-zero, no traceback."""

from __future__ import annotations

import os
import re

import pytest

pytest.importorskip("xdsl")

PINGPONG = """\
// A user's ping-pong math kernel: two math warp groups alternate by an ordered sequence barrier.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @mma_tile(%tile: i32) {
    func.return
  }
  func.func @epilogue_tile(%tile: i32) {
    func.return
  }
  func.func @pingpong_math(%num_tiles: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, \
nvvm.minctasm = 1 : i32} {
    %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
    %order = cutlass.seq_bar.init %sb group_size(128)
    cutlass.async.exec cta mask(1) threads(384) {
      cutlass.named_barrier.arrive_and_wait barrier_id = 0
    }
    cutlass.async.exec warpgroup mask(1) regs(40) {
    }
    cutlass.async.exec warpgroup mask(6) regs(232) {
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c128 = arith.constant 128 : index
      %c1 = arith.constant 1 : index
      %wg = arith.divui %tid, %c128 : index
      %group_index = arith.subi %wg, %c1 : index
      %group = arith.index_cast %group_index : index to i32
      %st0 = cutlass.seq_bar.state.create %order group(%group)
      %c2_i32 = arith.constant 2 : i32
      %last = scf.for %tile = %group to %num_tiles step %c2_i32 iter_args(%st = %st0) -> \
(!cutlass.seq_bar_state<2>) : i32 {
        cutlass.seq_bar.wait %order, %st group(%group)
        func.call @mma_tile(%tile) : (i32) -> ()
        %st_epi = cutlass.seq_bar.arrive %order, %st group(%group)
        cutlass.seq_bar.wait %order, %st_epi group(%group)
        func.call @epilogue_tile(%tile) : (i32) -> ()
        cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 128
        %st_next = cutlass.seq_bar.arrive %order, %st_epi group(%group)
        scf.yield %st_next : !cutlass.seq_bar_state<2>
      }
    }
    func.return
  }
}
"""

COMPILE_ERRORS = {
    # name: (the text replaced, its replacement, words of the error, text of the line it names)
    "math_groups_ask_for_more_registers_than_given_back": (
        "mask(6) regs(232)", "mask(6) regs(240)", "setmaxnreg.inc would wait forever; lower the regs(N)",
        "cutlass.async.exec warpgroup mask(1) regs(40)"),  # (the kernel's first regs(N): where the check runs)
    "groups_larger_than_the_cta": (
        "group_size(128)", "group_size(256)", "2 groups of group_size 256 need 512 threads, but the CTA has 384",
        "cutlass.seq_bar.init"),
    "epilogue_barrier_id_16": (
        "barrier_id = 1 num_threads = 128", "barrier_id = 16 num_threads = 128",
        "barrier_id must be a hardware named barrier in [0, 15], found 16", "cutlass.named_barrier.arrive_and_wait"),
    "loop_state_of_another_depth": (
        "scf.yield %st_next : !cutlass.seq_bar_state<2>", "scf.yield %st_next : !cutlass.seq_bar_state<3>",
        "seq_bar_state<3>", "scf.yield"),
}


def _run(argv, capsys):
    from tileorch.cli.main import main

    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out + out.err


def _write(tmp_path, text):
    path = tmp_path / "k.mlir"
    path.write_text(text)
    return path


def test_the_valid_pingpong_compiles_to_its_register_handover_and_barriers(tmp_path, capsys):
    path = _write(tmp_path, PINGPONG)
    out = tmp_path / "k.ptx"
    code, said = _run(["compile", str(path), "--no-ptxas", "--no-cache", "-o", str(out)], capsys)
    assert code == 0 and "Traceback" not in said, said
    ptx = out.read_text()
    for needed in (r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40", r"setmaxnreg\.inc\.sync\.aligned\.u32\s+232",
                   r"bar(rier)?\.sync(\.aligned)?\s+1,\s*128"):
        assert re.search(needed, ptx), needed


def test_the_valid_pingpong_round_trips_through_tileorch_opt(tmp_path, capsys):
    from tileorch.tools.opt import main

    path = _write(tmp_path, PINGPONG)
    try:
        main([str(path)])
    except SystemExit as exc:
        assert not exc.code, exc.code
    printed = capsys.readouterr().out
    again = tmp_path / "again.mlir"
    again.write_text(printed)
    try:
        main([str(again)])
    except SystemExit as exc:
        assert not exc.code, exc.code
    assert capsys.readouterr().out == printed


@pytest.mark.parametrize("name", sorted(COMPILE_ERRORS))
def test_an_invalid_pingpong_stops_at_its_line(name, tmp_path, capsys):
    old, new, words, line_text = COMPILE_ERRORS[name]
    assert PINGPONG.count(old) == 1
    text = PINGPONG.replace(old, new)
    path = _write(tmp_path, text)
    code, said = _run(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull], capsys)
    m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): error: (.*)", said)
    assert code != 0 and m and words in m.group(3), said
    assert line_text in text.splitlines()[int(m.group(1)) - 1], said
    assert "Traceback" not in said and "internal error" not in said, said
