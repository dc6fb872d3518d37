// RUN: env TILEORCH_EPILOGUE_DOT_TMA_STORE=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// tier_epilogue_dot.mlir's low-rank chain with E stored [N2, R] (nn.Linear's layout, K-major): its [128, 64]
// tile at (program id 1, 0) reaches the second dot through a permute.  The kernel (name suffix "k") loads E as
// one box of 128 N rows x 64 K columns (a 128-byte swizzled K row) at (0, the work tile's column), and its
// descriptors are K-major ones (LBO 16 B, SBO 1 KiB, 128-byte swizzle: 0x4000004000010000 =
// 4611686293305360384), each WGMMA step 32 bytes (2 units) along the K row, the instruction's B untransposed
// (layoutB col: tnspB 0); by default the kernel loops over N tiles (suffix "_nloop", E's pipeline two stages:
// tier_epilogue_dot.mlir checks the loop), the box at (0, the loop's N tile).
// CHECK: func.func @gemm_f16_f16_bn_128x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_edirect_dot128k_nloop(
// CHECK: %eready = cutlass.pipeline.init %epipe {numStages = 2 : i32
// CHECK-SAME: transaction_size = array<i32: 16384>
// CHECK: cutlass.pipeline.producer_acquire %eready
// CHECK: %ek0 = arith.constant 0 : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %edst0, %tmap_e, %efb, box[%ek0, %e0] {cutlass.tx_bytes = 16384 : i32}
// CHECK-NOT: %edst1
// CHECK: cutlass.pipeline.producer_commit %eready, %{{.*}} {transaction_bytes = 16384 : i32}
// CHECK: %efrag3q3 = llvm.inline_asm
// CHECK: %[[BITS:.*]] = arith.constant 4611686293305360384 : i64
// CHECK-NEXT: %de = arith.ori %{{.*}}, %[[BITS]] : i64
// CHECK: %[[S1:.*]] = arith.constant 2 : i64
// CHECK-NEXT: %de1 = arith.addi %de, %[[S1]] : i64
// CHECK: atom.wgmma_mma_async_reg_a %efrag1q0, %efrag1q1, %efrag1q2, %efrag1q3, %de1, %{{e0[_0-9]*}} {n = 128 : i64, typeAB = #nvvm.wgmma_type<f16>, layoutB = #nvvm.mma_layout<col>}
// CHECK: %[[S3:.*]] = arith.constant 6 : i64
// CHECK-NEXT: %de3 = arith.addi %de, %[[S3]] : i64
// CHECK: %acc2 = atom.wgmma_mma_async_reg_a %efrag3q0, %efrag3q1, %efrag3q2, %efrag3q3, %de3, %e2 {n = 128 : i64, typeAB = #nvvm.wgmma_type<f16>, layoutB = #nvvm.mma_layout<col>}
// CHECK: atom.store_fragment
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @lowrank_scaled_bias(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: i32, %9: i32, %10: !nv_tileaa.ptr<f16>, %11: i32, %12: i32, %13: i32, %14: i32, %15: !nv_tileaa.ptr<f32>, %16: i32, %17: i32, %18: !nv_tileaa.ptr<f16>, %19: i32, %20: i32, %21: i32, %22: i32, %23: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %24 = nv_tileaa.create_mem_token
    %25 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %26 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %27 = nv_tileaa.assume %10 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %28 = nv_tileaa.assume %15 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
    %29 = nv_tileaa.assume %18 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %30 = arith.constant 1 : i32
    %31 = arith.constant 1 : i32
    %32 = arith.constant 1 : i32
    %33 = arith.constant 1 : i32
    %34 = arith.constant 1 : i32
    %35 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %37 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.make_memref %25[%35, %36] [%37] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %39 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %41 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %42 = nv_tileaa.make_memref %26[%39, %40] [%41] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %43 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %44 = nv_tileaa.assume %12 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %45 = nv_tileaa.assume %13 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %46 = nv_tileaa.make_memref %27[%43, %44] [%45] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %47 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %48 = nv_tileaa.make_memref %28[%47] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %49 = nv_tileaa.assume %19 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %50 = nv_tileaa.assume %20 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %51 = nv_tileaa.assume %21 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %52 = nv_tileaa.make_memref %29[%49, %50] [%51] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %53 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %54 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %55 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %56 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %57 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %58 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %59 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %60 = nv_tileaa.block_tile %38 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %61 = nv_tileaa.get_dim_size %60 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %62 = nv_tileaa.get_dim_size %60 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %63 = arith.constant 0 : i32
    %64 = arith.constant 1 : i32
    %65 = nv_tileaa.block_tile %38 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %66 = arith.constant 0 : i32
    %67 = nv_tileaa.block_tile %42 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %68 = scf.for %69 = %63 to %62 step %64 iter_args(%70 = %59) -> (tensor<128x64xf32>) : i32 {
      %71, %72 = nv_tileaa.tiled_load %65[%53, %69] token %24 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<128x64xf16>
      %73, %74 = nv_tileaa.tiled_load %67[%69, %66] token %24 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %75 = nv_tileaa.dot %71, %73, %70 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %75 : tensor<128x64xf32>
    }
    %76 = nv_tileaa.fp_to_fp %68 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
    %77 = arith.constant 0 : i32
    %78 = nv_tileaa.block_tile %46 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %178, %80 = nv_tileaa.tiled_load %78[%57, %77] token %24 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<128x64xf16>
    %79 = "nv_tileaa.permute"(%178) <{permutation = array<i32: 1, 0>}> : (tensor<128x64xf16>) -> tensor<64x128xf16>
    %81 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %82 = nv_tileaa.dot %76, %79, %81 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %83 = nv_tileaa.block_tile %48 : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %84, %85 = nv_tileaa.tiled_load %83[%57] token %24 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<128xf32>
    %86 = nv_tileaa.splat %23 : f32 -> tensor<1x1xf32>
    %87 = nv_tileaa.broadcast %86 : tensor<1x1xf32> -> tensor<128x128xf32>
    %88 = nv_tileaa.expand_dims %84 {dim = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
    %89 = nv_tileaa.broadcast %88 : tensor<1x128xf32> -> tensor<128x128xf32>
    %90 = nv_tileaa.fma %87, %82, %89 : tensor<128x128xf32>
    %91 = nv_tileaa.fp_to_fp %90 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    %92 = nv_tileaa.block_tile %52 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %93 = nv_tileaa.tiled_store %91, %92[%53, %57] token %24 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<128x128xf16>, !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}