// Verifier rules of the TMA, prefetch, WGMMA and ldmatrix payload ops that had no negative test:
// one per split, each reported at its op.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

llvm.func @tma_load_im2col_mode(%d: !llvm.ptr<7>, %t: !llvm.ptr, %b: !llvm.ptr<3>, %x: i32) {
  // expected-error @+1 {{only tile mode is supported, got im2col}}
  "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%d, %t, %x, %x, %b) <{operandSegmentSizes = array<i32: 1, 1, 2, 1, 0, 0, 0, 0>, mode = #nvvm.tma_load_mode<im2col>}> : (!llvm.ptr<7>, !llvm.ptr, i32, i32, !llvm.ptr<3>) -> ()
  llvm.return
}

// -----

llvm.func @tma_load_im2col_offsets(%d: !llvm.ptr<7>, %t: !llvm.ptr, %b: !llvm.ptr<3>, %x: i32, %o: i16) {
  // expected-error @+1 {{im2col offsets are only allowed in im2col mode}}
  "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%d, %t, %x, %x, %b, %o) <{operandSegmentSizes = array<i32: 1, 1, 2, 1, 1, 0, 0, 0>}> : (!llvm.ptr<7>, !llvm.ptr, i32, i32, !llvm.ptr<3>, i16) -> ()
  llvm.return
}

// -----

llvm.func @tma_store_predicated(%t: !llvm.ptr, %s: !llvm.ptr<3>, %x: i32, %p: i1) {
  // expected-error @+1 {{a predicated TMA store is not supported; branch around it}}
  "nvvm.cp.async.bulk.tensor.global.shared.cta"(%t, %s, %x, %x, %p) <{operandSegmentSizes = array<i32: 1, 1, 2, 0, 1>}> : (!llvm.ptr, !llvm.ptr<3>, i32, i32, i1) -> ()
  llvm.return
}

// -----

llvm.func @tma_prefetch_im2col_offsets(%t: !llvm.ptr, %x: i32, %o: i16) {
  // expected-error @+1 {{im2col offsets are only allowed in im2col mode}}
  "nvvm.cp.async.bulk.tensor.prefetch"(%t, %x, %o) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (!llvm.ptr, i32, i16) -> ()
  llvm.return
}

// -----

llvm.func @prefetch_not_tensormap(%t: !llvm.ptr) {
  // expected-error @+1 {{only the tensormap form of nvvm.prefetch is supported}}
  "nvvm.prefetch"(%t) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

llvm.func @wgmma_f32_inputs(%a: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  // expected-error @+1 {{only f16/bf16/tf32/e4m3/e5m2/s8/u8 inputs are supported, got f32}}
  %e = nvvm.wgmma.mma_async %a, %a, %c, <m = 64, n = 16, k = 16>, D[<f32>, <zero>], A[<f32>, <one>, <row>], B[<f32>, <one>, <row>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}

// -----

llvm.func @wgmma_result_type(%a: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  // expected-error @+1 {{result must be a struct of 8 f32 (m64n16 f32 accumulator), got 8 fields of !llvm.struct<(i32, i32, i32, i32,}}
  %e = nvvm.wgmma.mma_async %a, %a, %c, <m = 64, n = 16, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
  llvm.return
}

// -----

llvm.func @ldmatrix_col(%p: !llvm.ptr<3>) {
  // expected-error @+1 {{only the row layout (no .trans) is supported}}
  %0 = "nvvm.ldmatrix"(%p) <{num = 4 : i32, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>}> : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  llvm.return
}

// -----

llvm.func @ldmatrix_num(%p: !llvm.ptr<3>) {
  // expected-error @+1 {{ldmatrix loads 1, 2 or 4 matrices, got 3}}
  %0 = "nvvm.ldmatrix"(%p) <{num = 3 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>}> : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32)>
  llvm.return
}

// -----

// The accumulator a named struct, the result a literal one (their fields agree): still two types.
llvm.func @wgmma_accumulator_type_is_not_the_result_type(%a: i64, %c: !llvm.struct<"acc", (f32, f32, f32, f32, f32, f32, f32, f32)>) {
  // expected-error @+1 {{accumulator and result types must be equal}}
  %e = nvvm.wgmma.mma_async %a, %a, %c, <m = 64, n = 16, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>] : !llvm.struct<"acc", (f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
