// Warp-specialized streaming copy: dst[i] = src[i], moved tile by tile through shared memory.
// A complete kernel (runs on an sm_90a GPU): the streaming benchmark's kernel
// (benchmarks/stream_kernel.py, stages = 4, tile = 16 KiB, two consumer warp groups).
//
//   ws_stream_copy(src, dst, ntiles)   copies ntiles * 16384 bytes; 16-byte aligned pointers
//   block = 288 threads: warp 0 = producer, warps 1-8 (threads 32-287) = consumers
//   dynamic shared memory = 4 stages * 16384 bytes = 65536 bytes; grid = any number of CTAs
//
// Persistent CTAs: CTA c handles tiles c, c + gridDim.x, c + 2 * gridDim.x, ...
// Per tile, the pipeline (CUTLASS PipelineTmaAsync<4>, cutlass-semantics.md §3.1) hands one
// shared-memory stage from the producer to the consumers and back:
//   producer warp   acquire (empty) -> cp.async.bulk global->shared -> commit (expect 16384 tx bytes)
//   consumer warps  wait (full: arrive + 16384 bytes landed) -> copy shared->global -> release
// The full barrier of a stage completes only when the producer's arrive AND all the bulk copy's
// bytes have landed, so the transaction size must equal the tile size.
//
//   tileorch compile examples/ws_stream_copy.mlir -o ws_stream_copy.ptx
//   tileorch check examples/ws_stream_copy.mlir
//   tileorch run examples/ws_stream_copy.mlir --kernel ws_stream_copy --grid 132 --block 288 \
//       --smem 65536 --args buf:u32:1048576:iota buf:u32:1048576 i32:256
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @ws_stream_copy(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>, %ntiles: i32)
      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 288, 1, 1>} {
    // The 4 stage buffers, back to back: stage s starts at byte s * 16384 (vector s * 1024).
    %smem = atom.dynamic_smem : !llvm.ptr<3>

    // Four full + four empty mbarriers.  Producer group: warp 0 (mask 0x1, one elected thread
    // arrives, so full count = 1).  One consumer group: warps 1-8 (mask 0x1fe; every consumer
    // thread arrives on release, so empty count = 256).  The init lowers to: thread 0 initialises
    // the barriers, fence.mbarrier_init, then a CTA-wide bar.sync before any warp uses them.
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type warp>,
                                          participants = array<i64: 0x1>, consumers = array<i64: 0x1fe>,
                                          transaction_size = array<i32: 16384>}

    %c0 = arith.constant 0 : i32
    %cta = nvvm.read.ptx.sreg.ctaid.x : i32
    %ncta = nvvm.read.ptx.sreg.nctaid.x : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %vecs = arith.constant 1024 : i32        // 16-byte vectors per tile (16384 / 16)
    %vecs64 = arith.constant 1024 : i64

    // ---- Producer: warp 0 ------------------------------------------------------------------
    cutlass.async.exec warp mask(0x1) {
      %leader = arith.cmpi eq, %tid, %c0 : i32
      %bytes = arith.constant 16384 : i32
      // A producer starts at phase 1: the fresh empty barriers count as already released.
      %start = cutlass.pipeline.state.create %ready producer
      %last = scf.for %t = %cta to %ntiles step %ncta iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
        // Wait until the consumers have released this stage (its previous tile is copied out).
        cutlass.pipeline.producer_acquire %ready, %s
        scf.if %leader {
          // One thread issues the bulk copy of tile %t into stage %idx; the copy engine
          // completes its 16384 transaction bytes on the stage's full barrier %fb.
          %fb = cutlass.pipeline.get_producer_barrier %ready, %s
          %idx = cutlass.pipeline.state.get_index %s
          %sv = arith.muli %idx, %vecs : i32
          %sp = llvm.getelementptr %smem[%sv] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, vector<4xi32>
          %t64 = arith.extui %t : i32 to i64
          %gv = arith.muli %t64, %vecs64 : i64
          %gp = llvm.getelementptr %src[%gv] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
          atom.bulk_copy_g2s %sp, %gp, %fb, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
        }
        // The elected thread arrives on the full barrier expecting the tile's bytes
        // (mbarrier.arrive.expect_tx); the phase flips once the copy has landed.
        cutlass.pipeline.producer_commit %ready, %s {transaction_bytes = 16384 : i32}
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<4>
      }
      // Drain before leaving (one CTA per cluster: wait for the outstanding bulk copies).
      cutlass.pipeline.producer_tail %ready, %last
    }

    // ---- Consumers: warps 1-8, two warp groups acting as one consumer group ----------------
    cutlass.async.exec warp mask(0x1fe) {
      %c32 = arith.constant 32 : i32
      %ct = arith.subi %tid, %c32 : i32      // consumer thread 0..255
      %cstep = arith.constant 256 : i32      // consumer threads
      // A consumer starts at phase 0: it waits for the first fill of every stage.
      %start = cutlass.pipeline.state.create %ready consumer
      %last = scf.for %t = %cta to %ntiles step %ncta iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
        // Wait until tile %t is in its stage (producer arrived and all 16384 bytes landed).
        cutlass.pipeline.consumer_wait %ready, %s
        %idx = cutlass.pipeline.state.get_index %s
        %sv = arith.muli %idx, %vecs : i32
        %t64 = arith.extui %t : i32 to i64
        %gv = arith.muli %t64, %vecs64 : i64
        %gbase = llvm.getelementptr %dst[%gv] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
        // Thread j copies vectors j, j + 256, j + 512, j + 768 of the stage: 16-byte
        // ld.shared.v4 / st.global.v4, consecutive threads on consecutive addresses.
        scf.for %j = %ct to %vecs step %cstep : i32 {
          %si = arith.addi %sv, %j : i32
          %sp = llvm.getelementptr %smem[%si] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, vector<4xi32>
          %v = llvm.load %sp {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
          %gp = llvm.getelementptr %gbase[%j] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xi32>
          llvm.store %v, %gp {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
        }
        // Every consumer thread arrives on the empty barrier once its reads are done
        // (256 arrivals complete the phase): the producer may now refill the stage.
        cutlass.pipeline.consumer_release %ready, %s
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<4>
      }
    }
    func.return
  }
}
