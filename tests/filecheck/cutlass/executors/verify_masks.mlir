// Executor masks name units that exist in the CTA and lie inside the enclosing executor set.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  cutlass.async.exec warp mask(0x100000000) {}
  func.return
}
// CHECK: verify_masks.mlir:5:3: error: cutlass.async.exec: warp mask 0x100000000 names warp 32, but a CTA has at most 32 warps (1024 threads)

// -----

func.func @f() {
  cutlass.async.exec warpgroup mask(0x100) {}
  func.return
}
// CHECK: error: cutlass.async.exec: warpgroup mask 0x100 names warpgroup 8, but a CTA has at most 8 warp groups (1024 threads)

// -----

func.func @f() {
  cutlass.async.exec warp mask(0xffffffffffffffff) {}
  func.return
}
// CHECK: error: cutlass.async.exec: warp mask 0xffffffffffffffff names warp 63, but a CTA has at most 32 warps

// -----

func.func @f() attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
  cutlass.async.exec warp mask(0x10) {}
  func.return
}
// CHECK: error: cutlass.async.exec: warp mask 0x10 names warp 4 (threads up to 159), but the CTA has 128 threads (the kernel's nvvm.maxntid)

// -----

func.func @f() attributes {nvvm.reqntid = array<i32: 16, 2, 1>} {
  cutlass.async.exec thread mask(0x8000000000000000) {}
  func.return
}
// CHECK: error: cutlass.async.exec: thread mask 0x8000000000000000 names thread 63 (threads up to 63), but the CTA has 32 threads (the kernel's nvvm.reqntid)

// -----

func.func @f() {
  cutlass.async.exec cta mask(0x1) threads(0) {}
  func.return
}
// CHECK: error: cutlass.async.exec: threads(0) must be in [1, 1024] (threads per CTA)

// -----

func.func @f() {
  cutlass.async.exec cta mask(0x1) threads(2048) {}
  func.return
}
// CHECK: error: cutlass.async.exec: threads(2048) must be in [1, 1024] (threads per CTA)

// -----

func.func @f() {
  cutlass.async.exec cta mask(0x1) threads(-128) {}
  func.return
}
// CHECK: error: cutlass.async.exec: threads(-128) must be in [1, 1024] (threads per CTA)

// -----

func.func @f() attributes {nvvm.maxntid = array<i32: 256, 1, 1>} {
  cutlass.async.exec cta mask(0x1) threads(384) {}
  func.return
}
// CHECK: error: cutlass.async.exec: threads(384) is more than the 256 threads of the kernel's nvvm.maxntid

// -----

func.func @f() {
  cutlass.async.exec cta mask(0x1) threads(4294967296) {}
  func.return
}
// CHECK: verify_masks.mlir:[[# @LINE - 3]]:44: error: Integer value 4294967296 is out of range for type i32

// -----

func.func @f() {
  cutlass.async.exec warp mask(18446744073709551616) {}
  func.return
}
// CHECK: verify_masks.mlir:[[# @LINE - 3]]:32: error: Integer value 18446744073709551616 is out of range for type i64

// -----

func.func @f() {
  cutlass.async.exec cta mask(0x1) threads(128) {
    cutlass.async.exec warp mask(0x10) {}
  }
  func.return
}
// CHECK: error: cutlass.async.exec: warp mask 0x10 names warp 4 (threads up to 159), but the CTA has 128 threads (threads(128) of the enclosing cta executor)

// -----

// Nested executors of another kind: warp 0 is not in warp group 1.
func.func @f() {
  cutlass.async.exec warpgroup mask(0x2) {
    cutlass.async.exec warp mask(0x1) {}
  }
  func.return
}
// CHECK: error: cutlass.async.exec: warp mask 0x1 (threads 0..31) runs threads outside the enclosing warpgroup executor (mask 0x2), which covers threads 128..255

// -----

func.func @f() {
  cutlass.async.exec warp mask(0x2) {
    cutlass.async.exec thread mask(0x1) {}
  }
  func.return
}
// CHECK: error: cutlass.async.exec: thread mask 0x1 (threads 0..0) runs threads outside the enclosing warp executor (mask 0x2), which covers threads 32..63

// -----

// The upper 32 lanes of a 64-bit thread mask are threads 32..63 (warp 1), not a negative number.
func.func @f() {
  cutlass.async.exec warp mask(0x1) {
    cutlass.async.exec thread mask(0xffffffff00000000) {}
  }
  func.return
}
// CHECK: error: cutlass.async.exec: thread mask 0xffffffff00000000 (threads 32..63) runs threads outside the enclosing warp executor (mask 0x1), which covers threads 0..31

// -----

func.func @f() {
  cutlass.async.exec cta mask(0x1) threads(256) {
    cutlass.async.exec warpgroup mask(0x3) {
      cutlass.async.exec warpgroup mask(0x4) {}
    }
  }
  func.return
}
// CHECK: error: cutlass.async.exec: warpgroup mask 0x4 names warpgroup 2 (threads up to 383), but the CTA has 256 threads

// -----

// setmaxnreg is executed by whole warp groups.
func.func @f() {
  cutlass.async.exec warp mask(0x1) regs(40) {}
  func.return
}
// CHECK: error: cutlass.async.exec: regs(40) lowers to setmaxnreg, which every thread of a warp group executes together, but this warp executor (mask 0x1) covers only part of warp group 0; put regs(N) on a warpgroup (or cta) executor

// -----

func.func @f() {
  cutlass.async.exec thread mask(0xffffffffffffffff) regs(232) {}
  func.return
}
// CHECK: error: cutlass.async.exec: regs(232) lowers to setmaxnreg, {{.*}} this thread executor (mask 0xffffffffffffffff) covers only part of warp group 0

// -----

func.func @f() {
  cutlass.async.exec warp mask(0x1e) regs(232) {}
  func.return
}
// CHECK: error: cutlass.async.exec: regs(232) lowers to setmaxnreg, {{.*}} warp executor (mask 0x1e) covers only part of warp group 0

// -----

func.func @f() {
  cutlass.async.exec warp mask(0xf) regs(4294967296) {}
  func.return
}
// CHECK: error: Integer value 4294967296 is out of range for type i32

// -----

// A nested switch partitions exactly its enclosing arm.
func.func @f() {
  cutlass.async.exec warp mask(0xf) {
    cutlass.pipeline.switch_by_executor case masks(0x3) {
      cutlass.pipeline.switch_by_executor case masks(0x1) {}
    } case masks(0xc) {}
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: the union of the masks (0x1) must equal the units of arm 0 of the enclosing switch_by_executor (warp mask 0x3); a nested switch partitions exactly its enclosing executor set

// -----

func.func @f() {
  cutlass.async.exec warp mask(0xf) {
    cutlass.pipeline.switch_by_executor case masks(0x3) {
      cutlass.pipeline.switch_by_executor case masks(0x1) {} case masks(0x6) {}
    } case masks(0xc) {}
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: the union of the masks (0x7) must equal the units of arm 0

// -----

// An executor nested in a switch arm runs inside that arm's units.
func.func @f() {
  cutlass.async.exec warp mask(0xf) {
    cutlass.pipeline.switch_by_executor case masks(0x3) {
      cutlass.async.exec warp mask(0x4) {}
    } case masks(0xc) {}
  }
  func.return
}
// CHECK: error: cutlass.async.exec: warp mask 0x4 (threads 64..95) runs threads outside arm 0 of the enclosing switch_by_executor (warp mask 0x3), which covers threads 0..63
