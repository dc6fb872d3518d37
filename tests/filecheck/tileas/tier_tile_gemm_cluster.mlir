// RUN: tileorch-opt %S/../../../examples/tile_gemm.mlir -p tileas-tier | filecheck %s
// The example tile GEMM (128x256 tiles, num_ctas = 2) through the whole TileAS tier.
// Stage count: a stage holds a 128x64 A tile and a 64x256 B tile of f16 (16 + 32 KiB, + 16 bytes
// of barriers); the 128x256 f16 epilogue tile is stored as TMA boxes drained through two box
// slots, so it reserves two boxes, not the 64 KiB tile: (227 KiB - two boxes) / 48 KiB = 4 stages
// (3 if the whole tile were reserved).  PlanCTA splits the A tile and the accumulator over the
// two CTAs along M (cta = [2, 1]); the B tile is not split (each CTA needs all of it).
// CHECK: nv_tileaa.func @tile_gemm({{.*}}) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<2, 8>, nv_tileas.num_warps = 12 : i32}
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 256, 16], warps = [8, 1], cta = [2, 1]>>
// CHECK: %[[P:.*]] = nv_tileas.async.pipeline.create_pipeline {num_stages = 4 : i32, {{.*}}} : !nv_tileas.async.pipeline<4, tuple<tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0], cta = [2, 1]>>, tensor<64x256xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>>>
// CHECK: agent_switch attributes {num_warps = array<i32: 8, 1, 3>, warp_id = array<i32: 0, 8, 9>
// CHECK: nv_tileas.dot {{.*}} {atom = #nv_tileas.mma.sm90<[64, 256, 16]>
// CHECK: nv_tileas.convert_layout {{.*}} -> tensor<128x256xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0], cta = [2, 1]>>
// CHECK: nv_tileas.tiled_store {{.*}} {atom = #nv_tileas.sm_tma_store<[64, 64]>
// CHECK: nv_tileas.async.pipeline.producer_acquire %[[P]]
// CHECK-COUNT-2: nv_tileas.tiled_load {{.*}} into {{.*}} {atom = #nv_tileas.sm_tma_load<[64, 64]>
// CHECK: nv_tileas.async.pipeline.producer_commit %[[P]]
