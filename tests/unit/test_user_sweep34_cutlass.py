"""The thirty-fourth user sweep's CUTLASS-dialect inputs: three of ``examples/`` no earlier sweep started from (the
Stream-K fix-up written out by hand with its lock, the SM100 Stream-K scheduler reducing each piece inside a 2x1
cluster, the 2-CTA tcgen05 MMA with its tensor-memory allocation) with the edits users make by mistake, through the
commands a user runs on them (cutlass_sweep_checks.cutlass_sweep_tests): each example compiles and round-trips through
``tileorch-opt``, the two Stream-K ones are proved by ``tileorch check``; :data:`CHECK_FAILURES`: edits that compile but
break the fix-up protocol (the final split folds the partials without waiting, no split bumps the lock, a later split
adds without waiting, the first split adds onto a workspace nobody stored, the final split reads 64-thread stripes of
a 128-thread store): ``tileorch check`` exits non-zero naming the property at the op's line;
:data:`COMPILE_ERRORS`: edits ``tileorch compile`` stops at the op's line (the SM100 scheduler on a 1x1 cluster or on
sm_90a, a CTA executor of 64 threads for a warp group's fix-up, the cluster loop stopping on the CTA's share, a
tensor-memory allocation of 100 columns, and -- found by this sweep: compiled and "proved" before -- a cluster
reduction buffer of half the partial tile's bytes, which the peers' partials overran, and a 2-CTA kernel that
never frees its tensor memory, or reads the tcgen05.ld registers before
their wait)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")

from cutlass_sweep_checks import cutlass_sweep_tests  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
INPUTS = {name: (EXAMPLES / f"{name}.mlir").read_text() for name in ("streamk_fixup_user", "streamk_sm100a",
                                                                     "tcgen05_sm100a")}
PTX_NEEDS = {
    "streamk_fixup_user": [r"(red|atom)(\.\w+)*\.add(\.\w+)*\.f32"],
    "streamk_sm100a": [r"mapa(\.\w+)*", r"barrier\.cluster\.arrive"],
    "tcgen05_sm100a": [r"tcgen05\.mma\.cta_group::2", r"tcgen05\.dealloc\.cta_group::2"],
}
CHECKS = {"streamk_fixup_user": "ok", "streamk_sm100a": "ok"}

_WAIT = "cutlass.tile_scheduler.fixup_wait %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info"
CHECK_FAILURES = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "the_final_split_folds_without_waiting": (
        "streamk_fixup_user", f"            {_WAIT}\n            %folded", "            %folded",
        "fixup-order [split2]: reads partial 'ws' before any split stored it",
        "%folded = cutlass.block_striped.load_add"),
    "no_split_bumps_the_lock": (
        "streamk_fixup_user", "          cutlass.tile_scheduler.fixup_increment %sched, %w : "
                              "!cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info\n", "",
        "deadlock: every unfinished agent is blocked: split1 at CounterWait(counter=lock, value=1",
        "cutlass.tile_scheduler.fixup_wait"),
    "a_later_split_adds_without_waiting": (
        "streamk_fixup_user", f"            {_WAIT}\n            cutlass.block_striped.reduce",
        "            cutlass.block_striped.reduce",
        "fixup-order [split1]: atomically adds onto partial 'ws' before any split stored it",
        "cutlass.block_striped.reduce add"),
    "the_first_split_adds_instead_of_storing": (
        "streamk_fixup_user", "cutlass.block_striped.store %acc, %part, %t n_threads_in_block = 128",
        "cutlass.block_striped.reduce add %acc, %part, %t n_threads_in_block = 128",
        "fixup-order [split0]: atomically adds onto partial 'ws' before any split stored it",
        "cutlass.block_striped.reduce add"),
    "the_fold_reads_64_thread_stripes": (
        "streamk_fixup_user", "cutlass.block_striped.load_add %part, %t, %acc n_threads_in_block = 128",
        "cutlass.block_striped.load_add %part, %t, %acc n_threads_in_block = 64",
        "fix-up-count: cutlass.block_striped.store lays the partial tile out as 128 threads",
        "cutlass.block_striped.store %acc"),
}

COMPILE_ERRORS = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "the_sm100_scheduler_on_a_1x1_cluster": (
        "streamk_sm100a", "cutlass.cluster_shape = array<i32: 2, 1, 1>", "cutlass.cluster_shape = array<i32: 1, 1, 1>",
        "the SM100 Stream-K scheduler's CGA shape [2, 1, 1] differs from the launch cluster",
        "cutlass.tile_scheduler.create_SM100_scheduler"),
    "the_sm100_scheduler_on_sm90a": (
        "streamk_sm100a", 'cutlass.target = "sm_100a"', 'cutlass.target = "sm_90a"',
        "the SM100 'streamk' scheduler is illegal on sm_90a", "cutlass.tile_scheduler.create_SM100_scheduler"),
    "a_cta_executor_of_64_threads": (
        "streamk_sm100a", "cutlass.async.exec cta mask(1) threads(128)", "cutlass.async.exec cta mask(1) threads(64)",
        "num_barriers = 1 fix-up warp groups need 128 threads, but the CTA has 64",
        "%fixed = cutlass.tile_scheduler.fixup"),
    "the_cluster_loop_stops_on_the_ctas_share": (
        "streamk_sm100a",
        "%piece = cutlass.tile_scheduler.work_tile_info_get_value %w {field = #cutlass<streamk_work_tile_info_field "
        "k_tile_count>}\n            : !cutlass.streamk_work_tile_info -> i32",
        "%piece = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w\n"
        "            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info",
        "get_work_k_tile_count is this CTA's share of the piece, which may be 0",
        "%piece = cutlass.tile_scheduler.get_work_k_tile_count"),
    # found by this sweep: compiled, and `tileorch check` said "OK: all properties hold"
    "a_cluster_buffer_of_half_the_partial_tile": (
        "streamk_sm100a", "!llvm.array<4096 x i8>", "!llvm.array<2048 x i8>",
        "the smem(...) buffer holds 2048 bytes, but this CTA's partial tile is 4096 bytes",
        "%fixed = cutlass.tile_scheduler.fixup"),
    # found by this sweep: compiled (and `tileorch check` had nothing to check)
    "the_tensor_memory_never_freed": (
        "tcgen05_sm100a", "    scf.if %warp0 {\n      nvvm.tcgen05.dealloc %acc, %cols, group = <cta_2> : !llvm.ptr<6>, i32\n"
                          "    }\n", "",
        "tensor memory allocated here is never freed: the kernel has no tcgen05.dealloc", "nvvm.tcgen05.alloc %slot"),
    "the_accumulator_read_before_its_load_completes": (
        "tcgen05_sm100a", "    nvvm.tcgen05.wait <load>\n", "",
        "this reads the registers of a tcgen05.ld before a tcgen05.wait <load>", "%e0 = llvm.extractelement %v"),
    "a_tensor_memory_allocation_of_100_columns": (
        "tcgen05_sm100a", "%cols = arith.constant 128 : i32", "%cols = arith.constant 100 : i32",
        "nCols must be a power of two in [32, 512], got 100", "nvvm.tcgen05.alloc %slot, %cols"),
}

CI = {"streamk_sm100a", "the_final_split_folds_without_waiting", "a_cluster_buffer_of_half_the_partial_tile",
      "the_cluster_loop_stops_on_the_ctas_share", "the_tensor_memory_never_freed"}
"""The inputs and edits CI runs (the suite's time budget); every one with ``TILEORCH_EMULATE_ALL=1``."""

(test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input, test_the_input_round_trips_through_tileorch_opt,
 test_a_broken_protocol_compiles_and_fails_the_check, test_an_invalid_input_stops_at_its_line) = \
    cutlass_sweep_tests(INPUTS, PTX_NEEDS, CHECKS, CHECK_FAILURES, COMPILE_ERRORS, ci=CI)
