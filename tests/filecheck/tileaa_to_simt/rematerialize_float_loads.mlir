// RUN: env TILEORCH_REMATERIALIZE_FLOAT_LOADS=1 tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=ON
// RUN: env TILEORCH_REMATERIALIZE_FLOAT_LOADS=0 tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=OFF

// A (64, 1) f32 column broadcast over a (64, 32) tile in a prefetching K loop, which is emitted two
// iterations a trip (prefetch.unrolled: the loop body lowered twice).  ON (TILEORCH_REMATERIALIZE_FLOAT_LOADS=1):
// each iteration reloads its column, one plain ld.global.b32 per run of the broadcast (4 a thread), so 8 in the
// trip; before the rematerialized-tile memo was keyed by the emitted block, the trip's second iteration took the
// first's column (4 loads: odd K steps scaled by the even step's column).  Switched off, the column is exchanged through
// shared memory and no element is reloaded (the tile loads are predicated inline-asm loads).
// ON-LABEL: .entry column_scaled_sum(
// ON-COUNT-8: {{^\s*}}ld.global.b32 %r
// ON-NOT: {{^\s*}}ld.global.b32 %r
// OFF-LABEL: .entry column_scaled_sum(
// OFF-NOT: {{^\s*}}ld.global.b32 %r
!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vs = !nv_tileaa.tiled_view<array<i32: 64, 1>, array<i32: 64, 1>, array<i32: 0, 1>, !m>
!vx = !nv_tileaa.tiled_view<array<i32: 64, 32>, array<i32: 64, 32>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @column_scaled_sum(%s: !nv_tileaa.ptr<f32>, %x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32, %k: i32, %kn: i32, %bm: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %ms = nv_tileaa.make_memref %s[%n, %k] [%k] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %mx = nv_tileaa.make_memref %x[%n, %kn] [%kn] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %my = nv_tileaa.make_memref %y[%n, %c32] [%c32] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %vs = nv_tileaa.block_tile %ms : !m -> !vs
    %vx = nv_tileaa.block_tile %mx : !m -> !vx
    %vy = nv_tileaa.block_tile %my : !m -> !vx
    %zero = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
    %acc = scf.for %i = %c0 to %k step %c1 iter_args(%a = %zero) -> (tensor<64x32xf32>) : i32 {
      %col, %t1 = nv_tileaa.tiled_load %vs[%bm, %i] : !vs [i32, i32] -> tensor<64x1xf32>
      %cb = nv_tileaa.broadcast %col : tensor<64x1xf32> -> tensor<64x32xf32>
      %t, %t2 = nv_tileaa.tiled_load %vx[%bm, %i] : !vx [i32, i32] -> tensor<64x32xf32>
      %p = nv_tileaa.mulf %t, %cb : tensor<64x32xf32>
      %a2 = nv_tileaa.addf %a, %p : tensor<64x32xf32>
      scf.yield %a2 : tensor<64x32xf32>
    }
    %st = nv_tileaa.tiled_store %acc, %vy[%bm, %c0] : tensor<64x32xf32>, !vx [i32, i32]
    nv_tileaa.return
  }
}
