// A kernel (nvvm.kernel, a PTX .entry) is launched from the host: a call to one from device code
// is a verifier error at the call (ptxas rejected it as "Illegal call target", reported at line 1),
// nvvm.kernel is a unit attribute, and a symbol that becomes a PTX name is a PTX identifier (LLVM
// aborted: "Symbol name with unsupported characters").  The valid forms (a kernel calling a device
// function, intrinsic names) last.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

func.func @k(%n: i32) attributes {nvvm.kernel} {
  // expected-error @+1 {{func.call calls @k, a kernel (nvvm.kernel): a kernel is launched from the host and cannot be called from device code}}
  func.call @k(%n) : (i32) -> ()
  func.return
}

// -----

llvm.func @k(%a: i32) attributes {nvvm.kernel} {
  llvm.return
}
llvm.func @device(%a: i32) {
  // expected-error @+1 {{llvm.call calls @k, a kernel (nvvm.kernel)}}
  llvm.call @k(%a) : (i32) -> ()
  llvm.return
}

// -----

// expected-error @+1 {{nvvm.kernel is a unit attribute (write `attributes {nvvm.kernel}`), found 3 : i32}}
func.func @k() attributes {nvvm.kernel = 3 : i32} {
  func.return
}


// -----

// expected-error @+1 {{symbol name 'a b' is not a valid PTX identifier}}
func.func @"a b"() attributes {nvvm.kernel} {
  func.return
}

// -----

// expected-error @+1 {{symbol name '1k' is not a valid PTX identifier}}
llvm.func @"1k"() {
  llvm.return
}

// -----

// expected-error @+1 {{symbol name 'café' is not a valid PTX identifier}}
func.func @"café"() {
  func.return
}

// -----

// expected-error @+1 {{symbol name 'x.y' is not a valid PTX identifier (a letter, then letters, digits, '_' or '$'; or '_', '$' or '%' and at least one more of those): rename it}}
llvm.mlir.global external @"x.y"() {addr_space = 1 : i32} : i32

// -----

llvm.func @llvm.nvvm.barrier0()
llvm.func @_private$1()
func.func @helper(%n: i32) -> i32 {
  %m = arith.addi %n, %n : i32
  func.return %m : i32
}
func.func @k(%n: i32) attributes {nvvm.kernel} {
  %m = func.call @helper(%n) : (i32) -> i32
  func.return
}
