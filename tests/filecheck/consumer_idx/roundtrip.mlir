// consumer_idx on the consumer stage region (nv_tileas.async.pipeline.consumer) and on
// cutlass.pipeline.consumer_wait: printed and parsed in the custom and generic forms.
// RUN: tileorch-opt %s | filecheck %s
// RUN: tileorch-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: tileorch-opt %s --print-op-generic | tileorch-opt | filecheck %s
// RUN: tileorch-opt %s | tileorch-opt | filecheck %s

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @regions(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>}
    %t = nv_tileas.async.pipeline.create_pipeline %ready {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2> -> !nv_tileas.pipeline<2>
    cutlass.async.exec warp mask(0xf00) {
      %s = cutlass.pipeline.state.create %ready consumer
      nv_tileas.async.pipeline.consumer %t[%s] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> attributes {consumer_idx = 1 : i32} {
        cutlass.pipeline.consumer_wait %ready, %s {consumer_idx = 1 : i32}
        cutlass.pipeline.consumer_release %ready, %s
        nv_tileas.async.pipeline.yield
      }
    }
    func.return
  }
}
// CHECK:      nv_tileas.async.pipeline.consumer %{{.*}}[%{{.*}}] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> attributes {consumer_idx = 1 : i32} {
// CHECK-NEXT:   cutlass.pipeline.consumer_wait %{{.*}}, %{{.*}} {consumer_idx = 1 : i32}
// GENERIC:    "nv_tileas.async.pipeline.consumer"(%{{.*}}, %{{.*}}) <{consumer_idx = 1 : i32}>
// GENERIC:    "cutlass.pipeline.consumer_wait"(%{{.*}}, %{{.*}}) <{consumer_idx = 1 : i32}>
