// RUN: tileorch-opt %s --verify-diagnostics -p tileas-rewrite-pipeline-iterator-types | filecheck %s
!sa = tensor<64x64xf16, #nv_tileas.layout<smem>>
!pipe = !nv_tileas.async.pipeline<2, tuple<!sa>>
!it = !nv_tileas.async.pipeline.iterator<any, 2, tuple<!sa>>
builtin.module {
  nv_tileaa.func @k() {
    %p = nv_tileas.async.pipeline.create_pipeline {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !pipe
    %it = nv_tileas.async.pipeline.create_iterator %p : !pipe -> !it
    %g = nv_tileas.async.pipeline.producer_acquire %p, %it : !pipe, !it
    %n = nv_tileas.async.pipeline.inc_iter %it : !it
    %w = nv_tileas.async.pipeline.consumer_wait %p, %n {consumer_idx = 0 : i32} : !pipe, !it -> !nv_tileas.async.pipeline.consumer_token<0>
    nv_tileaa.return
  }
}
// CHECK: rewrite_pipeline_iterator_types_errors.mlir:8:5: error: a pipeline iterator is used by both the producer and the consumer side; create one iterator per side
