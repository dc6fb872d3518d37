// Side effects are truthful: dce/cse drop and merge the pure state/address ops, never the
// barrier ops (acquire, commit, tail, wait, release, produce, consume, init, create).  (The consumer's waits take
// a consumer start state: the verifier refuses a producer's, start_phase_invalid.mlir.)
// RUN: tileorch-opt %s -p dce | filecheck %s --check-prefix=DCE
// RUN: tileorch-opt %s -p cse | filecheck %s --check-prefix=CSE

func.func @f(%n: i32) {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %p = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  %s = cutlass.pipeline.state.create %p producer
  %s_dup = cutlass.pipeline.state.create %p producer
  %c = cutlass.pipeline.state.create %p consumer
  %dead_state = cutlass.pipeline.state.increment %s by %n
  %dead_index = cutlass.pipeline.state.get_index %s
  %dead_phase = cutlass.pipeline.state.get_phase %s
  %dead_count = cutlass.pipeline.state.get_count %s
  %dead_bar = cutlass.pipeline.get_producer_barrier %p, %s
  %dead_full = cutlass.pipeline.get_full_barrier %p, %s
  %dead_empty = cutlass.pipeline.get_empty_barrier %p, %s
  %dead_mask = cutlass.pipeline.get_producer_mask %p
  %dead_probe = cutlass.pipeline.consumer_try_wait %p, %c
  cutlass.pipeline.producer_acquire %p, %s
  cutlass.pipeline.producer_acquire %p, %s
  cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 64 : i32}
  cutlass.pipeline.producer_tail %p, %s
  cutlass.pipeline.consumer_wait %p, %c
  cutlass.pipeline.consumer_release %p, %s_dup
  cutlass.pipeline.consumer_release %p, %s_dup
  cutlass.pipeline.produce %p, %s {}
  cutlass.pipeline.consume %p, %c {}
  %i1 = cutlass.pipeline.state.get_index %s_dup
  %i2 = cutlass.pipeline.state.get_index %s
  %sum = arith.addi %i1, %i2 : i32
  "test.op"(%sum) : (i32) -> ()
  func.return
}

// DCE:      %pipe = cutlass.pipeline.create
// DCE-NEXT: %p = cutlass.pipeline.init %pipe
// DCE-NEXT: %s = cutlass.pipeline.state.create %p producer
// DCE-NEXT: %s_dup = cutlass.pipeline.state.create %p producer
// DCE-NEXT: %c = cutlass.pipeline.state.create %p consumer
// DCE-NEXT: cutlass.pipeline.producer_acquire %p, %s
// DCE-NEXT: cutlass.pipeline.producer_acquire %p, %s
// DCE-NEXT: cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 64 : i32}
// DCE-NEXT: cutlass.pipeline.producer_tail %p, %s
// DCE-NEXT: cutlass.pipeline.consumer_wait %p, %c
// DCE-NEXT: cutlass.pipeline.consumer_release %p, %s_dup
// DCE-NEXT: cutlass.pipeline.consumer_release %p, %s_dup
// DCE-NEXT: cutlass.pipeline.produce %p, %s {}
// DCE-NEXT: cutlass.pipeline.consume %p, %c {}
// DCE-NEXT: %i1 = cutlass.pipeline.state.get_index %s_dup
// DCE-NEXT: %i2 = cutlass.pipeline.state.get_index %s

// CSE:      %pipe = cutlass.pipeline.create
// CSE-NEXT: %p = cutlass.pipeline.init %pipe
// CSE-NEXT: %s = cutlass.pipeline.state.create %p producer
// CSE-NEXT: %c = cutlass.pipeline.state.create %p consumer
// CSE-NOT:  cutlass.pipeline.state.create
// CSE:      cutlass.pipeline.producer_acquire %p, %s
// CSE-NEXT: cutlass.pipeline.producer_acquire %p, %s
// CSE:      cutlass.pipeline.consumer_release %p, %s
// CSE-NEXT: cutlass.pipeline.consumer_release %p, %s
// CSE:      %i1 = cutlass.pipeline.state.get_index %s
// CSE-NEXT: %sum = arith.addi %i1, %i1 : i32
