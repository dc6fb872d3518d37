// consumer_idx verifier rules (dialects/cutlass/consumer_index.py): below the pipeline's number of
// consumers (tileiras's diagnostic "expected 'consumer_idx' less than the number of consumer "),
// non-negative, on threads of that consumer group, and the same on a region and its wait.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @region_too_large(%smem: !llvm.ptr<3>) {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>}
    %t = nv_tileas.async.pipeline.create_pipeline %ready {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2> -> !nv_tileas.pipeline<2>
    cutlass.async.exec warp mask(0xf00) {
      %s = cutlass.pipeline.state.create %ready consumer
      nv_tileas.async.pipeline.consumer %t[%s] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> attributes {consumer_idx = 2 : i32} {
        nv_tileas.async.pipeline.yield
      }
    }
    func.return
  }
}
// CHECK: invalid.mlir:13:{{[0-9]+}}: error: expected 'consumer_idx' less than the number of consumer 2, got 2

// -----

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @wait_too_large(%smem: !llvm.ptr<3>) {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0>}
    cutlass.async.exec warp mask(0xf0) {
      %s = cutlass.pipeline.state.create %ready consumer
      cutlass.pipeline.consumer_wait %ready, %s {consumer_idx = 1 : i32}
    }
    func.return
  }
}
// CHECK: invalid.mlir:30:{{[0-9]+}}: error: expected 'consumer_idx' less than the number of consumer 1, got 1

// -----

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @negative(%smem: !llvm.ptr<3>) {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0>}
    cutlass.async.exec warp mask(0xf0) {
      %s = cutlass.pipeline.state.create %ready consumer
      cutlass.pipeline.consumer_wait %ready, %s {consumer_idx = -1 : i32}
    }
    func.return
  }
}
// CHECK: invalid.mlir:45:{{[0-9]+}}: error: expected 'consumer_idx' to be non-negative, got -1

// -----

// consumer_idx = 0 names warps 4-7, but the region runs in warps 8-11 (consumer group 1).
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @wrong_group(%smem: !llvm.ptr<3>) {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>}
    %t = nv_tileas.async.pipeline.create_pipeline %ready {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2> -> !nv_tileas.pipeline<2>
    cutlass.async.exec warp mask(0xf00) {
      %s = cutlass.pipeline.state.create %ready consumer
      nv_tileas.async.pipeline.consumer %t[%s] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> attributes {consumer_idx = 0 : i32} {
        nv_tileas.async.pipeline.yield
      }
    }
    func.return
  }
}
// CHECK: invalid.mlir:62:{{[0-9]+}}: error: consumer_idx = 0 names consumer group 0 of the pipeline (threads 128..255), but the enclosing warp executor (mask 0xf00) runs threads 256..383

// -----

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @region_and_wait_differ(%smem: !llvm.ptr<3>) {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>}
    %t = nv_tileas.async.pipeline.create_pipeline %ready {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2> -> !nv_tileas.pipeline<2>
    cutlass.async.exec warp mask(0xff0) {
      %s = cutlass.pipeline.state.create %ready consumer
      nv_tileas.async.pipeline.consumer %t[%s] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> attributes {consumer_idx = 1 : i32} {
        cutlass.pipeline.consumer_wait %ready, %s {consumer_idx = 0 : i32}
        cutlass.pipeline.consumer_release %ready, %s
        nv_tileas.async.pipeline.yield
      }
    }
    func.return
  }
}
// CHECK: invalid.mlir:80:{{[0-9]+}}: error: expected 'consumer_idx' in cutlass.pipeline.consumer_wait to be the same as 'consumer_idx' attribute of this operation (0 vs 1)
