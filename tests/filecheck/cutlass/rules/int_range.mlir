// Integer attributes at the top of their ranges that stay accepted.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @limits
// CHECK: tile_shape = array<i64: 2147483647, 128, 64>
// CHECK: period_ns = 9223372036854775807 : i64
// CHECK: transaction_bytes = 1048575 : i32
// CHECK: num_barriers = 2 : i32
func.func @limits(%m: i32, %s: !cutlass.tile_scheduler<streamk>, %w: !cutlass.streamk_work_tile_info) {
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) {tile_shape = array<i64: 2147483647, 128, 64>, raster_order = #cutlass<raster_order along_m>} : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1]>
  %x = cutlass.tile_scheduler.create_mods_instrumentation {period_ns = 9223372036854775807 : i64, pulse_ns = 9223372036854775807 : i64, min_sleep = 0 : i64}
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %st = cutlass.pipeline.state.create %pipe producer
  cutlass.pipeline.produce %pipe, %st attributes {transaction_bytes = 1048575 : i32} {}
  cutlass.tile_scheduler.fixup_wait %s, %w {barrier_idx = 1 : i32, num_barriers = 2 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
  func.return
}
