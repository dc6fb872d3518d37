// A cuda_tile.for whose step is a constant <= 0 is refused at the loop when it is lowered (the
// scf.for it becomes needs a positive step; on the GPU it would never end or never run): before,
// the pass built an scf.for that failed verification, reported as an internal error.
// RUN: not tileorch-opt %s --split-input-file -p convert-cudatile-to-tileaa 2>&1 | filecheck %s

cuda_tile.module @m {
  entry @zero_step(%n: tile<i32>) {
    %c0 = constant <i32: 0> : tile<i32>
    // CHECK: for_step_errors.mlir:[[# @LINE + 1]]:5: error: the step of this for loop is the constant 0: it must be positive
    for %i in (%c0 to %n, step %c0) : tile<i32> {
      continue
    }
    return
  }
}

// -----

cuda_tile.module @m {
  entry @negative_step(%n: tile<i64>) {
    %c0 = constant <i64: 0> : tile<i64>
    %m = constant <i64: -3> : tile<i64>
    // CHECK: for_step_errors.mlir:[[# @LINE + 1]]:5: error: the step of this for loop is the constant -3: it must be positive
    for %i in (%c0 to %n, step %m) : tile<i64> {
      continue
    }
    return
  }
}
// CHECK-NOT: internal error
