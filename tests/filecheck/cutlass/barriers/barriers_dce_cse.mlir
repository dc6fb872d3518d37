// Barrier ops have memory effects: dce and cse keep duplicated and result-unused ones.
// The pure seq_bar.state.create is the control: cse merges its duplicate, dce drops the unused one.
// RUN: tileorch-opt %s -p dce,cse | filecheck %s

func.func @kept(%lock: !llvm.ptr<1>, %i: i32, %g: i32) {
  cutlass.async.exec warpgroup mask(3) {
    cutlass.named_barrier.arrive barrier_id = 8
    cutlass.named_barrier.arrive barrier_id = 8
    cutlass.named_barrier.arrive_and_wait barrier_id = 8
    cutlass.named_barrier.arrive_and_wait barrier_id = 8
    cutlass.generic_barrier.arrive_increment %lock[%i] : !llvm.ptr<1>
    cutlass.generic_barrier.arrive_increment %lock[%i] : !llvm.ptr<1>
    cutlass.generic_barrier.wait_eq %lock[%i] : !llvm.ptr<1>
    cutlass.generic_barrier.wait_eq %lock[%i] : !llvm.ptr<1>
    cutlass.generic_barrier.wait_less_than %lock[%i], %g : !llvm.ptr<1>
    cutlass.generic_barrier.wait_less_than %lock[%i], %g : !llvm.ptr<1>
  }
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %unused = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %ready = cutlass.seq_bar.init %sb group_size(128)
  %unused_init = cutlass.seq_bar.init %sb group_size(128)
  %st = cutlass.seq_bar.state.create %ready group(%g)
  %st_dup = cutlass.seq_bar.state.create %ready group(%g)
  %st_dead = cutlass.seq_bar.state.create %ready group(%i)
  cutlass.seq_bar.wait %ready, %st group(%g)
  cutlass.seq_bar.wait %ready, %st_dup group(%g)
  %n1 = cutlass.seq_bar.arrive %ready, %st group(%g)
  %n2 = cutlass.seq_bar.arrive %ready, %st group(%g)
  func.return
}
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: cutlass.named_barrier.arrive barrier_id = 8
// CHECK-COUNT-2: cutlass.named_barrier.arrive_and_wait barrier_id = 8
// CHECK-COUNT-2: cutlass.generic_barrier.arrive_increment %lock[%i]
// CHECK-COUNT-2: cutlass.generic_barrier.wait_eq %lock[%i]
// CHECK-COUNT-2: cutlass.generic_barrier.wait_less_than %lock[%i], %g
// CHECK:      %sb = cutlass.seq_bar.create
// CHECK-NEXT: %unused = cutlass.seq_bar.create
// CHECK-NEXT: %ready = cutlass.seq_bar.init %sb group_size(128)
// CHECK-NEXT: %unused_init = cutlass.seq_bar.init %sb group_size(128)
// CHECK-NEXT: %st = cutlass.seq_bar.state.create %ready group(%g)
// CHECK-NEXT: cutlass.seq_bar.wait %ready, %st group(%g)
// CHECK-NEXT: cutlass.seq_bar.wait %ready, %st group(%g)
// CHECK-NEXT: %n1 = cutlass.seq_bar.arrive %ready, %st group(%g)
// CHECK-NEXT: %n2 = cutlass.seq_bar.arrive %ready, %st group(%g)
// CHECK-NEXT: func.return
