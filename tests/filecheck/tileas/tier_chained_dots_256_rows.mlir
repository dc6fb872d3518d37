// RUN: env TILEORCH_ATTN_OVERLAP=0 TILEORCH_ATTN_PERSISTENT=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: env TILEORCH_ATTN_PERSISTENT=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// 256-row query tiles (tileorch.testing.user_programs6.attn_bm256: attn_head_padded with BM = 256,
// BN = 64, head dim 64, as convert-cudatile-to-tileaa emits it).  The chained tier runs them on four
// consumer warp groups (64 rows each) beside the producer: 640 threads, setmaxnreg 24 for the
// producer and 112 for each consumer (a CTA of 640 threads starts with 96 registers a thread: 24 + 4 x 112
// <= 5 x 96 per lane slot; 120 made the last increase wait forever on the GPU), every K/V stage released
// by the 512 consumer threads, the Q tile one 256-row TMA box (32 KiB).

// CHECK:      func.func @chained_dots_256x64x64_64_f16(
// CHECK-SAME: nvvm.maxntid = array<i32: 640, 1, 1>
// CHECK-SAME: tileorch.chained_config = {{{.*}}threads = 640 : i64{{.*}}tm = 256 : i64
// CHECK:      nvvm.mbarrier.init %ebar0, %c512_i
// CHECK:      nvvm.setmaxregister decrease 24
// CHECK:      nvvm.mbarrier.arrive.expect_tx %qbar, %c32768_i
// CHECK:      nvvm.setmaxregister increase 112
// CHECK:      nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>

// PTX: .entry chained_dots_256x64x64_64_f16
// PTX: .maxntid 640, 1, 1
// PTX: setmaxnreg.dec.sync.aligned.u32 24
// PTX: setmaxnreg.inc.sync.aligned.u32 112

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @attn_head_padded_Kt1_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_Sf32_I256_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: i32, %6: i32, %7: !nv_tileaa.ptr<f16>, %8: i32, %9: i32, %10: i32, %11: i32, %12: i32, %13: i32, %14: !nv_tileaa.ptr<f16>, %15: i32, %16: i32, %17: i32, %18: i32, %19: i32, %20: i32, %21: !nv_tileaa.ptr<f16>, %22: i32, %23: i32, %24: i32, %25: i32, %26: i32, %27: i32, %28: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %29 = nv_tileaa.create_mem_token
    %30 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %31 = nv_tileaa.assume %7 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %32 = nv_tileaa.assume %14 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %33 = nv_tileaa.assume %21 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %34 = arith.constant 1 : i32
    %35 = arith.constant 1 : i32
    %36 = arith.constant 1 : i32
    %37 = arith.constant 1 : i32
    %38 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %39 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %41 = nv_tileaa.assume %4 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %42 = nv_tileaa.assume %5 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %43 = nv_tileaa.make_memref %30[%38, %39, %40] [%41, %42] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %44 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %45 = nv_tileaa.assume %9 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %46 = nv_tileaa.assume %10 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %47 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %48 = nv_tileaa.assume %12 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %49 = nv_tileaa.make_memref %31[%44, %45, %46] [%47, %48] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %50 = nv_tileaa.assume %15 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %51 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %52 = nv_tileaa.assume %17 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %53 = nv_tileaa.assume %18 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %54 = nv_tileaa.assume %19 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %55 = nv_tileaa.make_memref %32[%50, %51, %52] [%53, %54] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %56 = nv_tileaa.assume %22 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %57 = nv_tileaa.assume %23 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %58 = nv_tileaa.assume %24 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %59 = nv_tileaa.assume %25 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %60 = nv_tileaa.assume %26 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %61 = nv_tileaa.make_memref %33[%56, %57, %58] [%59, %60] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %62 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %63 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %64 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %65 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %66 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %67 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %68 = arith.constant 0 : i32
    %69 = nv_tileaa.block_tile %43 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 256, 64>, array<i32: 1, 256, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %70, %71 = nv_tileaa.tiled_load %69[%66, %62, %68] token %29 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 1, 256, 64>, array<i32: 1, 256, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x256x64xf16>
    %72 = nv_tileaa.reshape %70 : tensor<1x256x64xf16> -> tensor<256x64xf16>
    %73 = arith.constant dense<0xff800000> : tensor<256x1xf32>
    %74 = arith.constant dense<0.000000e+00> : tensor<256x1xf32>
    %75 = arith.constant dense<0.000000e+00> : tensor<256x64xf32>
    %76 = nv_tileaa.block_tile %49 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %77 = nv_tileaa.get_dim_size %76 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>> -> i32
    %78 = nv_tileaa.get_dim_size %76 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>> -> i32
    %79 = nv_tileaa.get_dim_size %76 {index = 2 : i32} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>> -> i32
    %80 = arith.constant 0 : i32
    %81 = arith.constant 1 : i32
    %82 = arith.constant 0 : i32
    %83 = nv_tileaa.block_tile %49 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %84 = arith.constant dense<0.000000e+00> : tensor<256x64xf32>
    %85 = nv_tileaa.splat %28 : f32 -> tensor<1x1xf32>
    %86 = nv_tileaa.broadcast %85 : tensor<1x1xf32> -> tensor<256x64xf32>
    %87 = arith.constant 0 : i32
    %88 = nv_tileaa.block_tile %55 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %89, %90, %91 = scf.for %92 = %80 to %78 step %81 iter_args(%93 = %74, %94 = %73, %95 = %75) -> (tensor<256x1xf32>, tensor<256x1xf32>, tensor<256x64xf32>) : i32 {
      %96, %97 = nv_tileaa.tiled_load %83[%66, %92, %82] token %29 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
      %98 = nv_tileaa.reshape %96 : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %99 = "nv_tileaa.permute"(%98) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %100 = nv_tileaa.dot %72, %99, %84 {matmul_fast_accum = false} : tensor<256x64xf16>, tensor<64x64xf16>, tensor<256x64xf32> -> tensor<256x64xf32>
      %101 = nv_tileaa.mulf %100, %86 : tensor<256x64xf32>
      %102 = "nv_tileaa.reduce"(%101) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%103: f32, %104: f32):
        %105 = nv_tileaa.maxf %103, %104 : f32
        "nv_tileaa.yield"(%105) : (f32) -> ()
      }) : (tensor<256x64xf32>) -> tensor<256xf32>
      %106 = nv_tileaa.expand_dims %102 {dim = 1 : i32} : tensor<256xf32> -> tensor<256x1xf32>
      %107 = nv_tileaa.maxf %94, %106 : tensor<256x1xf32>
      %108 = nv_tileaa.broadcast %107 : tensor<256x1xf32> -> tensor<256x64xf32>
      %109 = nv_tileaa.subf %101, %108 : tensor<256x64xf32>
      %110 = nv_tileaa.exp2 %109 : tensor<256x64xf32>
      %111 = nv_tileaa.subf %94, %107 : tensor<256x1xf32>
      %112 = nv_tileaa.exp2 %111 : tensor<256x1xf32>
      %113 = "nv_tileaa.reduce"(%110) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%114: f32, %115: f32):
        %116 = nv_tileaa.addf %114, %115 : f32
        "nv_tileaa.yield"(%116) : (f32) -> ()
      }) : (tensor<256x64xf32>) -> tensor<256xf32>
      %117 = nv_tileaa.expand_dims %113 {dim = 1 : i32} : tensor<256xf32> -> tensor<256x1xf32>
      %118 = nv_tileaa.fma %93, %112, %117 : tensor<256x1xf32>
      %119, %120 = nv_tileaa.tiled_load %88[%66, %92, %87] token %29 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
      %121 = nv_tileaa.reshape %119 : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %122 = nv_tileaa.fp_to_fp %110 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<256x64xf32> -> tensor<256x64xf16>
      %123 = nv_tileaa.broadcast %112 : tensor<256x1xf32> -> tensor<256x64xf32>
      %124 = nv_tileaa.mulf %95, %123 : tensor<256x64xf32>
      %125 = nv_tileaa.dot %122, %121, %124 {matmul_fast_accum = false} : tensor<256x64xf16>, tensor<64x64xf16>, tensor<256x64xf32> -> tensor<256x64xf32>
      scf.yield %118, %107, %125 : tensor<256x1xf32>, tensor<256x1xf32>, tensor<256x64xf32>
    }
    %126 = arith.constant 0 : i32
    %127 = nv_tileaa.broadcast %89 : tensor<256x1xf32> -> tensor<256x64xf32>
    %128 = nv_tileaa.divf %91, %127 : tensor<256x64xf32>
    %129 = nv_tileaa.fp_to_fp %128 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<256x64xf32> -> tensor<256x64xf16>
    %130 = nv_tileaa.expand_dims %129 {dim = 0 : i32} : tensor<256x64xf16> -> tensor<1x256x64xf16>
    %131 = nv_tileaa.block_tile %61 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 256, 64>, array<i32: 1, 256, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %132 = nv_tileaa.tiled_store %130, %131[%66, %62, %126] token %29 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<1x256x64xf16>, !nv_tileaa.tiled_view<array<i32: 1, 256, 64>, array<i32: 1, 256, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32]
    nv_tileaa.return
  }
}

