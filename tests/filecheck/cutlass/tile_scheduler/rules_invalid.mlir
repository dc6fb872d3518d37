// Verifier rules of the tile scheduler and MODS ops that had no negative test: one per split,
// each must be reported at its op (an expected-error that is not produced fails the test).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

builtin.module attributes {cutlass.cluster_shape = array<i32: 4, 1, 1>} {
  func.func @mods_zero_participants(%params: !cutlass.tile_scheduler_static_persistent_params) {
    cutlass.async.exec warp mask(1) {
      %sched = cutlass.tile_scheduler.create_static_persistent_params %params : !cutlass.tile_scheduler_static_persistent_params -> !cutlass.tile_scheduler<static_persistent>
      %mask = arith.constant 0 : i32
      // expected-error @+1 {{participant mask is 0: the MODS window needs at least one participating CTA (bit i = CTA i of the cluster)}}
      cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<static_persistent>, i32 -> ()
      cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask : !cutlass.tile_scheduler<static_persistent>, i32 -> ()
    }
    func.return
  }
}

// -----

builtin.module attributes {cutlass.cluster_shape = array<i32: 4, 1, 1>} {
  func.func @mods_elapsed_without_start_time(%params: !cutlass.tile_scheduler_static_persistent_params, %mask: i32) {
    cutlass.async.exec warp mask(1) {
      %sched = cutlass.tile_scheduler.create_static_persistent_params %params : !cutlass.tile_scheduler_static_persistent_params -> !cutlass.tile_scheduler<static_persistent>
      cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<static_persistent>, i32 -> ()
      // expected-error @+1 {{the elapsed-time result needs the t_start operand}}
      %dt = "cutlass.tile_scheduler.mods_report_mainloop_end"(%sched, %mask) : (!cutlass.tile_scheduler<static_persistent>, i32) -> i64
    }
    func.return
  }
}

// -----

func.func @tile_shape_rank(%m: i32) {
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{tile_shape must have 3 extents (M, N, K), found 2}}
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) cga(%c1, %c1, %c1) {tile_shape = array<i64: 128, 128>} : !cutlass.tile_scheduler_dp_params
  func.return
}

// -----

func.func @cga_operand_count(%m: i32) {
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{cga(...) takes 3 operands (x, y, z), found 2}}
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) cga(%c1, %c1) {tile_shape = array<i64: 128, 128, 64>} : !cutlass.tile_scheduler_dp_params
  func.return
}

// -----

func.func @min_sleep_negative() {
  // expected-error @+1 {{min_sleep must be >= 0, found -1}}
  %inst = cutlass.tile_scheduler.create_mods_instrumentation {period_ns = 1000 : i64, pulse_ns = 100 : i64, min_sleep = -1 : i64, is_2cta_mma = false}
  func.return
}
