// RUN: tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s
// Producer acquire, phase B dispatch on the five mask-construction modes; every mode ends in the
// empty-barrier wait: empty[index] is word stages + index, parity = state.phase & 1.

// Mode 1, warp-specialized 1x1: unrolled select/or chain over the stages (one-hot of the stage).
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
// CHECK:      llvm.icmp "eq" %[[IDX]], %{{.*}}
// CHECK:      llvm.select
// CHECK:      llvm.or
// CHECK:      llvm.icmp "eq" %[[IDX]], %{{.*}}
// CHECK:      llvm.select
// CHECK:      %[[M:.*]] = llvm.or
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT: %[[GO:.*]] = llvm.icmp "ne" %[[M]], %[[Z]]
// CHECK-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT: %[[SLOT:.*]] = llvm.add %[[IDX]], %[[TWO]]
// CHECK-NEXT: %[[ADDR:.*]] = llvm.getelementptr %smem[%[[SLOT]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: scf.if %[[GO]] {
// CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT:   %[[PAR:.*]] = llvm.and %[[PH]], %[[ONE]]
// CHECK-NEXT:   %[[HINT:.*]] = llvm.mlir.constant(10000000 : i32)
// CHECK-NEXT:   nvvm.mbarrier.try_wait.parity %[[ADDR]], %[[PAR]], %[[HINT]]

// -----

// Mode 2, strided urem: one producer, several consumer groups: scf.for over the cells, urem.
builtin.module {
  func.func @urem(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2, 4>}
    cutlass.pipeline.producer_acquire %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @urem
// CHECK:      scf.for
// CHECK:        llvm.urem
// CHECK-NOT:    llvm.udiv
// CHECK:        llvm.shl
// CHECK:        llvm.or
// CHECK:      nvvm.mbarrier.try_wait.parity

// -----

// Mode 3, strided udiv: several producers.
builtin.module {
  func.func @udiv(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 2, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1, 2>, consumers = array<i64: 4>}
    cutlass.pipeline.producer_acquire %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @udiv
// CHECK:      scf.for
// CHECK:        llvm.udiv
// CHECK:        llvm.shl
// CHECK:      nvvm.mbarrier.try_wait.parity

// -----

// Mode 4, cluster: the mask is the set of CTAs sharing this CTA's cluster row or column.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @cluster(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.producer_acquire %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @cluster
// CHECK:      nvvm.read.ptx.sreg.cluster.ctarank
// CHECK:      llvm.urem
// CHECK:      llvm.udiv
// CHECK:      llvm.select
// CHECK:      nvvm.mbarrier.try_wait.parity

// -----

// Mode 0, cooperative arrival: a runtime participants matrix is walked cell by cell.
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
// CHECK:      llvm.extractvalue %{{.*}}[0] : !llvm.array<2 x i32>
// CHECK-NEXT: llvm.mlir.constant(-1 : i32)
// CHECK-NEXT: llvm.and
// CHECK-NEXT: llvm.icmp "ne"
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: llvm.select
// CHECK-NEXT: llvm.or
// CHECK:      llvm.extractvalue %{{.*}}[1] : !llvm.array<2 x i32>
// CHECK:      nvvm.mbarrier.try_wait.parity
