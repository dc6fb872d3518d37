// Rule: named barriers are per CTA, so a kernel and every function it calls (transitively, through
// func.call / llvm.call) share one id pool: an id in the explicit range of a pipeline or seq_bar
// (barrier_id_base, n ids) is used by no other barrier op and claimed by no other range of the pool.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The kernel's named pipeline holds ids 8..9 while it calls @sync_helper, which syncs on id 9.
func.func @sync_helper() {
  cutlass.named_barrier.arrive_and_wait barrier_id = 9 num_threads = 128
  func.return
}
func.func @kernel() {
  %e = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1, barrier = named_barrier>
  %re = cutlass.pipeline.init %e {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, barrier_id_base = 8 : i32}
  func.call @sync_helper() : () -> ()
  func.return
}
// CHECK: barrier_ids_calls_invalid.mlir:[[# @LINE - 9]]:3: error: cutlass.named_barrier.arrive_and_wait: named barrier 9 is claimed by cutlass.pipeline.init of %e (ids 8..9, at {{.*}}barrier_ids_calls_invalid.mlir:[[# @LINE - 4]]:3) in another function of this CTA (@kernel calls @sync_helper (at {{.*}}barrier_ids_calls_invalid.mlir:[[# @LINE - 3]]:3)): named barriers are per CTA, so a kernel and every function it calls share one id pool; use an id that no pipeline or seq_bar claims, or move that op's barrier_id_base

// -----

// Through two calls: the leaf's named seq_bar range 9..10 overlaps the kernel's pipeline 8..9.
func.func @kernel() {
  %e = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1, barrier = named_barrier>
  %re = cutlass.pipeline.init %e {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, barrier_id_base = 8 : i32}
  func.call @mid() : () -> ()
  func.return
}
func.func @mid() {
  func.call @leaf() : () -> ()
  func.return
}
func.func @leaf() {
  %s = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 1, length = 2>
  %rs = cutlass.seq_bar.init %s group_size(128) barrier(named_barrier) barrier_id_base(9)
  func.return
}
// CHECK: barrier_ids_calls_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.seq_bar.init: barrier_id_base = 9 claims named barrier 9, which cutlass.pipeline.init of %e (ids 8..9, at {{.*}}:[[# @LINE - 13]]:3) already claims in another function of this CTA (@kernel calls @mid (at {{.*}}:[[# @LINE - 12]]:3), which calls @leaf (at {{.*}}:[[# @LINE - 8]]:3)): named barriers are per CTA, so a kernel and every function it calls share one id pool; give each op a disjoint range

// -----

// Two callees of one kernel: @producer's pipeline holds 12..13 while @epilogue (run by other warps
// of the same CTA) arrives on a constant id 13.
func.func @kernel() {
  func.call @producer() : () -> ()
  func.call @epilogue() : () -> ()
  func.return
}
func.func @producer() {
  %e = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1, barrier = named_barrier>
  %re = cutlass.pipeline.init %e {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, barrier_id_base = 12 : i32}
  func.return
}
func.func @epilogue() {
  %c = arith.constant 13 : i32
  cutlass.named_barrier.arrive %c num_threads = 64
  func.return
}
// CHECK: barrier_ids_calls_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.named_barrier.arrive: named barrier 13 is claimed by cutlass.pipeline.init of %e (ids 12..13, {{.*}}) in another function of this CTA (both run on the CTA of @kernel: @kernel calls @producer (at {{.*}}); @kernel calls @epilogue (at {{.*}})): named barriers are per CTA

// -----

// A callee's generic barrier with a raw named-barrier id inside the caller's seq_bar range.
func.func @kernel(%lock: !llvm.ptr<1>) {
  %s = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 1>
  %rs = cutlass.seq_bar.init %s group_size(128) barrier(named_barrier) barrier_id_base(12)
  func.call @wait_flag(%lock) : (!llvm.ptr<1>) -> ()
  func.return
}
func.func @wait_flag(%lock: !llvm.ptr<1>) {
  %flag = arith.constant 0 : i32
  cutlass.generic_barrier.wait_eq %lock[%flag] sync = named_barrier barrier_id = 13 num_threads = 128 : !llvm.ptr<1>
  func.return
}
// CHECK: barrier_ids_calls_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.generic_barrier.wait_eq: named barrier 13 is claimed by cutlass.seq_bar.init of %s (ids 12..13, {{.*}}) in another function of this CTA (@kernel calls @wait_flag

// -----

// The same rule inside one function (what cutlass-allocate-barrier-ids reports, now at verification).
func.func @one_function() {
  %a = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, barrier = named_barrier>
  %ra = cutlass.pipeline.init %a {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, barrier_id_base = 8 : i32}
  %b = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1, barrier = named_barrier>
  %rb = cutlass.pipeline.init %b {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, barrier_id_base = 10 : i32}
  func.return
}
// CHECK: barrier_ids_calls_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.pipeline.init: barrier_id_base = 10 claims named barrier 10, which cutlass.pipeline.init of %a (ids 8..11, at {{.*}}:[[# @LINE - 5]]:3) already claims; give each op a disjoint range
