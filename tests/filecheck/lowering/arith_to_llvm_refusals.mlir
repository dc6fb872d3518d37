// RUN: not tileorch-opt %s --split-input-file -p convert-arith-to-llvm 2>&1 | filecheck %s
// RUN: not tileorch-opt %s --split-input-file -p 'cutlass-allocate-barrier-ids{pool_size=2}' 2>&1 | filecheck %s --check-prefix=POOL
// An arith op convert-arith-to-llvm has no rule for is a located error at the op, not an op left
// behind for LLVM translation to reject; a barrier-id pool below the reserved ids is an error
// naming the option's range.

func.func @maximumf(%a: f32, %b: f32) -> f32 {
  %c = arith.maximumf %a, %b : f32
  func.return %c : f32
}
// CHECK: arith_to_llvm_refusals.mlir:[[# @LINE - 3]]:3: error: arith.maximumf has no llvm lowering in tileorch
// POOL: error: cutlass-allocate-barrier-ids: pool_size must be in (8, 16] (ids past the reserved ones, up to the hardware's named barriers), found 2

// -----

func.func @floordivsi(%a: i32, %b: i32) -> i32 {
  %c = arith.floordivsi %a, %b : i32
  func.return %c : i32
}
// CHECK: arith_to_llvm_refusals.mlir:[[# @LINE - 3]]:3: error: arith.floordivsi has no llvm lowering in tileorch
