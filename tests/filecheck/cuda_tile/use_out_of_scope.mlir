// A value used where it is not defined (a loop's induction variable before the loop, a result
// before the op that defines it) is an error at the use's line, not an unlocated internal one
// (found by tools/fuzz_cutile.py, seed 1212).  The verifier's dominance check reports it, before
// any pass runs.
// RUN: not tileorch compile %s -o %t.ptx 2>&1 | filecheck %s
// RUN: not tileorch-opt %s --split-input-file -p convert-cudatile-to-tileaa 2>&1 | filecheck %s

builtin.module {
  cuda_tile.module @kernels {
    entry @k(%0: tile<ptr<f32>>) {
      %1 = constant <i32: 0> : tile<i32>
      %2 = constant <i32: 1> : tile<i32>
      %3 = constant <i32: 4> : tile<i32>
      // CHECK: use_out_of_scope.mlir:[[# @LINE + 1]]:7: error: operand #0 of cuda_tile.assume does not dominate this use: it is the argument #0 of a region of the cuda_tile.for at {{.*}}use_out_of_scope.mlir:[[# @LINE + 2]]:7
      %4 = assume bounded<0, ?>, %6 : tile<i32>
      %5 = for %6 in (%1 to %3, step %2) : tile<i32> iter_values(%7 = %1) -> (tile<i32>) {
        %8 = addi %7, %6 : tile<i32>
        continue %8 : tile<i32>
      }
      return
    }
  }
}
// CHECK-NOT: <unknown>
