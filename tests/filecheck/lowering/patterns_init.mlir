// RUN: tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s
// PipelineInitOpLowering / BarrierInitOpLowering (cutlass-semantics.md §2.3, §2.7, §3, §3.1).
// Pipeline storage = full[0..S) then empty[0..S) (i64 words): full[s] = word s, empty[s] = word S + s.

// One producer warp (leader arrives once: full count 1), one consumer warp on a 1-CTA cluster
// (every consumer thread arrives: empty count 32). Thread 0 initialises, all threads fence + bar.sync 0.
// No 1-D nvvm.reqntid: "thread 0" is the CTA-linear id tid.x + ntid.x * (tid.y + ntid.y * tid.z)
// (PTX %tid / %ntid), so threads (0, y, z) of a 2-D/3-D block do not initialise too.
builtin.module {
  func.func @init(%smem: !llvm.ptr<3>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    func.return
  }
}
// CHECK-LABEL: func.func @init
// CHECK-NEXT:  %[[TX:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:  %[[TY:.*]] = nvvm.read.ptx.sreg.tid.y : i32
// CHECK-NEXT:  %[[NY:.*]] = nvvm.read.ptx.sreg.ntid.y : i32
// CHECK-NEXT:  %[[TZ:.*]] = nvvm.read.ptx.sreg.tid.z : i32
// CHECK-NEXT:  %[[ZY:.*]] = llvm.mul %[[NY]], %[[TZ]] : i32
// CHECK-NEXT:  %[[YZ:.*]] = llvm.add %[[TY]], %[[ZY]] : i32
// CHECK-NEXT:  %[[NX:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
// CHECK-NEXT:  %[[XYZ:.*]] = llvm.mul %[[NX]], %[[YZ]] : i32
// CHECK-NEXT:  %[[TID:.*]] = llvm.add %[[TX]], %[[XYZ]] : i32
// CHECK-NEXT:  %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:  %[[LEAD:.*]] = llvm.icmp "eq" %[[TID]], %[[Z]] : i32
// CHECK-NEXT:  scf.if %[[LEAD]] {
// CHECK-NEXT:    %[[S0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[F0:.*]] = llvm.getelementptr %smem[%[[S0]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT:    %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    nvvm.mbarrier.init %[[F0]], %[[C1]] : !llvm.ptr<3>, i32
// CHECK-NEXT:    %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[W2:.*]] = llvm.add %[[S0]], %[[TWO]] : i32
// CHECK-NEXT:    %[[E0:.*]] = llvm.getelementptr %smem[%[[W2]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT:    %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:    nvvm.mbarrier.init %[[E0]], %[[C32]] : !llvm.ptr<3>, i32
// CHECK-NEXT:    %[[S1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[F1:.*]] = llvm.getelementptr %smem[%[[S1]]]
// CHECK-NEXT:    llvm.mlir.constant(1 : i32)
// CHECK-NEXT:    nvvm.mbarrier.init %[[F1]]
// CHECK-NEXT:    %[[TWOB:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[W3:.*]] = llvm.add %[[S1]], %[[TWOB]] : i32
// CHECK-NEXT:    %[[E1:.*]] = llvm.getelementptr %smem[%[[W3]]]
// CHECK-NEXT:    %[[C32B:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:    nvvm.mbarrier.init %[[E1]], %[[C32B]]
// CHECK-NEXT:  }
// CHECK-NEXT:  nvvm.fence.mbarrier.init
// CHECK-NEXT:  nvvm.barrier{{$}}
// CHECK-NEXT:  func.return

// -----

// 2x2 cluster, one consumer warp group: empty count = (cx + cy - 1) * 1 WG = 3; two producers
// with producer_arv_count 2 and 1: full count 3. Visibility needs the cluster barrier
// (arrive.relaxed + wait), not bar.sync. Storage without a binding is a shared global of 2*S words.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @cluster_init() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 2, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 1 : i32, participants = array<i64: 1, 2>, consumers = array<i64: 60>, producer_arv_count = array<i32: 2, 1>}
    func.return
  }
}
// CHECK:       llvm.mlir.global internal @__tileorch_pipeline_0() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>
// CHECK-LABEL: func.func @cluster_init
// CHECK:         %[[BASE:.*]] = llvm.mlir.addressof @__tileorch_pipeline_0 : !llvm.ptr<3>
// CHECK:         scf.if
// CHECK:           %[[F:.*]] = llvm.getelementptr %[[BASE]]
// CHECK-NEXT:      %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:      nvvm.mbarrier.init %[[F]], %[[C3]]
// CHECK:           %[[E:.*]] = llvm.getelementptr %[[BASE]]
// CHECK-NEXT:      %[[C3B:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:      nvvm.mbarrier.init %[[E]], %[[C3B]]
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.fence.mbarrier.init
// CHECK-NEXT:    nvvm.cluster.arrive.relaxed aligned
// CHECK-NEXT:    nvvm.cluster.wait aligned
// CHECK-NOT:     nvvm.barrier{{$}}

// -----

// elide = empty: only the full barriers exist (an arrive count of 0 is never initialised).
builtin.module {
  func.func @elided(%smem: !llvm.ptr<3>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = empty>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    func.return
  }
}
// CHECK-LABEL: func.func @elided
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK-NOT:     nvvm.mbarrier.init
// CHECK:         nvvm.fence.mbarrier.init

// -----

// Named-barrier pipeline: nothing to initialise, no fence, no sync.
builtin.module {
  func.func @named(%smem: !llvm.ptr<3>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, barrier = named_barrier>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, barrier_id_base = 8 : i32}
    func.return
  }
}
// CHECK-LABEL: func.func @named
// CHECK-NOT:     nvvm.mbarrier.init
// CHECK-NOT:     nvvm.fence.mbarrier.init
// CHECK-NOT:     nvvm.barrier{{$}}
// CHECK:         func.return

// -----

// seq_bar.init (OrderedSequenceBarrier<2, 2>, group_size 128, initializing_warp 1): thread 32
// initialises all depth x length = 4 barriers with 128 arrivals each, then fence + bar.sync 0.
// A 1-D nvvm.reqntid makes tid.x the linear thread id.
builtin.module {
  func.func @seq_init(%smem: !llvm.ptr<3>) attributes {nvvm.reqntid = array<i32: 256, 1, 1>} {
    %sb = cutlass.seq_bar.create storage(%smem : !llvm.ptr<3>) : !cutlass.seq_bar<depth = 2, length = 2>
    %r = cutlass.seq_bar.init %sb group_size(128) initializing_warp(1)
    func.return
  }
}
// CHECK-LABEL: func.func @seq_init
// CHECK-NEXT:  %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:  %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:  %[[LEAD:.*]] = llvm.icmp "eq" %[[TID]], %[[C32]] : i32
// CHECK-NEXT:  scf.if %[[LEAD]] {
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    %[[W0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[A0:.*]] = llvm.getelementptr %smem[%[[W0]]]
// CHECK-NEXT:    nvvm.mbarrier.init %[[A0]], %[[N]]
// CHECK-NEXT:    %[[W1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[A1:.*]] = llvm.getelementptr %smem[%[[W1]]]
// CHECK-NEXT:    nvvm.mbarrier.init %[[A1]], %[[N]]
// CHECK-NEXT:    %[[W2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[A2:.*]] = llvm.getelementptr %smem[%[[W2]]]
// CHECK-NEXT:    nvvm.mbarrier.init %[[A2]], %[[N]]
// CHECK-NEXT:    %[[W3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[A3:.*]] = llvm.getelementptr %smem[%[[W3]]]
// CHECK-NEXT:    nvvm.mbarrier.init %[[A3]], %[[N]]
// CHECK-NEXT:  }
// CHECK-NEXT:  nvvm.fence.mbarrier.init
// CHECK-NEXT:  nvvm.barrier{{$}}
