// nv_tileas tile-level verifier rules that had no negative test (tools/untested_diagnostics.py,
// session 21): TMA multicast widths, layout warps (positive, one per dimension), copy and tiled_load
// into a buffer, pragma results, copy atoms of tiled_load / tiled_store, a stored tile that is not
// the view's.  (insert_slice's "returns the destination's type" was unreachable: dest and result
// share the op's IRDL type variable; removed.)
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{TMA multicast width must be a power of two up to 16, got 3}}
nv_tileaa.func @mcast() attributes {a = #nv_tileas.sm_tma_load<[64, 64], mcast = 3>} {
  nv_tileaa.return
}

// -----

// expected-error @+1 {{layout warps entries must be positive}}
nv_tileaa.func @warps(%a: tensor<16xf32, #nv_tileas.layout<reg, warps = [0]>>) {
  nv_tileaa.return
}

// -----

nv_tileaa.func @rank(%a: tensor<16xf32, #nv_tileas.layout<reg, warps = [4, 1]>>) {
  // expected-error @+1 {{'nv_tileas.copy' layout warps has 2 entries for rank 1}}
  %b = "nv_tileas.copy"(%a) : (tensor<16xf32, #nv_tileas.layout<reg, warps = [4, 1]>>) -> tensor<16xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @copy_into(%a: tensor<16xf32>, %d: tensor<16xf32, #nv_tileas.layout<smem>>) {
  // expected-error @+1 {{copy into a buffer returns the buffer's type}}
  %b = "nv_tileas.copy"(%a, %d) : (tensor<16xf32>, tensor<16xf32, #nv_tileas.layout<smem>>) -> tensor<16xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @pragma_shape(%a: tensor<16xf32>) {
  // expected-error @+1 {{pragma results mirror its operands (layouts may differ)}}
  %b = "nv_tileas.pragma"(%a) : (tensor<16xf32>) -> tensor<32xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @pragma_scalar(%a: i32) {
  // expected-error @+1 {{pragma results mirror its operands}}
  %b = "nv_tileas.pragma"(%a) : (i32) -> i64
  nv_tileaa.return
}

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!sa = tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
nv_tileaa.func @load_into(%va: !va, %i: i32, %slot: !sa) {
  // expected-error @+1 {{tiled_load into a buffer returns the buffer's type}}
  %t = "nv_tileas.tiled_load"(%va, %slot, %i, %i) <{atom = #nv_tileas.sm_tma_load<[64, 128]>, allow_tma = true, operandSegmentSizes = array<i32: 1, 1, 2>}> : (!va, !sa, i32, i32) -> tensor<128x64xf16>
  nv_tileaa.return
}

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
nv_tileaa.func @load_atom(%va: !va, %i: i32) {
  // expected-error @+1 {{tiled_load atom must be a copy atom, got #nv_tileas.mma.sm90<[64, 128, 16]>}}
  %t = "nv_tileas.tiled_load"(%va, %i, %i) <{atom = #nv_tileas.mma.sm90<[64, 128, 16]>, operandSegmentSizes = array<i32: 1, 0, 2>}> : (!va, i32, i32) -> tensor<128x64xf16>
  nv_tileaa.return
}

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
nv_tileaa.func @load_store_atom(%va: !va, %i: i32) {
  // expected-error @+1 {{tiled_load cannot use a TMA store atom}}
  %t = "nv_tileas.tiled_load"(%va, %i, %i) <{atom = #nv_tileas.sm_tma_store<[64, 128]>, operandSegmentSizes = array<i32: 1, 0, 2>}> : (!va, i32, i32) -> tensor<128x64xf16>
  nv_tileaa.return
}

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
nv_tileaa.func @store_atom(%va: !va, %i: i32, %t: tensor<128x64xf16>) {
  // expected-error @+1 {{tiled_store atom must be a store copy atom, got #nv_tileas.sm_tma_load<[64, 128]>}}
  "nv_tileas.tiled_store"(%va, %t, %i, %i) <{atom = #nv_tileas.sm_tma_load<[64, 128]>}> : (!va, tensor<128x64xf16>, i32, i32) -> ()
  nv_tileaa.return
}

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
nv_tileaa.func @view_tile(%va: !va, %i: i32, %t: tensor<64x64xf16>) {
  // expected-error @+1 {{tiled_store tile tensor<64x64xf16> does not match the view's tile [128, 64] x f16}}
  "nv_tileas.tiled_store"(%va, %t, %i, %i) <{atom = #nv_tileas.sm_tma_store<[64, 128]>}> : (!va, tensor<64x64xf16>, i32, i32) -> ()
  nv_tileaa.return
}
