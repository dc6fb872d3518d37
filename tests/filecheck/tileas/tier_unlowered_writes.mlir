// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass --verify-diagnostics
// RUN: sed -e 's/^    %83, %84 = nv_tileaa.atomic_cas.*$//' %s | tileorch-opt -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// A GEMM that stores its C tile, then marks the tile done by an atomic compare-and-swap on a flag array
// (user_programs26.gemm_tile_done_flags_by_cas, converted by convert-cudatile-to-tileaa).  The WGMMA
// kernel's epilogue writes C (and tiles or reductions of the result at C's tile) only: it had no lowering for
// the compare-and-swap and dropped it (no flag ever set: found by user sweep 26; a ct.scatter beside C was
// dropped alike), so it is a located refusal (the SIMT path runs the kernel).  Without the CAS the same program
// is the plain GEMM.
// CHECK: func.func @gemm_f16_f32_bn_{{[0-9x]+}}_s{{[0-9]+}}_c1x1_persistent
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm_tile_done_flags_by_cas_Kt1_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f32_1l0_2t1_p16_A1i32_1t1_p16_I64_I64_I32(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: i32, %9: i32, %10: !nv_tileaa.ptr<f32>, %11: i32, %12: i32, %13: i32, %14: i32, %15: !nv_tileaa.ptr<i32>, %16: i32, %17: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %18 = nv_tileaa.create_mem_token
    %19 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %20 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %21 = nv_tileaa.assume %10 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
    %22 = nv_tileaa.assume %15 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<i32>
    %23 = arith.constant 1 : i32
    %24 = arith.constant 1 : i32
    %25 = arith.constant 1 : i32
    %26 = arith.constant 1 : i64
    %27 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %28 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %29 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %30 = nv_tileaa.make_memref %19[%27, %28] [%29] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %31 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %32 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %33 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %34 = nv_tileaa.make_memref %20[%31, %32] [%33] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %35 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.assume %12 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %37 = nv_tileaa.assume %13 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.make_memref %21[%35, %36] [%37] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %39 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = arith.constant 32 : i32
    %41 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %42 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %43 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %44 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %45 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %46 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %47 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %48 = arith.ceildivsi %28, %40 : i32
    %49 = arith.constant 0 : i32
    %50 = arith.constant 1 : i32
    %51 = nv_tileaa.block_tile %30 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 32>, array<i32: 64, 32>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %52 = nv_tileaa.block_tile %34 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 32, 64>, array<i32: 32, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %53, %54, %55 = scf.for %56 = %49 to %48 step %50 iter_args(%57 = %47, %58 = %18, %59 = %18) -> (tensor<64x64xf32>, !nv_tileaa.mem_token, !nv_tileaa.mem_token) : i32 {
      %60, %61 = nv_tileaa.tiled_load %51[%41, %56] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 64, 32>, array<i32: 64, 32>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x32xf16>
      %62 = nv_tileaa.join_mem_token %58, %61
      %63, %64 = nv_tileaa.tiled_load %52[%56, %45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 32, 64>, array<i32: 32, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<32x64xf16>
      %65 = nv_tileaa.join_mem_token %59, %64
      %66 = nv_tileaa.dot %60, %63, %57 {matmul_fast_accum = false} : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %66, %62, %65 : tensor<64x64xf32>, !nv_tileaa.mem_token, !nv_tileaa.mem_token
    }
    %67 = nv_tileaa.block_tile %38 : !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %68 = nv_tileaa.tiled_store %53, %67[%41, %45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<64x64xf32>, !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    %69 = nv_tileaa.get_num_programs {axis = 0 : i32} : i32
    %70 = nv_tileaa.get_num_programs {axis = 1 : i32} : i32
    %71 = nv_tileaa.get_num_programs {axis = 2 : i32} : i32
    %72 = nv_tileaa.muli %41, %70 : i32
    %73 = nv_tileaa.addi %72, %45 : i32
    %74 = arith.constant 0 : i32
    %75 = arith.constant 1 : i32
    %76 = nv_tileaa.addi %73, %75 : i32
    %77 = arith.extsi %73 : i32 to i64
    %78 = arith.extsi %39 : i32 to i64
    %79 = arith.cmpi ult, %77, %78 : i64
    %80 = nv_tileaa.muli %77, %26 : i64
    %81 = nv_tileaa.offset %22, %80 : !nv_tileaa.ptr<i32>, i64 -> !nv_tileaa.ptr<i32>
    %82 = nv_tileaa.join_mem_token %18, %54, %55, %68
    // expected-error@+1 {{an atomic compare-and-swap (ct.atomic_cas) in the GEMM's work tile is not supported yet by the WGMMA lowering}}
    %83, %84 = nv_tileaa.atomic_cas %81, %74, %76 mask %79 : i1 token %82 {mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<i32>, i32, i32 -> i32
    nv_tileaa.return
  }
}

