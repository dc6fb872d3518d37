// RUN: tileorch-opt %s -p convert-arith-to-llvm | filecheck %s
// Shifts and divisions whose right operand is not a constant where LLVM's op is defined lower to
// sequences defined for every value (no poison shift, no division by zero or signed MIN / -1 left
// for LLVM to fold into a deleted store); a constant in range keeps the single op.

func.func @shifts(%a: i32, %s: i32) -> (i32, i32, i32, i32, i32) {
  %c5 = arith.constant 5 : i32
  %c32 = arith.constant 32 : i32
  %0 = arith.shli %a, %c5 : i32
  %1 = arith.shli %a, %s : i32
  %2 = arith.shrui %a, %s : i32
  %3 = arith.shrsi %a, %s : i32
  %4 = arith.shli %a, %c32 : i32
  func.return %0, %1, %2, %3, %4 : i32, i32, i32, i32, i32
}
// CHECK-LABEL: func.func @shifts
// CHECK:       %[[C5:.*]] = llvm.mlir.constant(5 : i32)
// CHECK:       %[[C32:.*]] = llvm.mlir.constant(32 : i32)
// CHECK-NEXT:  %[[IN_RANGE:.*]] = llvm.shl %a, %[[C5]] : i32
// shl by a variable amount: masked to 31 (never poison), 0 where the amount is past 31 (PTX's clamp)
// CHECK-NEXT:  %[[TOP:.*]] = llvm.mlir.constant(31 : i32)
// CHECK-NEXT:  %[[PAST:.*]] = llvm.icmp "ugt" %s, %[[TOP]]
// CHECK-NEXT:  %[[MASKED:.*]] = llvm.and %s, %[[TOP]]
// CHECK-NEXT:  %[[SHL:.*]] = llvm.shl %a, %[[MASKED]]
// CHECK-NEXT:  %[[ZERO:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT:  %[[L:.*]] = llvm.select %[[PAST]], %[[ZERO]], %[[SHL]]
// CHECK:       %[[PAST2:.*]] = llvm.icmp "ugt" %s
// CHECK-NEXT:  %[[MASKED2:.*]] = llvm.and %s
// CHECK-NEXT:  %[[LSHR:.*]] = llvm.lshr %a, %[[MASKED2]]
// CHECK-NEXT:  llvm.mlir.constant(0 : i32)
// CHECK-NEXT:  %[[R:.*]] = llvm.select %[[PAST2]], %{{.*}}, %[[LSHR]]
// ashr: the amount clamped to 31 (the sign, as shr.s)
// CHECK-NEXT:  %[[TOP3:.*]] = llvm.mlir.constant(31 : i32)
// CHECK-NEXT:  %[[PAST3:.*]] = llvm.icmp "ugt" %s, %[[TOP3]]
// CHECK-NEXT:  %[[AMT3:.*]] = llvm.select %[[PAST3]], %[[TOP3]], %s
// CHECK-NEXT:  %[[A:.*]] = llvm.ashr %a, %[[AMT3]]
// a constant amount of the width is not in range: guarded too (LLVM folds the guard to 0)
// CHECK:       llvm.icmp "ugt" %[[C32]]
// CHECK:       %[[W:.*]] = llvm.select
// CHECK-NEXT:  func.return %[[IN_RANGE]], %[[L]], %[[R]], %[[A]], %[[W]]

func.func @divisions(%a: i16, %b: i16) -> (i16, i16, i16, i16, i16, i16) {
  %c7 = arith.constant 7 : i16
  %m1 = arith.constant -1 : i16
  %0 = arith.divsi %a, %c7 : i16
  %1 = arith.remui %a, %m1 : i16
  %2 = arith.divsi %a, %b : i16
  %3 = arith.remsi %a, %b : i16
  %4 = arith.divui %a, %b : i16
  %5 = arith.divsi %a, %m1 : i16
  func.return %0, %1, %2, %3, %4, %5 : i16, i16, i16, i16, i16, i16
}
// CHECK-LABEL: func.func @divisions
// CHECK:       %[[M1:.*]] = llvm.mlir.constant(-1 : i16)
// a nonzero constant divisor (unsigned: -1 is 65535) keeps the single op
// CHECK-NEXT:  %[[Q7:.*]] = llvm.sdiv %a, %{{.*}} : i16
// CHECK-NEXT:  %[[RU:.*]] = llvm.urem %a, %[[M1]] : i16
// signed by a variable: a divisor in {-1, 0} (b + 1 <u 2) replaced by 1, the quotient by -1 is 0 - a
// CHECK-NEXT:  %[[ONE:.*]] = llvm.mlir.constant(1 : i16)
// CHECK-NEXT:  %[[B1:.*]] = llvm.add %b, %[[ONE]]
// CHECK-NEXT:  %[[TWO:.*]] = llvm.mlir.constant(2 : i16)
// CHECK-NEXT:  %[[BAD:.*]] = llvm.icmp "ult" %[[B1]], %[[TWO]]
// CHECK-NEXT:  %[[SAFE:.*]] = llvm.select %[[BAD]], %[[ONE]], %b
// CHECK-NEXT:  %[[Q:.*]] = llvm.sdiv %a, %[[SAFE]]
// CHECK-NEXT:  %[[MINUS:.*]] = llvm.mlir.constant(-1 : i16)
// CHECK-NEXT:  %[[BYM1:.*]] = llvm.icmp "eq" %b, %[[MINUS]]
// CHECK-NEXT:  %[[Z:.*]] = llvm.mlir.constant(0 : i16)
// CHECK-NEXT:  %[[NEG:.*]] = llvm.sub %[[Z]], %a
// CHECK-NEXT:  %[[QS:.*]] = llvm.select %[[BYM1]], %[[NEG]], %[[Q]]
// CHECK:       %[[SAFE2:.*]] = llvm.select %{{.*}}, %{{.*}}, %b
// CHECK-NEXT:  %[[RS:.*]] = llvm.srem %a, %[[SAFE2]]
// unsigned by a variable: a zero divisor replaced by 1
// CHECK-NEXT:  %[[ONE3:.*]] = llvm.mlir.constant(1 : i16)
// CHECK-NEXT:  %[[Z3:.*]] = llvm.mlir.constant(0 : i16)
// CHECK-NEXT:  %[[IS0:.*]] = llvm.icmp "eq" %b, %[[Z3]]
// CHECK-NEXT:  %[[SAFE3:.*]] = llvm.select %[[IS0]], %[[ONE3]], %b
// CHECK-NEXT:  %[[QU:.*]] = llvm.udiv %a, %[[SAFE3]]
// a constant -1 signed divisor is guarded (MIN / -1)
// CHECK:       llvm.sdiv %a
// CHECK:       %[[QM1:.*]] = llvm.select
// CHECK-NEXT:  func.return %[[Q7]], %[[RU]], %[[QS]], %[[RS]], %[[QU]], %[[QM1]]

func.func @ceildivui(%a: i8, %b: i8) -> i8 {
  %0 = arith.ceildivui %a, %b : i8
  func.return %0 : i8
}
// a == 0 ? 0 : (a - 1) / b + 1 (a + b - 1 wraps near 255), the zero divisor replaced by 1
// CHECK-LABEL: func.func @ceildivui
// CHECK-NEXT:  %[[Z:.*]] = llvm.mlir.constant(0 : i8)
// CHECK-NEXT:  %[[ONE:.*]] = llvm.mlir.constant(1 : i8)
// CHECK-NEXT:  %[[IS0:.*]] = llvm.icmp "eq" %b, %[[Z]]
// CHECK-NEXT:  %[[SAFE:.*]] = llvm.select %[[IS0]], %[[ONE]], %b
// CHECK-NEXT:  %[[AM1:.*]] = llvm.sub %a, %[[ONE]]
// CHECK-NEXT:  %[[Q:.*]] = llvm.udiv %[[AM1]], %[[SAFE]]
// CHECK-NEXT:  %[[Q1:.*]] = llvm.add %[[Q]], %[[ONE]]
// CHECK-NEXT:  %[[A0:.*]] = llvm.icmp "eq" %a, %[[Z]]
// CHECK-NEXT:  %[[R:.*]] = llvm.select %[[A0]], %[[Z]], %[[Q1]]
// CHECK-NEXT:  func.return %[[R]]
