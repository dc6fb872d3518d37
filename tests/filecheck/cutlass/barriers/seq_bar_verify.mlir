// Verifier diagnostics of the cutlass.seq_bar ops.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// depth and length must be positive (checked while parsing the type, reported at the integer).
func.func @zero_depth() {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 0, length = 2>
  func.return
}
// CHECK: seq_bar_verify.mlir:6:59: error: seq_bar depth must be in [1, 32], found 0

// -----

func.func @zero_length() {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 0>
  func.return
}
// CHECK: seq_bar_verify.mlir:14:71: error: seq_bar length must be in [1, 16], found 0

// -----

func.func @storage_space(%p: !llvm.ptr<1>) {
  %sb = cutlass.seq_bar.create storage(%p : !llvm.ptr<1>) : !cutlass.seq_bar<depth = 2, length = 2>
  func.return
}
// CHECK: error: 'cutlass.seq_bar.create' op expected storage in shared memory (!llvm.ptr<3>), found !llvm.ptr<1>

// -----

func.func @group_size() {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %ready = cutlass.seq_bar.init %sb group_size(0)
  func.return
}
// CHECK: error: 'cutlass.seq_bar.init' op group_size must be in [1, 1024] threads, found 0

// -----

func.func @init_warp() {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %ready = cutlass.seq_bar.init %sb group_size(128) initializing_warp(32)
  func.return
}
// CHECK: error: 'cutlass.seq_bar.init' op initializing_warp must be a warp of the CTA in [0, 31], found 32

// -----

func.func @id_pool() {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %ready = cutlass.seq_bar.init %sb group_size(128) barrier_id_base(32)
  func.return
}
// CHECK: error: 'cutlass.seq_bar.init' op barrier_id_base must be in the named-barrier pool [0, 32), found 32

// -----

func.func @named_group_size() {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %ready = cutlass.seq_bar.init %sb group_size(100) barrier(named_barrier)
  func.return
}
// CHECK: error: 'cutlass.seq_bar.init' op with barrier = named_barrier needs warp-granular groups: group_size must be a multiple of 32, found 100

// -----

func.func @named_too_many() {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 4, length = 5>
  %ready = cutlass.seq_bar.init %sb group_size(128) barrier(named_barrier)
  func.return
}
// CHECK: error: 'cutlass.seq_bar.init' op with barrier = named_barrier needs depth x length = 20 named barriers, more than the 16 of the hardware

// -----

func.func @named_ids_past_end() {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %ready = cutlass.seq_bar.init %sb group_size(128) barrier(named_barrier) barrier_id_base(13)
  func.return
}
// CHECK: error: 'cutlass.seq_bar.init' op named barriers [13, 16] exceed the hardware ids [0, 15]

// -----

// The state must come from a seq_bar of the same depth.
func.func @state_depth(%a: !cutlass.seq_bar<depth = 2, length = 2>, %b: !cutlass.seq_bar<depth = 3, length = 2>, %g: i32) {
  %st = cutlass.seq_bar.state.create %b group(%g)
  cutlass.seq_bar.wait %a, %st group(%g)
  func.return
}
// CHECK: error: 'cutlass.seq_bar.wait' op expected state type !cutlass.seq_bar_state<2> (the depth of !cutlass.seq_bar<depth = 2, length = 2>), found !cutlass.seq_bar_state<3>

// -----

func.func @arrive_state_depth(%a: !cutlass.seq_bar<depth = 2, length = 2>, %st: !cutlass.seq_bar_state<4>, %g: i32) {
  %st1 = cutlass.seq_bar.arrive %a, %st group(%g)
  func.return
}
// CHECK: error: 'cutlass.seq_bar.arrive' op expected state type !cutlass.seq_bar_state<2> (the depth of !cutlass.seq_bar<depth = 2, length = 2>), found !cutlass.seq_bar_state<4>

// -----

// arrive/wait take a seq_bar, not a pipeline (generic form: the custom parser reads types from values).
func.func @not_a_seq_bar(%p: !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>, %st: !cutlass.seq_bar_state<2>, %g: i32) {
  "cutlass.seq_bar.wait"(%p, %st, %g) : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1>, !cutlass.seq_bar_state<2>, i32) -> ()
  func.return
}
// CHECK: error: operand 'seq_bar' at position 0 does not verify:

// -----

func.func @state_result(%a: !cutlass.seq_bar<depth = 2, length = 2>, %g: i32) {
  %st = "cutlass.seq_bar.state.create"(%a, %g) : (!cutlass.seq_bar<depth = 2, length = 2>, i32) -> !cutlass.seq_bar_state<3>
  func.return
}
// CHECK: error: 'cutlass.seq_bar.state.create' op expected result type !cutlass.seq_bar_state<2> (the depth of !cutlass.seq_bar<depth = 2, length = 2>), found !cutlass.seq_bar_state<3>

// -----

func.func @new_state(%a: !cutlass.seq_bar<depth = 2, length = 2>, %st: !cutlass.seq_bar_state<2>, %g: i32) {
  %st1 = "cutlass.seq_bar.arrive"(%a, %st, %g) : (!cutlass.seq_bar<depth = 2, length = 2>, !cutlass.seq_bar_state<2>, i32) -> !cutlass.seq_bar_state<3>
  func.return
}
// CHECK: error: 'cutlass.seq_bar.arrive' op expected the new state to have the state's type !cutlass.seq_bar_state<2>, found !cutlass.seq_bar_state<3>

// -----

func.func @group_range(%a: !cutlass.seq_bar<depth = 2, length = 2>) {
  %g = arith.constant 2 : i32
  %st = cutlass.seq_bar.state.create %a group(%g)
  func.return
}
// CHECK: error: 'cutlass.seq_bar.state.create' op group id out of range: expected 0 <= group < 2 (length of !cutlass.seq_bar<depth = 2, length = 2>), found 2

// -----

// Each executor running wait/arrive is a whole number of groups.
func.func @executor_groups(%g: i32) {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %ready = cutlass.seq_bar.init %sb group_size(128)
  cutlass.async.exec warp mask(3) {
    %st = cutlass.seq_bar.state.create %ready group(%g)
    cutlass.seq_bar.wait %ready, %st group(%g)
  }
  func.return
}
// CHECK: error: 'cutlass.seq_bar.wait' op executor of 64 threads is not a whole number of groups: expected a multiple of group_size 128, found 64

// -----

// Named-barrier ids below 8 are reserved (id 0 = __syncthreads and the barrier-init sync).
func.func @named_ids_reserved() {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %ready = cutlass.seq_bar.init %sb group_size(128) barrier(named_barrier) barrier_id_base(0)
  func.return
}
// CHECK: error: 'cutlass.seq_bar.init' op barrier_id_base 0 overlaps the reserved named barriers [0, 8) (id 0 is __syncthreads and the barrier-init sync, 1..7 CUTLASS's reserved barriers); use a base >= 8 or let cutlass-allocate-barrier-ids choose one
