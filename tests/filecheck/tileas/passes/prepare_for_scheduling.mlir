// RUN: tileorch-opt %s --split-input-file -p tileas-prepare-for-scheduling | filecheck %s

// sm_100: per-thread atoms widen to 32 bytes (16 x f16 limited by the 8-wide rows: ldg<8>;
// f32 x 8); a 128-byte swizzle that does not fit 64-byte rows narrows to 64; the TMA box is
// recomputed for the final layout; the sliced loop is sliced; an identity convert goes.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!mf = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<100, 2>} {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<f16>, %pf: !nv_tileaa.ptr<f32>, %d: i32, %n: index) {
    %m = nv_tileaa.make_memref %p[%d, %d] [%d] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mf = nv_tileaa.make_memref %pf[%d, %d] [%d] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mf
    %v = nv_tileaa.block_tile %m : !m -> !nv_tileaa.tiled_view<array<i32: 64, 32>, array<i32: 64, 32>, array<i32: 0, 1>, !m>
    %v8 = nv_tileaa.block_tile %m : !m -> !nv_tileaa.tiled_view<array<i32: 64, 8>, array<i32: 64, 8>, array<i32: 0, 1>, !m>
    %vf = nv_tileaa.block_tile %mf : !mf -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !mf>
    %t = nv_tileas.tiled_load %v[%d, %d] {atom = #nv_tileas.sm_tma_load<[16, 64]>} : !nv_tileaa.tiled_view<array<i32: 64, 32>, array<i32: 64, 32>, array<i32: 0, 1>, !m> [i32, i32] -> tensor<64x32xf16, #nv_tileas.layout<smem, swizzle = 64, order = [1, 0]>>
    %buf = nv_tileas.alloc_tensor : tensor<64x32xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
    %g = nv_tileas.tiled_load %v8[%d, %d] {atom = #nv_tileas.ldg<1>} : !nv_tileaa.tiled_view<array<i32: 64, 8>, array<i32: 64, 8>, array<i32: 0, 1>, !m> [i32, i32] -> tensor<64x8xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
    %gf = nv_tileas.tiled_load %vf[%d, %d] {atom = #nv_tileas.ldg<1>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !mf> [i32, i32] -> tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
    %i = nv_tileas.convert_layout %gf : tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>> -> tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
    %k:3 = nv_tileas.pragma %buf, %g, %i : tensor<64x32xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>, tensor<64x8xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>, tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>> -> tensor<64x32xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>, tensor<64x8xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>, tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %j = %c0 to %n step %c1 {
    } {sliceCount = 2 : i64}
    nv_tileaa.return
  }
}
// CHECK: nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.sm_tma_load<[32, 64]>} : {{.*}} -> tensor<64x32xf16, #nv_tileas.layout<smem, swizzle = 64, order = [1, 0]>>
// CHECK: nv_tileas.alloc_tensor : tensor<64x32xf16, #nv_tileas.layout<smem, swizzle = 64, order = [1, 0]>>
// CHECK: nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.ldg<8>}
// CHECK: nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.ldg<8>}
// CHECK-NOT: convert_layout
// CHECK-NOT: nv_tileas.pragma
// CHECK: arith.remsi
// CHECK-NOT: sliceCount

// -----

// sm_90: 16 bytes a thread (f32: ldg<4>).
!mf = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @k(%pf: !nv_tileaa.ptr<f32>, %d: i32) {
    %mf = nv_tileaa.make_memref %pf[%d, %d] [%d] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mf
    %vf = nv_tileaa.block_tile %mf : !mf -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !mf>
    %gf = nv_tileas.tiled_load %vf[%d, %d] {atom = #nv_tileas.ldg<1>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !mf> [i32, i32] -> tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
    nv_tileas.tiled_store %gf, %vf[%d, %d] {atom = #nv_tileas.stg<1>} : tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>, !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !mf> [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: {atom = #nv_tileas.ldg<4>}
// CHECK: {atom = #nv_tileas.stg<4>}
