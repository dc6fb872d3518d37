// The placement and workspace-type rules accept: pipelines and sequence barriers created in a kernel,
// MODS probes inside its executor region, workspace sizes as i32, i64 or index.
// RUN: tileorch-opt %s --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @kernel
// CHECK: cutlass.pipeline.create
// CHECK: cutlass.tile_scheduler.mods_report_smid
func.func @kernel(%s: !cutlass.tile_scheduler<streamk>) attributes {nvvm.kernel} {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  cutlass.async.exec warp mask(0x1) {
    %smid = cutlass.tile_scheduler.mods_report_smid : i32
    cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
  }
  func.return
}

// CHECK-LABEL: func.func @host
// CHECK: get_workspace_sizes {{.*}} -> i64, i64, i64
// CHECK: get_workspace_sizes {{.*}} -> i32, i32, i32
// CHECK: get_workspace_sizes {{.*}} -> index, index, index
func.func @host(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m>, %ws: !llvm.ptr<1>) {
  %t, %r, %b = cutlass.tile_scheduler.get_workspace_sizes %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m> -> i64, i64, i64
  %t2, %r2, %b2 = cutlass.tile_scheduler.get_workspace_sizes %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m> -> i32, i32, i32
  %t3, %r3, %b3 = cutlass.tile_scheduler.get_workspace_sizes %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m> -> index, index, index
  cutlass.tile_scheduler.initialize_workspace %p, %ws sizes(%r, %b : i64, i64) : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m>, !llvm.ptr<1>
  func.return
}
