// RUN: tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s
// Producer tail. Fast path (one-CTA cluster, static depth): only bulk-async groups can still be
// in flight, so a single cp.async.bulk.wait_group 0 drains them.

builtin.module {
  func.func @fast(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<3>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 3, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 3 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.producer_tail %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @fast
// CHECK:       nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT:   scf.for
// CHECK:       func.return

// -----

// Slow path (cluster > 1: remote consumers may still arrive on this CTA's empty barriers):
// wait on each of the 3 empty barriers in turn, advancing (index, phase) like ++state.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @slow(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<3>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 3, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 3 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.producer_tail %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @slow
// CHECK:       %[[IDX:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT:  %[[PH:.*]] = llvm.extractvalue %s[1]
// CHECK:       %[[N:.*]] = llvm.mlir.constant(3 : i32)
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[I:.*]] = %[[IDX]], %[[P:.*]] = %[[PH]]) -> (i32, i32)
// CHECK:         %[[SLOT:.*]] = llvm.add %[[I]], %{{.*}}
// CHECK-NEXT:    %[[ADDR:.*]] = llvm.getelementptr %smem[%[[SLOT]]]
// CHECK-NEXT:    llvm.mlir.constant(1 : i32)
// CHECK-NEXT:    %[[PAR:.*]] = llvm.and %[[P]]
// CHECK-NEXT:    llvm.mlir.constant(10000000 : i32)
// CHECK-NEXT:    nvvm.mbarrier.try_wait.parity %[[ADDR]], %[[PAR]]
// CHECK:         %[[WRAP:.*]] = llvm.icmp "eq"
// CHECK:         %[[F:.*]] = llvm.zext %[[WRAP]]
// CHECK-NEXT:    %[[NP:.*]] = llvm.xor %[[P]], %[[F]]
// CHECK-NEXT:    scf.yield %{{.*}}, %[[NP]] : i32, i32
// CHECK-NOT:   nvvm.cp.async.bulk.wait_group
