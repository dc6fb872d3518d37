// Block-striped accesses whose alignment the tile address has: a 1024-byte aligned constant address
// for 16-byte vector stores, and a pointer of unknown alignment (not checkable statically).
// RUN: tileorch-opt %s --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @aligned
// CHECK: cutlass.block_striped.store %v, %p, %t n_threads_in_block = 128 access_width = 4
// CHECK: cutlass.block_striped.store %v, %q, %t n_threads_in_block = 128 access_width = 4
func.func @aligned(%q: !llvm.ptr<1>, %t: i32, %v: vector<4xf32>) {
  %a = arith.constant 1024 : i64
  %p = llvm.inttoptr %a : i64 to !llvm.ptr<1>
  cutlass.block_striped.store %v, %p, %t n_threads_in_block = 128 access_width = 4 : vector<4xf32>, !llvm.ptr<1>
  cutlass.block_striped.store %v, %q, %t n_threads_in_block = 128 access_width = 4 : vector<4xf32>, !llvm.ptr<1>
  func.return
}
