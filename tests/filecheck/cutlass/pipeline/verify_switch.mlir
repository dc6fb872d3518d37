// cutlass.pipeline.switch_by_executor verifier: one rule per split.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  cutlass.async.exec warp mask(0x3) {
    cutlass.pipeline.switch_by_executor
  }
  func.return
}
// CHECK: verify_switch.mlir:6:5: error: cutlass.pipeline.switch_by_executor: needs at least one mask and one arm, found 0 mask(s) and 0 arm(s)

// -----

func.func @f() {
  cutlass.async.exec warp mask(0x7) {
    "cutlass.pipeline.switch_by_executor"() <{masks = array<i64: 1, 2, 4>}> ({
    ^bb0:
    }, {
    ^bb0:
    }) : () -> ()
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: the number of masks (3) must be divisible by the number of arms (2)

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  cutlass.async.exec warp mask(0x3) {
    "cutlass.pipeline.switch_by_executor"(%pipe) <{masks = array<i64: 1, 2>}> ({
    ^bb0(%a: !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>):
    }, {
    ^bb0:
    }) : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1>) -> ()
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: the number of pipeline operands (1) must be divisible by the number of arms (2), one operand group per arm

// -----

func.func @f() {
  cutlass.async.exec warp mask(0x3) {
    cutlass.pipeline.switch_by_executor case masks(0x3) {} case masks(0x0) {}
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: mask 1 is empty (0); every arm must run on some executor unit

// -----

func.func @f() {
  cutlass.async.exec warp mask(0x7) {
    cutlass.pipeline.switch_by_executor case masks(0x5) {} case masks(0x2) {}
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: mask 0 (0x5) is not contiguous; an arm's units must form one run of set bits

// -----

func.func @f() {
  cutlass.async.exec warp mask(0x7) {
    cutlass.pipeline.switch_by_executor case masks(0x3) {} case masks(0x6) {}
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: masks 0 (0x3) and 1 (0x6) overlap in 0x2; each executor unit belongs to one arm

// -----

func.func @f() {
  cutlass.pipeline.switch_by_executor case masks(0x1) {} case masks(0x2) {}
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: must be nested in a cutlass.async.exec (the executor set it partitions)

// -----

func.func @f() {
  cutlass.async.exec warp mask(0xf) {
    cutlass.pipeline.switch_by_executor case masks(0x1) {} case masks(0x2) {}
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: the union of the masks (0x3) must equal the enclosing cutlass.async.exec mask (0xf)

// -----

func.func @f(%p: !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>) {
  cutlass.async.exec warp mask(0x3) {
    cutlass.pipeline.switch_by_executor case masks(0x1) args(%a = %p) {} case masks(0x2) args(%b = %p) {}
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: operand 0 must be a pipeline defined by cutlass.pipeline.create (or its cutlass.pipeline.init), found a value defined by a block argument

// -----

func.func @f(%x: i32) {
  cutlass.async.exec warp mask(0x3) {
    cutlass.pipeline.switch_by_executor case masks(0x1) args(%a = %x) {} case masks(0x2) args(%b = %x) {}
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: expected the operand 0 to be a !cutlass.pipeline, found i32

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %q = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
  cutlass.async.exec warp mask(0x3) {
    cutlass.pipeline.switch_by_executor case masks(0x1) args(%a = %p) {} case masks(0x2) args(%b = %q) {}
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: arm 1 operand 0 has 1 producer(s) and 2 consumer(s) but arm 0 has 1 and 1; the counts must match across arms

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  cutlass.async.exec warp mask(0x1) {
    "cutlass.pipeline.switch_by_executor"(%p) <{masks = array<i64: 1>}> ({
    ^bb0:
    }) : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1>) -> ()
  }
  func.return
}
// CHECK: error: cutlass.pipeline.switch_by_executor: arm 0 block arguments must match its operand group (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1>), found (none)
