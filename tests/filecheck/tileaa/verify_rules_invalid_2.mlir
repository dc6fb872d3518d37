// nv_tileaa verifier rules that had no negative test (tools/untested_diagnostics.py, session 17):
// integer extension/truncation, comparisons, select, cat, extract_slice, insert_slice,
// join_mem_token, dot result type: one per split, each reported at its op.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

nv_tileaa.func @extsi_shape(%x: tensor<4xi8>) {
  // expected-error @+1 {{'nv_tileaa.extsi' keeps the shape: tensor<4xi8> -> tensor<8xi32>}}
  %y = nv_tileaa.extsi %x : tensor<4xi8> -> tensor<8xi32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @extsi_kind(%x: tensor<4xf16>) {
  // expected-error @+1 {{'nv_tileaa.extsi' converts int elements to int elements, not f16 to i32}}
  %y = nv_tileaa.extsi %x : tensor<4xf16> -> tensor<4xi32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @extui_width(%x: tensor<4xi32>) {
  // expected-error @+1 {{'nv_tileaa.extui' needs a wider result element than i32, got i16}}
  %y = nv_tileaa.extui %x : tensor<4xi32> -> tensor<4xi16>
  nv_tileaa.return
}

// -----

nv_tileaa.func @trunci_width(%x: tensor<4xi16>) {
  // expected-error @+1 {{'nv_tileaa.trunci' needs a narrower result element than i16, got i32}}
  %y = nv_tileaa.trunci %x : tensor<4xi16> -> tensor<4xi32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @cmpi_predicate(%x: tensor<4xi32>) {
  // expected-error @+1 {{unknown 'nv_tileaa.cmpi' predicate 'less' (one of}}
  %y = nv_tileaa.cmpi "less", %x, %x : tensor<4xi32> -> tensor<4xi1>
  nv_tileaa.return
}

// -----

nv_tileaa.func @cmpf_kind(%x: tensor<4xi32>) {
  // expected-error @+1 {{'nv_tileaa.cmpf' compares float elements, not i32}}
  %y = nv_tileaa.cmpf "olt", %x, %x : tensor<4xi32> -> tensor<4xi1>
  nv_tileaa.return
}

// -----

nv_tileaa.func @cmpi_result(%x: tensor<4xi32>) {
  // expected-error @+1 {{'nv_tileaa.cmpi' gives a tile of i1 of the operands' shape, not tensor<8xi1>}}
  %y = nv_tileaa.cmpi "slt", %x, %x : tensor<4xi32> -> tensor<8xi1>
  nv_tileaa.return
}

// -----

nv_tileaa.func @select_cond(%c: tensor<8xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{select condition must be i1 or a tile of i1 of shape [4], not tensor<8xi1>}}
  %y = nv_tileaa.select %c, %x, %x : tensor<8xi1>, tensor<4xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @cat_rank(%x: tensor<4xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+1 {{cat keeps the rank: [4], [2, 4] -> [8]}}
  %c = nv_tileaa.cat %x, %y {dim = 0 : i32} : tensor<4xf32>, tensor<2x4xf32> -> tensor<8xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @cat_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{cat of [4] and [4] along 0 cannot give [4]}}
  %c = nv_tileaa.cat %x, %x {dim = 0 : i32} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @cat_type(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{cat keeps the element type}}
  %c = nv_tileaa.cat %x, %y {dim = 0 : i32} : tensor<4xf32>, tensor<4xf16> -> tensor<8xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @extract_slice_rank(%x: tensor<8x8xf32>, %i: i32) {
  // expected-error @+1 {{extract_slice of a rank-2 tile needs a rank-2 result and 2 indices}}
  %e = nv_tileaa.extract_slice %x[%i] : tensor<8x8xf32>, i32 -> tensor<4x8xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @extract_slice_divide(%x: tensor<8x8xf32>, %i: i32) {
  // expected-error @+1 {{extract_slice result shape [3, 8] must divide the source shape [8, 8]}}
  %e = nv_tileaa.extract_slice %x[%i, %i] : tensor<8x8xf32>, i32, i32 -> tensor<3x8xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @extract_slice_type(%x: tensor<8x8xf32>, %i: i32) {
  // expected-error @+1 {{extract_slice keeps the element type}}
  %e = nv_tileaa.extract_slice %x[%i, %i] : tensor<8x8xf32>, i32, i32 -> tensor<4x8xf16>
  nv_tileaa.return
}

// -----

nv_tileaa.func @join_none() {
  // expected-error @+1 {{join_mem_token needs at least one token}}
  %t = nv_tileaa.join_mem_token
  nv_tileaa.return
}

// -----

nv_tileaa.func @dot_result(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{dot result type must equal the accumulator type}}
  %d = nv_tileaa.dot %a, %a, %c {matmul_fast_accum = false} : tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32> -> tensor<16x16xf16>
  nv_tileaa.return
}

// -----

nv_tileaa.func @insert_slice_rank(%s: tensor<4xf32>, %d: tensor<8x8xf32>, %i: i32) {
  // expected-error @+1 {{insert_slice of a rank-1 tile into a rank-2 one needs equal ranks and 2 indices}}
  %r = nv_tileaa.insert_slice %s, %d[%i, %i] : tensor<4xf32>, tensor<8x8xf32>, i32, i32 -> tensor<8x8xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @insert_slice_divide(%s: tensor<3x8xf32>, %d: tensor<8x8xf32>, %i: i32) {
  // expected-error @+1 {{insert_slice source shape [3, 8] must divide the destination shape [8, 8]}}
  %r = nv_tileaa.insert_slice %s, %d[%i, %i] : tensor<3x8xf32>, tensor<8x8xf32>, i32, i32 -> tensor<8x8xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @insert_slice_type(%s: tensor<4x8xf16>, %d: tensor<8x8xf32>, %i: i32) {
  // expected-error @+1 {{insert_slice keeps the element type}}
  %r = nv_tileaa.insert_slice %s, %d[%i, %i] : tensor<4x8xf16>, tensor<8x8xf32>, i32, i32 -> tensor<8x8xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @insert_slice_result(%s: tensor<4x8xf32>, %d: tensor<8x8xf32>, %i: i32) {
  // expected-error @+1 {{insert_slice gives a tile of the destination's type}}
  %r = nv_tileaa.insert_slice %s, %d[%i, %i] : tensor<4x8xf32>, tensor<8x8xf32>, i32, i32 -> tensor<8x16xf32>
  nv_tileaa.return
}
