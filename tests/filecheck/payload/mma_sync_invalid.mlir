// Verifier negatives of nvvm.mma.sync (PTX ISA: the m16n8kK shape of each input type, the
// fragment register counts and types, row-major A / column-major B).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

llvm.func @f(%w: i32, %f: f32) {
  %0 = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{shape = #nvvm.shape<m = 16, n = 8, k = 16>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: tf32 inputs take shape m16n8k8, got (16, 8, 16)

// -----

llvm.func @f(%w: i32, %f: f32) {
  %0 = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{shape = #nvvm.shape<m = 16, n = 8, k = 32>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: operand C must be 4 values of type i32

// -----

llvm.func @f(%w: i32, %f: f32) {
  %0 = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{shape = #nvvm.shape<m = 16, n = 8, k = 16>, layoutA = #nvvm.mma_layout<col>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: only row-major A and column-major B are supported

// -----

llvm.func @f(%w: i32, %f: f32) {
  %0 = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{shape = #nvvm.shape<m = 16, n = 8, k = 16>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<f16>, multiplicandBPtxType = #nvvm.mma_type<f16>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: operand A must be 4 values of type vector<2xf16>

// -----

llvm.func @f(%w: i32, %f: f32) {
  %0 = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{shape = #nvvm.shape<m = 16, n = 8, k = 16>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<f16>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: multiplicand types bf16 and f16 do not form an mma.sync
