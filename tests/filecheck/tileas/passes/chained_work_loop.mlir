// RUN: tileorch-opt %s -p tileas-program-loop-to-tiles | filecheck %s
// RUN: env TILEORCH_ATTN_PERSISTENT=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=TIER
// A persistent work loop around attention (tileorch.testing.user_programs6.attn_persistent, as
// convert-cudatile-to-tileaa emits it: for t in range(bid(0), cdiv(S, BM) * BH, num_blocks(0)), the key
// loop inside).  tileas-program-loop-to-tiles (chained_work_loop.py) replaces the loop by its body with
// t read as min(program id 0, total - 1), the op marked tileorch.work_items = 0; the chained lowering
// then builds its persistent kernel (even with TILEORCH_ATTN_PERSISTENT=0) whose instance grid along
// axis 0 is that total + 1, evaluated in the kernel, and whose work loop runs from ctaid.x by nctaid.x.

// CHECK:      %[[TOTAL:.*]] = nv_tileaa.muli %{{.*}}, %{{.*}} : i32
// CHECK:      %[[LAST:.*]] = arith.subi %[[TOTAL]], %{{.*}} : i32
// CHECK-NEXT: %[[T:.*]] = arith.minsi %{{.*}}, %[[LAST]] {tileorch.work_items = 0 : i32} : i32
// CHECK-NEXT: arith.floordivsi %[[T]],
// CHECK-NOT:  scf.for %{{.*}} = %{{.*}} to %[[TOTAL]]
// CHECK:      scf.for
// CHECK:        nv_tileaa.dot
// CHECK:        nv_tileaa.dot
// CHECK:      nv_tileaa.tiled_store

// TIER:       func.func @chained_dots_128x64x64_64_f16(
// TIER-SAME:  %grid_x: i32, %grid_y: i32, %grid_z: i32
// TIER-SAME:  persistent = {
// TIER-SAME:  remarks = ["{{.*}}:{{[0-9]+}}:{{[0-9]+}}: remark: chained-dots tier (TMA + WGMMA): the work loop around the chain runs as the tier's persistent kernel
// TIER:       %work_items = arith.addi %{{.*}}, %{{.*}} : i32
// TIER:       %pg_xy = arith.muli %work_items, %grid_y : i32
// TIER:       scf.for %pg_w = %pg_first to %pg_total step %pg_step

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @attn_persistent_Kt1_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_Sf32_I128_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: i32, %6: i32, %7: !nv_tileaa.ptr<f16>, %8: i32, %9: i32, %10: i32, %11: i32, %12: i32, %13: i32, %14: !nv_tileaa.ptr<f16>, %15: i32, %16: i32, %17: i32, %18: i32, %19: i32, %20: i32, %21: !nv_tileaa.ptr<f16>, %22: i32, %23: i32, %24: i32, %25: i32, %26: i32, %27: i32, %28: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
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
    %62 = arith.constant 128 : i32
    %63 = arith.ceildivsi %39, %62 : i32
    %64 = nv_tileaa.muli %63, %38 : i32
    %65 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %66 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %67 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %68 = nv_tileaa.get_num_programs {axis = 0 : i32} : i32
    %69 = nv_tileaa.get_num_programs {axis = 1 : i32} : i32
    %70 = nv_tileaa.get_num_programs {axis = 2 : i32} : i32
    %71 = arith.constant 0 : i32
    %72 = arith.cmpi slt, %63, %71 : i32
    %73 = arith.constant 0 : i32
    %74 = nv_tileaa.block_tile %43 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %75 = arith.constant dense<0xff800000> : tensor<128x1xf32>
    %76 = arith.constant dense<0.000000e+00> : tensor<128x1xf32>
    %77 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %78 = nv_tileaa.block_tile %49 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %79 = nv_tileaa.get_dim_size %78 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>> -> i32
    %80 = nv_tileaa.get_dim_size %78 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>> -> i32
    %81 = nv_tileaa.get_dim_size %78 {index = 2 : i32} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>> -> i32
    %82 = arith.constant 0 : i32
    %83 = arith.constant 1 : i32
    %84 = arith.constant 0 : i32
    %85 = nv_tileaa.block_tile %49 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %86 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %87 = nv_tileaa.splat %28 : f32 -> tensor<1x1xf32>
    %88 = nv_tileaa.broadcast %87 : tensor<1x1xf32> -> tensor<128x64xf32>
    %89 = arith.constant 0 : i32
    %90 = nv_tileaa.block_tile %55 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %91 = arith.constant 0 : i32
    %92 = nv_tileaa.block_tile %61 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %93 = scf.for %94 = %65 to %64 step %68 iter_args(%95 = %29) -> (!nv_tileaa.mem_token) : i32 {
      %96 = arith.floordivsi %94, %63 : i32
      %97 = arith.remsi %94, %63 : i32
      %98 = arith.cmpi slt, %97, %71 : i32
      %99 = arith.xori %98, %72 : i1
      %100 = arith.cmpi ne, %97, %71 : i32
      %101 = arith.andi %99, %100 : i1
      %102 = nv_tileaa.addi %97, %63 : i32
      %103 = arith.select %101, %102, %97 : i32
      %104, %105 = nv_tileaa.tiled_load %74[%96, %103, %73] token %29 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x128x64xf16>
      %106 = nv_tileaa.reshape %104 : tensor<1x128x64xf16> -> tensor<128x64xf16>
      %107, %108, %109 = scf.for %110 = %82 to %80 step %83 iter_args(%111 = %76, %112 = %75, %113 = %77) -> (tensor<128x1xf32>, tensor<128x1xf32>, tensor<128x64xf32>) : i32 {
        %114, %115 = nv_tileaa.tiled_load %85[%96, %110, %84] token %29 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
        %116 = nv_tileaa.reshape %114 : tensor<1x64x64xf16> -> tensor<64x64xf16>
        %117 = "nv_tileaa.permute"(%116) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
        %118 = nv_tileaa.dot %106, %117, %86 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
        %119 = nv_tileaa.mulf %118, %88 : tensor<128x64xf32>
        %120 = "nv_tileaa.reduce"(%119) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
        ^bb0(%121: f32, %122: f32):
          %123 = nv_tileaa.maxf %121, %122 : f32
          "nv_tileaa.yield"(%123) : (f32) -> ()
        }) : (tensor<128x64xf32>) -> tensor<128xf32>
        %124 = nv_tileaa.expand_dims %120 {dim = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
        %125 = nv_tileaa.maxf %112, %124 : tensor<128x1xf32>
        %126 = nv_tileaa.broadcast %125 : tensor<128x1xf32> -> tensor<128x64xf32>
        %127 = nv_tileaa.subf %119, %126 : tensor<128x64xf32>
        %128 = nv_tileaa.exp2 %127 : tensor<128x64xf32>
        %129 = nv_tileaa.subf %112, %125 : tensor<128x1xf32>
        %130 = nv_tileaa.exp2 %129 : tensor<128x1xf32>
        %131 = "nv_tileaa.reduce"(%128) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
        ^bb0(%132: f32, %133: f32):
          %134 = nv_tileaa.addf %132, %133 : f32
          "nv_tileaa.yield"(%134) : (f32) -> ()
        }) : (tensor<128x64xf32>) -> tensor<128xf32>
        %135 = nv_tileaa.expand_dims %131 {dim = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
        %136 = nv_tileaa.fma %111, %130, %135 : tensor<128x1xf32>
        %137, %138 = nv_tileaa.tiled_load %90[%96, %110, %89] token %29 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
        %139 = nv_tileaa.reshape %137 : tensor<1x64x64xf16> -> tensor<64x64xf16>
        %140 = nv_tileaa.fp_to_fp %128 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
        %141 = nv_tileaa.broadcast %130 : tensor<128x1xf32> -> tensor<128x64xf32>
        %142 = nv_tileaa.mulf %113, %141 : tensor<128x64xf32>
        %143 = nv_tileaa.dot %140, %139, %142 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
        scf.yield %136, %125, %143 : tensor<128x1xf32>, tensor<128x1xf32>, tensor<128x64xf32>
      }
      %144 = nv_tileaa.broadcast %107 : tensor<128x1xf32> -> tensor<128x64xf32>
      %145 = nv_tileaa.divf %109, %144 : tensor<128x64xf32>
      %146 = nv_tileaa.fp_to_fp %145 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
      %147 = nv_tileaa.expand_dims %146 {dim = 0 : i32} : tensor<128x64xf16> -> tensor<1x128x64xf16>
      %148 = nv_tileaa.tiled_store %147, %92[%96, %103, %91] token %95 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<1x128x64xf16>, !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32]
      scf.yield %148 : !nv_tileaa.mem_token
    }
    nv_tileaa.return
  }
}
