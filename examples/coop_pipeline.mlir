// Cooperative TMA mainloop on a 2x1 cluster (CUTLASS KernelTmaWarpSpecializedCooperative,
// cutlass-semantics.md §3.1/§6.1): warp group 0 is the producer (setmaxnreg 40, one elected
// warp issues), warp groups 1 and 2 form ONE consumer group that shares every stage
// (setmaxnreg 232). Stages are handed over with the produce/consume region ops. Each CTA loads
// its half of every 8192-byte stage (4096 bytes of k tile %k from %src) and multicasts it to the
// CTAs of its cluster row, so each stage's full barrier receives 2 x 4096 transaction bytes; the
// copy in the produce body is issued by the producer group's leader thread only.
// tileorch-opt examples/coop_pipeline.mlir -p cutlass-stamp-arrive-counts
//   => arvCount = [1, 4]: (cx + cy - 1) * consumer warp groups = (2 + 1 - 1) * 2
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @coop_mainloop(%k_tiles: i32, %src: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 3, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 3 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 0x1>, consumers = array<i64: 0x6>, producer_arv_count = array<i32: 1>, transaction_size = array<i32: 8192>, compute_capability = #cutlass<pipeline_compute_capability sm90>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warpgroup mask(0x1) regs(40) {
      cutlass.async.exec warp mask(0x1) {
        // The multicast mask for the TMA loads of this CTA's stages.
        %mcast = cutlass.pipeline.get_producer_mask %ready
        %start = cutlass.pipeline.state.create %ready producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<3>) : i32 {
          cutlass.pipeline.produce %ready, %s attributes {transaction_bytes = 8192 : i32} {
            %full = cutlass.pipeline.get_full_barrier %ready, %s
            %half = arith.constant 4096 : i32
            %stage = arith.constant 8192 : i32
            %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
            %idx = cutlass.pipeline.state.get_index %s
            %base = arith.muli %idx, %stage : i32
            %part = arith.muli %rank, %half : i32
            %soff = arith.addi %base, %part : i32
            %smem = atom.dynamic_smem : !llvm.ptr<3>
            %dst = llvm.getelementptr %smem[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %ktile = arith.muli %k, %stage : i32
            %goff = arith.addi %ktile, %part : i32
            %from = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %dst, %from, %full, %half multicast %mcast : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<3>
        }
        cutlass.pipeline.producer_tail %ready, %last
      }
    }
    cutlass.async.exec warpgroup mask(0x6) regs(232) {
      %start = cutlass.pipeline.state.create %ready consumer
      %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<3>) : i32 {
        cutlass.pipeline.consume %ready, %s {
          %stage = cutlass.pipeline.state.get_index %s
          %phase = cutlass.pipeline.state.get_phase %s
        }
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<3>
      }
      %done = cutlass.pipeline.state.get_count %last
    }
    func.return
  }
}
