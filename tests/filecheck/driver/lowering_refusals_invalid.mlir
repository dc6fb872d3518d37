// Lowering refusals that had no test (tools/untested_diagnostics.py, session 17): each is a located
// error at the op the lowering cannot take.
// RUN: tileorch-opt %s --split-input-file -p convert-cudatile-to-tileaa,lower-to-llvm --verify-diagnostics

func.func @k(%c: i1) attributes {nvvm.kernel} {
  // expected-error @+1 {{cf.assert has no device lowering in tileorch}}
  cf.assert %c, "x must be positive"
  func.return
}

// -----

// expected-error @+1 {{functions with more than one result have no llvm lowering in tileorch}}
func.func @two(%a: i32) -> (i32, i32) {
  func.return %a, %a : i32, i32
}
func.func @k(%a: i32) attributes {nvvm.kernel} {
  %x, %y = func.call @two(%a) : (i32) -> (i32, i32)
  func.return
}

// -----

cuda_tile.module @m {
  // expected-error @+1 {{kernel name '1k' is not a valid PTX identifier (letters, digits, '_' and '$', not starting with a digit)}}
  entry @"1k"() {
  }
}
