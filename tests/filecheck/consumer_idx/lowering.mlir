// Seed 002 "Pipeline Lowering": lower-cutlass-pipeline-to-tileas passes the consumer index of a
// cutlass consumer wait on to the TileAS consumer region (replace_with_consumer_wait(as_pipeline,
// op.stage, op.consumer_idx)).  Without an explicit consumer_idx on the wait, the index is the
// consumer group (of cutlass.pipeline.init's `consumers`) that the wait's executor runs; a region
// whose executor spans several consumer groups gets none.
// RUN: tileorch-opt %s --split-input-file -p lower-cutlass-pipeline-to-tileas | filecheck %s
// The regions, consumer_idx included, then lower to mbarrier code like the cutlass form:
// RUN: tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts,lower-cutlass-pipeline-to-tileas,convert-pipeline-to-nvvm | filecheck %s --check-prefix=NVVM
// NVVM-NOT: nv_tileas.async.pipeline
// NVVM-NOT: cutlass.pipeline.consumer_wait
// NVVM:     nvvm.mbarrier.try_wait.parity

// Two consumer groups (warps 4-7, warps 8-11), one switch arm each.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @per_group(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>}
    cutlass.async.exec warp mask(0xff1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %s = cutlass.pipeline.state.create %p producer
        cutlass.pipeline.producer_acquire %p, %s
        cutlass.pipeline.producer_commit %p, %s
      } case masks(0xf0) args(%q = %ready) {
        %s = cutlass.pipeline.state.create %q consumer
        cutlass.pipeline.consumer_wait %q, %s
        cutlass.pipeline.consumer_release %q, %s
      } case masks(0xf00) args(%r = %ready) {
        %s = cutlass.pipeline.state.create %r consumer
        cutlass.pipeline.consume %r, %s {
        }
      }
    }
    func.return
  }
}
// CHECK-LABEL: func.func @per_group
// CHECK:       nv_tileas.async.pipeline.agent_switch
// CHECK:         nv_tileas.async.pipeline.producer %{{.*}}[%{{.*}}] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> {
// CHECK:         nv_tileas.async.pipeline.consumer %{{.*}}[%{{.*}}] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> attributes {consumer_idx = 0 : i32} {
// CHECK-NEXT:      cutlass.pipeline.consumer_wait
// CHECK:         nv_tileas.async.pipeline.consumer %{{.*}}[%{{.*}}] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> attributes {consumer_idx = 1 : i32} {
// CHECK-NEXT:      cutlass.pipeline.consumer_wait
// CHECK-NEXT:      cutlass.pipeline.consumer_release
// CHECK-NEXT:      nv_tileas.async.pipeline.yield

// -----

// An explicit consumer_idx on the wait is what the region carries (here the arm runs both
// groups, so the index could not be derived).
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @explicit(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>}
    cutlass.async.exec warp mask(0xff1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %s = cutlass.pipeline.state.create %p producer
        cutlass.pipeline.producer_acquire %p, %s
        cutlass.pipeline.producer_commit %p, %s
      } case masks(0xff0) args(%q = %ready) {
        %s = cutlass.pipeline.state.create %q consumer
        cutlass.pipeline.consumer_wait %q, %s {consumer_idx = 1 : i32}
        cutlass.pipeline.consumer_release %q, %s
      }
    }
    func.return
  }
}
// CHECK-LABEL: func.func @explicit
// CHECK:       nv_tileas.async.pipeline.consumer %{{.*}}[%{{.*}}] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> attributes {consumer_idx = 1 : i32} {
// CHECK-NEXT:    cutlass.pipeline.consumer_wait %{{.*}}, %{{.*}} {consumer_idx = 1 : i32}

// -----

// One consumer group: consumer_idx = 0.  A region spanning two groups: none (as in
// examples/ws_pipeline.mlir, where warp groups 1 and 2 consume cooperatively).
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @single(%smem: !llvm.ptr<3>, %smem2: !llvm.ptr<3>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0>}
    %pipe2 = cutlass.pipeline.create storage(%smem2) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %ready2 = cutlass.pipeline.init %pipe2 {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>}
    cutlass.async.exec warp mask(0xf0) {
      %s = cutlass.pipeline.state.create %ready consumer
      cutlass.pipeline.consume %ready, %s {
      }
    }
    cutlass.async.exec warp mask(0xff0) {
      %s2 = cutlass.pipeline.state.create %ready2 consumer
      cutlass.pipeline.consumer_wait %ready2, %s2
      cutlass.pipeline.consumer_release %ready2, %s2
    }
    func.return
  }
}
// CHECK-LABEL: func.func @single
// CHECK:       nv_tileas.async.pipeline.consumer %{{.*}}[%{{.*}}] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> attributes {consumer_idx = 0 : i32} {
// CHECK:       nv_tileas.async.pipeline.consumer %{{.*}}[%{{.*}}] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> {
// CHECK-NEXT:    cutlass.pipeline.consumer_wait
