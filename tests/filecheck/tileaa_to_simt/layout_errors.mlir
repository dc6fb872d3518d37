// RUN: tileorch-opt %s --split-input-file -p convert-nv-tileaa-to-simt --verify-diagnostics | filecheck %s

// convert-nv-tileaa-to-simt holds tiles as the layout passes' #nv_tileaa.blocked attributes say
// (tileaa_to_simt/layout.py); what it cannot hold so is a located error, never a silent choice.

!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 8>, array<i32: 64, 8>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @no_layouts(%p: !nv_tileaa.ptr<f32>, %n: i32, %i: i32) {
    nv_tileaa.return
  }
}
// CHECK: layout_errors.mlir:9:3: error: convert-nv-tileaa-to-simt: @no_layouts has no nv_tileaa.simt_layout (a rank-1 #nv_tileaa.blocked): run tileas-assign-load-store-layouts first

// -----

!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 8>, array<i32: 64, 8>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @column_major(%p: !nv_tileaa.ptr<f32>, %n: i32, %i: i32) attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [2], order = [0]>} {
    %c8 = arith.constant 8 : i32
    %x = nv_tileaa.make_memref %p[%n, %c8] [%c8] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %vx = nv_tileaa.block_tile %x : !m -> !v
    %t, %t1 = nv_tileaa.tiled_load %vx[%i, %i] {nv_tileaa.layout = #nv_tileaa.blocked<elems = [4, 1], lanes = [2, 16], warps = [1, 2], order = [0, 1]>} : !v [i32, i32] -> tensor<64x8xf32>
    nv_tileaa.return
  }
}
// CHECK: layout_errors.mlir:24:5: error: 'nv_tileaa.tiled_load' is not supported yet by convert-nv-tileaa-to-simt: nv_tileaa.layout #nv_tileaa.blocked<elems = [4, 1], lanes = [2, 16], warps = [1, 2], order = [0, 1]> (the SIMT lowering holds row-major layouts with runs along the last dimension only)

// -----

!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 8>, array<i32: 64, 8>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @threads(%p: !nv_tileaa.ptr<f32>, %n: i32, %i: i32) attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [2], order = [0]>} {
    %c8 = arith.constant 8 : i32
    %x = nv_tileaa.make_memref %p[%n, %c8] [%c8] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %vx = nv_tileaa.block_tile %x : !m -> !v
    %t, %t1 = nv_tileaa.tiled_load %vx[%i, %i] {nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 4], lanes = [16, 2], warps = [4, 1], order = [1, 0]>} : !v [i32, i32] -> tensor<64x8xf32>
    nv_tileaa.return
  }
}
// CHECK: layout_errors.mlir:39:5: error: convert-nv-tileaa-to-simt: nv_tileaa.layout #nv_tileaa.blocked<elems = [1, 4], lanes = [16, 2], warps = [4, 1], order = [1, 0]> spreads the tile over 128 threads, the function's nv_tileaa.simt_layout over 64

// -----

!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 8>, array<i32: 64, 8>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @lanes(%p: !nv_tileaa.ptr<f32>, %n: i32, %i: i32) attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [2], order = [0]>} {
    %c8 = arith.constant 8 : i32
    %x = nv_tileaa.make_memref %p[%n, %c8] [%c8] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %vx = nv_tileaa.block_tile %x : !m -> !v
    %t, %t1 = nv_tileaa.tiled_load %vx[%i, %i] {nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 4], lanes = [32, 1], warps = [2, 1], order = [1, 0]>} : !v [i32, i32] -> tensor<64x8xf32>
    nv_tileaa.return
  }
}
// CHECK: layout_errors.mlir:54:5: error: convert-nv-tileaa-to-simt: nv_tileaa.layout #nv_tileaa.blocked<elems = [1, 4], lanes = [32, 1], warps = [2, 1], order = [1, 0]> is not how the SIMT lowering holds a (64, 8) tile with runs of 4 over 64 threads: #nv_tileaa.blocked<elems = [1, 4], lanes = [16, 2], warps = [2, 1], order = [1, 0]>

// -----

!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 8>, array<i32: 64, 8>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @two_runs(%p: !nv_tileaa.ptr<f32>, %n: i32, %i: i32) attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [2], order = [0]>} {
    %c8 = arith.constant 8 : i32
    %x = nv_tileaa.make_memref %p[%n, %c8] [%c8] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %vx = nv_tileaa.block_tile %x : !m -> !v
    %t, %t1 = nv_tileaa.tiled_load %vx[%i, %i] {nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 4], lanes = [16, 2], warps = [2, 1], order = [1, 0]>} : !v [i32, i32] -> tensor<64x8xf32>
    %t2 = nv_tileaa.tiled_store %t, %vx[%i, %i] {nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 2], lanes = [8, 4], warps = [2, 1], order = [1, 0]>} : tensor<64x8xf32>, !v [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: layout_errors.mlir:70:5: error: convert-nv-tileaa-to-simt: nv_tileaa.layout gives (64, 8) tiles runs of 2, another op runs of 4 (the SIMT lowering holds every tile of one shape in one layout)

// -----

!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 8>, array<i32: 64, 8>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @unmarked(%p: !nv_tileaa.ptr<f32>, %n: i32, %i: i32) attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [2], order = [0]>} {
    %c8 = arith.constant 8 : i32
    %x = nv_tileaa.make_memref %p[%n, %c8] [%c8] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %vx = nv_tileaa.block_tile %x : !m -> !v
    %t, %t1 = nv_tileaa.tiled_load %vx[%i, %i] : !v [i32, i32] -> tensor<64x8xf32>
    %r = nv_tileaa.reshape %t : tensor<64x8xf32> -> tensor<256x2xf32>
    %s = nv_tileaa.reshape %r : tensor<256x2xf32> -> tensor<64x8xf32>
    %t2 = nv_tileaa.tiled_store %s, %vx[%i, %i] : tensor<64x8xf32>, !v [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: layout_errors.mlir:86:5: error: convert-nv-tileaa-to-simt: 'nv_tileaa.reshape' of a [64, 8] tile (runs of 4) to [256, 2] (runs of 2) needs a layout conversion, but has no nv_tileaa.source_layout
