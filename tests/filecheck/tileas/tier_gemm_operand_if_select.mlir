// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// User sweep 31's gemm_later_k_tiles_halved_by_branch (``if k >= 1: a = a * 0.5`` in the K loop), as cuTile
// exports it: two K loops, [0, min(n, 1)) and [max(0, 1), n), the second computing A * 0.5 and continuing the
// first's accumulator.  tileas-fold-dot-accumulate leaves the pair (session 39), tileas-fuse-split-loops fuses it
// into one loop whose A is an scf.if on k >= max(0, 1), and the GEMM tier's consumers evaluate both branches of
// that if per element of the staged A, the K step's index selecting (operand_prologue's ``_if_select``; the
// epilogue's rule for an if whose branches only compute).  Before session 39: refused at the loop ("2 loops with
// dots one after another", then "computed from its tile by 'scf.if'").
// CHECK:      %[[HALF:.*]] = arith.mulf %[[RAW:.*]], %{{.*}} : f16
// CHECK:      %[[LATER:.*]] = arith.cmpi sge, %kt{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.select %[[LATER]], %[[HALF]], %[[RAW]] : f16
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm_later_k_tiles_halved_by_branch_Kt1_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f32_1l0_2t1_p16_I64_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: i32, %9: i32, %10: !nv_tileaa.ptr<f32>, %11: i32, %12: i32, %13: i32, %14: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %15 = nv_tileaa.create_mem_token
    %16 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %17 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %18 = nv_tileaa.assume %10 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
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
    %33 = nv_tileaa.make_memref %18[%30, %31] [%32] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %34 = arith.constant 64 : i32
    %35 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %36 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %37 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %38 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %39 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %40 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %41 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %42 = arith.ceildivsi %23, %34 : i32
    %43 = arith.constant 0 : i32
    %44 = arith.constant 1 : i32
    %45 = nv_tileaa.block_tile %25 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %46 = nv_tileaa.block_tile %29 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %47 = arith.constant 1 : i32
    %48 = arith.minsi %42, %47 : i32
    %49 = arith.maxsi %43, %47 : i32
    %50 = scf.for %51 = %43 to %48 step %44 iter_args(%52 = %41) -> (tensor<64x64xf32>) : i32 {
      %53, %54 = nv_tileaa.tiled_load %45[%35, %51] token %15 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %55, %56 = nv_tileaa.tiled_load %46[%51, %39] token %15 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %57 = nv_tileaa.dot %53, %55, %52 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %57 : tensor<64x64xf32>
    }
    %58 = scf.for %59 = %49 to %42 step %44 iter_args(%60 = %50) -> (tensor<64x64xf32>) : i32 {
      %61, %62 = nv_tileaa.tiled_load %45[%35, %59] token %15 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %63, %64 = nv_tileaa.tiled_load %46[%59, %39] token %15 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %65 = arith.constant 5.000000e-01 : f16
      %66 = nv_tileaa.splat %65 : f16 -> tensor<1x1xf16>
      %67 = nv_tileaa.broadcast %66 : tensor<1x1xf16> -> tensor<64x64xf16>
      %68 = nv_tileaa.mulf %61, %67 : tensor<64x64xf16>
      %69 = nv_tileaa.dot %68, %63, %60 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %69 : tensor<64x64xf32>
    }
    %70 = nv_tileaa.block_tile %33 : !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %71 = nv_tileaa.tiled_store %58, %70[%35, %39] token %15 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<64x64xf32>, !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}

