// RUN: tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s
// A stage the producer refills with async-proxy writes (commit with transaction bytes: TMA /
// bulk copies) is released only after fence.proxy.async.shared::cta, so the consumers'
// generic-proxy reads of it are ordered before the next copy into it.  A release marked
// cutlass.reads_retired (WGMMA operand reads, async proxy, retired by wgmma.wait_group) and a
// release of a pipeline without transaction bytes (synchronous generic stores) get no fence.

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @tma(%n: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, transaction_size = array<i32: 1024>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x2) {
      %start = cutlass.pipeline.state.create %ready consumer
      %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
        cutlass.pipeline.consumer_wait %ready, %s
        %v = llvm.load %smem : !llvm.ptr<3> -> i32
        cutlass.pipeline.consumer_release %ready, %s
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<2>
      }
    }
    func.return
  }
}
// CHECK-LABEL: func.func @tma
// CHECK:      nvvm.mbarrier.try_wait.parity
// CHECK:      nvvm.fence.proxy <async.shared>, space = <cta>
// CHECK-NOT:  nvvm.mbarrier.try_wait
// CHECK:      nvvm.mbarrier.arrive

// -----

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @retired(%n: i32) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, transaction_size = array<i32: 1024>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x2) {
      %start = cutlass.pipeline.state.create %ready consumer
      %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
        cutlass.pipeline.consumer_wait %ready, %s
        cutlass.pipeline.consumer_release %ready, %s {cutlass.reads_retired}
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<2>
      }
    }
    func.return
  }
}
// CHECK-LABEL: func.func @retired
// CHECK-NOT:  nvvm.fence.proxy
// CHECK:      nvvm.mbarrier.arrive
// CHECK-NOT:  nvvm.fence.proxy
// CHECK:      func.return

// -----

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @generic(%n: i32) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x2) {
      %start = cutlass.pipeline.state.create %ready consumer
      %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
        cutlass.pipeline.consumer_wait %ready, %s
        cutlass.pipeline.consumer_release %ready, %s
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<2>
      }
    }
    func.return
  }
}
// CHECK-LABEL: func.func @generic
// CHECK-NOT:  nvvm.fence.proxy
// CHECK:      nvvm.mbarrier.arrive
// CHECK-NOT:  nvvm.fence.proxy
// CHECK:      func.return
