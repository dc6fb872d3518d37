// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=P1
// RUN: env TILEORCH_FP8_PROMOTE_INTERVAL=3 tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=P3
// RUN: env TILEORCH_FP8_PROMOTE_INTERVAL=0 tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=OFF
// fp8_promotion_programs' fp8_long_k_f32_out (e4m3 x e4m3 -> f32, 128x128x128 tiles, B given [N, K]) as cuTile
// exports it.  Two-level accumulation (transforms/tileas/fp8_promotion.py, default TILEORCH_FP8_PROMOTE_INTERVAL=1):
// the consumer's K loop runs in blocks of P K tiles (%kb, step %promote_every = P).  A block's first K step starts
// the scratch accumulator anew: its first WGMMA has scale-d zero and no accumulator operand (nothing zeroed), the
// other three chain on it (%part_first); for P > 1 a K loop from %kb_next = kb + 1 to %kb_end = min(kb + P, kend)
// accumulates the block's other K tiles into it (%part).  After the block the consumer waits for its WGMMAs
// (wait_group 0) and adds the scratch into the f32 main accumulator %acc with 64 f32 additions (m64n128: 64
// registers a thread), yielded as %promoted.  Only the work unit's first K step (kbeg, not a block's kb) releases
// no stage.  With 0 the WGMMAs chain on one zero-started accumulator over the whole K loop, as before.
// P1: func.func @gemm_e4m3_f32_bk_128x128x128_{{[a-z0-9_]*}}_pr1(
// P1: %promote_every = arith.constant 1 : i32
// P1-NEXT: %acc_out, {{.*}} = scf.for %kb = %[[KBEG:[a-z0-9_]+]] to %[[KEND:[a-z0-9_]+]] step %promote_every iter_args(%acc = %zero,
// P1-NEXT: cutlass.pipeline.consumer_wait %ready, %[[ST:[a-z0-9_]+]]
// P1: %d0 = nvvm.wgmma.mma_async %da0, %db0, <m = 64, n = 128, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// P1: %d1 = nvvm.wgmma.mma_async %da1, %db1, %d0, <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// P1: %part_first = nvvm.wgmma.mma_async %da3, %db3, %d2,
// P1: nvvm.wgmma.wait.group.sync.aligned 1
// P1-NEXT: %not_first = arith.cmpi ne, %kb, %[[KBEG]] : i32
// P1: %st_next = cutlass.pipeline.state.increment %[[ST]]
// P1-NOT: kb_end
// P1-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// P1-NEXT: [[A0:%[0-9]+]] = llvm.extractvalue %acc[0]
// P1-NEXT: [[P0:%[0-9]+]] = llvm.extractvalue %part_first[0]
// P1-NEXT: [[S0:%[0-9]+]] = arith.addf [[A0]], [[P0]] : f32
// P1-NEXT: {{%[0-9]+}} = llvm.insertvalue [[S0]], %acc[0]
// P1-COUNT-62: arith.addf
// P1: llvm.extractvalue %part_first[63]
// P1-NEXT: [[S63:%[0-9]+]] = arith.addf
// P1-NEXT: %promoted = llvm.insertvalue [[S63]], {{%[0-9]+}}[63]
// P1-NEXT: scf.yield %promoted, %st_next, %[[ST]] :
// P1-NEXT: }
// P1: atom.store_fragment %acc_out,
// P3: func.func @gemm_e4m3_f32_bk_128x128x128_{{[a-z0-9_]*}}_pr3(
// P3: %promote_every = arith.constant 3 : i32
// P3-NEXT: scf.for %kb = %[[KBEG:[a-z0-9_]+]] to %[[KEND:[a-z0-9_]+]] step %promote_every
// P3: %d0 = nvvm.wgmma.mma_async %da0, %db0, <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// P3: %st_next = cutlass.pipeline.state.increment
// P3-NEXT: [[E:%[0-9]+]] = arith.addi %kb, %promote_every : i32
// P3-NEXT: %kb_end = arith.minsi [[E]], %[[KEND]] : i32
// P3-NEXT: %kb_next = arith.addi %kb, %c1 : i32
// P3-NEXT: %part_out, {{.*}} = scf.for %[[KT:[a-z0-9_]+]] = %kb_next to %kb_end step %c1 iter_args(%part = %part_first, {{.*}} = %st_next,
// P3: nvvm.wgmma.mma_async %da0_1, %db0_1, %part, <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// P3: nvvm.wgmma.wait.group.sync.aligned 1
// P3-NEXT: %not_first_1 = arith.cmpi ne, %[[KT]], %[[KBEG]] : i32
// P3: nvvm.wgmma.wait.group.sync.aligned 0
// P3-NEXT: {{%[0-9]+}} = llvm.extractvalue %acc[0]
// P3-NEXT: {{%[0-9]+}} = llvm.extractvalue %part_out[0]
// P3: %promoted = llvm.insertvalue
// OFF: func.func @gemm_e4m3_f32_bk_128x128x128_{{[a-z0-9_]*}}_edirect(
// OFF-NOT: promote_every
// OFF: %acc_out, {{.*}} = scf.for %kt_1 = %kbeg_1 to %kend_1 step %c1 iter_args(%acc = %zero,
// OFF: %d0 = nvvm.wgmma.mma_async %da0, %db0, %acc, <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// OFF-NOT: arith.addf
// OFF: atom.store_fragment %acc_out,

builtin.module {
  cuda_tile.module @kernels {
    entry @fp8_long_k_f32_out_Kt1_A2f8m3fn_1l0_2t1_p16_A2f8m3fn_1l0_2t1_p16_A2f32_1l0_2t1_p16_I128_I128_I128(%0: tile<ptr<f8E4M3FN>>, %1: tile<i32>, %2: tile<i32>, %3: tile<i32>, %4: tile<i32>, %5: tile<ptr<f8E4M3FN>>, %6: tile<i32>, %7: tile<i32>, %8: tile<i32>, %9: tile<i32>, %10: tile<ptr<f32>>, %11: tile<i32>, %12: tile<i32>, %13: tile<i32>, %14: tile<i32>) optimization_hints=<default = {}> {
      %15 = make_token : token
      %16 = assume div_by<16>, %0 : tile<ptr<f8E4M3FN>>
      %17 = assume div_by<16>, %5 : tile<ptr<f8E4M3FN>>
      %18 = assume div_by<16>, %10 : tile<ptr<f32>>
      %19 = constant <i32: 1> : tile<i32>
      %20 = constant <i32: 1> : tile<i32>
      %21 = constant <i32: 1> : tile<i32>
      %22 = assume bounded<0, ?>, %1 : tile<i32>
      %23 = assume bounded<0, ?>, %2 : tile<i32>
      %24 = assume bounded<0, ?>, %3 : tile<i32>
      %25 = make_tensor_view %16, shape = [%22, %23], strides = [%24, 1] : tile<i32> -> tensor_view<?x?xf8E4M3FN, strides=[?,1]>
      %26 = assume bounded<0, ?>, %6 : tile<i32>
      %27 = assume bounded<0, ?>, %7 : tile<i32>
      %28 = assume bounded<0, ?>, %8 : tile<i32>
      %29 = make_tensor_view %17, shape = [%26, %27], strides = [%28, 1] : tile<i32> -> tensor_view<?x?xf8E4M3FN, strides=[?,1]>
      %30 = assume bounded<0, ?>, %11 : tile<i32>
      %31 = assume bounded<0, ?>, %12 : tile<i32>
      %32 = assume bounded<0, ?>, %13 : tile<i32>
      %33 = make_tensor_view %18, shape = [%30, %31], strides = [%32, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
      %34 = constant <i32: 128> : tile<i32>
      %35, %36, %37 = get_tile_block_id : tile<i32>
      %38, %39, %40 = get_tile_block_id : tile<i32>
      %41 = constant <f32: 0.000000e+00> : tile<128x128xf32>
      %42 = divi %23, %34 signed rounding<positive_inf> : tile<i32>
      %43 = constant <i32: 0> : tile<i32>
      %44 = constant <i32: 1> : tile<i32>
      %45 = make_partition_view %25 : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>>
      %46 = make_partition_view %29 : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>>
      %47 = for %48 in (%43 to %42, step %44) : tile<i32> iter_values(%49 = %41) -> (tile<128x128xf32>) {
        %50, %51 = load_view_tko weak %45[%35, %48] token = %15 : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>>, tile<i32> -> tile<128x128xf8E4M3FN>, token
        %52, %53 = load_view_tko weak %46[%39, %48] token = %15 : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf8E4M3FN, strides=[?,1]>>, tile<i32> -> tile<128x128xf8E4M3FN>, token
        %54 = permute %52 [1, 0] : tile<128x128xf8E4M3FN> -> tile<128x128xf8E4M3FN>
        %55 = mmaf %50, %54, %49 : tile<128x128xf8E4M3FN>, tile<128x128xf8E4M3FN>, tile<128x128xf32>
        continue %55 : tile<128x128xf32>
      }
      %56 = make_partition_view %33 : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
      %57 = store_view_tko weak %47, %56[%35, %39] token = %15 : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
      return
    }
  }
}

