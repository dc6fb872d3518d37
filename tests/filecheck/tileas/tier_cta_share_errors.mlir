// RUN: tileorch-opt %s --verify-diagnostics -p tileas-tier | filecheck %s
// A 64-row tile GEMM on a 16-CTA cluster (sm_90): PlanCTA would leave each CTA 4 rows of the
// accumulator, below wgmma's M = 64; the tier stops with a located error at the dot.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @tile_gemm(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<16, 4>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
    %vb = nv_tileaa.block_tile %mb : !m -> !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m>
    %vc = nv_tileaa.block_tile %mc : !m -> !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m>
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m> -> i32
    %zero = arith.constant dense<0.0> : tensor<64x256xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<64x256xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%pm, %i] : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m> [i32, i32] -> tensor<64x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %pn] : !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m> [i32, i32] -> tensor<64x256xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<64x64xf16>, tensor<64x256xf16>, tensor<64x256xf32> -> tensor<64x256xf32>
      scf.yield %y : tensor<64x256xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<64x256xf32> -> tensor<64x256xf16>
    %t2 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<64x256xf16>, !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m> [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: tier_cta_share_errors.mlir:22:7: error: a CTA's share of the tile must be at least the MMA atom: 16 CTAs (split [16, 1]) leave each CTA 4x256 of the dot's 64x256 accumulator tile, not whole 64x256 tiles of the #nv_tileas.mma.sm90<[64, 256, 16]> atom
