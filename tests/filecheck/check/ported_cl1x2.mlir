// A ported ring on a 1x2 cluster: multicast along the column.
// It verifies, lowers (ptxas sm_90a) and `tileorch check` proves it over both CTAs' agents.
// RUN: tileorch check %s --jobs 1 2>&1 | filecheck %s --check-prefix=CHECKER
// RUN: tileorch compile %s -o %t.ptx 2>&1 | filecheck %s --check-prefix=PTX
// PTX: accepted by ptxas -arch=sm_90a
// CHECKER-NOT: error:
// CHECKER: {{^}}cl1x2: OK: all properties hold{{.*}}; 4 agents)
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 2, 1>} {
  func.func @cl1x2(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x3) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          %mc = cutlass.pipeline.get_producer_mask %p col
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
}
