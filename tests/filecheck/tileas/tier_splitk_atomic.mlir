// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// cuTile's split-K GEMM (tileorch.testing.dot_programs.gemm_splitk_atomic, exported for 1024x512x384 f16 -> f32, 4
// splits): program id 2 picks a K range [s * per, min(s * per + per, k_tiles)), the partial product is added into
// C with ct.atomic_add at element indices.  The kernel walks the launch grid's z as L (grid_l), evaluates the K
// range per work tile from its l, and adds each accumulator element atomically (no C store).
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm_splitk_atomic_Kt1_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f32_1l0_2t1_p16_I128_I128_I64_I4(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: i32, %9: i32, %10: !nv_tileaa.ptr<f32>, %11: i32, %12: i32, %13: i32, %14: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto} {
    %15 = nv_tileaa.create_mem_token
    %16 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %17 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %18 = nv_tileaa.assume %10 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
    %19 = arith.constant 1 : i32
    %20 = arith.constant 1 : i32
    %21 = arith.constant dense<1> : tensor<128x128xi64>
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
    %33 = arith.constant 128 : i32
    %34 = arith.constant 128 : i32
    %35 = arith.constant 4 : i32
    %36 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %37 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %38 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %39 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %40 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %41 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %42 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %43 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %44 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %45 = nv_tileaa.block_tile %25 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %46 = nv_tileaa.get_dim_size %45 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %47 = nv_tileaa.get_dim_size %45 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %48 = arith.ceildivsi %47, %35 : i32
    %49 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %50 = nv_tileaa.muli %44, %48 : i32
    %51 = nv_tileaa.muli %44, %48 : i32
    %52 = nv_tileaa.addi %51, %48 : i32
    %53 = arith.minsi %52, %47 : i32
    %54 = arith.constant 1 : i32
    %55 = nv_tileaa.block_tile %25 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %56 = nv_tileaa.block_tile %29 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %57, %58, %59 = scf.for %60 = %50 to %53 step %54 iter_args(%61 = %49, %62 = %15, %63 = %15) -> (tensor<128x128xf32>, !nv_tileaa.mem_token, !nv_tileaa.mem_token) : i32 {
      %64, %65 = nv_tileaa.tiled_load %55[%36, %60] token %15 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<128x64xf16>
      %66 = nv_tileaa.join_mem_token %62, %65
      %67, %68 = nv_tileaa.tiled_load %56[%60, %40] token %15 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x128xf16>
      %69 = nv_tileaa.join_mem_token %63, %68
      %70 = nv_tileaa.dot %64, %67, %61 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %70, %66, %69 : tensor<128x128xf32>, !nv_tileaa.mem_token, !nv_tileaa.mem_token
    }
    %71 = nv_tileaa.muli %36, %33 : i32
    %72 = nv_tileaa.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
    %73 = nv_tileaa.splat %71 : i32 -> tensor<1xi32>
    %74 = nv_tileaa.broadcast %73 : tensor<1xi32> -> tensor<128xi32>
    %75 = nv_tileaa.addi %74, %72 : tensor<128xi32>
    %76 = nv_tileaa.muli %40, %34 : i32
    %77 = nv_tileaa.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
    %78 = nv_tileaa.splat %76 : i32 -> tensor<1xi32>
    %79 = nv_tileaa.broadcast %78 : tensor<1xi32> -> tensor<128xi32>
    %80 = nv_tileaa.addi %79, %77 : tensor<128xi32>
    %81 = nv_tileaa.expand_dims %75 {dim = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %82 = nv_tileaa.expand_dims %80 {dim = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %83 = nv_tileaa.extsi %81 : tensor<128x1xi32> -> tensor<128x1xi64>
    %84 = nv_tileaa.broadcast %83 : tensor<128x1xi64> -> tensor<128x128xi64>
    %85 = arith.extsi %30 : i32 to i64
    %86 = nv_tileaa.splat %85 : i64 -> tensor<1x1xi64>
    %87 = nv_tileaa.broadcast %86 : tensor<1x1xi64> -> tensor<128x128xi64>
    %88 = nv_tileaa.cmpi "ult", %84, %87 : tensor<128x128xi64> -> tensor<128x128xi1>
    %89 = arith.extsi %32 : i32 to i64
    %90 = nv_tileaa.splat %89 : i64 -> tensor<1x1xi64>
    %91 = nv_tileaa.broadcast %90 : tensor<1x1xi64> -> tensor<128x128xi64>
    %92 = nv_tileaa.muli %84, %91 : tensor<128x128xi64>
    %93 = nv_tileaa.extsi %82 : tensor<1x128xi32> -> tensor<1x128xi64>
    %94 = nv_tileaa.broadcast %93 : tensor<1x128xi64> -> tensor<128x128xi64>
    %95 = arith.extsi %31 : i32 to i64
    %96 = nv_tileaa.splat %95 : i64 -> tensor<1x1xi64>
    %97 = nv_tileaa.broadcast %96 : tensor<1x1xi64> -> tensor<128x128xi64>
    %98 = nv_tileaa.cmpi "ult", %94, %97 : tensor<128x128xi64> -> tensor<128x128xi1>
    %99 = arith.andi %88, %98 : tensor<128x128xi1>
    %100 = nv_tileaa.muli %94, %21 : tensor<128x128xi64>
    %101 = nv_tileaa.addi %92, %100 : tensor<128x128xi64>
    %102 = nv_tileaa.splat %18 : !nv_tileaa.ptr<f32> -> tensor<1x1x!nv_tileaa.ptr<f32>>
    %103 = nv_tileaa.broadcast %102 : tensor<1x1x!nv_tileaa.ptr<f32>> -> tensor<128x128x!nv_tileaa.ptr<f32>>
    %104 = nv_tileaa.offset %103, %101 : tensor<128x128x!nv_tileaa.ptr<f32>>, tensor<128x128xi64> -> tensor<128x128x!nv_tileaa.ptr<f32>>
    %105 = nv_tileaa.join_mem_token %15, %58, %59
    %106, %107 = nv_tileaa.atomic_rmw %104, %57 mask %99 : tensor<128x128xi1> token %105 {rmw_mode = #nv_tileaa.rmw_mode<addf>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<128x128x!nv_tileaa.ptr<f32>>, tensor<128x128xf32> -> tensor<128x128xf32>
    nv_tileaa.return
  }
}
// CHECK:      func.func @gemm_f16_f32_bn_128x128x64_s{{[0-9]+}}_c1x1_persistent_r40_232_heuristic_sw1_eatomic_gl(
// The producer's K range: the program's trip count (stop - start, at least 0) with the work tile's l as
// program id 2 in start = s * per, and K tile start + 1 * kt in stage kt (k_range.py).
// CHECK:      %tm, %tn, %tk, %tl = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl
// CHECK:      %kbeg = arith.constant 0 : i32
// CHECK:      %k_first = arith.muli %tl, %{{.*}} : i32
// CHECK:      arith.minsi
// CHECK:      arith.subi %{{.*}}, %k_first : i32
// CHECK:      %kend = arith.maxsi %{{.*}} : i32
// CHECK:      scf.for %kt = %kbeg to %kend step %c1
// CHECK:      %[[S:.*]] = arith.muli %kt, %k_stride : i32
// CHECK-NEXT: %k_tile = arith.addi %k_first, %[[S]] : i32
// CHECK-NEXT: %kc = arith.muli %k_tile, %c_tile_k : i32
// A consumer warp group: the same trip count, then release fence, atomic adds, acquire fence.
// CHECK:      %k_first_1 = arith.muli %tl_1, %{{.*}} : i32
// CHECK:      %kend_1 = arith.maxsi %{{.*}} : i32
// CHECK:      scf.for %kt_1 = %kbeg_1 to %kend_1 step %c1
// CHECK:      llvm.fence syncscope("device") release
// CHECK-COUNT-64: llvm.atomicrmw fadd {{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK:      llvm.fence syncscope("device") acquire
// CHECK-NOT:  atom.store_fragment
