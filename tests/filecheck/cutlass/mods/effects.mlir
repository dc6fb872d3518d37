// Seed 004 rule 4: the probes and non-trivial throttles survive dce/cse even when their results
// are unused; an unused smid read and a profile-0 throttle may be dropped (004 invariants).
// %smid reads (a non-constant special register) merge only when no side-effecting op separates them.
// RUN: tileorch-opt %s -p dce,cse | filecheck %s

builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @effects(%sched: !cutlass.tile_scheduler<streamk>, %mask: i64, %out: !llvm.ptr) {
    cutlass.async.exec warp mask(1) {
      %t = cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<streamk>, i64 -> i64
      %unused = cutlass.tile_scheduler.mods_report_smid : i32
      %a = cutlass.tile_scheduler.mods_report_smid : i32
      %b = cutlass.tile_scheduler.mods_report_smid : i32
      cutlass.tile_scheduler.mods_throttle {profile = 0 : i32}
      cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
      %c = cutlass.tile_scheduler.mods_report_smid : i32
      cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
      %dt = cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask, %t : !cutlass.tile_scheduler<streamk>, i64, i64 -> i64
      %ab = arith.addi %a, %b : i32
      %abc = arith.addi %ab, %c : i32
      llvm.store %abc, %out : i32, !llvm.ptr
    }
    func.return
  }
}

// CHECK:       cutlass.async.exec
// CHECK-NEXT:    %[[T:.*]] = cutlass.tile_scheduler.mods_report_mainloop_start
// CHECK-NEXT:    %[[A:.*]] = cutlass.tile_scheduler.mods_report_smid : i32
// CHECK-NEXT:    cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
// CHECK-NEXT:    %[[C:.*]] = cutlass.tile_scheduler.mods_report_smid : i32
// CHECK-NEXT:    cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
// CHECK-NEXT:    %{{.*}} = cutlass.tile_scheduler.mods_report_mainloop_end %{{.*}}, %{{.*}}, %[[T]]
// CHECK-NEXT:    %[[AB:.*]] = arith.addi %[[A]], %[[A]] : i32
// CHECK-NEXT:    arith.addi %[[AB]], %[[C]] : i32
// CHECK-NOT:     mods_throttle {profile = 0
