// RUN: tileorch-opt %S/../../../examples/tile_gemm.mlir -p tileas-tier | filecheck %s
// RUN: tileorch-opt %S/../../../examples/tile_gemm.mlir -p convert-tileaa-to-tileas,tileas-assign-dot-layouts,tileas-assign-load-store-layouts,tileas-plan-cta,tileas-remove-layout-conversions,sink-negf-through-shapes,tileas-prepare-for-scheduling,tileas-materialize-schedule,optimize-execution-unit-mapping,tileas-resolve-agent-boundary,tileas-remove-buffer-alias,tileas-rewrite-pipeline-iterator-types,tileas-insert-OCG-knobs --print-between-passes 2>&1 | filecheck %s --check-prefix=STAGES
// The example tile GEMM through the whole TileAS tier: WGMMA atom, TMA loads into a 6-stage
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
