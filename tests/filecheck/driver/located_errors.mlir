// Errors are reported as file:line:col, with and without --verify-diagnostics.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: not tileorch-opt %s --split-input-file 2>&1 | filecheck %s

module {
  %0 = arith.constant 1 : i32
  %1 = arith.addi %0, %0 : i64
}
// CHECK: located_errors.mlir:7:{{[0-9]+}}: error: operand is used with type i64

// -----

module {
  %0 = "arith.constant"() <{value = 1 : i32}> : () -> i64
}
// CHECK: located_errors.mlir:14:3: error:

// -----

// A '%' not followed by a name (here a non-ASCII letter): xDSL's message was an unformatted
// f-string ("Expected suffix identifier after {first_char}").
func.func @f() {
  %中 = arith.constant 1 : i32
  func.return
}
// CHECK: located_errors.mlir:[[# @LINE - 3]]:3: error: expected a name after '%' (letters, digits and the characters _ $ . - ; a %name may also be a number), found '中'
// CHECK-NOT: {first_char}

// -----

// One past the type's range was "invalid value (OverflowError: float too large to pack with f format)".
func.func @f() {
  %x = arith.constant 1.0e39 : f32
  %y = arith.constant 70000.0 : f16
  func.return
}
// CHECK: located_errors.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: floating point value too large for its type (f16 holds at most 65504, bf16 and f32 3.4e38)

// -----

// An address space LLVM cannot hold (a 24-bit number) was taken; LLVM's IR parser then failed at
// line 1 without a reason.
func.func @f(%p: !llvm.ptr<1>) {
  %q = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr<16777216>
  func.return
}
// CHECK: located_errors.mlir:[[# @LINE - 3]]:3: error: !llvm.ptr<16777216> names address space 16777216, more than LLVM's largest (16777215)

// -----

// func.return's verifier tripped over its function's non-function type ("func.return is
// malformed (its verifier failed: AttributeError ...)"); the function's own error is reported.
"func.func"() <{sym_name = "f", function_type = i32}> ({^bb0: "func.return"() : () -> ()}) : () -> ()
// CHECK: located_errors.mlir:[[# @LINE - 1]]:1: error: property 'function_type' of func.func does not verify: i32 should be of base attribute
// CHECK-NOT: malformed
