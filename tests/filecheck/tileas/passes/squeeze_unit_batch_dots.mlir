// RUN: tileorch-opt %s -p tileas-squeeze-unit-batch-dots | filecheck %s
// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=LOWERED
// cuTile's batched GEMM: 3-D tiles of extent 1 at program id 2, a 3-D accumulator carried by the K loop.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 1, 64, 128>, array<i32: 1, 64, 128>, array<i32: 0, 1, 2>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 1, 128, 128>, array<i32: 1, 128, 128>, array<i32: 0, 1, 2>, !m>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @bmm(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %l: i32, %m: i32, %n: i32, %k: i32, %sa: i32, %sb: i32, %sc: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %ma = nv_tileaa.make_memref %a[%l, %m, %k] [%sa, %k] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mb = nv_tileaa.make_memref %b[%l, %k, %n] [%sb, %n] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mc = nv_tileaa.make_memref %c[%l, %m, %n] [%sc, %n] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %pl = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 2 : i32} : !va -> i32
    %zero = arith.constant dense<0.0> : tensor<1x128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<1x128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%pl, %pm, %i] : !va [i32, i32, i32] -> tensor<1x128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%pl, %i, %pn] : !vb [i32, i32, i32] -> tensor<1x64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<1x128x64xf16>, tensor<1x64x128xf16>, tensor<1x128x128xf32> -> tensor<1x128x128xf32>
      scf.yield %y : tensor<1x128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<1x128x128xf32> -> tensor<1x128x128xf16>
    %t2 = nv_tileaa.tiled_store %h, %vc[%pl, %pm, %pn] : tensor<1x128x128xf16>, !vc [i32, i32, i32]
    nv_tileaa.return
  }
}
// The accumulator is reshaped once before the loop, carried in 2-D, reshaped back after it; the
// operands are reshaped in the loop, the dot is 2-D.
// CHECK:      %[[INIT:.*]] = nv_tileaa.reshape %zero : tensor<1x128x128xf32> -> tensor<128x128xf32>
// CHECK-NEXT: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[X:.*]] = %[[INIT]]) -> (tensor<128x128xf32>)
// CHECK:        %[[A:.*]] = nv_tileaa.reshape %ta : tensor<1x128x64xf16> -> tensor<128x64xf16>
// CHECK-NEXT:   %[[B:.*]] = nv_tileaa.reshape %tb : tensor<1x64x128xf16> -> tensor<64x128xf16>
// CHECK-NEXT:   %[[Y:.*]] = nv_tileaa.dot %[[A]], %[[B]], %[[X]] : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
// CHECK-NEXT:   scf.yield %[[Y]] : tensor<128x128xf32>
// CHECK:      %[[BACK:.*]] = nv_tileaa.reshape %[[LOOP]] : tensor<128x128xf32> -> tensor<1x128x128xf32>
// CHECK-NEXT: nv_tileaa.fp_to_fp %[[BACK]]
// The WGMMA kernel of a batched configuration: 3-D TMA boxes at the work tile's batch coordinate.
// LOWERED:    func.func @gemm_f16_f16_bn_128x128x64_s{{[0-9]+}}_c1x1_persistent_r40_232_heuristic_sw1_etma_batched
// LOWERED:    %tm, %tn, %tk, %tl = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl
// LOWERED:    nvvm.cp.async.bulk.tensor.shared.cluster.global %adst, %tmap_a, %fb, box[%kc, %m0, %tl]
// LOWERED:    nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %tmap_b, %fb, box[{{.*}}, %kc, %tl]
// LOWERED:    nvvm.cp.async.bulk.tensor.global.shared.cta %tmap_c, %eslot0, box[%ecol0, %row0, %tl{{(_[0-9]+)?}}]
