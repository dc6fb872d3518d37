// A kernel (a PTX .entry) returns nothing: compiling one that returns a value is an error at the
// function (ptxas rejected the PTX, reported at line 1).  tileorch-opt's lowerings accept it (the
// lowering tests return values to check them).
// RUN: not tileorch compile %s -o %t.ptx 2>&1 | filecheck %s

func.func @k(%n: i32) -> i32 attributes {nvvm.kernel} {
  func.return %n : i32
}
// CHECK: kernel_result_invalid.mlir:6:1: error: a kernel (nvvm.kernel) returns nothing (a PTX .entry has no return value), but @k returns i32; write results through a pointer parameter
// CHECK-NOT: ptxas
