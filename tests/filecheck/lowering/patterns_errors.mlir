// RUN: not tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm 2>&1 | filecheck %s
// Arrive counts the lowering cannot produce are located errors, not silent hangs: every selected
// thread arrives once per phase, so a group needs at least as many threads (a verifier rule at the init).

builtin.module {
  func.func @too_many(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type thread>, participants = array<i64: 3>, consumers = array<i64: 4>, producer_arv_count = array<i32: 4>}
    cutlass.pipeline.producer_commit %r, %s
    func.return
  }
}
// CHECK: patterns_errors.mlir:8:5: error: cutlass.pipeline.init: producer_arv_count[0] = 4 but its group (mask 0x3, thread) has 2 threads; each thread arrives once per phase, so the barrier could never complete

// -----

builtin.module {
  func.func @too_many_consumers(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, consumer_arv_count = array<i32: 33>}
    cutlass.pipeline.consumer_release %r, %s
    func.return
  }
}
// CHECK: patterns_errors.mlir:20:5: error: cutlass.pipeline.init: consumer_arv_count[0] = 33 but its group (mask 0x2, warp) has 32 threads

// -----

// A cluster release of a multi-warp consumer group syncs the group on a named barrier whose id
// comes from barrier_id_base (this RUN line has no cutlass-allocate-barrier-ids): located at the init.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @no_release_barrier_id(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 0x1e>}
    cutlass.pipeline.consumer_release %r, %s
    func.return
  }
}
// CHECK: patterns_errors.mlir:34:5: error: cutlass.pipeline.init: the cluster release of a consumer group of several warps needs a named barrier; set barrier_id_base or run cutlass-allocate-barrier-ids first

// -----

// A one-warp-sized consumer group of threads 16..47 straddles two warps: bar.warp.sync cannot
// synchronise it, so its cluster release is a located error.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @straddling_group(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type thread>, participants = array<i64: 1>, consumers = array<i64: 0xffffffff0000>}
    cutlass.pipeline.consumer_release %r, %s
    func.return
  }
}
// CHECK: patterns_errors.mlir:49:5: error: consumer group 0 starts at thread 16, not on a warp boundary: the cluster release synchronises whole warps

// -----

// Generic barrier sync = syncthreads is bar.sync 0 over the whole CTA; warp group 1 alone would mix
// a 128-thread count into id 0, which the CTA-wide barrier-init sync also uses (PTX: one count per
// id at a time): a located error asking for a named barrier.
builtin.module {
  func.func @partial_syncthreads(%lock: !llvm.ptr<1>, %i: i32) attributes {nvvm.maxntid = array<i32: 384, 1, 1>} {
    cutlass.async.exec warpgroup mask(2) {
      cutlass.generic_barrier.arrive_increment %lock[%i] : !llvm.ptr<1>
    }
    func.return
  }
}
// CHECK: patterns_errors.mlir:[[# @LINE - 5]]:7: error: sync = syncthreads is bar.sync 0 over the whole CTA, but this op runs in an executor region that may not cover the whole CTA (128 threads); use sync = named_barrier with a barrier_id of its own

// -----

// consumer_arv_count on a 2x1 cluster would make releases local-only (write-before-release on a
// multicast pipeline): rejected at the init.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @cluster_local_release(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, consumer_arv_count = array<i32: 32>}
    cutlass.pipeline.consumer_release %r, %s
    func.return
  }
}
// CHECK: patterns_errors.mlir:[[# @LINE - 5]]:5: error: cutlass.pipeline.init: consumer_arv_count on a cluster of 2 CTAs (2x1x1) would make consumer_release arrive only in its own CTA
