// RUN: tileorch-opt %s --verify-diagnostics -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// tier_chained_dots_scatter_o.mlir with the output scattered twice (the same ct.scatter again): the chained kernel
// takes one ct.scatter of the accumulator tile as its output, so it refuses two, located at the first (a cuTile
// program then takes the SIMT path).
// CHECK: tier_chained_dots_gathered_q_errors.mlir:215:5: error: convert-nv-tileas-to-cutlass: chained dots: the output is written by 2 ct.scatter ops (an element address per value)
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @a44_routed_q_scatter_o_Kt1_A3f16_3l0_4t1_p16_A1i32_1t1_p16_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_Sf32_I64_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: i32, %6: i32, %7: !nv_tileaa.ptr<i32>, %8: i32, %9: i32, %10: !nv_tileaa.ptr<f16>, %11: i32, %12: i32, %13: i32, %14: i32, %15: i32, %16: i32, %17: !nv_tileaa.ptr<f16>, %18: i32, %19: i32, %20: i32, %21: i32, %22: i32, %23: i32, %24: !nv_tileaa.ptr<f16>, %25: i32, %26: i32, %27: i32, %28: i32, %29: i32, %30: i32, %31: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %32 = nv_tileaa.create_mem_token
    %33 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %34 = nv_tileaa.assume %7 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<i32>
    %35 = nv_tileaa.assume %10 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %36 = nv_tileaa.assume %17 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %37 = nv_tileaa.assume %24 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %38 = arith.constant 1 : i32
    %39 = arith.constant 1 : i32
    %40 = arith.constant dense<1> : tensor<64xi64>
    %41 = arith.constant dense<0> : tensor<64xi32>
    %42 = arith.constant dense<1> : tensor<64x64xi64>
    %43 = arith.constant dense<1> : tensor<64x64xi64>
    %44 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %45 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %46 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %47 = nv_tileaa.assume %4 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %48 = nv_tileaa.assume %5 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %49 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %50 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %51 = nv_tileaa.assume %12 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %52 = nv_tileaa.assume %13 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %53 = nv_tileaa.assume %14 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %54 = nv_tileaa.assume %15 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %55 = nv_tileaa.make_memref %35[%50, %51, %52] [%53, %54] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %56 = nv_tileaa.assume %18 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %57 = nv_tileaa.assume %19 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %58 = nv_tileaa.assume %20 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %59 = nv_tileaa.assume %21 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %60 = nv_tileaa.assume %22 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %61 = nv_tileaa.make_memref %36[%56, %57, %58] [%59, %60] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %62 = nv_tileaa.assume %25 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %63 = nv_tileaa.assume %26 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %64 = nv_tileaa.assume %27 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %65 = nv_tileaa.assume %28 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %66 = nv_tileaa.assume %29 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %67 = arith.constant 64 : i32
    %68 = arith.constant 64 : i32
    %69 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %70 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %71 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %72 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %73 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %74 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %75 = nv_tileaa.muli %69, %67 : i32
    %76 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %77 = nv_tileaa.splat %75 : i32 -> tensor<1xi32>
    %78 = nv_tileaa.broadcast %77 : tensor<1xi32> -> tensor<64xi32>
    %79 = nv_tileaa.addi %78, %76 : tensor<64xi32>
    %80 = nv_tileaa.extsi %79 : tensor<64xi32> -> tensor<64xi64>
    %81 = arith.extsi %49 : i32 to i64
    %82 = nv_tileaa.splat %81 : i64 -> tensor<1xi64>
    %83 = nv_tileaa.broadcast %82 : tensor<1xi64> -> tensor<64xi64>
    %84 = nv_tileaa.cmpi "ult", %80, %83 : tensor<64xi64> -> tensor<64xi1>
    %85 = nv_tileaa.muli %80, %40 : tensor<64xi64>
    %86 = nv_tileaa.splat %34 : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %87 = nv_tileaa.broadcast %86 : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
    %88 = nv_tileaa.offset %87, %85 : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
    %89, %90 = nv_tileaa.load %88 mask %84 : tensor<64xi1> other %41 : tensor<64xi32> token %32 : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
    %91 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %92 = nv_tileaa.expand_dims %91 {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %93 = nv_tileaa.splat %49 : i32 -> tensor<1xi32>
    %94 = nv_tileaa.broadcast %93 : tensor<1xi32> -> tensor<64xi32>
    %95 = nv_tileaa.cmpi "slt", %79, %94 : tensor<64xi32> -> tensor<64xi1>
    %96 = nv_tileaa.expand_dims %95 {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
    %97 = nv_tileaa.expand_dims %89 {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %98 = nv_tileaa.extsi %97 : tensor<64x1xi32> -> tensor<64x1xi64>
    %99 = nv_tileaa.broadcast %98 : tensor<64x1xi64> -> tensor<64x64xi64>
    %100 = arith.extsi %44 : i32 to i64
    %101 = nv_tileaa.splat %100 : i64 -> tensor<1x1xi64>
    %102 = nv_tileaa.broadcast %101 : tensor<1x1xi64> -> tensor<64x64xi64>
    %103 = nv_tileaa.cmpi "ult", %99, %102 : tensor<64x64xi64> -> tensor<64x64xi1>
    %104 = arith.extsi %47 : i32 to i64
    %105 = nv_tileaa.splat %104 : i64 -> tensor<1x1xi64>
    %106 = nv_tileaa.broadcast %105 : tensor<1x1xi64> -> tensor<64x64xi64>
    %107 = nv_tileaa.muli %99, %106 : tensor<64x64xi64>
    %108 = arith.extsi %73 : i32 to i64
    %109 = nv_tileaa.splat %108 : i64 -> tensor<1x1xi64>
    %110 = nv_tileaa.broadcast %109 : tensor<1x1xi64> -> tensor<64x64xi64>
    %111 = arith.extsi %45 : i32 to i64
    %112 = nv_tileaa.splat %111 : i64 -> tensor<1x1xi64>
    %113 = nv_tileaa.broadcast %112 : tensor<1x1xi64> -> tensor<64x64xi64>
    %114 = nv_tileaa.cmpi "ult", %110, %113 : tensor<64x64xi64> -> tensor<64x64xi1>
    %115 = arith.andi %103, %114 : tensor<64x64xi1>
    %116 = arith.extsi %48 : i32 to i64
    %117 = nv_tileaa.splat %116 : i64 -> tensor<1x1xi64>
    %118 = nv_tileaa.broadcast %117 : tensor<1x1xi64> -> tensor<64x64xi64>
    %119 = nv_tileaa.muli %110, %118 : tensor<64x64xi64>
    %120 = nv_tileaa.addi %107, %119 : tensor<64x64xi64>
    %121 = nv_tileaa.extsi %92 : tensor<1x64xi32> -> tensor<1x64xi64>
    %122 = nv_tileaa.broadcast %121 : tensor<1x64xi64> -> tensor<64x64xi64>
    %123 = arith.extsi %46 : i32 to i64
    %124 = nv_tileaa.splat %123 : i64 -> tensor<1x1xi64>
    %125 = nv_tileaa.broadcast %124 : tensor<1x1xi64> -> tensor<64x64xi64>
    %126 = nv_tileaa.cmpi "ult", %122, %125 : tensor<64x64xi64> -> tensor<64x64xi1>
    %127 = arith.andi %115, %126 : tensor<64x64xi1>
    %128 = nv_tileaa.muli %122, %42 : tensor<64x64xi64>
    %129 = nv_tileaa.addi %120, %128 : tensor<64x64xi64>
    %130 = nv_tileaa.splat %33 : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
    %131 = nv_tileaa.broadcast %130 : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
    %132 = nv_tileaa.offset %131, %129 : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
    %133 = nv_tileaa.broadcast %96 : tensor<64x1xi1> -> tensor<64x64xi1>
    %134 = arith.andi %127, %133 : tensor<64x64xi1>
    %135 = arith.constant 0.000000e+00 : f16
    %136 = nv_tileaa.splat %135 : f16 -> tensor<1x1xf16>
    %137 = nv_tileaa.broadcast %136 : tensor<1x1xf16> -> tensor<64x64xf16>
    %138, %139 = nv_tileaa.load %132 mask %134 : tensor<64x64xi1> other %137 : tensor<64x64xf16> token %32 : tensor<64x64x!nv_tileaa.ptr<f16>> -> tensor<64x64xf16>
    %140 = arith.constant dense<0xff800000> : tensor<64x1xf32>
    %141 = arith.constant dense<0.000000e+00> : tensor<64x1xf32>
    %142 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %143 = arith.ceildivsi %51, %68 : i32
    %144 = arith.constant 0 : i32
    %145 = arith.constant 1 : i32
    %146 = arith.constant 0 : i32
    %147 = nv_tileaa.block_tile %55 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %148 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %149 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %150 = nv_tileaa.splat %31 : f32 -> tensor<1x1xf32>
    %151 = nv_tileaa.broadcast %150 : tensor<1x1xf32> -> tensor<64x64xf32>
    %152 = nv_tileaa.splat %51 : i32 -> tensor<1x1xi32>
    %153 = nv_tileaa.broadcast %152 : tensor<1x1xi32> -> tensor<1x64xi32>
    %154 = arith.constant 0xff800000 : f32
    %155 = nv_tileaa.splat %154 : f32 -> tensor<1x1xf32>
    %156 = nv_tileaa.broadcast %155 : tensor<1x1xf32> -> tensor<64x64xf32>
    %157 = arith.constant 0 : i32
    %158 = nv_tileaa.block_tile %61 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %159, %160, %161 = scf.for %162 = %144 to %143 step %145 iter_args(%163 = %142, %164 = %141, %165 = %140) -> (tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>) : i32 {
      %166, %167 = nv_tileaa.tiled_load %147[%73, %162, %146] token %32 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
      %168 = nv_tileaa.reshape %166 : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %169 = nv_tileaa.muli %162, %68 : i32
      %170 = nv_tileaa.splat %169 : i32 -> tensor<1xi32>
      %171 = nv_tileaa.broadcast %170 : tensor<1xi32> -> tensor<64xi32>
      %172 = nv_tileaa.addi %171, %148 : tensor<64xi32>
      %173 = nv_tileaa.expand_dims %172 {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %174 = "nv_tileaa.permute"(%168) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %175 = nv_tileaa.dot %138, %174, %149 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %176 = nv_tileaa.mulf %175, %151 : tensor<64x64xf32>
      %177 = nv_tileaa.cmpi "slt", %173, %153 : tensor<1x64xi32> -> tensor<1x64xi1>
      %178 = nv_tileaa.broadcast %177 : tensor<1x64xi1> -> tensor<64x64xi1>
      %179 = nv_tileaa.select %178, %176, %156 : tensor<64x64xi1>, tensor<64x64xf32>
      %180 = "nv_tileaa.reduce"(%179) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%181: f32, %182: f32):
        %183 = nv_tileaa.maxf %181, %182 : f32
        "nv_tileaa.yield"(%183) : (f32) -> ()
      }) : (tensor<64x64xf32>) -> tensor<64xf32>
      %184 = nv_tileaa.expand_dims %180 {dim = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
      %185 = nv_tileaa.maxf %165, %184 : tensor<64x1xf32>
      %186 = nv_tileaa.broadcast %185 : tensor<64x1xf32> -> tensor<64x64xf32>
      %187 = nv_tileaa.subf %179, %186 : tensor<64x64xf32>
      %188 = nv_tileaa.exp2 %187 : tensor<64x64xf32>
      %189 = nv_tileaa.subf %165, %185 : tensor<64x1xf32>
      %190 = nv_tileaa.exp2 %189 : tensor<64x1xf32>
      %191 = "nv_tileaa.reduce"(%188) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%192: f32, %193: f32):
        %194 = nv_tileaa.addf %192, %193 : f32
        "nv_tileaa.yield"(%194) : (f32) -> ()
      }) : (tensor<64x64xf32>) -> tensor<64xf32>
      %195 = nv_tileaa.expand_dims %191 {dim = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
      %196 = nv_tileaa.fma %164, %190, %195 : tensor<64x1xf32>
      %197, %198 = nv_tileaa.tiled_load %158[%73, %162, %157] token %32 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
      %199 = nv_tileaa.reshape %197 : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %200 = nv_tileaa.fp_to_fp %188 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %201 = nv_tileaa.broadcast %190 : tensor<64x1xf32> -> tensor<64x64xf32>
      %202 = nv_tileaa.mulf %163, %201 : tensor<64x64xf32>
      %203 = nv_tileaa.dot %200, %199, %202 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %203, %196, %185 : tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>
    }
    %204 = nv_tileaa.expand_dims %89 {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %205 = nv_tileaa.broadcast %160 : tensor<64x1xf32> -> tensor<64x64xf32>
    %206 = nv_tileaa.divf %159, %205 : tensor<64x64xf32>
    %207 = nv_tileaa.fp_to_fp %206 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %208 = nv_tileaa.extsi %204 : tensor<64x1xi32> -> tensor<64x1xi64>
    %209 = nv_tileaa.broadcast %208 : tensor<64x1xi64> -> tensor<64x64xi64>
    %210 = arith.extsi %62 : i32 to i64
    %211 = nv_tileaa.splat %210 : i64 -> tensor<1x1xi64>
    %212 = nv_tileaa.broadcast %211 : tensor<1x1xi64> -> tensor<64x64xi64>
    %213 = nv_tileaa.cmpi "ult", %209, %212 : tensor<64x64xi64> -> tensor<64x64xi1>
    %214 = arith.extsi %65 : i32 to i64
    %215 = nv_tileaa.splat %214 : i64 -> tensor<1x1xi64>
    %216 = nv_tileaa.broadcast %215 : tensor<1x1xi64> -> tensor<64x64xi64>
    %217 = nv_tileaa.muli %209, %216 : tensor<64x64xi64>
    %218 = arith.extsi %73 : i32 to i64
    %219 = nv_tileaa.splat %218 : i64 -> tensor<1x1xi64>
    %220 = nv_tileaa.broadcast %219 : tensor<1x1xi64> -> tensor<64x64xi64>
    %221 = arith.extsi %63 : i32 to i64
    %222 = nv_tileaa.splat %221 : i64 -> tensor<1x1xi64>
    %223 = nv_tileaa.broadcast %222 : tensor<1x1xi64> -> tensor<64x64xi64>
    %224 = nv_tileaa.cmpi "ult", %220, %223 : tensor<64x64xi64> -> tensor<64x64xi1>
    %225 = arith.andi %213, %224 : tensor<64x64xi1>
    %226 = arith.extsi %66 : i32 to i64
    %227 = nv_tileaa.splat %226 : i64 -> tensor<1x1xi64>
    %228 = nv_tileaa.broadcast %227 : tensor<1x1xi64> -> tensor<64x64xi64>
    %229 = nv_tileaa.muli %220, %228 : tensor<64x64xi64>
    %230 = nv_tileaa.addi %217, %229 : tensor<64x64xi64>
    %231 = nv_tileaa.extsi %92 : tensor<1x64xi32> -> tensor<1x64xi64>
    %232 = nv_tileaa.broadcast %231 : tensor<1x64xi64> -> tensor<64x64xi64>
    %233 = arith.extsi %64 : i32 to i64
    %234 = nv_tileaa.splat %233 : i64 -> tensor<1x1xi64>
    %235 = nv_tileaa.broadcast %234 : tensor<1x1xi64> -> tensor<64x64xi64>
    %236 = nv_tileaa.cmpi "ult", %232, %235 : tensor<64x64xi64> -> tensor<64x64xi1>
    %237 = arith.andi %225, %236 : tensor<64x64xi1>
    %238 = nv_tileaa.muli %232, %43 : tensor<64x64xi64>
    %239 = nv_tileaa.addi %230, %238 : tensor<64x64xi64>
    %240 = nv_tileaa.splat %37 : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
    %241 = nv_tileaa.broadcast %240 : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
    %242 = nv_tileaa.offset %241, %239 : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
    %243 = nv_tileaa.broadcast %96 : tensor<64x1xi1> -> tensor<64x64xi1>
    %244 = arith.andi %237, %243 : tensor<64x64xi1>
    %245 = nv_tileaa.store %207, %242 mask %244 : tensor<64x64xi1> token %32 : tensor<64x64xf16>, tensor<64x64x!nv_tileaa.ptr<f16>>
    %dup245 = nv_tileaa.store %207, %242 mask %244 : tensor<64x64xi1> token %32 : tensor<64x64xf16>, tensor<64x64x!nv_tileaa.ptr<f16>>
    nv_tileaa.return
  }
}
