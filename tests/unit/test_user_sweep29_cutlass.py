"""The twenty-ninth user sweep's CUTLASS-dialect inputs, through the commands a user runs on cutlass IR
(cutlass_sweep_checks.cutlass_sweep_tests, the skeleton sweeps 29 on share):

* :data:`SPLIT_K_WAIT_LT`, valid: a split-K fix-up whose splits wait on the tile's flag by
  ``generic_barrier.wait_less_than`` and fold their fragment into the workspace by ``block_striped.load`` (4-wide
  accesses), an add and ``block_striped.store``: ``tileorch compile`` writes PTX holding the acquire spin with its
  ``setp.lt``, the two 16-byte accesses per thread 2048 bytes apart and the release before the flag's add, exit 0;
  ``tileorch check`` stops with a located "cannot model" at the wait, nothing claimed;
* :data:`PINGPONG3`, valid: an ``OrderedSequenceBarrier<3, 2>`` ordering two math warp groups' mainloop,
  epilogue and store phases: compiles, ``tileorch check`` proves it, ``tileorch-opt`` round-trips it;
* :data:`CHECK_FAILURES`, three edits that compile but break the protocol (an epilogue entered without its
  wait, the loop yielding a stale state, the epilogue barrier counting 256 of 128 threads): ``tileorch check``
  exits non-zero naming the property at the op's line;
* :data:`COMPILE_ERRORS`, three edits ``tileorch compile`` stops at the op's line (a ``group_size(64)`` for warp
  groups of 128 -- found by this sweep: it compiled silently to a kernel whose mbarriers get 128 arrivals a phase
  where 64 are expected, only ``tileorch check`` saw it; a warp-group mask past the CTA; registers past the
  CTA's)."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")

from cutlass_sweep_checks import cutlass_sweep_tests, seq_bar_pingpong  # noqa: E402

SPLIT_K_WAIT_LT = """\
// A user's serial split-K fold: split s waits until the s splits before it have counted themselves in the
// tile's flag (wait_less_than: spin while the flag is below s), adds its fragment to the tile's workspace (block-
// striped load, add and store, 128 threads, 4-wide accesses) and counts itself.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @split_k_reduce_wait_less_than(%lock: !llvm.ptr<1>, %ws: !llvm.ptr<1>) attributes {nvvm.kernel, \
nvvm.maxntid = array<i32: 128, 1, 1>} {
    cutlass.async.exec cta mask(1) threads(128) {
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t = arith.index_cast %tid : index to i32
      %tile_i = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %split_i = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %tile = arith.index_cast %tile_i : index to i32
      %split = arith.index_cast %split_i : index to i32
      %acc = arith.constant dense<5.000000e-01> : vector<8xf32>
      cutlass.generic_barrier.wait_less_than %lock[%tile], %split num_threads = 128 : !llvm.ptr<1>
      %old = cutlass.block_striped.load %ws, %t n_threads_in_block = 128 access_width = 4 : !llvm.ptr<1> -> \
vector<8xf32>
      %sum = arith.addf %old, %acc : vector<8xf32>
      cutlass.block_striped.store %sum, %ws, %t n_threads_in_block = 128 access_width = 4 : vector<8xf32>, !llvm.ptr<1>
      cutlass.generic_barrier.arrive_increment %lock[%tile] num_threads = 128 : !llvm.ptr<1>
    }
    func.return
  }
}
"""

PINGPONG3 = seq_bar_pingpong(
    "// Three-phase ping-pong: an OrderedSequenceBarrier<3, 2> orders the two math warp groups' mainloop, epilogue and\n"
    "// store phases (group 0 first in each), the producer warp group gives its registers back.",
    "pingpong_three_phases", [("mma_tile", "st", ""),
                              ("epilogue_tile", "st_epi", "cutlass.named_barrier.arrive_and_wait barrier_id = 1 "
                                                          "num_threads = 128"),
                              ("store_tile", "st_store", "")], (40, 232), alternate=True)

CHECK_FAILURES = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "the_epilogue_entered_without_its_wait": ("pingpong3",
                                              "        cutlass.seq_bar.wait %order, %st_epi group(%group)\n", "",
                                              "seq-order", "cutlass.seq_bar.arrive %order, %st_epi"),
    "the_loop_yields_a_stale_state": ("pingpong3", "scf.yield %st_next :", "scf.yield %st_store :", "parity-aliasing",
                                      "cutlass.seq_bar.wait %order, %st group"),
    "the_epilogue_barrier_counting_256": ("pingpong3", "barrier_id = 1 num_threads = 128",
                                          "barrier_id = 1 num_threads = 256",
                                          "bar.sync 1 waits for 256 threads but only 128 ever arrive",
                                          "cutlass.named_barrier.arrive_and_wait barrier_id = 1"),
}

COMPILE_ERRORS = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "group_size_64_for_warp_groups_of_128": ("pingpong3", "group_size(128)", "group_size(64)",
                                             "executor of 256 threads is 4 groups of group_size 64, but the sequence "
                                             "barrier orders 2", "cutlass.seq_bar.wait %order, %st group"),
    "a_warp_group_mask_past_the_cta": ("pingpong3", "warpgroup mask(6) regs(232)", "warpgroup mask(12) regs(232)",
                                       "warpgroup mask 0xc names warpgroup 3 (threads up to 511), but the CTA has 384 "
                                       "threads", "cutlass.async.exec warpgroup mask(12)"),
    "registers_past_the_ctas": ("pingpong3", "regs(40)", "regs(56)",
                                "= 520 registers per lane slot, more than the 3 x 168 = 504",
                                "cutlass.async.exec warpgroup mask(1) regs(56)"),
}


INPUTS = {"split_k_wait_less_than": SPLIT_K_WAIT_LT, "pingpong3": PINGPONG3}
PTX_NEEDS = {
    "split_k_wait_less_than": [r"ld\.global\.acquire\.gpu\.b32", r"setp\.lt\.s32", r"bar\.sync\s+0;",
                               r"ld\.global\.v4\.b32\s+\{[^}]*\}, \[%rd\d+\+2048\]",
                               r"st\.global\.v4\.b32\s+\[%rd\d+\+2048\]", r"fence\.acq_rel\.gpu;",
                               r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.[su]32\s",
                               (r"ld\.global\.v4\.b32", 2)],  # 8 floats a thread, 4-wide: two accesses
}
CHECKS = {"split_k_wait_less_than": ("cannot model a fix-up ordered by cutlass.generic_barrier.wait_less_than",
                                     "cutlass.generic_barrier.wait_less_than"),
          "pingpong3": "ok"}

(test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input, test_the_input_round_trips_through_tileorch_opt,
 test_a_broken_protocol_compiles_and_fails_the_check, test_an_invalid_input_stops_at_its_line) = \
    cutlass_sweep_tests(INPUTS, PTX_NEEDS, CHECKS, CHECK_FAILURES, COMPILE_ERRORS,
                        {"pingpong3": ["!cutlass.seq_bar<depth = 3, length = 2>"]})
