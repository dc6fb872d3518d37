// cutlass-allocate-barrier-ids: first fit from id 8 (ids 0-7 reserved) in declaration order,
// around ids claimed explicitly; pipeline.init and seq_bar.init share one pool per kernel.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p cutlass-allocate-barrier-ids | filecheck %s
// RUN: not tileorch-opt %s --split-input-file -p 'cutlass-allocate-barrier-ids{pool_size=32}' 2>&1 | filecheck %s --check-prefix=POOL32
// The pool ends at the 16 hardware barriers: ids 16..31 would be emitted as runtime bar.sync ids
// that nothing downstream rejects.
// POOL32: error: cutlass-allocate-barrier-ids: pool_size must be in (8, 16] (ids past the reserved ones, up to the hardware's named barriers), found 32

// named pipeline, 2 stages x 2 barriers = ids 8..11; explicit base 14 holds 14..15;
// a 2x1 named seq_bar needs 2 ids: 12..13; mbarrier pipelines get no ids; the next kernel
// starts a fresh pool at 8.
// CHECK-LABEL: func.func @k1
// CHECK: %ra = cutlass.pipeline.init %a {{{.*}}barrier_id_base = 8 : i32}
// CHECK: %re = cutlass.pipeline.init %e {{{.*}}barrier_id_base = 14 : i32}
// CHECK: %rs = cutlass.seq_bar.init %s group_size(128) barrier(named_barrier) barrier_id_base(12)
// CHECK: %rm = cutlass.pipeline.init %m {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
// CHECK-LABEL: func.func @k2
// CHECK: %rb = cutlass.pipeline.init %b {{{.*}}barrier_id_base = 8 : i32}
func.func @k1() {
  %a = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, barrier = named_barrier>
  %ra = cutlass.pipeline.init %a {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %e = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1, barrier = named_barrier>
  %re = cutlass.pipeline.init %e {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, barrier_id_base = 14 : i32}
  %s = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 1>
  %rs = cutlass.seq_bar.init %s group_size(128) barrier(named_barrier)
  %m = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %rm = cutlass.pipeline.init %m {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  func.return
}
func.func @k2() {
  %b = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, barrier = named_barrier>
  %rb = cutlass.pipeline.init %b {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  func.return
}

// -----

// Three 4-stage named pipelines need 8 ids each: the hardware pool [8, 16) holds one.
// CHECK: barrier_ids.mlir:[[# @LINE + 5]]:3: error: cutlass.pipeline.init: named-barrier pool exhausted: needs 8 consecutive ids in [8, 16), free ids: none; use fewer stages or mbarriers (the hardware has 16 named barriers)
func.func @k() {
  %a = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1, barrier = named_barrier>
  %ra = cutlass.pipeline.init %a {numStages = 4 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %b = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1, barrier = named_barrier>
  %rb = cutlass.pipeline.init %b {numStages = 4 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %c = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1, barrier = named_barrier>
  %rc = cutlass.pipeline.init %c {numStages = 4 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  func.return
}

// -----

// On a 2x1 cluster an mbarrier pipeline's consumer_release syncs each consumer group of several
// warps on a named barrier of its own (one id per such group, in consumer order); a one-warp group
// needs none. %rc: groups of 4 and 4 warps -> ids 8..9; %rn (named, 1 stage x 2) -> 10..11;
// %rw: one one-warp group -> no id.
// CHECK-LABEL: func.func @cluster
// CHECK: %rc = cutlass.pipeline.init %c {{{.*}}barrier_id_base = 8 : i32}
// CHECK: %rn = cutlass.pipeline.init %n {{{.*}}barrier_id_base = 10 : i32}
// CHECK: %rw = cutlass.pipeline.init %w {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @cluster() {
    %c = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %rc = cutlass.pipeline.init %c {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x1e, 0x1e0>}
    %n = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1, barrier = named_barrier>
    %rn = cutlass.pipeline.init %n {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
    %w = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %rw = cutlass.pipeline.init %w {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
    func.return
  }
}

// -----

// Constant ids that the kernel's own barrier ops name are claimed before allocation, wherever
// the op stands: bar.sync 8 and a constant-operand bar.arrive 9 push %a (1 stage x 2) to 10..11.
// CHECK-LABEL: func.func @user_ids
// CHECK: %ra = cutlass.pipeline.init %a {{{.*}}barrier_id_base = 10 : i32}
func.func @user_ids() {
  cutlass.named_barrier.arrive_and_wait barrier_id = 8 num_threads = 256
  %a = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1, barrier = named_barrier>
  %ra = cutlass.pipeline.init %a {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %c9 = arith.constant 9 : i32
  cutlass.named_barrier.arrive %c9 num_threads = 64
  func.return
}

// -----

// A direct id inside an explicit range aliases the pipeline's barrier: error at the barrier op.
// CHECK: barrier_ids.mlir:[[# @LINE + 4]]:3: error: cutlass.named_barrier.arrive: named barrier 13 is claimed by cutlass.pipeline.init of %e (ids 12..13, at {{.*}}barrier_ids.mlir:[[# @LINE + 3]]:3); use an id that no pipeline or seq_bar claims, or move that op's barrier_id_base
func.func @collide() {
  %e = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1, barrier = named_barrier>
  %re = cutlass.pipeline.init %e {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, barrier_id_base = 12 : i32}
  cutlass.named_barrier.arrive barrier_id = 13 num_threads = 64
  func.return
}
