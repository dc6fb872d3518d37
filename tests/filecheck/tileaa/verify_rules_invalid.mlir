// nv_tileaa verifier rules that had no negative test (dot ranks/shapes/types, broadcast,
// expand_dims, extract, fp_to_fp, make_range, assume predicates, kernel_spec, return, pragma,
// offset, memref types): one per split, each reported at its op.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

nv_tileaa.func @dot_rank(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %c: tensor<2x128x128xf32>) {
  // expected-error @+1 {{dot operands must have the same rank}}
  %d = nv_tileaa.dot %a, %b, %c {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<2x128x128xf32> -> tensor<2x128x128xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @dot_acc_shape(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %c: tensor<128x64xf32>) {
  // expected-error @+1 {{dot accumulator shape [128, 64] does not match lhs [128, 64] x rhs [64, 128]}}
  %d = nv_tileaa.dot %a, %b, %c {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @dot_element_types(%a: tensor<128x64xf16>, %b: tensor<64x128xbf16>, %c: tensor<128x128xf32>) {
  // expected-error @+1 {{dot operand element types differ: f16 vs bf16}}
  %d = nv_tileaa.dot %a, %b, %c {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @dot_vector(%a: tensor<64xf16>, %b: tensor<64x128xf16>, %c: tensor<128xf32>) {
  // expected-error @+1 {{dot operands must be tensors of rank >= 2, got tensor<64xf16>}}
  %d = nv_tileaa.dot %a, %b, %c {matmul_fast_accum = false} : tensor<64xf16>, tensor<64x128xf16>, tensor<128xf32> -> tensor<128xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @broadcast_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{broadcast keeps the rank: 1 vs 2}}
  %y = nv_tileaa.broadcast %x : tensor<8xf32> -> tensor<4x8xf32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @broadcast_type(%x: tensor<4x1xf32>) {
  // expected-error @+1 {{broadcast keeps the element type}}
  %y = nv_tileaa.broadcast %x : tensor<4x1xf32> -> tensor<4x8xf16>
  nv_tileaa.return
}

// -----

nv_tileaa.func @expand_dims_range(%x: tensor<16xi32>) {
  // expected-error @+1 {{dim 3 out of range for rank 1}}
  %e = nv_tileaa.expand_dims %x {dim = 3 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @expand_dims_result(%x: tensor<16xi32>) {
  // expected-error @+1 {{expand_dims of [16] at 0 must give [1, 16], got [16, 1]}}
  %e = nv_tileaa.expand_dims %x {dim = 0 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @extract_out_of_bounds(%s: tensor<8x16xi32>) {
  // expected-error @+1 {{extract indices [8, 2] out of bounds for shape [8, 16]}}
  %x0 = nv_tileaa.extract %s {indices = array<i32: 8, 2>} : tensor<8x16xi32> -> i32
  nv_tileaa.return
}

// -----

nv_tileaa.func @extract_type(%s: tensor<8x16xi32>) {
  // expected-error @+1 {{extract result must be the element type i32}}
  %x0 = nv_tileaa.extract %s {indices = array<i32: 1, 2>} : tensor<8x16xi32> -> i64
  nv_tileaa.return
}

// -----

nv_tileaa.func @fp_to_fp_int(%s: tensor<8x16xf32>) {
  // expected-error @+1 {{fp_to_fp converts float elements to float elements}}
  %h = nv_tileaa.fp_to_fp %s {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<8x16xf32> -> tensor<8x16xi16>
  nv_tileaa.return
}

// -----

nv_tileaa.func @fp_to_fp_shape(%s: tensor<8x16xf32>) {
  // expected-error @+1 {{fp_to_fp keeps the shape}}
  %h = nv_tileaa.fp_to_fp %s {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<8x16xf32> -> tensor<16x8xf16>
  nv_tileaa.return
}

// -----

nv_tileaa.func @make_range_result() {
  // expected-error @+1 {{make_range result must be tensor<16x(int)>, got tensor<8xi32>}}
  %r0 = nv_tileaa.make_range {start = 0 : i32, end = 16 : i32} : tensor<8xi32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @assume_float(%x: f32) {
  // expected-error @+1 {{assume predicates apply to integers and pointers, got f32}}
  %y = nv_tileaa.assume %x {predicate = #nv_tileaa.div_by<16>} : f32
  nv_tileaa.return
}

// -----

nv_tileaa.func @assume_pointer_bounded(%p: !nv_tileaa.ptr<f32>) {
  // expected-error @+1 {{a pointer can only be assumed div_by (aligned)}}
  %y = nv_tileaa.assume %p {predicate = #nv_tileaa.bounded<0, ?>} : !nv_tileaa.ptr<f32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @bounded_order(%x: i32) {
  // expected-error @+1 {{bounded lower bound 8 exceeds upper bound 2}}
  %y = nv_tileaa.assume %x {predicate = #nv_tileaa.bounded<8, 2>} : i32
  nv_tileaa.return
}

// -----

// expected-error @+1 {{kernel_spec num_worker_warps must be in [1, 32], got 64}}
nv_tileaa.func @kernel_spec_warps() attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 64>} {
  nv_tileaa.return
}

// -----

nv_tileaa.func @returns_a_value(%x: i32) {
  // expected-error @+1 {{returned types do not match the function result types []}}
  nv_tileaa.return %x : i32
}

// -----

nv_tileaa.func @pragma_results(%n: tensor<8x16xf32>) {
  // expected-error @+1 {{pragma results must mirror its operands}}
  %pr = nv_tileaa.pragma %n {hints = {unroll = 2 : i32}} : tensor<8x16xf32> -> tensor<8x16xf16>
  nv_tileaa.return
}

// -----

nv_tileaa.func @offset_result(%p: !nv_tileaa.ptr<f32>, %o: i32) {
  // expected-error @+1 {{offset returns the pointers' type !nv_tileaa.ptr<f32>, got !nv_tileaa.ptr<f16>}}
  %q = nv_tileaa.offset %p, %o : !nv_tileaa.ptr<f32>, i32 -> !nv_tileaa.ptr<f16>
  nv_tileaa.return
}

// -----

nv_tileaa.func @memref_rank0(%p: !nv_tileaa.ptr<f16>) {
  // expected-error @+1 {{memref must have rank >= 1}}
  %mc = nv_tileaa.make_memref %p[] [] : !nv_tileaa.ptr<f16> [] [] -> !nv_tileaa.memref<f16, array<i64>, array<i64>, i32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @memref_negative(%p: !nv_tileaa.ptr<f16>, %m: i32) {
  // expected-error @+1 {{memref extents and strides must be non-negative or '?'}}
  %mc = nv_tileaa.make_memref %p[%m] [] : !nv_tileaa.ptr<f16> [i32] [] -> !nv_tileaa.memref<f16, array<i64: ?>, array<i64: -4>, i32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @memref_index_type(%p: !nv_tileaa.ptr<f16>, %m: i32) {
  // expected-error @+1 {{memref index type must be an integer type, got f32}}
  %mc = nv_tileaa.make_memref %p[%m] [] : !nv_tileaa.ptr<f16> [i32] [] -> !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, f32>
  nv_tileaa.return
}

// -----

nv_tileaa.func @memref_element(%p: !nv_tileaa.ptr<f16>, %m: i32) {
  // expected-error @+1 {{pointer element f16 differs from memref element f32}}
  %mc = nv_tileaa.make_memref %p[%m] [] : !nv_tileaa.ptr<f16> [i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
  nv_tileaa.return
}
