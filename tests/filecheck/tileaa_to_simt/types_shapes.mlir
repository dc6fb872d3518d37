// RUN: env TILEORCH_SIMT_PREDICATED_TAILS=0 tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt --verify-diagnostics | filecheck %s

// Element types and tile shape ops of the SIMT lowering (issue 21).  types_shapes_ptx.mlir takes
// the same kernels to PTX and through ptxas.

// fp8 tiles are held as f32: a load widens the byte exactly (e4m3x2 -> f16x2, lane 0 is the
// low byte), fp_to_fp to fp8 rounds (f32 -> e5m2x2, the value in the low byte: the second
// operand) and widens back, and the store writes the rounded bits without converting again.
// CHECK-LABEL: func.func @fp8
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> i8
// CHECK: %[[B16:.*]] = arith.extui %[[B]] : i8 to i16
// CHECK: %[[H2:.*]] = llvm.call_intrinsic "llvm.nvvm.e4m3x2.to.f16x2.rn"(%[[B16]]) : (i16) -> vector<2xf16>
// CHECK: %[[L0:.*]] = arith.constant 0 : i32
// CHECK: %[[H:.*]] = llvm.extractelement %[[H2]][%[[L0]] : i32] : vector<2xf16>
// CHECK: %[[F:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: scf.yield %[[F]] : f32
// CHECK: %[[SQ:.*]] = arith.mulf
// CHECK: %[[P:.*]] = llvm.call_intrinsic "llvm.nvvm.ff.to.e5m2x2.rn"(%[[Z]], %[[SQ]]) : (f32, f32) -> i16
// CHECK: %[[BITS:.*]] = arith.trunci %[[P]] : i16 to i8
// CHECK: llvm.call_intrinsic "llvm.nvvm.e5m2x2.to.f16x2.rn"
// CHECK-NOT: llvm.call_intrinsic
// CHECK: llvm.store %[[BITS]], %{{.*}} : i8, !llvm.ptr<1>
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
}

// -----

// i8/i1 loads, i64 math, tile compares (nv_tileaa.cmpi: a tile of i1), selects on a tile
// condition, i64/i1 stores (i1 as a byte), an i16 -> bf16 conversion (through f32, rounded).
// CHECK-LABEL: func.func @ints
// (each load: the whole-tile path, then the per-element one)
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> i8
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> i8
// CHECK: %[[M:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> i8
// CHECK-NEXT: %[[K:.*]] = arith.trunci %[[M]] : i8 to i1
// CHECK: %[[W:.*]] = arith.extsi %{{.*}} : i8 to i64
// CHECK: %[[N:.*]] = arith.subi %{{.*}}, %[[W]] : i64
// CHECK: %[[GT:.*]] = arith.cmpi sgt, %[[W]], %{{.*}} : i64
// CHECK: %[[C:.*]] = arith.andi %[[GT]], %{{.*}} : i1
// CHECK: %[[R:.*]] = arith.select %[[C]], %[[W]], %[[N]] : i64
// CHECK: llvm.store %[[R]], %{{.*}} : i64, !llvm.ptr<1>
// CHECK: %[[CB:.*]] = arith.extui %[[C]] : i1 to i8
// CHECK: llvm.store %[[CB]], %{{.*}} : i8, !llvm.ptr<1>
// CHECK: %[[T:.*]] = arith.trunci %[[R]] : i64 to i16
// CHECK: %[[TF:.*]] = arith.sitofp %[[T]] : i16 to f32
// CHECK: llvm.inline_asm "cvt.rn.bf16.f32 $0, $1;", "=h,f" %[[TF]] : (f32) -> i16
builtin.module {
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
}

// -----

// tf32 is held as f32 rounded to its 10-bit mantissa (cvt.rn.tf32.f32, low 13 bits cleared).
// CHECK-LABEL: func.func @tf32
// CHECK: %[[T:.*]] = llvm.call_intrinsic "llvm.nvvm.f2tf32.rn"(%{{.*}}) : (f32) -> i32
// CHECK: %[[MASK:.*]] = arith.constant -8192 : i32
// CHECK: %[[R:.*]] = arith.andi %[[T]], %[[MASK]] : i32
// CHECK: %[[F:.*]] = arith.bitcast %[[R]] : i32 to f32
// CHECK: arith.mulf %[[F]], %[[F]] : f32
builtin.module {
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
}

// -----

// Shape ops of rank 3 (reshape is free: the row-major order does not change).  cat stages both
// operands and reads one of them per element (a select of the two scratch positions, one load);
// extract_slice adds (index mod count) * extent to each coordinate; permute and broadcast read
// through the scratch.
// CHECK-LABEL: func.func @shapes
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK: %[[F:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK: nvvm.barrier
// CHECK: llvm.store %[[F]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.store %[[F]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK: %[[INA:.*]] = arith.cmpi ult, %{{.*}}, %[[FOUR]] : i32
// CHECK: %[[POS:.*]] = arith.select %[[INA]], %{{.*}}, %{{.*}} : i32
// CHECK: %[[CAT:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: arith.remui %{{.*}}, %[[TWO]] : i32
// CHECK: nvvm.barrier
// CHECK: llvm.store %[[CAT]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK: %[[SL:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.barrier
// CHECK: llvm.store %[[SL]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK: %[[PERM:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.barrier
// CHECK: llvm.store %[[PERM]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK: %[[E2:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.barrier
// CHECK: llvm.store %[[E2]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK: %[[BC:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.store %[[BC]], %{{.*}} : f32, !llvm.ptr<1>
builtin.module {
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

// -----

builtin.module {
  nv_tileaa.func @fnuz() {
    // CHECK: error: element type f8E5M2FNUZ is not supported yet by convert-nv-tileaa-to-simt (in 'arith.constant'
    // expected-error @+1 {{element type f8E5M2FNUZ is not supported yet by convert-nv-tileaa-to-simt (in 'arith.constant'}}
    %c = arith.constant dense<1.0> : tensor<64xf8E5M2FNUZ>
    nv_tileaa.return
  }
}

// -----

builtin.module {
  nv_tileaa.func @i4(%x: !nv_tileaa.ptr<i4>, %n: i32) {
    // CHECK: error: element type i4 is not supported yet by convert-nv-tileaa-to-simt (in 'nv_tileaa.make_memref'
    // expected-error @+1 {{element type i4 is not supported yet by convert-nv-tileaa-to-simt (in 'nv_tileaa.make_memref'}}
    %m = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<i4>[i32] [] -> !nv_tileaa.memref<i4, array<i64: ?>, array<i64: 1>, i32>
    nv_tileaa.return
  }
}

// -----

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<80, 0>} {
  nv_tileaa.func @fp8_on_sm80(%f: f32) {
    %x = nv_tileaa.splat %f : f32 -> tensor<64xf32>
    // CHECK: error: element type f8E4M3FN needs sm_89 or newer (PTX e4m3x2/e5m2x2 conversions), the target is sm_80 (in 'nv_tileaa.fp_to_fp')
    // expected-error @+1 {{element type f8E4M3FN needs sm_89 or newer (PTX e4m3x2/e5m2x2 conversions), the target is sm_80 (in 'nv_tileaa.fp_to_fp')}}
    %q = nv_tileaa.fp_to_fp %x : tensor<64xf32> -> tensor<64xf8E4M3FN>
    nv_tileaa.return
  }
}

// -----

builtin.module {
  // CHECK: error: convert-nv-tileaa-to-simt: kernel parameter of type bf16 is not supported yet
  // expected-error @+1 {{convert-nv-tileaa-to-simt: kernel parameter of type bf16 is not supported yet}}
  nv_tileaa.func @bf16_param(%f: bf16) {
    nv_tileaa.return
  }
}
