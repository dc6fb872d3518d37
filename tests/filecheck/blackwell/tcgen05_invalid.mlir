// Verifier negatives for nvvm.tcgen05 (PTX ISA rules; seed 003 BG06: no cta_group::4 opcode).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

llvm.func @f(%t: !llvm.ptr<6>, %d: i64, %i: i32, %p: i1) {
  nvvm.tcgen05.mma %t, %d, %d, %i, %p, kind = f16, cta_group = <cta_4> : (!llvm.ptr<6>, i64, i64, i32, i1)
  llvm.return
}
// CHECK: tcgen05_invalid.mlir:5:3: error: cta_group must be cta_1 or cta_2, got cta_4 (tcgen05 has no cta_group::4 opcode; a 4-CTA copy is two 2-CTA pairs, see convert-blackwell-cluster-emitters)

// -----
llvm.func @f(%t: !llvm.ptr<6>, %d: i64) {
  nvvm.tcgen05.cp %t, %d, shape = shape_128x256b group = <cta_4>
  llvm.return
}
// CHECK: error: cta_group must be cta_1 or cta_2, got cta_4

// -----
llvm.func @f(%s: !llvm.ptr<3>) {
  %n = llvm.mlir.constant(48 : i32) : i32
  nvvm.tcgen05.alloc %s, %n : !llvm.ptr<3>, i32
  llvm.return
}
// CHECK: error: nCols must be a power of two in [32, 512], got 48

// -----
llvm.func @f(%s: !llvm.ptr<1>, %n: i32) {
  nvvm.tcgen05.alloc %s, %n : !llvm.ptr<1>, i32
  llvm.return
}
// CHECK: error: tcgen05.alloc writes the TMEM address to !llvm.ptr or !llvm.ptr<3>, got !llvm.ptr<1>

// -----
llvm.func @f(%t: !llvm.ptr<3>, %n: i32) {
  nvvm.tcgen05.dealloc %t, %n : !llvm.ptr<3>, i32
  llvm.return
}
// CHECK: error: tcgen05.dealloc address must be a Tensor Memory address !llvm.ptr<6>, got !llvm.ptr<3>

// -----
llvm.func @f(%t: !llvm.ptr<6>, %d: i64) {
  nvvm.tcgen05.cp %t, %d, shape = shape_64x128b
  llvm.return
}
// CHECK: error: tcgen05.cp shape_64x128b allows multicast warpx2_02_13 or warpx2_01_23, got none

// -----
llvm.func @f(%t: !llvm.ptr<6>) {
  %v = nvvm.tcgen05.ld %t shape = shape_16x256b : vector<2xi32>
  llvm.return
}
// CHECK: error: shape_16x256b moves 4 x num registers per thread (num a power of two up to 32); vector<2xi32> has 2

// -----
llvm.func @f(%t: !llvm.ptr<6>) {
  %v = nvvm.tcgen05.ld %t shape = shape_32x32b : vector<3xi32>
  llvm.return
}
// CHECK: error: shape_32x32b moves 1 x num registers per thread (num a power of two up to 128); vector<3xi32> has 3

// -----
llvm.func @f(%t: !llvm.ptr<6>) {
  %v = nvvm.tcgen05.ld %t shape = shape_16x32bx2 : vector<2xi32>
  llvm.return
}
// CHECK: error: shape_16x32bx2 needs the offset of its second 16x32b access

// -----
llvm.func @f(%t: !llvm.ptr<6>, %v: vector<4xf32>) {
  nvvm.tcgen05.st %t, %v shape = shape_32x32b : vector<4xf32>
  llvm.return
}
// CHECK: error: tcgen05.st value must be i32 or vector<Nxi32>, got vector<4xf32>

// -----
llvm.func @f(%t: !llvm.ptr<6>, %d: i64, %i: i32, %p: i1, %m: vector<4xi32>) {
  nvvm.tcgen05.mma %t, %d, %d, %i, %p mask = %m, kind = f16, cta_group = <cta_2> : (!llvm.ptr<6>, i64, i64, i32, i1, vector<4xi32>)
  llvm.return
}
// CHECK: error: disableOutputLane must be vector<8xi32> for cta_2, got vector<4xi32>

// -----
llvm.func @f(%t: !llvm.ptr<6>, %d: i64, %i: i32, %p: i1, %s: i64) {
  nvvm.tcgen05.mma %t, %d, %d, %i, %p scale = %s, kind = i8, cta_group = <cta_1> : (!llvm.ptr<6>, i64, i64, i32, i1, i64)
  llvm.return
}
// CHECK: error: scaleInputD is only allowed for kind f16 and tf32, got i8

// -----
llvm.func @f(%t: !llvm.ptr<6>, %a: !llvm.ptr<3>, %d: i64, %i: i32, %p: i1) {
  nvvm.tcgen05.mma %t, %a, %d, %i, %p, kind = f16, cta_group = <cta_1> : (!llvm.ptr<6>, !llvm.ptr<3>, i64, i32, i1)
  llvm.return
}
// CHECK: error: matrix A must be an i64 SMEM descriptor or a !llvm.ptr<6> TMEM address, got !llvm.ptr<3>

// -----
llvm.func @f(%t: !llvm.ptr<3>, %d: i64, %i: i32, %p: i1) {
  nvvm.tcgen05.mma %t, %d, %d, %i, %p, kind = f16, cta_group = <cta_1> : (!llvm.ptr<3>, i64, i64, i32, i1)
  llvm.return
}
// CHECK: error: tcgen05.mma accumulator D must be a Tensor Memory address !llvm.ptr<6>, got !llvm.ptr<3>

// -----
module attributes {cutlass.target = "sm_90a"} {
  llvm.func @f() {
    nvvm.tcgen05.fence <before>
    llvm.return
  }
}
// CHECK: tcgen05_invalid.mlir:[[# @LINE - 4]]:5: error: nvvm.tcgen05.fence needs an sm_100a-class target (sm_100a, sm_101a, sm_103a, sm_110a or their 'f' variants), but the module's cutlass.target is sm_90a

// -----
llvm.func @f(%t: !llvm.ptr<6>, %d: i64, %i: i32, %p: i1) {
  %s = llvm.mlir.constant(16 : i64) : i64
  nvvm.tcgen05.mma %t, %d, %d, %i, %p scale = %s, kind = f16, cta_group = <cta_1> : (!llvm.ptr<6>, i64, i64, i32, i1, i64)
  llvm.return
}
// CHECK: tcgen05_invalid.mlir:[[# @LINE - 3]]:3: error: scaleInputD must be in [0, 15], got 16

// -----
llvm.func @f(%t: !llvm.ptr<6>, %d: i64, %i: i32, %p: i1) {
  nvvm.tcgen05.mma %t, %d, %d, %i, %p, kind = f16, cta_group = <cta_1> a_shift : (!llvm.ptr<6>, i64, i64, i32, i1)
  llvm.return
}
// CHECK: tcgen05_invalid.mlir:[[# @LINE - 3]]:3: error: aShift requires matrix A in Tensor Memory

// -----
llvm.func @f(%t: !llvm.ptr<6>, %d: i64, %i: i32, %p: i1) {
  nvvm.tcgen05.mma %t, %t, %d, %i, %p, kind = f16, cta_group = <cta_1> collector_a = fill : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
  llvm.return
}
// CHECK: tcgen05_invalid.mlir:[[# @LINE - 3]]:3: error: a collector op other than discard needs matrix A in shared memory

// -----
llvm.func @f(%s: !llvm.ptr<1>) {
  nvvm.tcgen05.commit %s : !llvm.ptr<1>
  llvm.return
}
// CHECK: tcgen05_invalid.mlir:[[# @LINE - 3]]:3: error: tcgen05.commit mbarrier must be !llvm.ptr or !llvm.ptr<3>, got !llvm.ptr<1>

// -----
llvm.func @f(%t: !llvm.ptr<6>, %off: i64) {
  %v = nvvm.tcgen05.ld %t, %off shape = shape_32x32b : vector<4xi32>
  llvm.return
}
// CHECK: tcgen05_invalid.mlir:[[# @LINE - 3]]:3: error: only shape_16x32bx2 takes an offset
