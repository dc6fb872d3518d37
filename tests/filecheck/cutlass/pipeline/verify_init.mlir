// cutlass.pipeline.init verifier: one rule per split; each message says what was expected and found.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 0 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  func.return
}
// CHECK: verify_init.mlir:6:3: error: cutlass.pipeline.init: invalid numStages: expected 4 (a positive count equal to the stage count of !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>), found 0

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 3 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  func.return
}
// CHECK: verify_init.mlir:15:3: error: cutlass.pipeline.init: invalid numStages: expected 4 {{.*}}, found 3

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1, 4>, consumers = array<i64: 2>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: participants length mismatch: the pipeline type declares 1 producer group(s), participants has 2 mask(s)

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: consumers length mismatch: the pipeline type declares 2 consumer group(s), consumers has 1 mask(s)

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 0>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: consumer group 0 has an empty executor mask (0); give it at least one warp

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 3>, consumers = array<i64: 6>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: producer group 0 (mask 0x3) and consumer group 0 (mask 0x6) share executor units 0x2; producer and consumer groups must be distinct

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, producer_arv_count = array<i32: 1, 1>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: producer_arv_count needs one entry per producer (1), found 2

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2, 4>, consumer_arv_count = array<i32: 128>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: consumer_arv_count needs one entry per consumer (2), found 1

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, consumer_arv_count = array<i32: 0>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: consumer_arv_count[0] must be >= 1, found 0

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 2, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1, 2>, consumers = array<i64: 4>, transaction_size = array<i32: 4096>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: transaction_size needs one entry per producer (2), found 1

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1, elide = full>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, transaction_size = array<i32: 4096>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: transaction_size needs the full barrier, but the pipeline elides it

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, barrier_id_base = 32 : i32}
  func.return
}
// CHECK: error: cutlass.pipeline.init: barrier_id_base must be in [0, 32) (the per-CTA named-barrier pool), found 32

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1, barrier = named_barrier>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, barrier_id_base = 28 : i32}
  func.return
}
// CHECK: error: cutlass.pipeline.init: needs 8 named barriers from barrier_id_base 28 (ids 28..35), past the 16 hardware barriers (bar.sync ids 0..15); use a lower base, fewer stages, or mbarriers

// -----

// In the [0, 32) pool but past the 16 hardware barriers: the lowering would emit runtime ids
// 10..17 (base + index), which neither our nvvm verifier nor ptxas could reject.
func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1, barrier = named_barrier>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, barrier_id_base = 10 : i32}
  func.return
}
// CHECK: error: cutlass.pipeline.init: needs 8 named barriers from barrier_id_base 10 (ids 10..17), past the 16 hardware barriers (bar.sync ids 0..15); use a lower base, fewer stages, or mbarriers

// -----

// Ids 0..7 are reserved (id 0 = __syncthreads and the barrier-init sync).
func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1, barrier = named_barrier>
  %r = cutlass.pipeline.init %pipe {numStages = 1 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, barrier_id_base = 0 : i32}
  func.return
}
// CHECK: error: cutlass.pipeline.init: barrier_id_base 0 overlaps the reserved named barriers [0, 8) (id 0 is __syncthreads and the barrier-init sync, 1..7 CUTLASS's reserved barriers); use a base >= 8 or let cutlass-allocate-barrier-ids choose one

// -----

// A hand-written arvCount must equal the derived counts (1 producer leader; 32 consumer threads).
func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, arvCount = array<i32: 1, 1>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: arvCount = [1, 1] differs from the derived (full, empty) arrive counts [1, 32]; arvCount is derived by cutlass-stamp-arrive-counts: remove it (or set producer_arv_count / consumer_arv_count)

// -----

// On a 2x2 cluster the derived empty count is (cx + cy - 1) * ceil(T / 128) = 3 * 1 = 3, not T = 128.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @f() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>, arvCount = array<i32: 1, 128>}
    func.return
  }
}
// CHECK: error: cutlass.pipeline.init: arvCount = [1, 128] differs from the derived (full, empty) arrive counts [1, 3]

// -----

func.func @f(%g: !llvm.ptr<1>) {
  %pipe = cutlass.pipeline.create storage(%g) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  func.return
}
// CHECK: error: cutlass.pipeline.create: storage must be a shared-memory pointer (!llvm.ptr<3>) to the 2 x stages i64 mbarrier words, found !llvm.ptr<1>; pass shared memory (e.g. from atom.dynamic_smem) or omit storage to let the lowering allocate it

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type cta>, participants = array<i64: 1>, consumers = array<i64: 2>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: executor must be thread, warp or warpgroup (the unit of the participant masks), found cta

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1, barrier = named_barrier>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type thread>, participants = array<i64: 1>, consumers = array<i64: 6>, barrier_id_base = 8 : i32}
  func.return
}
// CHECK: error: cutlass.pipeline.init: named barriers count whole warps, but producer group 0 covers 1 threads; use warp-granular masks

// -----

func.func @f(%a: i32) {
  %dp = cutlass.pipeline.make_participants custom(%a, %a) : !cutlass.dynamic_participants<2, 1>
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
  %r = cutlass.pipeline.init %pipe dynamic(%dp) {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2, 4>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: dynamic participants are 2 x 1 but the pipeline has 1 producer(s) x 2 consumer(s)

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = "cutlass.pipeline.init"(%pipe) <{numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}> : (!cutlass.pipeline<stages = 4, producers = 1, consumers = 1>) -> !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  func.return
}
// CHECK: error: cutlass.pipeline.init: the result type must equal the input pipeline type !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>, found !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, arvCount = array<i32: 1>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: arvCount holds (full, empty) arrive counts, found 1 entries

// -----

func.func @f(%x: i32) {
  %r = cutlass.pipeline.init %x {numStages = 4 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: expected the pipeline operand to be a !cutlass.pipeline, found i32

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 33, producers = 1, consumers = 1>
  func.return
}
// CHECK: verify_init.mlir:[[# @LINE - 3]]:64: error: pipeline stage count must be in [1, 32], found 33
