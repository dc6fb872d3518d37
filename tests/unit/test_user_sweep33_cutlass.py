"""The thirty-third user sweep's CUTLASS-dialect inputs: four of ``examples/`` no earlier sweep started from (the
persistent Stream-K skeleton with two consumer warp groups' fix-ups, the warp-specialized TMA mainloop, the generated
sm_90a GEMM, the MODS-instrumented sm_100a mainloop) with the edits users make by mistake, through the commands a
user runs on them (cutlass_sweep_checks.cutlass_sweep_tests): each example compiles, ``tileorch check`` proves it and
``tileorch-opt`` round-trips it; :data:`CHECK_FAILURES`: edits that compile but break the protocol (both consumer
groups on fix-up barrier 0, a consumer that never releases, a commit of half the stage's bytes, stages copied onto
the pipeline's own mbarriers, the epilogue's named barrier counted for one warp group of two, the producer tail left
out, a commit short of the two operands' bytes): ``tileorch check`` exits non-zero naming the property at the op's
line; :data:`COMPILE_ERRORS`: edits ``tileorch compile`` stops at the op's line (a fix-up barrier index past the
count, one barrier for two groups, one consumer mask for two groups, a MODS participant mask wider than the cluster,
start / end probes disagreeing on the mask or on 2-CTA MMA, a cooperative throttle after the window closes, an
unknown throttle profile)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")

from cutlass_sweep_checks import cutlass_sweep_tests  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
INPUTS = {name: (EXAMPLES / f"{name}.mlir").read_text() for name in ("streamk_persistent", "ws_pipeline",
                                                                     "gemm_sm90", "mods_mainloop")}
PTX_NEEDS = {
    "streamk_persistent": [r"bar\.sync\s+\d+, 128;"],
    "ws_pipeline": [r"cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes"],
    "gemm_sm90": [r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.bf16\.bf16"],
    "mods_mainloop": [r"%smid", r"nanosleep"],
}
CHECKS = {name: "ok" for name in INPUTS}

_FIX1 = "{barrier_idx = 1 : i32, num_barriers = 2 : i32}"
_MODS_END = "      %elapsed = cutlass.tile_scheduler.mods_report_mainloop_end %sched, %participants, %t_start\n"
CHECK_FAILURES = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "both_consumer_groups_on_fixup_barrier_0": (
        "streamk_persistent", _FIX1, "{barrier_idx = 0 : i32, num_barriers = 2 : i32}",
        "threads 128..255 and 256..383 both use Stream-K fix-up barrier_idx = 0",
        "%fixed = cutlass.tile_scheduler.fixup %sched, %w, %acc {barrier_idx = 0"),
    "a_consumer_that_never_releases": (
        "ws_pipeline", "          cutlass.pipeline.consumer_release %q, %s\n", "",
        "deadlock: every unfinished agent is blocked: producer0 at ProducerAcquire(pipe=ready",
        "cutlass.pipeline.producer_tail %p, %last"),
    "a_commit_of_half_the_stage": (
        "ws_pipeline", "cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 4096 : i32}",
        "cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 2048 : i32}",
        "over-arrival [tma->cta0]: ready.full[0]: the copies landed 2048 bytes more than the phase's arrivals expect",
        "transaction_bytes = 2048"),
    "an_epilogue_barrier_of_one_warp_group": (
        "gemm_sm90", "nvvm.cp.async.bulk.wait_group 1 {read}\n          }\n          cutlass.named_barrier.arrive_and_wait "
                     "barrier_id = 14 num_threads = 256\n          %eslot0_off",
        "nvvm.cp.async.bulk.wait_group 1 {read}\n          }\n          cutlass.named_barrier.arrive_and_wait "
        "barrier_id = 14 num_threads = 128\n          %eslot0_off",
        "named-barrier-count [cta0.consumer1]: bar 14: 256 threads arrived on a barrier of count 128",
        "barrier_id = 14 num_threads = 128"),
    "the_producer_tail_left_out": (
        "gemm_sm90", "        cutlass.pipeline.producer_tail %ready, %last\n", "",
        "drain [cta0.producer0]: exits without waiting for the release of round 0 of ready stage 0 (missing "
        "producer_tail)", ""),
    "a_commit_short_of_the_operands_bytes": (
        "gemm_sm90", "{transaction_bytes = 49152 : i32}", "{transaction_bytes = 24576 : i32}",
        "over-arrival [tma->cta0]: cta0.ready.full[0]", ""),
}

COMPILE_ERRORS = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    # a stage copied onto its pipeline's mbarriers: refused by tileorch compile since session 41 (s41-cutlass33)
    "stages_copied_onto_the_mbarriers": (
        "ws_pipeline", "%data = arith.constant 1024 : i32", "%data = arith.constant 0 : i32",
        "stage-slots: this copy of stage 0 writes bytes [0, 4096) of the pipeline's storage pointer, where its 4 x 2 "
        "mbarriers live", "atom.bulk_copy_g2s %dst, %from, %full, %bytes"),
    "a_fixup_barrier_index_past_the_count": (
        "streamk_persistent", _FIX1, "{barrier_idx = 2 : i32, num_barriers = 2 : i32}",
        "barrier_idx must be in [0, num_barriers), found barrier_idx = 2, num_barriers = 2",
        "%fixed = cutlass.tile_scheduler.fixup %sched, %w, %acc {barrier_idx = 2"),
    "one_fixup_barrier_for_two_groups": (
        "streamk_persistent", _FIX1, "{barrier_idx = 1 : i32, num_barriers = 1 : i32}",
        "barrier_idx must be in [0, num_barriers), found barrier_idx = 1, num_barriers = 1",
        "%fixed = cutlass.tile_scheduler.fixup %sched, %w, %acc {barrier_idx = 1 : i32, num_barriers = 1"),
    "one_consumer_mask_for_two_groups": (
        "ws_pipeline", "consumers = array<i64: 0xf0, 0xf00>", "consumers = array<i64: 0xf0>",
        "consumers length mismatch: the pipeline type declares 2 consumer group(s), consumers has 1 mask(s)",
        "%ready = cutlass.pipeline.init %pipe"),
    "a_mods_mask_wider_than_the_cluster": (
        "mods_mainloop", "%participants = arith.constant 3 : i64", "%participants = arith.constant 7 : i64",
        "participant mask 0b111 is wider than the 2 participants of cluster 2x2x1",
        "%t_start = cutlass.tile_scheduler.mods_report_mainloop_start"),
    "mods_probes_of_two_masks": (
        "mods_mainloop", _MODS_END,
        "      %one = arith.constant 1 : i64\n" + _MODS_END.replace("%participants", "%one"),
        "participant mask mismatch: mods_report_mainloop_start uses %participants, mods_report_mainloop_end uses %one",
        "%elapsed = cutlass.tile_scheduler.mods_report_mainloop_end %sched, %one"),
    "mods_end_without_2cta_mma": (
        "mods_mainloop", _MODS_END + "          {is_2cta_mma = true}", _MODS_END + "          {is_2cta_mma = false}",
        "is_2cta_mma mismatch: mods_report_mainloop_start has true, mods_report_mainloop_end has false",
        "%elapsed = cutlass.tile_scheduler.mods_report_mainloop_end"),
    "a_cooperative_throttle_after_the_window": (
        "mods_mainloop", "      func.call @record(%smid, %elapsed)",
        "      cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}\n      func.call @record(%smid, %elapsed)",
        "mods_throttle profile 2 (cooperative cluster throttle) depends on cluster-wide state",
        "cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}"),
    "an_unknown_throttle_profile": (
        "mods_mainloop", "mods_throttle {profile = 2 : i32}", "mods_throttle {profile = 3 : i32}",
        "unknown throttle profile 3: expected 0 (no-op), 1 (fixed nanosleep) or 2", "mods_throttle {profile = 3"),
}

CI = {"ws_pipeline", "mods_mainloop", "both_consumer_groups_on_fixup_barrier_0", "stages_copied_onto_the_mbarriers",
      "a_mods_mask_wider_than_the_cluster", "mods_probes_of_two_masks"}
"""The inputs and edits CI runs (the suite's time budget: gemm_sm90's proof explores ~11k states); every one with
``TILEORCH_EMULATE_ALL=1``."""

(test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input, test_the_input_round_trips_through_tileorch_opt,
 test_a_broken_protocol_compiles_and_fails_the_check, test_an_invalid_input_stops_at_its_line) = \
    cutlass_sweep_tests(INPUTS, PTX_NEEDS, CHECKS, CHECK_FAILURES, COMPILE_ERRORS, ci=CI)
