// Named-barrier ids the per-CTA pool rule accepts: disjoint ranges and uses across a call, the same
// id in two kernels that do not call each other, and two direct uses of one (reserved) id.
// RUN: tileorch-opt %s --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @helper
// CHECK: cutlass.named_barrier.arrive_and_wait barrier_id = 10 num_threads = 128
// CHECK: cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 128
func.func @helper() {
  cutlass.named_barrier.arrive_and_wait barrier_id = 10 num_threads = 128
  cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 128
  func.return
}
// CHECK-LABEL: func.func @kernel
func.func @kernel() {
  %e = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1, barrier = named_barrier>
  %re = cutlass.pipeline.init %e {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, barrier_id_base = 8 : i32}
  %s = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 1>
  %rs = cutlass.seq_bar.init %s group_size(128) barrier(named_barrier) barrier_id_base(11)
  cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 128
  func.call @helper() : () -> ()
  func.return
}
// Another kernel (another CTA's pool): id 8 is free there.
// CHECK-LABEL: func.func @other_kernel
func.func @other_kernel() {
  cutlass.named_barrier.arrive_and_wait barrier_id = 8 num_threads = 128
  func.return
}
