// RUN: not tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm 2>&1 | filecheck %s
// Accumulators without a CUTLASS reduction-workspace layout are located errors.

// CUTLASS stripes f16 accumulators as half2 pairs (a static_assert on an even count there).
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @odd_half(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>, %acc: vector<3xf16>) -> vector<3xf16> {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<3xf16>
    func.return %r : vector<3xf16>
  }
}
// CHECK: scheduler_fixup_errors.mlir:9:5: error: an f16 accumulator needs an even element count (CUTLASS stripes half2), found vector<3xf16>

// -----

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @two_d(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>, %acc: vector<2x2xf32>) -> vector<2x2xf32> {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<2x2xf32>
    func.return %r : vector<2x2xf32>
  }
}
// CHECK: scheduler_fixup_errors.mlir:21:5: error: cannot fix up an accumulator of type vector<2x2xf32> (expected bytes-wide numbers, a 1-D vector or a struct of them)

// -----

// A struct of an f32 and an i32: the workspace layout stripes fields of one type.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @mixed_struct(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>, %acc: !llvm.struct<(f32, i32)>) -> !llvm.struct<(f32, i32)> {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, !llvm.struct<(f32, i32)>
    func.return %r : !llvm.struct<(f32, i32)>
  }
}
// CHECK: scheduler_fixup_errors.mlir:[[# @LINE - 4]]:5: error: cannot fix up a struct accumulator with mixed field types: !llvm.struct<(f32, i32)>
