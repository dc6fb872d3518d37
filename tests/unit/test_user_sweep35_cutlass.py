"""The thirty-fifth user sweep's CUTLASS-dialect inputs: the warp-specialized TMA mainloop (``ws_pipeline``: one
producer warp, two consumer warp groups over a 4-stage ring) and the cooperative multicast mainloop on a 2x1 cluster
(``coop_pipeline``: produce / consume region ops) with the edits users make when they hand-write such loops, through
the commands a user runs on them (cutlass_sweep_checks.cutlass_sweep_tests): each input compiles, round-trips through
``tileorch-opt`` and is proved by ``tileorch check``;

* :data:`CHECK_FAILURES`: edits that compile but break the pipeline protocol -- a consumer that releases its stage
  before waiting on it, a commit issued twice, consumers running one tile fewer or one more than the producer, a
  producer loop that yields the state it did not advance, a ring whose stages carry 6144 of the 8192 bytes the
  consumers expect; ``tileorch check`` exits non-zero at the op's line;
* :data:`COMPILE_ERRORS`: edits ``tileorch compile`` stops at the op's line (a consumer loop over a producer state,
  ``numStages`` unlike the pipeline type's, ``setmaxnreg`` of 230, and -- found by this sweep: compiled, and
  ``tileorch check`` said "OK: all properties hold" -- a ``consume`` / ``consumer_release`` in the loop of a state
  created before it (``%start``, not the loop-carried ``%s``): every iteration waits on / releases stage 0's first
  phase while the producer fills the ring; the verifier refuses it now, and the checker's extraction too)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")

from cutlass_sweep_checks import cutlass_sweep_tests  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
INPUTS = {name: (EXAMPLES / f"{name}.mlir").read_text() for name in ("ws_pipeline", "coop_pipeline")}
BULK = r"cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes"
PTX_NEEDS = {"ws_pipeline": [BULK], "coop_pipeline": [BULK + r"\.multicast::cluster"]}
CHECKS = {"ws_pipeline": "ok", "coop_pipeline": "ok"}

_CONSUMER_LOOP = "%start = cutlass.pipeline.state.create %q consumer\n        %last = scf.for %k = %c0 to"
_WAIT_RELEASE = ("          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)\n"
                 "          %stage = cutlass.pipeline.state.get_index %s\n"
                 "          cutlass.pipeline.consumer_release %q, %s\n")
_COMMIT = "          cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 4096 : i32}\n"
CHECK_FAILURES = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "a_release_before_the_wait": (
        "ws_pipeline", _WAIT_RELEASE,
        "          cutlass.pipeline.consumer_release %q, %s\n"
        "          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)\n"
        "          %stage = cutlass.pipeline.state.get_index %s\n",
        "parity-aliasing [producer0]: waits on ready.empty[0] with parity 1", "cutlass.pipeline.producer_acquire"),
    "a_commit_issued_twice": (
        "ws_pipeline", _COMMIT, _COMMIT + _COMMIT,
        "over-arrival [producer0]: ready.full[0]: 1 arrivals with only 0 pending", "cutlass.pipeline.producer_commit"),
    "consumers_one_tile_short": (
        "ws_pipeline", _CONSUMER_LOOP, _CONSUMER_LOOP.replace("%k = %c0 to", "%k = %c1 to"),
        "deadlock: every unfinished agent is blocked: producer0 at ProducerAcquire(pipe=ready, state=s0, tail=True)",
        "cutlass.pipeline.producer_tail %p, %last"),
    "consumers_one_tile_over": (
        "ws_pipeline", _CONSUMER_LOOP,
        _CONSUMER_LOOP.replace("        %last = scf.for %k = %c0 to",
                               "        %cm1 = arith.constant -1 : i32\n        %last = scf.for %k = %cm1 to"),
        "deadlock: every unfinished agent is blocked: consumer1.g0 at ConsumerWait(pipe=ready",
        "cutlass.pipeline.consumer_wait %q, %s"),
    "the_producer_yields_its_unadvanced_state": (
        "ws_pipeline", _COMMIT + "          %next = cutlass.pipeline.state.increment %s\n          scf.yield %next",
        _COMMIT + "          %next = cutlass.pipeline.state.increment %s\n          scf.yield %s",
        "parity-aliasing [producer0]: wait with parity 1 on ready.empty[0] passed although phase 0 has not completed",
        "cutlass.pipeline.producer_tail %p, %last"),
    "stages_of_6144_bytes": (
        "coop_pipeline", "transaction_size = array<i32: 8192>", "transaction_size = array<i32: 6144>",
        "write-before-release [cta0.consumer1]: acquires ready stage 0 round 0 but round 1 already overwrote it",
        "cutlass.pipeline.consume %ready, %s"),
}

COMPILE_ERRORS = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "a_consumer_loop_over_a_producer_state": (
        "ws_pipeline", "%start = cutlass.pipeline.state.create %q consumer",
        "%start = cutlass.pipeline.state.create %q producer",
        "cutlass.pipeline.consumer_try_wait is a consumer-side wait, but its state starts as a producer state",
        "cutlass.pipeline.consumer_try_wait %q, %s"),
    "num_stages_3_of_a_4_stage_pipeline": (
        "ws_pipeline", "{numStages = 4 : i32,", "{numStages = 3 : i32,",
        "invalid numStages: expected 4", "cutlass.pipeline.init %pipe {numStages = 3"),
    "setmaxnreg_of_230": (
        "coop_pipeline", "regs(232)", "regs(230)",
        "regs must be a multiple of 8 in [24, 256] (setmaxnreg), found 230", "regs(230)"),
    # found by this sweep: compiled, and `tileorch check` said "OK: all properties hold"; now the verifier's
    # (check_state_not_stale: decided by the IR alone, so the compile refuses it as the checker does)
    "a_consume_of_the_state_before_the_loop": (
        "coop_pipeline", "        cutlass.pipeline.consume %ready, %s {", "        cutlass.pipeline.consume %ready, %start {",
        "uses pipeline state %start, defined before the enclosing scf.for that advances its state variable",
        "cutlass.pipeline.consume %ready, %start"),
    "a_release_of_the_state_before_the_loop": (
        "ws_pipeline", "          cutlass.pipeline.consumer_release %q, %s\n",
        "          cutlass.pipeline.consumer_release %q, %start\n",
        "uses pipeline state %start, defined before the enclosing scf.for that advances its state variable",
        "cutlass.pipeline.consumer_release %q, %start"),
}

CI = {"coop_pipeline", "a_consume_of_the_state_before_the_loop", "a_release_of_the_state_before_the_loop",
      "setmaxnreg_of_230"}
"""The inputs and edits CI runs (the suite's time budget); every one with ``TILEORCH_EMULATE_ALL=1``."""

(test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input, test_the_input_round_trips_through_tileorch_opt,
 test_a_broken_protocol_compiles_and_fails_the_check, test_an_invalid_input_stops_at_its_line) = \
    cutlass_sweep_tests(INPUTS, PTX_NEEDS, CHECKS, CHECK_FAILURES, COMPILE_ERRORS, ci=CI)
