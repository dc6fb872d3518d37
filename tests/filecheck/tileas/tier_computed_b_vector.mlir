// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// A B computed with a per-output-channel scale loaded before the K loop
// (tileorch.testing.computed_b_programs.w8a16_channel_scale_kn, as convert-cudatile-to-tileaa emits it):
// `(w.astype(f32) * s[None, :]).astype(f16)` on an int8 W [K, N].  The scale does not change along K, and a
// consumer thread's 16-byte units sit at the same positions every K step, so its scale elements are loaded
// once per work tile, between the work tile's coordinates and the K loop: 8 distinct N columns per thread
// (4 units of 8 columns at the same column offset), read at the work tile's n (S[tn * 64 + col]); none in
// the loop, where the raw int8 bytes are converted, multiplied and rounded pairwise to f16.

// CHECK:      func.func @gemm_f16_f32_bn_64x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_raws8(
// CHECK-SAME: remark: dot operand B computed in the K loop (sitofp, mulf, fp_to_fp of an i8 tile)
// CHECK-SAME: 1 vector(s) that do not change along K loaded from global memory once per work tile, before the K loop
// the consumer warp group's walk
// CHECK:      %tm_1, %tn_1, %tk_1, %tl_1 = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl
// CHECK:      arith.muli %tn_1, %{{.*}} : i32
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-NOT:  llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK:      scf.for %kt_1 =
// CHECK-NEXT: cutlass.pipeline.consumer_wait
// CHECK-NOT:  llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK:      %braw_off = arith.addi %bop_off, %{{.*}} : i32
// CHECK:      llvm.load {{.*}} <alignment = 8> : !llvm.ptr<3> -> vector<2xi32>
// CHECK:      arith.sitofp
// CHECK:      arith.mulf
// CHECK:      cvt.rn.f16x2.f32
// CHECK:      llvm.store {{.*}} <alignment = 16> : vector<4xi32>, !llvm.ptr<3>
// CHECK-NOT:  llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK:      nvvm.fence.proxy <async.shared>, space = <cta>
// CHECK-NEXT: cutlass.named_barrier.arrive_and_wait barrier_id = 3 num_threads = 128

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @w8a16_channel_scale_kn_Kt1_A2f16_1l0_2t1_p16_A2i8_1l0_2t1_p16_A1f32_1t1_p16_A2f32_1l0_2t1_p16_I64_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<i8>, %6: i32, %7: i32, %8: i32, %9: i32, %10: !nv_tileaa.ptr<f32>, %11: i32, %12: i32, %13: !nv_tileaa.ptr<f32>, %14: i32, %15: i32, %16: i32, %17: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %18 = nv_tileaa.create_mem_token
    %19 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %20 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<i8>
    %21 = nv_tileaa.assume %10 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
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
    %32 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %33 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %34 = nv_tileaa.make_memref %20[%31, %32] [%33] : !nv_tileaa.ptr<i8>[i32, i32] [i32] -> !nv_tileaa.memref<i8, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %35 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.make_memref %21[%35] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
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
    %48 = nv_tileaa.block_tile %36 : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %49, %50 = nv_tileaa.tiled_load %48[%45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<64xf32>
    %51 = nv_tileaa.block_tile %30 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %52 = nv_tileaa.get_dim_size %51 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %53 = nv_tileaa.get_dim_size %51 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %54 = arith.constant 0 : i32
    %55 = arith.constant 1 : i32
    %56 = nv_tileaa.block_tile %34 : !nv_tileaa.memref<i8, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<i8, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %57 = nv_tileaa.expand_dims %49 {dim = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
    %58 = nv_tileaa.broadcast %57 : tensor<1x64xf32> -> tensor<64x64xf32>
    %59 = nv_tileaa.block_tile %30 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %60 = scf.for %61 = %54 to %53 step %55 iter_args(%62 = %47) -> (tensor<64x64xf32>) : i32 {
      %63, %64 = nv_tileaa.tiled_load %56[%61, %45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<i8, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xi8>
      %65 = nv_tileaa.sitofp %63 : tensor<64x64xi8> -> tensor<64x64xf32>
      %66 = nv_tileaa.mulf %65, %58 : tensor<64x64xf32>
      %67 = nv_tileaa.fp_to_fp %66 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %68, %69 = nv_tileaa.tiled_load %59[%41, %61] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %70 = nv_tileaa.dot %68, %67, %62 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %70 : tensor<64x64xf32>
    }
    %71 = nv_tileaa.block_tile %40 : !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %72 = nv_tileaa.tiled_store %60, %71[%41, %45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<64x64xf32>, !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}

