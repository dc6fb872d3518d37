// A 2x2-cluster TMA mainloop with per-load multicast masks (CUTLASS sm90 collective mma,
// cutlass-semantics.md §3.5): the A tile of a stage is shared by the CTAs with the same x (M)
// coordinate, the B tile by the CTAs with the same y (N); each CTA loads one half of each and
// multicasts its A half along its row (get_producer_mask row) and its B half along its column
// (get_producer_mask col).  Every stage receives 8192 bytes of A and 8192 of B; the empty barrier
// counts the union of the receivers: (2 + 2 - 1) arrivals per consumer warp group.
// A second, CTA-scoped pipeline hands a per-stage value from the producer warp group's warp 1 to
// the consumers of the same CTA (CUTLASS PipelineAsync): local counts and releases.
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @mcast_2x2(%tmap_a: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant},
      %tmap_b: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant},
      %k_tiles: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
    %smem = atom.dynamic_smem : !llvm.ptr<3>
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>,
        participants = array<i64: 0x1>, consumers = array<i64: 0x2, 0x4>, transaction_size = array<i32: 16384>}
    %lpipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
    %local = cutlass.pipeline.init %lpipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>,
        participants = array<i64: 0x2>, consumers = array<i64: 0xff0>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warpgroup mask(0x1) regs(40) {
      cutlass.async.exec warp mask(0x1) {
        %leader = nvvm.elect.sync -> i1
        %mask_a = cutlass.pipeline.get_producer_mask %ready row
        %mask_b = cutlass.pipeline.get_producer_mask %ready col
        %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
        %c2 = arith.constant 2 : i32
        %x = arith.remui %rank, %c2 : i32
        %y = arith.divui %rank, %c2 : i32
        %start = cutlass.pipeline.state.create %ready producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.producer_acquire %ready, %s
          scf.if %leader {
            %fb = cutlass.pipeline.get_producer_barrier %ready, %s
            %idx = cutlass.pipeline.state.get_index %s
            %stage = arith.constant 16384 : i32
            %half = arith.constant 4096 : i32
            %b_base = arith.constant 8192 : i32
            %soff = arith.muli %idx, %stage : i32
            // my half of A (rows y*64..): lands at the same offset in both CTAs of my row
            %a_part = arith.muli %y, %half : i32
            %a_off = arith.addi %soff, %a_part : i32
            %adst = llvm.getelementptr %smem[%a_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %adst7 = llvm.addrspacecast %adst : !llvm.ptr<3> to !llvm.ptr<7>
            %c64 = arith.constant 64 : i32
            %kc = arith.muli %k, %c64 : i32
            %arow = arith.muli %y, %c64 : i32
            nvvm.cp.async.bulk.tensor.shared.cluster.global %adst7, %tmap_a, %fb, box[%kc, %arow] multicast_mask = %mask_a {cutlass.tx_bytes = 4096 : i32} : !llvm.ptr<7>, !llvm.ptr
            // my half of B (rows x*64..): lands in both CTAs of my column
            %b_part = arith.muli %x, %half : i32
            %b_off0 = arith.addi %soff, %b_base : i32
            %b_off = arith.addi %b_off0, %b_part : i32
            %bdst = llvm.getelementptr %smem[%b_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %bdst7 = llvm.addrspacecast %bdst : !llvm.ptr<3> to !llvm.ptr<7>
            %brow = arith.muli %x, %c64 : i32
            nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst7, %tmap_b, %fb, box[%kc, %brow] multicast_mask = %mask_b {cutlass.tx_bytes = 4096 : i32} : !llvm.ptr<7>, !llvm.ptr
          }
          cutlass.pipeline.producer_commit %ready, %s {transaction_bytes = 16384 : i32}
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %ready, %last
      }
      cutlass.async.exec warp mask(0x2) {
        %start = cutlass.pipeline.state.create %local producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.producer_acquire %local, %s
          cutlass.pipeline.producer_commit %local, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %local, %last
      }
    }
    cutlass.async.exec warpgroup mask(0x6) regs(232) {
      %start = cutlass.pipeline.state.create %ready consumer
      %lstart = cutlass.pipeline.state.create %local consumer
      %last, %llast = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start, %ls = %lstart) -> (!cutlass.pipeline_state<2>, !cutlass.pipeline_state<2>) : i32 {
        cutlass.pipeline.consumer_wait %local, %ls
        cutlass.pipeline.consumer_release %local, %ls
        cutlass.pipeline.consumer_wait %ready, %s
        cutlass.pipeline.consumer_release %ready, %s
        %next = cutlass.pipeline.state.increment %s
        %lnext = cutlass.pipeline.state.increment %ls
        scf.yield %next, %lnext : !cutlass.pipeline_state<2>, !cutlass.pipeline_state<2>
      }
    }
    func.return
  }
}
