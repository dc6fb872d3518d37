// RUN: tileorch-opt %s -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s
// State create (consumer {0, 0, 0}) and getters (fields 0 index, 1 phase, 2 count); barrier
// address getters (producer/full barrier = word index, empty = word S + index); producer mask on a
// 2x2 cluster = CTAs d in [0, 4) with d % 2 == rank % 2 or d / 2 == rank / 2, truncated to i16.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @getters(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<3>) -> (i32, i32, i32, !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr<3>, i16) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 3, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 3 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    %c = cutlass.pipeline.state.create %r consumer
    %i = cutlass.pipeline.state.get_index %s
    %ph = cutlass.pipeline.state.get_phase %s
    %n = cutlass.pipeline.state.get_count %c
    %a = cutlass.pipeline.get_producer_barrier %r, %s
    %b = cutlass.pipeline.get_full_barrier %r, %s
    %e = cutlass.pipeline.get_empty_barrier %r, %s
    %m = cutlass.pipeline.get_producer_mask %r
    func.return %i, %ph, %n, %a, %b, %e, %m : i32, i32, i32, !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr<3>, i16
  }
}
// CHECK:      nvvm.cluster.wait aligned
// CHECK-NEXT: %[[I0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[P0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(i32, i32, i32)>
// CHECK-NEXT: %[[A1:.*]] = llvm.insertvalue %[[I0]], %[[U]][0]
// CHECK-NEXT: %[[A2:.*]] = llvm.insertvalue %[[P0]], %[[A1]][1]
// CHECK-NEXT: %[[C:.*]] = llvm.insertvalue %[[C0]], %[[A2]][2]
// CHECK-NEXT: %[[I:.*]] = llvm.extractvalue %s[0] : !llvm.struct<(i32, i32, i32)>
// CHECK-NEXT: %[[PH:.*]] = llvm.extractvalue %s[1] : !llvm.struct<(i32, i32, i32)>
// CHECK-NEXT: %[[N:.*]] = llvm.extractvalue %[[C]][2] : !llvm.struct<(i32, i32, i32)>
// CHECK-NEXT: %[[AI:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[A:.*]] = llvm.getelementptr %smem[%[[AI]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: %[[BI:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[B:.*]] = llvm.getelementptr %smem[%[[BI]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: %[[EI:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[EW:.*]] = llvm.add %[[EI]], %[[S]] : i32
// CHECK-NEXT: %[[E:.*]] = llvm.getelementptr %smem[%[[EW]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %[[D0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[CX:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: llvm.urem %[[D0]], %[[CX]]
// CHECK-NEXT: llvm.urem %[[RANK]], %[[CX]]
// CHECK-NEXT: llvm.icmp "eq"
// CHECK-NEXT: llvm.udiv %[[D0]], %[[CX]]
// CHECK-NEXT: llvm.udiv %[[RANK]], %[[CX]]
// CHECK-NEXT: llvm.icmp "eq"
// CHECK-NEXT: %[[SAME0:.*]] = llvm.or
// CHECK-NEXT: %[[BIT0:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[SEL0:.*]] = llvm.select %[[SAME0]], %[[BIT0]], %[[Z]] : i1, i32
// CHECK-NEXT: llvm.or %[[Z]], %[[SEL0]] : i32
// CHECK:      llvm.mlir.constant(2 : i32) : i32
// CHECK:      llvm.mlir.constant(4 : i32) : i32
// CHECK:      %[[D3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK:      %[[BIT3:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: llvm.select %{{.*}}, %[[BIT3]], %[[Z]] : i1, i32
// CHECK-NEXT: %[[MASK:.*]] = llvm.or
// CHECK-NEXT: %[[M16:.*]] = llvm.trunc %[[MASK]] : i32 to i16
// CHECK-NEXT: func.return %[[I]], %[[PH]], %[[N]], %[[A]], %[[B]], %[[E]], %[[M16]]
