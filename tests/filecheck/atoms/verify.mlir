// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @odd_size(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>) {
  %n = arith.constant 100 : i32
  atom.bulk_copy_g2s %dst, %src, %dst, %n : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
  func.return
}
// CHECK: bulk copy size must be a positive multiple of 16 bytes, got 100

// -----

func.func @global_destination(%dst: !llvm.ptr<1>, %src: !llvm.ptr<1>, %bar: !llvm.ptr<3>) {
  %n = arith.constant 128 : i32
  atom.bulk_copy_g2s %dst, %src, %bar, %n : !llvm.ptr<1>, !llvm.ptr<1>, !llvm.ptr<3>
  func.return
}
// CHECK: error: Expected attribute !llvm.ptr<3> but got !llvm.ptr<1>
