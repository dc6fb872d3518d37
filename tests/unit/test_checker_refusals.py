"""``tileorch check`` refusals that had no test (tools/untested_diagnostics.py, session 22): a
program the checker cannot model is a located error at the op it cannot read, never a guess and
never a traceback.  Each case is a one-edit mutant of an example, loaded in process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tileorch.analysis.extract import load

ROOT = Path(__file__).resolve().parents[2]

CONSUMER_STEP = ("          cutlass.pipeline.consumer_release %q, %s\n"
                 "          %next = cutlass.pipeline.state.increment %s\n")
COPY = "            atom.bulk_copy_g2s %dst, %from, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>\n"


@pytest.mark.parametrize("example,old,new,at,message", [
    # a sequence barrier on named barriers: the checker models mbarrier sequence barriers only
    ("pingpong_seq_bar.mlir", "cutlass.seq_bar.init %sb group_size(128)",
     "cutlass.seq_bar.init %sb group_size(128) barrier(named_barrier) barrier_id_base(8)",
     "cutlass.seq_bar.init %sb", "the checker models seq_bar on mbarriers only; barrier = named_barrier is not "
                                 "modelled"),
    # the next state chosen by a branch: which stage each path uses is not followed
    ("ws_pipeline.mlir", CONSUMER_STEP,
     "          cutlass.pipeline.consumer_release %q, %s\n"
     "          %first = arith.cmpi eq, %k, %c0 : i32\n"
     "          %next = scf.if %first -> (!cutlass.pipeline_state<4>) {\n"
     "            %n1 = cutlass.pipeline.state.increment %s\n"
     "            scf.yield %n1 : !cutlass.pipeline_state<4>\n"
     "          } else {\n"
     "            %n2 = cutlass.pipeline.state.increment %s\n"
     "            scf.yield %n2 : !cutlass.pipeline_state<4>\n"
     "          }\n",
     "%next = scf.if %first", "the checker cannot model an scf.if that yields a pipeline or seq_bar state"),
    # a commit of 4096 transaction bytes with the copy that delivers them removed: a sure hang
    ("ws_pipeline.mlir", COPY, "", "cutlass.pipeline.producer_commit %p, %s",
     "this commit expects 4096 transaction bytes per stage but the producer issues no copy that delivers them"),
    # the group id of warp groups 1 and 2 computed as wg + 1 (groups 2 and 3 of a 2-group barrier)
    ("pingpong_seq_bar.mlir", "%group_index = arith.subi %wg, %c1 : index",
     "%group_index = arith.addi %wg, %c1 : index", "cutlass.seq_bar.state.create %order group(%group)",
     "group id 2 of threads 128..255 is outside the 2 groups of"),
    # a bulk copy completing on the full barrier of a named-barrier pipeline, which has none
    ("ws_pipeline.mlir", "!cutlass.pipeline<stages = 4, producers = 1, consumers = 2>",
     "!cutlass.pipeline<stages = 4, producers = 1, consumers = 2, barrier = named_barrier>",
     "atom.bulk_copy_g2s", "a barrier = named_barrier pipeline has no full mbarrier for a bulk copy to complete on"),
    # a release under an scf.index_switch (test_checker.py checks the op is named; here the message)
    ("ws_pipeline.mlir", "          cutlass.pipeline.consumer_release %q, %s\n",
     "          %sel = arith.index_cast %k : i32 to index\n"
     "          scf.index_switch %sel\n"
     "          case 0 {\n"
     "            cutlass.pipeline.consumer_release %q, %s\n"
     "            scf.yield\n"
     "          }\n"
     "          default {\n"
     "            scf.yield\n"
     "          }\n", "scf.index_switch %sel",
     "the checker cannot model the control flow of scf.index_switch around synchronising ops (scf.for, scf.while "
     "and scf.if are modelled)"),
    # the consumer waits on the next state, then releases the current one and waits on it again
    ("ws_pipeline.mlir", CONSUMER_STEP,
     "          %next = cutlass.pipeline.state.increment %s\n"
     "          cutlass.pipeline.consumer_wait %q, %next\n"
     "          cutlass.pipeline.consumer_wait %q, %s\n"
     "          cutlass.pipeline.consumer_release %q, %s\n",
     "cutlass.pipeline.consumer_wait %q, %s\n          cutlass.pipeline.consumer_release",
     "uses a pipeline state older than one already used; the checker needs each state to be used in order"),
    # the producer acquires a stage two ahead of the state its loop yields
    ("ws_pipeline.mlir", "          %next = cutlass.pipeline.state.increment %s\n          scf.yield %next",
     "          %next = cutlass.pipeline.state.increment %s\n"
     "          %next2 = cutlass.pipeline.state.increment %next\n"
     "          cutlass.pipeline.producer_acquire %p, %next2\n"
     "          scf.yield %next", "%last = scf.for %k",
     "the loop body uses a pipeline state beyond the one it yields; the checker needs each iteration to end "
     "where the next one starts"),
    # the stage's copy repeated by a loop of a run-time trip count
    ("ws_pipeline.mlir", COPY,
     "            scf.for %j = %c0 to %k_tiles step %c1 : i32 {\n  " + COPY + "            }\n", "atom.bulk_copy_g2s",
     "the checker cannot count the copies this scf.for issues per stage: its trip count is not a constant"),
    # the copy issued under a condition on the trip count instead of one elected lane
    ("ws_pipeline.mlir", "          %leader = nvvm.elect.sync -> i1\n",
     "          %leader = arith.cmpi eq, %k, %k_tiles : i32\n", "atom.bulk_copy_g2s",
     "the checker cannot tell which threads issue this copy: the condition of its enclosing scf.if is not known "
     "per thread"),
    # a seq_bar group id of the tile count (test_checker.py checks "group id"; here the message)
    ("pingpong_seq_bar.mlir", "state.create %order group(%group)", "state.create %order group(%num_tiles)",
     "state.create %order group(%num_tiles)",
     "the checker needs the seq_bar group id of every agent: a constant or a function of gpu.thread_id it can "
     "evaluate"),
])
def test_a_program_the_checker_cannot_model_is_refused_at_the_op(tmp_path, example, old, new, at, message):
    text = (ROOT / "examples" / example).read_text()
    assert old in text
    mutant = text.replace(old, new, 1)
    path = tmp_path / "bad.mlir"
    path.write_text(mutant)
    protocols, errors = load(str(path))
    line = mutant[: mutant.index(at)].count("\n") + 1
    assert not protocols and errors, errors
    assert f"{path}:{line}:" in errors[0] and message in errors[0], errors
