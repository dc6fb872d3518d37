// A handshake inside a loop on a pipeline state defined before the loop, while the loop carries (advances) a state
// of the same state.create: every iteration waits on / releases the one stage and phase of the stale state while
// the loop-carried state moves on (a wait on the completed phase passes at once).  Sweep 35 found it compiled and
// proved by `tileorch check` (the checker's loop body read it as the loop-carried state); the verifier refuses it
// now.  With 1 stage a release / commit (they read only the stage index, always 0) on the stale state is the same
// arrival as on the loop-carried one and is accepted; a wait still reads the phase and is refused.
// The last cases are valid: the loop-carried state, and a stale state in a loop that carries no state of its
// own pipeline state variable.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @consume_of_the_start_state(%n: i32) {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %start = cutlass.pipeline.state.create %r consumer
  %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
    cutlass.pipeline.consumer_wait %r, %start
    cutlass.pipeline.consumer_release %r, %s
    %next = cutlass.pipeline.state.increment %s
    scf.yield %next : !cutlass.pipeline_state<2>
  }
  func.return
}
// CHECK: stale_state_in_loop_invalid.mlir:[[# @LINE - 7]]:5: error: cutlass.pipeline.consumer_wait uses pipeline state %start, defined before the enclosing scf.for that advances its state variable (cutlass.pipeline.state.create at {{.*}}stale_state_in_loop_invalid.mlir:[[# @LINE - 9]]:3): every iteration would use that same stage and phase (a wait on the completed phase passes at once) while the loop-carried state moves on; use the loop-carried state

// -----

func.func @release_of_an_incremented_start_state(%n: i32) {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %start = cutlass.pipeline.state.create %r consumer
  %second = cutlass.pipeline.state.increment %start
  %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
    cutlass.pipeline.consumer_wait %r, %s
    cutlass.pipeline.consumer_release %r, %second
    %next = cutlass.pipeline.state.increment %s
    scf.yield %next : !cutlass.pipeline_state<2>
  }
  func.return
}
// CHECK: stale_state_in_loop_invalid.mlir:[[# @LINE - 6]]:5: error: cutlass.pipeline.consumer_release uses pipeline state %second, defined before the enclosing scf.for that advances its state variable (cutlass.pipeline.state.create at {{.*}}): every iteration would arrive on the empty barrier of that same stage (the stages of the loop-carried state never get their arrivals) while the loop-carried state moves on; use the loop-carried state

// -----

func.func @produce_in_a_while_of_the_start_state(%n: i32) {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %c1 = arith.constant 1 : i32
  %start = cutlass.pipeline.state.create %r producer
  %out:2 = scf.while (%s = %start, %i = %n) : (!cutlass.pipeline_state<2>, i32) -> (!cutlass.pipeline_state<2>, i32) {
    %more = arith.cmpi sgt, %i, %c1 : i32
    scf.condition(%more) %s, %i : !cutlass.pipeline_state<2>, i32
  } do {
  ^bb0(%t: !cutlass.pipeline_state<2>, %j: i32):
    cutlass.pipeline.producer_acquire %r, %start
    cutlass.pipeline.producer_commit %r, %t
    %next = cutlass.pipeline.state.increment %t
    %j1 = arith.subi %j, %c1 : i32
    scf.yield %next, %j1 : !cutlass.pipeline_state<2>, i32
  }
  func.return
}
// CHECK: stale_state_in_loop_invalid.mlir:[[# @LINE - 8]]:5: error: cutlass.pipeline.producer_acquire uses pipeline state %start, defined before the enclosing scf.while that advances its state variable

// -----

func.func @valid_loop_carried_and_a_loop_carrying_nothing(%n: i32) {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %start = cutlass.pipeline.state.create %r consumer
  %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
    cutlass.pipeline.consumer_wait %r, %s
    cutlass.pipeline.consumer_release %r, %s
    %next = cutlass.pipeline.state.increment %s
    scf.yield %next : !cutlass.pipeline_state<2>
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %idx = cutlass.pipeline.state.get_index %last
  }
  func.return
}
// CHECK-LABEL: func.func @valid_loop_carried_and_a_loop_carrying_nothing
// CHECK: cutlass.pipeline.consumer_release

// -----

func.func @one_stage_wait_of_the_start_state(%n: i32) {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %start = cutlass.pipeline.state.create %r consumer
  %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<1>) : i32 {
    cutlass.pipeline.consumer_wait %r, %start
    cutlass.pipeline.consumer_release %r, %s
    %next = cutlass.pipeline.state.increment %s
    scf.yield %next : !cutlass.pipeline_state<1>
  }
  func.return
}
// CHECK: stale_state_in_loop_invalid.mlir:[[# @LINE - 7]]:5: error: cutlass.pipeline.consumer_wait uses pipeline state %start, defined before the enclosing scf.for that advances its state variable {{.*}}(a wait on the completed phase passes at once)

// -----

func.func @valid_one_stage_release_and_commit_of_the_start_states(%n: i32) {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %start = cutlass.pipeline.state.create %r consumer
  %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<1>) : i32 {
    cutlass.pipeline.consumer_wait %r, %s
    cutlass.pipeline.consumer_release %r, %start
    %next = cutlass.pipeline.state.increment %s
    scf.yield %next : !cutlass.pipeline_state<1>
  }
  %pstart = cutlass.pipeline.state.create %r producer
  %plast = scf.for %k = %c0 to %n step %c1 iter_args(%p = %pstart) -> (!cutlass.pipeline_state<1>) : i32 {
    cutlass.pipeline.producer_acquire %r, %p
    cutlass.pipeline.producer_commit %r, %pstart
    %next = cutlass.pipeline.state.increment %p
    scf.yield %next : !cutlass.pipeline_state<1>
  }
  func.return
}
// CHECK-LABEL: func.func @valid_one_stage_release_and_commit_of_the_start_states
// CHECK: cutlass.pipeline.consumer_release %r, %start
// CHECK: cutlass.pipeline.producer_commit %r, %pstart
