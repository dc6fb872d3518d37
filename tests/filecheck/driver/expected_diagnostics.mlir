// mlir-opt's -verify-diagnostics: expected-error comments are checked, not only printed.
// The first file produces exactly what its comments name (exit 0); the second names one
// error that is not produced and leaves another unnamed (exit 1, each miss located).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=OK
// RUN: not tileorch-opt %S/inputs/expected_diagnostics_miss.mlir --split-input-file --verify-diagnostics 2>&1 >/dev/null | filecheck %s --check-prefix=MISS

module {
  %0 = arith.constant 1 : i32
  // expected-error @+1 {{operand is used with type i64}}
  %1 = arith.addi %0, %0 : i64
}
// OK: expected_diagnostics.mlir:10:{{[0-9]+}}: error: operand is used with type i64

// -----

module {
  %0 = arith.constant 1 : i32
  %1 = arith.addi %0, %0 : i64 // expected-error {{operand is used with type i64}}
}
// OK: expected_diagnostics.mlir:18:{{[0-9]+}}: error: operand is used with type i64

// -----

module {
  %0 = arith.constant 1 : i32
  // expected-error @below {{operand is used with type i64}}
  %1 = arith.addi %0, %0 : i64
}

// -----

// A chunk without errors and without comments passes.
module {
  %0 = arith.constant 1 : i32
}

// MISS: expected_diagnostics_miss.mlir:5:6: error: expected error on line 6 "operand is used with type i16" was not produced
// MISS: expected_diagnostics_miss.mlir:6:{{[0-9]+}}: error: unexpected error: operand is used with type i64
// MISS: expected_diagnostics_miss.mlir:13:6: error: expected error on line 12 "no such error" was not produced
// MISS-NOT: error:
