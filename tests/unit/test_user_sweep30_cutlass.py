"""The thirtieth user sweep's CUTLASS-dialect inputs (hand-written ``cutlass`` IR of an attention kernel's pieces and
a split-K fold), through the commands a user runs on them (cutlass_sweep_checks.cutlass_sweep_tests):

* :data:`PIPE2`: a two-stage TMA pipeline of K tiles (a producer warp, a consumer warp group); :data:`PINGPONG2`:
  an ``OrderedSequenceBarrier<2, 2>`` alternating two softmax warp groups between the ``Q K^T`` and ``P V`` phases;
  :data:`SIGNAL`: a producer warp group signalling two consumer warp groups through named barrier 5, then a
  block-striped max into shared memory; :data:`COOP12`: K / V stages multicast over a 1x2 cluster to two
  cooperative consumer warp groups: each compiles to PTX holding its protocol, ``tileorch check`` proves it,
  ``tileorch-opt`` round-trips it;
* :data:`FIXUP_EQ`: a serial split-K fold ordered by ``generic_barrier.wait_eq`` with ``block_striped.load_add``
  (16 floats, 256 threads) and a 4-wide store: compiles (the acquire spin on ``!=``, 16 plain loads 1024 bytes
  apart, 4 vector stores, the release before the flag's add); ``tileorch check`` stops with a located "cannot
  model" at the wait, nothing claimed;
* :data:`CHECK_FAILURES`: seven edits that compile but break a protocol (a consumer that never releases, a commit
  of half the stage's bytes, no producer tail, the ``P V`` phase entered without its wait, a stale sequence state
  yielded, an arrive counting 256 of 384 threads, consumers that skip their stage): ``tileorch check`` exits
  non-zero naming the property at the op's line;
* :data:`COMPILE_ERRORS`: six edits ``tileorch compile`` stops at the op's line (consumer ops run by threads that
  are not the pipeline's consumers, a sequence-barrier group of 96, registers past the CTA's, a store access width
  of 3, a CTA-wide wait claiming 512 threads, named barrier 16).

Found by this sweep: nothing wrong; noticed: a ``block_striped.reduce`` of ``n_threads_in_block = 128`` run by 256
threads compiles and checks (its stripes overlap; the reduce's read-modify-write is a CAS loop, so the result is
still every fragment's max).  Session 39: an error now (the index ``tid - 128`` takes 0..255, outside the
declared 0..127: threads 256..383 moved the next stripe's elements and, on the last stripe, elements past the
tile; tests/filecheck/cutlass/block_striped/verify.mlir)."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")

from cutlass_sweep_checks import cutlass_sweep_tests, seq_bar_pingpong  # noqa: E402

PIPE2 = """\
// A two-stage TMA pipeline of an attention kernel's K tiles: warp 0 produces (one elected lane copies the
// 8192-byte K tile of step %j into the stage and the leader arrives expecting those bytes), warp group 1
// (warps 4-7) consumes each stage and releases it.
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>} {
  func.func @k_tile_pipeline(%n_tiles: i32, %smem: !llvm.ptr<3>, %k: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, \
participants = array<i64: 0x1>, consumers = array<i64: 0xf0>, transaction_size = array<i32: 8192>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0xf1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %j = %c0 to %n_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          %full = cutlass.pipeline.get_producer_barrier %p, %s
          %leader = nvvm.elect.sync -> i1
          scf.if %leader {
            %bytes = arith.constant 8192 : i32
            %idx = cutlass.pipeline.state.get_index %s
            %sidx = arith.muli %idx, %bytes : i32
            %data = arith.constant 1024 : i32  // past the pipeline's mbarriers at %smem
            %soff = arith.addi %sidx, %data : i32
            %dst = llvm.getelementptr %smem[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %goff = arith.muli %j, %bytes : i32
            %from = llvm.getelementptr %k[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %dst, %from, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 8192 : i32}
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xf0) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %j = %c0 to %n_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          %ok = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ok)
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

PINGPONG2 = seq_bar_pingpong(
    "// Ping-pong attention consumers: an OrderedSequenceBarrier<2, 2> lets the two softmax warp groups take turns\n"
    "// at the S = Q K^T dot and at the O update (group 0 first in each), the producer warp group gives its\n"
    "// registers back.", "pingpong_two_phases", [("qk_tile", "st", ""), ("pv_tile", "st_pv", "")], (24, 240),
    alternate=False)

FIXUP_EQ = """\
// A user's serial split-K fold over four splits on grid axis y: split s waits until the tile's flag equals s
// (wait_eq), folds its 16-float fragment into the workspace by block_striped.load_add (256
// threads; split 0 stores its own), stores the sum 4-wide and counts itself in the flag.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @split_k_fold_wait_eq(%lock: !llvm.ptr<1>, %ws: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = \
array<i32: 256, 1, 1>} {
    cutlass.async.exec cta mask(1) threads(256) {
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t = arith.index_cast %tid : index to i32
      %tile_i = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %split_i = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %tile = arith.index_cast %tile_i : index to i32
      %split = arith.index_cast %split_i : index to i32
      %acc = arith.constant dense<2.500000e-01> : vector<16xf32>
      %c0 = arith.constant 0 : i32
      %first = arith.cmpi eq, %split, %c0 : i32
      cutlass.generic_barrier.wait_eq %lock[%tile], %split num_threads = 256 : !llvm.ptr<1>
      %sum = scf.if %first -> (vector<16xf32>) {
        scf.yield %acc : vector<16xf32>
      } else {
        %folded = cutlass.block_striped.load_add %ws, %t, %acc n_threads_in_block = 256 : !llvm.ptr<1>, \
vector<16xf32> -> vector<16xf32>
        scf.yield %folded : vector<16xf32>
      }
      cutlass.block_striped.store %sum, %ws, %t n_threads_in_block = 256 access_width = 4 : vector<16xf32>, \
!llvm.ptr<1>
      cutlass.generic_barrier.arrive_increment %lock[%tile] num_threads = 256 : !llvm.ptr<1>
    }
    func.return
  }
}
"""

SIGNAL = """\
// Three warp groups: warp group 0 loads, then signals warp groups 1 and 2 through named barrier 5 (arrive of
// 384 threads); the consumers wait on it and reduce their row maxima into shared memory by block-striped max.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @signal_two_consumers(%smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, \
1>} {
    cutlass.async.exec warpgroup mask(1) {
      cutlass.named_barrier.arrive barrier_id = 5 num_threads = 384
    }
    cutlass.async.exec warpgroup mask(6) {
      cutlass.named_barrier.arrive_and_wait barrier_id = 5 num_threads = 384
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t0 = arith.index_cast %tid : index to i32
      %c128 = arith.constant 128 : i32
      %t = arith.subi %t0, %c128 : i32
      %v = arith.constant dense<-1.500000e+00> : vector<8xf32>
      cutlass.block_striped.reduce max %v, %smem, %t n_threads_in_block = 256 : vector<8xf32>, !llvm.ptr<3>
    }
    func.return
  }
}
"""

COOP12 = """\
// An attention kernel's K / V stages on a 1x2 cluster: warp group 0 produces (its elected warp issues the
// bulk copies; setmaxnreg 24), warp groups 1 and 2 consume each stage together (setmaxnreg 240).  Each CTA copies
// its half of every 16384-byte stage and multicasts it to both CTAs of its cluster column, so each stage's full
// barrier expects 2 x 8192 transaction bytes; two stages.
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 2, 1>} {
  func.func @kv_stages_cluster_1x2(%n_tiles: i32, %src: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = \
array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, \
participants = array<i64: 0x1>, consumers = array<i64: 0x6>, producer_arv_count = array<i32: 1>, transaction_size = \
array<i32: 16384>, compute_capability = #cutlass<pipeline_compute_capability sm90>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warpgroup mask(0x1) regs(24) {
      cutlass.async.exec warp mask(0x1) {
        %mcast = cutlass.pipeline.get_producer_mask %ready
        %start = cutlass.pipeline.state.create %ready producer
        %last = scf.for %j = %c0 to %n_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.produce %ready, %s attributes {transaction_bytes = 16384 : i32} {
            %full = cutlass.pipeline.get_full_barrier %ready, %s
            %half = arith.constant 8192 : i32
            %stage = arith.constant 16384 : i32
            %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
            %idx = cutlass.pipeline.state.get_index %s
            %base = arith.muli %idx, %stage : i32
            %part = arith.muli %rank, %half : i32
            %soff = arith.addi %base, %part : i32
            %smem = atom.dynamic_smem : !llvm.ptr<3>
            %dst = llvm.getelementptr %smem[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %jtile = arith.muli %j, %stage : i32
            %goff = arith.addi %jtile, %part : i32
            %from = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %dst, %from, %full, %half multicast %mcast : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %ready, %last
      }
    }
    cutlass.async.exec warpgroup mask(0x6) regs(240) {
      %start = cutlass.pipeline.state.create %ready consumer
      %last = scf.for %j = %c0 to %n_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
        cutlass.pipeline.consume %ready, %s {
          %stage = cutlass.pipeline.state.get_index %s
        }
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<2>
      }
    }
    func.return
  }
}
"""

INPUTS = {"pipe2": PIPE2, "pingpong2": PINGPONG2, "fixup_eq": FIXUP_EQ, "signal": SIGNAL, "coop12": COOP12}
BULK = r"cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes"
PTX_NEEDS = {
    "pipe2": [BULK, r"mbarrier\.arrive\.expect_tx\.shared\.b64", r"mbarrier\.try_wait\.parity\.shared\.b64",
              (r"mbarrier\.init\.shared\.b64", 4)],
    "pingpong2": [r"setmaxnreg\.dec\.sync\.aligned\.u32\s+24;", r"setmaxnreg\.inc\.sync\.aligned\.u32\s+240;",
                  (r"mbarrier\.init\.shared\.b64", 4), r"bar\.sync\s+0, 384;"],
    "fixup_eq": [r"ld\.global\.acquire\.gpu\.b32", r"setp\.ne\.b32", r"fence\.acq_rel\.gpu;",
                 r"atom\.global\.add\.u32", (r"ld\.global\.b32\s", 16), (r"st\.global\.v4\.b32", 4),
                 r"ld\.global\.b32\s+%r\d+, \[%rd\d+\+15360\]"],
    "signal": [r"bar\.arrive\s+5, 384;", r"bar\.sync\s+5, 384;", (r"atom(\.\w+)*\.shared\.cas\.b32", 8)],
    "coop12": [BULK + r"\.multicast::cluster", r"barrier\.cluster\.arrive", r"mbarrier\.arrive\.shared::cluster\.b64"],
}
CHECKS = {"pipe2": "ok", "pingpong2": "ok", "signal": "ok", "coop12": "ok",
          "fixup_eq": ("cannot model a fix-up ordered by cutlass.generic_barrier.wait_eq",
                       "cutlass.generic_barrier.wait_eq")}

CHECK_FAILURES = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "a_consumer_that_never_releases": ("pipe2", "          cutlass.pipeline.consumer_release %q, %s\n", "",
                                       "deadlock: every unfinished agent is blocked",
                                       "cutlass.pipeline.producer_tail %p, %last"),
    "a_commit_of_half_the_stage": ("pipe2", "{transaction_bytes = 8192 : i32}", "{transaction_bytes = 4096 : i32}",
                                   "over-arrival", "cutlass.pipeline.producer_commit %p, %s"),
    "no_producer_tail": ("pipe2", "        cutlass.pipeline.producer_tail %p, %last\n", "",
                         "(missing producer_tail)", "%last = scf.for %j"),
    "the_pv_phase_without_its_wait": ("pingpong2", "        cutlass.seq_bar.wait %order, %st_pv group(%group)\n", "",
                                      "seq-order", "%st_next = cutlass.seq_bar.arrive %order, %st_pv"),
    "a_stale_state_yielded": ("pingpong2", "scf.yield %st_next :", "scf.yield %st_pv :", "parity-aliasing",
                              "cutlass.seq_bar.wait %order, %st group"),
    "an_arrive_counting_256_of_384": ("signal", "cutlass.named_barrier.arrive barrier_id = 5 num_threads = 384",
                                      "cutlass.named_barrier.arrive barrier_id = 5 num_threads = 256",
                                      "named-barrier-count", "cutlass.named_barrier.arrive_and_wait barrier_id = 5"),
    "consumers_that_skip_their_stage": ("coop12", "        cutlass.pipeline.consume %ready, %s {\n          %stage = "
                                        "cutlass.pipeline.state.get_index %s\n        }\n", "", "deadlock",
                                        "cutlass.pipeline.producer_tail %ready, %last"),
}

COMPILE_ERRORS = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "consumers_declared_as_warps_8_to_11": ("pipe2", "consumers = array<i64: 0xf0>", "consumers = array<i64: 0xf00>",
                                            "is a consumer-side op, but arm 1 of the enclosing switch_by_executor",
                                            "cutlass.pipeline.consumer_try_wait %q, %s"),
    "sequence_groups_of_96": ("pingpong2", "group_size(128)", "group_size(96)",
                              "executor of 256 threads is not a whole number of groups: expected a multiple of "
                              "group_size 96", "cutlass.seq_bar.wait %order, %st group"),
    "registers_past_the_ctas": ("pingpong2", "regs(240)", "regs(256)",
                                "= 536 registers per lane slot, more than the 3 x 168 = 504",
                                "cutlass.async.exec warpgroup mask(1) regs(24)"),
    "a_store_access_width_of_3": ("fixup_eq", "n_threads_in_block = 256 access_width = 4 : vector<16xf32>",
                                  "n_threads_in_block = 256 access_width = 3 : vector<16xf32>",
                                  "fragment length 16 must be a positive multiple of access_width, found "
                                  "access_width 3", "cutlass.block_striped.store"),
    "a_cta_wide_wait_of_512_threads": ("fixup_eq", "wait_eq %lock[%tile], %split num_threads = 256",
                                       "wait_eq %lock[%tile], %split num_threads = 512",
                                       "synchronises the whole CTA (bar.sync 0: the enclosing cta executor's 256 "
                                       "threads), but num_threads = 512", "cutlass.generic_barrier.wait_eq"),
    "named_barrier_16": ("signal", "arrive barrier_id = 5 num_threads = 384",
                         "arrive barrier_id = 16 num_threads = 384",
                         "barrier_id must be a hardware named barrier in [0, 15], found 16",
                         "cutlass.named_barrier.arrive barrier_id = 16"),
}

(test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input, test_the_input_round_trips_through_tileorch_opt,
 test_a_broken_protocol_compiles_and_fails_the_check, test_an_invalid_input_stops_at_its_line) = \
    cutlass_sweep_tests(INPUTS, PTX_NEEDS, CHECKS, CHECK_FAILURES, COMPILE_ERRORS,
                        {"pingpong2": ["!cutlass.seq_bar<depth = 2, length = 2>"],
                         "pipe2": ["!cutlass.pipeline<stages = 2, producers = 1, consumers = 1>"]})
