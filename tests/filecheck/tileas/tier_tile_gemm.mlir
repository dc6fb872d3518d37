// RUN: tileorch-opt %s -p tileas-tier | filecheck %s
// RUN: tileorch-opt %s -p convert-tileaa-to-tileas,tileas-assign-dot-layouts,tileas-assign-load-store-layouts,tileas-plan-cta,tileas-remove-layout-conversions,sink-negf-through-shapes,tileas-prepare-for-scheduling,tileas-materialize-schedule,optimize-execution-unit-mapping,tileas-resolve-agent-boundary,tileas-remove-buffer-alias,tileas-rewrite-pipeline-iterator-types,tileas-insert-OCG-knobs --print-between-passes 2>&1 | filecheck %s --check-prefix=STAGES
// A single-CTA 128x128 tile GEMM (the example with 128x128 tiles, num_ctas = 1) through the whole TileAS tier: WGMMA atom, TMA loads into a 6-stage
// pipeline (two 16 KiB tiles a stage next to the 32 KiB epilogue tile), a TMA producer warp and
// an 8-warp MMA consumer placed at warps 8 and 0, padded to 12 warps, FenceCode knobs.
// CHECK: nv_tileaa.func @tile_gemm({{.*}}) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>, nv_tileas.num_warps = 12 : i32}
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [8, 1]>>
// CHECK: %[[P:.*]] = nv_tileas.async.pipeline.create_pipeline {num_stages = 6 : i32, {{.*}}} : !nv_tileas.async.pipeline<6, tuple<tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>, tensor<64x128xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>>>
// CHECK: agent_switch attributes {num_warps = array<i32: 8, 1, 3>, warp_id = array<i32: 0, 8, 9>, agent_strides = array<i32: 0, 0, 0>, max_regs = array<i32: 232, 40, 40>, num_agents_per_group = array<i32: 1, 1, 1>}
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]], %{{.*}} = %{{.*}}) -> ({{.*}}, !nv_tileas.async.pipeline.iterator<consumer, 6,
// CHECK: nv_tileas.async.pipeline.consumer_wait %[[P]]
// CHECK: nv_tileas.dot {{.*}} {atom = #nv_tileas.mma.sm90<[64, 128, 16]>
// CHECK: next knob FenceCode
// CHECK-NEXT: nv_tileas.async.pipeline.consumer_release
// CHECK: nv_tileaa.fp_to_fp
// CHECK: nv_tileas.convert_layout {{.*}} -> tensor<128x128xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
// CHECK: nv_tileas.tiled_store {{.*}} {atom = #nv_tileas.sm_tma_store<[64, 128]>
// CHECK: } {
// CHECK: scf.for {{.*}} -> (!nv_tileas.async.pipeline.iterator<producer, 6,
// CHECK: nv_tileas.async.pipeline.producer_acquire %[[P]]
// CHECK: nv_tileas.tiled_load {{.*}} into {{.*}} {atom = #nv_tileas.sm_tma_load<[64, 128]>
// CHECK: nv_tileas.tiled_load {{.*}} into {{.*}} {atom = #nv_tileas.sm_tma_load<[64, 64]>
// CHECK: nv_tileas.async.pipeline.producer_commit %[[P]]
// CHECK: } {
// CHECK-NEXT: }
// STAGES: IR after convert-tileaa-to-tileas
// STAGES: IR after tileas-assign-dot-layouts
// STAGES: IR after tileas-materialize-schedule
// STAGES: IR after optimize-execution-unit-mapping
// STAGES: IR after tileas-rewrite-pipeline-iterator-types

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @tile_gemm(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
    %vb = nv_tileaa.block_tile %mb : !m -> !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
    %vc = nv_tileaa.block_tile %mc : !m -> !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m> -> i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%pm, %i] : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m> [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %pn] : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m> [i32, i32] -> tensor<64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
    %t2 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x128xf16>, !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m> [i32, i32]
    nv_tileaa.return
  }
}
