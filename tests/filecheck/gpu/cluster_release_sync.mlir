// Regression (GPU conformance kernel cluster_1x2_s4_g2x4w, 43 iterations, without group sync):
// on a cluster pipeline consumer_release arrives on each same-row/column CTA's empty barrier from
// ONE thread per consumer warp group, on behalf of all 128.  Nothing ordered the other threads'
// shared-memory reads before that arrive, so a producer could overwrite a stage still being read
// (seen: CTA 1, consumer group 0, iteration 33 read iteration 37's words).  The single-CTA release
// is safe (every consumer thread arrives); the cluster release is too now: it synchronises the
// group (bar.sync on a named barrier of its own over its threads; bar.warp.sync for a one-warp
// group) before the signalling threads arrive.
// RUN: tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts,cutlass-allocate-barrier-ids,convert-pipeline-to-nvvm | filecheck %s

// One group of warps 4..7 (threads [128, 256)): the allocator gives the pipeline the first free
// id, 8 (ids 0-7 reserved), and the group syncs on it over its 128 threads before any arrive
// (the sync's scf.if on the group's thread range follows the signalling-lane test, icmp eq).
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 2, 1>} {
  func.func @release() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0>, transaction_size = array<i32: 1024>}
    cutlass.async.exec warp mask(0xf0) {
      %s = cutlass.pipeline.state.create %ready consumer
      cutlass.pipeline.consumer_release %ready, %s
    }
    func.return
  }
}
// CHECK-LABEL: func.func @release
// CHECK:       nvvm.cluster.wait
// CHECK-NOT:   nvvm.mbarrier.arrive
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  scf.if
// CHECK-NEXT:  %[[ID:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:  %[[N:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:  nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
// CHECK-NOT:   nvvm.barrier
// CHECK:       nvvm.mapa
// CHECK-NEXT:  nvvm.mbarrier.arrive
// CHECK-NOT:   nvvm.mbarrier.arrive
// CHECK:       func.return

// -----

// Two groups (warps 4..7 and 8..11), each synchronising on its own id (8 and 9, consumer order)
// before its own arrive; a one-warp group (warp 12) needs no id: bar.warp.sync over all 32 lanes
// (mask 0xffffffff = -1) precedes its arrive.
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @release_groups() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 3>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00, 0x1000>, transaction_size = array<i32: 1024>}
    cutlass.async.exec warp mask(0x1ff0) {
      %s = cutlass.pipeline.state.create %ready consumer
      cutlass.pipeline.consumer_release %ready, %s
    }
    func.return
  }
}
// CHECK-LABEL: func.func @release_groups
// CHECK:       nvvm.cluster.wait
// CHECK-NOT:   nvvm.mbarrier.arrive
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  scf.if
// CHECK-NEXT:  %[[ID0:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:  %[[N0:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:  nvvm.barrier id = %[[ID0]] number_of_threads = %[[N0]]
// CHECK-NOT:   nvvm.barrier
// CHECK:       nvvm.mapa
// CHECK-NEXT:  nvvm.mbarrier.arrive
// CHECK-NOT:   nvvm.mbarrier.arrive
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  scf.if
// CHECK-NEXT:  %[[ID1:.*]] = llvm.mlir.constant(9 : i32) : i32
// CHECK-NEXT:  %[[N1:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:  nvvm.barrier id = %[[ID1]] number_of_threads = %[[N1]]
// CHECK-NOT:   nvvm.barrier
// CHECK:       nvvm.mapa
// CHECK-NEXT:  nvvm.mbarrier.arrive
// CHECK-NOT:   nvvm.mbarrier.arrive
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  scf.if
// CHECK-NEXT:  %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT:  nvvm.bar.warp.sync %[[ALL]] : i32
// CHECK-NOT:   nvvm.barrier
// CHECK:       nvvm.mapa
// CHECK-NEXT:  nvvm.mbarrier.arrive
// CHECK-NOT:   nvvm.mbarrier.arrive
// CHECK:       func.return
