// Rule: the alignment of a block-striped access (CUTLASS AlignedArray<E, A>: A elements of E, stored
// with alignment A * sizeof(E)) is a power of two of at most 16 bytes and at least the element size,
// and a tile address known at compile time (llvm.inttoptr of a constant) has that alignment.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// 16-byte vector stores to an address aligned to 4 bytes only.
func.func @vector_store(%t: i32, %v: vector<4xf32>) {
  %a = arith.constant 1028 : i64
  %p = llvm.inttoptr %a : i64 to !llvm.ptr<1>
  cutlass.block_striped.store %v, %p, %t n_threads_in_block = 128 access_width = 4 : vector<4xf32>, !llvm.ptr<1>
  func.return
}
// CHECK: store_alignment_invalid.mlir:[[# @LINE - 3]]:3: error: 'cutlass.block_striped.store' op each access stores 4 x f32 = 16 bytes with 16-byte alignment, but the tile address is only 4-byte aligned

// -----

// An alignment below the element size: f32 atomics on a 2-byte aligned address.
func.func @element_store(%t: i32, %v: vector<2xf32>) {
  %a = arith.constant 1026 : i64
  %p = llvm.inttoptr %a : i64 to !llvm.ptr<1>
  cutlass.block_striped.reduce add %v, %p, %t n_threads_in_block = 64 : vector<2xf32>, !llvm.ptr<1>
  func.return
}
// CHECK: store_alignment_invalid.mlir:[[# @LINE - 3]]:3: error: 'cutlass.block_striped.reduce' op each access stores 1 x f32 = 4 bytes with 4-byte alignment, but the tile address is only 2-byte aligned

// -----

// A 12-byte access is no power of two: no vector store has that alignment.
func.func @odd_access(%p: !llvm.ptr<1>, %t: i32, %v: vector<6xf32>) {
  cutlass.block_striped.store %v, %p, %t n_threads_in_block = 128 access_width = 3 : vector<6xf32>, !llvm.ptr<1>
  func.return
}
// CHECK: store_alignment_invalid.mlir:[[# @LINE - 3]]:3: error: 'cutlass.block_striped.store' op one access must be a power of two of at most 16 bytes, found 3 x f32 = 12 bytes
