// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s
// llvm.load / llvm.store alignments must be powers of two (upstream MLIR and LLVM's Align); an
// alignment below the element size is legal and stays accepted.

llvm.func @store3(%p: !llvm.ptr<1>, %v: f32) {
  llvm.store %v, %p {alignment = 3 : i64} : f32, !llvm.ptr<1>
  llvm.return
}
// CHECK: error: llvm.store alignment must be a power of two (or 0: the type's ABI alignment), got 3

// -----
llvm.func @load6(%p: !llvm.ptr<1>) -> f32 {
  %v = llvm.load %p {alignment = 6 : i64} : !llvm.ptr<1> -> f32
  llvm.return %v : f32
}
// CHECK: error: llvm.load alignment must be a power of two (or 0: the type's ABI alignment), got 6

// -----
// below the element size: legal (CHECK-NOT guards the whole output)
llvm.func @store2(%p: !llvm.ptr<1>, %v: f32) {
  llvm.store %v, %p {alignment = 2 : i64} : f32, !llvm.ptr<1>
  llvm.return
}
// CHECK-NOT: alignment must be a power of two, got 2
// CHECK: llvm.func @store2
