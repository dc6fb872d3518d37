// RUN: TILEORCH_ROUNDTRIP
// RUN: TILEORCH_CUSTOM_ROUNDTRIP
// The fix-up's optional cluster-reduction buffer (SM100 Stream-K on a multi-CTA cluster) survives
// the generic and the custom form; without it the op prints as before.

builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>, %acc: vector<4xf32>, %buf: !llvm.ptr<3>) -> vector<4xf32> {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc smem(%buf : !llvm.ptr<3>) {barrier_idx = 0 : i32, num_barriers = 1 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<4xf32>
    %q = cutlass.tile_scheduler.fixup %s, %w, %r : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<4xf32>
    func.return %q : vector<4xf32>
  }
}
// CHECK-LABEL: func.func @f
// CHECK:       %[[R:.*]] = cutlass.tile_scheduler.fixup %{{.*}}, %{{.*}}, %{{.*}} smem(%{{.*}} : !llvm.ptr<3>) {barrier_idx = 0 : i32, num_barriers = 1 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<4xf32>
// CHECK-NEXT:  cutlass.tile_scheduler.fixup %{{.*}}, %{{.*}}, %[[R]] : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<4xf32>
