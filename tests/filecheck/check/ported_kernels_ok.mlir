// Hand-written cutlass kernels a CUTLASS user would port (rings with 2, 3 and 5 stages and odd
// consumer counts, two pipelines in one kernel, named barriers between warp groups, setmaxnreg
// budgets, a ping-pong by ordered sequence barriers, Stream-K with fix-up): each verifies, lowers to
// PTX that ptxas sm_90a accepts, and `tileorch check` proves it.
// RUN: tileorch check %s --jobs 1 2>&1 | filecheck %s --check-prefix=CHECKER
// RUN: tileorch compile %s -o %t.ptx 2>&1 | filecheck %s --check-prefix=PTX
// PTX: accepted by ptxas -arch=sm_90a
// CHECKER-NOT: error:

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>} {
  // ring2x1: PipelineAsync ring, 2 stages, producer warp 0, one consumer warp.
  // CHECKER-DAG: {{^}}ring2x1: OK: all properties hold
  func.func @ring2x1(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
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
  // ring3x3: 3 stages, three consumer warps (an odd consumer count), each its own consumer group.
  // CHECKER-DAG: {{^}}ring3x3: OK: all properties hold
  func.func @ring3x3(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
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
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xe) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<3>) : i32 {
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<3>
        }
      }
    }
    func.return
  }
  // ring5x1: 5 stages, one consumer warp (the stage count does not divide the trip counts).
  // CHECKER-DAG: {{^}}ring5x1: OK: all properties hold
  func.func @ring5x1(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 5, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 5 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x3) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<5>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          cutlass.pipeline.producer_commit %p, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<5>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0x2) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<5>) : i32 {
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<5>
        }
      }
    }
    func.return
  }
  // two_rings: two pipelines: a 3-stage load ring (warp 0 -> warp 1) and a 2-stage epilogue ring (warp 1 -> warp 2).
  // CHECKER-DAG: {{^}}two_rings: OK: all properties hold
  func.func @two_rings(%k_tiles: i32, %smem: !llvm.ptr<3>, %smem2: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 96, 1, 1>} {
    %lp = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 3, producers = 1, consumers = 1>
    %load = cutlass.pipeline.init %lp {numStages = 3 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
    %ep = cutlass.pipeline.create storage(%smem2) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %epi = cutlass.pipeline.init %ep {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x2>, consumers = array<i64: 0x4>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x7) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %load, %p2 = %epi) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<3>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          cutlass.pipeline.producer_commit %p, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<3>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0x2) args(%q = %load, %e = %epi) {
        %start = cutlass.pipeline.state.create %q consumer
        %estart = cutlass.pipeline.state.create %e producer
        %last:2 = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start, %es = %estart) -> (!cutlass.pipeline_state<3>, !cutlass.pipeline_state<2>) : i32 {
          %tok = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%tok)
          cutlass.pipeline.consumer_release %q, %s
          cutlass.pipeline.producer_acquire %e, %es
          cutlass.pipeline.producer_commit %e, %es
          %next = cutlass.pipeline.state.increment %s
          %enext = cutlass.pipeline.state.increment %es
          scf.yield %next, %enext : !cutlass.pipeline_state<3>, !cutlass.pipeline_state<2>
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
  // wg_named_regs: warp-group kernel: WG0 produces (setmaxnreg 40), WG1+WG2 consume cooperatively (232) and meet on named barrier 2 (256 threads).
  // CHECKER-DAG: {{^}}wg_named_regs: OK: all properties hold
  func.func @wg_named_regs(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
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
        cutlass.named_barrier.arrive_and_wait barrier_id = 2 num_threads = 256
      }
    }
    func.return
  }
  // pingpong_alt: two math warp groups alternate by an OrderedSequenceBarrier<1, 2>.
  // CHECKER-DAG: {{^}}pingpong_alt: OK: all properties hold
  func.func @mma(%t: i32) {
    func.return
  }
  func.func @pingpong_alt(%num_tiles: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
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
        cutlass.seq_bar.wait %order, %st group(%group)
        func.call @mma(%tile) : (i32) -> ()
        %st_next = cutlass.seq_bar.arrive %order, %st group(%group)
        scf.yield %st_next : !cutlass.seq_bar_state<1>
      }
    }
    func.return
  }
  // sk_fused: Stream-K with the fused cutlass.tile_scheduler.fixup and an epilogue only where compute_epilogue says.
  // CHECKER-DAG: {{^}}sk_fused.fixup: OK: all properties hold
  func.func @store_tile(%v: vector<8xf32>, %m: i32, %n: i32, %l: i32) {
    func.return
  }
  func.func @sk_fused(%params: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m>, %zero: vector<8xf32>)
      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : i32
    cutlass.async.exec warpgroup mask(1) {
      %sk = cutlass.tile_scheduler.create_streamk_params %params
          : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
      %first = cutlass.tile_scheduler.initial_work_tile_info %sk : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
      %last = scf.while (%w = %first) : (!cutlass.streamk_work_tile_info) -> !cutlass.streamk_work_tile_info {
        %n = cutlass.tile_scheduler.get_work_k_tile_count %sk, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %go = arith.cmpi sgt, %n, %c0 : i32
        scf.condition(%go) %w : !cutlass.streamk_work_tile_info
      } do {
      ^bb0(%w: !cutlass.streamk_work_tile_info):
        %n = cutlass.tile_scheduler.get_work_k_tile_count %sk, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %n_i = arith.index_cast %n : i32 to index
        %lo = arith.constant 0 : index
        %one = arith.constant 1 : index
        %acc = scf.for %kt = %lo to %n_i step %one iter_args(%a = %zero) -> (vector<8xf32>) {
          %b = arith.addf %a, %zero : vector<8xf32>
          scf.yield %b : vector<8xf32>
        }
        %sum = cutlass.tile_scheduler.fixup %sk, %w, %acc : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<8xf32>
        %epi = cutlass.tile_scheduler.compute_epilogue %sk, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.if %epi {
          %m, %nn, %k, %l = cutlass.tile_scheduler.work_tile_info_to_cta_coord %sk, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
          func.call @store_tile(%sum, %m, %nn, %l) : (vector<8xf32>, i32, i32, i32) -> ()
        }
        %next, %inc = cutlass.tile_scheduler.fetch_next_work %sk, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.yield %next : !cutlass.streamk_work_tile_info
      }
    }
    func.return
  }
  // named_wg_handoff: warp group 0 signals warp group 1 on named barrier 3 (bar.arrive 256 / bar.sync 256).
  // CHECKER-DAG: {{^}}named_wg_handoff: OK: all properties hold
  func.func @named_wg_handoff() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>} {
    cutlass.async.exec warpgroup mask(0x1) {
      cutlass.named_barrier.arrive barrier_id = 3 num_threads = 256
    }
    cutlass.async.exec warpgroup mask(0x2) {
      cutlass.named_barrier.arrive_and_wait barrier_id = 3 num_threads = 256
    }
    func.return
  }
}
