// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass --verify-diagnostics
// RUN: sed -e 's/^      %63 = nv_tileaa.tiled_store.*$//' %s | tileorch-opt -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// Sorted-token MoE whose padding row tiles (expert -1 read from a table) store zeros and return
// (user_programs16.moe_expert_table_skip_invalid, converted by convert-cudatile-to-tileaa): the
// early return becomes the GEMM's tile guard and the branch's zero store lies outside the schedule's
// agent switch, which is all the WGMMA kernel runs: the store would be dropped (the padding tiles'
// rows left unwritten), so it is a located refusal.  Without that store the same program is the
// batched GEMM with the expert as B's batch index per work tile and the guard e >= 0.
// CHECK: func.func @gemm_f16_f16_bn_64x64x64{{.*}}_batched_pg(
// CHECK: %tile_guard
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @moe_expert_table_skip_invalid_Kt1_A2f16_1l0_2t1_p16_A3f16_3l0_4t1_p16_A1i32_1t1_p16_A2f16_1l0_2t1_p16_I64_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: i32, %9: i32, %10: i32, %11: i32, %12: !nv_tileaa.ptr<i32>, %13: i32, %14: i32, %15: !nv_tileaa.ptr<f16>, %16: i32, %17: i32, %18: i32, %19: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %20 = nv_tileaa.create_mem_token
    %21 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %22 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %23 = nv_tileaa.assume %12 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<i32>
    %24 = nv_tileaa.assume %15 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %25 = arith.constant 1 : i32
    %26 = arith.constant 1 : i32
    %27 = arith.constant 1 : i32
    %28 = arith.constant 1 : i64
    %29 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %30 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %31 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %32 = nv_tileaa.make_memref %21[%29, %30] [%31] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %33 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %34 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %35 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.assume %9 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %37 = nv_tileaa.assume %10 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.make_memref %22[%33, %34, %35] [%36, %37] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %39 = nv_tileaa.assume %13 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %41 = nv_tileaa.assume %17 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %42 = nv_tileaa.assume %18 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %43 = nv_tileaa.make_memref %24[%40, %41] [%42] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %44 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %45 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %46 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %47 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %48 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %49 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %50 = arith.constant 0 : i32
    %51 = arith.extsi %44 : i32 to i64
    %52 = arith.extsi %39 : i32 to i64
    %53 = arith.cmpi ult, %51, %52 : i64
    %54 = nv_tileaa.muli %51, %28 : i64
    %55 = nv_tileaa.offset %23, %54 : !nv_tileaa.ptr<i32>, i64 -> !nv_tileaa.ptr<i32>
    %56 = nv_tileaa.assume %55 {predicate = #nv_tileaa.div_by<4>} : !nv_tileaa.ptr<i32>
    %57, %58 = nv_tileaa.load %56 mask %53 : i1 other %50 : i32 token %20 : !nv_tileaa.ptr<i32> -> i32
    %59 = arith.constant 0 : i32
    %60 = arith.cmpi slt, %57, %59 : i32
    scf.if %60 {
      %61 = arith.constant dense<0.000000e+00> : tensor<64x64xf16>
      %62 = nv_tileaa.block_tile %43 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
      // expected-error@+1 {{tiled_store outside the GEMM's work tile}}
      %63 = nv_tileaa.tiled_store %61, %62[%44, %48] token %20 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<64x64xf16>, !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    } else {
      %64 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
      %65 = nv_tileaa.block_tile %32 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
      %66 = nv_tileaa.get_dim_size %65 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
      %67 = nv_tileaa.get_dim_size %65 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
      %68 = arith.constant 0 : i32
      %69 = arith.constant 1 : i32
      %70 = nv_tileaa.block_tile %38 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
      %71 = nv_tileaa.block_tile %32 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
      %72 = scf.for %73 = %68 to %67 step %69 iter_args(%74 = %64) -> (tensor<64x64xf32>) : i32 {
        %75, %76 = nv_tileaa.tiled_load %70[%57, %73, %48] token %20 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
        %77 = nv_tileaa.reshape %75 : tensor<1x64x64xf16> -> tensor<64x64xf16>
        %78, %79 = nv_tileaa.tiled_load %71[%44, %73] token %20 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
        %80 = nv_tileaa.dot %78, %77, %74 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
        scf.yield %80 : tensor<64x64xf32>
      }
      %81 = nv_tileaa.fp_to_fp %72 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %82 = nv_tileaa.block_tile %43 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
      %83 = nv_tileaa.tiled_store %81, %82[%44, %48] token %20 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<64x64xf16>, !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    }
    nv_tileaa.return
  }
}
