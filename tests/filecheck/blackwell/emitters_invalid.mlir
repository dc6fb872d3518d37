// Negative tests of the cute_nvgpu atoms and of convert-blackwell-cluster-emitters, including
// seed 003 S02's "Failed to init mbarrier".
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p convert-blackwell-cluster-emitters | filecheck %s

func.func @f(%t: !llvm.ptr<6>, %d: i64, %bar: !llvm.ptr) {
  cute_nvgpu.arch.mbarrier_init %bar {cta_group = 2 : i32, count = 1 : i32} : !llvm.ptr
  return
}
// CHECK: emitters_invalid.mlir:6:3: error: Failed to init mbarrier (the mbarrier must be a shared::cta !llvm.ptr<3>, got !llvm.ptr)

// -----
func.func @f(%bar: !llvm.ptr<3>) {
  cute_nvgpu.arch.mbarrier_init %bar {cta_group = 2 : i32, count = 0 : i32} : !llvm.ptr<3>
  return
}
// CHECK: error: Failed to init mbarrier (arrival count must be in [1, 1048575], got 0)

// -----
func.func @f(%t: !llvm.ptr<6>, %d: i64, %bar: !llvm.ptr<7>) {
  cute_nvgpu.atom.s2t_copy %t, %d, %bar {cta_group = 2 : i32, cols = 128 : i32, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>} : !llvm.ptr<6>, !llvm.ptr<7>
  return
}
// CHECK: error: Failed to init mbarrier (the mbarrier must be a shared::cta !llvm.ptr<3>, got !llvm.ptr<7>)

// -----
func.func @f(%t: !llvm.ptr<6>, %d: i64) {
  cute_nvgpu.atom.s2t_copy %t, %d {cta_group = 3 : i32, cols = 128 : i32, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>} : !llvm.ptr<6>
  return
}
// CHECK: error: cta_group must be 1, 2 or 4 (CTAs of the MMA the copy feeds), got 3

// -----
func.func @f(%t: !llvm.ptr<6>, %d: i64) {
  cute_nvgpu.atom.s2t_copy %t, %d {cta_group = 4 : i32, cols = 66 : i32, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>} : !llvm.ptr<6>
  return
}
// CHECK: error: cols must be a positive multiple of cta_group (4) to slice the TMEM tile, got 66

// -----
func.func @f(%t: !llvm.ptr<3>, %d: i64) {
  cute_nvgpu.atom.s2t_copy %t, %d {cta_group = 1 : i32, cols = 64 : i32, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>} : !llvm.ptr<3>
  return
}
// CHECK: error: the destination must be a TMEM address !llvm.ptr<6>, got !llvm.ptr<3>

// -----
func.func @f(%t: !llvm.ptr<6>, %d: i64) {
  cute_nvgpu.atom.s2t_copy %t, %d {cta_group = 4 : i32, cols = 128 : i32, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>} : !llvm.ptr<6>
  return
}
// CHECK: error: copy shape shape_32x128b allows multicast warpx4, got none

// -----
func.func @f(%bar: !llvm.ptr<1>, %flag: !llvm.ptr<3>, %peer: i32, %tx: i32) {
  cute_nvgpu.cluster_handshake %bar, %flag, %peer, %tx : !llvm.ptr<1>, !llvm.ptr<3>
  return
}
// CHECK: error: the mbarrier must be a shared::cta address !llvm.ptr<3>, got !llvm.ptr<1>

// -----
func.func @f(%bar: !llvm.ptr<3>, %flag: !llvm.ptr<3>, %peer: i32, %tx: i32) {
  cute_nvgpu.cluster_handshake %bar, %flag, %peer, %tx {num_ctas = 32 : i32} : !llvm.ptr<3>, !llvm.ptr<3>
  return
}
// CHECK: error: num_ctas must be in [1, 16], got 32

// -----
func.func @f(%v: i64) {
  %u = cute_nvgpu.arch.make_warp_uniform %v : i64
  return
}
// CHECK: error: make_warp_uniform takes i1 or i32, got i64

// -----
// ptxas rejects a function mixing cta_group::1 and ::2 tcgen05 ops; the 2-CTA copy emits cta_group::2.
func.func @f(%t: !llvm.ptr<6>, %d: i64, %s: !llvm.ptr<3>, %n: i32) {
  nvvm.tcgen05.alloc %s, %n : !llvm.ptr<3>, i32
  cute_nvgpu.atom.s2t_copy %t, %d {cta_group = 2 : i32, cols = 128 : i32, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>} : !llvm.ptr<6>
  return
}
// CHECK: emitters_invalid.mlir:[[# @LINE - 3]]:3: error: nvvm.tcgen05.cp uses cta_group::2 but this function's earlier nvvm.tcgen05.alloc uses cta_group::1; ptxas rejects a function that mixes single-CTA and CTA-pair tcgen05 ops
