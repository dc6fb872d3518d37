// RUN: env TILEORCH_CLUSTER_SPLIT=0 TILEORCH_EARLY_PREFETCH=1 tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=EARLY
// RUN: env TILEORCH_CLUSTER_SPLIT=0 TILEORCH_EARLY_PREFETCH=0 tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=LATE

// A peeled first tile reduced across the CTA (a max: shuffles, then shared memory between barriers)
// before a prefetching loop over the other tiles from 1 (its lower bound an arith.addi of the block,
// recomputed early).  EARLY (TILEORCH_EARLY_PREFETCH=1): the loop's first tile (index 1) is loaded
// right after the peel's own load, before the peel's first shuffle; LATE (default): after the
// peel's barriers.  A store after the loop is no obstacle.  (TILEORCH_CLUSTER_SPLIT=0: the loop, a max fold
// with no write before it, would otherwise be split over a cluster, whose ranks start elsewhere: not moved.)

// Each tile is loaded by one of three vector loads (its fill values differ by the path taken).
// EARLY-LABEL: .entry peel_then_loop(
// EARLY-COUNT-6: ld.global.v4.b32
// EARLY-NOT: ld.global.v4.b32
// EARLY: shfl.sync
// EARLY: bar.sync
// LATE-LABEL: .entry peel_then_loop(
// LATE-COUNT-3: ld.global.v4.b32
// LATE-NOT: ld.global.v4.b32
// LATE: shfl.sync
// LATE: bar.sync
// LATE: ld.global.v4.b32
builtin.module {
  nv_tileaa.func @peel_then_loop(%x: !nv_tileaa.ptr<f32>, %out: !nv_tileaa.ptr<f32>, %n: i32, %k: i32) {
    %m = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %v = nv_tileaa.block_tile %m : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t0, %tok0 = nv_tileaa.tiled_load %v[%c0] : !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<512xf32>
    %t02 = nv_tileaa.reshape %t0 : tensor<512xf32> -> tensor<1x512xf32>
    %r0 = "nv_tileaa.reduce"(%t02) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      %mx = nv_tileaa.maxf %p, %q : f32
      "nv_tileaa.yield"(%mx) : (f32) -> ()
    }) : (tensor<1x512xf32>) -> tensor<1xf32>
    %acc0 = nv_tileaa.broadcast %r0 : tensor<1xf32> -> tensor<512xf32>
    %lb = arith.addi %c0, %c1 : i32
    %acc = scf.for %i = %lb to %k step %c1 iter_args(%a = %acc0) -> (tensor<512xf32>) : i32 {
      %t, %tok = nv_tileaa.tiled_load %v[%i] : !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<512xf32>
      %b = nv_tileaa.maxf %a, %t : tensor<512xf32>
      scf.yield %b : tensor<512xf32>
    }
    %mo = nv_tileaa.make_memref %out[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vo = nv_tileaa.block_tile %mo : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %s = nv_tileaa.tiled_store %acc, %vo[%c0] : tensor<512xf32>, !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}
