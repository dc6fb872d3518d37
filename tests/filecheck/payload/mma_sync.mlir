// nvvm.mma.sync (warp-level mma.sync.aligned.m16n8kK.row.col, the SIMT path's dots) -> the LLVM 22
// intrinsic of each input type (llvm.nvvm.mma.m16n8k16.row.col.f32.f32 for f16: the D and C types;
// bf16/tf32: the input type; s8/u8: both inputs when they differ), inline asm for e4m3/e5m2 (no
// intrinsic in LLVM 22); nvvm.ldmatrix (the fragments' loads) -> llvm.nvvm.ldmatrix.sync.aligned.m8n8.xN.b16.
// RUN: tileorch-opt %s --split-input-file -p convert-nvvm-to-llvm | filecheck %s

llvm.func @mma(%h: vector<2xf16>, %w: i32, %f: f32, %i: i32) {
  %0 = "nvvm.mma.sync"(%h, %h, %h, %h, %h, %h, %f, %f, %f, %f) <{shape = #nvvm.shape<m = 16, n = 8, k = 16>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<f16>, multiplicandBPtxType = #nvvm.mma_type<f16>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %1 = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{shape = #nvvm.shape<m = 16, n = 8, k = 16>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %2 = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{shape = #nvvm.shape<m = 16, n = 8, k = 8>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %3 = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %i, %i, %i, %i) <{shape = #nvvm.shape<m = 16, n = 8, k = 32>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
  %4 = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %i, %i, %i, %i) <{shape = #nvvm.shape<m = 16, n = 8, k = 32>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<u8>, multiplicandBPtxType = #nvvm.mma_type<s8>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
  %5 = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{shape = #nvvm.shape<m = 16, n = 8, k = 32>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<e4m3>, multiplicandBPtxType = #nvvm.mma_type<e5m2>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}
// CHECK-LABEL: llvm.func @mma
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.f32.f32"(%{{.*}}) : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.bf16"
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k8.row.col.tf32"
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.s8"
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.u8.s8"
// CHECK: llvm.inline_asm has_side_effects "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f"

// -----

llvm.func @ldmatrix(%p: !llvm.ptr<3>) {
  %0 = "nvvm.ldmatrix"(%p) <{num = 4 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>}> : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  %1 = "nvvm.ldmatrix"(%p) <{num = 2 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>}> : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
  llvm.return
}
// CHECK-LABEL: llvm.func @ldmatrix
// CHECK: llvm.call_intrinsic "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16"(%{{.*}}) : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.call_intrinsic "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.b16"(%{{.*}}) : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
