// RUN: tileorch-opt %s -p tileas-split-batch-tiles | filecheck %s
// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=LOWERED
// A batched GEMM whose 3-D tiles hold 2 matrices of the batch per program (program id 2).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 2, 128, 64>, array<i32: 2, 128, 64>, array<i32: 0, 1, 2>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 2, 64, 128>, array<i32: 2, 64, 128>, array<i32: 0, 1, 2>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 2, 128, 128>, array<i32: 2, 128, 128>, array<i32: 0, 1, 2>, !m>
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
    %zero = arith.constant dense<0.0> : tensor<2x128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<2x128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%pl, %pm, %i] : !va [i32, i32, i32] -> tensor<2x128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%pl, %i, %pn] : !vb [i32, i32, i32] -> tensor<2x64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<2x128x64xf16>, tensor<2x64x128xf16>, tensor<2x128x128xf32> -> tensor<2x128x128xf32>
      scf.yield %y : tensor<2x128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<2x128x128xf32> -> tensor<2x128x128xf16>
    %t2 = nv_tileaa.tiled_store %h, %vc[%pl, %pm, %pn] : tensor<2x128x128xf16>, !vc [i32, i32, i32]
    nv_tileaa.return
  }
}
// The batch tile becomes 1: views, tiles, the carried accumulator and its zero constant; a launched program along
// the batch's axis 2 covers 2 matrices (tileorch.launch_grid_axes: the axes, then the tiles per program).
// CHECK:      nv_tileaa.func @bmm({{.*}} attributes {{{.*}}tileorch.split_batch_tile = 2 : i64
// CHECK-SAME: tileorch.launch_grid_axes = array<i32: 0, 1, 2, 1, 1, 2>
// CHECK:      arith.constant dense<0.000000e+00> : tensor<1x128x128xf32>
// CHECK:      scf.for {{.*}} -> (tensor<1x128x128xf32>)
// CHECK:        nv_tileaa.tiled_load %va[%pl, %pm, %i] : !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>
// CHECK:        nv_tileaa.dot {{.*}} : tensor<1x128x64xf16>, tensor<1x64x128xf16>, tensor<1x128x128xf32> -> tensor<1x128x128xf32>
// CHECK:      nv_tileaa.tiled_store {{.*}} : tensor<1x128x128xf16>
// LOWERED:    func.func @gemm_f16_f16_bn_128x128x64_s{{[0-9]+}}_c1x1_persistent_r40_232_heuristic_sw1_etma_batched
