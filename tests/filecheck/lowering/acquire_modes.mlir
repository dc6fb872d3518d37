// RUN: tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s
// Producer acquire, phase B: only a runtime participants matrix (mode 0, cooperative arrival) can
// leave a stage's empty barrier without signal sources, so only there the wait is gated by the
// signal mask; in modes 1-4 the mask is statically non-empty and the wait is unconditional.
// empty[index] is word stages + index, parity = state.phase & 1.

// Mode 1, warp-specialized 1x1: the consumer always signals; no mask, no guard.
builtin.module {
  func.func @ws1x1(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.producer_acquire %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @ws1x1
// CHECK:      %[[IDX:.*]] = llvm.extractvalue %{{.*}}[0]
// CHECK-NEXT: %[[PH:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[SLOT:.*]] = llvm.add %[[IDX]], %[[TWO]]
// CHECK-NEXT: %[[ADDR:.*]] = llvm.getelementptr %smem[%[[SLOT]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[PAR:.*]] = llvm.and %[[PH]], %[[ONE]]
// CHECK-NEXT: %[[HINT:.*]] = llvm.mlir.constant(10000000 : i32)
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[ADDR]], %[[PAR]], %[[HINT]]
// CHECK-NEXT: func.return

// -----

// Mode 2, strided urem: one producer, several consumer groups (all of them signal): no mask loop.
builtin.module {
  func.func @urem(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2, 4>}
    cutlass.pipeline.producer_acquire %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @urem
// CHECK:      nvvm.barrier{{$}}
// CHECK-NOT:  scf.for
// CHECK-NOT:  scf.if
// CHECK:      nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: func.return

// -----

// Mode 3, strided udiv: several producers: no mask loop.
builtin.module {
  func.func @udiv(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 2, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1, 2>, consumers = array<i64: 4>}
    cutlass.pipeline.producer_acquire %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @udiv
// CHECK:      nvvm.barrier{{$}}
// CHECK-NOT:  scf.for
// CHECK-NOT:  scf.if
// CHECK:      nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: func.return

// -----

// Mode 4, cluster: the CTAs sharing this CTA's cluster row or column include itself: no mask.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @cluster(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.producer_acquire %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @cluster
// CHECK:      nvvm.cluster.wait
// CHECK-NOT:  cluster.ctarank
// CHECK-NOT:  scf.if
// CHECK:      nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: func.return

// -----

// Mode 0, cooperative arrival: a runtime participants matrix is walked cell by cell; the wait runs
// iff some cell is non-zero.
builtin.module {
  func.func @coop(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>, %a: i32, %b: i32) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %dp = cutlass.pipeline.make_participants custom(%a, %b) : !cutlass.dynamic_participants<1, 2>
    %r = cutlass.pipeline.init %p dynamic(%dp) {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2, 4>}
    cutlass.pipeline.producer_acquire %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @coop
// CHECK:      %[[C0:.*]] = llvm.extractvalue %{{.*}}[0] : !llvm.array<2 x i32>
// CHECK-NEXT: %[[L0:.*]] = llvm.icmp "ne" %[[C0]], %[[Z:[^ ]*]] : i32
// CHECK-NEXT: %[[B0:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[S0:.*]] = llvm.select %[[L0]], %[[B0]], %[[Z]]
// CHECK-NEXT: %[[M0:.*]] = llvm.or %[[Z]], %[[S0]]
// CHECK-NEXT: %[[C1:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.array<2 x i32>
// CHECK-NEXT: %[[L1:.*]] = llvm.icmp "ne" %[[C1]], %[[Z]]
// CHECK-NEXT: %[[B1:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[S1:.*]] = llvm.select %[[L1]], %[[B1]], %[[Z]]
// CHECK-NEXT: %[[M:.*]] = llvm.or %[[M0]], %[[S1]]
// CHECK-NEXT: %[[GO:.*]] = llvm.icmp "ne" %[[M]], %[[Z]]
// CHECK:      scf.if %[[GO]] {
// CHECK:        nvvm.mbarrier.try_wait.parity
