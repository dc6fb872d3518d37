// RUN: tileorch-opt %s --split-input-file -p tileaa-transpose-column-major | filecheck %s

// A column-major B [K, N] (unit stride on dimension 0) is read as its row-major transpose [N, K]:
// the make_memref swaps its extents and strides (the unit stride now last and static), the view
// composes the swap into its order ([0, 1] -> [1, 0]) with the same tile shape, and the loads keep
// their indices.  get_dim_size of the memref and get_dim_stride (memref dimensions) are re-indexed;
// get_dim_size of the view (a tile dimension) is not.

// CHECK-LABEL: nv_tileaa.func @col_major_b
// CHECK:      %[[M:.*]] = nv_tileaa.make_memref %pb[%n, %k] [%ldb] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
// CHECK-NEXT: %[[V:.*]] = nv_tileaa.block_tile %[[M]] : {{.*}} -> !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 1, 0>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
// CHECK-NEXT: nv_tileaa.get_dim_size %[[M]] {index = 1 : i32}
// CHECK-NEXT: nv_tileaa.get_dim_size %[[V]] {index = 0 : i32}
// CHECK-NEXT: nv_tileaa.get_dim_stride %[[V]] {index = 0 : i32}
// CHECK-NEXT: nv_tileaa.tiled_load %[[V]][%i, %p1]
// CHECK-SAME: -> tensor<64x128xf16>
// CHECK-NOT:  array<i64: 1, ?>
builtin.module {
  nv_tileaa.func @col_major_b(%pb: !nv_tileaa.ptr<f16>, %k: i32, %n: i32, %ldb: i32, %i: i32, %p1: i32) {
    %mb = nv_tileaa.make_memref %pb[%k, %n] [%ldb] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>
    %vb = nv_tileaa.block_tile %mb : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>>
    %ek = nv_tileaa.get_dim_size %mb {index = 0 : i32} : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32> -> i32
    %tk = nv_tileaa.get_dim_size %vb {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>> -> i32
    %sn = nv_tileaa.get_dim_stride %vb {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>> -> i32
    %b, %t = nv_tileaa.tiled_load %vb[%i, %p1] : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>> [i32, i32] -> tensor<64x128xf16>
    nv_tileaa.return
  }
}

// -----

// A batch of column-major matrices [L, K, N] with strides [?, 1, ?]: the last two dimensions swap
// ([?, ?, 1]), the batch dimension stays; a view read with the last two dimensions already
// swapped (order [0, 2, 1]) becomes the identity order; a static extent moves with its dimension.

// CHECK-LABEL: nv_tileaa.func @batched
// CHECK:      %[[M:.*]] = nv_tileaa.make_memref %p[%l, %n] [%bs, %ld] : !nv_tileaa.ptr<bf16>[i32, i32] [i32, i32] -> !nv_tileaa.memref<bf16, array<i64: ?, ?, 64>, array<i64: ?, ?, 1>, i32>
// CHECK-NEXT: nv_tileaa.block_tile %[[M]] : {{.*}} -> !nv_tileaa.tiled_view<array<i32: 1, 64, 128>, array<i32: 1, 64, 128>, array<i32: 0, 2, 1>,
// CHECK-NEXT: nv_tileaa.block_tile %[[M]] : {{.*}} -> !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>,
builtin.module {
  nv_tileaa.func @batched(%p: !nv_tileaa.ptr<bf16>, %l: i32, %n: i32, %bs: i32, %ld: i32, %b: i32, %i: i32, %j: i32) {
    %m = nv_tileaa.make_memref %p[%l, %n] [%bs, %ld] : !nv_tileaa.ptr<bf16> [i32, i32] [i32, i32] -> !nv_tileaa.memref<bf16, array<i64: ?, 64, ?>, array<i64: ?, 1, ?>, i32>
    %v = nv_tileaa.block_tile %m : !nv_tileaa.memref<bf16, array<i64: ?, 64, ?>, array<i64: ?, 1, ?>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 128>, array<i32: 1, 64, 128>, array<i32: 0, 1, 2>, !nv_tileaa.memref<bf16, array<i64: ?, 64, ?>, array<i64: ?, 1, ?>, i32>>
    %w = nv_tileaa.block_tile %m : !nv_tileaa.memref<bf16, array<i64: ?, 64, ?>, array<i64: ?, 1, ?>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 2, 1>, !nv_tileaa.memref<bf16, array<i64: ?, 64, ?>, array<i64: ?, 1, ?>, i32>>
    %x, %t = nv_tileaa.tiled_load %v[%b, %i, %j] : !nv_tileaa.tiled_view<array<i32: 1, 64, 128>, array<i32: 1, 64, 128>, array<i32: 0, 1, 2>, !nv_tileaa.memref<bf16, array<i64: ?, 64, ?>, array<i64: ?, 1, ?>, i32>> [i32, i32, i32] -> tensor<1x64x128xbf16>
    %y, %t1 = nv_tileaa.tiled_load %w[%b, %j, %i] : !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 2, 1>, !nv_tileaa.memref<bf16, array<i64: ?, 64, ?>, array<i64: ?, 1, ?>, i32>> [i32, i32, i32] -> tensor<1x128x64xbf16>
    %t2 = nv_tileaa.tiled_store %y, %w[%b, %j, %i] : tensor<1x128x64xbf16>, !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 2, 1>, !nv_tileaa.memref<bf16, array<i64: ?, 64, ?>, array<i64: ?, 1, ?>, i32>> [i32, i32, i32]
    nv_tileaa.return
  }
}

// -----

// Left as they are: a row-major array (unit stride last, even with a unit stride on dimension
// -2 too), a 1-D array, and a column-major array whose view is carried through a loop (a use the
// rewrite does not follow).

// CHECK-LABEL: nv_tileaa.func @kept
// CHECK: array<i64: 1, 1>
// CHECK: array<i64: 1, ?>
// CHECK: array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>
builtin.module {
  nv_tileaa.func @kept(%p: !nv_tileaa.ptr<f16>, %k: i32, %n: i32, %ld: i32) {
    %r = nv_tileaa.make_memref %p[%k, %n] [] : !nv_tileaa.ptr<f16> [i32, i32] [] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, 1>, i32>
    %vr = nv_tileaa.block_tile %r : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, 1>, i32>>
    %m = nv_tileaa.make_memref %p[%k, %n] [%ld] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>
    %v = nv_tileaa.block_tile %m : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %out = scf.for %i = %c0 to %k step %c1 iter_args(%vv = %v) -> (!nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>>) : i32 {
      scf.yield %vv : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>>
    }
    nv_tileaa.return
  }
}
