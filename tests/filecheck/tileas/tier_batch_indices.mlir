// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// A [B, H, M, K] x [B, H, K, N] GEMM with (b, h) = (bh // 2, bh % 2) from program id 2 and 4-D
// (1, 1, tm, tk) tiles (user_programs5.mm_4d_heads, converted by convert-cudatile-to-tileaa): the
// batched WGMMA kernel walks the launch grid and each agent computes its operands' flat batch index
// b * H + h per work tile (A's and B's loads read batch -1, the TMA's zero fill, where h leaves its
// dimension; C's validity joins the tile guard that empties the K range and skips the store).
// CHECK:      %batch_c = arith.addi
// CHECK:      %tile_guard = arith.andi
// CHECK:      %batch_b = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK:      %batch_a = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK:      %kend_guarded = arith.select %tile_guard, %kend, %kbeg : i32
// CHECK:      nvvm.cp.async.bulk.tensor.shared.cluster.global %adst, %tmap_a, %fb, box[%kc, %m0, %batch_a]
// CHECK:      nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst0, %tmap_b, %fb, box[%bcol0, %kc, %batch_b]
// (the consumer: b = bh // 2 (a remsi inside), b < B, h = bh % 2, h < H, then b * H + h)
// CHECK:      arith.remsi %tl_1
// CHECK:      arith.cmpi ult
// CHECK:      arith.remsi %tl_1
// CHECK:      arith.cmpi ult
// CHECK-NEXT: arith.muli
// CHECK-NEXT: %batch_c_1 = arith.addi
// CHECK:      scf.if %tile_guard_1 {
// CHECK:      nvvm.cp.async.bulk.tensor.global.shared.cta %tmap_c, %eslot0, box[%ecol0, %row0, %batch_c_1]
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @mm_4d_heads_Kt1_A4f16_7l0_8t1_p16_A4f16_7l0_8t1_p16_A4f16_7l0_8t1_p16_I2_I128_I128_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: i32, %6: i32, %7: i32, %8: i32, %9: !nv_tileaa.ptr<f16>, %10: i32, %11: i32, %12: i32, %13: i32, %14: i32, %15: i32, %16: i32, %17: i32, %18: !nv_tileaa.ptr<f16>, %19: i32, %20: i32, %21: i32, %22: i32, %23: i32, %24: i32, %25: i32, %26: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %27 = nv_tileaa.create_mem_token
    %28 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %29 = nv_tileaa.assume %9 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %30 = nv_tileaa.assume %18 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %31 = arith.constant 1 : i32
    %32 = arith.constant 1 : i32
    %33 = arith.constant 1 : i32
    %34 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %35 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %37 = nv_tileaa.assume %4 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.assume %5 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %39 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %41 = nv_tileaa.make_memref %28[%34, %35, %36, %37] [%38, %39, %40] : !nv_tileaa.ptr<f16>[i32, i32, i32, i32] [i32, i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>
    %42 = nv_tileaa.assume %10 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %43 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %44 = nv_tileaa.assume %12 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %45 = nv_tileaa.assume %13 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %46 = nv_tileaa.assume %14 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %47 = nv_tileaa.assume %15 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %48 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %49 = nv_tileaa.make_memref %29[%42, %43, %44, %45] [%46, %47, %48] : !nv_tileaa.ptr<f16>[i32, i32, i32, i32] [i32, i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>
    %50 = nv_tileaa.assume %19 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %51 = nv_tileaa.assume %20 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %52 = nv_tileaa.assume %21 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %53 = nv_tileaa.assume %22 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %54 = nv_tileaa.assume %23 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %55 = nv_tileaa.assume %24 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %56 = nv_tileaa.assume %25 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %57 = nv_tileaa.make_memref %30[%50, %51, %52, %53] [%54, %55, %56] : !nv_tileaa.ptr<f16>[i32, i32, i32, i32] [i32, i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>
    %58 = arith.constant 2 : i32
    %59 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %60 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %61 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %62 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %63 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %64 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %65 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %66 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %67 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %68 = arith.floordivsi %67, %58 : i32
    %69 = arith.remsi %67, %58 : i32
    %70 = arith.constant 0 : i32
    %71 = arith.cmpi slt, %69, %70 : i32
    %72 = arith.constant false
    %73 = arith.xori %71, %72 : i1
    %74 = arith.cmpi ne, %69, %70 : i32
    %75 = arith.andi %73, %74 : i1
    %76 = nv_tileaa.addi %69, %58 : i32
    %77 = arith.select %75, %76, %69 : i32
    %78 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %79 = nv_tileaa.block_tile %41 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 1, 128, 64>, array<i32: 1, 1, 128, 64>, array<i32: 0, 1, 2, 3>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>>
    %80 = nv_tileaa.get_dim_size %79 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 1, 1, 128, 64>, array<i32: 1, 1, 128, 64>, array<i32: 0, 1, 2, 3>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>> -> i32
    %81 = nv_tileaa.get_dim_size %79 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 1, 1, 128, 64>, array<i32: 1, 1, 128, 64>, array<i32: 0, 1, 2, 3>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>> -> i32
    %82 = nv_tileaa.get_dim_size %79 {index = 2 : i32} : !nv_tileaa.tiled_view<array<i32: 1, 1, 128, 64>, array<i32: 1, 1, 128, 64>, array<i32: 0, 1, 2, 3>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>> -> i32
    %83 = nv_tileaa.get_dim_size %79 {index = 3 : i32} : !nv_tileaa.tiled_view<array<i32: 1, 1, 128, 64>, array<i32: 1, 1, 128, 64>, array<i32: 0, 1, 2, 3>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>> -> i32
    %84 = arith.constant 0 : i32
    %85 = arith.constant 1 : i32
    %86 = nv_tileaa.block_tile %41 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 1, 128, 64>, array<i32: 1, 1, 128, 64>, array<i32: 0, 1, 2, 3>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>>
    %87 = nv_tileaa.block_tile %49 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 1, 64, 128>, array<i32: 1, 1, 64, 128>, array<i32: 0, 1, 2, 3>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>>
    %88 = scf.for %89 = %84 to %83 step %85 iter_args(%90 = %78) -> (tensor<128x128xf32>) : i32 {
      %91, %92 = nv_tileaa.tiled_load %86[%68, %77, %59, %89] token %27 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 1, 128, 64>, array<i32: 1, 1, 128, 64>, array<i32: 0, 1, 2, 3>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>>[i32, i32, i32, i32] -> tensor<1x1x128x64xf16>
      %93 = nv_tileaa.reshape %91 : tensor<1x1x128x64xf16> -> tensor<128x64xf16>
      %94, %95 = nv_tileaa.tiled_load %87[%68, %77, %89, %63] token %27 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 1, 64, 128>, array<i32: 1, 1, 64, 128>, array<i32: 0, 1, 2, 3>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>>[i32, i32, i32, i32] -> tensor<1x1x64x128xf16>
      %96 = nv_tileaa.reshape %94 : tensor<1x1x64x128xf16> -> tensor<64x128xf16>
      %97 = nv_tileaa.dot %93, %96, %90 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %97 : tensor<128x128xf32>
    }
    %98 = nv_tileaa.fp_to_fp %88 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    %99 = nv_tileaa.expand_dims %98 {dim = 0 : i32} : tensor<128x128xf16> -> tensor<1x128x128xf16>
    %100 = nv_tileaa.expand_dims %99 {dim = 1 : i32} : tensor<1x128x128xf16> -> tensor<1x1x128x128xf16>
    %101 = nv_tileaa.block_tile %57 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 1, 128, 128>, array<i32: 1, 1, 128, 128>, array<i32: 0, 1, 2, 3>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>>
    %102 = nv_tileaa.tiled_store %100, %101[%68, %77, %59, %63] token %27 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<1x1x128x128xf16>, !nv_tileaa.tiled_view<array<i32: 1, 1, 128, 128>, array<i32: 1, 1, 128, 128>, array<i32: 0, 1, 2, 3>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>>[i32, i32, i32, i32]
    nv_tileaa.return
  }
}

