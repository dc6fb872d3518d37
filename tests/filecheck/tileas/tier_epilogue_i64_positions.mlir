// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// A GEMM whose epilogue masks the product by element positions built as int64 tiles
// (``bm * tm + ct.arange(tm, dtype=ct.int64)``: ``where(cols <= rows, acc, 0)``, converted by
// convert-cudatile-to-tileaa).  The epilogue evaluates a make_range at the accumulator element's
// own position (an i32 coordinate): it is sign-extended to the range's i64 before the program's
// i64 row / column offset is added.  Until session 24 the i32 position was added to the i64 offset
// as it was ("operand 'rhs' ... attribute i64 expected ... but got i32", at every GEMM and chained
// kernel with int64 positions in its epilogue or score mask).
// CHECK: func.func @gemm_f16_f16_bn_
// CHECK: %[[COL0:[0-9]+]] = arith.muli %tn_1, %{{[0-9]+}} : i32
// CHECK-NEXT: %[[COL0W:[0-9]+]] = arith.extsi %[[COL0]] : i32 to i64
// CHECK-NEXT: %[[LANE:[0-9]+]] = arith.extsi %{{[0-9]+}} : i32 to i64
// CHECK-NEXT: %[[COL:[0-9]+]] = arith.addi %[[COL0W]], %[[LANE]] : i64
// CHECK: %[[ROW0:[0-9]+]] = arith.muli %tm_1, %{{[0-9]+}} : i32
// CHECK-NEXT: %[[ROW0W:[0-9]+]] = arith.extsi %[[ROW0]] : i32 to i64
// CHECK-NEXT: %[[RLANE:[0-9]+]] = arith.extsi %{{[0-9]+}} : i32 to i64
// CHECK-NEXT: %[[ROW:[0-9]+]] = arith.addi %[[ROW0W]], %[[RLANE]] : i64
// CHECK-NEXT: arith.cmpi sle, %[[COL]], %[[ROW]] : i64
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm_mask64_Kt1_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_I128_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: i32, %9: i32, %10: !nv_tileaa.ptr<f16>, %11: i32, %12: i32, %13: i32, %14: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %15 = nv_tileaa.create_mem_token
    %16 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %17 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %18 = nv_tileaa.assume %10 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %19 = arith.constant 1 : i32
    %20 = arith.constant 1 : i32
    %21 = arith.constant 1 : i32
    %22 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %23 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %24 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %25 = nv_tileaa.make_memref %16[%22, %23] [%24] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %26 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %27 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %28 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %29 = nv_tileaa.make_memref %17[%26, %27] [%28] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %30 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %31 = nv_tileaa.assume %12 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %32 = nv_tileaa.assume %13 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %33 = nv_tileaa.make_memref %18[%30, %31] [%32] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %34 = arith.constant 128 : i32
    %35 = arith.constant 64 : i32
    %36 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %37 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %38 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %39 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %40 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %41 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %42 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %43 = nv_tileaa.block_tile %25 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %44 = nv_tileaa.get_dim_size %43 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %45 = nv_tileaa.get_dim_size %43 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %46 = arith.constant 0 : i32
    %47 = arith.constant 1 : i32
    %48 = nv_tileaa.block_tile %25 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %49 = nv_tileaa.block_tile %29 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %50 = scf.for %51 = %46 to %45 step %47 iter_args(%52 = %42) -> (tensor<128x64xf32>) : i32 {
      %53, %54 = nv_tileaa.tiled_load %48[%36, %51] token %15 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<128x64xf16>
      %55, %56 = nv_tileaa.tiled_load %49[%51, %40] token %15 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %57 = nv_tileaa.dot %53, %55, %52 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %57 : tensor<128x64xf32>
    }
    %58 = nv_tileaa.muli %36, %34 : i32
    %59 = nv_tileaa.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi64>
    %60 = arith.extsi %58 : i32 to i64
    %61 = nv_tileaa.splat %60 : i64 -> tensor<1xi64>
    %62 = nv_tileaa.broadcast %61 : tensor<1xi64> -> tensor<128xi64>
    %63 = nv_tileaa.addi %62, %59 : tensor<128xi64>
    %64 = nv_tileaa.expand_dims %63 {dim = 1 : i32} : tensor<128xi64> -> tensor<128x1xi64>
    %65 = nv_tileaa.muli %40, %35 : i32
    %66 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi64>
    %67 = arith.extsi %65 : i32 to i64
    %68 = nv_tileaa.splat %67 : i64 -> tensor<1xi64>
    %69 = nv_tileaa.broadcast %68 : tensor<1xi64> -> tensor<64xi64>
    %70 = nv_tileaa.addi %69, %66 : tensor<64xi64>
    %71 = nv_tileaa.expand_dims %70 {dim = 0 : i32} : tensor<64xi64> -> tensor<1x64xi64>
    %72 = nv_tileaa.broadcast %71 : tensor<1x64xi64> -> tensor<128x64xi64>
    %73 = nv_tileaa.broadcast %64 : tensor<128x1xi64> -> tensor<128x64xi64>
    %74 = nv_tileaa.cmpi "sle", %72, %73 : tensor<128x64xi64> -> tensor<128x64xi1>
    %75 = arith.constant 0.000000e+00 : f32
    %76 = nv_tileaa.splat %75 : f32 -> tensor<1x1xf32>
    %77 = nv_tileaa.broadcast %76 : tensor<1x1xf32> -> tensor<128x64xf32>
    %78 = nv_tileaa.select %74, %50, %77 : tensor<128x64xi1>, tensor<128x64xf32>
    %79 = nv_tileaa.fp_to_fp %78 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
    %80 = nv_tileaa.block_tile %33 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %81 = nv_tileaa.tiled_store %79, %80[%36, %40] token %15 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<128x64xf16>, !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}

