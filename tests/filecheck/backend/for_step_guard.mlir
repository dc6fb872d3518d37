// RUN: tileorch-opt %s -p convert-scf-while-to-cf | filecheck %s
// scf.for -> cf: a step that is not a positive constant (0 or negative at run time: undefined in CUDA Tile IR,
// whose for needs a positive step) makes the loop run no iteration (upper bound := step > 0 ? ub : lb) instead
// of never ending; a positive constant step keeps xDSL's bound as it is.  Where iv + step can pass the type's
// largest value (a step other than the constant 1, unless a constant ub keeps it in range), the stepped counter
// is (iv + step < iv) ? ub : iv + step: the wrapping increment ends the loop (it wrapped negative and the loop
// never ended).

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
// CHECK:         %[[NEXT:.*]] = arith.addi %i, %step : i32
// CHECK-NEXT:    %[[WRAP:.*]] = arith.cmpi slt, %[[NEXT]], %i : i32
// CHECK-NEXT:    %[[GO:.*]] = arith.select %[[WRAP]], %[[UB]], %[[NEXT]] : i32
// CHECK-NEXT:    cf.br ^[[COND]](%[[GO]], %s : i32, i32)

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
// CHECK:         %[[NEXT:.*]] = arith.addi %i, %c2 : i32
// CHECK-NEXT:    %[[WRAP:.*]] = arith.cmpi slt, %[[NEXT]], %i : i32
// CHECK-NEXT:    %[[GO:.*]] = arith.select %[[WRAP]], %ub, %[[NEXT]] : i32
// CHECK-NEXT:    cf.br ^[[COND]](%[[GO]], %s : i32, i32)

// step 1 cannot pass the largest value (iv < ub <= MAX), nor step 4 below the constant ub MAX - 3: no guard
func.func @no_wrap(%lb: i32, %ub: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %top = arith.constant 2147483644 : i32
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %s = arith.addi %acc, %i : i32
    scf.yield %s : i32
  }
  %q = scf.for %j = %lb to %top step %c4 iter_args(%acc = %r) -> (i32) : i32 {
    %s = arith.addi %acc, %j : i32
    scf.yield %s : i32
  }
  func.return %q : i32
}
// CHECK-LABEL: func.func @no_wrap
// CHECK-NOT:     arith.select
// CHECK:         func.return

// step 4 to the constant ub MAX - 2: iv = MAX - 3 steps past MAX
func.func @constant_bound_wraps(%lb: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %top = arith.constant 2147483645 : i32
  %q = scf.for %j = %lb to %top step %c4 iter_args(%acc = %c0) -> (i32) : i32 {
    %s = arith.addi %acc, %j : i32
    scf.yield %s : i32
  }
  func.return %q : i32
}
// CHECK-LABEL: func.func @constant_bound_wraps
// CHECK:         %[[NEXT:.*]] = arith.addi %j, %c4 : i32
// CHECK-NEXT:    %[[WRAP:.*]] = arith.cmpi slt, %[[NEXT]], %j : i32
// CHECK-NEXT:    arith.select %[[WRAP]], %top, %[[NEXT]] : i32
