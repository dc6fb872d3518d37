// RUN: env TILEORCH_ATTN_STACK_HEADS=0 TILEORCH_ATTN_CTAS_PER_SM=1 tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=ONE
// RUN: env TILEORCH_ATTN_STACK_HEADS=0 TILEORCH_ATTN_CTAS_PER_SM=2 tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=TWO
// RUN: env TILEORCH_ATTN_STACK_HEADS=0 TILEORCH_ATTN_CTAS_PER_SM=2 tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// cover26's attn_gqa_heads_loop (GQA: each program loops over the G query heads of its KV head, 64 x 64 tiles,
// head dim 64) as cuTile exports it: the chained tier's persistent kernel of one consumer warp group (256 threads).
// By default one CTA per SM: .minnctapersm 1, the consumer's setmaxnreg 240.  With TILEORCH_ATTN_CTAS_PER_SM=2 two
// resident CTAs: .minnctapersm 2 (256 threads start with 65536 / 512 = 128 registers each), the producer at 24 and
// the consumer at 2 x 128 - 24 = 232, the record's ctas_per_sm for the launcher and the choice's remark.
// (TILEORCH_ATTN_STACK_HEADS=0: the heads loop as written; by default its two heads run as one 128-row chain.)
// ONE: func.func @chained_dots_64x64x64_64_f16(
// ONE-SAME: nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 1 : i32
// ONE-NOT: ctas_per_sm
// ONE: nvvm.setmaxregister decrease 24
// ONE: nvvm.setmaxregister increase 240
// TWO: func.func @chained_dots_64x64x64_64_f16(
// TWO-SAME: nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32
// TWO-SAME: persistent = {ctas_per_sm = 2 : i64
// TWO-SAME: remark: two CTAs per SM (TILEORCH_ATTN_CTAS_PER_SM=2)
// TWO: nvvm.setmaxregister decrease 24
// TWO: nvvm.setmaxregister increase 232
builtin.module {
  cuda_tile.module @kernels {
    entry @attn_gqa_heads_loop_Kt1_A4f16_7l0_8t1_p16_A4f16_7l0_8t1_p16_A4f16_7l0_8t1_p16_A4f16_7l0_8t1_p16_Sf32_I2_I64_I64_I64(%0: tile<ptr<f16>>, %1: tile<i32>, %2: tile<i32>, %3: tile<i32>, %4: tile<i32>, %5: tile<i32>, %6: tile<i32>, %7: tile<i32>, %8: tile<i32>, %9: tile<ptr<f16>>, %10: tile<i32>, %11: tile<i32>, %12: tile<i32>, %13: tile<i32>, %14: tile<i32>, %15: tile<i32>, %16: tile<i32>, %17: tile<i32>, %18: tile<ptr<f16>>, %19: tile<i32>, %20: tile<i32>, %21: tile<i32>, %22: tile<i32>, %23: tile<i32>, %24: tile<i32>, %25: tile<i32>, %26: tile<i32>, %27: tile<ptr<f16>>, %28: tile<i32>, %29: tile<i32>, %30: tile<i32>, %31: tile<i32>, %32: tile<i32>, %33: tile<i32>, %34: tile<i32>, %35: tile<i32>, %36: tile<f32>) optimization_hints=<default = {}> {
      %37 = make_token : token
      %38 = assume div_by<16>, %0 : tile<ptr<f16>>
      %39 = assume div_by<16>, %9 : tile<ptr<f16>>
      %40 = assume div_by<16>, %18 : tile<ptr<f16>>
      %41 = assume div_by<16>, %27 : tile<ptr<f16>>
      %42 = constant <i32: 1> : tile<i32>
      %43 = constant <i32: 1> : tile<i32>
      %44 = constant <i32: 1> : tile<i32>
      %45 = constant <i32: 1> : tile<i32>
      %46 = assume bounded<0, ?>, %1 : tile<i32>
      %47 = assume bounded<0, ?>, %2 : tile<i32>
      %48 = assume bounded<0, ?>, %3 : tile<i32>
      %49 = assume bounded<0, ?>, %4 : tile<i32>
      %50 = assume bounded<0, ?>, %5 : tile<i32>
      %51 = assume bounded<0, ?>, %6 : tile<i32>
      %52 = assume bounded<0, ?>, %7 : tile<i32>
      %53 = make_tensor_view %38, shape = [%46, %47, %48, %49], strides = [%50, %51, %52, 1] : tile<i32> -> tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>
      %54 = assume bounded<0, ?>, %10 : tile<i32>
      %55 = assume bounded<0, ?>, %11 : tile<i32>
      %56 = assume bounded<0, ?>, %12 : tile<i32>
      %57 = assume bounded<0, ?>, %13 : tile<i32>
      %58 = assume bounded<0, ?>, %14 : tile<i32>
      %59 = assume bounded<0, ?>, %15 : tile<i32>
      %60 = assume bounded<0, ?>, %16 : tile<i32>
      %61 = make_tensor_view %39, shape = [%54, %55, %56, %57], strides = [%58, %59, %60, 1] : tile<i32> -> tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>
      %62 = assume bounded<0, ?>, %19 : tile<i32>
      %63 = assume bounded<0, ?>, %20 : tile<i32>
      %64 = assume bounded<0, ?>, %21 : tile<i32>
      %65 = assume bounded<0, ?>, %22 : tile<i32>
      %66 = assume bounded<0, ?>, %23 : tile<i32>
      %67 = assume bounded<0, ?>, %24 : tile<i32>
      %68 = assume bounded<0, ?>, %25 : tile<i32>
      %69 = make_tensor_view %40, shape = [%62, %63, %64, %65], strides = [%66, %67, %68, 1] : tile<i32> -> tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>
      %70 = assume bounded<0, ?>, %28 : tile<i32>
      %71 = assume bounded<0, ?>, %29 : tile<i32>
      %72 = assume bounded<0, ?>, %30 : tile<i32>
      %73 = assume bounded<0, ?>, %31 : tile<i32>
      %74 = assume bounded<0, ?>, %32 : tile<i32>
      %75 = assume bounded<0, ?>, %33 : tile<i32>
      %76 = assume bounded<0, ?>, %34 : tile<i32>
      %77 = make_tensor_view %41, shape = [%70, %71, %72, %73], strides = [%74, %75, %76, 1] : tile<i32> -> tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>
      %78 = constant <i32: 2> : tile<i32>
      %79 = constant <i32: 64> : tile<i32>
      %80, %81, %82 = get_tile_block_id : tile<i32>
      %83, %84, %85 = get_tile_block_id : tile<i32>
      %86 = divi %84, %55 signed rounding<negative_inf> : tile<i32>
      %87 = remi %84, %55 signed : tile<i32>
      %88 = constant <i32: 0> : tile<i32>
      %89 = cmpi less_than %87, %88, signed : tile<i32> -> tile<i1>
      %90 = cmpi less_than %55, %88, signed : tile<i32> -> tile<i1>
      %91 = xori %89, %90 : tile<i1>
      %92 = cmpi not_equal %87, %88, signed : tile<i32> -> tile<i1>
      %93 = andi %91, %92 : tile<i1>
      %94 = addi %87, %55 : tile<i32>
      %95 = select %93, %94, %87 : tile<i1>, tile<i32>
      %96 = constant <i32: 0> : tile<i32>
      %97 = constant <i32: 1> : tile<i32>
      %98 = muli %95, %78 : tile<i32>
      %99 = constant <i32: 0> : tile<i32>
      %100 = make_partition_view %53 : partition_view<tile=(1x1x64x64), padding_value = zero, tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>
      %101 = constant <f32: -1.000000e+30> : tile<64x1xf32>
      %102 = constant <f32: 0.000000e+00> : tile<64x1xf32>
      %103 = constant <f32: 0.000000e+00> : tile<64x64xf32>
      %104 = divi %56, %79 signed rounding<positive_inf> : tile<i32>
      %105 = constant <i32: 0> : tile<i32>
      %106 = constant <i32: 1> : tile<i32>
      %107 = constant <i32: 0> : tile<i32>
      %108 = make_partition_view %61 : partition_view<tile=(1x1x64x64), padding_value = zero, tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>
      %109 = constant <f32: 0.000000e+00> : tile<64x64xf32>
      %110 = reshape %36 : tile<f32> -> tile<1x1xf32>
      %111 = broadcast %110 : tile<1x1xf32> -> tile<64x64xf32>
      %112 = iota : tile<64xi32>
      %113 = reshape %56 : tile<i32> -> tile<1x1xi32>
      %114 = broadcast %113 : tile<1x1xi32> -> tile<1x64xi32>
      %115 = constant <f32: -1.000000e+30> : tile<f32>
      %116 = reshape %115 : tile<f32> -> tile<1x1xf32>
      %117 = broadcast %116 : tile<1x1xf32> -> tile<64x64xf32>
      %118 = constant <i32: 0> : tile<i32>
      %119 = make_partition_view %69 : partition_view<tile=(1x1x64x64), padding_value = zero, tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>
      %120 = constant <i32: 0> : tile<i32>
      %121 = make_partition_view %77 : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>
      %122 = for %123 in (%96 to %78, step %97) : tile<i32> iter_values(%124 = %37) -> (token) {
        %125 = addi %98, %123 : tile<i32>
        %126, %127 = load_view_tko weak %100[%86, %125, %80, %99] token = %37 : partition_view<tile=(1x1x64x64), padding_value = zero, tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>, tile<i32> -> tile<1x1x64x64xf16>, token
        %128 = reshape %126 : tile<1x1x64x64xf16> -> tile<64x64xf16>
        %129:3 = for %130 in (%105 to %104, step %106) : tile<i32> iter_values(%131 = %103, %132 = %102, %133 = %101) -> (tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>) {
          %134, %135 = load_view_tko weak %108[%86, %95, %130, %107] token = %37 : partition_view<tile=(1x1x64x64), padding_value = zero, tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>, tile<i32> -> tile<1x1x64x64xf16>, token
          %136 = reshape %134 : tile<1x1x64x64xf16> -> tile<64x64xf16>
          %137 = permute %136 [1, 0] : tile<64x64xf16> -> tile<64x64xf16>
          %138 = mmaf %128, %137, %109 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
          %139 = mulf %138, %111  : tile<64x64xf32>
          %140 = muli %130, %79 : tile<i32>
          %141 = reshape %140 : tile<i32> -> tile<1xi32>
          %142 = broadcast %141 : tile<1xi32> -> tile<64xi32>
          %143 = addi %142, %112 : tile<64xi32>
          %144 = reshape %143 : tile<64xi32> -> tile<1x64xi32>
          %145 = cmpi less_than %144, %114, signed : tile<1x64xi32> -> tile<1x64xi1>
          %146 = broadcast %145 : tile<1x64xi1> -> tile<64x64xi1>
          %147 = select %146, %139, %117 : tile<64x64xi1>, tile<64x64xf32>
          %148 = reduce %147 dim=1 identities=[0xff800000 : f32] : tile<64x64xf32> -> tile<64xf32> 
          (%149: tile<f32>, %150: tile<f32>) {
            %151 = maxf %149, %150 : tile<f32>
            yield %151 : tile<f32>
          }
          %152 = reshape %148 : tile<64xf32> -> tile<64x1xf32>
          %153 = maxf %133, %152 : tile<64x1xf32>
          %154 = broadcast %153 : tile<64x1xf32> -> tile<64x64xf32>
          %155 = subf %147, %154  : tile<64x64xf32>
          %156 = exp2 %155 : tile<64x64xf32>
          %157 = subf %133, %153  : tile<64x1xf32>
          %158 = exp2 %157 : tile<64x1xf32>
          %159 = reduce %156 dim=1 identities=[0.000000e+00 : f32] : tile<64x64xf32> -> tile<64xf32> 
          (%160: tile<f32>, %161: tile<f32>) {
            %162 = addf %160, %161  : tile<f32>
            yield %162 : tile<f32>
          }
          %163 = reshape %159 : tile<64xf32> -> tile<64x1xf32>
          %164 = fma %132, %158, %163  : tile<64x1xf32>
          %165, %166 = load_view_tko weak %119[%86, %95, %130, %118] token = %37 : partition_view<tile=(1x1x64x64), padding_value = zero, tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>, tile<i32> -> tile<1x1x64x64xf16>, token
          %167 = reshape %165 : tile<1x1x64x64xf16> -> tile<64x64xf16>
          %168 = ftof %156  : tile<64x64xf32> -> tile<64x64xf16>
          %169 = broadcast %158 : tile<64x1xf32> -> tile<64x64xf32>
          %170 = mulf %131, %169  : tile<64x64xf32>
          %171 = mmaf %168, %167, %170 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
          continue %171, %164, %153 : tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>
        }
        %172 = broadcast %129#1 : tile<64x1xf32> -> tile<64x64xf32>
        %173 = divf %129#0, %172  : tile<64x64xf32>
        %174 = ftof %173  : tile<64x64xf32> -> tile<64x64xf16>
        %175 = reshape %174 : tile<64x64xf16> -> tile<1x1x64x64xf16>
        %176 = store_view_tko weak %175, %121[%86, %125, %80, %120] token = %124 : tile<1x1x64x64xf16>, partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>, tile<i32> -> token
        continue %176 : token
      }
      return
    }
  }
}