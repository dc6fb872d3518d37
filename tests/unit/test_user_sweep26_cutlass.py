"""The twenty-sixth user sweep's CUTLASS-dialect inputs: a hand-written two-stage warp-specialized copy pipeline
(warp 0 produces 2048-byte stages by bulk copy, warp group 1 consumes them) and four edits of it, through the
commands a user runs on cutlass IR:

* the valid module: ``tileorch compile`` writes PTX holding the pipeline's mbarrier protocol (init, expect_tx
  arrive, parity waits, the bulk copy completing on the full barrier), exit 0; ``tileorch-opt -p
  cutlass-stamp-arrive-counts`` stamps ``arvCount = [1, 128]`` (one producer arrival, the consumer group's 128
  threads); ``tileorch check`` proves it (exit 0);
* a consumer group sharing the producer's warp and a ``regs(N)`` not a multiple of 8: ``tileorch compile`` stops
  with ``k.mlir:L:C: error:`` at the op, non-zero, no traceback;
* a stage released twice and a commit expecting fewer transaction bytes than the copy delivers (each verifies and
  compiles: the protocol is wrong, not the IR): ``tileorch check`` exits non-zero with a located error and the
  violated property."""

from __future__ import annotations

import os
import re

import pytest

pytest.importorskip("xdsl")

PIPELINE = """\
// A user's two-stage warp-specialized copy pipeline.
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>} {
  func.func @two_stage_copy(%n: i32, %smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, \
participants = array<i64: 0x1>, consumers = array<i64: 0xf0>, transaction_size = array<i32: 2048>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %bytes = arith.constant 2048 : i32
    cutlass.async.exec warp mask(0xf1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          %full = cutlass.pipeline.get_producer_barrier %p, %s
          %leader = nvvm.elect.sync -> i1
          scf.if %leader {
            %idx = cutlass.pipeline.state.get_index %s
            %sidx = arith.muli %idx, %bytes : i32
            %data = arith.constant 1024 : i32  // past the pipeline's mbarriers at %smem
            %soff = arith.addi %sidx, %data : i32
            %dst = llvm.getelementptr %smem[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %goff = arith.muli %k, %bytes : i32
            %from = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %dst, %from, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 2048 : i32}
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xf0) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.consumer_wait %q, %s
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
      }
    }
    func.return
  }
}
"""
_RELEASE = "          cutlass.pipeline.consumer_release %q, %s\n"

COMPILE_ERRORS = {
    # name: (the text replaced, its replacement, words of the error, text of the line it names)
    "consumer_group_shares_the_producer_warp": (
        "consumers = array<i64: 0xf0>", "consumers = array<i64: 0xf1>",
        "producer group 0 (mask 0x1) and consumer group 0 (mask 0xf1) share executor units 0x1",
        "cutlass.pipeline.init"),
    "regs_not_a_multiple_of_8": (
        "cutlass.async.exec warp mask(0xf1) {", "cutlass.async.exec warp mask(0xf1) regs(230) {",
        "regs must be a multiple of 8 in [24, 256] (setmaxnreg), found 230", "cutlass.async.exec"),
}
PROTOCOL_ERRORS = {
    # name: (the text replaced, its replacement, the violated property, words of the located error, its line)
    "a_stage_released_twice": (_RELEASE, _RELEASE * 2, "parity-aliasing",
                               "waits on ready.empty[0] with parity 0 for phase 0 but the barrier has completed 2 "
                               "phases", "cutlass.pipeline.producer_tail"),
    "commit_expects_fewer_bytes_than_the_copy": (
        "{transaction_bytes = 2048 : i32}", "{transaction_bytes = 1024 : i32}", "over-arrival",
        "the copies landed 1024 bytes more than the phase's arrivals expect", "cutlass.pipeline.producer_commit"),
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


def test_the_valid_pipeline_compiles_to_its_mbarrier_protocol(tmp_path, capsys):
    path = _write(tmp_path, PIPELINE)
    out = tmp_path / "k.ptx"
    code, said = _run(["compile", str(path), "--no-ptxas", "--no-cache", "-o", str(out)], capsys)
    assert code == 0 and "Traceback" not in said, said
    ptx = out.read_text()
    assert len(re.findall(r"mbarrier\.init\.shared\.b64", ptx)) == 4  # full and empty of 2 stages
    for needed in (r"mbarrier\.arrive\.expect_tx\.shared\.b64", r"mbarrier\.try_wait\.parity\.shared\.b64",
                   r"cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes",
                   r"fence\.mbarrier_init"):
        assert re.search(needed, ptx), needed


def test_the_valid_pipeline_gets_its_arrive_counts(tmp_path, capsys):
    from tileorch.tools.opt import main

    path = _write(tmp_path, PIPELINE)
    try:
        main([str(path), "-p", "cutlass-stamp-arrive-counts"])
    except SystemExit as exc:
        assert not exc.code, exc.code
    out = capsys.readouterr().out
    assert re.findall(r"arvCount = array<i32: (\d+), (\d+)>", out) == [("1", "128")], out


def test_the_valid_pipeline_is_proved(tmp_path, capsys):
    code, said = _run(["check", str(_write(tmp_path, PIPELINE)), "--jobs", "1"], capsys)
    assert code == 0 and "two_stage_copy: OK: all properties hold" in said, said


@pytest.mark.parametrize("name", sorted(COMPILE_ERRORS))
def test_an_invalid_pipeline_stops_at_its_line(name, tmp_path, capsys):
    old, new, words, line_text = COMPILE_ERRORS[name]
    assert PIPELINE.count(old) == 1
    text = PIPELINE.replace(old, new)
    path = _write(tmp_path, text)
    code, said = _run(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull], capsys)
    m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): error: (.*)", said)
    assert code != 0 and m and words in m.group(3), said
    assert line_text in text.splitlines()[int(m.group(1)) - 1], said
    assert "Traceback" not in said and "internal error" not in said, said


@pytest.mark.parametrize("name", sorted(PROTOCOL_ERRORS))
def test_a_wrong_protocol_compiles_and_check_finds_it(name, tmp_path, capsys):
    old, new, prop, words, line_text = PROTOCOL_ERRORS[name]
    assert PIPELINE.count(old) == 1
    text = PIPELINE.replace(old, new)
    path = _write(tmp_path, text)
    code, said = _run(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull], capsys)
    assert code == 0, said  # valid IR: the mistake is in what the agents do
    code, said = _run(["check", str(path), "--jobs", "1"], capsys)
    m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): error: two_stage_copy: {prop} (.*)", said)
    assert code != 0 and m and words in m.group(3), said
    assert f"violated property: {prop}" in said, said
    assert line_text in text.splitlines()[int(m.group(1)) - 1], said
    assert "Traceback" not in said and "internal error" not in said, said
