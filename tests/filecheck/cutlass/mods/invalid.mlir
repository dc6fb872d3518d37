// MODS verifier rules of seed 004 (1: matched pair, 2: window enclosure, 3: cluster shape
// coherence, placement inside cutlass.async.exec), one per split.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @start_outside_async(%s: !cutlass.tile_scheduler<streamk>, %p: i64) {
  cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
  cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
  func.return
}
// CHECK: invalid.mlir:6:{{[0-9]+}}: error: cutlass.tile_scheduler.mods_report_mainloop_start must be nested in an nv_tileas.async.exec or cutlass.async.exec region (MODS ops never appear at module or kernel scope)

// -----

func.func @smid_outside_async() {
  %smid = cutlass.tile_scheduler.mods_report_smid : i32
  func.return
}
// CHECK: error: cutlass.tile_scheduler.mods_report_smid must be nested in an nv_tileas.async.exec or cutlass.async.exec region

// -----

func.func @throttle_outside_async() {
  cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
  func.return
}
// CHECK: error: cutlass.tile_scheduler.mods_throttle must be nested in an nv_tileas.async.exec or cutlass.async.exec region

// -----

func.func @start_without_end(%s: !cutlass.tile_scheduler<streamk>, %p: i64) {
  cutlass.async.exec warp mask(1) {
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
  }
  func.return
}
// CHECK: error: mods_report_mainloop_start has no matching mods_report_mainloop_end after it in the same block of its cutlass.async.exec region (each start needs exactly one end)

// -----

func.func @end_without_start(%s: !cutlass.tile_scheduler<streamk>, %p: i64) {
  cutlass.async.exec warp mask(1) {
    cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
  }
  func.return
}
// CHECK: error: mods_report_mainloop_end has no matching mods_report_mainloop_start before it in the same block of its cutlass.async.exec region

// -----

func.func @probe_between(%s: !cutlass.tile_scheduler<streamk>, %p: i64) {
  cutlass.async.exec warp mask(1) {
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
  }
  func.return
}
// CHECK: invalid.mlir:52:{{[0-9]+}}: error: another mods_report_mainloop_start appears before this start's mods_report_mainloop_end: no other probe may lie between a matched start/end pair

// -----

func.func @two_ends(%s: !cutlass.tile_scheduler<streamk>, %p: i64) {
  cutlass.async.exec warp mask(1) {
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
  }
  func.return
}
// CHECK: invalid.mlir:66:{{[0-9]+}}: error: mods_report_mainloop_end follows another mods_report_mainloop_end: each mods_report_mainloop_start has exactly one end

// -----

func.func @end_in_nested_region(%s: !cutlass.tile_scheduler<streamk>, %p: i64, %c: i1) {
  cutlass.async.exec warp mask(1) {
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    scf.if %c {
      cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    }
  }
  func.return
}
// CHECK: invalid.mlir:76:{{[0-9]+}}: error: the mods_report_mainloop_end after this start is in a nested region: the pair must share one block of the cutlass.async.exec region

// -----

builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @two_cta_mismatch(%s: !cutlass.tile_scheduler<streamk>, %p: i64) {
    cutlass.async.exec warp mask(1) {
      cutlass.tile_scheduler.mods_report_mainloop_start %s, %p {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64 -> ()
      cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    }
    func.return
  }
}
// CHECK: error: is_2cta_mma mismatch: mods_report_mainloop_start has true, mods_report_mainloop_end has false

// -----

func.func @participants_mismatch(%s: !cutlass.tile_scheduler<streamk>, %p: i64, %q: i64) {
  cutlass.async.exec warp mask(1) {
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    cutlass.tile_scheduler.mods_report_mainloop_end %s, %q : !cutlass.tile_scheduler<streamk>, i64 -> ()
  }
  func.return
}
// CHECK: error: participant mask mismatch: mods_report_mainloop_start uses %p, mods_report_mainloop_end uses %q

// -----

func.func @timestamp_of_other_start(%s: !cutlass.tile_scheduler<streamk>, %p: i64, %t: i64) {
  cutlass.async.exec warp mask(1) {
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    cutlass.tile_scheduler.mods_report_mainloop_end %s, %p, %t : !cutlass.tile_scheduler<streamk>, i64, i64 -> ()
  }
  func.return
}
// CHECK: error: t_start must be the timestamp result of the paired mods_report_mainloop_start

// -----

func.func @throttle_outside_window(%s: !cutlass.tile_scheduler<streamk>, %p: i64) {
  cutlass.async.exec warp mask(1) {
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
  }
  func.return
}
// CHECK: invalid.mlir:126:{{[0-9]+}}: error: mods_throttle profile 2 (cooperative cluster throttle) depends on cluster-wide state: place it between a matched mods_report_mainloop_start/end pair

// -----

func.func @throttle_unknown_profile() {
  cutlass.async.exec warp mask(1) {
    cutlass.tile_scheduler.mods_throttle {profile = 3 : i32}
  }
  func.return
}
// CHECK: error: unknown throttle profile 3: expected 0 (no-op), 1 (fixed nanosleep) or 2 (cooperative cluster throttle)

// -----

// A 4x1 cluster with is_2cta_mma = false declares four participants (004 rule 3).
builtin.module attributes {cutlass.cluster_shape = array<i32: 4, 1, 1>} {
  func.func @mask_too_wide(%s: !cutlass.tile_scheduler<streamk>) {
    %p = arith.constant 31 : i64
    cutlass.async.exec warp mask(1) {
      cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
      cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    }
    func.return
  }
}
// CHECK: error: participant mask 0b11111 is wider than the 4 participants of cluster 4x1x1 (one bit per CTA; is_2cta_mma = false): expected a mask below 0b10000

// -----

// A 2x2 cluster with is_2cta_mma = true declares two participants (004 rule 3).
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @two_cta_halves(%s: !cutlass.tile_scheduler<streamk>) {
    %p = arith.constant 7 : i64
    cutlass.async.exec warp mask(1) {
      cutlass.tile_scheduler.mods_report_mainloop_start %s, %p {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64 -> ()
      cutlass.tile_scheduler.mods_report_mainloop_end %s, %p {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64 -> ()
    }
    func.return
  }
}
// CHECK: error: participant mask 0b111 is wider than the 2 participants of cluster 2x2x1 (one bit per cluster half; is_2cta_mma = true): expected a mask below 0b100

// -----

// Module without cutlass.cluster_shape = a 1x1x1 cluster: no CTA pair for 2-CTA MMA.
func.func @two_cta_odd_cluster(%s: !cutlass.tile_scheduler<streamk>) {
  %p = arith.constant 1 : i64
  cutlass.async.exec warp mask(1) {
    cutlass.tile_scheduler.mods_report_mainloop_start %s, %p {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64 -> ()
    cutlass.tile_scheduler.mods_report_mainloop_end %s, %p {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64 -> ()
  }
  func.return
}
// CHECK: error: is_2cta_mma = true needs an even number of CTAs per cluster, module cutlass.cluster_shape is 1x1x1

// -----

func.func @start_in_nested_region(%s: !cutlass.tile_scheduler<streamk>, %p: i64, %c: i1) {
  cutlass.async.exec warp mask(1) {
    scf.if %c {
      cutlass.tile_scheduler.mods_report_mainloop_start %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
    }
    cutlass.tile_scheduler.mods_report_mainloop_end %s, %p : !cutlass.tile_scheduler<streamk>, i64 -> ()
  }
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: the mods_report_mainloop_start before this end is in a nested region: the pair must share one block of the cutlass.async.exec region
