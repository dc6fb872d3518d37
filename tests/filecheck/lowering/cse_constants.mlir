// cse-constants: one arith.constant per value, type and block; the first of a block kept, later equal
// ones erased and their uses given to it; other blocks and regions, other types, -0.0 against 0.0,
// dense constants and constants with discardable attributes left as they are.
// RUN: tileorch-opt %s -p cse-constants | filecheck %s

func.func @merged(%x: f32, %i: i32, %p: i1) -> (f32, i32) {
  %a = arith.constant 1.000000e+00 : f32
  %s = arith.addf %x, %a : f32
  %b = arith.constant 1.000000e+00 : f32
  %t = arith.mulf %s, %b : f32
  %c = arith.constant 7 : i32
  %j = arith.addi %i, %c : i32
  %d = arith.constant 7 : i32
  %k = arith.muli %j, %d : i32
  %e = arith.constant 7 : i64
  %z = arith.constant 0.000000e+00 : f32
  %nz = arith.constant -0.000000e+00 : f32
  %u = arith.addf %t, %z : f32
  %v = arith.addf %u, %nz : f32
  %r = scf.if %p -> (f32) {
    %in = arith.constant 1.000000e+00 : f32
    %w = arith.addf %v, %in : f32
    %in2 = arith.constant 1.000000e+00 : f32
    %w2 = arith.mulf %w, %in2 : f32
    scf.yield %w2 : f32
  } else {
    scf.yield %b : f32
  }
  %m = arith.addi %k, %d : i32
  func.return %r, %m : f32, i32
}
// CHECK-LABEL: func.func @merged
// CHECK-NEXT:    %a = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %s = arith.addf %x, %a : f32
// CHECK-NEXT:    %t = arith.mulf %s, %a : f32
// CHECK-NEXT:    %c = arith.constant 7 : i32
// CHECK-NEXT:    %j = arith.addi %i, %c : i32
// CHECK-NEXT:    %k = arith.muli %j, %c : i32
// CHECK-NEXT:    %e = arith.constant 7 : i64
// CHECK-NEXT:    %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %nz = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:    %u = arith.addf %t, %z : f32
// CHECK-NEXT:    %v = arith.addf %u, %nz : f32
// CHECK-NEXT:    %r = scf.if %p -> (f32) {
// CHECK-NEXT:      %in = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %w = arith.addf %v, %in : f32
// CHECK-NEXT:      %w2 = arith.mulf %w, %in : f32
// CHECK-NEXT:      scf.yield %w2 : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %a : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %m = arith.addi %k, %c : i32
// CHECK-NEXT:    func.return %r, %m : f32, i32

func.func @left_alone(%x: tensor<4xf32>) -> (tensor<4xf32>, i32, i32) {
  %a = arith.constant dense<1.000000e+00> : tensor<4xf32>
  %b = arith.constant dense<1.000000e+00> : tensor<4xf32>
  %s = arith.addf %a, %b : tensor<4xf32>
  %c = arith.constant {tag} 3 : i32
  %d = arith.constant 3 : i32
  %e = arith.constant 3 : i32
  func.return %s, %c, %e : tensor<4xf32>, i32, i32
}
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT:    %a = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    %b = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    %s = arith.addf %a, %b : tensor<4xf32>
// CHECK-NEXT:    %c = arith.constant {tag} 3 : i32
// CHECK-NEXT:    %d = arith.constant 3 : i32
// CHECK-NEXT:    func.return %s, %c, %d : tensor<4xf32>, i32, i32

// llvm.mlir.constant (what convert-pipeline-to-nvvm's builders and convert-arith-to-llvm leave): the same
// merging, keyed by the op class too (an arith.constant and an llvm.mlir.constant of one value stay apart) and
// by the result type; an llvm constant in a nested block is that block's own.
func.func @llvm_constants(%x: i32, %y: i64, %p: i1) -> (i32, i64, i32) {
  %a = llvm.mlir.constant(4 : i32) : i32
  %s = llvm.add %x, %a : i32
  %b = llvm.mlir.constant(4 : i32) : i32
  %t = llvm.mul %s, %b : i32
  %c = llvm.mlir.constant(4 : i64) : i64
  %u = llvm.add %y, %c : i64
  %d = arith.constant 4 : i32
  %v = llvm.add %t, %d : i32
  %f = llvm.mlir.constant(1.500000e+00 : f32) : f32
  %g = llvm.mlir.constant(1.500000e+00 : f32) : f32
  %h = llvm.fadd %f, %g : f32
  %r = scf.if %p -> (i32) {
    %in = llvm.mlir.constant(4 : i32) : i32
    %w = llvm.add %v, %in : i32
    scf.yield %w : i32
  } else {
    scf.yield %b : i32
  }
  %e = llvm.mlir.constant(4 : i64) : i64
  %z = llvm.mul %u, %e : i64
  func.return %r, %z, %v : i32, i64, i32
}
// CHECK-LABEL: func.func @llvm_constants
// CHECK-NEXT:    %a = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:    %s = llvm.add %x, %a : i32
// CHECK-NEXT:    %t = llvm.mul %s, %a : i32
// CHECK-NEXT:    %c = llvm.mlir.constant(4) : i64
// CHECK-NEXT:    %u = llvm.add %y, %c : i64
// CHECK-NEXT:    %d = arith.constant 4 : i32
// CHECK-NEXT:    %v = llvm.add %t, %d : i32
// CHECK-NEXT:    %f = llvm.mlir.constant(1.500000e+00 : f32) : f32
// CHECK-NEXT:    %h = llvm.fadd %f, %f : f32
// CHECK-NEXT:    %r = scf.if %p -> (i32) {
// CHECK-NEXT:      %in = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:      %w = llvm.add %v, %in : i32
// CHECK-NEXT:      scf.yield %w : i32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %a : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %z = llvm.mul %u, %c : i64
// CHECK-NEXT:    func.return %r, %z, %v : i32, i64, i32
