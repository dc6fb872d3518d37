"""The thirty-first user sweep's CUTLASS-dialect inputs (hand-written ``cutlass`` IR of forms the earlier sweeps did
not write), through the commands a user runs on them (cutlass_sweep_checks.cutlass_sweep_tests):

* :data:`NAMED_RING`: a pipeline whose stages are ordered by named barriers (``barrier = named_barrier``: no
  mbarriers, plain shared-memory stores), warp 0 producing and warp 1 consuming;
* :data:`KV_RINGS`: an attention kernel's K and V rings as two TMA pipelines in one kernel, the producer probing the
  K ring by ``producer_try_acquire`` and passing its token to ``producer_acquire``, two cooperative consumer warp
  groups reading each state's phase and count;
* :data:`SEQ3`: an ``OrderedSequenceBarrier<2, 3>`` ordering three math warp groups' mainloop and epilogue (512
  threads, each group every third tile):

each compiles to PTX holding its protocol, ``tileorch check`` proves it, ``tileorch-opt`` round-trips it;
:data:`DYNAMIC`: a warp-specialized mainloop whose consumer groups take part as a runtime participants matrix says
(``make_participants custom(%use0, %use1)``, ``init dynamic(...)``): compiles and round-trips; ``tileorch check``
stops with a located "cannot model" at the init (found by this sweep: it proved the protocol with the static
masks' arrival counts, though with both groups out the producer's acquires do not wait);
:data:`CHECK_FAILURES`: edits that compile but break a protocol (``tileorch check`` exits non-zero naming the
property at the op's line); :data:`COMPILE_ERRORS`: edits ``tileorch compile`` stops at the op's line."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")

from cutlass_sweep_checks import cutlass_sweep_tests, seq_bar_pingpong  # noqa: E402

NAMED_RING = """\
// A named-barrier pipeline (PipelineAsync without mbarriers): warp 0 writes each stage's 32 floats into shared
// memory with plain stores and commits (bar.arrive on the stage's full barrier), warp 1 waits (bar.sync), reads
// the stage and releases it (bar.arrive on its empty barrier); two stages, barrier ids from 8.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @named_barrier_ring(%n: i32, %smem: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {nvvm.kernel, \
nvvm.maxntid = array<i32: 64, 1, 1>} {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, barrier = \
named_barrier>
    %ring = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = \
array<i64: 0x1>, consumers = array<i64: 0x2>, barrier_id_base = 8 : i32}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x3) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ring) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %j = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          %lane_i = "gpu.lane_id"() : () -> index
          %lane = arith.index_cast %lane_i : index to i32
          %idx = cutlass.pipeline.state.get_index %s
          %c32 = arith.constant 32 : i32
          %base = arith.muli %idx, %c32 : i32
          %at = arith.addi %base, %lane : i32
          %v = arith.sitofp %j : i32 to f32
          %dst = llvm.getelementptr %smem[%at] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
          llvm.store %v, %dst : f32, !llvm.ptr<3>
          cutlass.pipeline.producer_commit %p, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0x2) args(%q = %ring) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %j = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.consumer_wait %q, %s
          %lane_i = "gpu.lane_id"() : () -> index
          %lane = arith.index_cast %lane_i : index to i32
          %idx = cutlass.pipeline.state.get_index %s
          %c32 = arith.constant 32 : i32
          %base = arith.muli %idx, %c32 : i32
          %at = arith.addi %base, %lane : i32
          %src = llvm.getelementptr %smem[%at] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
          %v = llvm.load %src : !llvm.ptr<3> -> f32
          cutlass.pipeline.consumer_release %q, %s
          %dst = llvm.getelementptr %out[%lane] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
          llvm.store %v, %dst : f32, !llvm.ptr<1>
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
      }
    }
    func.return
  }
}
"""

KV_RINGS = """\
// An attention kernel's K and V rings as two pipelines: warp 0 produces each key tile's K stage (4096 bytes) and V
// stage (4096 bytes) by bulk copies, probing the K ring with producer_try_acquire first; warp groups 1 and 2
// consume K, then V, cooperatively (two consumer groups), reading each state's phase and count.
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>} {
  func.func @kv_two_rings(%n: i32, %ks: !llvm.ptr<3>, %vs: !llvm.ptr<3>, %k: !llvm.ptr<1>, %v: !llvm.ptr<1>, %out: \
!llvm.ptr<1>) attributes {nvvm.kernel} {
    %kp = cutlass.pipeline.create storage(%ks) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %kr = cutlass.pipeline.init %kp {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = \
array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, transaction_size = array<i32: 4096>}
    %vp = cutlass.pipeline.create storage(%vs) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %vr = cutlass.pipeline.init %vp {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = \
array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, transaction_size = array<i32: 4096>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %bytes = arith.constant 4096 : i32
    cutlass.async.exec warp mask(0xff1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %kr, %pv = %vr) {
        %k0 = cutlass.pipeline.state.create %p producer
        %v0 = cutlass.pipeline.state.create %pv producer
        %lk, %lv = scf.for %j = %c0 to %n step %c1 iter_args(%s = %k0, %t = %v0) -> (!cutlass.pipeline_state<2>, \
!cutlass.pipeline_state<2>) : i32 {
          %free = cutlass.pipeline.producer_try_acquire %p, %s
          cutlass.pipeline.producer_acquire %p, %s token(%free)
          %kfull = cutlass.pipeline.get_producer_barrier %p, %s
          %leader = nvvm.elect.sync -> i1
          %goff = arith.muli %j, %bytes : i32
          scf.if %leader {
            %ki = cutlass.pipeline.state.get_index %s
            %kio = arith.muli %ki, %bytes : i32
            %kdata = arith.constant 1024 : i32
            %ko = arith.addi %kio, %kdata : i32
            %kd = llvm.getelementptr %ks[%ko] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %kf = llvm.getelementptr %k[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %kd, %kf, %kfull, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 4096 : i32}
          cutlass.pipeline.producer_acquire %pv, %t
          %vfull = cutlass.pipeline.get_producer_barrier %pv, %t
          scf.if %leader {
            %vi = cutlass.pipeline.state.get_index %t
            %vio = arith.muli %vi, %bytes : i32
            %vdata = arith.constant 1024 : i32
            %vo = arith.addi %vio, %vdata : i32
            %vd = llvm.getelementptr %vs[%vo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %vf = llvm.getelementptr %v[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %vd, %vf, %vfull, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          cutlass.pipeline.producer_commit %pv, %t {transaction_bytes = 4096 : i32}
          %sn = cutlass.pipeline.state.increment %s
          %tn = cutlass.pipeline.state.increment %t
          scf.yield %sn, %tn : !cutlass.pipeline_state<2>, !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %p, %lk
        cutlass.pipeline.producer_tail %pv, %lv
      } case masks(0xff0) args(%q = %kr, %qv = %vr) {
        %k0 = cutlass.pipeline.state.create %q consumer
        %v0 = cutlass.pipeline.state.create %qv consumer
        %lk, %lv = scf.for %j = %c0 to %n step %c1 iter_args(%s = %k0, %t = %v0) -> (!cutlass.pipeline_state<2>, \
!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.consumer_wait %q, %s
          %phase = cutlass.pipeline.state.get_phase %s
          %count = cutlass.pipeline.state.get_count %s
          cutlass.pipeline.consumer_release %q, %s
          cutlass.pipeline.consumer_wait %qv, %t
          cutlass.pipeline.consumer_release %qv, %t
          %tid_i = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
          %tid = arith.index_cast %tid_i : index to i32
          %seen = arith.addi %phase, %count : i32
          %dst = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %seen, %dst : i32, !llvm.ptr<1>
          %sn = cutlass.pipeline.state.increment %s
          %tn = cutlass.pipeline.state.increment %t
          scf.yield %sn, %tn : !cutlass.pipeline_state<2>, !cutlass.pipeline_state<2>
        }
      }
    }
    func.return
  }
}
"""

DYNAMIC = """\
// A warp-specialized mainloop whose consumer groups' participation is decided at run time: a
// participants matrix from two kernel arguments (make_participants custom), the producer's acquire
// waiting only when some consumer group takes part.
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>} {
  func.func @dynamic_consumers(%k_tiles: i32, %smem: !llvm.ptr<3>, %src: !llvm.ptr<1>, %use0: i32, %use1: i32) \
attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
    %dp = cutlass.pipeline.make_participants custom(%use0, %use1) : !cutlass.dynamic_participants<1, 2>
    %ready = cutlass.pipeline.init %pipe dynamic(%dp) {numStages = 4 : i32, executor = #cutlass<executor_type warp>, \
participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, transaction_size = array<i32: 4096>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0xff1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        // Producer warp: acquire an empty stage, issue the TMA loads on its full barrier, commit.
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          %full = cutlass.pipeline.get_producer_barrier %p, %s
          // One elected lane copies the stage's 4096 bytes; they complete on %full.
          %leader = nvvm.elect.sync -> i1
          scf.if %leader {
            %bytes = arith.constant 4096 : i32
            %idx = cutlass.pipeline.state.get_index %s
            %sidx = arith.muli %idx, %bytes : i32
            %data = arith.constant 1024 : i32  // past the pipeline's mbarriers at %smem
            %soff = arith.addi %sidx, %data : i32
            %dst = llvm.getelementptr %smem[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %goff = arith.muli %k, %bytes : i32
            %from = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %dst, %from, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 4096 : i32}
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
        // Do not exit while consumers may still arrive on this CTA's empty barriers.
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xff0) args(%q = %ready) {
        // Consumer warp groups: probe, wait for a full stage, run the MMAs, release the stage.
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          %stage = cutlass.pipeline.state.get_index %s
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
      }
    }
    func.return
  }
}
"""

SEQ3 = seq_bar_pingpong(
    "// Three math warp groups take turns (group 0 first) at the mainloop and at the epilogue of their tiles, each\n"
    "// every third tile: an OrderedSequenceBarrier<2, 3>; the producer warp group gives its registers back.",
    "seq_bar_three_groups", [("mma_tile", "st", ""), ("epilogue_tile", "st_epi", "")], (40, 152), alternate=True,
    groups=3)

INPUTS = {"named_ring": NAMED_RING, "kv_rings": KV_RINGS, "seq3": SEQ3, "dynamic": DYNAMIC}
BULK = r"cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes"
PTX_NEEDS = {
    "named_ring": [(r"bar\.arrive\s+%r\d+, 64;", 2), r"bar\.sync\s+%r\d+, 64;", (r"mbarrier", 0),
                   r"st\.shared\.b32", r"ld\.shared\.b32"],
    "kv_rings": [(BULK, 2), (r"mbarrier\.init\.shared\.b64", 8), (r"mbarrier\.arrive\.expect_tx\.shared\.b64", 2)],
    "dynamic": [BULK, r"mbarrier\.try_wait\.parity\.shared\.b64"],
    "seq3": [r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40;", r"setmaxnreg\.inc\.sync\.aligned\.u32\s+152;",
             r"bar\.sync\s+0, 512;"],
}
CHECKS = {"named_ring": "ok", "kv_rings": "ok", "seq3": "ok",
          "dynamic": ("the checker cannot model a pipeline whose participants are chosen at run time",
                      "%ready = cutlass.pipeline.init %pipe dynamic(%dp)")}

CHECK_FAILURES = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "a_named_ring_consumer_that_never_releases": ("named_ring", "          cutlass.pipeline.consumer_release %q, %s\n",
                                                  "", "named-barrier-count [producer0]: bar.sync 10 (ring stage 0) "
                                                  "waits for 64 threads but only 32 ever arrive",
                                                  "cutlass.pipeline.producer_tail %p, %last"),
    "the_v_ring_never_released": ("kv_rings", "          cutlass.pipeline.consumer_release %qv, %t\n", "",
                                  "deadlock: every unfinished agent is blocked: producer0 at ProducerAcquire(pipe=vr",
                                  "cutlass.pipeline.producer_tail %pv, %lv"),
    "a_k_commit_of_half_the_stage": ("kv_rings", "cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 4096",
                                     "cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 2048",
                                     "over-arrival", "cutlass.pipeline.producer_commit %p, %s"),
    "no_tail_for_the_v_ring": ("kv_rings", "        cutlass.pipeline.producer_tail %pv, %lv\n", "",
                               "exits without waiting for the release of round 0 of vr stage 0 (missing "
                               "producer_tail)", "cutlass.pipeline.producer_tail %p, %lk"),
    "the_epilogue_of_three_without_its_wait": ("seq3", "        cutlass.seq_bar.wait %order, %st_epi group(%group)\n",
                                               "", "seq-order", "%st_next = cutlass.seq_bar.arrive %order, %st_epi"),
}

COMPILE_ERRORS = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "named_barrier_ids_past_15": ("named_ring", "barrier_id_base = 8 : i32", "barrier_id_base = 14 : i32",
                                  "needs 4 named barriers from barrier_id_base 14 (ids 14..17), past the 16 hardware "
                                  "barriers", "%ring = cutlass.pipeline.init"),
    "a_consumer_warp_past_the_cta": ("named_ring", "consumers = array<i64: 0x2>", "consumers = array<i64: 0x4>",
                                     "consumer group 0 mask 0x4 names warp 2 (threads up to 95), but the CTA has 64 "
                                     "threads", "%ring = cutlass.pipeline.init"),
    "the_v_ring_acquired_with_the_k_token": ("kv_rings", "cutlass.pipeline.producer_acquire %pv, %t\n",
                                             "cutlass.pipeline.producer_acquire %pv, %t token(%free)\n",
                                             "the token comes from a cutlass.pipeline.producer_try_acquire on another "
                                             "pipeline",
                                             "cutlass.pipeline.producer_acquire %pv, %t token(%free)"),
    "registers_past_four_warp_groups": ("seq3", "regs(152)", "regs(160)",
                                        "= 520 registers per lane slot, more than the 4 x 128 = 512",
                                        "cutlass.async.exec warpgroup mask(1) regs(40)"),
    "groups_of_64_for_three_warp_groups": ("seq3", "group_size(128)", "group_size(64)",
                                           "group_size 64, but the sequence barrier orders 3",
                                           "cutlass.seq_bar.wait %order, %st group"),
}

(test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input, test_the_input_round_trips_through_tileorch_opt,
 test_a_broken_protocol_compiles_and_fails_the_check, test_an_invalid_input_stops_at_its_line) = \
    cutlass_sweep_tests(INPUTS, PTX_NEEDS, CHECKS, CHECK_FAILURES, COMPILE_ERRORS,
                        {"named_ring": ["barrier = named_barrier"],
                         "seq3": ["!cutlass.seq_bar<depth = 2, length = 3>"]})
