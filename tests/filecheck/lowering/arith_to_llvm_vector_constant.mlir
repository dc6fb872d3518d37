// RUN: tileorch-opt %s -p convert-arith-to-llvm | filecheck %s
// A vector arith.constant (a splat, or its elements) is an llvm.mlir.constant of the vector (user sweep 28: a
// cutlass kernel's register fragment initialised by a splat stopped tileorch compile with "has no llvm lowering").

func.func @fragments() -> (vector<8xf32>, vector<4xi32>) {
  %ones = arith.constant dense<1.000000e+00> : vector<8xf32>
  %ids = arith.constant dense<[0, 1, 2, 3]> : vector<4xi32>
  func.return %ones, %ids : vector<8xf32>, vector<4xi32>
}
// CHECK: llvm.mlir.constant(dense<1.000000e+00> : vector<8xf32>) : vector<8xf32>
// CHECK: llvm.mlir.constant(dense<[0, 1, 2, 3]> : vector<4xi32>) : vector<4xi32>
// CHECK-NOT: arith.constant
