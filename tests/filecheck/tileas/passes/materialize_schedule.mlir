// RUN: tileorch-opt %s --split-input-file -p tileas-materialize-schedule | filecheck %s
// RUN: tileorch-opt %s --split-input-file -p 'tileas-materialize-schedule{smem-budget=100000}' | filecheck %s --check-prefix=SMALL

// A K loop of two TMA loads and a dot: 128x64 + 64x128 f16 = 32 KiB a stage; the epilogue holds
// a 32 KiB tile in shared memory, so 6 stages fit in 227 KiB (2 in 100000 bytes).
#sm = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
#acc = #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [8, 1]>
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm(%va: !va, %vb: !vb, %vc: !vc, %nk: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %p0 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p1 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = arith.constant true
    %r = scf.for %k = %c0 to %nk step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #acc>) : i32 {
      %kk = arith.addi %k, %c1 : i32
      %a = nv_tileas.tiled_load %va[%p0, %kk] {atom = #nv_tileas.sm_tma_load<[64, 128]>} : !va [i32, i32] -> tensor<128x64xf16, #sm>
      %b = nv_tileas.tiled_load %vb[%k, %p1] {atom = #nv_tileas.sm_tma_load<[64, 64]>} : !vb [i32, i32] -> tensor<64x128xf16, #sm>
      %d = nv_tileas.dot %a, %b, %acc, %t {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<128x64xf16, #sm>, tensor<64x128xf16, #sm>, tensor<128x128xf32, #acc> -> tensor<128x128xf32, #acc>
      scf.yield %d : tensor<128x128xf32, #acc>
    }
    %h = nv_tileaa.fp_to_fp %r : tensor<128x128xf32, #acc> -> tensor<128x128xf16, #acc>
    %s = nv_tileas.convert_layout %h : tensor<128x128xf16, #acc> -> tensor<128x128xf16, #sm>
    nv_tileas.tiled_store %s, %vc[%p0, %p1] {atom = #nv_tileas.sm_tma_store<[64, 128]>} : tensor<128x128xf16, #sm>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: %[[P:.*]] = nv_tileas.async.pipeline.create_pipeline {num_stages = 6 : i32, producer_group = 0 : i32, consumer_group = 1 : i32, num_consumers = 1 : i32} : !nv_tileas.async.pipeline<6, tuple<tensor<128x64xf16, {{.*}}>, tensor<64x128xf16, {{.*}}>>>
// CHECK: %[[ITC:.*]] = nv_tileas.async.pipeline.create_iterator %[[P]]
// CHECK: %[[ITP:.*]] = nv_tileas.async.pipeline.create_iterator %[[P]]
// CHECK: nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 8, 1>, max_regs = array<i32: 232, 40>, num_agents_per_group = array<i32: 1, 1>} {
// CHECK:   %[[R:.*]], %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[IT:.*]] = %[[ITC]])
// CHECK:     %[[W:.*]] = nv_tileas.async.pipeline.consumer_wait %[[P]], %[[IT]] {consumer_idx = 0 : i32}
// CHECK:     %[[RD:.*]], %[[TOK:.*]] = nv_tileas.async.pipeline.consumer_read %[[P]], %[[W]] attributes {consumer_idx = 0 : i32}
// CHECK:     ^bb{{.*}}(%[[A:.*]]: tensor<128x64xf16, {{.*}}>, %[[B:.*]]: tensor<64x128xf16, {{.*}}>):
// CHECK-NOT:   arith.addi
// CHECK:       %[[D:.*]] = nv_tileas.dot %[[A]], %[[B]], %[[ACC]]
// CHECK:       nv_tileas.async.pipeline.yield %[[D]]
// CHECK:     nv_tileas.async.pipeline.consumer_release %[[P]], %[[TOK]]
// CHECK:     %[[NEXT:.*]] = nv_tileas.async.pipeline.inc_iter %[[IT]]
// CHECK:     scf.yield %[[RD]], %[[NEXT]]
// CHECK:   nv_tileaa.fp_to_fp %[[R]]
// CHECK:   nv_tileas.tiled_store
// CHECK:   nv_tileas.async.pipeline.yield
// CHECK: } {
// CHECK:   scf.for %[[K:.*]] = %{{.*}} iter_args(%[[PIT:.*]] = %[[ITP]])
// CHECK:     %[[KK:.*]] = arith.addi %[[K]], %{{.*}} : i32
// CHECK:     %[[G:.*]] = nv_tileas.async.pipeline.producer_acquire %[[P]], %[[PIT]]
// CHECK:     %[[WR:.*]] = nv_tileas.async.pipeline.producer_write %[[P]], %[[G]] attributes {producer_value_indices = array<i32: 0, 1>}
// CHECK:     ^bb{{.*}}(%[[BA:.*]]: tensor<128x64xf16, {{.*}}>, %[[BB:.*]]: tensor<64x128xf16, {{.*}}>):
// CHECK:       %[[LA:.*]] = nv_tileas.tiled_load %{{.*}}[%{{.*}}, %[[KK]]] into %[[BA]]
// CHECK:       %[[LB:.*]] = nv_tileas.tiled_load %{{.*}}[%[[K]], %{{.*}}] into %[[BB]]
// CHECK:       nv_tileas.async.pipeline.yield %[[LA]], %[[LB]]
// CHECK:     nv_tileas.async.pipeline.producer_commit %[[P]], %[[WR]]
// CHECK:     nv_tileas.async.pipeline.inc_iter %[[PIT]]
// CHECK:   nv_tileas.async.pipeline.yield
// CHECK: nv_tileaa.return
// SMALL: create_pipeline {num_stages = 2 : i32

// -----

// A loop without TMA loads is left alone.
builtin.module {
  nv_tileaa.func @plain(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @plain
// CHECK-NOT: agent_switch
