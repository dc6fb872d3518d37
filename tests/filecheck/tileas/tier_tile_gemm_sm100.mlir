// RUN: tileorch-opt %s -p tileas-tier | filecheck %s
// RUN: tileorch-opt %s --verify-diagnostics -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=LOWER
// The example tile GEMM (128x256 tiles, 2 CTAs) for sm_100 through the whole TileAS tier.
// Blackwell has no wgmma: the dot gets the tcgen05 (UMMA) atom, M = 64 for each CTA's 64-row
// share, the accumulator lives in tensor memory through the K loop and is read into registers
// for the epilogue; the MMA makes tileas-insert-OCG-knobs emit SchedResBusyXU64.  The WGMMA
// lowering then refuses the kernel with a located error (it targets sm_90a).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<100, 2>} {
  nv_tileaa.func @tile_gemm(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<2, 8>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
    %vb = nv_tileaa.block_tile %mb : !m -> !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m>
    %vc = nv_tileaa.block_tile %mc : !m -> !nv_tileaa.tiled_view<array<i32: 128, 256>, array<i32: 128, 256>, array<i32: 0, 1>, !m>
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m> -> i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x256xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%pm, %i] : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m> [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %pn] : !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m> [i32, i32] -> tensor<64x256xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
      scf.yield %y : tensor<128x256xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x256xf32> -> tensor<128x256xf16>
    %t2 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x256xf16>, !nv_tileaa.tiled_view<array<i32: 128, 256>, array<i32: 128, 256>, array<i32: 0, 1>, !m> [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-NOT: mma.sm90
// CHECK: llvm.inline_asm has_side_effects ".pragma \22global knob SchedResBusyXU64=1\22;\0A"
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #nv_tileas.layout<tmem, cta = [2, 1]>>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]], {{.*}}) -> (tensor<128x256xf32, #nv_tileas.layout<tmem, cta = [2, 1]>>
// CHECK: nv_tileas.dot {{.*}} {atom = #nv_tileas.mma.sm100<[64, 256, 16]>, matmul_fast_accum = false} : {{.*}} -> tensor<128x256xf32, #nv_tileas.layout<tmem, cta = [2, 1]>>
// CHECK: nv_tileas.convert_layout %{{.*}} : tensor<128x256xf32, #nv_tileas.layout<tmem, cta = [2, 1]>> -> tensor<128x256xf32, #nv_tileas.layout<reg, {{.*}}cta = [2, 1]>>
// CHECK-NOT: mma.sm90
// LOWER: tier_tile_gemm_sm100.mlir:{{[0-9]+}}:7: error: convert-nv-tileas-to-cutlass: the dot's MMA atom is #nv_tileas.mma.sm100<[64, 256, 16]>, not a WGMMA (mma.sm90) atom
