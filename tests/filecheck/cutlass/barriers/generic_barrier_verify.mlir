// Warp-cooperative, sync-policy and semaphore diagnostics of cutlass.generic_barrier.*.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @thread_scope(%lock: !llvm.ptr<1>, %i: i32) {
  cutlass.async.exec thread mask(1) {
    cutlass.generic_barrier.arrive_increment %lock[%i] num_threads = 32 : !llvm.ptr<1>
  }
  func.return
}
// CHECK: generic_barrier_verify.mlir:6:5: error: 'cutlass.generic_barrier.arrive_increment' op is warp-cooperative: expected an enclosing cutlass.async.exec of executor kind warp, warpgroup or cta, found kind 'thread'

// -----

func.func @bad_count(%lock: !llvm.ptr<1>, %i: i32, %n: i32) {
  cutlass.generic_barrier.wait_less_than %lock[%i], %n num_threads = 100 : !llvm.ptr<1>
  func.return
}
// CHECK: error: 'cutlass.generic_barrier.wait_less_than' op arrive count (from num_threads) must be a positive multiple of the warp size 32, found 100

// -----

func.func @no_count(%lock: !llvm.ptr<1>, %i: i32) {
  cutlass.generic_barrier.wait_eq %lock[%i] : !llvm.ptr<1>
  func.return
}
// CHECK: error: 'cutlass.generic_barrier.wait_eq' op needs an explicit num_threads: there is no enclosing cutlass.async.exec from which the arrive count can be computed

// -----

func.func @syncwarp_count(%lock: !llvm.ptr<1>, %i: i32) {
  cutlass.generic_barrier.wait_eq %lock[%i] sync = syncwarp num_threads = 64 : !llvm.ptr<1>
  func.return
}
// CHECK: error: 'cutlass.generic_barrier.wait_eq' op with sync = syncwarp synchronises one warp: expected num_threads = 32 or none, found 64

// -----

func.func @named_without_id(%lock: !llvm.ptr<1>, %i: i32) {
  cutlass.generic_barrier.arrive_increment %lock[%i] sync = named_barrier num_threads = 128 : !llvm.ptr<1>
  func.return
}
// CHECK: error: 'cutlass.generic_barrier.arrive_increment' op with sync = named_barrier needs a static barrier_id

// -----

func.func @id_without_named(%lock: !llvm.ptr<1>, %i: i32) {
  cutlass.generic_barrier.arrive_increment %lock[%i] barrier_id = 4 num_threads = 128 : !llvm.ptr<1>
  func.return
}
// CHECK: error: 'cutlass.generic_barrier.arrive_increment' op takes a barrier_id only with sync = named_barrier, found sync = syncthreads

// -----

func.func @bad_id(%lock: !llvm.ptr<1>, %i: i32) {
  cutlass.generic_barrier.wait_eq %lock[%i] sync = named_barrier barrier_id = 20 num_threads = 128 : !llvm.ptr<1>
  func.return
}
// CHECK: error: 'cutlass.generic_barrier.wait_eq' op barrier_id must be a hardware named barrier in [0, 15], found 20

// -----

// The semaphore lives in global memory, not shared memory.
func.func @shared_lock(%lock: !llvm.ptr<3>, %i: i32) {
  cutlass.generic_barrier.wait_eq %lock[%i] num_threads = 128 : !llvm.ptr<3>
  func.return
}
// CHECK: error: 'cutlass.generic_barrier.wait_eq' op expected the semaphore in global memory (!llvm.ptr or !llvm.ptr<1>), found !llvm.ptr<3>

// -----

func.func @flag_type(%flags: memref<8xi64>, %i: i32) {
  cutlass.generic_barrier.wait_eq %flags[%i] num_threads = 128 : memref<8xi64>
  func.return
}
// CHECK: error: 'cutlass.generic_barrier.wait_eq' op expected the semaphore memref to be rank-1 of i32 flags, found memref<8xi64>

// -----

func.func @flag_bounds(%flags: memref<8xi32>) {
  %i = arith.constant 8 : i32
  cutlass.generic_barrier.arrive_increment %flags[%i] num_threads = 128 : memref<8xi32>
  func.return
}
// CHECK: error: 'cutlass.generic_barrier.arrive_increment' op flag_idx out of bounds: expected 0 <= flag_idx < 8, found 8

// -----

// sync = syncthreads is bar.sync 0 over the whole CTA: a num_threads other than the cta executor's is refused
// (user sweep 28: it compiled to the whole-CTA barrier while the op, and tileorch check, counted 64).
func.func @syncthreads_count(%lock: !llvm.ptr<1>, %i: i32) {
  cutlass.async.exec cta mask(1) threads(128) {
    cutlass.generic_barrier.wait_eq %lock[%i] num_threads = 64 : !llvm.ptr<1>
  }
  func.return
}
// CHECK: generic_barrier_verify.mlir:[[# @LINE - 4]]:5: error: 'cutlass.generic_barrier.wait_eq' op with sync = syncthreads synchronises the whole CTA (bar.sync 0: the enclosing cta executor's 128 threads), but num_threads = 64
