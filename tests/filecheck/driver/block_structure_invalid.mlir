// The block-structure rules tileorch's verifier checks for every op (diagnostics.py's fast verify,
// xDSL's Operation/Region rules): a single-block region ends with a terminator, an op with block
// successors ends its block, a multi-block region's blocks end with terminators, a single-block
// region is not empty.  Each at the offending op's line.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

func.func @f() {
  // expected-error @+1 {{Operation arith.constant terminates block in single-block region but is not a terminator}}
  %c = arith.constant 0 : i32
}

// -----

func.func @g() {
  // expected-error @+1 {{Operation cf.br with block successors must terminate its parent block}}
  cf.br ^bb1
  // expected-error @+1 {{Operation arith.constant terminates block in multi-block region but is not a terminator}}
  %c = arith.constant 0 : i32
^bb1:
  func.return
}

// -----

func.func @h() {
  // expected-error @+1 {{Operation scf.execute_region contains empty block in single-block region that expects at least a terminator}}
  scf.execute_region {
  ^bb0:
  }
  func.return
}
