// REQUIRES: ptxas
// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

// The kernels of types_shapes.mlir to PTX (fp8 conversions are sm_89+ instructions), assembled
// by ptxas for sm_90a.
// CHECK-LABEL: .entry fp8(
// CHECK: ld.global.{{[bu]}}8
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK: cvt.rn.satfinite.e5m2x2.f32
// CHECK: st.global.{{[bu]}}8
// CHECK-LABEL: .entry ints(
// CHECK: ld.global.{{[bsu]}}8
// CHECK: st.global.{{[bu]}}{{32|64}}
// CHECK: st.global.{{[bu]}}8
// CHECK-LABEL: .entry tf32(
// CHECK: cvt.rn.tf32.f32
// CHECK-LABEL: .entry shapes(
// CHECK: bar.sync
// CHECK: st.global.{{[bf]}}32
builtin.module {
  nv_tileaa.func @fp8(%x: !nv_tileaa.ptr<f8E4M3FN>, %y: !nv_tileaa.ptr<f8E5M2>, %n: i32) {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f8E4M3FN>[i32] [] -> !nv_tileaa.memref<f8E4M3FN, array<i64: ?>, array<i64: 1>, i32>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f8E5M2>[i32] [] -> !nv_tileaa.memref<f8E5M2, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f8E4M3FN, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f8E4M3FN, array<i64: ?>, array<i64: 1>, i32>>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f8E5M2, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f8E5M2, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %t_tok = nv_tileaa.tiled_load %vx[%b] : !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f8E4M3FN, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<128xf8E4M3FN>
    %f = nv_tileaa.fp_to_fp %t : tensor<128xf8E4M3FN> -> tensor<128xf32>
    %g = nv_tileaa.mulf %f, %f : tensor<128xf32>
    %h = nv_tileaa.fp_to_fp %g : tensor<128xf32> -> tensor<128xf8E5M2>
    %s = nv_tileaa.tiled_store %h, %vy[%b] : tensor<128xf8E5M2>, !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f8E5M2, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
  nv_tileaa.func @ints(%a: !nv_tileaa.ptr<i8>, %m: !nv_tileaa.ptr<i1>, %o: !nv_tileaa.ptr<i64>, %n: i32) {
    %ma = nv_tileaa.make_memref %a[%n] [] : !nv_tileaa.ptr<i8>[i32] [] -> !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32>
    %mm = nv_tileaa.make_memref %m[%n] [] : !nv_tileaa.ptr<i1>[i32] [] -> !nv_tileaa.memref<i1, array<i64: ?>, array<i64: 1>, i32>
    %mo = nv_tileaa.make_memref %o[%n] [] : !nv_tileaa.ptr<i64>[i32] [] -> !nv_tileaa.memref<i64, array<i64: ?>, array<i64: 1>, i32>
    %va = nv_tileaa.block_tile %ma : !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32>>
    %vm = nv_tileaa.block_tile %mm : !nv_tileaa.memref<i1, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<i1, array<i64: ?>, array<i64: 1>, i32>>
    %vo = nv_tileaa.block_tile %mo : !nv_tileaa.memref<i64, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<i64, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %x, %x_tok = nv_tileaa.tiled_load %va[%b] : !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<128xi8>
    %k, %k_tok = nv_tileaa.tiled_load %vm[%b] : !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<i1, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<128xi1>
    %w = nv_tileaa.extsi %x : tensor<128xi8> -> tensor<128xi64>
    %z = arith.constant dense<0> : tensor<128xi64>
    %neg = nv_tileaa.subi %z, %w : tensor<128xi64>
    %pos = nv_tileaa.cmpi "sgt", %w, %z : tensor<128xi64> -> tensor<128xi1>
    %both = arith.andi %pos, %k : tensor<128xi1>
    %r = nv_tileaa.select %both, %w, %neg : tensor<128xi1>, tensor<128xi64>
    %s1 = nv_tileaa.tiled_store %r, %vo[%b] : tensor<128xi64>, !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<i64, array<i64: ?>, array<i64: 1>, i32>>[i32]
    %s2 = nv_tileaa.tiled_store %both, %vm[%b] : tensor<128xi1>, !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<i1, array<i64: ?>, array<i64: 1>, i32>>[i32]
    %h = nv_tileaa.trunci %r : tensor<128xi64> -> tensor<128xi16>
    %hf = nv_tileaa.sitofp %h : tensor<128xi16> -> tensor<128xbf16>
    nv_tileaa.return
  }
  nv_tileaa.func @tf32(%o: !nv_tileaa.ptr<f32>, %n: i32, %f: f32) {
    %mo = nv_tileaa.make_memref %o[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vo = nv_tileaa.block_tile %mo : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %x = nv_tileaa.splat %f : f32 -> tensor<128xf32>
    %t = nv_tileaa.fp_to_fp %x : tensor<128xf32> -> tensor<128xtf32>
    %y = nv_tileaa.fp_to_fp %t : tensor<128xtf32> -> tensor<128xf32>
    %z = nv_tileaa.mulf %y, %y : tensor<128xf32>
    %c0 = arith.constant 0 : i32
    %s = nv_tileaa.tiled_store %z, %vo[%c0] : tensor<128xf32>, !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
  nv_tileaa.func @shapes(%o: !nv_tileaa.ptr<f32>, %n: i32, %i: i32) {
    %mo = nv_tileaa.make_memref %o[%n, %n] [%n] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %vo = nv_tileaa.block_tile %mo : !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 8, 8>, array<i32: 8, 8>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %x = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %xf = nv_tileaa.sitofp %x : tensor<64xi32> -> tensor<64xf32>
    %x3 = nv_tileaa.reshape %xf : tensor<64xf32> -> tensor<2x4x8xf32>
    %c = nv_tileaa.cat %x3, %x3 {dim = 1 : i32} : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x8x8xf32>
    %c0 = arith.constant 0 : i32
    %e = nv_tileaa.extract_slice %c[%i, %c0, %i] : tensor<2x8x8xf32>, i32, i32, i32 -> tensor<1x8x4xf32>
    %p = "nv_tileaa.permute"(%e) <{permutation = array<i32: 2, 0, 1>}> : (tensor<1x8x4xf32>) -> tensor<4x1x8xf32>
    %r = nv_tileaa.reshape %p : tensor<4x1x8xf32> -> tensor<1x32xf32>
    %e2 = nv_tileaa.extract_slice %r[%c0, %i] : tensor<1x32xf32>, i32, i32 -> tensor<1x8xf32>
    %bb = nv_tileaa.broadcast %e2 : tensor<1x8xf32> -> tensor<8x8xf32>
    %s = nv_tileaa.tiled_store %bb, %vo[%c0, %c0] : tensor<8x8xf32>, !nv_tileaa.tiled_view<array<i32: 8, 8>, array<i32: 8, 8>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }

}
