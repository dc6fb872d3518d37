// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: sed -e 's/%99\[%97, %50\]/%99[%46, %50]/' %s | tileorch-opt -p tileas-tier,convert-nv-tileas-to-cutlass --verify-diagnostics
// A grouped GEMM over a tile-aligned offsets table (user_programs18.grouped_offsets_empty_groups,
// converted by convert-cudatile-to-tileaa): group g = program id 2 reads its weight W[g] (3-D) and its
// row tiles from Offs[g] .. Offs[g + 1] of a 2-D X and a 2-D Y; a program past its group's tiles
// returns.  The group's weight is B's batch index per work tile, C the one matrix (batch 0) that
// every work tile stores its own tile of at the rows the offsets place (C's row tile reads program id
// 2); the early return is the tile guard.  Refused until session 24 ("A, B and C must all be
// batched").  The second run: the same program with Y's row tile not depending on the group (every
// group would store the same C tile): still refused.
// CHECK: func.func @gemm_f16_f16_bn_64x64x64{{.*}}_batched_pg(
// CHECK: %batch_c = arith.constant 0 : i32
// CHECK: %batch_b = arith.select %{{[0-9]+}}, %tl, %{{[0-9]+}} : i32
// CHECK: %batch_a = arith.select %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32
// CHECK: %tile_guard = arith.andi
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @grouped_offsets_empty_groups_Kt1_A2f16_1l0_2t1_p16_A3f16_3l0_4t1_p16_A1i32_1t1_p16_A2f16_1l0_2t1_p16_I64_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: i32, %9: i32, %10: i32, %11: i32, %12: !nv_tileaa.ptr<i32>, %13: i32, %14: i32, %15: !nv_tileaa.ptr<f16>, %16: i32, %17: i32, %18: i32, %19: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %20 = nv_tileaa.create_mem_token
    %21 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %22 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %23 = nv_tileaa.assume %12 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<i32>
    %24 = nv_tileaa.assume %15 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %25 = arith.constant 1 : i32
    %26 = arith.constant 1 : i32
    %27 = arith.constant 1 : i32
    %28 = arith.constant 1 : i64
    %29 = arith.constant 1 : i64
    %30 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %31 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %32 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %33 = nv_tileaa.make_memref %21[%30, %31] [%32] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %34 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %35 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %37 = nv_tileaa.assume %9 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.assume %10 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %39 = nv_tileaa.make_memref %22[%34, %35, %36] [%37, %38] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %40 = nv_tileaa.assume %13 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %41 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %42 = nv_tileaa.assume %17 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %43 = nv_tileaa.assume %18 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %44 = nv_tileaa.make_memref %24[%41, %42] [%43] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %45 = arith.constant 64 : i32
    %46 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %47 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %48 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %49 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %50 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %51 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %52 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %53 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %54 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %55 = arith.constant 0 : i32
    %56 = arith.extsi %54 : i32 to i64
    %57 = arith.extsi %40 : i32 to i64
    %58 = arith.cmpi ult, %56, %57 : i64
    %59 = nv_tileaa.muli %56, %28 : i64
    %60 = nv_tileaa.offset %23, %59 : !nv_tileaa.ptr<i32>, i64 -> !nv_tileaa.ptr<i32>
    %61 = nv_tileaa.assume %60 {predicate = #nv_tileaa.div_by<4>} : !nv_tileaa.ptr<i32>
    %62, %63 = nv_tileaa.load %61 mask %58 : i1 other %55 : i32 token %20 : !nv_tileaa.ptr<i32> -> i32
    %64 = arith.floordivsi %62, %45 : i32
    %65 = arith.constant 1 : i32
    %66 = nv_tileaa.addi %54, %65 : i32
    %67 = arith.constant 0 : i32
    %68 = arith.extsi %66 : i32 to i64
    %69 = arith.extsi %40 : i32 to i64
    %70 = arith.cmpi ult, %68, %69 : i64
    %71 = nv_tileaa.muli %68, %29 : i64
    %72 = nv_tileaa.offset %23, %71 : !nv_tileaa.ptr<i32>, i64 -> !nv_tileaa.ptr<i32>
    %73 = nv_tileaa.assume %72 {predicate = #nv_tileaa.div_by<4>} : !nv_tileaa.ptr<i32>
    %74, %75 = nv_tileaa.load %73 mask %70 : i1 other %67 : i32 token %20 : !nv_tileaa.ptr<i32> -> i32
    %76 = arith.floordivsi %74, %45 : i32
    %77 = nv_tileaa.subi %76, %64 : i32
    %78 = arith.cmpi sge, %46, %77 : i32
    scf.if %78 {
    } else {
      %79 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
      %80 = nv_tileaa.block_tile %33 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
      %81 = nv_tileaa.get_dim_size %80 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
      %82 = nv_tileaa.get_dim_size %80 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
      %83 = arith.constant 0 : i32
      %84 = arith.constant 1 : i32
      %85 = nv_tileaa.block_tile %39 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
      %86 = nv_tileaa.addi %64, %46 : i32
      %87 = nv_tileaa.block_tile %33 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
      %88 = scf.for %89 = %83 to %82 step %84 iter_args(%90 = %79) -> (tensor<64x64xf32>) : i32 {
        %91, %92 = nv_tileaa.tiled_load %85[%54, %89, %50] token %20 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
        %93 = nv_tileaa.reshape %91 : tensor<1x64x64xf16> -> tensor<64x64xf16>
        %94, %95 = nv_tileaa.tiled_load %87[%86, %89] token %20 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
        %96 = nv_tileaa.dot %94, %93, %90 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
        scf.yield %96 : tensor<64x64xf32>
      }
      %97 = nv_tileaa.addi %64, %46 : i32
      %98 = nv_tileaa.fp_to_fp %88 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %99 = nv_tileaa.block_tile %44 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
      // expected-error@+1 {{A, B and C must all be batched}}
      %100 = nv_tileaa.tiled_store %98, %99[%97, %50] token %20 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<64x64xf16>, !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    }
    nv_tileaa.return
  }
}

