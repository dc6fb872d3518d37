"""The mbarrier model (PTX semantics, cutlass-semantics.md §0), IR extraction, the check and
simulate commands, and the verify-pipelines pass on the project's examples."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tool_forkserver import forked

from tileorch.analysis import catalog as C
from tileorch.analysis import properties as P
from tileorch.analysis.barriers import MBarrier, NamedBarrier
from tileorch.analysis.explore import check
from tileorch.analysis.extract import load
from tileorch.analysis.simulate import simulate

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ["ws_pipeline.mlir", "coop_pipeline.mlir", "pingpong_seq_bar.mlir",
            "streamk_persistent.mlir", "mods_mainloop.mlir", "streamk_fixup_user.mlir",
            "ws_stream_copy.mlir"]


def test_fresh_mbarrier_passes_parity_1_and_blocks_parity_0():
    b = MBarrier.init(2)
    assert b.test_wait(1) and not b.test_wait(0)


def test_phase_completes_only_with_all_arrivals_and_tx_bytes():
    b = MBarrier.init(1).arrive(1, tx=64).barrier
    assert not b.test_wait(0)                      # bytes outstanding
    b = b.complete_tx(64)
    assert b.test_wait(0) and b.pending == 1 and b.parity == 1


def test_complete_tx_may_precede_expect_tx():
    b = MBarrier.init(1).complete_tx(32)          # TMA landed before arrive.expect_tx
    assert not b.test_wait(0)
    assert b.arrive(1, tx=32).barrier.test_wait(0)


def test_arrival_for_a_completed_phase_is_misplaced():
    b = MBarrier.init(1).arrive(1, phase=0).barrier
    assert b.arrive(1, phase=0).misplaced


def test_named_barrier_generation_and_count_mismatch():
    nb, err = NamedBarrier().arrive(128, 256)
    assert err is None and nb.arrived == 128
    nb, err = nb.arrive(128, 256)
    assert err is None and nb.generation == 1
    _, err = NamedBarrier().arrive(128, 256)[0].arrive(128, 128)
    assert err


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_check_clean_under_5_seconds(name):
    protocols, errors = load(str(ROOT / "examples" / name))
    assert not errors and protocols
    for proto in protocols:
        result = check(proto)
        assert result.ok, result.violation
        assert result.seconds < 5.0 * 3     # CI machines are shared; the budget is 5 s each


def test_load_module_reads_a_module_in_memory_as_load_reads_its_file():
    """``extract.load_module`` (the tests' ``tileorch check`` of a lowering they made, without printing it): the
    protocols ``load`` reads from the file; a missing kernel named, and a module that does not verify, as errors."""
    from tileorch.analysis.extract import load_module
    from tileorch.diagnostics import parse_module
    from tileorch.registry import make_context

    path = ROOT / "examples" / "ws_pipeline.mlir"
    module = parse_module(make_context(), path.read_text(), str(path))
    from_file, errors = load(str(path))
    assert not errors and from_file
    protocols, errors = load_module(module)
    assert not errors and [repr(p) for p in protocols] == [repr(p) for p in from_file]
    protocols, errors = load_module(module, "nope", None, "k.mlir")
    assert not protocols and len(errors) == 1 and errors[0].startswith("k.mlir: error: no kernel named 'nope'"), errors
    broken = parse_module(make_context(), path.read_text(), str(path))
    next(op for op in broken.walk() if op.name == "func.return").detach()  # a block without its terminator
    protocols, errors = load_module(broken)
    assert not protocols and errors and all(": error: " in e for e in errors), errors


def _line_of(needle, example="ws_pipeline.mlir"):
    """1-based line of the first occurrence of ``needle`` in the example (for located errors)."""
    text = (ROOT / "examples" / example).read_text()
    return text[: text.index(needle)].count("\n") + 1


def _mutate(tmp_path, old, new, example="ws_pipeline.mlir"):
    text = (ROOT / "examples" / example).read_text()
    assert old in text
    path = tmp_path / "bad.mlir"
    path.write_text(text.replace(old, new, 1))
    return path


def test_ir_mutant_producer_start_phase_0_is_refused_at_its_acquire(tmp_path):
    """The producer's state made as a consumer's (phase 0): its first acquire waits for a release that never comes.
    The checker found the deadlock; since session 41 the verifier refuses it first (``check_start_phase``), at the
    acquire, with the checker's property name."""
    path = _mutate(tmp_path, "state.create %p producer", "state.create %p consumer")
    protocols, errors = load(str(path))
    line = _line_of("cutlass.pipeline.producer_acquire %p")
    assert not protocols and len(errors) == 1, errors
    assert f"bad.mlir:{line}:" in errors[0] and "parity-aliasing" in errors[0] and "a deadlock" in errors[0], errors


def _consumer_bound(tmp_path, definition):
    """ws_pipeline with the consumer loop bounded by ``%kc = <definition>`` instead of %k_tiles."""
    text = (ROOT / "examples" / "ws_pipeline.mlir").read_text()
    producer_loop = "scf.for %k = %c0 to %k_tiles step %c1"
    head, consumer_loop = text.rsplit(producer_loop, 1)
    consumer = f"%kc = {definition}\n        %last = "
    head = head[: head.rindex("%last = ")] + consumer
    path = tmp_path / "bound.mlir"
    path.write_text(head + "scf.for %k = %c0 to %kc step %c1" + consumer_loop)
    return path


def test_loops_bounded_by_the_same_value_share_a_trip_count(tmp_path):
    """``%k_tiles + 0`` is the producer's bound: one parameter, so no false deadlock."""
    protocols, errors = load(str(_consumer_bound(tmp_path, "arith.addi %k_tiles, %c0 : i32")))
    assert not errors and check(protocols[0]).ok


def test_loops_bounded_by_different_values_are_checked_independently(tmp_path):
    """A consumer running one more round than the producer commits must deadlock."""
    protocols, errors = load(str(_consumer_bound(tmp_path, "arith.addi %k_tiles, %c1 : i32")))
    assert not errors and check(protocols[0]).violation.prop == P.DEADLOCK


def test_ir_mutant_read_after_release(tmp_path):
    path = _mutate(tmp_path, "cutlass.pipeline.consumer_release %q, %s",
                   "cutlass.pipeline.consumer_release %q, %s\n"
                   "          %late = cutlass.pipeline.state.get_index %s")
    protocols, _ = load(str(path))
    assert check(protocols[0]).violation.prop == P.RELEASE_BEFORE_READ


def test_ir_mutant_missing_tail(tmp_path):
    path = _mutate(tmp_path, "cutlass.pipeline.producer_tail %p, %last", "")
    protocols, _ = load(str(path))
    assert check(protocols[0]).violation.prop == P.DRAIN


def test_commit_without_transaction_bytes_expects_the_init_transaction_size(tmp_path):
    # convert-pipeline-to-nvvm: the leader's expect_tx takes transaction_size[p] when the
    # commit names no bytes, so dropping them from the op changes nothing
    path = _mutate(tmp_path, "{transaction_bytes = 4096 : i32}", "")
    protocols, errors = load(str(path))
    assert not errors and check(protocols[0]).ok


def test_cli_check_reports_counterexample_and_trace(tmp_path):
    # 0 bytes: a plain arrive completes the phase before the TMA bytes land
    path = _mutate(tmp_path, "{transaction_bytes = 4096 : i32}", "{transaction_bytes = 0 : i32}")
    trace = tmp_path / "t.json"
    proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "check", str(path),
                           "--trace", str(trace)]), capture_output=True, text=True)
    assert proc.returncode == 1
    assert "read-before-commit" in proc.stdout and "counterexample" in proc.stdout
    events = json.loads(trace.read_text())["traceEvents"]
    assert {e["ph"] for e in events} >= {"M", "X", "i"}


def test_cli_check_bad_input_is_located(tmp_path):
    path = tmp_path / "broken.mlir"
    path.write_text("builtin.module {\n  %x = arith.constant : i32\n}\n")
    proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "check", str(path)]),
                          capture_output=True, text=True)
    assert proc.returncode == 1 and f"{path}:2:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_verify_pipelines_pass_locates_the_violation(tmp_path):
    path = _mutate(tmp_path, "cutlass.pipeline.consumer_release %q, %s",
                   "cutlass.pipeline.consumer_release %q, %s\n"
                   "          %late = cutlass.pipeline.state.get_index %s")
    proc = subprocess.run(forked([sys.executable, "-m", "tileorch.tools.opt", str(path),
                           "-p", "verify-pipelines"]), capture_output=True, text=True)
    assert proc.returncode != 0
    late_read = _line_of("cutlass.pipeline.consumer_release %q, %s") + 1  # the inserted get_index
    assert f"{path}:{late_read}:" in proc.stdout + proc.stderr
    assert "release-before-read" in proc.stdout + proc.stderr


def test_simulate_reproduces_the_tile_order():
    sim = simulate(C.tma_warp_specialized(2, 2), {"k": 5}, seed=3)
    assert sim.functional_ok
    assert sim.consumed == {"consumer0": [0, 1, 2, 3, 4], "consumer1": [0, 1, 2, 3, 4]}


def test_simulate_streamk_sums_every_partial_once():
    sim = simulate(C.streamk_fixup(3), {}, seed=1)
    assert sim.result.ok and "0" in sim.outputs["tile"] and "2" in sim.outputs["tile"]


def test_simulate_reports_an_injected_deadlock_with_a_trace():
    sim = simulate(C.tma_warp_specialized(2, 2, empty_count=2 * C.WG + 1), {"k": 4}, seed=0)
    assert not sim.result.ok and sim.result.violation.prop == P.DEADLOCK
    assert sim.result.trace


def _ops(program):
    from tileorch.analysis.protocol import Loop, unroll
    return [op for op in unroll(program, {"k_tiles": 1, "tiles": 1, "num_tiles": 3})
            if not isinstance(op, Loop)]


def test_simulate_iterations_sets_every_parametric_loop(tmp_path):
    for example, expect in (("ws_pipeline.mlir", "k_tiles=2"), ("mods_mainloop.mlir",
                                                                 "tiles=2")):
        proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "simulate",
                               str(ROOT / "examples" / example), "--iterations", "2"]),
                              capture_output=True, text=True)
        assert proc.returncode == 0 and expect in proc.stdout, proc.stdout + proc.stderr
    proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "simulate",
                           str(ROOT / "examples" / "ws_pipeline.mlir"), "--iterations", "3"]),
                          capture_output=True, text=True)
    assert "consumed k tiles [0, 1, 2] (in order)" in proc.stdout


# --- seq_bar (cutlass-semantics.md §2.7) ---------------------------------------------------

def test_pingpong_groups_come_from_the_thread_id():
    """group = tid / 128 - 1: warp group 1 is group 0 (start phase 1), warp group 2 group 1;
    group g takes tiles g, g + 2, ... (loop lower bound = the group)."""
    protocols, errors = load(str(ROOT / "examples" / "pingpong_seq_bar.mlir"))
    assert not errors
    math = [a for a in protocols[0].agents if any(
        type(o).__name__ == "SeqWait" for o in _ops(a.program))]
    assert [a.states[0].phase for a in math] == [1, 0]
    assert [[o.group for o in _ops(a.program) if hasattr(o, "group")] for a in math] == \
        [[0] * 8, [1] * 4]       # num_tiles = 3: group 0 takes tiles 0 and 2, group 1 tile 1
    loop = math[1].program[0]
    assert loop.trip.lower == 1 and loop.trip.step == 2


def test_ir_mutant_wrong_seq_group_is_out_of_turn(tmp_path):
    path = _mutate(tmp_path, "%group_index = arith.subi %wg, %c1 : index",
                   "%group_index = arith.divui %wg, %c128 : index", "pingpong_seq_bar.mlir")
    protocols, _ = load(str(path))
    assert check(protocols[0]).violation.prop == P.SEQ_ORDER


def test_unknown_seq_group_is_a_located_error(tmp_path):
    path = _mutate(tmp_path, "state.create %order group(%group)",
                   "state.create %order group(%num_tiles)", "pingpong_seq_bar.mlir")
    protocols, errors = load(str(path))
    line = _line_of("state.create %order group(%group)", "pingpong_seq_bar.mlir")
    assert not protocols and f"{path}:{line}:" in errors[0] and "group id" in errors[0]


def test_a_pipeline_state_increment_by_a_runtime_amount_is_a_located_error(tmp_path):
    """The checker follows each state's stage and phase: an increment by a value it cannot evaluate
    (here the loop's induction variable) is refused at the increment (tools/untested_diagnostics.py,
    session 21)."""
    old = "          %next = cutlass.pipeline.state.increment %s\n"
    path = _mutate(tmp_path, old, "          %next = cutlass.pipeline.state.increment %s by %k\n")
    protocols, errors = load(str(path))
    line = _line_of(old.strip())
    assert not protocols and f"{path}:{line}:" in errors[0], errors
    assert "the checker needs a constant increment amount" in errors[0]


def test_a_named_barrier_of_a_runtime_id_is_a_located_error(tmp_path):
    """A named barrier whose id is computed from the thread id: refused at the barrier (the checker
    models each named barrier by its id; session 21)."""
    old = "      cutlass.named_barrier.arrive_and_wait barrier_id = 0"
    path = _mutate(tmp_path, old, '      %dyn = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index\n'
                                  "      %dyn32 = arith.index_cast %dyn : index to i32\n"
                                  "      cutlass.named_barrier.arrive_and_wait %dyn32 num_threads = 384",
                   "pingpong_seq_bar.mlir")
    protocols, errors = load(str(path))
    line = _line_of(old.strip(), "pingpong_seq_bar.mlir") + 2
    assert not protocols and f"{path}:{line}:" in errors[0], errors
    assert "the checker needs a static named-barrier id" in errors[0]


# --- MODS probes (seed 004) ----------------------------------------------------------------

def test_mods_probes_are_the_cluster_barrier():
    protocols, errors = load(str(ROOT / "examples" / "mods_mainloop.mlir"))
    assert not errors and protocols[0].ctas == 4          # 2x2 cluster
    names = [type(o).__name__ for o in _ops(protocols[0].agents[0].program)]
    # profile 2 is a participation point in the same cluster barrier: wait, then arrive again
    assert names == ["ClusterArrive", "ClusterWait", "ClusterArrive", "ClusterWait"]
    assert [o.drain for o in _ops(protocols[0].agents[0].program) if type(o).__name__ == "ClusterWait"] == [False, True]
    assert check(protocols[0]).ok


# --- TMA multicast and scf.if ---------------------------------------------------------------

def test_coop_producer_multicasts_to_its_cluster_row():
    """get_producer_mask in the producer: each CTA's stage of 8192 bytes receives half from
    each of the (2 + 1 - 1) CTAs of its row/column.  The copy sits unguarded in the produce
    body, which only the producer group's leader issues (else 32 x 4096 bytes)."""
    protocols, errors = load(str(ROOT / "examples" / "coop_pipeline.mlir"))
    assert not errors and not protocols[0].notes
    writes = [o for a in protocols[0].agents for o in _ops(a.program)
              if type(o).__name__ == "ProducerWrite"]
    assert {(w.dst, w.nbytes) for w in writes} == {((0, 1), 4096)}


def test_ir_mutant_multicast_expect_tx_of_one_source_reads_early(tmp_path):
    path = _mutate(tmp_path, "transaction_bytes = 8192", "transaction_bytes = 4096",
                   "coop_pipeline.mlir")
    protocols, _ = load(str(path))
    assert check(protocols[0]).violation.prop == P.READ_BEFORE_COMMIT


def test_ir_unknown_if_condition_is_a_choice(tmp_path):
    """A release under a condition the checker cannot decide: both branches are explored,
    and the one that skips the release starves the producer."""
    path = _mutate(tmp_path, "cutlass.pipeline.consumer_release %q, %s\n",
                   "%odd = arith.cmpi eq, %k, %c1 : i32\n"
                   "          scf.if %odd {\n"
                   "            cutlass.pipeline.consumer_release %q, %s\n"
                   "          }\n")
    protocols, _ = load(str(path))
    assert any(type(o).__name__ == "Choice" for a in protocols[0].agents
               for o in a.program[0].body)
    assert check(protocols[0]).violation.prop == P.DEADLOCK


def test_ir_known_if_condition_selects_its_branch(tmp_path):
    path = _mutate(tmp_path, "cutlass.pipeline.consumer_release %q, %s\n",
                   "%yes = arith.cmpi eq, %c1, %c1 : i32\n"
                   "          scf.if %yes {\n"
                   "            cutlass.pipeline.consumer_release %q, %s\n"
                   "          }\n")
    protocols, _ = load(str(path))
    assert check(protocols[0]).ok


# --- Stream-K fix-up in user code -------------------------------------------------------------

def test_user_fixup_is_evaluated_per_split():
    protocols, _ = load(str(ROOT / "examples" / "streamk_fixup_user.mlir"))
    fix = protocols[0]
    progs = [[type(o).__name__ for o in a.program] for a in fix.agents]
    assert progs == [["StorePartial", "CounterAdd"],
                     ["CounterWait", "ReducePartial", "CounterAdd"],
                     ["CounterWait", "LoadAddPartial", "Epilogue"]]
    assert [fix.agents[k].program[0].value for k in (1, 2)] == [1, 2]   # lock == K_idx


FINAL_WAIT = ("            cutlass.tile_scheduler.fixup_wait %sched, %w : "
              "!cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info\n"
              "            %folded")


def test_ir_mutant_user_reducer_without_fixup_wait(tmp_path):
    path = _mutate(tmp_path, FINAL_WAIT, "            %folded", "streamk_fixup_user.mlir")
    protocols, _ = load(str(path))
    assert check(protocols[0]).violation.prop == P.FIXUP_ORDER


def test_ir_mutant_user_middle_split_without_fixup_wait(tmp_path):
    path = _mutate(tmp_path, "cutlass.tile_scheduler.fixup_wait %sched, %w : "
                   "!cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info\n"
                   "            cutlass.block_striped.reduce",
                   "cutlass.block_striped.reduce", "streamk_fixup_user.mlir")
    protocols, _ = load(str(path))
    assert check(protocols[0]).violation.prop == P.FIXUP_ORDER


def test_unmodelled_control_flow_is_a_located_error(tmp_path):
    """Branching the checker does not model is rejected at the op, never assumed."""
    path = _mutate(tmp_path, "cutlass.pipeline.consumer_release %q, %s\n",
                   "%sel = arith.index_cast %k : i32 to index\n"
                   "          scf.index_switch %sel\n"
                   "          case 0 {\n"
                   "            cutlass.pipeline.consumer_release %q, %s\n"
                   "            scf.yield\n"
                   "          }\n"
                   "          default {\n"
                   "            scf.yield\n"
                   "          }\n")
    protocols, errors = load(str(path))
    switch = _line_of("cutlass.pipeline.consumer_release %q, %s") + 1
    assert not protocols and f"{path}:{switch}:" in errors[0]
    assert "scf.index_switch" in errors[0]


def test_seq_counterexample_names_the_barrier(tmp_path):
    path = _mutate(tmp_path, "%group_index = arith.subi %wg, %c1 : index",
                   "%group_index = arith.divui %wg, %c128 : index", "pingpong_seq_bar.mlir")
    proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "check", str(path)]),
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "violated property: seq-order" in proc.stdout
    assert "SeqWait(bar=order" in proc.stdout and "order.bar[0][0]" in proc.stdout


def test_ir_mutant_multicast_with_local_releases_is_rejected_at_the_init(tmp_path):
    """With multicast loads every consumer must release the stage in every CTA that feeds it
    (CUTLASS: one arrive per consumer warp group in each CTA of the row/column); explicit
    local-only arrive counts on a cluster are a located error of cutlass-stamp-arrive-counts,
    which the checker runs on its copy of the module."""
    path = _mutate(tmp_path, "consumers = array<i64: 0x6>",
                   "consumers = array<i64: 0x6>, consumer_arv_count = array<i32: 3>",
                   "coop_pipeline.mlir")
    protocols, errors = load(str(path))
    init = _line_of("%ready = cutlass.pipeline.init", "coop_pipeline.mlir")
    assert not protocols and f"{path}:{init}:5:" in errors[0] and "consumer_arv_count" in errors[0]


# --- named-barrier pipelines, per-group arrive counts, cluster release sync ------------------

# A producer warp (warp 0) and two consumer warp groups (warps 4-7, 8-11) on a two-stage
# named-barrier pipeline: commit / release are bar.arrive, wait / acquire bar.sync, each on
# 32 + 2 x 128 = 288 threads (dialect-conventions.md §5); the producer skips its first pass.
NAMED = """builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @named_mainloop(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2, barrier = named_barrier>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0xff1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          cutlass.pipeline.producer_commit %p, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xff0) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.consumer_wait %q, %s
          %stage = cutlass.pipeline.state.get_index %s
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


def _named(tmp_path, *edits):
    text = NAMED
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "named.mlir"
    path.write_text(text)
    return load(str(path))


def test_named_barrier_pipeline_is_modelled_with_thread_counts(tmp_path):
    protocols, errors = _named(tmp_path)
    assert not errors
    pipe = protocols[0].pipelines[0]
    # ids from cutlass-allocate-barrier-ids: first free id after the 8 reserved ones; full
    # barriers 8, 9 (base + stage), empty barriers 10, 11 (base + stages + stage)
    assert (pipe.full_count, pipe.empty_count, pipe.named_ids) == (288, 288, (8, 10))
    for por in (True, False):
        result = check(protocols[0], por=por, symmetry=por)
        assert result.ok, result.violation
    assert check(protocols[0]).seconds < 5.0


def test_named_barrier_pipeline_explicit_base_is_kept(tmp_path):
    protocols, _ = _named(tmp_path, ("0xf0, 0xf00>}", "0xf0, 0xf00>, barrier_id_base = 12 : i32}"))
    assert protocols[0].pipelines[0].named_ids == (12, 14)
    assert check(protocols[0]).ok


def test_named_barrier_mutant_missing_consumer_group_is_a_count_mismatch(tmp_path):
    """Only warp group 1 runs the consumer arm: 32 + 128 = 160 of the 288 threads ever reach
    the full barrier of stage 0."""
    protocols, _ = _named(tmp_path, ("warp mask(0xff1)", "warp mask(0xf1)"),
                          ("case masks(0xff0)", "case masks(0xf0)"))
    for por in (True, False):
        v = check(protocols[0], por=por, symmetry=por).violation
        assert v.prop == P.NAMED_BARRIER_COUNT and "288" in v.message and "160" in v.message


USER_BAR_8 = ("          cutlass.pipeline.consumer_release %q, %s\n",
              "          cutlass.pipeline.consumer_release %q, %s\n"
              "          cutlass.named_barrier.arrive_and_wait barrier_id = 8 num_threads = 256\n")


def test_named_barrier_user_barrier_on_a_pipeline_id(tmp_path):
    """A user bar.sync on id 8 (else the pipeline's full barrier of stage 0): the allocator,
    run on the checker's copy, claims the user's constant id first and moves the pipeline to
    9..12, so nothing collides; with an explicit base of 8 the collision is a located error at
    the user's barrier (it would join the pipeline's generation with another thread count)."""
    protocols, errors = _named(tmp_path, USER_BAR_8)
    assert not errors and protocols[0].pipelines[0].named_ids == (9, 11)
    assert check(protocols[0]).ok
    protocols, errors = _named(tmp_path, USER_BAR_8, (
        "0xf0, 0xf00>}", "0xf0, 0xf00>, barrier_id_base = 8 : i32}"))
    assert not protocols and ":23:11: error:" in errors[0] and "named barrier 8" in errors[0]


def test_named_barrier_mutant_missing_tail_and_try_wait(tmp_path):
    protocols, _ = _named(tmp_path, ("cutlass.pipeline.producer_tail %p, %last", ""))
    assert check(protocols[0]).violation.prop == P.DRAIN
    protocols, errors = _named(tmp_path, (
        "          cutlass.pipeline.consumer_wait %q, %s\n",
        "          %t = cutlass.pipeline.consumer_try_wait %q, %s\n"
        "          cutlass.pipeline.consumer_wait %q, %s token(%t)\n"))
    assert not protocols and ":20:11:" in errors[0] and "named-barrier" in errors[0]


def test_named_barrier_cli_check(tmp_path):
    path = tmp_path / "named.mlir"
    path.write_text(NAMED)
    proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "check", str(path)]),
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "OK: all properties hold" in proc.stdout


def test_arrive_counts_are_per_group(tmp_path):
    """Two producer groups (1 and 32 arrivals, 4096 and 2048 TMA bytes) and two consumer
    groups (1 and 128 arrivals): full = 33, empty = 129; each agent arrives with its own
    group's count and expects its own group's bytes."""
    path = _mutate(tmp_path, "cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = "
                   "#cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = "
                   "array<i64: 0xf0, 0xf00>, transaction_size = array<i32: 4096>}",
                   "cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = "
                   "#cutlass<executor_type warp>, participants = array<i64: 0x1, 0x2>, consumers "
                   "= array<i64: 0xf0, 0xf00>, producer_arv_count = array<i32: 1, 32>, "
                   "consumer_arv_count = array<i32: 1, 128>, transaction_size = array<i32: "
                   "4096, 2048>}")
    text = path.read_text()
    for old, new in (("producers = 1, consumers = 2", "producers = 2, consumers = 2"),
                     ("mask(0xff1)", "mask(0xff3)"), ("case masks(0x1)", "case masks(0x3)"),
                     (" {transaction_bytes = 4096 : i32}", ""),
                     # each producer warp's elected lane copies its group's bytes: 4096 / (w + 1)
                     ("%bytes = arith.constant 4096 : i32",
                      "%tid = nvvm.read.ptx.sreg.tid.x : i32\n"
                      "            %c32 = arith.constant 32 : i32\n"
                      "            %warp = arith.divui %tid, %c32 : i32\n"
                      "            %w1 = arith.addi %warp, %c1 : i32\n"
                      "            %c4096 = arith.constant 4096 : i32\n"
                      "            %bytes = arith.divui %c4096, %w1 : i32")):
        assert old in text
        text = text.replace(old, new)
    path.write_text(text)
    protocols, errors = load(str(path), iterations=3)     # k = 1..3 keeps the test fast
    assert not errors
    pipe = protocols[0].pipelines[0]
    assert (pipe.full_count, pipe.empty_count, pipe.stage_bytes) == (33, 129, 6144)
    commits = {a.name: [(o.arrivals, o.tx_bytes) for o in _ops(a.program)
                        if type(o).__name__ == "ProducerCommit"][0] for a in protocols[0].agents
               if a.role == "producer"}
    assert sorted(commits.values()) == [(1, 4096), (32, 2048)]
    releases = sorted([o.arrivals for o in _ops(a.program)
                       if type(o).__name__ == "ConsumerRelease"][0]
                      for a in protocols[0].agents if a.role == "consumer")
    assert releases == [1, 128]
    result = check(protocols[0])
    assert result.ok, result.violation


def test_cluster_release_syncs_the_group_then_arrives_once_per_warp_group():
    """coop: one consumer group of two warp groups on a 2x1 cluster: bar.sync on the group's
    own id (the first free id, 8) over its 256 threads, then 2 arrivals to each of the
    2 + 1 - 1 CTAs of its row/column (arvCount empty = 4)."""
    protocols, _ = load(str(ROOT / "examples" / "coop_pipeline.mlir"))
    for a in protocols[0].agents:
        if a.role != "consumer":
            continue
        ops = [o for o in _ops(a.program) if type(o).__name__ in ("BarSync", "ConsumerRelease")]
        assert [(type(o).__name__, getattr(o, "barrier", None), getattr(o, "count", None),
                 getattr(o, "arrivals", None)) for o in ops] == [
            ("BarSync", 8, 256, None), ("ConsumerRelease", None, None, 2)]
    assert protocols[0].pipelines[0].empty_count == 4


def test_cluster_release_mutant_half_a_group_hangs_in_its_sync(tmp_path):
    path = _mutate(tmp_path, "cutlass.async.exec warpgroup mask(0x6) regs(232)",
                   "cutlass.async.exec warpgroup mask(0x2) regs(232)", "coop_pipeline.mlir")
    protocols, errors = load(str(path))
    assert not errors
    v = check(protocols[0]).violation
    assert v.prop == P.NAMED_BARRIER_COUNT and "256" in v.message


# --- transaction bytes from the producer's bulk copies ---------------------------------------
#
# PTX: the full barrier's phase completes when its pending arrivals AND its transaction count
# reach 0; arrive.expect_tx adds the commit's bytes, each cp.async.bulk's complete_tx subtracts
# the bytes it delivered.  ws_stream_copy's header: tile = 16384 bytes, one copy by thread 0,
# commit expects 16384.

STREAM = "ws_stream_copy.mlir"
COPY_SIZE = "%bytes = arith.constant 16384 : i32"
LEADER = "%leader = arith.cmpi eq, %tid, %c0 : i32"


def _writes(protocol):
    """The ProducerWrite ops of one iteration of every loop."""
    from tileorch.analysis.protocol import unroll
    one = {name: 1 for name, _ in protocol.params}
    return [o for a in protocol.agents for o in unroll(a.program, one)
            if type(o).__name__ == "ProducerWrite"]


def _located(needle, example):
    """``path:line:col`` prefix of the first ``needle`` in an example (1-based)."""
    text = (ROOT / "examples" / example).read_text()
    at = text.index(needle)
    line = text[:at].count("\n") + 1
    return f"{line}:{at - text.rfind(chr(10), 0, at)}"


def test_stream_copy_stage_bytes_come_from_its_bulk_copy():
    protocols, errors = load(str(ROOT / "examples" / STREAM))
    assert not errors and not protocols[0].notes
    assert [w.nbytes for w in _writes(protocols[0])] == [16384]
    assert check(protocols[0]).ok


def test_stream_copy_mutant_copy_of_half_the_tile_deadlocks(tmp_path):
    """8192 bytes land, the commit expects 16384: the transaction count stays at 8192, the
    consumer's wait never passes and the producer's tail never sees a release."""
    path = _mutate(tmp_path, COPY_SIZE, "%bytes = arith.constant 8192 : i32", STREAM)
    protocols, errors = load(str(path))
    assert not errors
    result = check(protocols[0])
    assert result.violation.prop == P.DEADLOCK
    assert "tx=8192" in result.violation.message
    proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "check", str(path)]),
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "violated property: deadlock" in proc.stdout


def test_stream_copy_mutant_copy_issued_by_two_threads_overflows_the_transaction_count(tmp_path):
    """Threads 0 and 1 both issue the copy: 2 x 16384 bytes complete on a barrier armed
    for 16384, so its transaction count never returns to 0.  Since session 32 the landing that
    takes it below 0 with no arrival left is the violation (over-arrival, located at the
    commit), not the deadlock it leads to."""
    path = _mutate(tmp_path, LEADER, "%c2 = arith.constant 2 : i32\n"
                   "      %leader = arith.cmpi ult, %tid, %c2 : i32", STREAM)
    protocols, _ = load(str(path))
    assert [w.nbytes for w in _writes(protocols[0])] == [32768]
    violation = check(protocols[0]).violation
    assert violation.prop == P.OVER_ARRIVAL and "16384 bytes more than the phase's arrivals expect" in \
        violation.message, violation


def test_non_constant_copy_size_is_a_located_error(tmp_path):
    path = _mutate(tmp_path, COPY_SIZE, "%bytes = arith.addi %ntiles, %c0 : i32", STREAM)
    protocols, errors = load(str(path))
    where = _located("atom.bulk_copy_g2s", STREAM)
    assert not protocols and errors[0].startswith(f"{path}:{where}: error:")
    assert "cannot model" in errors[0] and "non-constant size" in errors[0]


def test_copy_issued_under_an_unknown_condition_is_a_located_error(tmp_path):
    path = _mutate(tmp_path, LEADER, "%leader = arith.cmpi eq, %ntiles, %c0 : i32", STREAM)
    protocols, errors = load(str(path))
    assert not protocols and f"{path}:{_located('atom.bulk_copy_g2s', STREAM)}:" in errors[0]


COPY_LINE = ("atom.bulk_copy_g2s %dst, %from, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, "
             "!llvm.ptr<3>")


def test_transaction_bytes_no_copy_delivers_are_a_located_error(tmp_path):
    """ws_pipeline without its bulk copy: the commit expects 4096 bytes that nothing delivers,
    so the full barrier would never complete on hardware: an error at the commit, also on the
    command line (exit 1)."""
    path = _mutate(tmp_path, COPY_LINE, "")
    protocols, errors = load(str(path))
    where = f"{path}:{_located('cutlass.pipeline.producer_commit', 'ws_pipeline.mlir')}:"
    assert not protocols and errors[0].startswith(where + " error:")
    assert "4096" in errors[0] and "no copy" in errors[0]
    proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "check", str(path)]),
                          capture_output=True, text=True)
    assert proc.returncode == 1 and where in proc.stdout + proc.stderr


def test_copies_hidden_in_a_call_check_with_a_located_note(tmp_path):
    """A producer that may issue its copies in a called function: not statically visible, so
    the check assumes the commit's 4096 bytes land and says so at the commit."""
    text = (ROOT / "examples" / "ws_pipeline.mlir").read_text()
    text = text.replace(COPY_LINE, "func.call @issue(%full) : (!llvm.ptr<3>) -> ()")
    text = text.replace("  func.func @ws_mainloop", "  func.func private @issue(!llvm.ptr<3>)\n"
                        "  func.func @ws_mainloop")
    path = tmp_path / "call.mlir"
    path.write_text(text)
    protocols, errors = load(str(path))
    assert not errors and len(protocols[0].notes) == 1
    note = protocols[0].notes[0]
    assert " NOTE:" in note and "4096" in note and "no copy" in note
    result = check(protocols[0])
    assert result.ok and result.notes == (note,)


@pytest.mark.parametrize("part, ok", [(4096, True), (8192, False)])
def test_multicast_copies_land_in_every_cta_of_the_row(tmp_path, part, ok):
    """coop on a 2x1 cluster, stage 8192 bytes: the leader of each CTA multicasts its part to
    both CTAs, so each full barrier receives 2 x part bytes; only part = 4096 matches the
    commit.  With part = 8192, CTA 1's part lands on stage 1's bytes: since session 41 that is refused before the
    search (stage-slots: two stages of one pipeline on the same bytes); the byte mismatch alone is
    test_checker_scope_mcast's."""
    path = _mutate(tmp_path, "%half = arith.constant 4096 : i32",
                   f"%half = arith.constant {part} : i32", "coop_pipeline.mlir")
    protocols, errors = load(str(path))
    if not ok:
        assert not protocols and len(errors) == 1, errors
        assert "stage-slots" in errors[0] and "two stages of one pipeline on the same bytes" in errors[0], errors
        return
    assert not errors and not protocols[0].notes
    assert {(w.dst, w.nbytes) for w in _writes(protocols[0])} == {((0, 1), part)}
    assert check(protocols[0]).ok == ok
