// A warp-specialized mainloop whose consumer groups take part as a runtime participants matrix says
// (cutlass.pipeline.make_participants custom(%use0, %use1), init dynamic(...)): the lowering waits on the
// empty barriers only when some group takes part, so with both zero the producer would refill stages the
// consumers (which consume regardless) still read.  Found by user sweep 31: `tileorch check` proved it with the
// static masks' arrival counts ("OK: all properties hold", exit 0); now a located "cannot model", non-zero exit.
// RUN: not tileorch check %s --jobs 1 2>&1 | filecheck %s
// CHECK: dynamic_participants_not_modelled.mlir:13:5: error: the checker cannot model a pipeline whose participants are chosen at run time
// CHECK-NOT: all properties hold
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>} {
  func.func @dynamic_consumers(%k_tiles: i32, %smem: !llvm.ptr<3>, %src: !llvm.ptr<1>, %use0: i32, %use1: i32) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
    %dp = cutlass.pipeline.make_participants custom(%use0, %use1) : !cutlass.dynamic_participants<1, 2>
    %ready = cutlass.pipeline.init %pipe dynamic(%dp) {numStages = 4 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, transaction_size = array<i32: 4096>}
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
            %sidx = arith.muli %idx, %bytes : i32
            // the stages 1024 bytes past the 4 x 2 barriers at %smem (session 41: stage 0 was copied onto them)
            %data = arith.constant 1024 : i32
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
