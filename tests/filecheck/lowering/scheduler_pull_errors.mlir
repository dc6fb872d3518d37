// RUN: not tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm 2>&1 | filecheck %s
// The pull model's claim is published with bar.sync 0, which every thread of the CTA must
// execute (PTX ISA, bar.sync: the thread count of one barrier id must agree), and work is
// claimed per CTA (1x1 cluster); get_current_work needs a handle that keeps state.

// Warp 0 only, no declared block size: the other warps would never reach bar.sync 0.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @one_warp(%p: !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m>, %resp: !llvm.ptr<3>) attributes {nvvm.kernel} {
    cutlass.async.exec warp mask(1) {
      %s = cutlass.tile_scheduler.create_dp_params %p workid(%resp : !llvm.ptr<3>) {runtime_pull} : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<dp>
      cutlass.tile_scheduler.query_next_work %s : !cutlass.tile_scheduler<dp>
    }
    func.return
  }
}
// CHECK: scheduler_pull_errors.mlir:[[# @LINE - 5]]:7: error: cutlass.tile_scheduler.query_next_work claims a WorkID with bar.sync 0 (the CTA-wide barrier), which every thread of the CTA must execute, but its executor region may not cover the whole CTA

// -----

// 256 threads, warp group 0 fetching: threads 128..255 never reach the barrier.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @half_cta(%p: !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m>, %resp: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
    cutlass.async.exec warpgroup mask(1) {
      %s = cutlass.tile_scheduler.create_dp_params %p workid(%resp : !llvm.ptr<3>) {runtime_pull} : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<dp>
      %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<dp> -> !cutlass.dp_work_tile_info
      %nw, %inc = cutlass.tile_scheduler.fetch_next_work %s, %w : !cutlass.tile_scheduler<dp>, !cutlass.dp_work_tile_info
    }
    func.return
  }
}
// CHECK: scheduler_pull_errors.mlir:[[# @LINE - 5]]:7: error: cutlass.tile_scheduler.fetch_next_work claims a WorkID with bar.sync 0

// -----

// A 2x1 cluster: a per-CTA claim would give the cluster's CTAs different cluster tiles.
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @cluster(%p: !cutlass.tile_scheduler_dp_params<cga = [2, 1, 1], raster = along_m>, %resp: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    cutlass.async.exec cta mask(1) threads(128) {
      %s = cutlass.tile_scheduler.create_dp_params %p workid(%resp : !llvm.ptr<3>) {runtime_pull} : !cutlass.tile_scheduler_dp_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<dp>
      cutlass.tile_scheduler.query_next_work %s : !cutlass.tile_scheduler<dp>
    }
    func.return
  }
}
// CHECK: scheduler_pull_errors.mlir:[[# @LINE - 5]]:7: error: cutlass.tile_scheduler.query_next_work: the WorkID pull model claims work per CTA and needs a 1x1 cluster (the params type has cga = [2, 1, 1])

// -----

// A closed-form scheduler keeps no state: its work tile carries the position.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @stateless(%p: !cutlass.tile_scheduler_static_persistent_params<cga = [1, 1, 1], raster = along_m>) -> !cutlass.static_persistent_work_tile_info {
    %s = cutlass.tile_scheduler.create_static_persistent_params %p : !cutlass.tile_scheduler_static_persistent_params<cga = [1, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<static_persistent>
    %w = cutlass.tile_scheduler.get_current_work %s : !cutlass.tile_scheduler<static_persistent> -> !cutlass.static_persistent_work_tile_info
    func.return %w : !cutlass.static_persistent_work_tile_info
  }
}
// CHECK: scheduler_pull_errors.mlir:[[# @LINE - 4]]:5: error: 'cutlass.tile_scheduler.get_current_work' reads the scheduler state, which only a WorkID pull-model handle (created with workid(...)) keeps

// -----

// A params field the host keeps (the raster option) is not in the record the kernel reads.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @raster_option(%p: !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m>) -> i32 {
    %v = cutlass.tile_scheduler.params_get_value %p {field = #cutlass<tile_scheduler_dp_param_field raster_option>} : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m> -> i32
    func.return %v : i32
  }
}
// CHECK: scheduler_pull_errors.mlir:[[# @LINE - 4]]:5: error: params field 'raster_option' is not in the device params record, which holds n_cga_tiles_l, n_cga_tiles_m, n_cga_tiles_n, n_k_tiles_per_tile for a dp scheduler: compute it on the host and pass it as a kernel argument
