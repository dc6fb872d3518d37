// SSA dominance and branch operands (MLIR's verifier rules that xDSL does not check): a use its
// definition does not dominate, a branch whose operands do not match its successor's block
// arguments, and a constant scf.for step <= 0 are located verifier errors, never LLVM crashes,
// hangs or dropped operands.  The valid forms at the end must verify.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

func.func @use_before_def_same_block(%a: i32) -> i32 {
  // expected-error @+1 {{operand #0 (%z) of arith.addi does not dominate this use: it is the result of the arith.addi at}}
  %y = arith.addi %z, %a : i32
  %z = arith.addi %a, %a : i32
  func.return %y : i32
}

// -----

func.func @def_in_a_block_that_does_not_dominate(%a: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^left, ^right
^left:
  %z = arith.addi %a, %a : i32
  cf.br ^join
^right:
  cf.br ^join
^join:
  // expected-error @+1 {{operand #0 (%z) of arith.muli does not dominate this use}}
  %y = arith.muli %z, %a : i32
  func.return %y : i32
}

// -----

func.func @def_after_the_use_in_a_later_block(%a: i32) -> i32 {
  cf.br ^use
^use:
  // expected-error @+1 {{operand #0 (%z) of arith.addi does not dominate this use}}
  %y = arith.addi %z, %a : i32
  cf.br ^def
^def:
  %z = arith.addi %a, %a : i32
  func.return %y : i32
}

// -----

func.func @use_in_a_region_before_the_def(%a: i32, %c: i1) {
  scf.if %c {
    // expected-error @+1 {{operand #0 (%z) of arith.addi does not dominate this use}}
    %y = arith.addi %z, %a : i32
  }
  %z = arith.addi %a, %a : i32
  func.return
}

// -----

func.func @block_argument_of_a_sibling_block(%a: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^left(%a : i32), ^right
^left(%x: i32):
  func.return %x : i32
^right:
  // expected-error @+1 {{operand #0 (%x) of func.return does not dominate this use: it is the argument #0 of the block that starts at}}
  func.return %x : i32
}

// -----

func.func @branch_operand_type(%a: i1) {
  // expected-error @+1 {{cf.cond_br passes i1 to block argument #0 of its 'then' successor, which has type i32}}
  cf.cond_br %a, ^b1(%a : i1), ^b2
^b1(%x: i32):
  func.return
^b2:
  func.return
}

// -----

func.func @branch_operand_count(%a: i32) {
  // expected-error @+1 {{cf.br passes 2 operand(s) to its successor, which has 1 block argument(s)}}
  cf.br ^b1(%a, %a : i32, i32)
^b1(%x: i32):
  func.return
}

// -----

func.func @else_operand_count(%a: i32, %c: i1) {
  // expected-error @+1 {{cf.cond_br passes 0 operand(s) to its 'else' successor, which has 1 block argument(s)}}
  cf.cond_br %c, ^b1, ^b2
^b1:
  func.return
^b2(%x: i32):
  func.return
}

// -----

llvm.func @llvm_branch(%a: i32) {
  // expected-error @+1 {{llvm.br passes 1 operand(s) to its successor, which has 0 block argument(s)}}
  llvm.br ^b1(%a : i32)
^b1:
  llvm.return
}

// -----

// a generic cf.switch whose case_operand_segments has fewer groups than it has case successors
func.func @switch_case_groups(%x: i32, %a: i32) {
  // expected-error @+1 {{cf.switch has 2 case successor(s) but 1 case operand group(s)}}
  "cf.switch"(%x, %a) [^b1, ^b2, ^b3] <{case_values = dense<[1, 2]> : vector<2xi32>, case_operand_segments = array<i32: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (i32, i32) -> ()
^b1(%y: i32):
  func.return
^b2:
  func.return
^b3:
  func.return
}

// -----

func.func @switch_case_type(%f: i32, %a: i64) {
  // expected-error @+1 {{cf.switch passes i64 to block argument #0 of its case successor 0, which has type i32}}
  cf.switch %f : i32, [
    default: ^d,
    4: ^c(%a : i64)
  ]
^d:
  func.return
^c(%x: i32):
  func.return
}

// -----

func.func @zero_step(%a: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{scf.for constant step operand must be positive, got 0}}
  scf.for %i = %c0 to %a step %c0 {
  }
  func.return
}

// -----

func.func @negative_step(%a: i32) {
  %c0 = arith.constant 0 : i32
  %m = arith.constant -2 : i32
  // expected-error @+1 {{scf.for constant step operand must be positive, got -2}}
  scf.for %i = %c0 to %a step %m : i32 {
  }
  func.return
}

// -----

// Valid: a loop whose back edge carries values, a diamond whose join takes block arguments, a
// use in a block that only a dominating block defines, a value used inside nested regions, an
// unreachable block (not checked, as in MLIR) and a runtime step.
func.func @valid(%a: i32, %c: i1, %n: index, %s: index) -> i32 {
  %z = arith.addi %a, %a : i32
  cf.cond_br %c, ^left, ^right(%z : i32)
^left:
  %l = arith.muli %z, %a : i32
  cf.br ^join(%l : i32)
^right(%r: i32):
  cf.br ^join(%r : i32)
^join(%j: i32):
  %c0 = arith.constant 0 : index
  scf.for %i = %c0 to %n step %s {
    scf.if %c {
      %w = arith.addi %j, %z : i32
    }
  }
  cf.br ^loop(%j : i32)
^loop(%v: i32):
  %v1 = arith.addi %v, %z : i32
  %done = arith.cmpi eq, %v1, %a : i32
  cf.cond_br %done, ^exit, ^loop(%v1 : i32)
^exit:
  func.return %v1 : i32
^dead:
  %u = arith.addi %never, %a : i32
  %never = arith.addi %a, %a : i32
  func.return %u : i32
}

// -----

// Valid: a module's body is a graph region (as in MLIR): its values have no order.
module {
  %1 = arith.addi %0, %0 : i32
  %0 = arith.constant 1 : i32
}
