// RUN: tileorch-opt %s -p convert-scf-while-to-cf | filecheck %s
// scf.for -> cf: a step that is not a positive constant (0 or negative at run time: undefined in CUDA Tile IR,
// whose for needs a positive step) makes the loop run no iteration (upper bound := step > 0 ? ub : lb) instead
// of never ending; a positive constant step keeps xDSL's lowering as it is.

func.func @runtime_step(%lb: i32, %ub: i32, %step: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %c0) -> (i32) : i32 {
    %s = arith.addi %acc, %i : i32
    scf.yield %s : i32
  }
  func.return %r : i32
}
// CHECK-LABEL: func.func @runtime_step
// CHECK-NEXT:    %c0 = arith.constant 0 : i32
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[POS:.*]] = arith.cmpi sgt, %step, %[[Z]] : i32
// CHECK-NEXT:    %[[UB:.*]] = arith.select %[[POS]], %ub, %lb : i32
// CHECK-NEXT:    cf.br ^[[COND:bb[0-9]+]](%lb, %{{.*}} : i32, i32)
// CHECK-NEXT:  ^[[COND]](%i: i32, %acc: i32):
// CHECK-NEXT:    %[[MORE:.*]] = arith.cmpi slt, %i, %[[UB]] : i32
// CHECK-NEXT:    cf.cond_br %[[MORE]]

func.func @constant_step(%lb: i32, %ub: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %r = scf.for %i = %lb to %ub step %c2 iter_args(%acc = %c0) -> (i32) : i32 {
    %s = arith.addi %acc, %i : i32
    scf.yield %s : i32
  }
  func.return %r : i32
}
// CHECK-LABEL: func.func @constant_step
// CHECK-NOT:     arith.select
// CHECK:         cf.br ^[[COND:bb[0-9]+]](%lb, %{{.*}} : i32, i32)
// CHECK-NEXT:  ^[[COND]](%i: i32, %acc: i32):
// CHECK-NEXT:    %{{.*}} = arith.cmpi slt, %i, %ub : i32
