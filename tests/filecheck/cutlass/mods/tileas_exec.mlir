// Seed 004 invariant: the MODS ops live inside nv_tileas.async.exec regions (as well as in
// cutlass.async.exec).  They verify there, survive custom and generic round trips, and
// convert-pipeline-to-nvvm lowers them there like in a cutlass.async.exec.
// RUN: tileorch-opt %s --split-input-file --allow-unregistered-dialect | filecheck %s
// RUN: tileorch-opt %s --split-input-file --allow-unregistered-dialect --print-op-generic | tileorch-opt --split-input-file --allow-unregistered-dialect | filecheck %s
// RUN: tileorch-opt %s --split-input-file --allow-unregistered-dialect | tileorch-opt --split-input-file --allow-unregistered-dialect | filecheck %s
// RUN: tileorch-opt %s --split-input-file --allow-unregistered-dialect -p convert-pipeline-to-nvvm | filecheck %s --check-prefix=LOWER

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @tileas_window(%sched: !cutlass.tile_scheduler<streamk>) attributes {nvvm.maxntid = array<i32: 256, 1, 1>} {
    %mask = arith.constant 3 : i32
    nv_tileas.async.exec "warpgroup" mask = 3 : i64 {
      %t0 = cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> i64
      %smid = cutlass.tile_scheduler.mods_report_smid : i32
      cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
      cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
      %dt = cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask, %t0 : !cutlass.tile_scheduler<streamk>, i32, i64 -> i64
      "test.use"(%smid, %dt) : (i32, i64) -> ()
      nv_tileas.async.pipeline.yield
    }
    func.return
  }
}
// CHECK-LABEL: func.func @tileas_window
// CHECK:       nv_tileas.async.exec "warpgroup" mask = 3 : i64 {
// CHECK-NEXT:    %[[T:.*]] = cutlass.tile_scheduler.mods_report_mainloop_start %{{.*}}, %{{.*}} : !cutlass.tile_scheduler<streamk>, i32 -> i64
// CHECK-NEXT:    cutlass.tile_scheduler.mods_report_smid : i32
// CHECK-NEXT:    cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
// CHECK-NEXT:    cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
// CHECK-NEXT:    cutlass.tile_scheduler.mods_report_mainloop_end %{{.*}}, %{{.*}}, %[[T]] : !cutlass.tile_scheduler<streamk>, i32, i64 -> i64

// LOWER-LABEL: func.func @tileas_window
// LOWER-NOT:   nv_tileas.async.exec
// LOWER:       nvvm.read.ptx.sreg.cluster.ctarank
// LOWER:       nvvm.cluster.arrive aligned
// LOWER:       nvvm.cluster.arrive.relaxed aligned
// LOWER:       nvvm.read.ptx.sreg.globaltimer
// LOWER:       nvvm.read.ptx.sreg.smid
// LOWER:       nvvm.nanosleep
// LOWER:       nvvm.cp.async.bulk.wait_group 0
// LOWER-NEXT:  nvvm.cluster.wait aligned
// LOWER-NOT:   cutlass.tile_scheduler.mods

// -----

// Inside an agent of an agent_switch nested in an nv_tileas.async.exec (smid: no window needed).
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @in_agent() {
    nv_tileas.async.exec "warp" mask = 15 : i64 {
      nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 1, 3>, warp_id = array<i32: 0, 1>, agent_strides = array<i32: 0, 0>} {
        %smid = cutlass.tile_scheduler.mods_report_smid : i32
        "test.use"(%smid) : (i32) -> ()
        nv_tileas.async.pipeline.yield
      } {
        cutlass.tile_scheduler.mods_throttle {profile = 0 : i32}
        nv_tileas.async.pipeline.yield
      }
      nv_tileas.async.pipeline.yield
    }
    func.return
  }
}
// CHECK-LABEL: func.func @in_agent
// CHECK:       nv_tileas.async.pipeline.agent_switch
// CHECK-NEXT:    cutlass.tile_scheduler.mods_report_smid : i32
// CHECK:         cutlass.tile_scheduler.mods_throttle {profile = 0 : i32}
// LOWER-LABEL: func.func @in_agent
// LOWER:       nvvm.read.ptx.sreg.smid
// LOWER-NOT:   mods_throttle
