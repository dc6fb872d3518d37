// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// User sweep 32's attn_f16_scores_bf16_pv (tileorch.testing.user_programs32) as cuTile exports it: Q and K f16, V
// bf16, the probabilities cast to bf16 for the second dot.  Until session 40 the chained tier refused it ("all dot
// operands must have the same element type"); each dot now has its own 16-bit type: the first dot's WGMMAs read f16
// Q / K from shared memory, P is rounded to bf16 in registers (cvt.rn.bf16x2.f32) and the second dot's register-A
// WGMMAs are .bf16.bf16; the kernel is named for both types, the record holds dtype2 and a remark at the second dot
// says so.
// CHECK:      func.func @chained_dots_64x64x64_64_f16_bf16(
// CHECK-SAME: dtype = "f16"
// CHECK-SAME: dtype2 = "bf16"
// CHECK-SAME: remark: chained-dots tier: the first dot multiplies f16 tiles, this dot bf16 ones (P rounded to bf16 in registers, wgmma ...f32.bf16.bf16)
// CHECK:      nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK:      cvt.rn.bf16x2.f32
// CHECK:      wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-NOT:  m64n64k16.f32.f16.f16
// CHECK-NOT:  cvt.rn.f16x2.f32
builtin.module {
  cuda_tile.module @kernels {
    entry @attn_f16_scores_bf16_pv_Kt1_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_A3bf16_3l0_4t1_p16_A3f32_3l0_4t1_p16_Sf32_I64_I64_I64(%0: tile<ptr<f16>>, %1: tile<i32>, %2: tile<i32>, %3: tile<i32>, %4: tile<i32>, %5: tile<i32>, %6: tile<i32>, %7: tile<ptr<f16>>, %8: tile<i32>, %9: tile<i32>, %10: tile<i32>, %11: tile<i32>, %12: tile<i32>, %13: tile<i32>, %14: tile<ptr<bf16>>, %15: tile<i32>, %16: tile<i32>, %17: tile<i32>, %18: tile<i32>, %19: tile<i32>, %20: tile<i32>, %21: tile<ptr<f32>>, %22: tile<i32>, %23: tile<i32>, %24: tile<i32>, %25: tile<i32>, %26: tile<i32>, %27: tile<i32>, %28: tile<f32>) optimization_hints=<default = {}> {
      %29 = make_token : token
      %30 = assume div_by<16>, %0 : tile<ptr<f16>>
      %31 = assume div_by<16>, %7 : tile<ptr<f16>>
      %32 = assume div_by<16>, %14 : tile<ptr<bf16>>
      %33 = assume div_by<16>, %21 : tile<ptr<f32>>
      %34 = constant <i32: 1> : tile<i32>
      %35 = constant <i32: 1> : tile<i32>
      %36 = constant <i32: 1> : tile<i32>
      %37 = constant <i32: 1> : tile<i32>
      %38 = assume bounded<0, ?>, %1 : tile<i32>
      %39 = assume bounded<0, ?>, %2 : tile<i32>
      %40 = assume bounded<0, ?>, %3 : tile<i32>
      %41 = assume bounded<0, ?>, %4 : tile<i32>
      %42 = assume bounded<0, ?>, %5 : tile<i32>
      %43 = make_tensor_view %30, shape = [%38, %39, %40], strides = [%41, %42, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
      %44 = assume bounded<0, ?>, %8 : tile<i32>
      %45 = assume bounded<0, ?>, %9 : tile<i32>
      %46 = assume bounded<0, ?>, %10 : tile<i32>
      %47 = assume bounded<0, ?>, %11 : tile<i32>
      %48 = assume bounded<0, ?>, %12 : tile<i32>
      %49 = make_tensor_view %31, shape = [%44, %45, %46], strides = [%47, %48, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
      %50 = assume bounded<0, ?>, %15 : tile<i32>
      %51 = assume bounded<0, ?>, %16 : tile<i32>
      %52 = assume bounded<0, ?>, %17 : tile<i32>
      %53 = assume bounded<0, ?>, %18 : tile<i32>
      %54 = assume bounded<0, ?>, %19 : tile<i32>
      %55 = make_tensor_view %32, shape = [%50, %51, %52], strides = [%53, %54, 1] : tile<i32> -> tensor_view<?x?x?xbf16, strides=[?,?,1]>
      %56 = assume bounded<0, ?>, %22 : tile<i32>
      %57 = assume bounded<0, ?>, %23 : tile<i32>
      %58 = assume bounded<0, ?>, %24 : tile<i32>
      %59 = assume bounded<0, ?>, %25 : tile<i32>
      %60 = assume bounded<0, ?>, %26 : tile<i32>
      %61 = make_tensor_view %33, shape = [%56, %57, %58], strides = [%59, %60, 1] : tile<i32> -> tensor_view<?x?x?xf32, strides=[?,?,1]>
      %62 = constant <i32: 64> : tile<i32>
      %63, %64, %65 = get_tile_block_id : tile<i32>
      %66, %67, %68 = get_tile_block_id : tile<i32>
      %69 = constant <i32: 0> : tile<i32>
      %70 = make_partition_view %43 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %71, %72 = load_view_tko weak %70[%67, %63, %69] token = %29 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
      %73 = reshape %71 : tile<1x64x64xf16> -> tile<64x64xf16>
      %74 = constant <f32: 0xFF800000> : tile<64x1xf32>
      %75 = constant <f32: 0.000000e+00> : tile<64x1xf32>
      %76 = constant <f32: 0.000000e+00> : tile<64x64xf32>
      %77 = divi %45, %62 signed rounding<positive_inf> : tile<i32>
      %78 = constant <i32: 0> : tile<i32>
      %79 = constant <i32: 1> : tile<i32>
      %80 = constant <i32: 0> : tile<i32>
      %81 = make_partition_view %49 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
      %82 = constant <f32: 0.000000e+00> : tile<64x64xf32>
      %83 = reshape %28 : tile<f32> -> tile<1x1xf32>
      %84 = broadcast %83 : tile<1x1xf32> -> tile<64x64xf32>
      %85 = iota : tile<64xi32>
      %86 = reshape %45 : tile<i32> -> tile<1x1xi32>
      %87 = broadcast %86 : tile<1x1xi32> -> tile<1x64xi32>
      %88 = constant <f32: 0xFF800000> : tile<f32>
      %89 = reshape %88 : tile<f32> -> tile<1x1xf32>
      %90 = broadcast %89 : tile<1x1xf32> -> tile<64x64xf32>
      %91 = constant <i32: 0> : tile<i32>
      %92 = make_partition_view %55 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xbf16, strides=[?,?,1]>>
      %93:3 = for %94 in (%78 to %77, step %79) : tile<i32> iter_values(%95 = %76, %96 = %75, %97 = %74) -> (tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>) {
        %98, %99 = load_view_tko weak %81[%67, %94, %80] token = %29 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
        %100 = reshape %98 : tile<1x64x64xf16> -> tile<64x64xf16>
        %101 = permute %100 [1, 0] : tile<64x64xf16> -> tile<64x64xf16>
        %102 = mmaf %73, %101, %82 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
        %103 = mulf %102, %84  : tile<64x64xf32>
        %104 = muli %94, %62 : tile<i32>
        %105 = reshape %104 : tile<i32> -> tile<1xi32>
        %106 = broadcast %105 : tile<1xi32> -> tile<64xi32>
        %107 = addi %106, %85 : tile<64xi32>
        %108 = reshape %107 : tile<64xi32> -> tile<1x64xi32>
        %109 = cmpi less_than %108, %87, signed : tile<1x64xi32> -> tile<1x64xi1>
        %110 = broadcast %109 : tile<1x64xi1> -> tile<64x64xi1>
        %111 = select %110, %103, %90 : tile<64x64xi1>, tile<64x64xf32>
        %112 = reduce %111 dim=1 identities=[0xff800000 : f32] : tile<64x64xf32> -> tile<64xf32> 
        (%113: tile<f32>, %114: tile<f32>) {
          %115 = maxf %113, %114 : tile<f32>
          yield %115 : tile<f32>
        }
        %116 = reshape %112 : tile<64xf32> -> tile<64x1xf32>
        %117 = maxf %97, %116 : tile<64x1xf32>
        %118 = broadcast %117 : tile<64x1xf32> -> tile<64x64xf32>
        %119 = subf %111, %118  : tile<64x64xf32>
        %120 = exp2 %119 : tile<64x64xf32>
        %121 = subf %97, %117  : tile<64x1xf32>
        %122 = exp2 %121 : tile<64x1xf32>
        %123 = reduce %120 dim=1 identities=[0.000000e+00 : f32] : tile<64x64xf32> -> tile<64xf32> 
        (%124: tile<f32>, %125: tile<f32>) {
          %126 = addf %124, %125  : tile<f32>
          yield %126 : tile<f32>
        }
        %127 = reshape %123 : tile<64xf32> -> tile<64x1xf32>
        %128 = fma %96, %122, %127  : tile<64x1xf32>
        %129, %130 = load_view_tko weak %92[%67, %94, %91] token = %29 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xbf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xbf16>, token
        %131 = reshape %129 : tile<1x64x64xbf16> -> tile<64x64xbf16>
        %132 = ftof %120  : tile<64x64xf32> -> tile<64x64xbf16>
        %133 = broadcast %122 : tile<64x1xf32> -> tile<64x64xf32>
        %134 = mulf %95, %133  : tile<64x64xf32>
        %135 = mmaf %132, %131, %134 : tile<64x64xbf16>, tile<64x64xbf16>, tile<64x64xf32>
        continue %135, %128, %117 : tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>
      }
      %136 = constant <i32: 0> : tile<i32>
      %137 = broadcast %93#1 : tile<64x1xf32> -> tile<64x64xf32>
      %138 = divf %93#0, %137  : tile<64x64xf32>
      %139 = reshape %138 : tile<64x64xf32> -> tile<1x64x64xf32>
      %140 = make_partition_view %61 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf32, strides=[?,?,1]>>
      %141 = store_view_tko weak %139, %140[%67, %63, %136] token = %29 : tile<1x64x64xf32>, partition_view<tile=(1x64x64), tensor_view<?x?x?xf32, strides=[?,?,1]>>, tile<i32> -> token
      return
    }
  }
}
