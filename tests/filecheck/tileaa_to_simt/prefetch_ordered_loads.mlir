// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s

// A sum over tiles (a loop that writes nothing, so its loads are prefetched: the first tile's three vector
// load sites before the loop, the next tile's in the loop, sum_tiles) — but not past an ACQUIRE load in the
// same loop (sum_tiles_after_flag): each iteration's tile loads stay below that iteration's flag load, so
// there is no load before the loop and one site of three vector loads in it, after the ld.acquire.

// CHECK-LABEL: .entry sum_tiles(
// CHECK-COUNT-9: ld.global.v4.b32
// CHECK-NOT: ld.global.v4.b32
// CHECK-LABEL: .entry sum_tiles_after_flag(
// CHECK-NOT: ld.global.v4.b32
// CHECK: ld.acquire.gpu.global
// CHECK-COUNT-3: ld.global.v4.b32
// CHECK-NOT: ld.global.v4.b32
builtin.module {
  nv_tileaa.func @sum_tiles(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32, %k: i32) {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.000000e+00> : tensor<512xf32>
    %acc = scf.for %i = %c0 to %k step %c1 iter_args(%a = %z) -> (tensor<512xf32>) : i32 {
      %t, %t1 = nv_tileaa.tiled_load %vx[%i] : !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<512xf32>
      %a2 = nv_tileaa.addf %a, %t : tensor<512xf32>
      scf.yield %a2 : tensor<512xf32>
    }
    %s = nv_tileaa.tiled_store %acc, %vy[%c0] : tensor<512xf32>, !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
  nv_tileaa.func @sum_tiles_after_flag(%x: !nv_tileaa.ptr<f32>, %f: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32, %k: i32) {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %mf = nv_tileaa.make_memref %f[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vf = nv_tileaa.block_tile %mf : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.000000e+00> : tensor<512xf32>
    %acc = scf.for %i = %c0 to %k step %c1 iter_args(%a = %z) -> (tensor<512xf32>) : i32 {
      %g, %g1 = nv_tileaa.tiled_load %vf[%i] {mem_semantic = #nv_tileaa.mem_semantic<acquire>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<512xf32>
      %t, %t1 = nv_tileaa.tiled_load %vx[%i] : !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<512xf32>
      %a2 = nv_tileaa.addf %a, %t : tensor<512xf32>
      %a3 = nv_tileaa.addf %a2, %g : tensor<512xf32>
      scf.yield %a3 : tensor<512xf32>
    }
    %s = nv_tileaa.tiled_store %acc, %vy[%c0] : tensor<512xf32>, !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}
