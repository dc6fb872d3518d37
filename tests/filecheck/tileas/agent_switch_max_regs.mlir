// RUN: tileorch-opt %s -p convert-pipeline-to-nvvm | filecheck %s
// max_regs becomes setmaxnreg where the agents of a warpgroup agree on it: the 4-warp consumer
// (warps 0-3) increases to 232; warps 4-7 are the 1-warp producer, a 1-warp agent and a
// 2-warp hole, all at 40, so each (the hole too) decreases to 40.  Agents sharing warpgroup 2
// with different counts (warps 8-9 vs 10-11) keep their registers.
builtin.module {
  func.func @k(%n1: i32, %n2: i32, %n3: i32, %n5: i32, %n6: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>} {
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 1, 1, 2, 2, 2>, warp_id = array<i32: 0, 4, 5, 6, 8, 10>, agent_strides = array<i32: 0, 0, 0, 0, 0, 0>, max_regs = array<i32: 232, 40, 40, 40, 64, 80>} {
      nvvm.nanosleep %n1
      nv_tileas.async.pipeline.yield
    } {
      nvvm.nanosleep %n2
      nv_tileas.async.pipeline.yield
    } {
      nvvm.nanosleep %n3
      nv_tileas.async.pipeline.yield
    } {
    } {
      nvvm.nanosleep %n5
      nv_tileas.async.pipeline.yield
    } {
      nvvm.nanosleep %n6
      nv_tileas.async.pipeline.yield
    }
    func.return
  }
}
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK-NEXT: nvvm.nanosleep %n1
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK-NEXT: nvvm.nanosleep %n2
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK-NEXT: nvvm.nanosleep %n3
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK-NEXT: }
// CHECK: scf.if
// CHECK-NEXT: nvvm.nanosleep %n5
// CHECK: scf.if
// CHECK-NEXT: nvvm.nanosleep %n6
