// The warp groups' regs(N) (setmaxnreg) must fit in the registers the CTA starts with: a CTA of T threads
// starts each thread with at most 64 Ki / T registers (in units of 8), and an increase waits for registers
// other warp groups gave back.  A split past it hangs on the GPU (sweep 6's 256-row attention tile did).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Four consumer warp groups of 120 beside a producer of 24: 504 > 5 x 96.
func.func @k() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 640, 1, 1>, nvvm.minctasm = 1 : i32} {
  cutlass.async.exec warpgroup mask(0x1) regs(24) {}
  cutlass.async.exec warpgroup mask(0x1e) regs(120) {}
  func.return
}
// CHECK: verify_register_budget.mlir:8:3: error: cutlass.async.exec: the warp groups' regs(N) need 24 (warp group 0) + 120 (warp group 1) + 120 (warp group 2) + 120 (warp group 3) + 120 (warp group 4) = 504 registers per lane slot, more than the 5 x 96 = 480 they start with (a CTA of 640 threads, nvvm.maxntid, starts each thread with at most 96 of the SM's 64 Ki): setmaxnreg.inc would wait forever; lower the regs(N)

// -----

// Two consumer warp groups of 240 beside a producer of 32: 512 > 3 x 168 (40 + 2 x 232 = 504 fits).
func.func @k() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
  cutlass.async.exec warpgroup mask(0x1) regs(32) {}
  cutlass.async.exec warpgroup mask(0x2) regs(240) {}
  cutlass.async.exec warpgroup mask(0x4) regs(240) {}
  func.return
}
// CHECK: error: cutlass.async.exec: the warp groups' regs(N) need 32 (warp group 0) + 240 (warp group 1) + 240 (warp group 2) = 512 registers per lane slot, more than the 3 x 168 = 504 they start with

// -----

// A warp group under two executors takes the larger count: 24 + 2 x 248 > 3 x 168.
func.func @k() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
  cutlass.async.exec warpgroup mask(0x1) regs(24) {}
  cutlass.async.exec warpgroup mask(0x6) regs(200) {}
  cutlass.async.exec warpgroup mask(0x6) regs(248) {}
  func.return
}
// CHECK: error: cutlass.async.exec: the warp groups' regs(N) need 24 (warp group 0) + 248 (warp group 1) + 248 (warp group 2) = 520 registers per lane slot, more than the 3 x 168 = 504 they start with

// -----

// Two CTAs per SM (nvvm.minctasm 2) share the registers: a CTA of 384 threads starts with at most 80 a thread.
func.func @k() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 2 : i32} {
  cutlass.async.exec warpgroup mask(0x1) regs(40) {}
  cutlass.async.exec warpgroup mask(0x6) regs(232) {}
  func.return
}
// CHECK: error: cutlass.async.exec: the warp groups' regs(N) need 40 (warp group 0) + 232 (warp group 1) + 232 (warp group 2) = 504 registers per lane slot, more than the 3 x 80 = 240 they start with (a CTA of 384 threads, nvvm.maxntid, 2 per SM (nvvm.minctasm), starts each thread with at most 80 of the SM's 64 Ki)
