// RUN: tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm | filecheck %s
// mods_throttle (seed 004): profile 0 is dropped, profile 1 is a fixed nanosleep (1000 ns, see
// THROTTLE_SLEEP_NS in pipeline_to_nvvm/mods.py), profile 2 the cooperative cluster throttle: a
// participation point in the MODS cluster barrier (wait closes the phase the start probe opened,
// arrive opens the one the end probe closes), the wait timed with %globaltimer and the measured
// lag, capped at 1000 ns, slept off (warp group mask 0b111 covers the 384 threads of the
// kernel's nvvm.maxntid, as the .aligned cluster barrier needs).

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @profiles(%sched: !cutlass.tile_scheduler<streamk>) attributes {nvvm.maxntid = array<i32: 384, 1, 1>} {
    %mask = arith.constant 1 : i32
    cutlass.async.exec warpgroup mask(7) {
      cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
      cutlass.tile_scheduler.mods_throttle {profile = 0 : i32}
      cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
      cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
      cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
    }
    func.return
  }
}
// CHECK-LABEL: func.func @profiles
// CHECK:      nvvm.cluster.arrive.relaxed aligned
// CHECK-NEXT: }
// profile 0: nothing; profile 1:
// CHECK-NEXT: %[[NS:.*]] = llvm.mlir.constant(1000 : i32) : i32
// CHECK-NEXT: nvvm.nanosleep %[[NS]]
// profile 2:
// CHECK-NEXT: %[[T0:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK-NEXT: %[[T1:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: %[[LAG:.*]] = llvm.sub %[[T1]], %[[T0]] : i64
// CHECK-NEXT: nvvm.cluster.arrive aligned
// CHECK-NEXT: %[[CAP:.*]] = llvm.mlir.constant(1000) : i64
// CHECK-NEXT: %[[LT:.*]] = llvm.icmp "ult" %[[LAG]], %[[CAP]] : i64
// CHECK-NEXT: %[[MIN:.*]] = llvm.select %[[LT]], %[[LAG]], %[[CAP]] : i1, i64
// CHECK-NEXT: %[[NS2:.*]] = llvm.trunc %[[MIN]] : i64 to i32
// CHECK-NEXT: nvvm.nanosleep %[[NS2]]
// then the end probe:
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK-NOT:  mods_throttle
// CHECK-NOT:  nvvm.barrier

// -----

// A whole-CTA executor region; two profile-2 points in a row: wait/arrive keep alternating
// (start: arrive; each throttle: wait, arrive; end: wait), no CTA-local bar.sync.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @cta(%sched: !cutlass.tile_scheduler<streamk>) {
    %mask = arith.constant 1 : i32
    cutlass.async.exec cta mask(1) threads(384) {
      cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
      cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
      cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
      cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
    }
    func.return
  }
}
// CHECK-LABEL: func.func @cta
// CHECK:      nvvm.cluster.arrive.relaxed aligned
// CHECK-NEXT: }
// CHECK-NOT:  nvvm.barrier
// CHECK:      nvvm.cluster.wait aligned
// CHECK-NOT:  nvvm.cluster.wait
// CHECK:      nvvm.cluster.arrive aligned
// CHECK:      nvvm.nanosleep
// CHECK-NOT:  nvvm.cluster.arrive
// CHECK:      nvvm.cluster.wait aligned
// CHECK-NOT:  nvvm.cluster.wait
// CHECK:      nvvm.cluster.arrive aligned
// CHECK:      nvvm.nanosleep
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK-NOT:  nvvm.barrier

// -----

// Profile 0 alone leaves no trace.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @noop() {
    cutlass.async.exec warp mask(1) {
      cutlass.tile_scheduler.mods_throttle {profile = 0 : i32}
    }
    func.return
  }
}
// CHECK-LABEL: func.func @noop
// CHECK-NOT:   nanosleep
// CHECK-NOT:   nvvm.barrier{{$}}
// CHECK:       func.return
