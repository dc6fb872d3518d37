// The std lowerings: scf.while -> cf, arith/cf/func -> llvm, index -> i64.
// RUN: tileorch-opt %s --split-input-file -p convert-scf-while-to-cf | filecheck %s --check-prefix=WHILE
// RUN: tileorch-opt %s --split-input-file -p lower-to-llvm | filecheck %s

// sum of 0..n-1 with a while loop over index values
func.func @sum(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%i = %c0, %acc = %c0) : (index, index) -> (index, index) {
    %more = arith.cmpi ult, %i, %n : index
    scf.condition(%more) %i, %acc : index, index
  } do {
  ^bb0(%j: index, %a: index):
    %a2 = arith.addi %a, %j : index
    %j2 = arith.addi %j, %c1 : index
    scf.yield %j2, %a2 : index, index
  }
  func.return %r#1 : index
}
// WHILE-LABEL: func.func @sum(%n: index) -> index {
// WHILE:         cf.br ^[[BEFORE:bb[0-9]+]](%c0, %c0 : index, index)
// WHILE-NEXT:  ^[[BEFORE]](%i: index, %acc: index):
// WHILE-NEXT:    %more = arith.cmpi ult, %i, %n : index
// WHILE-NEXT:    cf.cond_br %more, ^[[AFTER:bb[0-9]+]](%i, %acc : index, index), ^[[CONT:bb[0-9]+]](%i, %acc : index, index)
// WHILE-NEXT:  ^[[AFTER]](%j: index, %a: index):
// WHILE-NEXT:    %a2 = arith.addi %a, %j : index
// WHILE-NEXT:    %j2 = arith.addi %j, %c1 : index
// WHILE-NEXT:    cf.br ^[[BEFORE]](%j2, %a2 : index, index)
// WHILE-NEXT:  ^[[CONT]](%{{.*}}: index, %[[R1:.*]]: index):
// WHILE-NEXT:    cf.br ^[[REST:bb[0-9]+]]
// WHILE-NEXT:  ^[[REST]]:
// WHILE-NEXT:    func.return %[[R1]] : index

// CHECK-LABEL: llvm.func @sum(%n: i64) -> i64 {
// CHECK-NEXT:    %c0 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %c1 = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    llvm.br ^[[BEFORE:bb[0-9]+]](%c0, %c0 : i64, i64)
// CHECK-NEXT:  ^[[BEFORE]](%i: i64, %acc: i64):
// CHECK-NEXT:    %more = llvm.icmp "ult" %i, %n : i64
// CHECK-NEXT:    llvm.cond_br %more, ^[[AFTER:bb[0-9]+]](%i, %acc : i64, i64), ^[[CONT:bb[0-9]+]](%i, %acc : i64, i64)
// CHECK-NEXT:  ^[[AFTER]](%j: i64, %a: i64):
// CHECK-NEXT:    %a2 = llvm.add %a, %j : i64
// CHECK-NEXT:    %j2 = llvm.add %j, %c1 : i64
// CHECK-NEXT:    llvm.br ^[[BEFORE]](%j2, %a2 : i64, i64)
// CHECK:         llvm.return %{{.*}} : i64

// -----

func.func private @ext(i32, i32, f32) -> i32
func.func @arith(%a: i32, %b: i32, %f: f32, %x: index) -> i32 attributes {nvvm.kernel} {
  %0 = arith.muli %a, %b : i32
  %1 = arith.divui %0, %b : i32
  %2 = arith.remsi %1, %a : i32
  %3 = arith.shrui %2, %b : i32
  %4 = arith.maxsi %3, %a : i32
  %5 = arith.minui %4, %b : i32
  %6 = arith.ceildivui %5, %b : i32
  %7 = arith.index_cast %x : index to i32
  %8 = arith.extui %7 : i32 to i64
  %9 = arith.trunci %8 : i64 to i32
  %10 = arith.fptosi %f : f32 to i32
  %11 = arith.uitofp %9 : i32 to f32
  %true = arith.constant true
  %12 = arith.select %true, %10, %6 : i32
  %13 = func.call @ext(%12, %9, %11) : (i32, i32, f32) -> i32
  func.return %13 : i32
}
// CHECK-LABEL: llvm.func @ext(i32, i32, f32) -> i32
// CHECK-LABEL: llvm.func @arith(%a: i32, %b: i32, %f: f32, %x: i64) -> i32 attributes {nvvm.kernel} {
// CHECK-NEXT:    %[[MUL:.*]] = llvm.mul %a, %b : i32
// (divisions and shifts by a variable: defined for every value, transforms/defined_integer_llvm.py)
// CHECK-NEXT:    %[[ONE0:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[ZERO0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[BZ:.*]] = llvm.icmp "eq" %b, %[[ZERO0]] : i32
// CHECK-NEXT:    %[[BSAFE:.*]] = llvm.select %[[BZ]], %[[ONE0]], %b : i1, i32
// CHECK-NEXT:    %[[DIV:.*]] = llvm.udiv %[[MUL]], %[[BSAFE]] : i32
// CHECK-NEXT:    %[[ONE1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[AP1:.*]] = llvm.add %a, %[[ONE1]] : i32
// CHECK-NEXT:    %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[ABAD:.*]] = llvm.icmp "ult" %[[AP1]], %[[TWO]] : i32
// CHECK-NEXT:    %[[ASAFE:.*]] = llvm.select %[[ABAD]], %[[ONE1]], %a : i1, i32
// CHECK-NEXT:    %[[REM:.*]] = llvm.srem %[[DIV]], %[[ASAFE]] : i32
// CHECK-NEXT:    %[[TOP:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %[[PAST:.*]] = llvm.icmp "ugt" %b, %[[TOP]] : i32
// CHECK-NEXT:    %[[AMT:.*]] = llvm.and %b, %[[TOP]] : i32
// CHECK-NEXT:    %[[SHIFTED:.*]] = llvm.lshr %[[REM]], %[[AMT]] : i32
// CHECK-NEXT:    %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[SHR:.*]] = llvm.select %[[PAST]], %[[Z]], %[[SHIFTED]] : i1, i32
// CHECK-NEXT:    %[[SGT:.*]] = llvm.icmp "sgt" %[[SHR]], %a : i32
// CHECK-NEXT:    %[[MAX:.*]] = llvm.select %[[SGT]], %[[SHR]], %a : i1, i32
// CHECK-NEXT:    %[[ULT:.*]] = llvm.icmp "ult" %[[MAX]], %b : i32
// CHECK-NEXT:    %[[MIN:.*]] = llvm.select %[[ULT]], %[[MAX]], %b : i1, i32
// ceildivui: a == 0 ? 0 : (a - 1) / b + 1
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[BZ2:.*]] = llvm.icmp "eq" %b, %[[ZERO]] : i32
// CHECK-NEXT:    %[[BSAFE2:.*]] = llvm.select %[[BZ2]], %[[ONE]], %b : i1, i32
// CHECK-NEXT:    %[[AM1:.*]] = llvm.sub %[[MIN]], %[[ONE]] : i32
// CHECK-NEXT:    %[[Q:.*]] = llvm.udiv %[[AM1]], %[[BSAFE2]] : i32
// CHECK-NEXT:    %[[Q1:.*]] = llvm.add %[[Q]], %[[ONE]] : i32
// CHECK-NEXT:    %[[MIN0:.*]] = llvm.icmp "eq" %[[MIN]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[CEIL:.*]] = llvm.select %[[MIN0]], %[[ZERO]], %[[Q1]] : i1, i32
// CHECK-NEXT:    %[[X32:.*]] = llvm.trunc %x : i64 to i32
// CHECK-NEXT:    %[[X64:.*]] = llvm.zext %[[X32]] : i32 to i64
// CHECK-NEXT:    %[[XT:.*]] = llvm.trunc %[[X64]] : i64 to i32
// CHECK-NEXT:    %[[FI:.*]] = llvm.fptosi %f : f32 to i32
// CHECK-NEXT:    %[[XF:.*]] = llvm.uitofp %[[XT]] : i32 to f32
// CHECK-NEXT:    %true = llvm.mlir.constant(true) : i1
// CHECK-NEXT:    %[[SEL:.*]] = llvm.select %true, %[[FI]], %[[CEIL]] : i1, i32
// CHECK-NEXT:    %[[CALL:.*]] = llvm.call @ext(%[[SEL]], %[[XT]], %[[XF]]) : (i32, i32, f32) -> i32
// CHECK-NEXT:    llvm.return %[[CALL]] : i32

// -----

func.func @switch(%v: i32) -> i32 {
  cf.switch %v : i32, [
    default: ^d,
    3: ^three,
    7: ^seven
  ]
^d:
  %z = arith.constant 0 : i32
  func.return %z : i32
^three:
  func.return %v : i32
^seven:
  %s = arith.addi %v, %v : i32
  func.return %s : i32
}
// CHECK-LABEL: llvm.func @switch(%v: i32) -> i32 {
// CHECK-NEXT:    %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[E3:.*]] = llvm.icmp "eq" %v, %[[C3]] : i32
// CHECK-NEXT:    llvm.cond_br %[[E3]], ^three, ^[[NEXT:bb[0-9]+]]
// CHECK-NEXT:  ^[[NEXT]]:
// CHECK-NEXT:    %[[C7:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT:    %[[E7:.*]] = llvm.icmp "eq" %v, %[[C7]] : i32
// CHECK-NEXT:    llvm.cond_br %[[E7]], ^seven, ^[[LAST:bb[0-9]+]]
// CHECK-NEXT:  ^[[LAST]]:
// CHECK-NEXT:    llvm.br ^d
