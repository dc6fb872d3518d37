// Operand-layout checkers of the block-striped family (load, store, reduce-add, reduce-max).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Elements narrower than 16 bits are rejected.
func.func @narrow(%tile: memref<1024xi8>, %t: i32) {
  %a = cutlass.block_striped.load %tile, %t n_threads_in_block = 128 : memref<1024xi8> -> vector<8xi8>
  func.return
}
// CHECK: verify.mlir:6:{{[0-9]+}}: error: 'cutlass.block_striped.load' op expected an integer or float element type of at least 16 bits, found i8

// -----

// The tile must hold n_threads_in_block x fragment length elements (128 x 8 = 1024).
func.func @tile_size(%tile: memref<512xf32>, %t: i32, %v: vector<8xf32>) {
  cutlass.block_striped.store %v, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<512xf32>
  func.return
}
// CHECK: error: 'cutlass.block_striped.store' op tile shape does not match 128 threads x fragment of 8 (access_width 1): expected [1024], found [512]

// -----

// A 2-D tile is one row per stripe: 8 / 4 = 2 stripes of 128 x 4 = 512 elements.
func.func @stripe_shape(%tile: memref<4x256xf32>, %t: i32) {
  %a = cutlass.block_striped.load %tile, %t n_threads_in_block = 128 access_width = 4 : memref<4x256xf32> -> vector<8xf32>
  func.return
}
// CHECK: error: 'cutlass.block_striped.load' op tile shape does not match 128 threads x fragment of 8 (access_width 4): expected [2, 512], found [4, 256]

// -----

// The stripe shape must be static.
func.func @dynamic_tile(%tile: memref<?xf32>, %t: i32, %v: vector<8xf32>) {
  cutlass.block_striped.reduce add %v, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<?xf32>
  func.return
}
// CHECK: error: 'cutlass.block_striped.reduce' op expected a static stripe shape, found memref<?xf32>

// -----

// Rank-3 tiles have no stripe interpretation.
func.func @rank3(%tile: memref<2x4x128xf32>, %t: i32, %v: vector<8xf32>) {
  cutlass.block_striped.reduce max %v, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<2x4x128xf32>
  func.return
}
// CHECK: error: 'cutlass.block_striped.reduce' op tile shape does not match 128 threads x fragment of 8 (access_width 1): expected [1024] or [8, 128], found [2, 4, 128]

// -----

func.func @element_mismatch(%tile: memref<1024xf16>, %t: i32, %v: vector<8xf32>) {
  cutlass.block_striped.reduce max %v, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<1024xf16>
  func.return
}
// CHECK: error: 'cutlass.block_striped.reduce' op expected the tile element type to match the fragment: expected f32, found f16

// -----

// The fragment length is a whole number of accesses.
func.func @partial_access(%tile: memref<768xf32>, %t: i32, %v: vector<6xf32>) {
  cutlass.block_striped.store %v, %tile, %t n_threads_in_block = 128 access_width = 4 : vector<6xf32>, memref<768xf32>
  func.return
}
// CHECK: error: 'cutlass.block_striped.store' op fragment length 6 must be a positive multiple of access_width, found access_width 4

// -----

// One access is at most 16 bytes (8 x f32 = 32 bytes).
func.func @wide_access(%tile: memref<1024xf32>, %t: i32) {
  %a = cutlass.block_striped.load %tile, %t n_threads_in_block = 128 access_width = 8 : memref<1024xf32> -> vector<8xf32>
  func.return
}
// CHECK: error: 'cutlass.block_striped.load' op one access must be a power of two of at most 16 bytes, found 8 x f32 = 32 bytes

// -----

// ... and a power of two (3 x f32 = 12 bytes).
func.func @odd_access(%tile: memref<768xf32>, %t: i32) {
  %a = cutlass.block_striped.load %tile, %t n_threads_in_block = 128 access_width = 3 : memref<768xf32> -> vector<6xf32>
  func.return
}
// CHECK: error: 'cutlass.block_striped.load' op one access must be a power of two of at most 16 bytes, found 3 x f32 = 12 bytes

// -----

func.func @threads(%tile: memref<0xf32>, %t: i32, %v: vector<8xf32>) {
  cutlass.block_striped.store %v, %tile, %t n_threads_in_block = 0 : vector<8xf32>, memref<0xf32>
  func.return
}
// CHECK: error: 'cutlass.block_striped.store' op n_threads_in_block must be in [1, 1024], found 0

// -----

func.func @fragment_rank(%tile: memref<1024xf32>, %t: i32, %v: vector<2x4xf32>) {
  %c = cutlass.block_striped.load_add %tile, %t, %v n_threads_in_block = 128 : memref<1024xf32>, vector<2x4xf32> -> vector<2x4xf32>
  func.return
}
// CHECK: error: 'cutlass.block_striped.load_add' op expected the register fragment to be a rank-1 vector, found vector<2x4xf32>

// -----

func.func @load_add_result(%tile: memref<1024xf32>, %t: i32, %v: vector<8xf32>) {
  %c = cutlass.block_striped.load_add %tile, %t, %v n_threads_in_block = 128 : memref<1024xf32>, vector<8xf32> -> vector<4xf32>
  func.return
}
// CHECK: error: 'cutlass.block_striped.load_add' op expected the result type to equal the fragment type vector<8xf32>, found vector<4xf32>

// -----

func.func @pointer_space(%p: !llvm.ptr<5>, %t: i32, %v: vector<8xf32>) {
  cutlass.block_striped.reduce add %v, %p, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<5>
  func.return
}
// CHECK: error: 'cutlass.block_striped.reduce' op expected a generic (0), global (1) or shared (3) pointer, found !llvm.ptr<5>

// -----

// A scalable vector has no static thread-to-element split.
func.func @scalable_fragment(%tile: memref<1024xf32>, %t: i32, %v: vector<[4]xf32>) {
  %c = cutlass.block_striped.load_add %tile, %t, %v n_threads_in_block = 128 : memref<1024xf32>, vector<[4]xf32> -> vector<[4]xf32>
  func.return
}
// CHECK: error: 'cutlass.block_striped.load_add' op expected a static register fragment, found vector<[4]xf32>

// -----

// thread_idx over the threads that run the op (session 39): 256 threads of warp groups 1-2 take tid - 128 =
// 0..255, but the stripes are laid out for 128; thread index 128 would move thread 0's next stripe (and the last
// stripe past the tile's end).
func.func @index_past_the_declared_threads(%smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>} {
  cutlass.async.exec warpgroup mask(6) {
    %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %t0 = arith.index_cast %tid : index to i32
    %c128 = arith.constant 128 : i32
    %t = arith.subi %t0, %c128 : i32
    %v = arith.constant dense<-1.500000e+00> : vector<8xf32>
    cutlass.block_striped.reduce max %v, %smem, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<3>
  }
  func.return
}
// CHECK: verify.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: 'cutlass.block_striped.reduce' op thread_idx takes 0..255 over the 256 threads that run it (the enclosing warpgroup executor (mask 0x6)), outside 0..127 (n_threads_in_block = 128; thread 256 gets 128)

// -----

// tid % 64 run by the CTA's 128 threads: threads 0 and 64 store the same elements.
func.func @one_index_two_threads(%p: !llvm.ptr<1>, %v: vector<4xf32>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %t0 = arith.index_cast %tid : index to i32
  %c64 = arith.constant 64 : i32
  %t = arith.remui %t0, %c64 : i32
  cutlass.block_striped.store %v, %p, %t n_threads_in_block = 64 : vector<4xf32>, !llvm.ptr<1>
  func.return
}
// CHECK: error: 'cutlass.block_striped.store' op threads 0 and 64 both take thread_idx 0 (the CTA's 128, the kernel's nvvm.reqntid): their stores to the same elements race

// -----

// Taken: the same index loaded (no store: each thread reads its own elements, twice over), and an index the
// verifier cannot evaluate (a function argument: nothing claimed).
func.func @taken(%p: !llvm.ptr<1>, %u: i32, %v: vector<4xf32>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %t0 = arith.index_cast %tid : index to i32
  %c64 = arith.constant 64 : i32
  %t = arith.remui %t0, %c64 : i32
  %a = cutlass.block_striped.load_add %p, %t, %v n_threads_in_block = 64 : !llvm.ptr<1>, vector<4xf32> -> vector<4xf32>
  cutlass.block_striped.store %a, %p, %u n_threads_in_block = 64 : vector<4xf32>, !llvm.ptr<1>
  func.return
}
// CHECK: func.func @taken

// -----

// Taken: tid % 128 over two warp groups, each reducing into its own tile (the base offset by the warp group:
// CUTLASS's Stream-K fix-up layout).
func.func @one_tile_per_warp_group(%p: !llvm.ptr<1>, %v: vector<4xf32>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %t0 = arith.index_cast %tid : index to i32
  %c128 = arith.constant 128 : i32
  %t = arith.remui %t0, %c128 : i32
  %wg = arith.divui %t0, %c128 : i32
  %c512 = arith.constant 512 : i32
  %off = arith.muli %wg, %c512 : i32
  %q = llvm.getelementptr %p[%off] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  cutlass.block_striped.reduce add %v, %q, %t n_threads_in_block = 128 : vector<4xf32>, !llvm.ptr<1>
  func.return
}
// CHECK: func.func @one_tile_per_warp_group

// -----

// Taken: two warp groups atomically adding their partial sums into one tile (tid % 128: one index, two threads;
// the reduce is atomic).
func.func @two_warp_groups_reduce_into_one_tile(%p: !llvm.ptr<1>, %v: vector<4xf32>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %t0 = arith.index_cast %tid : index to i32
  %c128 = arith.constant 128 : i32
  %t = arith.remui %t0, %c128 : i32
  cutlass.block_striped.reduce add %v, %p, %t n_threads_in_block = 128 : vector<4xf32>, !llvm.ptr<1>
  func.return
}
// CHECK: func.func @two_warp_groups_reduce_into_one_tile

// -----

// Loop-carried tile pointers (session 40): each 64-thread half of the CTA stores tid % 64 into its own tile, a pointer
// carried through the loop's iteration argument.  Threads 0 and 64 take index 0 but store to different tiles: no
// race (before, every block argument counted as the same for all threads, so this valid kernel was refused).
func.func @loop_carried_tile_per_half(%p: !llvm.ptr<1>, %v: vector<4xf32>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %t0 = arith.index_cast %tid : index to i32
  %c64 = arith.constant 64 : i32
  %t = arith.remui %t0, %c64 : i32
  %half = arith.divui %t0, %c64 : i32
  %c1024 = arith.constant 1024 : i32
  %off = arith.muli %half, %c1024 : i32
  %own = llvm.getelementptr %p[%off] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %last = scf.for %i = %lb to %ub step %st iter_args(%q = %own) -> (!llvm.ptr<1>) {
    cutlass.block_striped.store %v, %q, %t n_threads_in_block = 64 : vector<4xf32>, !llvm.ptr<1>
    scf.yield %q : !llvm.ptr<1>
  }
  func.return
}
// CHECK-LABEL: func.func @loop_carried_tile_per_half
// CHECK: cutlass.block_striped.store

// -----

// The same store with the pointer carried unchanged from a kernel parameter: the same tile for every thread, so
// threads 0 and 64 race.
func.func @loop_carried_shared_tile(%p: !llvm.ptr<1>, %v: vector<4xf32>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %t0 = arith.index_cast %tid : index to i32
  %c64 = arith.constant 64 : i32
  %t = arith.remui %t0, %c64 : i32
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %last = scf.for %i = %lb to %ub step %st iter_args(%q = %p) -> (!llvm.ptr<1>) {
    cutlass.block_striped.store %v, %q, %t n_threads_in_block = 64 : vector<4xf32>, !llvm.ptr<1>
    scf.yield %q : !llvm.ptr<1>
  }
  func.return
}
// CHECK: error: 'cutlass.block_striped.store' op threads 0 and 64 both take thread_idx 0

// -----

// thread_idx is an i32: tid * 65536 * 65536 wraps to 0 for every thread, which a reduce may share (it combines
// atomically).  Before, the evaluator kept unbounded integers and reported 0..545460846592 as outside 0..127.
func.func @index_wraps_to_zero(%smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %t0 = arith.index_cast %tid : index to i32
  %c = arith.constant 65536 : i32
  %t1 = arith.muli %t0, %c : i32
  %t = arith.muli %t1, %c : i32
  %v = arith.constant dense<1.000000e+00> : vector<8xf32>
  cutlass.block_striped.reduce add %v, %smem, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<3>
  func.return
}
// CHECK-LABEL: func.func @index_wraps_to_zero
// CHECK: cutlass.block_striped.reduce add

// -----

// A tile pointer passed through a cf branch (session 40 review M1: cf block arguments were not followed, so the
// race refusal was skipped): the kernel parameter reaches the store unchanged, the same tile for every thread of
// the warp group, and threads 0 and 64 of it take index 0.
func.func @branch_carried_shared_tile(%p: !llvm.ptr<1>, %v: vector<4xf32>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>} {
  cf.br ^bb1(%p : !llvm.ptr<1>)
^bb1(%q: !llvm.ptr<1>):
  cutlass.async.exec warpgroup mask(2) {
    %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %t0 = arith.index_cast %tid : index to i32
    %c64 = arith.constant 64 : i32
    %t = arith.remui %t0, %c64 : i32
    cutlass.block_striped.store %v, %q, %t n_threads_in_block = 64 : vector<4xf32>, !llvm.ptr<1>
  }
  func.return
}
// CHECK: error: 'cutlass.block_striped.store' op threads 128 and 192 both take thread_idx 0

// -----

// The same branch passing each half of the warp group its own tile: no race.
func.func @branch_carried_tile_per_half(%p: !llvm.ptr<1>, %v: vector<4xf32>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>} {
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %t0 = arith.index_cast %tid : index to i32
  %c64 = arith.constant 64 : i32
  %half = arith.divui %t0, %c64 : i32
  %c1024 = arith.constant 1024 : i32
  %off = arith.muli %half, %c1024 : i32
  %own = llvm.getelementptr %p[%off] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
  cf.br ^bb1(%own : !llvm.ptr<1>)
^bb1(%q: !llvm.ptr<1>):
  cutlass.async.exec warpgroup mask(2) {
    %tid1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %t1 = arith.index_cast %tid1 : index to i32
    %t = arith.remui %t1, %c64 : i32
    cutlass.block_striped.store %v, %q, %t n_threads_in_block = 64 : vector<4xf32>, !llvm.ptr<1>
  }
  func.return
}
// CHECK-LABEL: func.func @branch_carried_tile_per_half
// CHECK: cutlass.block_striped.store

// -----

// A shift by the integer's width or more is poison (session 40 review L3): nothing is claimed about such an
// index (before, (tid - 200) >>s 40 in i32 was evaluated as -1 for threads below 200 and refused).
func.func @shift_past_the_width(%smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %t0 = arith.index_cast %tid : index to i32
  %c200 = arith.constant 200 : i32
  %d = arith.subi %t0, %c200 : i32
  %c40 = arith.constant 40 : i32
  %t = arith.shrsi %d, %c40 : i32
  %v = arith.constant dense<1.000000e+00> : vector<8xf32>
  cutlass.block_striped.reduce add %v, %smem, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<3>
  func.return
}
// CHECK-LABEL: func.func @shift_past_the_width
// CHECK: cutlass.block_striped.reduce add
