// RUN: not tileorch-opt %s --split-input-file -p convert-nvvm-to-llvm 2>&1 | filecheck %s
// NVVM ops the verifier accepts whose LLVM lowering tileorch does not have (a predicated TMA load,
// tcgen05.mma with a_shift) or that need an immediate the program gives as a value (the
// 16x32bx2 offset of tcgen05.ld): located errors at the op, not LLVM aborts.

llvm.func @f(%d: !llvm.ptr<7>, %t: !llvm.ptr, %b: !llvm.ptr<3>, %x: i32, %p: i1) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x, %x] predicate = %p : !llvm.ptr<7>, !llvm.ptr
  llvm.return
}
// CHECK: nvvm_to_llvm_refusals.mlir:[[# @LINE - 3]]:3: error: a predicated TMA load is not supported by the LLVM lowering; branch around it

// -----

llvm.func @g(%t: !llvm.ptr<6>, %d: i64, %i: i32, %p: i1, %mask: vector<8xi32>) {
  nvvm.tcgen05.mma %t, %t, %d, %i, %p mask = %mask, kind = tf32, cta_group = <cta_2> a_shift : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1, vector<8xi32>)
  llvm.return
}
// CHECK: nvvm_to_llvm_refusals.mlir:[[# @LINE - 3]]:3: error: tcgen05.mma with aShift is not supported by the LLVM lowering

// -----

llvm.func @h(%t: !llvm.ptr<6>, %off: i64) -> vector<2xi32> {
  %w = nvvm.tcgen05.ld %t, %off pack shape = shape_16x32bx2 : vector<2xi32>
  llvm.return %w : vector<2xi32>
}
// CHECK: nvvm_to_llvm_refusals.mlir:[[# @LINE - 3]]:3: error: the 16x32bx2 offset must be a constant (an immediate of the instruction)

// -----

// Sweep 34: a kernel that allocates tensor memory and never frees it (the CTA must tcgen05.dealloc every column it
// allocates before it exits): a located error at the alloc.  A helper (no nvvm.kernel) may leave it to its caller.
llvm.func @leaks(%slot: !llvm.ptr<3>, %n: i32) attributes {nvvm.kernel} {
  nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  llvm.return
}
// CHECK: nvvm_to_llvm_refusals.mlir:[[# @LINE - 3]]:3: error: tensor memory allocated here is never freed: the kernel has no tcgen05.dealloc

// -----

llvm.func @helper_allocates(%slot: !llvm.ptr<3>, %n: i32) {
  nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  llvm.return
}
llvm.func @h2(%t: !llvm.ptr<6>, %off: i64) -> vector<2xi32> {
  %w = nvvm.tcgen05.ld %t, %off pack shape = shape_16x32bx2 : vector<2xi32>
  llvm.return %w : vector<2xi32>
}
// CHECK-NOT: error: tensor memory allocated here is never freed
// CHECK: nvvm_to_llvm_refusals.mlir:[[# @LINE - 4]]:3: error: the 16x32bx2 offset must be a constant

// -----

// Sweep 34: the registers of a tcgen05.ld read before a tcgen05.wait <load> (they are defined only after it): a
// located error at the read.  Returning them (the caller may wait) or reading them after the wait is not an error.
llvm.func @read_before_wait(%t: !llvm.ptr<6>, %out: !llvm.ptr<1>) {
  %v = nvvm.tcgen05.ld %t shape = shape_32x32b : vector<4xi32>
  llvm.store %v, %out : vector<4xi32>, !llvm.ptr<1>
  nvvm.tcgen05.wait <load>
  llvm.return
}
// CHECK: nvvm_to_llvm_refusals.mlir:[[# @LINE - 4]]:3: error: this reads the registers of a tcgen05.ld before a tcgen05.wait <load>

// -----

llvm.func @read_after_wait(%t: !llvm.ptr<6>, %out: !llvm.ptr<1>, %u: !llvm.ptr<6>) -> vector<4xi32> {
  %v = nvvm.tcgen05.ld %t shape = shape_32x32b : vector<4xi32>
  nvvm.tcgen05.wait <load>
  llvm.store %v, %out : vector<4xi32>, !llvm.ptr<1>
  %w = nvvm.tcgen05.ld %u shape = shape_32x32b : vector<4xi32>
  llvm.return %w : vector<4xi32>
}
llvm.func @h3(%t: !llvm.ptr<6>, %off: i64) -> vector<2xi32> {
  %w = nvvm.tcgen05.ld %t, %off pack shape = shape_16x32bx2 : vector<2xi32>
  llvm.return %w : vector<2xi32>
}
// CHECK-NOT: this reads the registers
// CHECK: nvvm_to_llvm_refusals.mlir:[[# @LINE - 4]]:3: error: the 16x32bx2 offset must be a constant
