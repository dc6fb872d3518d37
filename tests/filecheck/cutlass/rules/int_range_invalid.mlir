// Rule: an integer attribute is range-checked where it is read, against the integer the lowering
// reads it as: a signless iN literal in [2^(N-1), 2^N) is the negative value v - 2^N (so
// 4294967295 : i32 is -1), an i64 the lowering narrows to i32 must fit i32, and a value must fit
// the 64-bit integers the hardware counts in (no 2^64 in an i128).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A CTA tile extent of 2^63 - 1: the scheduler divides the i32 problem extents by it and keeps
// 32-bit tile counts in its params record.
func.func @tile_shape(%m: i32) {
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) {tile_shape = array<i64: 9223372036854775807, 128, 64>, raster_order = #cutlass<raster_order along_m>} : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1]>
  func.return
}
// CHECK: int_range_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: tile_shape extent M = 9223372036854775807 does not fit the i32 the scheduler divides the i32 problem extents by (its params record holds 32-bit tile counts): at most 2147483647

// -----

// 2^64 ns overflows every 64-bit integer (i64 and ui64).
func.func @period_2_64() {
  %x = cutlass.tile_scheduler.create_mods_instrumentation {period_ns = 18446744073709551616 : i128, pulse_ns = 1 : i64, min_sleep = 0 : i64}
  func.return
}
// CHECK: int_range_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: period_ns = 18446744073709551616 : i128 is a nanosecond count held in a signed integer of 32 to 64 bits (the %globaltimer clock is 64-bit)

// -----

// 2^63 fits ui64 but not the signed 64-bit count.
func.func @pulse_2_63() {
  %x = cutlass.tile_scheduler.create_mods_instrumentation {period_ns = 1000 : i64, pulse_ns = 9223372036854775808 : ui64, min_sleep = 0 : i64}
  func.return
}
// CHECK: int_range_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: pulse_ns = 9223372036854775808 : ui64 is a nanosecond count held in a signed integer of 32 to 64 bits

// -----

// 4294967295 : i32 is -1 as the lowering reads it: no byte count for arrive.expect_tx.
func.func @produce_tx() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.produce %p, %s attributes {transaction_bytes = 4294967295 : i32} {}
  func.return
}
// CHECK: int_range_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.pipeline.produce: transaction_bytes must be >= 0, found -1

// -----

// A byte count past the mbarrier's 20-bit tx-count, on the commit that ends a produce region.
func.func @produce_tx_20_bits() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.produce %p, %s attributes {transaction_bytes = 2147483647 : i32} {}
  func.return
}
// CHECK: int_range_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.pipeline.produce: transaction_bytes = 2147483647 does not fit an mbarrier's 20-bit transaction count (at most 1048575)

// -----

// 2^31 - 1 Stream-K fix-up groups: each needs a reserved Stream-K named barrier, and there are 2.
func.func @fixup_groups(%s: !cutlass.tile_scheduler<streamk>, %w: !cutlass.streamk_work_tile_info) {
  cutlass.tile_scheduler.fixup_wait %s, %w {barrier_idx = 0 : i32, num_barriers = 2147483647 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
  func.return
}
// CHECK: int_range_invalid.mlir:[[# @LINE - 3]]:3: error: num_barriers = 2147483647: each fix-up warp group synchronises on a reserved Stream-K named barrier of its own and CUTLASS reserves 2 (StreamkBarrier0/1, barrier ids 4 and 5); use at most 2 warp groups
