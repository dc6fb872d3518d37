// RUN: not tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm 2>&1 | filecheck %s
// The MODS probes lower to barrier.cluster.arrive/wait.aligned, which every non-exited thread of
// the cluster must execute (PTX ISA, barrier.cluster), and throttle profile 2 to the CTA-wide
// bar.sync 0: where an executor region may not cover the whole CTA they are located errors (a
// launch with threads outside the region would hang in the cluster barrier).

// The shape of examples/mods_mainloop.mlir before its fix: warp group 0 only, no declared block size.
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @no_block_size(%sched: !cutlass.tile_scheduler<streamk>, %mask: i64) attributes {nvvm.kernel} {
    cutlass.async.exec warpgroup mask(1) {
      cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<streamk>, i64 -> ()
      cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask : !cutlass.tile_scheduler<streamk>, i64 -> ()
    }
    func.return
  }
}
// CHECK: mods_errors.mlir:[[# @LINE - 6]]:7: error: cutlass.tile_scheduler.mods_report_mainloop_start lowers to barrier.cluster.arrive.aligned, which every thread of the CTA must execute, but its executor region may not cover the whole CTA; run it in a `cutlass.async.exec cta` region, or declare the kernel's block size (nvvm.reqntid or nvvm.maxntid)

// -----

// 256 threads, warp group 0 only: threads 128..255 never reach the cluster barrier.
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @half_cta(%sched: !cutlass.tile_scheduler<streamk>, %mask: i32) attributes {nvvm.maxntid = array<i32: 256, 1, 1>} {
    cutlass.async.exec warpgroup mask(1) {
      cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
      cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
    }
    func.return
  }
}
// CHECK: mods_errors.mlir:[[# @LINE - 6]]:7: error: cutlass.tile_scheduler.mods_report_mainloop_start lowers to barrier.cluster.arrive.aligned

// -----

// Throttle profile 2 in one arm of an executor switch (the window itself covers the 64-thread CTA):
// the .aligned cluster-barrier wait/arrive from warp 0 alone would never complete the phase.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @partial_throttle(%sched: !cutlass.tile_scheduler<streamk>, %mask: i32) attributes {nvvm.maxntid = array<i32: 64, 1, 1>} {
    cutlass.async.exec warp mask(3) {
      cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
      cutlass.pipeline.switch_by_executor case masks(1) {
        cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
      } case masks(2) {
      }
      cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
    }
    func.return
  }
}
// CHECK: mods_errors.mlir:[[# @LINE - 8]]:9: error: cutlass.tile_scheduler.mods_throttle lowers to barrier.cluster.wait.aligned and barrier.cluster.arrive.aligned (a participation point in the MODS cluster barrier), which every thread of the CTA must execute
