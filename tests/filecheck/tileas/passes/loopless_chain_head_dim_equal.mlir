// RUN: tileorch-opt %s -p tileas-program-loop-to-tiles | filecheck %s
// Attention over one key tile written without a loop with the head dim equal to the key tile's width
// (tileorch.testing.user_programs30.attn_one_key_tile_d_equals_bn, as convert-cudatile-to-tileaa emits it: K and V
// tiles [1, 64, 64] at index (bh, 0, 0), so two tile dimensions of the key tile's extent sit at a constant index).
// The key dimension is traced from the dots (N of q k^T's B through the permute and the unit-dim reshape, K of
// P v's B through the reshape): the loop's induction variable replaces the middle index of both loads, the head
// dimension's index stays the constant.  Sweep 30 found it left unrewritten (the SIMT path, "this dot is not in
// a loop") before the trace.

// CHECK:      nv_tileaa.reshape %{{.*}} : tensor<1x64x64xf16> -> tensor<64x64xf16>
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[HD_K:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[K_VIEW:.*]] = nv_tileaa.block_tile
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[HD_V:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[V_VIEW:.*]] = nv_tileaa.block_tile
// CHECK:      %[[LB:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[UB:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %{{.*}} = scf.for %[[J:.*]] = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:   nv_tileaa.tiled_load %[[K_VIEW]][%{{.*}}, %[[J]], %[[HD_K]]]
// CHECK:        nv_tileaa.tiled_load %[[V_VIEW]][%{{.*}}, %[[J]], %[[HD_V]]]
// CHECK:        nv_tileaa.dot
// CHECK:        %[[PV:.*]] = nv_tileaa.dot %{{.*}}, %{{.*}}, %[[ACC]]
// CHECK-NEXT:   scf.yield %[[PV]] : tensor<64x64xf32>
// CHECK:      nv_tileaa.tiled_store

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @attn_one_key_tile_d_equals_bn_Kt1_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_Sf32_I64_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: i32, %6: i32, %7: !nv_tileaa.ptr<f16>, %8: i32, %9: i32, %10: i32, %11: i32, %12: i32, %13: i32, %14: !nv_tileaa.ptr<f16>, %15: i32, %16: i32, %17: i32, %18: i32, %19: i32, %20: i32, %21: !nv_tileaa.ptr<f16>, %22: i32, %23: i32, %24: i32, %25: i32, %26: i32, %27: i32, %28: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
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
    %69 = nv_tileaa.block_tile %43 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %70, %71 = nv_tileaa.tiled_load %69[%66, %62, %68] token %29 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
    %72 = nv_tileaa.reshape %70 : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %73 = arith.constant 0 : i32
    %74 = arith.constant 0 : i32
    %75 = nv_tileaa.block_tile %49 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %76, %77 = nv_tileaa.tiled_load %75[%66, %73, %74] token %29 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
    %78 = nv_tileaa.reshape %76 : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %79 = arith.constant 0 : i32
    %80 = arith.constant 0 : i32
    %81 = nv_tileaa.block_tile %55 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %82, %83 = nv_tileaa.tiled_load %81[%66, %79, %80] token %29 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
    %84 = nv_tileaa.reshape %82 : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %85 = "nv_tileaa.permute"(%78) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
    %86 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %87 = nv_tileaa.dot %72, %85, %86 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %88 = nv_tileaa.splat %28 : f32 -> tensor<1x1xf32>
    %89 = nv_tileaa.broadcast %88 : tensor<1x1xf32> -> tensor<64x64xf32>
    %90 = nv_tileaa.mulf %87, %89 : tensor<64x64xf32>
    %91 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %92 = nv_tileaa.expand_dims %91 {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %93 = nv_tileaa.splat %45 : i32 -> tensor<1x1xi32>
    %94 = nv_tileaa.broadcast %93 : tensor<1x1xi32> -> tensor<1x64xi32>
    %95 = nv_tileaa.cmpi "slt", %92, %94 : tensor<1x64xi32> -> tensor<1x64xi1>
    %96 = arith.constant 0xff800000 : f32
    %97 = nv_tileaa.broadcast %95 : tensor<1x64xi1> -> tensor<64x64xi1>
    %98 = nv_tileaa.splat %96 : f32 -> tensor<1x1xf32>
    %99 = nv_tileaa.broadcast %98 : tensor<1x1xf32> -> tensor<64x64xf32>
    %100 = nv_tileaa.select %97, %90, %99 : tensor<64x64xi1>, tensor<64x64xf32>
    %101 = "nv_tileaa.reduce"(%100) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%102: f32, %103: f32):
      %104 = nv_tileaa.maxf %102, %103 : f32
      "nv_tileaa.yield"(%104) : (f32) -> ()
    }) : (tensor<64x64xf32>) -> tensor<64xf32>
    %105 = nv_tileaa.expand_dims %101 {dim = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %106 = nv_tileaa.broadcast %105 : tensor<64x1xf32> -> tensor<64x64xf32>
    %107 = nv_tileaa.subf %100, %106 : tensor<64x64xf32>
    %108 = nv_tileaa.exp %107 : tensor<64x64xf32>
    %109 = "nv_tileaa.reduce"(%108) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%110: f32, %111: f32):
      %112 = nv_tileaa.addf %110, %111 : f32
      "nv_tileaa.yield"(%112) : (f32) -> ()
    }) : (tensor<64x64xf32>) -> tensor<64xf32>
    %113 = nv_tileaa.expand_dims %109 {dim = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %114 = nv_tileaa.broadcast %113 : tensor<64x1xf32> -> tensor<64x64xf32>
    %115 = nv_tileaa.divf %108, %114 : tensor<64x64xf32>
    %116 = nv_tileaa.fp_to_fp %115 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %117 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %118 = nv_tileaa.dot %116, %84, %117 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %119 = arith.constant 0 : i32
    %120 = nv_tileaa.fp_to_fp %118 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %121 = nv_tileaa.expand_dims %120 {dim = 0 : i32} : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %122 = nv_tileaa.block_tile %61 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %123 = nv_tileaa.tiled_store %121, %122[%66, %62, %119] token %29 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<1x64x64xf16>, !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32]
    nv_tileaa.return
  }
}

