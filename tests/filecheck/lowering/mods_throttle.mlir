// RUN: tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm | filecheck %s
// mods_throttle (seed 004): profile 0 is dropped, profile 1 is a fixed nanosleep (1000 ns, see
// THROTTLE_SLEEP_NS in pipeline_to_nvvm/mods.py), profile 2 the CTA-wide bar.sync 0 (no thread
// count: id 0 is also the barrier-init sync, so it is only ever used by the whole CTA; warp group
// mask 0b111 covers the 384 threads of the kernel's nvvm.maxntid).

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
// CHECK-NEXT: nvvm.barrier{{$}}
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT:  mods_throttle

// -----

// A whole-CTA executor region: the cooperative throttle is bar.sync 0 over the CTA.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @cta(%sched: !cutlass.tile_scheduler<streamk>) {
    %mask = arith.constant 1 : i32
    cutlass.async.exec cta mask(1) threads(384) {
      cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
      cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
      cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
    }
    func.return
  }
}
// CHECK-LABEL: func.func @cta
// CHECK:      nvvm.cluster.arrive.relaxed aligned
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier{{$}}
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0

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
