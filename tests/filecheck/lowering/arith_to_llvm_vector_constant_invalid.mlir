// RUN: tileorch-opt %s -p convert-arith-to-llvm --verify-diagnostics
// A vector constant of index elements has no llvm lowering (review 36: it was built with the index type left in).
builtin.module {
  func.func @f() -> vector<4xindex> {
    // expected-error @+1 {{arith.constant of a vector<4xindex> has no llvm lowering (vector constants of integer or float elements only)}}
    %c = arith.constant dense<1> : vector<4xindex>
    func.return %c : vector<4xindex>
  }
}
