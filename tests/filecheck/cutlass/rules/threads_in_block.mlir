// Groups and warps within the block: a pingpong CTA of 384 threads (producer warp group + two
// 128-thread math groups ordered by a sequence barrier), a 128-thread block-striped store by a
// warp-group executor, two Stream-K fix-up warp groups.
// RUN: tileorch-opt %s --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @pingpong
// CHECK: cutlass.seq_bar.init %s group_size(128) initializing_warp(11)
// CHECK: cutlass.block_striped.store
// CHECK: cutlass.tile_scheduler.fixup_wait
func.func @pingpong(%p: !llvm.ptr<1>, %t: i32, %v: vector<4xf32>, %sk: !cutlass.tile_scheduler<streamk>, %w: !cutlass.streamk_work_tile_info) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 384, 1, 1>} {
  %s = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 1, length = 3>
  %r = cutlass.seq_bar.init %s group_size(128) initializing_warp(11)
  cutlass.async.exec warpgroup mask(0x2) {
    cutlass.block_striped.store %v, %p, %t n_threads_in_block = 128 : vector<4xf32>, !llvm.ptr<1>
  }
  cutlass.tile_scheduler.fixup_wait %sk, %w {barrier_idx = 1 : i32, num_barriers = 2 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
  func.return
}
