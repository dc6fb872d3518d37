// RUN: tileorch-opt %s -p lower-to-llvm | filecheck %s
// The whole lowering pipeline (backend/pipeline.py PIPELINE) on a named-barrier pipeline without an
// explicit barrier_id_base: cutlass-allocate-barrier-ids must run before cutlass-stamp-arrive-counts
// (which rejects a named-barrier init with no base). First free id is 8 (0..7 reserved): full[s] =
// 8 + s, empty[s] = 8 + stages + s = 10 + s; bar.sync / bar.arrive count 32 + 32 threads.
builtin.module {
  func.func @named(%s: !cutlass.pipeline_state<2>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 64, 1, 1>} {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, barrier = named_barrier>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.consumer_wait %r, %s
    cutlass.pipeline.consumer_release %r, %s
    func.return
  }
}
// CHECK-LABEL: llvm.func @named
// CHECK:       %[[I:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT:  %[[FB:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:  %[[FID:.*]] = llvm.add %[[FB]], %[[I]] : i32
// CHECK-NEXT:  %[[N:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.count"(%[[FID]], %[[N]])
// CHECK:       %[[EB:.*]] = llvm.mlir.constant(10 : i32) : i32
// CHECK-NEXT:  %[[EID:.*]] = llvm.add %[[EB]], %{{.*}} : i32
// (the count's constant: the block's first 64, cse-constants after convert-pipeline-to-nvvm)
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%[[EID]], %[[N]])
