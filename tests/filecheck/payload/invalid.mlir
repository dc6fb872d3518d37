// Verifier negatives for the nvvm payload ops (PTX ISA rules for TMA, WGMMA, stmatrix).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

llvm.func @f(%t: !llvm.ptr, %d: !llvm.ptr<3>, %b: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x] : !llvm.ptr<3>, !llvm.ptr
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: destination must be !llvm.ptr<7> (shared::cluster), got !llvm.ptr<3>

// -----
llvm.func @f(%t: !llvm.ptr, %d: !llvm.ptr<7>, %b: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x, %x, %x, %x, %x, %x] : !llvm.ptr<7>, !llvm.ptr
  llvm.return
}
// CHECK: error: box must have 1 to 5 coordinates, got 6

// -----
llvm.func @f(%t: !llvm.ptr<1>, %d: !llvm.ptr<7>, %b: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x] : !llvm.ptr<7>, !llvm.ptr<1>
  llvm.return
}
// CHECK: error: the tensor map must be a generic !llvm.ptr (a grid-constant kernel parameter), got !llvm.ptr<1>

// -----
llvm.func @f(%t: !llvm.ptr, %d: !llvm.ptr<7>, %b: !llvm.ptr<1>, %x: i32) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x] : !llvm.ptr<7>, !llvm.ptr
  llvm.return
}
// CHECK: error: mbarrier must be !llvm.ptr<3> (shared::cta), got !llvm.ptr<1>

// -----
llvm.func @f(%t: !llvm.ptr, %d: !llvm.ptr<3>, %b: !llvm.ptr<3>, %x: i32, %m: i16) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x] multicast_mask = %m cta_only = true : !llvm.ptr<3>, !llvm.ptr
  llvm.return
}
// CHECK: error: a CTA-only copy cannot multicast

// -----
llvm.func @f(%t: !llvm.ptr, %s: !llvm.ptr<1>, %x: i32) {
  nvvm.cp.async.bulk.tensor.global.shared.cta %t, %s, box[%x] : !llvm.ptr, !llvm.ptr<1>
  llvm.return
}
// CHECK: error: source must be !llvm.ptr<3> (shared::cta), got !llvm.ptr<1>

// -----
llvm.func @f(%t: !llvm.ptr, %s: !llvm.ptr<3>) {
  nvvm.cp.async.bulk.tensor.reduce %t, %s, box[], reduction = add : !llvm.ptr, !llvm.ptr<3>
  llvm.return
}
// CHECK: error: box must have 1 to 5 coordinates, got 0

// -----
llvm.func @f(%t: !llvm.ptr<3>) {
  nvvm.prefetch tensormap, %t : !llvm.ptr<3>
  llvm.return
}
// CHECK: error: tensormap prefetch needs a generic !llvm.ptr, got !llvm.ptr<3>

// -----
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 12, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: shape n must be a multiple of 8 in [8, 256], got 12

// -----
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 264, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: shape n must be a multiple of 8 in [8, 256], got 264

// -----
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 128, n = 16, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: shape must be m = 64, k = 16 for bf16, got m = 128, k = 16

// -----
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: result must be a struct of 8 f32 (m64n16 f32 accumulator), got 4 fields of !llvm.struct<(f32, f32, f32, f32)>

// -----
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<f16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: typeA and typeB must be equal (or both s8/u8), got bf16 and f16

// -----
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 16>, D[<f16>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: bf16 inputs need a f32 accumulator (only f32 for floats), got f16

// -----
llvm.func @f(%a: i64, %b: i64) {
  %d = nvvm.wgmma.mma_async %a, %b, <m = 64, n = 16, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: without an accumulator operand scaleD must be zero

// -----
llvm.func @f(%p: !llvm.ptr<3>, %r: i32) {
  nvvm.stmatrix %p, %r, %r, %r layout = <row>, shape = <m = 8, n = 8>, element_type = <b16> : !llvm.ptr<3>, i32, i32, i32
  llvm.return
}
// CHECK: error: stmatrix stores 1, 2 or 4 matrices, got 3 sources

// -----
llvm.func @f(%p: !llvm.ptr<1>, %r: i32) {
  nvvm.stmatrix %p, %r layout = <row>, shape = <m = 8, n = 8>, element_type = <b16> : !llvm.ptr<1>, i32
  llvm.return
}
// CHECK: error: stmatrix address must be !llvm.ptr<3> (shared::cta), got !llvm.ptr<1>

// -----
llvm.func @f(%p: !llvm.ptr<3>, %r: i32) {
  nvvm.stmatrix %p, %r layout = <row>, shape = <m = 16, n = 8>, element_type = <b16> : !llvm.ptr<3>, i32
  llvm.return
}
// CHECK: error: only the m8n8 b16 stmatrix is supported on sm_90

// -----
// fp8 operands cannot be transposed in shared memory (no imm-trans for e4m3/e5m2)
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <row>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: e4m3 operands must be K-major (A layout row, B layout col): only 16-bit inputs can be transposed

// -----
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 16>, D[<f32>, <one>], A[<e5m2>, <one>, <row>], B[<e5m2>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: shape must be m = 64, k = 32 for e5m2, got m = 64, k = 16

// -----
// s8/u8 inputs accumulate in s32 (i32 registers)
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 32>, D[<f32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: s8 inputs need a s32 accumulator (only f32 for floats), got f32

// -----
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 32>, D[<s32>, <one>], A[<u8>, <one>, <row>], B[<s8>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: result must be a struct of 8 i32 (m64n16 s32 accumulator), got 8 fields of !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>

// -----
// an integer operand mixes only with another integer one
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<e4m3>, <one>, <col>] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)> -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
  llvm.return
}
// CHECK: error: typeA and typeB must be equal (or both s8/u8), got s8 and e4m3

// -----
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 16>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)> -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
  llvm.return
}
// CHECK: error: shape must be m = 64, k = 32 for s8, got m = 64, k = 16

// -----
// int8 operands are K-major (no imm-trans)
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <row>] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)> -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
  llvm.return
}
// CHECK: error: s8 operands must be K-major (A layout row, B layout col): only 16-bit inputs can be transposed

// -----
// no operand negation for integer inputs
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 32>, D[<s32>, <one>], A[<s8>, <neg>, <row>], B[<s8>, <one>, <col>] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)> -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
  llvm.return
}
// CHECK: error: integer wgmma has no operand negation (scaleA and scaleB must be one)

// -----
llvm.func @f(%a: i64, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = nvvm.wgmma.mma_async %a, %b, %c, <m = 64, n = 16, k = 16>, D[<f32>, <one>, <satfinite>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: satfinite applies to integer wgmma only

// -----
// (a coordinate of another type is the operand constraint's error: the op's own rule no longer checks it)
llvm.func @f(%t: !llvm.ptr, %d: !llvm.ptr<7>, %b: !llvm.ptr<3>, %x: i32, %y: i64) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x, %y] : !llvm.ptr<7>, !llvm.ptr
  llvm.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: operand 'coordinates' at positions 2 to 3 does not verify: Expected attribute i32 but got i64

// -----
llvm.func @g(%h: vector<2xf16>, %f: f32) {
  %0 = "nvvm.mma.sync"(%h, %h, %h, %h, %h, %h, %f, %f, %f, %f) <{shape = #nvvm.shape<m = 16, n = 8, k = 16>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<f16>, multiplicandBPtxType = #nvvm.mma_type<f16>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32)>
  llvm.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: the result must be a struct of 4 f32

// -----
llvm.func @f(%r: i32, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = atom.wgmma_mma_async_reg_a %r, %r, %r, %r, %b, %c {n = 16 : i64, typeAB = #nvvm.wgmma_type<e4m3>, layoutB = #nvvm.mma_layout<col>} : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: a register A operand is f16 or bf16 here, got e4m3

// -----
llvm.func @f(%r: i32, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = atom.wgmma_mma_async_reg_a %r, %r, %r, %r, %b, %c {n = 12 : i64, typeAB = #nvvm.wgmma_type<f16>, layoutB = #nvvm.mma_layout<col>} : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: n must be a multiple of 8 in [8, 256], got 12

// -----
llvm.func @f(%r: i32, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32)>) {
  %d = atom.wgmma_mma_async_reg_a %r, %r, %r, %r, %b, %c {n = 16 : i64, typeAB = #nvvm.wgmma_type<f16>, layoutB = #nvvm.mma_layout<col>} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: the accumulator must be a struct of 8 f32 (m64n16), got !llvm.struct<(f32, f32, f32, f32)>

// -----
llvm.func @f(%r: i32, %b: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>) {
  %d = atom.wgmma_mma_async_reg_a %r, %r, %r, %r, %b, %c {n = 16 : i64, typeAB = #nvvm.wgmma_type<f16>, layoutB = #nvvm.mma_layout<col>} : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(i32, f32, f32, f32, f32, f32, f32, f32)>
  llvm.return
}
// CHECK: error: accumulator and result types must be equal
