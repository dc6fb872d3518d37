// Ping-pong ordering of two math warp groups (CUTLASS sm90 "pingpong" kernel, 384 threads).
//
// Warp group 0 is the producer (its loads are out of scope here); warp groups 1 and 2 are math
// groups that work on different tiles. An OrderedSequenceBarrier<2, 2> (depth 2 = mainloop and
// epilogue, length 2 = the two math warp groups, group_id = warp group - 1, group_size 128)
// makes their MMA phases strictly alternate WG1, WG2, WG1, ... and their epilogues too, so WG2's
// MMA overlaps WG1's epilogue. Inside an epilogue the running warp group syncs its own
// 128 threads on the reserved epilogue named barrier (id 1); the order barrier guarantees the two
// groups never use it at the same time.
//
// `tileorch-opt examples/pingpong_seq_bar.mlir` parses, verifies and prints it
// (tests/filecheck/cutlass/barriers/pingpong_example.mlir checks that it round-trips).
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @mma_tile(%tile: i32) {
    func.return
  }
  func.func @epilogue_tile(%tile: i32) {
    func.return
  }

  func.func @pingpong_math(%num_tiles: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
    %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
    %order = cutlass.seq_bar.init %sb group_size(128)
    // Every thread waits for the barrier initialisation (bar.sync 0, 384).
    cutlass.async.exec cta mask(1) threads(384) {
      cutlass.named_barrier.arrive_and_wait barrier_id = 0
    }
    // The producer warp group 0 gives registers back (setmaxnreg.dec to 40): the math groups' increase to 232
    // takes them (40 + 2 x 232 = the 3 x 168 a CTA of 384 threads starts with; without it the increase would
    // wait forever, which the verifier reports).
    cutlass.async.exec warpgroup mask(1) regs(40) {
    }
    // Math warp groups 1 and 2 (mask 0b110).
    cutlass.async.exec warpgroup mask(6) regs(232) {
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c128 = arith.constant 128 : index
      %c1 = arith.constant 1 : index
      %wg = arith.divui %tid, %c128 : index
      %group_index = arith.subi %wg, %c1 : index
      %group = arith.index_cast %group_index : index to i32
      // group 0 starts with phase 1 and passes its first wait; group 1 waits for group 0.
      %st0 = cutlass.seq_bar.state.create %order group(%group)
      // WG1 takes tiles 0, 2, 4, ...; WG2 takes 1, 3, 5, ...
      %c2_i32 = arith.constant 2 : i32
      %last = scf.for %tile = %group to %num_tiles step %c2_i32 iter_args(%st = %st0) -> (!cutlass.seq_bar_state<2>) : i32 {
        cutlass.seq_bar.wait %order, %st group(%group)
        func.call @mma_tile(%tile) : (i32) -> ()
        %st_epi = cutlass.seq_bar.arrive %order, %st group(%group)
        cutlass.seq_bar.wait %order, %st_epi group(%group)
        func.call @epilogue_tile(%tile) : (i32) -> ()
        cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 128
        %st_next = cutlass.seq_bar.arrive %order, %st_epi group(%group)
        scf.yield %st_next : !cutlass.seq_bar_state<2>
      }
    }
    func.return
  }
}
