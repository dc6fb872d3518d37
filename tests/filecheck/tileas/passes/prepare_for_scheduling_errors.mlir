// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p tileas-prepare-for-scheduling | filecheck %s

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%v: !v, %d: i32) {
    %t = nv_tileas.tiled_load %v[%d, %d] {atom = #nv_tileas.sm_tma_load<[64, 64]>} : !v [i32, i32] -> tensor<64x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
    nv_tileaa.return
  }
}
// CHECK: prepare_for_scheduling_errors.mlir:7:5: error: tiled_load's tiled_view type must be produced by block_tile directly

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<f16>, %d: i32) {
    %m = nv_tileaa.make_memref %p[%d, %d] [%d] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %v = nv_tileaa.block_tile %m : !m -> !v
    %t = nv_tileas.tiled_load %v[%d, %d] {atom = #nv_tileas.sm_tma_load<[64, 64]>, mem_semantic = #nv_tileaa.mem_semantic<acquire>} : !v [i32, i32] -> tensor<64x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
    nv_tileaa.return
  }
}
// CHECK: prepare_for_scheduling_errors.mlir:[[# @LINE - 4]]:5: error: memory semantic must be weak for TMA operations
