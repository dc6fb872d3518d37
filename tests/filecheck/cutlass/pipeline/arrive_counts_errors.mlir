// The stamping pass needs barrier ids on named-barrier pipelines (run the allocator first).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p cutlass-stamp-arrive-counts | filecheck %s
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p cutlass-allocate-barrier-ids,cutlass-stamp-arrive-counts | filecheck %s --check-prefix=ALLOC

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, barrier = named_barrier>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  func.return
}
// CHECK: arrive_counts_errors.mlir:7:3: error: cutlass.pipeline.init: a named-barrier pipeline needs barrier_id_base; set it or run cutlass-allocate-barrier-ids first
// ALLOC: barrier_id_base = 8 : i32, arvCount = array<i32: 64, 64>

// -----

builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1>} {
  func.func @f() {
    func.return
  }
}
// CHECK: error: cutlass.cluster_shape must be array<i32: X, Y, Z>, found array<i32: 2, 1>
// ALLOC: error: cutlass.cluster_shape must be array<i32: X, Y, Z>, found array<i32: 2, 1>

// -----

// consumer_arv_count on a 2x1 cluster: releases would stay in their own CTA while the peer CTA's
// producer (multicasting into this CTA's stages) waits on them; CUTLASS's cluster count is
// (cx + cy - 1) per consumer warp group, which only the derived count gives.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0xff0>, consumer_arv_count = array<i32: 256>}
    func.return
  }
}
// CHECK: arrive_counts_errors.mlir:[[# @LINE - 4]]:5: error: cutlass.pipeline.init: consumer_arv_count on a cluster of 2 CTAs (2x1x1) would make consumer_release arrive only in its own CTA, but the producers of the other CTAs in its cluster row and column multicast into its stages and wait for its releases (a stage could be overwritten while still being read); remove consumer_arv_count (the derived count is (cx + cy - 1) arrivals per consumer warp group)
// ALLOC: arrive_counts_errors.mlir:[[# @LINE - 5]]:5: error: cutlass.pipeline.init: consumer_arv_count on a cluster of 2 CTAs
