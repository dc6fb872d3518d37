// RUN: env -u TILEORCH_STORE_BARRIERS tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=TOKENS
// RUN: env TILEORCH_STORE_BARRIERS=always tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=ALWAYS
// RUN: env -u TILEORCH_STORE_BARRIERS tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=ATTR

// y = 2 x tile by tile, a loop whose store a later iteration's load may follow (tileaa_to_simt/store_barriers.py).
// @untied: the load takes the function's token (cuTile's front end: the load is not ordered after the store):
//   no CTA barrier after the store by default (TOKENS), one per iteration under TILEORCH_STORE_BARRIERS=always.
// @tied: the load takes the token the previous iteration's store yields (ordered after it): the barrier stays.
// @joined: the store's token reaches the next load through a join: the barrier stays.
// @tokenless: the load has no token (the walk cannot tell): the barrier stays.
// The kernels have no other barrier (no reduction, no exchange): each bar.sync is a store's.

// TOKENS-LABEL: .entry untied(
// TOKENS-NOT: bar.sync
// TOKENS-LABEL: .entry tied(
// TOKENS: st.global
// TOKENS: bar.sync
// TOKENS-LABEL: .entry joined(
// TOKENS: st.global
// TOKENS: bar.sync
// TOKENS-LABEL: .entry tokenless(
// TOKENS: st.global
// TOKENS: bar.sync
// ALWAYS-LABEL: .entry untied(
// ALWAYS: st.global
// ALWAYS: bar.sync
// ALWAYS-LABEL: .entry tied(
// ATTR-LABEL: func.func @untied
// ATTR-SAME: tileorch.store_barriers_dropped = 1 : i32
// ATTR-LABEL: func.func @tied
// ATTR-NOT: tileorch.store_barriers_dropped
// ATTR-LABEL: func.func @joined
!mm = !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
builtin.module {
  nv_tileaa.func @untied(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32, %k: i32) {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !mm
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %two = arith.constant dense<2.000000e+00> : tensor<512xf32>
    scf.for %i = %c0 to %k step %c1 : i32 {
      %t, %t1 = nv_tileaa.tiled_load %vx[%i] token %tok : !vv[i32] -> tensor<512xf32>
      %d = nv_tileaa.mulf %t, %two : tensor<512xf32>
      %s = nv_tileaa.tiled_store %d, %vy[%i] token %tok : tensor<512xf32>, !vv[i32]
    }
    nv_tileaa.return
  }
  nv_tileaa.func @tied(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32, %k: i32) {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !mm
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %two = arith.constant dense<2.000000e+00> : tensor<512xf32>
    %last = scf.for %i = %c0 to %k step %c1 iter_args(%tk = %tok) -> (!nv_tileaa.mem_token) : i32 {
      %t, %t1 = nv_tileaa.tiled_load %vx[%i] token %tk : !vv[i32] -> tensor<512xf32>
      %d = nv_tileaa.mulf %t, %two : tensor<512xf32>
      %s = nv_tileaa.tiled_store %d, %vy[%i] token %t1 : tensor<512xf32>, !vv[i32]
      scf.yield %s : !nv_tileaa.mem_token
    }
    nv_tileaa.return
  }
  nv_tileaa.func @joined(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32, %k: i32) {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !mm
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %two = arith.constant dense<2.000000e+00> : tensor<512xf32>
    %last = scf.for %i = %c0 to %k step %c1 iter_args(%tk = %tok) -> (!nv_tileaa.mem_token) : i32 {
      %t, %t1 = nv_tileaa.tiled_load %vx[%i] token %tk : !vv[i32] -> tensor<512xf32>
      %d = nv_tileaa.mulf %t, %two : tensor<512xf32>
      %s = nv_tileaa.tiled_store %d, %vy[%i] token %tok : tensor<512xf32>, !vv[i32]
      %j = nv_tileaa.join_mem_token %tok, %s
      scf.yield %j : !nv_tileaa.mem_token
    }
    nv_tileaa.return
  }
  nv_tileaa.func @tokenless(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32, %k: i32) {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !mm
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %two = arith.constant dense<2.000000e+00> : tensor<512xf32>
    scf.for %i = %c0 to %k step %c1 : i32 {
      %t, %t1 = nv_tileaa.tiled_load %vx[%i] : !vv[i32] -> tensor<512xf32>
      %d = nv_tileaa.mulf %t, %two : tensor<512xf32>
      %s = nv_tileaa.tiled_store %d, %vy[%i] : tensor<512xf32>, !vv[i32]
    }
    nv_tileaa.return
  }
}
