// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=OWN
// RUN: tileorch-opt %s -p 'tileas-tier,convert-nv-tileas-to-cutlass{config="kvec_global=1"}' | filecheck %s --check-prefix=GLOBAL
// RUN: not tileorch-opt %s -p 'tileas-tier,convert-nv-tileas-to-cutlass{config="kvec_globl=1"}' 2>&1 | filecheck %s --check-prefix=TYPO
// The launcher's kvec_global=1 (session 42): (a * gamma[k]) @ b (computed_b_programs.a_times_gamma, 128 x 160 x 128,
// converted by convert-cudatile-to-tileaa).  The program's own kernel TMA-loads gamma per stage (kvecs, the "_kv128"
// kernel, register A); asked by the launcher for a launch whose gamma array TMA cannot read in place (a misaligned
// base), the kernel keeps the consumers' global loads of gamma (no kvecs, A staged: tileas/register_a_operand's
// rule for a vector loaded from global memory) and its remark says who asked.  A word the option does not know is an
// error naming the words it takes.
// OWN:          func.func @gemm_f16_f32_bn_64x64x64_{{.*}}_areg_kv128(
// OWN-SAME:     kvecs = "128:5:f16:1"
// OWN:          %kvec_off0
// GLOBAL:      func.func @gemm_f16_f32_bn_64x64x64_{{[a-z0-9_]*}}_arawf16(
// GLOBAL-SAME: kvecs = ""
// GLOBAL-SAME: not by TMA: the launcher asked for it (kvec_global=1: the launch's array of this vector is one the producer's TMA cannot read in place)
// GLOBAL-NOT:  %kvec_off
// TYPO:        config override 'kvec_globl' is not one of {{.*}}b_shared, kvec_global
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @a_times_gamma_Kt1_A2f16_1l0_2t1_p16_A1f16_1t1_p16_A2f16_1l0_2t1_p16_A2f32_1l0_2t1_p16_I64_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: !nv_tileaa.ptr<f16>, %9: i32, %10: i32, %11: i32, %12: i32, %13: !nv_tileaa.ptr<f32>, %14: i32, %15: i32, %16: i32, %17: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %18 = nv_tileaa.create_mem_token
    %19 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %20 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %21 = nv_tileaa.assume %8 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %22 = nv_tileaa.assume %13 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
    %23 = arith.constant 1 : i32
    %24 = arith.constant 1 : i32
    %25 = arith.constant 1 : i32
    %26 = arith.constant 1 : i32
    %27 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %28 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %29 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %30 = nv_tileaa.make_memref %19[%27, %28] [%29] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %31 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %32 = nv_tileaa.make_memref %20[%31] [] : !nv_tileaa.ptr<f16>[i32] [] -> !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>
    %33 = nv_tileaa.assume %9 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %34 = nv_tileaa.assume %10 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %35 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.make_memref %21[%33, %34] [%35] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %37 = nv_tileaa.assume %14 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.assume %15 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %39 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = nv_tileaa.make_memref %22[%37, %38] [%39] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %41 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %42 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %43 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %44 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %45 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %46 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %47 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %48 = nv_tileaa.block_tile %30 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %49 = nv_tileaa.get_dim_size %48 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %50 = nv_tileaa.get_dim_size %48 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %51 = arith.constant 0 : i32
    %52 = arith.constant 1 : i32
    %53 = nv_tileaa.block_tile %32 : !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>>
    %54 = nv_tileaa.block_tile %30 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %55 = nv_tileaa.block_tile %36 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %56 = scf.for %57 = %51 to %50 step %52 iter_args(%58 = %47) -> (tensor<64x64xf32>) : i32 {
      %59, %60 = nv_tileaa.tiled_load %53[%57] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<64xf16>
      %61, %62 = nv_tileaa.tiled_load %54[%41, %57] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %63 = nv_tileaa.expand_dims %59 {dim = 0 : i32} : tensor<64xf16> -> tensor<1x64xf16>
      %64 = nv_tileaa.broadcast %63 : tensor<1x64xf16> -> tensor<64x64xf16>
      %65 = nv_tileaa.mulf %61, %64 : tensor<64x64xf16>
      %66, %67 = nv_tileaa.tiled_load %55[%57, %45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %68 = nv_tileaa.dot %65, %66, %58 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %68 : tensor<64x64xf32>
    }
    %69 = nv_tileaa.block_tile %40 : !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %70 = nv_tileaa.tiled_store %56, %69[%41, %45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<64x64xf32>, !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}

