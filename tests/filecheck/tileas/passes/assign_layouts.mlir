// RUN: tileorch-opt %s --split-input-file -p convert-tileaa-to-tileas,tileas-assign-dot-layouts,tileas-assign-load-store-layouts | filecheck %s

// sm_90: WGMMA atom (N = 192 -> widest divisor up to 256), shared-memory operands, TMA loads
// adopt the layout the dot asked for, the store goes through shared memory by TMA.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 192>, array<i32: 64, 192>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 192>, array<i32: 128, 192>, array<i32: 0, 1>, !m>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @k(%va: !va, %vb: !vb, %vc: !vc, %i: i32, %x: tensor<128x192xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %a, %t1 = nv_tileaa.tiled_load %va[%i, %i] : !va [i32, i32] -> tensor<128x64xf16>
    %b, %t2 = nv_tileaa.tiled_load %vb[%i, %i] : !vb [i32, i32] -> tensor<64x192xf16>
    %d = nv_tileaa.dot %a, %b, %x : tensor<128x64xf16>, tensor<64x192xf16>, tensor<128x192xf32> -> tensor<128x192xf32>
    %h = nv_tileaa.fp_to_fp %d : tensor<128x192xf32> -> tensor<128x192xf16>
    %t3 = nv_tileaa.tiled_store %h, %vc[%i, %i] : tensor<128x192xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: %[[A:.*]] = nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.sm_tma_load<[64, 128]>, allow_tma = true} : {{.*}} -> tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
// CHECK: %[[B:.*]] = nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.sm_tma_load<[64, 64]>, allow_tma = true} : {{.*}} -> tensor<64x192xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
// CHECK: %[[C:.*]] = nv_tileas.convert_layout %{{.*}} : tensor<128x192xf32, #nv_tileas.layout<reg, atom = blocked, warps = [8, 1]>> -> tensor<128x192xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 192, 16], warps = [8, 1]>>
// CHECK: %[[D:.*]] = nv_tileas.dot %[[A]], %[[B]], %[[C]], %{{.*}} {atom = #nv_tileas.mma.sm90<[64, 192, 16]>
// CHECK: %[[BACK:.*]] = nv_tileas.convert_layout %[[D]] : {{.*}}mma_acc{{.*}} -> tensor<128x192xf32, #nv_tileas.layout<reg, atom = blocked, warps = [8, 1]>>
// CHECK: %[[H:.*]] = nv_tileaa.fp_to_fp %[[BACK]]
// CHECK: %[[S:.*]] = nv_tileas.convert_layout %[[H]] : {{.*}} -> tensor<128x192xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
// CHECK: nv_tileas.tiled_store %[[S]], {{.*}} {atom = #nv_tileas.sm_tma_store<[64, 128]>, allow_tma = true}

// -----

// sm_80: mma.sync atom with register operands; no TMA (ldg/stg with 16-byte vectors).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 64, 32>, array<i32: 64, 32>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 32, 64>, array<i32: 32, 64>, array<i32: 0, 1>, !m>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<80, 0>} {
  nv_tileaa.func @k(%va: !va, %vb: !vb, %vc: !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>, %i: i32, %x: tensor<64x64xf32>) {
    %a, %t1 = nv_tileaa.tiled_load %va[%i, %i] : !va [i32, i32] -> tensor<64x32xf16>
    %b, %t2 = nv_tileaa.tiled_load %vb[%i, %i] : !vb [i32, i32] -> tensor<32x64xf16>
    %d = nv_tileaa.dot %a, %b, %x : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %h = nv_tileaa.fp_to_fp %d : tensor<64x64xf32> -> tensor<64x64xf16>
    %t3 = nv_tileaa.tiled_store %h, %vc[%i, %i] : tensor<64x64xf16>, !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m> [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.ldg<8>, allow_tma = true} : {{.*}} -> tensor<64x32xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
// CHECK: nv_tileas.convert_layout {{.*}} -> tensor<64x32xf16, #nv_tileas.layout<reg, atom = mma_a, instr = [16, 8, 16], warps = [4, 1]>>
// CHECK: nv_tileas.convert_layout {{.*}} -> tensor<32x64xf16, #nv_tileas.layout<reg, atom = mma_b, instr = [16, 8, 16], warps = [4, 1]>>
// CHECK: nv_tileas.dot {{.*}} {atom = #nv_tileas.mma.sm80<[16, 8, 16]>
// CHECK: nv_tileas.tiled_store {{.*}} {atom = #nv_tileas.stg<8>, allow_tma = true}

// -----

// sm_90 but TMA not allowed / not possible: allow_tma = false, a non-unit innermost stride,
// NaN padding; a batched dot whose 8x8 matrices no MMA atom tiles stays on the fma atom
// (batched dots MMA atoms fit: assign_dot_layouts_targets.mlir).
!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!ms = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: 1, ?>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vs = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !ms>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @k(%v: !v, %vs: !vs, %i: i32, %x: tensor<2x8x8xf32>) {
    %a, %t1 = nv_tileaa.tiled_load %v[%i, %i] {allow_tma = false} : !v [i32, i32] -> tensor<64x64xf32>
    %b, %t2 = nv_tileaa.tiled_load %vs[%i, %i] : !vs [i32, i32] -> tensor<64x64xf32>
    %c, %t3 = nv_tileaa.tiled_load %v[%i, %i] {padding_value = #nv_tileaa.padding_value<nan>} : !v [i32, i32] -> tensor<64x64xf32>
    %d = nv_tileaa.dot %x, %x, %x : tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32> -> tensor<2x8x8xf32>
    nv_tileaa.return
  }
}
// CHECK: nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.ldg<4>, allow_tma = false}
// CHECK: nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.ldg<1>, allow_tma = true}
// CHECK: nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.ldg<4>, allow_tma = true, padding_value = #nv_tileaa.padding_value<nan>}
// CHECK: nv_tileas.dot {{.*}} {atom = #nv_tileas.fma<[1, 1, 1]>, matmul_fast_accum = false} : tensor<2x8x8xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1, 1]>>
