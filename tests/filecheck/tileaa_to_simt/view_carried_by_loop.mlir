// RUN: not tileorch compile %s --emit=mlir -o %t.mlir 2>&1 | filecheck %s
// A tiled view carried through a loop (a valid nv_tileaa program, the "kept" case of
// tileaa/transpose_column_major.mlir) reached the SIMT lowering as a Python object among the
// loop's registers: "internal error in convert-nv-tileaa-to-simt (AttributeError: 'View' object
// has no attribute 'type')" (found by tools/fuzz_inprocess.py, session 22).  It is a located
// refusal at the loop now.

builtin.module {
  nv_tileaa.func @kept(%p: !nv_tileaa.ptr<f16>, %k: i32, %n: i32, %ld: i32) {
    %m = nv_tileaa.make_memref %p[%k, %n] [%ld] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>
    %v = nv_tileaa.block_tile %m : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // CHECK: view_carried_by_loop.mlir:[[# @LINE + 1]]:5: error: convert-nv-tileaa-to-simt: a nv_tileaa.tiled_view value cannot be carried through a loop or a branch (this lowering keeps views and memrefs as compile-time values, not registers)
    %out = scf.for %i = %c0 to %k step %c1 iter_args(%vv = %v) -> (!nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>>) : i32 {
      scf.yield %vv : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 1, ?>, i32>>
    }
    nv_tileaa.return
  }
}
// CHECK-NOT: internal error
