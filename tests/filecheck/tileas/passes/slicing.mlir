// RUN: tileorch-opt %s --split-input-file -p tileas-slicing | filecheck %s

// Constant bounds, 8 iterations, sliceCount 4: two main iterations of 4 slices, no residual.
builtin.module {
  func.func @exact(%x: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %x) -> (f32) {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %y = arith.addf %a, %f : f32
      scf.yield %y : f32
    } {sliceCount = 4 : i64}
    func.return %r : f32
  }
}
// CHECK-LABEL: func.func @exact
// CHECK: %[[N:.*]] = arith.constant 4 : index
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %[[N]] : index
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[STEP]] iter_args(%[[A:.*]] = %{{.*}}) -> (f32) {
// CHECK: arith.index_cast %[[I]]
// CHECK: %[[Y0:.*]] = arith.addf %[[A]]
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK: arith.index_cast %[[I1]]
// CHECK: %[[Y1:.*]] = arith.addf %[[Y0]]
// CHECK: arith.addf
// CHECK: %[[Y3:.*]] = arith.addf
// CHECK: scf.yield %[[Y3]] : f32
// CHECK-NOT: scf.for
// CHECK: func.return %[[R]]

// -----

// Unknown trip count: main loop up to ub - (ub - lb) mod (2 * step), then the residual loop.
builtin.module {
  func.func @residual(%lb: i32, %ub: i32, %s: i32, %x: f32) -> f32 {
    %r = scf.for %i = %lb to %ub step %s iter_args(%a = %x) -> (f32) : i32 {
      %y = arith.addf %a, %x : f32
      scf.yield %y : f32
    } {sliceCount = 2 : i64}
    func.return %r : f32
  }
}
// CHECK: func.func @residual(%[[LB:.*]]: i32, %[[UB:.*]]: i32, %[[S:.*]]: i32
// CHECK: %[[BIG:.*]] = arith.muli %[[S]], %{{.*}} : i32
// CHECK: %[[SPAN:.*]] = arith.subi %[[UB]], %[[LB]] : i32
// CHECK: %[[REM:.*]] = arith.remsi %[[SPAN]], %[[BIG]] : i32
// CHECK: %[[MUB:.*]] = arith.subi %[[UB]], %[[REM]] : i32
// CHECK: %[[MAIN:.*]] = scf.for %{{.*}} = %[[LB]] to %[[MUB]] step %[[BIG]]
// CHECK-COUNT-2: arith.addf
// CHECK: scf.for %{{.*}} = %[[MUB]] to %[[UB]] step %[[S]] iter_args(%{{.*}} = %[[MAIN]])
// CHECK-NOT: sliceCount
