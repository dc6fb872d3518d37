// Rule: groups, warps and thread counts an op names are threads of the block that runs it: the CTA
// size in effect (an enclosing `cta` executor's threads(N), else the kernel's nvvm.reqntid /
// nvvm.maxntid) or, for the threads that run an op, its enclosing executor set.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Three sequence-barrier groups of 128 threads in a 256-thread CTA.
func.func @seq_bar_groups() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
  %s = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 3>
  %r = cutlass.seq_bar.init %s group_size(128)
  func.return
}
// CHECK: threads_in_block_invalid.mlir:[[# @LINE - 3]]:3: error: 'cutlass.seq_bar.init' op 3 groups of group_size 128 need 384 threads, but the CTA has 256 (the kernel's nvvm.reqntid): each group is a distinct set of the CTA's threads

// -----

// The whole-CTA executor's size bounds the groups too.
func.func @seq_bar_in_cta_exec() {
  cutlass.async.exec cta mask(1) threads(128) {
    %s = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 1, length = 2>
    %r = cutlass.seq_bar.init %s group_size(128)
  }
  func.return
}
// CHECK: threads_in_block_invalid.mlir:[[# @LINE - 4]]:5: error: 'cutlass.seq_bar.init' op 2 groups of group_size 128 need 256 threads, but the CTA has 128 (threads(128) of the enclosing cta executor)

// -----

// Warp 8 of a 256-thread (8-warp) CTA does not exist: nobody would initialise the barriers.
func.func @seq_bar_init_warp() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>} {
  %s = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %r = cutlass.seq_bar.init %s group_size(128) initializing_warp(8)
  func.return
}
// CHECK: threads_in_block_invalid.mlir:[[# @LINE - 3]]:3: error: 'cutlass.seq_bar.init' op initializing_warp 8 (threads 256..287) is not a warp of the CTA, which has 256 threads (the kernel's nvvm.maxntid); no thread would initialise the barriers

// -----

// A 256-thread block-striped store in a 128-thread CTA.
func.func @striped_block(%p: !llvm.ptr<1>, %t: i32, %v: vector<4xf32>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  cutlass.block_striped.store %v, %p, %t n_threads_in_block = 256 : vector<4xf32>, !llvm.ptr<1>
  func.return
}
// CHECK: threads_in_block_invalid.mlir:[[# @LINE - 3]]:3: error: 'cutlass.block_striped.store' op n_threads_in_block = 256 but the CTA (the kernel's nvvm.reqntid) runs 128 threads: the stripes of threads 128..255 would never be moved

// -----

// ... or in a one-warp executor.
func.func @striped_executor(%p: !llvm.ptr<1>, %t: i32) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
  cutlass.async.exec warp mask(0x2) {
    %v = cutlass.block_striped.load %p, %t n_threads_in_block = 128 : !llvm.ptr<1> -> vector<4xf32>
  }
  func.return
}
// CHECK: threads_in_block_invalid.mlir:[[# @LINE - 4]]:5: error: 'cutlass.block_striped.load' op n_threads_in_block = 128 but the enclosing warp executor (mask 0x2) runs 32 threads: the stripes of threads 32..127 would never be moved

// -----

// Two Stream-K fix-up warp groups need 256 threads; the CTA has 128.
func.func @fixup_groups(%s: !cutlass.tile_scheduler<streamk>, %w: !cutlass.streamk_work_tile_info) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  cutlass.tile_scheduler.fixup_increment %s, %w {barrier_idx = 1 : i32, num_barriers = 2 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
  func.return
}
// CHECK: threads_in_block_invalid.mlir:[[# @LINE - 3]]:3: error: num_barriers = 2 fix-up warp groups need 256 threads, but the CTA has 128 (the kernel's nvvm.reqntid)
