// RUN: env TILEORCH_PREFETCH_PAST_STORES=1 tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=PAST
// RUN: env TILEORCH_PREFETCH_PAST_STORES=0 tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=KEPT

// y = 2 x tile by tile: a loop whose load takes the function's token (from outside the loop, untied to the
// loop's store).  PAST (TILEORCH_PREFETCH_PAST_STORES=1): the first tile is loaded before the loop and each
// trip's two iterations load the next tiles before storing; KEPT (default): each iteration loads, then stores.
// A second function, whose load takes no token, keeps its order under the switch too.  Each load site is
// three vector loads (their fill values differ by the path taken): PAST's first function has three sites.

// PAST-LABEL: .entry double_tiles(
// PAST-COUNT-9: ld.global.v4.b32
// PAST-NOT: ld.global.v4.b32
// PAST-LABEL: .entry double_tiles_tokenless(
// PAST-COUNT-3: ld.global.v4.b32
// PAST-NOT: ld.global.v4.b32
// KEPT-LABEL: .entry double_tiles(
// KEPT-COUNT-3: ld.global.v4.b32
// KEPT-NOT: ld.global.v4.b32
// KEPT-LABEL: .entry double_tiles_tokenless(
// KEPT-COUNT-3: ld.global.v4.b32
// KEPT-NOT: ld.global.v4.b32
builtin.module {
  nv_tileaa.func @double_tiles(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32, %k: i32) {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %two = arith.constant dense<2.000000e+00> : tensor<512xf32>
    scf.for %i = %c0 to %k step %c1 : i32 {
      %t, %t1 = nv_tileaa.tiled_load %vx[%i] token %tok : !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<512xf32>
      %d = nv_tileaa.mulf %t, %two : tensor<512xf32>
      %s = nv_tileaa.tiled_store %d, %vy[%i] token %tok : tensor<512xf32>, !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    }
    nv_tileaa.return
  }
  nv_tileaa.func @double_tiles_tokenless(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32, %k: i32) {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %two = arith.constant dense<2.000000e+00> : tensor<512xf32>
    scf.for %i = %c0 to %k step %c1 : i32 {
      %t, %t1 = nv_tileaa.tiled_load %vx[%i] : !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<512xf32>
      %d = nv_tileaa.mulf %t, %two : tensor<512xf32>
      %s = nv_tileaa.tiled_store %d, %vy[%i] : tensor<512xf32>, !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    }
    nv_tileaa.return
  }
}
