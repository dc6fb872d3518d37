// A sequence barrier's wait / arrive under a branch in an executor of more groups than the barrier orders:
// the branch may pick the threads of one group (e.g. `if warp_group_rank == 0`), so the verifier accepts it.
// RUN: tileorch-opt %s --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @branch_picks_one_group
// CHECK:       scf.if
// CHECK-NEXT:  cutlass.seq_bar.wait
func.func @branch_picks_one_group(%g: i32, %c: i1) {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 1>
  %ready = cutlass.seq_bar.init %sb group_size(64)
  cutlass.async.exec warpgroup mask(0x1) {
    %st = cutlass.seq_bar.state.create %ready group(%g)
    scf.if %c {
      cutlass.seq_bar.wait %ready, %st group(%g)
    }
  }
  func.return
}
