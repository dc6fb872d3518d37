// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// A GEMM whose epilogue gathers the column bias at int64 column indices (``ct.gather(Bias, bn * tn +
// ct.arange(tn, dtype=ct.int64))``, N = 100 of 64-wide tiles: the gather's bounds mask) and scales by a
// per-row-tile scalar (``ct.gather(RowScale, bm)``), user_programs18.gemm_bias_gathered_i64_row_scale
// converted by convert-cudatile-to-tileaa.  The epilogue evaluates the tile of pointers at each
// accumulator element and loads through it under the gather's mask (the padding value 0 where the
// column is past the array).  Refused until session 24 ("the epilogue gathers a tile (ct.gather with a
// tile of indices: one address per element)").
// CHECK: func.func @gemm_f16_f32_bn_
// CHECK: %[[COL:[0-9]+]] = arith.addi %{{[0-9]+}}, %{{[0-9]+}} : i64
// CHECK: %[[PTR:[0-9]+]] = llvm.getelementptr %{{[0-9]+}}[%{{[0-9]+}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[ZERO:[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[IN:[0-9]+]] = arith.cmpi ult, %[[COL]], %{{[0-9]+}} : i64
// CHECK-NEXT: %[[BIAS:[0-9]+]] = scf.if %[[IN]] -> (f32) {
// CHECK-NEXT: %[[LOADED:[0-9]+]] = llvm.load %[[PTR]] : !llvm.ptr<1> -> f32
// CHECK-NEXT: scf.yield %[[LOADED]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[ZERO]] : f32
// CHECK: arith.addf %{{[0-9]+}}, %[[BIAS]] : f32
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm_bias_gathered_i64_row_scale_Kt1_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A1f32_1t1_p16_A1f32_1t1_p16_A2f32_1l0_2t1_p16_I128_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: i32, %9: i32, %10: !nv_tileaa.ptr<f32>, %11: i32, %12: i32, %13: !nv_tileaa.ptr<f32>, %14: i32, %15: i32, %16: !nv_tileaa.ptr<f32>, %17: i32, %18: i32, %19: i32, %20: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %21 = nv_tileaa.create_mem_token
    %22 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %23 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %24 = nv_tileaa.assume %10 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
    %25 = nv_tileaa.assume %13 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
    %26 = nv_tileaa.assume %16 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
    %27 = arith.constant 1 : i32
    %28 = arith.constant 1 : i32
    %29 = arith.constant 1 : i32
    %30 = arith.constant dense<1> : tensor<64xi64>
    %31 = arith.constant 1 : i64
    %32 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %33 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %34 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %35 = nv_tileaa.make_memref %22[%32, %33] [%34] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %36 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %37 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %39 = nv_tileaa.make_memref %23[%36, %37] [%38] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %40 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %41 = nv_tileaa.assume %14 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %42 = nv_tileaa.assume %17 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %43 = nv_tileaa.assume %18 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %44 = nv_tileaa.assume %19 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %45 = nv_tileaa.make_memref %26[%42, %43] [%44] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %46 = arith.constant 64 : i32
    %47 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %48 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %49 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %50 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %51 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %52 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %53 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %54 = nv_tileaa.block_tile %35 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %55 = nv_tileaa.get_dim_size %54 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %56 = nv_tileaa.get_dim_size %54 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %57 = arith.constant 0 : i32
    %58 = arith.constant 1 : i32
    %59 = nv_tileaa.block_tile %35 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %60 = nv_tileaa.block_tile %39 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %61 = scf.for %62 = %57 to %56 step %58 iter_args(%63 = %53) -> (tensor<128x64xf32>) : i32 {
      %64, %65 = nv_tileaa.tiled_load %59[%47, %62] token %21 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<128x64xf16>
      %66, %67 = nv_tileaa.tiled_load %60[%62, %51] token %21 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %68 = nv_tileaa.dot %64, %66, %63 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %68 : tensor<128x64xf32>
    }
    %69 = nv_tileaa.muli %51, %46 : i32
    %70 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi64>
    %71 = arith.extsi %69 : i32 to i64
    %72 = nv_tileaa.splat %71 : i64 -> tensor<1xi64>
    %73 = nv_tileaa.broadcast %72 : tensor<1xi64> -> tensor<64xi64>
    %74 = nv_tileaa.addi %73, %70 : tensor<64xi64>
    %75 = arith.extsi %40 : i32 to i64
    %76 = nv_tileaa.splat %75 : i64 -> tensor<1xi64>
    %77 = nv_tileaa.broadcast %76 : tensor<1xi64> -> tensor<64xi64>
    %78 = nv_tileaa.cmpi "ult", %74, %77 : tensor<64xi64> -> tensor<64xi1>
    %79 = nv_tileaa.muli %74, %30 : tensor<64xi64>
    %80 = nv_tileaa.splat %24 : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %81 = nv_tileaa.broadcast %80 : tensor<1x!nv_tileaa.ptr<f32>> -> tensor<64x!nv_tileaa.ptr<f32>>
    %82 = nv_tileaa.offset %81, %79 : tensor<64x!nv_tileaa.ptr<f32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<f32>>
    %83 = arith.constant 0.000000e+00 : f32
    %84 = nv_tileaa.splat %83 : f32 -> tensor<1xf32>
    %85 = nv_tileaa.broadcast %84 : tensor<1xf32> -> tensor<64xf32>
    %86, %87 = nv_tileaa.load %82 mask %78 : tensor<64xi1> other %85 : tensor<64xf32> token %21 : tensor<64x!nv_tileaa.ptr<f32>> -> tensor<64xf32>
    %88 = nv_tileaa.expand_dims %86 {dim = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
    %89 = nv_tileaa.broadcast %88 : tensor<1x64xf32> -> tensor<128x64xf32>
    %90 = nv_tileaa.addf %61, %89 : tensor<128x64xf32>
    %91 = arith.extsi %47 : i32 to i64
    %92 = arith.extsi %41 : i32 to i64
    %93 = arith.cmpi ult, %91, %92 : i64
    %94 = nv_tileaa.muli %91, %31 : i64
    %95 = nv_tileaa.offset %25, %94 : !nv_tileaa.ptr<f32>, i64 -> !nv_tileaa.ptr<f32>
    %96 = nv_tileaa.assume %95 {predicate = #nv_tileaa.div_by<4>} : !nv_tileaa.ptr<f32>
    %97 = arith.constant 0.000000e+00 : f32
    %98, %99 = nv_tileaa.load %96 mask %93 : i1 other %97 : f32 token %21 : !nv_tileaa.ptr<f32> -> f32
    %100 = nv_tileaa.splat %98 : f32 -> tensor<1x1xf32>
    %101 = nv_tileaa.broadcast %100 : tensor<1x1xf32> -> tensor<128x64xf32>
    %102 = nv_tileaa.mulf %90, %101 : tensor<128x64xf32>
    %103 = nv_tileaa.block_tile %45 : !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %104 = nv_tileaa.tiled_store %102, %103[%47, %51] token %21 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<128x64xf32>, !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}

