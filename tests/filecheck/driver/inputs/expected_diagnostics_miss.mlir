// Input of ../expected_diagnostics.mlir: comments that do not match what the run produces.

module {
  %0 = arith.constant 1 : i32
  // expected-error @+1 {{operand is used with type i16}}
  %1 = arith.addi %0, %0 : i64
}

// -----

module {
  %0 = arith.constant 1 : i32
  // expected-error @above {{no such error}}
}
