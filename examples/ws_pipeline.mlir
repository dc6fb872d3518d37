// Warp-specialized TMA mainloop (CUTLASS PipelineTmaAsync<4>, cutlass-semantics.md §3.1/§3.5):
// warp 0 produces (one elected lane issues a 4096-byte bulk copy of k tile %k from %src into the
// stage; the leader arrives expecting those 4096 transaction bytes), warp groups 1 and 2
// (warps 4-11) consume every stage cooperatively.
// tileorch-opt examples/ws_pipeline.mlir -p cutlass-stamp-arrive-counts  => arvCount = [1, 256]
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>} {
  func.func @ws_mainloop(%k_tiles: i32, %smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, transaction_size = array<i32: 4096>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0xff1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        // Producer warp: acquire an empty stage, issue the TMA loads on its full barrier, commit.
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          %full = cutlass.pipeline.get_producer_barrier %p, %s
          // One elected lane copies the stage's 4096 bytes; they complete on %full.
          %leader = nvvm.elect.sync -> i1
          scf.if %leader {
            %bytes = arith.constant 4096 : i32
            %idx = cutlass.pipeline.state.get_index %s
            // the stages start at byte 1024, past the pipeline's 2 x 4 mbarriers at %smem
            %data = arith.constant 1024 : i32
            %sidx = arith.muli %idx, %bytes : i32
            %soff = arith.addi %sidx, %data : i32
            %dst = llvm.getelementptr %smem[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %goff = arith.muli %k, %bytes : i32
            %from = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %dst, %from, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 4096 : i32}
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
        // Do not exit while consumers may still arrive on this CTA's empty barriers.
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xff0) args(%q = %ready) {
        // Consumer warp groups: probe, wait for a full stage, run the MMAs, release the stage.
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          %stage = cutlass.pipeline.state.get_index %s
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
      }
    }
    func.return
  }
}
