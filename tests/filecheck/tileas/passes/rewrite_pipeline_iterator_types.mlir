// RUN: tileorch-opt %s -p tileas-materialize-schedule,tileas-rewrite-pipeline-iterator-types | filecheck %s

// The iterators of a materialized K loop: the consumer chain (create, loop slot, inc_iter,
// loop result) and the producer chain get their side in their types.
#sm = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
#acc = #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 64, 16], warps = [4, 1]>
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%va: !va, %nk: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = arith.constant true
    %r = scf.for %k = %c0 to %nk step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #acc>) : i32 {
      %a = nv_tileas.tiled_load %va[%k, %k] {atom = #nv_tileas.sm_tma_load<[64, 64]>} : !va [i32, i32] -> tensor<64x64xf16, #sm>
      %d = nv_tileas.dot %a, %a, %acc, %t {atom = #nv_tileas.mma.sm90<[64, 64, 16]>} : tensor<64x64xf16, #sm>, tensor<64x64xf16, #sm>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
      scf.yield %d : tensor<64x64xf32, #acc>
    }
    nv_tileaa.return
  }
}
// CHECK: %[[C:.*]] = nv_tileas.async.pipeline.create_iterator %{{.*}} -> !nv_tileas.async.pipeline.iterator<consumer, [[D:[0-9]+]], tuple<tensor<64x64xf16, {{.*}}>>>
// CHECK: %[[P:.*]] = nv_tileas.async.pipeline.create_iterator %{{.*}} -> !nv_tileas.async.pipeline.iterator<producer, [[D]], tuple<tensor<64x64xf16, {{.*}}>>>
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, {{.*}}>, !nv_tileas.async.pipeline.iterator<consumer,
// CHECK: nv_tileas.async.pipeline.consumer_wait {{.*}} !nv_tileas.async.pipeline.iterator<consumer,
// CHECK: nv_tileas.async.pipeline.inc_iter {{.*}} : !nv_tileas.async.pipeline.iterator<consumer,
// CHECK: scf.for {{.*}} -> (!nv_tileas.async.pipeline.iterator<producer,
// CHECK: nv_tileas.async.pipeline.producer_acquire {{.*}} !nv_tileas.async.pipeline.iterator<producer,
// CHECK-NOT: iterator<any
