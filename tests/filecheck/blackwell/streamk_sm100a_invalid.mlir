// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Target and cluster rules of the SM100 Stream-K scheduler (seed 000 "Scheduler Bodies": the SM100
// body uses Blackwell cluster barriers, which Hopper lacks; the generic body must not be linked
// next to it on sm_100) and of the fix-up's cluster-reduction buffer.

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @sm100_streamk_on_sm90a(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>) {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    func.return
  }
}
// CHECK: streamk_sm100a_invalid.mlir:8:5: error: the SM100 'streamk' scheduler is illegal on sm_90a (module cutlass.target): it needs an sm_100 family target

// -----

builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @generic_streamk_on_sm100a(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>) {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    func.return
  }
}
// CHECK: streamk_sm100a_invalid.mlir:18:5: error: the generic Stream-K scheduler is illegal on sm_100a (module cutlass.target): use cutlass.tile_scheduler.create_SM100_scheduler

// -----

// The scheduler's CGA is not the launch cluster: ranks would split pieces the wrong way.
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @cga_not_the_cluster(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 2, 1], raster = along_m>) {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 2, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    func.return
  }
}
// CHECK: streamk_sm100a_invalid.mlir:29:5: error: the SM100 Stream-K scheduler's CGA shape [2, 2, 1] differs from the launch cluster (module cutlass.cluster_shape [2, 1, 1]): its CTAs split each piece by cluster rank

// -----

builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 2>} {
  func.func @three_d_cluster(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 2], raster = along_m>) {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 2], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    func.return
  }
}
// CHECK: streamk_sm100a_invalid.mlir:39:5: error: the SM100 Stream-K scheduler needs a 2-D cluster (z = 1), found CGA shape [2, 1, 2]

// -----

builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @smem_not_shared(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>, %acc: f32, %buf: !llvm.ptr<1>) -> f32 {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc smem(%buf : !llvm.ptr<1>) : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    func.return %r : f32
  }
}
// CHECK: streamk_sm100a_invalid.mlir:51:5: error: the fix-up's smem buffer must point to shared memory (!llvm.ptr<3>), found !llvm.ptr<1>

// -----

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @smem_on_generic(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>, %acc: f32, %buf: !llvm.ptr<3>) -> f32 {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc smem(%buf : !llvm.ptr<3>) : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    func.return %r : f32
  }
}
// CHECK: streamk_sm100a_invalid.mlir:63:5: error: smem(...) is the cluster-reduction buffer of the SM100 Stream-K scheduler: %s does not come from cutlass.tile_scheduler.create_SM100_scheduler
