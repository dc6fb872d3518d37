"""The thirty-second user sweep's CUTLASS-dialect inputs: three of ``examples/`` as a user starts from them (the
cooperative TMA mainloop on a 2x1 cluster, the ping-pong sequence barrier, the warp-specialized stream copy) with the
edits users make by mistake, through the commands a user runs on them (cutlass_sweep_checks.cutlass_sweep_tests):
each example compiles, ``tileorch check`` proves it and ``tileorch-opt`` round-trips it; :data:`CHECK_FAILURES`:
edits that compile but break the protocol (half the multicast stage's transaction bytes, the producer's tail left
out, one of two consumer warp groups running the consumer loop, the mainloop's order wait left out, an epilogue
barrier counting 256 threads, a consumer that never releases, a producer that never acquires, a commit of half the
copy, the epilogue's arrive dropped): ``tileorch check`` exits non-zero naming the property at the op's line;
:data:`COMPILE_ERRORS`: edits ``tileorch compile`` stops at the op's line (registers past the CTA's budget, a
consumer warp outside the pipeline's consumer groups, a named barrier id of 16)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")

from cutlass_sweep_checks import cutlass_sweep_tests  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
INPUTS = {name: (EXAMPLES / f"{name}.mlir").read_text() for name in ("coop_pipeline", "pingpong_seq_bar",
                                                                     "ws_stream_copy")}
BULK = r"cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes"
PTX_NEEDS = {
    "coop_pipeline": [BULK + r"\.multicast::cluster", r"setmaxnreg\.inc\.sync\.aligned\.u32\s+232;"],
    "pingpong_seq_bar": [r"bar\.sync\s+1, 128;", r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40;"],
    "ws_stream_copy": [BULK, r"ld\.shared\.v4"],
}
CHECKS = {name: "ok" for name in INPUTS}

_SEQ_WAIT = "        cutlass.seq_bar.wait %order, %st group(%group)\n"
CHECK_FAILURES = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "a_multicast_stage_of_half_its_bytes": (
        "coop_pipeline", "cutlass.pipeline.produce %ready, %s attributes {transaction_bytes = 8192 : i32}",
        "cutlass.pipeline.produce %ready, %s attributes {transaction_bytes = 4096 : i32}",
        "read-before-commit [cta0.consumer1]: acquires ready stage 0 round 0 for reading with 4096 of 8192 bytes",
        "cutlass.pipeline.consume %ready, %s"),
    "the_producer_tail_left_out": (
        "coop_pipeline", "        cutlass.pipeline.producer_tail %ready, %last\n", "",
        "drain [cta0.producer0]: exits without waiting for the release of round 0 of ready stage 0 (missing "
        "producer_tail)", "%last = scf.for %k"),
    "one_of_two_consumer_warp_groups_runs_the_loop": (
        "coop_pipeline", "cutlass.async.exec warpgroup mask(0x6) regs(232)",
        "cutlass.async.exec warpgroup mask(0x2) regs(232)",
        "named-barrier-count [cta0.consumer1]: bar.sync 8 waits for 256 threads but only 128 ever arrive",
        "cutlass.pipeline.consume %ready, %s"),
    "the_mainloop_order_wait_left_out": (
        "pingpong_seq_bar", _SEQ_WAIT, "",
        "seq-order [math1.u1]: group 0 arrives to leave order stage 0 without having entered it",
        "%st_epi = cutlass.seq_bar.arrive %order, %st group(%group)"),
    "an_epilogue_barrier_of_256_threads": (
        "pingpong_seq_bar", "barrier_id = 1 num_threads = 128", "barrier_id = 1 num_threads = 256",
        "named-barrier-count [math1.u1]: bar.sync 1 waits for 256 threads but only 128 ever arrive",
        "barrier_id = 1 num_threads = 256"),
    "the_epilogue_arrive_dropped": (
        "pingpong_seq_bar", "        %st_next = cutlass.seq_bar.arrive %order, %st_epi group(%group)\n"
                            "        scf.yield %st_next", "        scf.yield %st_epi",
        "deadlock: every unfinished agent is blocked: math1.u2 at SeqWait(bar=order",
        "cutlass.seq_bar.wait %order, %st_epi group(%group)"),
    "a_consumer_that_never_releases": (
        "ws_stream_copy", "        cutlass.pipeline.consumer_release %ready, %s\n", "",
        "deadlock: every unfinished agent is blocked: producer0 at ProducerAcquire(pipe=ready",
        "cutlass.pipeline.producer_tail %ready, %last"),
    "a_producer_that_never_acquires": (
        "ws_stream_copy", "        cutlass.pipeline.producer_acquire %ready, %s\n", "",
        "write-before-release [producer0]: writes ready stage 0 without acquiring it for this round",
        "cutlass.pipeline.producer_commit %ready, %s"),
    "a_commit_of_half_the_copy": (
        "ws_stream_copy", "cutlass.pipeline.producer_commit %ready, %s {transaction_bytes = 16384 : i32}",
        "cutlass.pipeline.producer_commit %ready, %s {transaction_bytes = 8192 : i32}",
        "over-arrival [tma->cta0]: ready.full[0]: the copies landed 8192 bytes more than the phase's arrivals expect",
        "transaction_bytes = 8192"),
}

COMPILE_ERRORS = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "consumer_registers_past_the_budget": (
        "coop_pipeline", "regs(232)", "regs(248)",
        "need 40 (warp group 0) + 248 (warp group 1) + 248 (warp group 2) = 536 registers per lane slot, more than "
        "the 3 x 168 = 504", "cutlass.async.exec warpgroup mask(0x1) regs(40)"),
    "a_consumer_warp_outside_the_consumer_groups": (
        "ws_stream_copy", "cutlass.async.exec warp mask(0x1fe)", "cutlass.async.exec warp mask(0x3fe)",
        "runs threads 288..319, which are not consumers of the pipeline", "cutlass.pipeline.consumer_wait %ready"),
    "a_named_barrier_id_of_16": (
        "pingpong_seq_bar", "barrier_id = 1 num_threads = 128", "barrier_id = 16 num_threads = 128",
        "barrier_id must be a hardware named barrier in [0, 15], found 16", "barrier_id = 16"),
}

(test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input, test_the_input_round_trips_through_tileorch_opt,
 test_a_broken_protocol_compiles_and_fails_the_check, test_an_invalid_input_stops_at_its_line) = \
    cutlass_sweep_tests(INPUTS, PTX_NEEDS, CHECKS, CHECK_FAILURES, COMPILE_ERRORS)
