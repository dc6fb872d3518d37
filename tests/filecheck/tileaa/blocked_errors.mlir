// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// #nv_tileaa.blocked's verifier rules (dialects/nv_tileaa/blocked.py), then the rule of an op
// carrying one: a layout of its tile's rank.

builtin.module {
  nv_tileaa.func @k() attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [8], lanes = [16], warps = [4], order = [0]>} {
    nv_tileaa.return
  }
}
// CHECK: #nv_tileaa.blocked lanes must multiply to 32 (one warp), got [16] (16)

// -----

builtin.module {
  nv_tileaa.func @k() attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [1, 6], lanes = [4, 8], warps = [4, 1], order = [1, 0]>} {
    nv_tileaa.return
  }
}
// CHECK: #nv_tileaa.blocked elems must be positive powers of two, got [1, 6]

// -----

builtin.module {
  nv_tileaa.func @k() attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [1, 8], lanes = [4, 8], warps = [0, 1], order = [1, 0]>} {
    nv_tileaa.return
  }
}
// CHECK: #nv_tileaa.blocked warps must be positive powers of two, got [0, 1]

// -----

builtin.module {
  nv_tileaa.func @k() attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [1, 8], lanes = [4, 8], warps = [4, 1], order = [1, 1]>} {
    nv_tileaa.return
  }
}
// CHECK: #nv_tileaa.blocked order must be a permutation of 0..1, got [1, 1]

// -----

builtin.module {
  nv_tileaa.func @k() attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [1, 8], lanes = [32], warps = [4, 1], order = [1, 0]>} {
    nv_tileaa.return
  }
}
// CHECK: #nv_tileaa.blocked needs one entry per tile dimension in each of elems, lanes, warps and order, got elems 2, lanes 1, warps 2, order 2

// -----

builtin.module {
  nv_tileaa.func @k() attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [], lanes = [], warps = [], order = []>} {
    nv_tileaa.return
  }
}
// CHECK: #nv_tileaa.blocked of rank 0: a layout has at least one dimension

// -----

builtin.module {
  nv_tileaa.func @k() attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [64], order = [0]>} {
    nv_tileaa.return
  }
}
// CHECK: #nv_tileaa.blocked warps [64] make 64 warps, more than a CTA's 32

// -----

builtin.module {
  nv_tileaa.func @k() attributes {nv_tileaa.simt_layout = #nv_tileaa.blocked<lanes = [32], elems = [4], warps = [4], order = [0]>} {
    nv_tileaa.return
  }
}
// CHECK: expected 'elems' (the keys of #nv_tileaa.blocked are elems, lanes, warps, order, in this order), got 'lanes'

// -----

!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 8>, array<i32: 64, 8>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%v: !v, %i: i32) {
    %a, %t = nv_tileaa.tiled_load %v[%i, %i] {nv_tileaa.layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [4], order = [0]>} : !v [i32, i32] -> tensor<64x8xf32>
    nv_tileaa.return
  }
}
// CHECK: blocked_errors.mlir:82:5: error: 'nv_tileaa.tiled_load' nv_tileaa.layout has rank 1, its tile tensor<64x8xf32> has rank 2

// -----

builtin.module {
  nv_tileaa.func @k(%x: tensor<64x8xf32>) {
    %y = nv_tileaa.reshape %x {nv_tileaa.layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [4], order = [0]>, nv_tileaa.source_layout = 4 : i32} : tensor<64x8xf32> -> tensor<512xf32>
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.reshape' nv_tileaa.source_layout must be a #nv_tileaa.blocked layout, got 4 : i32
