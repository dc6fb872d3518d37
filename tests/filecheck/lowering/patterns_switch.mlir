// RUN: tileorch-opt %s -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s
// PipelineSwitchByExecutorOpLowering: the enclosing async.exec (warps 0-2) guards threads [0, 96);
// arm 0 (warp 0) runs on tid.x in [0, 32), arm 1 (warps 1-2) on [32, 96); each guard is one
// unsigned compare (tid - first) < count. The arms' block arguments become the switched pipeline.
builtin.module {
  func.func @switch(%smem: !llvm.ptr<3>) attributes {nvvm.reqntid = array<i32: 1024, 1, 1>} {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 6>}
    cutlass.async.exec warp mask(7) {
      cutlass.pipeline.switch_by_executor case masks(1) args(%a = %r) {
        %s = cutlass.pipeline.state.create %a producer
        cutlass.pipeline.producer_acquire %a, %s
      } case masks(6) args(%b = %r) {
        %s = cutlass.pipeline.state.create %b consumer
        cutlass.pipeline.consumer_wait %b, %s
      }
    }
    func.return
  }
}
// CHECK:      nvvm.barrier{{$}}
// CHECK-NEXT: %[[T0:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[Z0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[D0:.*]] = llvm.sub %[[T0]], %[[Z0]] : i32
// CHECK-NEXT: %[[N96:.*]] = llvm.mlir.constant(96 : i32) : i32
// CHECK-NEXT: %[[IN_EXEC:.*]] = llvm.icmp "ult" %[[D0]], %[[N96]] : i32
// CHECK-NEXT: scf.if %[[IN_EXEC]] {
// CHECK-NEXT:   %[[T1:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:   %[[Z1:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   %[[D1:.*]] = llvm.sub %[[T1]], %[[Z1]] : i32
// CHECK-NEXT:   %[[N32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:   %[[ARM0:.*]] = llvm.icmp "ult" %[[D1]], %[[N32]] : i32
// CHECK-NEXT:   scf.if %[[ARM0]] {
// producer arm: start state {0, 1, 0}, waits on empty[index] = word 2 + index of %smem
// CHECK:          %[[P1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:          llvm.insertvalue %[[P1]], %{{.*}}[1]
// CHECK:          llvm.getelementptr %smem[%{{.*}}]
// CHECK:          nvvm.mbarrier.try_wait.parity
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[T2:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:   %[[F32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:   %[[D2:.*]] = llvm.sub %[[T2]], %[[F32]] : i32
// CHECK-NEXT:   %[[N64:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT:   %[[ARM1:.*]] = llvm.icmp "ult" %[[D2]], %[[N64]] : i32
// CHECK-NEXT:   scf.if %[[ARM1]] {
// consumer arm: start state {0, 0, 0}, waits on full[index] = word index of %smem
// CHECK:          %[[IDX:.*]] = llvm.extractvalue %{{.*}}[0]
// CHECK-NEXT:     %[[PH:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK-NEXT:     %[[FULL:.*]] = llvm.getelementptr %smem[%[[IDX]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT:     %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:     %[[PAR:.*]] = llvm.and %[[PH]], %[[ONE]] : i32
// CHECK-NEXT:     %[[HINT:.*]] = llvm.mlir.constant(10000000 : i32) : i32
// CHECK-NEXT:     nvvm.mbarrier.try_wait.parity %[[FULL]], %[[PAR]], %[[HINT]] : !llvm.ptr<3>, i32, i32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT:  cutlass.
