// Launch attributes LLVM's NVPTX backend would assert on (or ptxas reject) are verifier errors,
// and named-barrier counts fit the CTA.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

builtin.module attributes {cutlass.cluster_shape = array<i32: 0, 1, 1>} {
}
// CHECK: kernel_attrs.mlir:5:1: error: cutlass.cluster_shape extents must be >= 1, found [0, 1, 1]

// -----

builtin.module attributes {cutlass.cluster_shape = array<i32: 4, 4, 2>} {
}
// CHECK: error: cutlass.cluster_shape = [4, 4, 2] has 32 CTAs per cluster, more than the hardware's 16

// -----

builtin.module attributes {cutlass.cluster_shape = array<f32: 2.0, 1.0, 1.0>} {
}
// CHECK: error: cutlass.cluster_shape must be array<i32: X, Y, Z>, found array<f32: 2.000000e+00, 1.000000e+00, 1.000000e+00>

// -----

builtin.module attributes {cutlass.target = "sm_90"} {
}
// CHECK: error: cutlass.target must be a string such as "sm_90a" or "sm_100a", found "sm_90"

// -----

func.func @k() attributes {nvvm.kernel, nvvm.cluster_dim = array<i32: 1, 1, 0>} {
  func.return
}
// CHECK: error: nvvm.cluster_dim extents must be >= 1, found [1, 1, 0]

// -----

func.func @k() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 2048, 1, 1>} {
  func.return
}
// CHECK: error: nvvm.maxntid = [2048, 1, 1] has 2048 threads per CTA, more than the hardware's 1024

// -----

func.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: -1>} {
  func.return
}
// CHECK: error: nvvm.reqntid extents must be >= 1, found [-1]

// -----

func.func @k() attributes {nvvm.kernel, nvvm.maxntid = array<f32: 128.0>} {
  func.return
}
// CHECK: error: nvvm.maxntid must be an integer array (e.g. array<i32: 128, 1, 1>), found array<f32: 1.280000e+02>

// -----

func.func @k() attributes {nvvm.kernel, nvvm.minctasm = 0 : i32} {
  func.return
}
// CHECK: error: nvvm.minctasm (resident CTAs per SM) must be in [1, 32], found 0

// -----

func.func @k() attributes {nvvm.kernel, nvvm.maxnreg = 4096 : i32} {
  func.return
}
// CHECK: error: nvvm.maxnreg (registers per thread) must be in [1, 255], found 4096

// -----

builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @k() attributes {nvvm.kernel, nvvm.cluster_dim = array<i32: 1, 2, 1>} {
    cutlass.async.exec warp mask(0x1) {}
    func.return
  }
}
// CHECK: error: nvvm.cluster_dim = [1, 2, 1] differs from the module's cutlass.cluster_shape = [2, 1, 1]

// -----

// Named-barrier counts larger than the CTA never complete.
func.func @k() attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
  cutlass.named_barrier.arrive_and_wait barrier_id = 8 num_threads = 256
  func.return
}
// CHECK: error: 'cutlass.named_barrier.arrive_and_wait' op arrive count (from num_threads) is 256, more than the 128 threads of the CTA (the kernel's nvvm.maxntid): the barrier could never complete

// -----

func.func @k() {
  cutlass.async.exec cta mask(0x1) threads(64) {
    %id = arith.constant 9 : i32
    cutlass.named_barrier.arrive %id num_threads = 96
  }
  func.return
}
// CHECK: error: 'cutlass.named_barrier.arrive' op arrive count (from num_threads) is 96, more than the 64 threads of the CTA (threads(64) of the enclosing cta executor)

// -----

func.func @k() {
  cutlass.named_barrier.arrive barrier_id = 8 num_threads = 4294967296
  func.return
}
// CHECK: error: Integer value 4294967296 is out of range for type i32

// -----

func.func @k() {
  %id = arith.constant 16 : i32
  cutlass.named_barrier.arrive %id num_threads = 64
  func.return
}
// CHECK: error: 'cutlass.named_barrier.arrive' op barrier_id must be a hardware named barrier in [0, 15], found 16
