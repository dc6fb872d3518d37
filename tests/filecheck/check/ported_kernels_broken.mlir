// Hand-written cutlass kernels a CUTLASS user would port, each with one protocol bug the verifier
// cannot see: `tileorch check` must reject every one with a `file:line:col: error:` at the offending
// op (the waiting or violating op of the named agent), then print the counterexample.
// Each RUN checks one kernel (--kernel) so every verdict is its own.
// RUN: not tileorch check %s --kernel bad_no_release --jobs 1 2>&1 | filecheck %s --check-prefix=NO-RELEASE
// RUN: not tileorch check %s --kernel bad_wrong_phase --jobs 1 2>&1 | filecheck %s --check-prefix=WRONG-PHASE
// RUN: not tileorch check %s --kernel bad_no_wait --jobs 1 2>&1 | filecheck %s --check-prefix=NO-WAIT
// RUN: not tileorch check %s --kernel bad_no_tail --jobs 1 2>&1 | filecheck %s --check-prefix=NO-TAIL
// RUN: not tileorch check %s --kernel bad_named_count --jobs 1 2>&1 | filecheck %s --check-prefix=NAMED-COUNT
// RUN: not tileorch check %s --kernel bad_pingpong_no_wait --jobs 1 2>&1 | filecheck %s --check-prefix=PINGPONG-NO-WAIT
// RUN: not tileorch check %s --kernel bad_pingpong_no_arrive --jobs 1 2>&1 | filecheck %s --check-prefix=PINGPONG-NO-ARRIVE
// RUN: not tileorch check %s --kernel bad_sk_final_no_wait --jobs 1 2>&1 | filecheck %s --check-prefix=SK-FINAL-NO-WAIT
// RUN: not tileorch check %s --kernel bad_sk_no_increment --jobs 1 2>&1 | filecheck %s --check-prefix=SK-NO-INCREMENT
// RUN: not tileorch check %s --kernel bad_named_mismatch --jobs 1 2>&1 | filecheck %s --check-prefix=NAMED-MISMATCH
// RUN: not tileorch check %s --kernel bad_crossed_same_stages --jobs 1 2>&1 | filecheck %s --check-prefix=CROSSED

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>} {
  // bad_no_release: 3-stage ring, 3 consumer warps that never release a stage: the producer's tail (and its 4th acquire) waits forever.
  func.func @bad_no_release(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 3, producers = 1, consumers = 3>
    %ready = cutlass.pipeline.init %pipe {numStages = 3 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2, 0x4, 0x8>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0xf) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<3>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          cutlass.pipeline.producer_commit %p, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<3>
        }
        // NO-RELEASE-NOT: {{^}}bad_no_release: OK
        // NO-RELEASE: ported_kernels_broken.mlir:[[# @LINE + 1]]:9: error: bad_no_release: deadlock: every unfinished agent is blocked: producer0 at ProducerAcquire(pipe=ready, state=s0, tail=True)
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xe) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<3>) : i32 {
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<3>
        }
      }
    }
    func.return
  }
  // bad_wrong_phase: the consumer starts a round ahead (its state advanced by the 2 stages: the producer's start phase): its first
  // wait passes before anything landed.  (Created as a producer's state instead, the verifier refuses it: start_phase_invalid.mlir.)
  func.func @bad_wrong_phase(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x3) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          cutlass.pipeline.producer_commit %p, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0x2) args(%q = %ready) {
        %fresh = cutlass.pipeline.state.create %q consumer
        %round = arith.constant 2 : i32
        %start = cutlass.pipeline.state.increment %fresh by %round
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          // WRONG-PHASE-NOT: {{^}}bad_wrong_phase: OK
          // WRONG-PHASE: ported_kernels_broken.mlir:[[# @LINE + 1]]:11: error: bad_wrong_phase: parity-aliasing [consumer1]: try-wait with parity 1 on ready.full[0] passed although phase 0 has not completed
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
      }
    }
    func.return
  }
  // bad_no_wait: 3 consumer warps release stages they never waited for: the empty barrier completes a phase early, so the producer's parity wait lags by two phases.
  func.func @bad_no_wait(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 3>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2, 0x4, 0x8>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0xf) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          // NO-WAIT-NOT: {{^}}bad_no_wait: OK
          // NO-WAIT: ported_kernels_broken.mlir:[[# @LINE + 1]]:11: error: bad_no_wait: parity-aliasing [producer0]: waits on ready.empty[0] with parity 1
          cutlass.pipeline.producer_acquire %p, %s
          cutlass.pipeline.producer_commit %p, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xe) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
      }
    }
    func.return
  }
  // bad_no_tail: the producer exits without producer_tail while consumers may still arrive on its empty barriers.
  func.func @bad_no_tail(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x3) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        // NO-TAIL-NOT: {{^}}bad_no_tail: OK
        // NO-TAIL: ported_kernels_broken.mlir:[[# @LINE + 1]]:9: error: bad_no_tail: drain [producer0]: exits without waiting for the release of round 0 of ready stage 0 (missing producer_tail)
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          cutlass.pipeline.producer_commit %p, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
      } case masks(0x2) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
      }
    }
    func.return
  }
  // bad_named_count: the two consumer warp groups (256 threads) meet on named barrier 2 declared for 384 threads.
  func.func @bad_named_count(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 3, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 3 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 0x1>, consumers = array<i64: 0x2, 0x4>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warpgroup mask(0x1) regs(40) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<3>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          cutlass.pipeline.producer_commit %p, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<3>
        }
        cutlass.pipeline.producer_tail %p, %last
      }
    }
    cutlass.async.exec warpgroup mask(0x6) regs(232) {
      cutlass.pipeline.switch_by_executor case masks(0x6) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<3>) : i32 {
          %tok = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%tok)
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<3>
        }
        // NAMED-COUNT-NOT: {{^}}bad_named_count: OK
        // NAMED-COUNT: ported_kernels_broken.mlir:[[# @LINE + 1]]:9: error: bad_named_count: named-barrier-count [consumer1.g0]: bar.sync 2 waits for 384 threads but only 256 ever arrive
        cutlass.named_barrier.arrive_and_wait barrier_id = 2 num_threads = 384
      }
    }
    func.return
  }
  // bad_pingpong_no_wait: a ping-pong math group arrives on the order barrier without waiting for its turn.
  func.func private @mma(i32)
  func.func @bad_pingpong_no_wait(%num_tiles: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
    %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 1, length = 2>
    %order = cutlass.seq_bar.init %sb group_size(128)
    cutlass.async.exec cta mask(1) threads(384) {
      cutlass.named_barrier.arrive_and_wait barrier_id = 0
    }
    cutlass.async.exec warpgroup mask(6) {
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c128 = arith.constant 128 : index
      %c1 = arith.constant 1 : index
      %wg = arith.divui %tid, %c128 : index
      %gi = arith.subi %wg, %c1 : index
      %group = arith.index_cast %gi : index to i32
      %st0 = cutlass.seq_bar.state.create %order group(%group)
      %c2 = arith.constant 2 : i32
      %last = scf.for %tile = %group to %num_tiles step %c2 iter_args(%st = %st0) -> (!cutlass.seq_bar_state<1>) : i32 {
        func.call @mma(%tile) : (i32) -> ()
        // PINGPONG-NO-WAIT-NOT: {{^}}bad_pingpong_no_wait: OK
        // PINGPONG-NO-WAIT: ported_kernels_broken.mlir:[[# @LINE + 1]]:9: error: bad_pingpong_no_wait: seq-order [math1.u1]: group 0 arrives to leave order stage 0 without having entered it
        %st_next = cutlass.seq_bar.arrive %order, %st group(%group)
        scf.yield %st_next : !cutlass.seq_bar_state<1>
      }
    }
    func.return
  }
  // bad_pingpong_no_arrive: a ping-pong math group waits for its turn but never hands it on.
  func.func @bad_pingpong_no_arrive(%num_tiles: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
    %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 1, length = 2>
    %order = cutlass.seq_bar.init %sb group_size(128)
    cutlass.async.exec cta mask(1) threads(384) {
      cutlass.named_barrier.arrive_and_wait barrier_id = 0
    }
    cutlass.async.exec warpgroup mask(6) {
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c128 = arith.constant 128 : index
      %c1 = arith.constant 1 : index
      %wg = arith.divui %tid, %c128 : index
      %gi = arith.subi %wg, %c1 : index
      %group = arith.index_cast %gi : index to i32
      %st0 = cutlass.seq_bar.state.create %order group(%group)
      %c2 = arith.constant 2 : i32
      %last = scf.for %tile = %group to %num_tiles step %c2 iter_args(%st = %st0) -> (!cutlass.seq_bar_state<1>) : i32 {
        // PINGPONG-NO-ARRIVE-NOT: {{^}}bad_pingpong_no_arrive: OK
        // PINGPONG-NO-ARRIVE: ported_kernels_broken.mlir:[[# @LINE + 1]]:9: error: bad_pingpong_no_arrive: deadlock: every unfinished agent is blocked: math1.u2 at SeqWait(bar=order, state=s0, group=1)
        cutlass.seq_bar.wait %order, %st group(%group)
        func.call @mma(%tile) : (i32) -> ()
        scf.yield %st : !cutlass.seq_bar_state<1>
      }
    }
    func.return
  }
  // bad_sk_final_no_wait: Stream-K: the final split folds the workspace partial without fixup_wait.
  func.func private @epilogue(vector<8xf32>, i32, i32, i32)
  func.func @bad_sk_final_no_wait(%params: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>,
                    %ws: !llvm.ptr<1>, %zero: vector<8xf32>, %tiles_m: i32, %tiles_n: i32)
      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %slice = arith.constant 1024 : i32
    cutlass.async.exec warpgroup mask(1) {
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t = arith.index_cast %tid : index to i32
      %sched = cutlass.tile_scheduler.create_streamk_params %params
          : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched
          : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
      %last = scf.while (%w = %first) : (!cutlass.streamk_work_tile_info) -> !cutlass.streamk_work_tile_info {
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %valid = arith.cmpi sgt, %count, %c0 : i32
        scf.condition(%valid) %w : !cutlass.streamk_work_tile_info
      } do {
      ^bb0(%w: !cutlass.streamk_work_tile_info):
        %k_start = cutlass.tile_scheduler.get_work_k_tile_start %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %n_k = arith.index_cast %count : i32 to index
        %lo = arith.constant 0 : index
        %one = arith.constant 1 : index
        %acc = scf.for %kt = %lo to %n_k step %one iter_args(%a = %zero) -> (vector<8xf32>) {
          %mma = arith.addf %a, %a : vector<8xf32>
          scf.yield %mma : vector<8xf32>
        }
        %final = cutlass.tile_scheduler.compute_epilogue %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %first_split = arith.cmpi eq, %k_start, %c0 : i32
        %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_cta_coord %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %lm = arith.muli %l, %tiles_m : i32
        %row = arith.addi %lm, %m : i32
        %rown = arith.muli %row, %tiles_n : i32
        %tile = arith.addi %rown, %n : i32
        %off = arith.muli %tile, %slice : i32
        %part = llvm.getelementptr %ws[%off] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        scf.if %final {
          %sum = scf.if %first_split -> (vector<8xf32>) {
            scf.yield %acc : vector<8xf32>
          } else {
            // SK-FINAL-NO-WAIT-NOT: {{^}}bad_sk_final_no_wait.fixup: OK
            // SK-FINAL-NO-WAIT: ported_kernels_broken.mlir:[[# @LINE + 1]]:13: error: bad_sk_final_no_wait.fixup: fixup-order [split2]: reads partial 'ws' before any split stored it
            %folded = cutlass.block_striped.load_add %part, %t, %acc n_threads_in_block = 128 : !llvm.ptr<1>, vector<8xf32> -> vector<8xf32>
            scf.yield %folded : vector<8xf32>
          }
          func.call @epilogue(%sum, %m, %n, %l) : (vector<8xf32>, i32, i32, i32) -> ()
        } else {
          scf.if %first_split {
            cutlass.block_striped.store %acc, %part, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<1>
          } else {
            cutlass.tile_scheduler.fixup_wait %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
            cutlass.block_striped.reduce add %acc, %part, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<1>
          }
          cutlass.tile_scheduler.fixup_increment %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        }
        %next, %increment_pipe = cutlass.tile_scheduler.fetch_next_work %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.yield %next : !cutlass.streamk_work_tile_info
      }
    }
    func.return
  }
  // bad_sk_no_increment: Stream-K: a non-final split stores its partial but never signals (no fixup_increment).
  func.func @bad_sk_no_increment(%params: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>,
                    %ws: !llvm.ptr<1>, %zero: vector<8xf32>, %tiles_m: i32, %tiles_n: i32)
      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %slice = arith.constant 1024 : i32
    cutlass.async.exec warpgroup mask(1) {
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t = arith.index_cast %tid : index to i32
      %sched = cutlass.tile_scheduler.create_streamk_params %params
          : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched
          : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
      %last = scf.while (%w = %first) : (!cutlass.streamk_work_tile_info) -> !cutlass.streamk_work_tile_info {
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %valid = arith.cmpi sgt, %count, %c0 : i32
        scf.condition(%valid) %w : !cutlass.streamk_work_tile_info
      } do {
      ^bb0(%w: !cutlass.streamk_work_tile_info):
        %k_start = cutlass.tile_scheduler.get_work_k_tile_start %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %n_k = arith.index_cast %count : i32 to index
        %lo = arith.constant 0 : index
        %one = arith.constant 1 : index
        %acc = scf.for %kt = %lo to %n_k step %one iter_args(%a = %zero) -> (vector<8xf32>) {
          %mma = arith.addf %a, %a : vector<8xf32>
          scf.yield %mma : vector<8xf32>
        }
        %final = cutlass.tile_scheduler.compute_epilogue %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %first_split = arith.cmpi eq, %k_start, %c0 : i32
        %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_cta_coord %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %lm = arith.muli %l, %tiles_m : i32
        %row = arith.addi %lm, %m : i32
        %rown = arith.muli %row, %tiles_n : i32
        %tile = arith.addi %rown, %n : i32
        %off = arith.muli %tile, %slice : i32
        %part = llvm.getelementptr %ws[%off] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        scf.if %final {
          %sum = scf.if %first_split -> (vector<8xf32>) {
            scf.yield %acc : vector<8xf32>
          } else {
            cutlass.tile_scheduler.fixup_wait %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
            %folded = cutlass.block_striped.load_add %part, %t, %acc n_threads_in_block = 128 : !llvm.ptr<1>, vector<8xf32> -> vector<8xf32>
            scf.yield %folded : vector<8xf32>
          }
          func.call @epilogue(%sum, %m, %n, %l) : (vector<8xf32>, i32, i32, i32) -> ()
        } else {
          scf.if %first_split {
            cutlass.block_striped.store %acc, %part, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<1>
          } else {
            // SK-NO-INCREMENT-NOT: {{^}}bad_sk_no_increment.fixup: OK
            // SK-NO-INCREMENT: ported_kernels_broken.mlir:[[# @LINE + 1]]:13: error: bad_sk_no_increment.fixup: deadlock: every unfinished agent is blocked: split1 at CounterWait(counter=lock, value=1, cmp=eq, acquire=True); split2 at CounterWait
            cutlass.tile_scheduler.fixup_wait %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
            cutlass.block_striped.reduce add %acc, %part, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<1>
          }
        }
        %next, %increment_pipe = cutlass.tile_scheduler.fetch_next_work %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.yield %next : !cutlass.streamk_work_tile_info
      }
    }
    func.return
  }
  // bad_named_mismatch: the two sides of named barrier 3 disagree on its thread count (256 vs 384).
  func.func @bad_named_mismatch() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>} {
    cutlass.async.exec warpgroup mask(0x1) {
      cutlass.named_barrier.arrive barrier_id = 3 num_threads = 256
    }
    cutlass.async.exec warpgroup mask(0x2) {
      // NAMED-MISMATCH-NOT: {{^}}bad_named_mismatch: OK
      // NAMED-MISMATCH: ported_kernels_broken.mlir:[[# @LINE + 1]]:7: error: bad_named_mismatch: named-barrier-count [agent1]: bar 3: bar with count 384 joins a generation started with count 256
      cutlass.named_barrier.arrive_and_wait barrier_id = 3 num_threads = 384
    }
    func.return
  }
  // bad_crossed_same_stages: two 2-stage rings; the middle warp drives the epilogue ring with the load
  // ring's state (same type, so only the checker sees it).
  func.func @bad_crossed_same_stages(%k_tiles: i32, %smem: !llvm.ptr<3>, %smem2: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 96, 1, 1>} {
    %lp = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %load = cutlass.pipeline.init %lp {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
    %ep = cutlass.pipeline.create storage(%smem2) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %epi = cutlass.pipeline.init %ep {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x2>, consumers = array<i64: 0x4>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x7) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %load, %p2 = %epi) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          cutlass.pipeline.producer_commit %p, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0x2) args(%q = %load, %e = %epi) {
        %start = cutlass.pipeline.state.create %q consumer
        %estart = cutlass.pipeline.state.create %e producer
        %last:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start, %es = %estart) -> (!cutlass.pipeline_state<2>, !cutlass.pipeline_state<2>) : i32 {
          %tok = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%tok)
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          // (the advanced state: the load state itself is a consumer start state, which the verifier refuses at an
          // acquire, start_phase_invalid.mlir)
          // CROSSED-NOT: {{^}}bad_crossed_same_stages: OK
          // CROSSED: ported_kernels_broken.mlir:[[# @LINE + 1]]:11: error: bad_crossed_same_stages: deadlock: every unfinished agent is blocked: producer1 at ProducerAcquire(pipe=epi, state=s0)
          cutlass.pipeline.producer_acquire %e, %next
          cutlass.pipeline.producer_commit %e, %next
          %enext = cutlass.pipeline.state.increment %es
          scf.yield %next, %enext : !cutlass.pipeline_state<2>, !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %e, %last#1
      } case masks(0x4) args(%r2 = %load, %r = %epi) {
        %start = cutlass.pipeline.state.create %r consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          %tok = cutlass.pipeline.consumer_try_wait %r, %s
          cutlass.pipeline.consumer_wait %r, %s token(%tok)
          cutlass.pipeline.consumer_release %r, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
      }
    }
    func.return
  }
}
