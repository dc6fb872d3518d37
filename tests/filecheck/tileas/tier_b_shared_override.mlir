// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=OWN
// RUN: tileorch-opt %s -p 'tileas-tier,convert-nv-tileas-to-cutlass{config="b_shared=1"}' | filecheck %s --check-prefix=SHARED
// RUN: not tileorch-opt %S/tier_epilogue.mlir -p 'tileas-tier,convert-nv-tileas-to-cutlass{config="b_shared=1"}' 2>&1 | filecheck %s --check-prefix=NOTBATCHED
// The launcher's override b_shared=1 (session 42): a batched GEMM (user_programs26.bmm_b_broadcast_by_zero_batch_stride,
// A [L, M, K] and B [L, K, N] read at program id 2, converted by convert-cudatile-to-tileaa) launched with B broadcast
// over the batch by a stride of 0 (w.expand(L, K, N)), which no tensor map's batch dimension addresses: the kernel
// compiled with b_shared=1 loads B at batch index 0 (its map holds the one matrix) and A at the work tile's batch;
// the program's own kernel loads both at the work tile's batch.  A GEMM that is not batched refuses the override at
// its B load.
// OWN:        func.func @gemm_f16_f32_bn_128x128x64_{{.*}}_batched(
// OWN:        nvvm.cp.async.bulk.tensor.shared.cluster.global %adst, %tmap_a, %fb, box[%kc, %m0, %tl]
// OWN:        nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst0, %tmap_b, %fb, box[%bcol0, %kc, %tl]
// SHARED:     func.func @gemm_f16_f32_bn_128x128x64_{{.*}}_batched_bs(
// SHARED-SAME: b_shared = true
// SHARED-SAME: "B is one matrix broadcast over the batch (batch stride 0, b_shared=1 asked by the launcher): its tensor map has one matrix and every work tile loads B at batch 0"
// SHARED:     nvvm.cp.async.bulk.tensor.shared.cluster.global %adst, %tmap_a, %fb, box[%kc, %m0, %tl]
// SHARED:     [[ZERO:%[0-9]+]] = arith.constant 0 : i32
// SHARED:     nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst0, %tmap_b, %fb, box[%bcol0, %kc, [[ZERO]]]
// SHARED:     nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst1, %tmap_b, %fb, box[%bcol1, %kc, [[ZERO]]]
// NOTBATCHED: tier_epilogue.mlir:{{[0-9]+}}:{{[0-9]+}}: error: convert-nv-tileas-to-cutlass: b_shared=1 (one B matrix for every batch) needs a batched GEMM of one B read in place as the kernel loads it
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @bmm_b_broadcast_by_zero_batch_stride_Kt1_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16i_A3f32_3l0_4t1_p16_I64_I64_I32(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: i32, %6: i32, %7: !nv_tileaa.ptr<f16>, %8: i32, %9: i32, %10: i32, %11: i32, %12: i32, %13: i32, %14: !nv_tileaa.ptr<f32>, %15: i32, %16: i32, %17: i32, %18: i32, %19: i32, %20: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %21 = nv_tileaa.create_mem_token
    %22 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %23 = nv_tileaa.assume %7 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %24 = nv_tileaa.assume %14 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
    %25 = arith.constant 1 : i32
    %26 = arith.constant 1 : i32
    %27 = arith.constant 1 : i32
    %28 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %29 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %30 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %31 = nv_tileaa.assume %4 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %32 = nv_tileaa.assume %5 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %33 = nv_tileaa.make_memref %22[%28, %29, %30] [%31, %32] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %34 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %35 = nv_tileaa.assume %9 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.assume %10 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %37 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.assume %12 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %39 = nv_tileaa.make_memref %23[%34, %35, %36] [%37, %38] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %40 = nv_tileaa.assume %15 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %41 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %42 = nv_tileaa.assume %17 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %43 = nv_tileaa.assume %18 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %44 = nv_tileaa.assume %19 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %45 = nv_tileaa.make_memref %24[%40, %41, %42] [%43, %44] : !nv_tileaa.ptr<f32>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f32, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %46 = arith.constant 32 : i32
    %47 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %48 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %49 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %50 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %51 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %52 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %53 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %54 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %55 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %56 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %57 = arith.ceildivsi %30, %46 : i32
    %58 = arith.constant 0 : i32
    %59 = arith.constant 1 : i32
    %60 = nv_tileaa.block_tile %33 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 32>, array<i32: 1, 64, 32>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %61 = nv_tileaa.block_tile %39 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 32, 64>, array<i32: 1, 32, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %62 = scf.for %63 = %58 to %57 step %59 iter_args(%64 = %56) -> (tensor<64x64xf32>) : i32 {
      %65, %66 = nv_tileaa.tiled_load %60[%55, %47, %63] token %21 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 32>, array<i32: 1, 64, 32>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x32xf16>
      %67 = nv_tileaa.reshape %65 : tensor<1x64x32xf16> -> tensor<64x32xf16>
      %68, %69 = nv_tileaa.tiled_load %61[%55, %63, %51] token %21 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 1, 32, 64>, array<i32: 1, 32, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x32x64xf16>
      %70 = nv_tileaa.reshape %68 : tensor<1x32x64xf16> -> tensor<32x64xf16>
      %71 = nv_tileaa.dot %67, %70, %64 {matmul_fast_accum = false} : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %71 : tensor<64x64xf32>
    }
    %72 = nv_tileaa.expand_dims %62 {dim = 0 : i32} : tensor<64x64xf32> -> tensor<1x64x64xf32>
    %73 = nv_tileaa.block_tile %45 : !nv_tileaa.memref<f32, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f32, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %74 = nv_tileaa.tiled_store %72, %73[%55, %47, %51] token %21 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<1x64x64xf32>, !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f32, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32]
    nv_tileaa.return
  }
}

