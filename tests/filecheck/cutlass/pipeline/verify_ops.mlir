// Verifier rules of the pipeline handshake, state, make_participants and async.exec ops
// (one per split), and the elided-barrier rules of tileiras-names.md.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = full>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.producer_commit %p, %s
  func.return
}
// CHECK: error: cutlass.pipeline.producer_commit: the pipeline elides its full barrier (elide = full), so this op has no barrier to use; remove the op or keep the full barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = full>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.consumer_wait %p, %s
  func.return
}
// CHECK: error: cutlass.pipeline.consumer_wait: the pipeline elides its full barrier (elide = full), so this op has no barrier to use; remove the op or keep the full barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = full>
  %s = cutlass.pipeline.state.create %p producer
  %t = cutlass.pipeline.consumer_try_wait %p, %s
  func.return
}
// CHECK: error: cutlass.pipeline.consumer_try_wait: the pipeline elides its full barrier (elide = full), so this op has no barrier to use; remove the op or keep the full barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = full>
  %s = cutlass.pipeline.state.create %p producer
  %b = cutlass.pipeline.get_producer_barrier %p, %s
  func.return
}
// CHECK: error: cutlass.pipeline.get_producer_barrier: the pipeline elides its full barrier (elide = full), so this op has no barrier to use; remove the op or keep the full barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = full>
  %s = cutlass.pipeline.state.create %p producer
  %b = cutlass.pipeline.get_full_barrier %p, %s
  func.return
}
// CHECK: error: cutlass.pipeline.get_full_barrier: the pipeline elides its full barrier (elide = full), so this op has no barrier to use; remove the op or keep the full barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = full>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.produce %p, %s {}
  func.return
}
// CHECK: error: cutlass.pipeline.produce: the pipeline elides its full barrier (elide = full), so this op has no barrier to use; remove the op or keep the full barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = full>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.consume %p, %s {}
  func.return
}
// CHECK: error: cutlass.pipeline.consume: the pipeline elides its full barrier (elide = full), so this op has no barrier to use; remove the op or keep the full barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = empty>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.producer_acquire %p, %s
  func.return
}
// CHECK: error: cutlass.pipeline.producer_acquire: the pipeline elides its empty barrier (elide = empty), so this op has no barrier to use; remove the op or keep the empty barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = empty>
  %s = cutlass.pipeline.state.create %p producer
  %t = cutlass.pipeline.producer_try_acquire %p, %s
  func.return
}
// CHECK: error: cutlass.pipeline.producer_try_acquire: the pipeline elides its empty barrier (elide = empty), so this op has no barrier to use; remove the op or keep the empty barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = empty>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.producer_tail %p, %s
  func.return
}
// CHECK: error: cutlass.pipeline.producer_tail: the pipeline elides its empty barrier (elide = empty), so this op has no barrier to use; remove the op or keep the empty barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = empty>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.consumer_release %p, %s
  func.return
}
// CHECK: error: cutlass.pipeline.consumer_release: the pipeline elides its empty barrier (elide = empty), so this op has no barrier to use; remove the op or keep the empty barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = empty>
  %s = cutlass.pipeline.state.create %p producer
  %b = cutlass.pipeline.get_empty_barrier %p, %s
  func.return
}
// CHECK: error: cutlass.pipeline.get_empty_barrier: the pipeline elides its empty barrier (elide = empty), so this op has no barrier to use; remove the op or keep the empty barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = empty>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.produce %p, %s {}
  func.return
}
// CHECK: error: cutlass.pipeline.produce: the pipeline elides its empty barrier (elide = empty), so this op has no barrier to use; remove the op or keep the empty barrier

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = empty>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.consume %p, %s {}
  func.return
}
// CHECK: error: cutlass.pipeline.consume: the pipeline elides its empty barrier (elide = empty), so this op has no barrier to use; remove the op or keep the empty barrier

// -----

func.func @f(%x: i32) {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %i = cutlass.pipeline.state.get_index %x
  func.return
}
// CHECK: error: cutlass.pipeline.state.get_index: expected a !cutlass.pipeline_state operand, found i32

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %i = cutlass.pipeline.state.get_phase %p
  func.return
}
// CHECK: error: cutlass.pipeline.state.get_phase: expected a !cutlass.pipeline_state operand, found !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>

// -----

func.func @f(%x: i64) {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %i = cutlass.pipeline.state.get_count %x
  func.return
}
// CHECK: error: cutlass.pipeline.state.get_count: expected a !cutlass.pipeline_state operand, found i64

// -----

func.func @f(%x: f32) {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %n = cutlass.pipeline.state.increment %x
  func.return
}
// CHECK: error: cutlass.pipeline.state.increment: expected a !cutlass.pipeline_state operand, found f32

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %n = "cutlass.pipeline.state.increment"(%s) : (!cutlass.pipeline_state<4>) -> !cutlass.pipeline_state<2>
  func.return
}
// CHECK: error: cutlass.pipeline.state.increment: result type must equal the state type !cutlass.pipeline_state<4>, found !cutlass.pipeline_state<2>

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %t = "cutlass.pipeline.state.create"(%p) <{role = #cutlass<pipeline_role producer>}> : (!cutlass.pipeline<stages = 4, producers = 1, consumers = 1>) -> !cutlass.pipeline_state<3>
  func.return
}
// CHECK: error: cutlass.pipeline.state.create: result type must be !cutlass.pipeline_state<4> (the pipeline's stage count), found !cutlass.pipeline_state<3>

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %t = cutlass.pipeline.state.create %p non_participant
  func.return
}
// CHECK: error: cutlass.pipeline.state.create: role must be producer or consumer (it picks the start phase), found non_participant

// -----

func.func @f(%x: !cutlass.pipeline_state<2>) {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.producer_acquire %p, %x
  func.return
}
// CHECK: error: cutlass.pipeline.producer_acquire: the state has 2 stages but the pipeline has 4; use a state created from this pipeline (!cutlass.pipeline_state<4>)

// -----

func.func @f(%x: i32) {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.consumer_release %p, %x
  func.return
}
// CHECK: error: cutlass.pipeline.consumer_release: expected a !cutlass.pipeline_state operand, found i32

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.consumer_wait %s, %s
  func.return
}
// CHECK: error: cutlass.pipeline.consumer_wait: expected the pipeline operand to be a !cutlass.pipeline, found !cutlass.pipeline_state<4>

// -----

func.func @f(%x: i32) {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.producer_acquire %p, %s token(%x)
  func.return
}
// CHECK: error: cutlass.pipeline.producer_acquire: token must be i1, found i32

// -----

func.func @f(%x: i32) {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %t = cutlass.pipeline.consumer_try_wait %p, %s skip_wait(%x)
  func.return
}
// CHECK: error: cutlass.pipeline.consumer_try_wait: skip_wait must be i1, found i32

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.pipeline.producer_commit %p, %s {transaction_bytes = -4 : i32}
  func.return
}
// CHECK: error: cutlass.pipeline.producer_commit: transaction_bytes must be >= 0, found -4

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %m = cutlass.pipeline.get_producer_mask %s
  func.return
}
// CHECK: error: cutlass.pipeline.get_producer_mask: expected the pipeline operand to be a !cutlass.pipeline, found !cutlass.pipeline_state<4>

// -----

func.func @f(%x: i32) {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %d = cutlass.pipeline.make_participants custom(%x) {cgaShape = #cutlass.cga_attr<2, 1, 1>} : !cutlass.dynamic_participants<1, 1>
  func.return
}
// CHECK: error: cutlass.pipeline.make_participants: custom mode takes explicit participants, not a cgaShape; drop cgaShape or use `cga` mode

// -----

func.func @f(%x: i32) {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %d = cutlass.pipeline.make_participants custom(%x, %x, %x) : !cutlass.dynamic_participants<2, 2>
  func.return
}
// CHECK: error: cutlass.pipeline.make_participants: dynamic participants need producers x consumers = 2 x 2 = 4 entries, found 3

// -----

func.func @f(%x: i32) {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %d = cutlass.pipeline.make_participants cga(%x) {cgaShape = #cutlass.cga_attr<2, 1, 1>} : !cutlass.dynamic_participants<1, 1>
  func.return
}
// CHECK: error: cutlass.pipeline.make_participants: cga mode derives participants from cgaShape and takes no explicit entries, found 1; use `custom` mode

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %d = cutlass.pipeline.make_participants cga : !cutlass.dynamic_participants<1, 1>
  func.return
}
// CHECK: error: cutlass.pipeline.make_participants: cga mode needs a cgaShape (e.g. {cgaShape = #cutlass.cga_attr<2, 1, 1>})

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.async.exec warp mask(0x0) {}
  func.return
}
// CHECK: error: cutlass.async.exec: mask must select at least one unit (a positive bit mask), found 0

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.async.exec cta mask(0x1) {}
  func.return
}
// CHECK: error: cutlass.async.exec: executor `cta` needs `threads(N)`, the CTA size

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.async.exec cta mask(0x3) threads(128) {}
  func.return
}
// CHECK: error: cutlass.async.exec: executor `cta` selects the whole CTA, so mask must be 1, found 3

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.async.exec warp mask(0x1) threads(128) {}
  func.return
}
// CHECK: error: cutlass.async.exec: `threads(N)` is only for executor `cta`, found executor `warp`

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.async.exec warpgroup mask(0x1) regs(20) {}
  func.return
}
// CHECK: error: cutlass.async.exec: regs must be a multiple of 8 in [24, 256] (setmaxnreg), found 20

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  cutlass.async.exec warp mask(0x3) {
    cutlass.async.exec warp mask(0x4) {}
  }
  func.return
}
// CHECK: error: cutlass.async.exec: mask 0x4 is not a subset of the enclosing warp mask 0x3

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %t = "test.op"() : () -> !cutlass.dynamic_participants<0, 1>
  func.return
}
// CHECK: verify_ops.mlir:390:58: error: dynamic_participants producer count must be in [1, 16], found 0

// -----

func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %s = cutlass.pipeline.state.create %p producer
  %t = "test.op"() {c = #cutlass.cga_attr<0, 1, 1>} : () -> ()
  func.return
}
// CHECK: error: cga_attr extents must be >= 1, found [0, 1, 1]
