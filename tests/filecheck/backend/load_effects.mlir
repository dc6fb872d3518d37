// Upstream MLIR treats volatile and ordered (monotonic or stronger) loads as having a write
// effect: DCE must keep them (a spin loop polling an acquire load is not dead), while an
// unused plain load is removed.
// RUN: tileorch-opt %s -p dce | filecheck %s

llvm.func @poll(%p: !llvm.ptr<1>) {
  %plain = llvm.load %p : !llvm.ptr<1> -> i32
  %acq = llvm.load %p atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  %mono = llvm.load %p atomic monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  %vol = llvm.load volatile %p : !llvm.ptr<1> -> i32
  llvm.return
}

// CHECK-LABEL: llvm.func @poll
// CHECK-NOT:     llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// CHECK:         llvm.load %{{.*}} atomic syncscope("device") acquire
// CHECK-NEXT:    llvm.load %{{.*}} atomic monotonic
// CHECK-NEXT:    llvm.load volatile
// CHECK-NEXT:    llvm.return
