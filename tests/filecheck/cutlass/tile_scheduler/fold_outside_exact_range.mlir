// RUN: tileorch-opt %s --verify-diagnostics -p convert-pipeline-to-nvvm | filecheck %s
// Constant scheduler queries fold only where CUTLASS's host integers are exact: 65536 x 65536
// tiles wrap CUTLASS's 32-bit tile count (its params get units_per_problem_ = 0).

func.func @tiles_past_int32(%ws: !llvm.ptr<1>) -> i64 {
  %m = arith.constant 8388608 : i32
  %k = arith.constant 64 : i32
  %l = arith.constant 1 : i32
  %sms = arith.constant 132 : i32
  %sk = cutlass.tile_scheduler.make_streamk_params %m, %m, %k, %l sms(%sms) {tile_shape = array<i64: 128, 128, 64>} : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>
  %total, %reduc, %bar = cutlass.tile_scheduler.get_workspace_sizes %sk : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> i64, i64, i64
  func.return %total : i64
}
// CHECK: fold_outside_exact_range.mlir:11:3: error: cannot fold cutlass.tile_scheduler.get_workspace_sizes: 65536 x 65536 x 1 CTA tiles (swizzle- and cluster-padded): CUTLASS's tile total and the device's tile index are 32-bit integers, exact only up to 2147483647

