// RUN: tileorch-opt %S/../../../examples/ws_pipeline.mlir -p cutlass-stamp-arrive-counts,lower-cutlass-pipeline-to-tileas | filecheck %s
// One TileAS pipeline per cutlass pipeline; the executor switch becomes an agent switch
// (warp 0; warps 4..11); acquire/commit and wait/release pairs of one state become stage regions
// of that pipeline, with their handshake ops inside.
// CHECK:      %[[R:.*]] = cutlass.pipeline.init
// CHECK-NEXT: %[[T:.*]] = nv_tileas.async.pipeline.create_pipeline %[[R]] {num_stages = 4 : i32, producer_group = 0 : i32, consumer_group = 1 : i32}
// CHECK:      nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 1, 8>, warp_id = array<i32: 0, 4>, agent_strides = array<i32: 0, 0>}
// CHECK:        nv_tileas.async.pipeline.producer %[[T]][%[[S:.*]]] : !nv_tileas.pipeline<4>, !cutlass.pipeline_state<4> {
// CHECK-NEXT:     cutlass.pipeline.producer_acquire %[[R]], %[[S]]
// CHECK-NEXT:     cutlass.pipeline.get_producer_barrier
// CHECK:          atom.bulk_copy_g2s
// CHECK:          cutlass.pipeline.producer_commit %[[R]], %[[S]] {transaction_bytes = 4096 : i32}
// CHECK-NEXT:     nv_tileas.async.pipeline.yield
// CHECK:        nv_tileas.async.pipeline.consumer %[[T]][%[[C:.*]]] : !nv_tileas.pipeline<4>, !cutlass.pipeline_state<4> {
// CHECK-NEXT:     cutlass.pipeline.consumer_wait %[[R]], %[[C]] token
// CHECK:          cutlass.pipeline.consumer_release %[[R]], %[[C]]
// CHECK-NEXT:     nv_tileas.async.pipeline.yield
