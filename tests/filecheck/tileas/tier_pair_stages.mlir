// RUN: env TILEORCH_PAIR_STAGES=0 tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=WHOLE
// RUN: env TILEORCH_PAIR_STAGES=1 tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=PS
// cover27's three_operand_pairs (acc = x1 @ w1 + x2 @ w2 + x3 @ w3, 128 x 64 x 64 f16 tiles, f32 out) as cuTile
// exports it.  By default a stage holds all three pairs' A and B tiles: one acquire and one commit of
// 3 x (128 + 64) x 64 x 2 = 73728 bytes per K tile, 2 stages.  With TILEORCH_PAIR_STAGES=1 a stage holds one pair's
// (128 + 64) x 64 x 2 = 24576 bytes: the producer acquires and commits three stages per K tile, the consumers wait
// on each, run its pair's WGMMAs and release the previous stage (a K step's first stage releases the previous K
// step's last, except in the first K step), on 2 x 3 = 6 stages (the name's _s6 and _ps).
// WHOLE: func.func @gemm_f16_f32_bn_128x64x64_s2_{{[a-z0-9_]*}}_a3_acc1(
// WHOLE: scf.for %kt = %kbeg to %kend
// WHOLE-NEXT: cutlass.pipeline.producer_acquire %ready, %st
// WHOLE: cutlass.pipeline.producer_commit %ready, %st {transaction_bytes = 73728 : i32}
// WHOLE-NOT: cutlass.pipeline.producer_acquire
// WHOLE: scf.yield
// PS: func.func @gemm_f16_f32_bn_128x64x64_s6_{{[a-z0-9_]*}}_a3_acc1_ps(
// PS: scf.for %kt = %kbeg to %kend
// PS-NEXT: cutlass.pipeline.producer_acquire %ready, %st
// PS: cutlass.pipeline.producer_commit %ready, %st {transaction_bytes = 24576 : i32}
// PS: [[P1:%[0-9]+]] = cutlass.pipeline.state.increment %st
// PS-NEXT: cutlass.pipeline.producer_acquire %ready, [[P1]]
// PS: cutlass.pipeline.producer_commit %ready, [[P1]] {transaction_bytes = 24576 : i32}
// PS: [[P2:%[0-9]+]] = cutlass.pipeline.state.increment [[P1]]
// PS-NEXT: cutlass.pipeline.producer_acquire %ready, [[P2]]
// PS: cutlass.pipeline.producer_commit %ready, [[P2]] {transaction_bytes = 24576 : i32}
// PS: [[P3:%[0-9]+]] = cutlass.pipeline.state.increment [[P2]]
// PS-NEXT: scf.yield [[P3]]
// PS: scf.for %kt_1 = %kbeg_1 to %kend_1
// PS-NEXT: cutlass.pipeline.consumer_wait %ready, %st_1
// PS: cutlass.pipeline.consumer_release %ready, %prev {cutlass.reads_retired}
// PS: [[C1:%[0-9]+]] = cutlass.pipeline.state.increment %st_1
// PS-NEXT: cutlass.pipeline.consumer_wait %ready, [[C1]]
// PS: cutlass.pipeline.consumer_release %ready, %st_1 {cutlass.reads_retired}
// PS: [[C2:%[0-9]+]] = cutlass.pipeline.state.increment [[C1]]
// PS-NEXT: cutlass.pipeline.consumer_wait %ready, [[C2]]
// PS: cutlass.pipeline.consumer_release %ready, [[C1]] {cutlass.reads_retired}
builtin.module {
  cuda_tile.module @kernels {
    entry @three_operand_pairs_Kt1_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f32_1l0_2t1_p16_I128_I64_I64(%0: tile<ptr<f16>>, %1: tile<i32>, %2: tile<i32>, %3: tile<i32>, %4: tile<i32>, %5: tile<ptr<f16>>, %6: tile<i32>, %7: tile<i32>, %8: tile<i32>, %9: tile<i32>, %10: tile<ptr<f16>>, %11: tile<i32>, %12: tile<i32>, %13: tile<i32>, %14: tile<i32>, %15: tile<ptr<f16>>, %16: tile<i32>, %17: tile<i32>, %18: tile<i32>, %19: tile<i32>, %20: tile<ptr<f16>>, %21: tile<i32>, %22: tile<i32>, %23: tile<i32>, %24: tile<i32>, %25: tile<ptr<f16>>, %26: tile<i32>, %27: tile<i32>, %28: tile<i32>, %29: tile<i32>, %30: tile<ptr<f32>>, %31: tile<i32>, %32: tile<i32>, %33: tile<i32>, %34: tile<i32>) optimization_hints=<default = {}> {
      %35 = make_token : token
      %36 = assume div_by<16>, %0 : tile<ptr<f16>>
      %37 = assume div_by<16>, %5 : tile<ptr<f16>>
      %38 = assume div_by<16>, %10 : tile<ptr<f16>>
      %39 = assume div_by<16>, %15 : tile<ptr<f16>>
      %40 = assume div_by<16>, %20 : tile<ptr<f16>>
      %41 = assume div_by<16>, %25 : tile<ptr<f16>>
      %42 = assume div_by<16>, %30 : tile<ptr<f32>>
      %43 = constant <i32: 1> : tile<i32>
      %44 = constant <i32: 1> : tile<i32>
      %45 = constant <i32: 1> : tile<i32>
      %46 = constant <i32: 1> : tile<i32>
      %47 = constant <i32: 1> : tile<i32>
      %48 = constant <i32: 1> : tile<i32>
      %49 = constant <i32: 1> : tile<i32>
      %50 = assume bounded<0, ?>, %1 : tile<i32>
      %51 = assume bounded<0, ?>, %2 : tile<i32>
      %52 = assume bounded<0, ?>, %3 : tile<i32>
      %53 = make_tensor_view %36, shape = [%50, %51], strides = [%52, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
      %54 = assume bounded<0, ?>, %6 : tile<i32>
      %55 = assume bounded<0, ?>, %7 : tile<i32>
      %56 = assume bounded<0, ?>, %8 : tile<i32>
      %57 = make_tensor_view %37, shape = [%54, %55], strides = [%56, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
      %58 = assume bounded<0, ?>, %11 : tile<i32>
      %59 = assume bounded<0, ?>, %12 : tile<i32>
      %60 = assume bounded<0, ?>, %13 : tile<i32>
      %61 = make_tensor_view %38, shape = [%58, %59], strides = [%60, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
      %62 = assume bounded<0, ?>, %16 : tile<i32>
      %63 = assume bounded<0, ?>, %17 : tile<i32>
      %64 = assume bounded<0, ?>, %18 : tile<i32>
      %65 = make_tensor_view %39, shape = [%62, %63], strides = [%64, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
      %66 = assume bounded<0, ?>, %21 : tile<i32>
      %67 = assume bounded<0, ?>, %22 : tile<i32>
      %68 = assume bounded<0, ?>, %23 : tile<i32>
      %69 = make_tensor_view %40, shape = [%66, %67], strides = [%68, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
      %70 = assume bounded<0, ?>, %26 : tile<i32>
      %71 = assume bounded<0, ?>, %27 : tile<i32>
      %72 = assume bounded<0, ?>, %28 : tile<i32>
      %73 = make_tensor_view %41, shape = [%70, %71], strides = [%72, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
      %74 = assume bounded<0, ?>, %31 : tile<i32>
      %75 = assume bounded<0, ?>, %32 : tile<i32>
      %76 = assume bounded<0, ?>, %33 : tile<i32>
      %77 = make_tensor_view %42, shape = [%74, %75], strides = [%76, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
      %78 = constant <i32: 64> : tile<i32>
      %79, %80, %81 = get_tile_block_id : tile<i32>
      %82, %83, %84 = get_tile_block_id : tile<i32>
      %85 = constant <f32: 0.000000e+00> : tile<128x64xf32>
      %86 = divi %51, %78 signed rounding<positive_inf> : tile<i32>
      %87 = constant <i32: 0> : tile<i32>
      %88 = constant <i32: 1> : tile<i32>
      %89 = make_partition_view %53 : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %90 = make_partition_view %57 : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %91 = make_partition_view %61 : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %92 = make_partition_view %65 : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %93 = make_partition_view %69 : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %94 = make_partition_view %73 : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %95 = for %96 in (%87 to %86, step %88) : tile<i32> iter_values(%97 = %85) -> (tile<128x64xf32>) {
        %98, %99 = load_view_tko weak %89[%79, %96] token = %35 : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
        %100, %101 = load_view_tko weak %90[%96, %83] token = %35 : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
        %102 = mmaf %98, %100, %97 : tile<128x64xf16>, tile<64x64xf16>, tile<128x64xf32>
        %103, %104 = load_view_tko weak %91[%79, %96] token = %35 : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
        %105, %106 = load_view_tko weak %92[%96, %83] token = %35 : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
        %107 = mmaf %103, %105, %102 : tile<128x64xf16>, tile<64x64xf16>, tile<128x64xf32>
        %108, %109 = load_view_tko weak %93[%79, %96] token = %35 : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
        %110, %111 = load_view_tko weak %94[%96, %83] token = %35 : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
        %112 = mmaf %108, %110, %107 : tile<128x64xf16>, tile<64x64xf16>, tile<128x64xf32>
        continue %112 : tile<128x64xf32>
      }
      %113 = make_partition_view %77 : partition_view<tile=(128x64), tensor_view<?x?xf32, strides=[?,1]>>
      %114 = store_view_tko weak %95, %113[%79, %83] token = %35 : tile<128x64xf32>, partition_view<tile=(128x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
      return
    }
  }
}