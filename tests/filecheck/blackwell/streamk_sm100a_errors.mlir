// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p convert-pipeline-to-nvvm | filecheck %s
// Lowering rules of the cluster-coordinated SM100 Stream-K scheduler (docs/blackwell.md).

// The in-cluster reduction needs this CTA's shared-memory buffer.
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @no_smem(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>, %acc: f32) -> f32 attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    func.return %r : f32
  }
}
// CHECK: streamk_sm100a_errors.mlir:9:5: error: the SM100 Stream-K fix-up on a 2x1 cluster reduces each piece through the cluster's shared memory: add smem(%buf : !llvm.ptr<3>), a buffer of this CTA's whole partial tile (num_barriers * 128 threads * accumulator bytes)

// -----

// barrier.cluster counts every thread: a fix-up in warp group 1 of a 256-thread CTA would hang.
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @part_of_the_cta(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>, %acc: f32, %buf: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
    cutlass.async.exec warpgroup mask(2) {
      %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
      %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
      %r = cutlass.tile_scheduler.fixup %s, %w, %acc smem(%buf : !llvm.ptr<3>) : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    }
    func.return
  }
}
// CHECK: streamk_sm100a_errors.mlir:23:7: error: cutlass.tile_scheduler.fixup lowers to barrier.cluster.arrive.aligned and barrier.cluster.wait.aligned, which every thread of the CTA must execute, but its executor region may not cover the whole CTA;

// -----

// The lock trio is the per-CTA protocol.
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 1, 2, 1>} {
  func.func @lock_trio(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 2, 1], raster = along_m>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 2, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    cutlass.tile_scheduler.fixup_wait %s, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    func.return
  }
}
// CHECK: streamk_sm100a_errors.mlir:37:5: error: 'cutlass.tile_scheduler.fixup_wait' is the per-CTA fix-up protocol; the SM100 Stream-K scheduler on a 1x2 cluster reduces each piece inside the cluster first: use cutlass.tile_scheduler.fixup with smem(...)

// -----

// A CTA's share can be empty while the cluster's piece is not: the loop must test the piece.
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @share_as_loop_condition(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    %first = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %last = scf.while (%w = %first) : (!cutlass.streamk_work_tile_info) -> !cutlass.streamk_work_tile_info {
      %count = cutlass.tile_scheduler.get_work_k_tile_count %s, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
      %valid = arith.cmpi sgt, %count, %c0 : i32
      scf.condition(%valid) %w : !cutlass.streamk_work_tile_info
    } do {
    ^bb0(%w: !cutlass.streamk_work_tile_info):
      %next, %inc = cutlass.tile_scheduler.fetch_next_work %s, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
      scf.yield %next : !cutlass.streamk_work_tile_info
    }
    func.return
  }
}
// CHECK: streamk_sm100a_errors.mlir:52:7: error: on the SM100 Stream-K scheduler of a multi-CTA cluster, get_work_k_tile_count is this CTA's share of the piece, which may be 0 while the cluster's piece is not

// -----

// smem(...) on an SM100 Stream-K scheduler of a one-CTA cluster: nothing to reduce in a cluster.
builtin.module attributes {cutlass.target = "sm_100a"} {
  func.func @smem_without_cluster(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m>, %acc: f32, %buf: !llvm.ptr<3>) -> f32 attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc smem(%buf : !llvm.ptr<3>) : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    func.return %r : f32
  }
}
// CHECK: streamk_sm100a_errors.mlir:72:5: error: smem(...) is only used by the SM100 Stream-K scheduler on a cluster of more than one CTA (module cutlass.cluster_shape)

// -----

// Two warp groups in one CTA would share each thread's slot (tid % 128) of the buffer.
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @two_warp_groups(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>, %acc: f32, %buf: !llvm.ptr<3>) -> f32 attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc smem(%buf : !llvm.ptr<3>) : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    func.return %r : f32
  }
}
// CHECK: streamk_sm100a_errors.mlir:[[# @LINE - 4]]:5: error: the SM100 Stream-K fix-up on a cluster runs on one warp group per CTA (128 threads: each thread's partial has one slot, tid % 128), found 256 threads

// -----

// The buffer must hold this CTA's whole partial tile (1 warp group x 128 threads x 32 bytes = 4096 bytes): a global
// of 2048 bytes would be overrun by the peers' partials (sweep 34: it compiled, and `tileorch check` proved it).
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  llvm.mlir.global internal @half() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2048 x i8>
  func.func @short_buffer(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>, %acc: vector<8xf32>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    cutlass.async.exec cta mask(1) threads(128) {
      %buf = llvm.mlir.addressof @half : !llvm.ptr<3>
      %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
      %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
      %r = cutlass.tile_scheduler.fixup %s, %w, %acc smem(%buf : !llvm.ptr<3>) : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<8xf32>
    }
    func.return
  }
}
// CHECK: streamk_sm100a_errors.mlir:102:7: error: the smem(...) buffer holds 2048 bytes, but this CTA's partial tile is 4096 bytes (1 x 128 threads x vector<8xf32>)
