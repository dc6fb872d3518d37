// More nv_tileas verifier rules that had no negative test (TMA atom rank and box, copy-atom vector
// width, iterator kind, dot and copy atoms, copy shape, pragma results, extract_slice entries and
// bounds): one per split, each reported at its op or attribute.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{tensor_view rank exceeds 5-dimension limit}}
nv_tileaa.func @tma_rank() attributes {a = #nv_tileas.sm_tma_load<[2, 2, 2, 2, 2, 2]>} {
  nv_tileaa.return
}

// -----

// expected-error @+1 {{TMA box dimensions must be in [1, 256], got [512, 64]}}
nv_tileaa.func @tma_box() attributes {a = #nv_tileas.sm_tma_load<[512, 64]>} {
  nv_tileaa.return
}

// -----

// expected-error @+1 {{nv_tileas.ldg vector width must be 1, 2, 4, 8 or 16, got 3}}
nv_tileaa.func @vector_width() attributes {a = #nv_tileas.ldg<3>} {
  nv_tileaa.return
}

// -----

// expected-error @+1 {{iterator kind must be one of any, producer, consumer}}
nv_tileaa.func @iterator_kind(%i: !nv_tileas.async.pipeline.iterator<bogus, 4, tuple<tensor<64x128xf16, #nv_tileas.layout<smem>>>>) {
  nv_tileaa.return
}

// -----

nv_tileaa.func @dot_atom(%a: tensor<64x16xf16, #nv_tileas.layout<reg>>, %b: tensor<16x64xf16, #nv_tileas.layout<reg>>, %c: tensor<64x64xf32, #nv_tileas.layout<reg>>, %t: i1) {
  // expected-error @+1 {{dot atom must be an MMA or FMA atom, got #nv_tileas.ldg<4>}}
  %d = nv_tileas.dot %a, %b, %c, %t {atom = #nv_tileas.ldg<4>} : tensor<64x16xf16, #nv_tileas.layout<reg>>, tensor<16x64xf16, #nv_tileas.layout<reg>>, tensor<64x64xf32, #nv_tileas.layout<reg>> -> tensor<64x64xf32, #nv_tileas.layout<reg>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @copy_shape(%c: tensor<128x128xf32, #nv_tileas.layout<reg>>) {
  %buf = nv_tileas.alloc_tensor : tensor<64x128xf32, #nv_tileas.layout<smem>>
  // expected-error @+1 {{copy keeps shape and element type}}
  %s = nv_tileas.copy %c into %buf : tensor<64x128xf32, #nv_tileas.layout<smem>> {atom = #nv_tileas.stsm<4>} : tensor<128x128xf32, #nv_tileas.layout<reg>> -> tensor<64x128xf32, #nv_tileas.layout<smem>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @copy_atom(%c: tensor<128x128xf32, #nv_tileas.layout<reg>>) {
  %buf = nv_tileas.alloc_tensor : tensor<128x128xf32, #nv_tileas.layout<smem>>
  // expected-error @+1 {{copy atom must be a copy atom, got #nv_tileas.mma.sm90<[64, 128, 16]>}}
  %s = nv_tileas.copy %c into %buf : tensor<128x128xf32, #nv_tileas.layout<smem>> {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<128x128xf32, #nv_tileas.layout<reg>> -> tensor<128x128xf32, #nv_tileas.layout<smem>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @pragma_count(%b: tensor<128x64xf32, #nv_tileas.layout<reg>>) {
  // expected-error @+1 {{pragma has one result per operand}}
  %pr:2 = "nv_tileas.pragma"(%b) {hints = {keep}} : (tensor<128x64xf32, #nv_tileas.layout<reg>>) -> (tensor<128x64xf32, #nv_tileas.layout<reg>>, tensor<128x64xf32, #nv_tileas.layout<reg>>)
  nv_tileaa.return
}

// -----

nv_tileaa.func @slice_entries(%s: tensor<128x128xf32, #nv_tileas.layout<smem>>) {
  // expected-error @+1 {{slice offsets, slice shape and tile shape must have one entry per dimension}}
  %sl = nv_tileas.extract_slice %s {offsets = array<i32: 64>} : tensor<128x128xf32, #nv_tileas.layout<smem>> -> tensor<64x128xf32, #nv_tileas.layout<smem>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @slice_outside(%s: tensor<128x128xf32, #nv_tileas.layout<smem>>) {
  // expected-error @+1 {{slice of shape [64, 128] at [96, 0] leaves the tile [128, 128]}}
  %sl = nv_tileas.extract_slice %s {offsets = array<i32: 96, 0>} : tensor<128x128xf32, #nv_tileas.layout<smem>> -> tensor<64x128xf32, #nv_tileas.layout<smem>>
  nv_tileaa.return
}
