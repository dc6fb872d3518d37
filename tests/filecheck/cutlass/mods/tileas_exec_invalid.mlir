// Seed 004 invariant "the four MODS ops appear only inside nv_tileas.async.exec regions, never at
// module or kernel scope": where they are still rejected now that nv_tileas.async.exec is accepted.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Module scope.
builtin.module {
  %smid = cutlass.tile_scheduler.mods_report_smid : i32
}
// CHECK: tileas_exec_invalid.mlir:7:{{[0-9]+}}: error: cutlass.tile_scheduler.mods_report_smid must be nested in an nv_tileas.async.exec or cutlass.async.exec region (MODS ops never appear at module or kernel scope)

// -----

// Kernel scope: the body of an nv_tileas.kernel, outside any executor region.
"nv_tileas.kernel"() <{sym_name = "k", function_type = () -> ()}> ({
  cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
  nv_tileas.async.pipeline.yield
}) : () -> ()
// CHECK: tileas_exec_invalid.mlir:15:{{[0-9]+}}: error: cutlass.tile_scheduler.mods_throttle must be nested in an nv_tileas.async.exec or cutlass.async.exec region

// -----

// An agent of an agent_switch is not an executor region by itself.
func.func @agent_without_exec() {
  nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4>, warp_id = array<i32: 0>, agent_strides = array<i32: 0>} {
    %smid = cutlass.tile_scheduler.mods_report_smid : i32
    nv_tileas.async.pipeline.yield
  }
  func.return
}
// CHECK: tileas_exec_invalid.mlir:25:{{[0-9]+}}: error: cutlass.tile_scheduler.mods_report_smid must be nested in an nv_tileas.async.exec or cutlass.async.exec region

// -----

// The pair is scoped to one async region: a start in one nv_tileas.async.exec cannot be closed
// by an end in another.
func.func @pair_across_regions(%s: !cutlass.tile_scheduler<streamk>, %p: i64) {
  nv_tileas.async.exec "warp" mask = 1 : i64 {
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    nv_tileas.async.pipeline.yield
  }
  nv_tileas.async.exec "warp" mask = 1 : i64 {
    cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    nv_tileas.async.pipeline.yield
  }
  func.return
}
// CHECK: tileas_exec_invalid.mlir:38:{{[0-9]+}}: error: mods_report_mainloop_start has no matching mods_report_mainloop_end after it in the same block of its nv_tileas.async.exec region (each start needs exactly one end)

// -----

func.func @end_in_nested_region(%s: !cutlass.tile_scheduler<streamk>, %p: i64, %c: i1) {
  nv_tileas.async.exec "warpgroup" mask = 1 : i64 {
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    scf.if %c {
      cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    }
    nv_tileas.async.pipeline.yield
  }
  func.return
}
// CHECK: tileas_exec_invalid.mlir:53:{{[0-9]+}}: error: the mods_report_mainloop_end after this start is in a nested region: the pair must share one block of the nv_tileas.async.exec region

// -----

// Cluster-aware throttle profile outside the window, in an nv_tileas.async.exec.
func.func @throttle_outside_window(%s: !cutlass.tile_scheduler<streamk>, %p: i64) {
  nv_tileas.async.exec "warp" mask = 1 : i64 {
    cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    nv_tileas.async.pipeline.yield
  }
  func.return
}
// CHECK: tileas_exec_invalid.mlir:68:{{[0-9]+}}: error: mods_throttle profile 2 (cooperative cluster throttle) depends on cluster-wide state: place it between a matched mods_report_mainloop_start/end pair
