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
