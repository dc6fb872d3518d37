// RUN: tileorch-opt %s --split-input-file -p convert-nv-tileaa-to-simt --verify-diagnostics

// More of convert-nv-tileaa-to-simt's located errors that had no test (tools/untested_diagnostics.py,
// session 21): a layout attribute on an op that takes none, runs that do not divide the tile's last
// extent, a kernel that returns a value (nv_tileaa.func's verifier allows results).

!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 8>, array<i32: 64, 8>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @layout_on_addf(%p: !nv_tileaa.ptr<f32>, %n: i32, %i: i32) attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [2], order = [0]>} {
    %c8 = arith.constant 8 : i32
    %x = nv_tileaa.make_memref %p[%n, %c8] [%c8] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %vx = nv_tileaa.block_tile %x : !m -> !v
    %t, %t1 = nv_tileaa.tiled_load %vx[%i, %i] : !v [i32, i32] -> tensor<64x8xf32>
    // expected-error @+1 {{convert-nv-tileaa-to-simt: nv_tileaa.layout on 'nv_tileaa.addf' (only on loads, stores, reductions, scans, reshapes and expand_dims)}}
    %s = nv_tileaa.addf %t, %t {nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 4], lanes = [16, 2], warps = [2, 1], order = [1, 0]>} : tensor<64x8xf32>
    nv_tileaa.return
  }
}

// -----

!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 6>, array<i32: 64, 6>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @runs(%p: !nv_tileaa.ptr<f32>, %n: i32, %i: i32) attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [2], order = [0]>} {
    %c6 = arith.constant 6 : i32
    %x = nv_tileaa.make_memref %p[%n, %c6] [%c6] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %vx = nv_tileaa.block_tile %x : !m -> !v
    // expected-error @+1 {{runs of 4 do not divide the last extent of (64, 6)}}
    %t, %t1 = nv_tileaa.tiled_load %vx[%i, %i] {nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 4], lanes = [16, 2], warps = [2, 1], order = [1, 0]>} : !v [i32, i32] -> tensor<64x6xf32>
    nv_tileaa.return
  }
}

// -----

builtin.module {
  // expected-error @+1 {{convert-nv-tileaa-to-simt: a kernel returns no values}}
  nv_tileaa.func @returns(%n: i32) -> i32 attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [2], order = [0]>} {
    nv_tileaa.return %n : i32
  }
}
