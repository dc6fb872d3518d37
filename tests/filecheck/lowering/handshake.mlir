// RUN: tileorch-opt %S/../../../examples/ws_pipeline.mlir -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s
// The warp-specialized example (1 producer warp, 2 consumer warp groups, 4 stages, 4096 TMA
// bytes): full count 1 (one elected leader), empty count 256 (every consumer thread of a
// one-CTA cluster arrives, cutlass-semantics.md §3.1); full[s] = word s, empty[s] = word 4 + s.

// pipeline.init: thread 0 initialises both barriers of every stage, then fence + bar.sync 0
// CHECK:      %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:      llvm.icmp "eq" %[[TID]]
// CHECK:      scf.if
// CHECK-COUNT-4: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK:      nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier{{$}}
// the 4 stages: counts 1 (full) and 256 (empty)
// executor switch: warp 0 = threads [0, 32), warps 4..11 = threads [128, 384)
// CHECK:      llvm.mlir.constant(32 : i32)
// CHECK:      llvm.mlir.constant(128 : i32)
// CHECK:      llvm.mlir.constant(256 : i32)
// producer: wait empty[index] (word 4 + index) with the producer's phase
// CHECK:      llvm.mlir.constant(4 : i32)
// CHECK-NEXT: %[[ESLOT:.*]] = llvm.add
// CHECK-NEXT: %[[EADDR:.*]] = llvm.getelementptr %smem[%[[ESLOT]]]
// CHECK:      nvvm.mbarrier.try_wait.parity %[[EADDR]]
// commit: the producer leader (thread 0) arrives with expect_tx 4096 on full[index]
// CHECK:      atom.bulk_copy_g2s
// CHECK:      %[[FADDR:.*]] = llvm.getelementptr %smem[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK:      %[[BYTES:.*]] = llvm.mlir.constant(4096 : i32)
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[FADDR]], %[[BYTES]]
// CHECK:      nvvm.mbarrier.arrive %[[FADDR]]
// tail, fast path
// CHECK:      nvvm.cp.async.bulk.wait_group 0
// consumer: try_wait probe, then wait on full[index] unless the token says done
// CHECK:      nvvm.mbarrier.try_wait %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32 -> i1
// CHECK:      nvvm.mbarrier.try_wait.parity
// release: threads [128, 256) and [256, 384) arrive on empty[index]
// CHECK:      llvm.mlir.constant(128 : i32)
// CHECK:      llvm.mlir.constant(256 : i32)
// CHECK:      nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK-NOT:  cutlass.
