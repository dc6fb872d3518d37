// RUN: tileorch-opt %s --split-input-file -p tileas-slicing | filecheck %s
// RUN: tileorch-opt %s --split-input-file -p tileas-prepare-for-scheduling | filecheck %s --check-prefix=PREP

// Nested marked loops are sliced innermost first: the outer loop (constant bounds, 4 iterations,
// sliceCount 2: no residual) copies an inner loop that is already sliced, so both copies are
// the sliced inner loop (main loop stepping 3 * step, then its residual) and no sliceCount is
// left anywhere.
builtin.module {
  func.func @exact_outer(%x: f32, %n: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> (f32) {
      %s = scf.for %j = %c0 to %n step %c1 iter_args(%b = %a) -> (f32) {
        %y = arith.addf %b, %x : f32
        scf.yield %y : f32
      } {sliceCount = 3 : i64}
      scf.yield %s : f32
    } {sliceCount = 2 : i64}
    func.return %r : f32
  }
}
// CHECK-LABEL: func.func @exact_outer
// CHECK:      %[[OSTEP:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:      %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[OSTEP]] iter_args(%[[A:.*]] = %{{.*}}) -> (f32) {
// slice 0 of the outer body: the sliced inner loop and its residual
// CHECK:        %[[ISTEP0:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:        %[[MAIN0:.*]] = scf.for %{{.*}} = %{{.*}} to %[[MUB0:.*]] step %[[ISTEP0]] iter_args(%{{.*}} = %[[A]]) -> (f32) {
// CHECK-COUNT-3:  arith.addf
// CHECK:        }
// CHECK:        %[[RES0:.*]] = scf.for %{{.*}} = %[[MUB0]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[MAIN0]]) -> (f32) {
// CHECK-NEXT:     arith.addf
// CHECK-NEXT:     scf.yield
// CHECK-NEXT:   }
// slice 1 of the outer body: the same, fed by slice 0
// CHECK:        %[[MAIN1:.*]] = scf.for %{{.*}} = %{{.*}} to %[[MUB1:.*]] step %{{.*}} iter_args(%{{.*}} = %[[RES0]]) -> (f32) {
// CHECK-COUNT-3:  arith.addf
// CHECK:        }
// CHECK:        %[[RES1:.*]] = scf.for %{{.*}} = %[[MUB1]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[MAIN1]]) -> (f32) {
// CHECK:        scf.yield %[[RES1]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: func.return %[[R]] : f32
// CHECK-NOT:  sliceCount

// PREP-LABEL: func.func @exact_outer
// PREP-NOT:   sliceCount
// PREP:       func.return

// -----

// Unknown outer trip count: the outer main loop and the outer residual loop both hold the
// sliced inner loop (two main-loop copies, one in the residual).
builtin.module {
  func.func @residual_outer(%x: f32, %n: index, %m: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %m step %c1 iter_args(%a = %x) -> (f32) {
      %s = scf.for %j = %c0 to %n step %c1 iter_args(%b = %a) -> (f32) {
        %y = arith.mulf %b, %x : f32
        scf.yield %y : f32
      } {sliceCount = 2 : i64}
      scf.yield %s : f32
    } {sliceCount = 2 : i64}
    func.return %r : f32
  }
}
// CHECK-LABEL: func.func @residual_outer
// CHECK:      %[[OMAIN:.*]] = scf.for %{{.*}} = %{{.*}} to %[[OMUB:.*]] step %{{.*}} iter_args
// CHECK:        scf.for
// CHECK-COUNT-2:  arith.mulf
// CHECK:        scf.for
// CHECK:        scf.for
// CHECK-COUNT-2:  arith.mulf
// CHECK:        scf.for
// CHECK:      scf.for %{{.*}} = %[[OMUB]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[OMAIN]])
// CHECK:        scf.for
// CHECK-COUNT-2:  arith.mulf
// CHECK:        scf.for
// CHECK-NOT:  sliceCount

// PREP-LABEL: func.func @residual_outer
// PREP-NOT:   sliceCount
// PREP:       func.return
