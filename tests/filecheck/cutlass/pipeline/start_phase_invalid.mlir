// A wait of one side of a pipeline on a state created for the other side is wrong on its first use: a consumer
// wait on a producer start state (phase 1) passes at once on a fresh full barrier (it reads an empty stage), a
// producer acquire on a consumer start state (phase 0) waits for a release that never comes.  The verifier decides
// the state's first use (the state as created, or the scf.for iteration argument it starts); before session 41
// only `tileorch check` refused it (parity-aliasing).  The last case is valid: a producer state used by the
// producer, a consumer state by the consumer.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @consumer_on_a_producer_state(%n: i32) {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %start = cutlass.pipeline.state.create %r producer
  %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
    cutlass.pipeline.consumer_wait %r, %s
    cutlass.pipeline.consumer_release %r, %s
    %next = cutlass.pipeline.state.increment %s
    scf.yield %next : !cutlass.pipeline_state<2>
  }
  func.return
}
// CHECK: start_phase_invalid.mlir:16:5: error: cutlass.pipeline.consumer_wait is a consumer-side wait, but its state starts as a producer state (phase 1, cutlass.pipeline.state.create ... producer at {{.*}}start_phase_invalid.mlir:14:3): its first wait passes at once on a fresh full barrier, before the stage's data has landed (the consumer reads an empty stage); parity-aliasing: create the consumer's state with `consumer`

// -----

func.func @producer_on_a_consumer_state() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 3, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 3 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %s = cutlass.pipeline.state.create %r consumer
  cutlass.pipeline.producer_acquire %r, %s
  func.return
}
// CHECK: start_phase_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.pipeline.producer_acquire is a producer-side wait, but its state starts as a consumer state (phase 0, {{.*}}): its first wait waits for a release of a stage no consumer has read yet, which never comes (a deadlock)

// -----

func.func @probe_on_a_producer_state() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %s = cutlass.pipeline.state.create %r producer
  %ready = cutlass.pipeline.consumer_try_wait %r, %s
  func.return
}
// CHECK: start_phase_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.pipeline.consumer_try_wait is a consumer-side wait, but its state starts as a producer state

// -----

func.func @consume_region_on_a_producer_state() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %s = cutlass.pipeline.state.create %r producer
  cutlass.pipeline.consume %r, %s {
  }
  func.return
}
// CHECK: start_phase_invalid.mlir:[[# @LINE - 4]]:3: error: cutlass.pipeline.consume is a consumer-side wait, but its state starts as a producer state

// -----

// valid: each side's own start state, the consumer's advanced past a round before a second loop
func.func @each_side_its_own_state(%n: i32) {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %p = cutlass.pipeline.state.create %r producer
  cutlass.pipeline.producer_acquire %r, %p
  %c = cutlass.pipeline.state.create %r consumer
  cutlass.pipeline.consumer_wait %r, %c
  func.return
}
// CHECK-LABEL: func.func @each_side_its_own_state
// CHECK: cutlass.pipeline.producer_acquire
// CHECK: cutlass.pipeline.consumer_wait
