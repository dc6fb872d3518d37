// Regression (GPU conformance kernel cluster_1x2_s4_g2x4w, 43 iterations, without group sync):
// on a cluster pipeline consumer_release arrives on each same-row/column CTA's empty barrier from
// ONE thread per consumer warp group, on behalf of all 128.  Nothing orders the other threads'
// shared-memory reads before that arrive, so a producer may overwrite a stage still being read
// (seen: CTA 1, consumer group 0, iteration 33 read iteration 37's words).  The single-CTA release
// is safe (every consumer thread arrives); the cluster release must be too: synchronise the group
// (bar.sync on a named barrier over its threads; bar.warp.sync for a one-warp group) before the
// signalling threads arrive.  Expected to fail until then; remove the XFAIL line with the fix.
// XFAIL: *
// RUN: tileorch-opt %s -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 2, 1>} {
  func.func @release() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0>, transaction_size = array<i32: 1024>}
    cutlass.async.exec warp mask(0xf0) {
      %s = cutlass.pipeline.state.create %ready consumer
      cutlass.pipeline.consumer_release %ready, %s
    }
    func.return
  }
}

// CHECK:     nvvm.cluster.wait
// CHECK:     nvvm.barrier
// CHECK:     nvvm.mapa
// CHECK:     nvvm.mbarrier.arrive
