// An llvm.func kernel parameter marked nvvm.grid_constant must be passed by value (llvm.byval):
// a plain pointer is refused at the function by the LLVM translation, before LLVM sees it
// (tools/untested_diagnostics.py, session 22).
// RUN: not tileorch compile %s --no-ptxas -o %t.ptx 2>&1 | filecheck %s

module {
  llvm.func @k(%p: !llvm.ptr {nvvm.grid_constant}) attributes {nvvm.kernel} {
    llvm.return
  }
}
// CHECK: grid_constant_without_byval.mlir:7:3: error: argument 0: nvvm.grid_constant needs llvm.byval (a kernel parameter passed by value)
// CHECK-NOT: internal error
