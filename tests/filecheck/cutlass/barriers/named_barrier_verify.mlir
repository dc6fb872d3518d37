// Warp-cooperative and barrier-id diagnostics of cutlass.named_barrier.*.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A thread-granular executor is not warp-cooperative.
cutlass.async.exec thread mask(3) {
  cutlass.named_barrier.arrive barrier_id = 8 num_threads = 64
}
// CHECK: named_barrier_verify.mlir:6:3: error: 'cutlass.named_barrier.arrive' op is warp-cooperative: expected an enclosing cutlass.async.exec of executor kind warp, warpgroup or cta, found kind 'thread'

// -----

// The nearest enclosing executor decides (a thread executor nested in a warp group).
cutlass.async.exec warpgroup mask(1) {
  cutlass.async.exec thread mask(1) {
    cutlass.named_barrier.arrive_and_wait barrier_id = 8 num_threads = 128
  }
}
// CHECK: error: 'cutlass.named_barrier.arrive_and_wait' op is warp-cooperative: expected an enclosing cutlass.async.exec of executor kind warp, warpgroup or cta, found kind 'thread'

// -----

// An explicit arrive count must be a whole number of warps.
cutlass.async.exec warp mask(1) {
  cutlass.named_barrier.arrive barrier_id = 8 num_threads = 48
}
// CHECK: error: 'cutlass.named_barrier.arrive' op arrive count (from num_threads) must be a positive multiple of the warp size 32, found 48

// -----

// An empty executor mask gives no threads to compute the count from.
cutlass.async.exec warp mask(0) {
  cutlass.named_barrier.arrive_and_wait barrier_id = 8
}
// CHECK: error: 'cutlass.named_barrier.arrive_and_wait' op is warp-cooperative: expected a non-empty executor mask on the enclosing cutlass.async.exec, found an empty mask

// -----

// Outside any executor the count cannot be computed: it must be explicit.
func.func @no_executor() {
  cutlass.named_barrier.arrive_and_wait barrier_id = 8
  func.return
}
// CHECK: error: 'cutlass.named_barrier.arrive_and_wait' op needs an explicit num_threads: there is no enclosing cutlass.async.exec from which the arrive count can be computed

// -----

// More than a CTA's 1024 threads.
func.func @too_many() {
  cutlass.named_barrier.arrive barrier_id = 8 num_threads = 2048
  func.return
}
// CHECK: error: 'cutlass.named_barrier.arrive' op arrive count (from num_threads) must be at most 1024 (threads per CTA), found 2048

// -----

// Hardware named barriers are 0..15.
cutlass.async.exec warp mask(1) {
  cutlass.named_barrier.arrive_and_wait barrier_id = 16
}
// CHECK: error: 'cutlass.named_barrier.arrive_and_wait' op barrier_id must be a hardware named barrier in [0, 15], found 16

// -----

// A constant dynamic id is checked too.
cutlass.async.exec warp mask(1) {
  %id = arith.constant -1 : i32
  cutlass.named_barrier.arrive %id
}
// CHECK: error: 'cutlass.named_barrier.arrive' op barrier_id must be a hardware named barrier in [0, 15], found -1

// -----

// Exactly one of a static and a dynamic id.
func.func @both(%id: i32) {
  cutlass.named_barrier.arrive %id barrier_id = 3 num_threads = 64
  func.return
}
// CHECK: error: 'cutlass.named_barrier.arrive' op expected exactly one barrier id: a static barrier_id or a dynamic i32 operand, found both

// -----

func.func @neither() {
  cutlass.named_barrier.arrive num_threads = 64
  func.return
}
// CHECK: error: 'cutlass.named_barrier.arrive' op expected exactly one barrier id: a static barrier_id or a dynamic i32 operand, found neither

// -----

// A count computed from the executor obeys the same rule (a 100-thread CTA).
cutlass.async.exec cta mask(1) threads(100) {
  cutlass.named_barrier.arrive_and_wait barrier_id = 1
}
// CHECK: error: 'cutlass.named_barrier.arrive_and_wait' op arrive count (from the enclosing cutlass.async.exec) must be a positive multiple of the warp size 32, found 100
