// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s

// The SIMT lowering folds what constants decide in a tile's address math as it emits it
// (Emitter.fold_constants, issue 22): the whole-tile path's static unit stride is the i64
// constant 1 (no arith.extsi of the i32 one), while a run's stride keeps its extension (the
// per-run path below the else: folding that one changed the PTX LLVM makes of gathers).
// CHECK-LABEL: func.func @copy
// CHECK: %[[S32:.*]] = arith.constant 1 : i32
// CHECK: %[[S64:.*]] = arith.constant 1 : i64
// CHECK-NOT: arith.extsi %[[S32]]
// CHECK: arith.muli %{{.*}}, %[[S64]] : i64
// CHECK-NOT: arith.extsi %[[S32]]
// CHECK: } else {
// CHECK: arith.extsi %[[S32]] : i32 to i64
builtin.module {
  nv_tileaa.func @copy(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32) {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %t_tok = nv_tileaa.tiled_load %vx[%b] : !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<128xf32>
    %s_tok = nv_tileaa.tiled_store %t, %vy[%b] : tensor<128xf32>, !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}
