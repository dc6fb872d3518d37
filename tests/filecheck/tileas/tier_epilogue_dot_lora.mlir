// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// LoRA in three dots, y = x W + ((0.5 x A) rounded to f16) B (tileorch.testing.epilogue_dot_programs.lora_linear:
// W [256, 192], A [256, 64], B [64, 192], tiles 128 x 128 x 64, rank 64): the main dot and the low-rank one share
// x's tile in the K loop (a stage: A's 16 KiB, W's two 64-column boxes at the work tile's column, A's one box at
// column 0: 40960 bytes), the consumers keep an m64n128 and an m64n64 accumulator; after the loop the low-rank
// accumulator (%acc_out1) is packed as the register A of four m64n128k16 WGMMAs whose accumulator is the main
// one (%acc_out: no third accumulator) and whose B is E's [64, 128] tile (N-major, E's one-stage pipeline).
// CHECK: func.func @gemm_f16_f16_bn_128x128x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_edirect_d2_dot128_lora64(
// CHECK: %ready = cutlass.pipeline.init
// CHECK-SAME: transaction_size = array<i32: 40960>
// CHECK: %eready = cutlass.pipeline.init %epipe {numStages = 1 : i32
// CHECK-SAME: transaction_size = array<i32: 16384>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst0, %tmap_b, %fb, box[%bcol0, %kc] {cutlass.tx_bytes = 8192 : i32}
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst1, %tmap_b, %fb, box[%bcol1, %kc] {cutlass.tx_bytes = 8192 : i32}
// CHECK: %lora_n0 = arith.constant 0 : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst_1, %tmap_b1, %fb, box[%bcol_1, %kc] {cutlass.tx_bytes = 8192 : i32}
// CHECK-NOT: %bdst_1
// CHECK: cutlass.pipeline.producer_acquire %eready
// CHECK: %zero_n64 = llvm.mlir.zero
// CHECK: %acc_out, %acc_out1, %{{.*}}, %{{.*}} = scf.for {{.*}} iter_args(%acc = %zero, %acc1 = %zero_n64,
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %acc, <m = 64, n = 128, k = 16>
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %acc1, <m = 64, n = 64, k = 16>
// CHECK: llvm.extractvalue %acc_out1[0]
// CHECK: %efrag0q0 = llvm.inline_asm has_side_effects "cvt.rn.f16x2.f32
// CHECK: %efrag3q3 = llvm.inline_asm
// CHECK-NOT: %efrag4q0
// CHECK: cutlass.pipeline.consumer_wait %eready
// CHECK: atom.wgmma_mma_async_reg_a %efrag0q0, %efrag0q1, %efrag0q2, %efrag0q3, %de0, %acc_out {n = 128 : i64, typeAB = #nvvm.wgmma_type<f16>, layoutB = #nvvm.mma_layout<row>}
// CHECK: %acc2 = atom.wgmma_mma_async_reg_a %efrag3q0, %efrag3q1, %efrag3q2, %efrag3q3, %de3, %e2
// CHECK: cutlass.pipeline.consumer_release %eready
// CHECK: atom.store_fragment
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @lora_linear_Kt1_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_Sf32_I64_I128_I128_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: i32, %9: i32, %10: !nv_tileaa.ptr<f16>, %11: i32, %12: i32, %13: i32, %14: i32, %15: !nv_tileaa.ptr<f16>, %16: i32, %17: i32, %18: i32, %19: i32, %20: !nv_tileaa.ptr<f16>, %21: i32, %22: i32, %23: i32, %24: i32, %25: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %26 = nv_tileaa.create_mem_token
    %27 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %28 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %29 = nv_tileaa.assume %10 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %30 = nv_tileaa.assume %15 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %31 = nv_tileaa.assume %20 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %32 = arith.constant 1 : i32
    %33 = arith.constant 1 : i32
    %34 = arith.constant 1 : i32
    %35 = arith.constant 1 : i32
    %36 = arith.constant 1 : i32
    %37 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %39 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = nv_tileaa.make_memref %27[%37, %38] [%39] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %41 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %42 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %43 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %44 = nv_tileaa.make_memref %28[%41, %42] [%43] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %45 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %46 = nv_tileaa.assume %12 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %47 = nv_tileaa.assume %13 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %48 = nv_tileaa.make_memref %29[%45, %46] [%47] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %49 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %50 = nv_tileaa.assume %17 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %51 = nv_tileaa.assume %18 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %52 = nv_tileaa.make_memref %30[%49, %50] [%51] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %53 = nv_tileaa.assume %21 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %54 = nv_tileaa.assume %22 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %55 = nv_tileaa.assume %23 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %56 = nv_tileaa.make_memref %31[%53, %54] [%55] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %57 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %58 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %59 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %60 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %61 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %62 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %63 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %64 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %65 = nv_tileaa.block_tile %40 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %66 = nv_tileaa.get_dim_size %65 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %67 = nv_tileaa.get_dim_size %65 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %68 = arith.constant 0 : i32
    %69 = arith.constant 1 : i32
    %70 = nv_tileaa.block_tile %40 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %71 = nv_tileaa.block_tile %44 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %72 = arith.constant 0 : i32
    %73 = nv_tileaa.block_tile %48 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %74, %75 = scf.for %76 = %68 to %67 step %69 iter_args(%77 = %63, %78 = %64) -> (tensor<128x128xf32>, tensor<128x64xf32>) : i32 {
      %79, %80 = nv_tileaa.tiled_load %70[%57, %76] token %26 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<128x64xf16>
      %81, %82 = nv_tileaa.tiled_load %71[%76, %61] token %26 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x128xf16>
      %83 = nv_tileaa.dot %79, %81, %77 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      %84, %85 = nv_tileaa.tiled_load %73[%76, %72] token %26 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %86 = nv_tileaa.dot %79, %84, %78 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %83, %86 : tensor<128x128xf32>, tensor<128x64xf32>
    }
    %87 = nv_tileaa.splat %25 : f32 -> tensor<1x1xf32>
    %88 = nv_tileaa.broadcast %87 : tensor<1x1xf32> -> tensor<128x64xf32>
    %89 = nv_tileaa.mulf %75, %88 : tensor<128x64xf32>
    %90 = nv_tileaa.fp_to_fp %89 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
    %91 = arith.constant 0 : i32
    %92 = nv_tileaa.block_tile %52 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %93, %94 = nv_tileaa.tiled_load %92[%91, %61] token %26 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x128xf16>
    %95 = nv_tileaa.dot %90, %93, %74 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %96 = nv_tileaa.fp_to_fp %95 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    %97 = nv_tileaa.block_tile %56 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %98 = nv_tileaa.tiled_store %96, %97[%57, %61] token %26 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<128x128xf16>, !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}
