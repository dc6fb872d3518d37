
// Left as they are: a row-major array (unit stride last, even with a unit stride on dimension
// -2 too), a 1-D array, and a column-major array whose view is carried through a loop (a use the
// rewrite does not follow).

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
