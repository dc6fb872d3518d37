// REQUIRES: ptxas
// MODS throttle profile 2 (seed 004: "a participation point in a per-cluster barrier whose count
// adapts to current hardware queue pressure measured at runtime") in an nv_tileas.async.exec, down
// to PTX accepted by ptxas -arch=sm_90a: the start probe's arrive opens the cluster-barrier phase,
// the throttle waits for the whole cluster (timed with %globaltimer), re-arrives, and sleeps the
// measured lag capped at 1000 ns (a register operand of nanosleep); the end probe drains and waits.
// RUN: tileorch compile %s --arch sm_90a -o %t.ptx
// RUN: filecheck %s < %t.ptx
// CHECK-LABEL: .entry throttle2(
// CHECK:       .reqnctapercluster 2, 1, 1
// CHECK:       barrier.cluster.arrive.aligned;
// CHECK:       barrier.cluster.arrive.relaxed.aligned;
// throttle:
// CHECK:       mov.u64 [[T0:%rd[0-9]+]], %globaltimer;
// CHECK-NEXT:  barrier.cluster.wait.aligned;
// CHECK-NEXT:  mov.u64 [[T1:%rd[0-9]+]], %globaltimer;
// CHECK-NEXT:  sub.s64 [[LAG:%rd[0-9]+]], [[T1]], [[T0]];
// CHECK-NEXT:  barrier.cluster.arrive.aligned;
// CHECK-NEXT:  min.u64 [[MIN:%rd[0-9]+]], [[LAG]], 1000;
// CHECK-NEXT:  cvt.u32.u64 [[NS:%r[0-9]+]], [[MIN]];
// CHECK-NEXT:  nanosleep.u32 [[NS]];
// end probe:
// CHECK-NEXT:  cp.async.bulk.wait_group 0;
// CHECK-NEXT:  barrier.cluster.wait.aligned;
// CHECK-NOT:   bar.sync
// CHECK:       ret;

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @throttle2(%sched: !cutlass.tile_scheduler<streamk>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %mask = arith.constant 3 : i32
    nv_tileas.async.exec "warpgroup" mask = 1 : i64 {
      cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
      cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
      cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
      nv_tileas.async.pipeline.yield
    }
    func.return
  }
}
