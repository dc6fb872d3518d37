// Rule: a sequence barrier's wait / arrive run by every thread of an executor (no branch between them, loops
// only) need that executor's threads to be at most `length` groups of `group_size`: more groups than the
// barrier orders would over-arrive its mbarriers (each expects group_size arrivals a phase).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A warp group (128 threads) is two groups of 64, the barrier orders one.
func.func @two_groups_one_ordered(%g: i32) {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 1>
  %ready = cutlass.seq_bar.init %sb group_size(64)
  cutlass.async.exec warpgroup mask(0x1) {
    %st = cutlass.seq_bar.state.create %ready group(%g)
    cutlass.seq_bar.wait %ready, %st group(%g)
  }
  func.return
}
// CHECK: seq_bar_groups_invalid.mlir:12:5: error: 'cutlass.seq_bar.wait' op executor of 128 threads is 2 groups of group_size 64, but the sequence barrier orders 1

// -----

// The same inside a loop (a loop is no branch: every thread still arrives).
func.func @in_loop(%g: i32, %n: index) {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 1>
  %ready = cutlass.seq_bar.init %sb group_size(64)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cutlass.async.exec warpgroup mask(0x1) {
    %st = cutlass.seq_bar.state.create %ready group(%g)
    scf.for %i = %c0 to %n step %c1 {
      %st1 = cutlass.seq_bar.arrive %ready, %st group(%g)
    }
  }
  func.return
}
// CHECK: seq_bar_groups_invalid.mlir:29:7: error: 'cutlass.seq_bar.arrive' op executor of 128 threads is 2 groups of group_size 64, but the sequence barrier orders 1
