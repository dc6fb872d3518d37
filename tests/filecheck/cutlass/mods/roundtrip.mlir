// The four MODS ops of seed 004, in 004's own spelling, survive custom and generic round trips.
// RUN: tileorch-opt %s --split-input-file | filecheck %s
// RUN: TILEORCH_ROUNDTRIP
// RUN: TILEORCH_CUSTOM_ROUNDTRIP

builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @window(%params: !cutlass.tile_scheduler_streamk_params) {
    cutlass.async.exec warpgroup mask(1) {
      %sched = cutlass.tile_scheduler.create_SM100_scheduler %params : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
      %participants = arith.constant 3 : i64
      %t_start = cutlass.tile_scheduler.mods_report_mainloop_start %sched, %participants
                    {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64 -> i64
      %smid = cutlass.tile_scheduler.mods_report_smid : i32
      cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
      cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
      cutlass.tile_scheduler.mods_report_mainloop_end %sched, %participants, %t_start
                    {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64, i64 -> ()
    }
    func.return
  }
}

// CHECK-LABEL: func.func @window
// CHECK:       %[[SCHED:.*]] = cutlass.tile_scheduler.create_SM100_scheduler
// CHECK:       %[[P:.*]] = arith.constant 3 : i64
// CHECK:       %[[T:.*]] = cutlass.tile_scheduler.mods_report_mainloop_start %[[SCHED]], %[[P]] {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64 -> i64
// CHECK-NEXT:  %{{.*}} = cutlass.tile_scheduler.mods_report_smid : i32
// CHECK-NEXT:  cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
// CHECK-NEXT:  cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
// CHECK-NEXT:  cutlass.tile_scheduler.mods_report_mainloop_end %[[SCHED]], %[[P]], %[[T]] {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64, i64 -> ()

// -----

// Optional timestamps: a start without one, an end that returns the elapsed time.
builtin.module attributes {cutlass.cluster_shape = array<i32: 4, 1, 1>} {
  func.func @optional(%params: !cutlass.tile_scheduler_static_persistent_params, %mask: i32) {
    cutlass.async.exec warp mask(1) {
      %sched = cutlass.tile_scheduler.create_static_persistent_params %params : !cutlass.tile_scheduler_static_persistent_params -> !cutlass.tile_scheduler<static_persistent>
      cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<static_persistent>, i32 -> ()
      cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask : !cutlass.tile_scheduler<static_persistent>, i32 -> ()
      %t0 = cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<static_persistent>, i32 -> i64
      %dt = cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask, %t0 : !cutlass.tile_scheduler<static_persistent>, i32, i64 -> i64
      cutlass.tile_scheduler.mods_throttle {profile = 0 : i32}
    }
    func.return
  }
}

// CHECK-LABEL: func.func @optional
// CHECK:       cutlass.tile_scheduler.mods_report_mainloop_start %{{.*}}, %{{.*}} : !cutlass.tile_scheduler<static_persistent>, i32 -> ()
// CHECK-NEXT:  cutlass.tile_scheduler.mods_report_mainloop_end %{{.*}}, %{{.*}} : !cutlass.tile_scheduler<static_persistent>, i32 -> ()
// CHECK-NEXT:  %[[T0:.*]] = cutlass.tile_scheduler.mods_report_mainloop_start {{.*}} -> i64
// CHECK-NEXT:  %{{.*}} = cutlass.tile_scheduler.mods_report_mainloop_end %{{.*}}, %{{.*}}, %[[T0]] : !cutlass.tile_scheduler<static_persistent>, i32, i64 -> i64
// CHECK-NEXT:  cutlass.tile_scheduler.mods_throttle {profile = 0 : i32}
