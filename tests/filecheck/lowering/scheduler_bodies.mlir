// RUN: tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm | filecheck %s
// One shared body per scheduler kind, (Params*, i32 linear_id) -> WorkTileInfo, emitted once per
// module; the call sites pass the CTA's launch linear index (seed 000 "Scheduler Bodies").

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @sk(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_n>) -> i32 {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_n> -> !cutlass.tile_scheduler<streamk>
    %a = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %b = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %c = cutlass.tile_scheduler.get_work_k_tile_count %s, %b : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    func.return %c : i32
  }
}
// Along N the launch linear index is ctaid.x + ctaid.y * grid.x (raster.launch_linear_idx).
// CHECK-LABEL: func.func @sk(%{{.*}}: !llvm.ptr) -> i32
// CHECK:      %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-NEXT: %[[M:.*]] = llvm.mul %[[Y]], %{{.*}} : i32
// CHECK-NEXT: %[[LIN:.*]] = llvm.add %[[X]], %[[M]] : i32
// CHECK-NEXT: %[[W:.*]] = llvm.call @__tileorch_sched_streamk_c2x1_n(%{{.*}}, %[[LIN]]) : (!llvm.ptr, i32) -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
// k_tile_count is field 4
// CHECK:      llvm.extractvalue %[[W]][4]
// CHECK:      llvm.func internal @__tileorch_sched_streamk_c2x1_n(%{{.*}}: !llvm.ptr, %{{.*}}: i32) -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
// CHECK:      llvm.sdiv
// CHECK:      llvm.return
// CHECK-NOT:  llvm.func internal @__tileorch_sched_streamk_c2x1_n

// -----

// Static persistent: the body reads the CTA's hardware position in its cluster; k_tile_count of a
// persistent tile is the whole K extent, read from the record header (num_tiles_k at +0x08).
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @persistent(%p: !cutlass.tile_scheduler_static_persistent_params<cga = [1, 1, 1], raster = along_m>) -> i32 {
    %s = cutlass.tile_scheduler.create_static_persistent_params %p : !cutlass.tile_scheduler_static_persistent_params<cga = [1, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<static_persistent>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<static_persistent> -> !cutlass.static_persistent_work_tile_info
    %c = cutlass.tile_scheduler.get_work_k_tile_count %s, %w : !cutlass.tile_scheduler<static_persistent>, !cutlass.static_persistent_work_tile_info
    func.return %c : i32
  }
}
// CHECK-LABEL: func.func @persistent
// CHECK:      llvm.call @__tileorch_sched_static_persistent_c1x1_m
// CHECK:      %[[KT:.*]] = llvm.getelementptr %{{.*}}[8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[C:.*]] = llvm.load %[[KT]]
// CHECK:      func.return %[[C]] : i32
// CHECK:      llvm.func internal @__tileorch_sched_static_persistent_c1x1_m(
// CHECK:      nvvm.read.ptx.sreg.cluster.ctaid
// CHECK:      llvm.return %{{.*}} : !llvm.struct<(i32, i32, i32, i32, i32, i32)>
