// Executor masks that must verify: upper-half thread masks (unsigned), cross-kind nesting,
// nested switches that partition their arm, setmaxnreg on whole warp groups.
// RUN: tileorch-opt %s | filecheck %s

func.func @f() attributes {nvvm.maxntid = array<i32: 384, 1, 1>} {
  cutlass.async.exec warp mask(0x3) {
    cutlass.async.exec thread mask(0xffffffff00000000) {}
  }
  cutlass.async.exec warpgroup mask(0x2) {
    cutlass.async.exec warp mask(0x10) {}
  }
  cutlass.async.exec warp mask(0xf0) regs(40) {}
  cutlass.async.exec warpgroup mask(0x4) regs(232) {}
  cutlass.async.exec warp mask(0xfff) {
    cutlass.pipeline.switch_by_executor case masks(0xf) {
      cutlass.pipeline.switch_by_executor case masks(0x1) {} case masks(0xe) {}
    } case masks(0xff0) {
      cutlass.async.exec warp mask(0x30) {}
    }
  }
  cutlass.async.exec cta mask(0x1) threads(384) {
    cutlass.async.exec warpgroup mask(0x7) {}
  }
  func.return
}
// CHECK: cutlass.async.exec thread mask(0xffffffff00000000) {}
// CHECK: cutlass.async.exec warp mask(0x10) {}
// CHECK: cutlass.async.exec warp mask(0xf0) regs(40) {}
// CHECK: cutlass.pipeline.switch_by_executor case masks(0x1) {} case masks(0xe) {}
// CHECK: cutlass.async.exec warpgroup mask(0x7) {}

// -----

// regs(N) within what the CTA starts with: CUTLASS's 40 + 2 x 232 = 3 x 168, and 24 + 4 x 112 <= 5 x 96.
func.func @budget3() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
  cutlass.async.exec warpgroup mask(0x1) regs(40) {}
  cutlass.async.exec warpgroup mask(0x6) regs(232) {}
  func.return
}
func.func @budget5() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 640, 1, 1>, nvvm.minctasm = 1 : i32} {
  cutlass.async.exec warpgroup mask(0x1) regs(24) {}
  cutlass.async.exec warpgroup mask(0x1e) regs(112) {}
  func.return
}
// CHECK-LABEL: func.func @budget3
// CHECK: cutlass.async.exec warpgroup mask(0x6) regs(232)
// CHECK-LABEL: func.func @budget5
// CHECK: cutlass.async.exec warpgroup mask(0x1e) regs(112)
