// RUN: tileorch-opt %S/../../../examples/coop_pipeline.mlir -p cutlass-allocate-barrier-ids,cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s
// RUN: tileorch-opt %s -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s --check-prefix=GUARDED
// The produce body runs on the whole producer warp (the acquire's wait stays warp-wide), but its
// unguarded bulk copy is issued by the producer group's first thread only: the copy sits in an
// scf.if on `tid - 0 < 1`, before the commit's leader arrives with expect_tx.
// CHECK:      nvvm.mbarrier.try_wait.parity
// CHECK:      %[[D:.*]] = llvm.sub %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[LEAD:.*]] = llvm.icmp "ult" %[[D]], %[[ONE]] : i32
// CHECK-NEXT: scf.if %[[LEAD]] {
// CHECK-NEXT:   atom.bulk_copy_g2s
// CHECK-NEXT: }
// CHECK:      nvvm.mbarrier.arrive.expect_tx
// A copy the body already guards is left alone (no second guard around it).
// GUARDED:      %[[L:.*]] = nvvm.elect.sync -> i1
// GUARDED-NEXT: scf.if %[[L]] {
// GUARDED-NEXT:   atom.bulk_copy_g2s
// GUARDED-NEXT: }
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @guarded(%n: i32, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, transaction_size = array<i32: 1024>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x1) {
      %start = cutlass.pipeline.state.create %ready producer
      %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
        cutlass.pipeline.produce %ready, %s {
          %full = cutlass.pipeline.get_full_barrier %ready, %s
          %bytes = arith.constant 1024 : i32
          %smem = atom.dynamic_smem : !llvm.ptr<3>
          %l = nvvm.elect.sync -> i1
          scf.if %l {
            atom.bulk_copy_g2s %smem, %src, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
        }
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<2>
      }
      cutlass.pipeline.producer_tail %ready, %last
    }
    func.return
  }
}
