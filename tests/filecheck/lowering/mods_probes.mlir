// RUN: tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm | filecheck %s
// MODS probes (seed 004 "Lowering"): start = cluster arrive (+ globaltimer when the stamp is
// used); end = cp.async.bulk.wait_group 0 drain, then cluster wait (+ second globaltimer and a
// subtraction when the elapsed time is used); smid = one special-register read.
// Every CTA arrives (barrier.cluster counts all threads); the participant bit picks release vs
// relaxed.  2-CTA MMA: participant index = %cluster_ctarank >> 1 (one bit per cluster half).
// The kernels declare their block size, so the executor regions visibly cover the whole CTA
// (mods_errors.mlir: otherwise the .aligned cluster barrier is a located error).

builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func private @record(i32, i64)
  func.func @two_cta(%sched: !cutlass.tile_scheduler<streamk>) attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
    %mask = arith.constant 3 : i64
    cutlass.async.exec warpgroup mask(1) {
      %t = cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64 -> i64
      %smid = cutlass.tile_scheduler.mods_report_smid : i32
      %e = cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask, %t {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64, i64 -> i64
      func.call @record(%smid, %e) : (i32, i64) -> ()
    }
    func.return
  }
}
// CHECK-LABEL: func.func @two_cta
// CHECK:      %[[MASK:.*]] = arith.constant 3 : i64
// CHECK:      scf.if
// CHECK:      %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[HALF:.*]] = llvm.lshr %[[RANK]], %[[ONE]] : i32
// CHECK-NEXT: %[[HALF64:.*]] = llvm.zext %[[HALF]] : i32 to i64
// CHECK-NEXT: %[[SH:.*]] = llvm.lshr %[[MASK]], %[[HALF64]] : i64
// CHECK-NEXT: %[[B1:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: %[[BIT:.*]] = llvm.and %[[SH]], %[[B1]] : i64
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: %[[P:.*]] = llvm.icmp "ne" %[[BIT]], %[[Z]] : i64
// CHECK-NEXT: scf.if %[[P]] {
// CHECK-NEXT:   nvvm.cluster.arrive aligned
// CHECK-NEXT: } else {
// CHECK-NEXT:   nvvm.cluster.arrive.relaxed aligned
// CHECK-NEXT: }
// CHECK-NEXT: %[[T0:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: %[[SMID:.*]] = nvvm.read.ptx.sreg.smid : i32
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK-NEXT: %[[T1:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: %[[EL:.*]] = llvm.sub %[[T1]], %[[T0]] : i64
// CHECK-NEXT: func.call @record(%[[SMID]], %[[EL]])
// CHECK-NOT:  cutlass.tile_scheduler

// -----

// 1-CTA MMA: one bit per CTA (index = %cluster_ctarank, no shift); without a timestamp result
// and without an elapsed result no globaltimer is read.
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @one_cta(%sched: !cutlass.tile_scheduler<streamk>, %mask: i32) attributes {nvvm.reqntid = array<i32: 32, 1, 1>} {
    cutlass.async.exec warp mask(1) {
      cutlass.tile_scheduler.mods_report_mainloop_start %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
      cutlass.tile_scheduler.mods_report_mainloop_end %sched, %mask : !cutlass.tile_scheduler<streamk>, i32 -> ()
    }
    func.return
  }
}
// CHECK-LABEL: func.func @one_cta
// CHECK-SAME:  %[[M:[a-z0-9_]+]]: i32
// CHECK:      %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %[[SH:.*]] = llvm.lshr %[[M]], %[[RANK]] : i32
// CHECK-NEXT: %[[B1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: llvm.and %[[SH]], %[[B1]] : i32
// CHECK:      nvvm.cluster.arrive aligned
// CHECK:      nvvm.cluster.arrive.relaxed aligned
// CHECK-NOT:  globaltimer
// CHECK:      nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK-NOT:  globaltimer
// CHECK:      func.return
