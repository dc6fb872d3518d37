// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// User sweep 33's gemm_c_and_column_sums_by_atomics (tileorch.testing.user_programs33, exported by cuTile for
// A 100x64 f16, B 64x80 f16, C 100x80 f32, ColSum [80] f32, 64x64x64 tiles): C = A @ B stored, and in the same
// epilogue ct.atomic_add(ColSum, (cols,), ct.sum(acc, axis=0)) -- a column reduction of the result added
// atomically beside C (a bias gradient's sum over M).  The tier takes it as a side output: the column partials
// are reduced as for a stored [1, tile_n] reduction (registers, lane shuffles, the consumer warps' partials
// through shared memory behind named barrier 1), then consumer thread c adds column c's partial once per CTA tile
// with a relaxed device-scope atomic between the atomic's release / acquire fences (cuTile's acq_rel default),
// predicated on the atomic's own bounds mask.  Until session 41 the tier refused it ("added atomically beside C is
// not supported yet") and the program ran on the SIMT path.
builtin.module {
  cuda_tile.module @kernels {
    entry @gemm_c_and_column_sums_by_atomics_Kt1_A2f16_1l0_2t1_p16_A2f16_1l0_2t1_p16_A2f32_1l0_2t1_p16_A1f32_1t1_p16_I64_I64_I64(%0: tile<ptr<f16>>, %1: tile<i32>, %2: tile<i32>, %3: tile<i32>, %4: tile<i32>, %5: tile<ptr<f16>>, %6: tile<i32>, %7: tile<i32>, %8: tile<i32>, %9: tile<i32>, %10: tile<ptr<f32>>, %11: tile<i32>, %12: tile<i32>, %13: tile<i32>, %14: tile<i32>, %15: tile<ptr<f32>>, %16: tile<i32>, %17: tile<i32>) optimization_hints=<default = {}> {
      %18 = make_token : token
      %19 = assume div_by<16>, %0 : tile<ptr<f16>>
      %20 = assume div_by<16>, %5 : tile<ptr<f16>>
      %21 = assume div_by<16>, %10 : tile<ptr<f32>>
      %22 = assume div_by<16>, %15 : tile<ptr<f32>>
      %23 = constant <i32: 1> : tile<i32>
      %24 = constant <i32: 1> : tile<i32>
      %25 = constant <i32: 1> : tile<i32>
      %26 = constant <i64: 1> : tile<64xi64>
      %27 = assume bounded<0, ?>, %1 : tile<i32>
      %28 = assume bounded<0, ?>, %2 : tile<i32>
      %29 = assume bounded<0, ?>, %3 : tile<i32>
      %30 = make_tensor_view %19, shape = [%27, %28], strides = [%29, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
      %31 = assume bounded<0, ?>, %6 : tile<i32>
      %32 = assume bounded<0, ?>, %7 : tile<i32>
      %33 = assume bounded<0, ?>, %8 : tile<i32>
      %34 = make_tensor_view %20, shape = [%31, %32], strides = [%33, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
      %35 = assume bounded<0, ?>, %11 : tile<i32>
      %36 = assume bounded<0, ?>, %12 : tile<i32>
      %37 = assume bounded<0, ?>, %13 : tile<i32>
      %38 = make_tensor_view %21, shape = [%35, %36], strides = [%37, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
      %39 = assume bounded<0, ?>, %16 : tile<i32>
      %40 = constant <i32: 64> : tile<i32>
      %41 = constant <i32: 64> : tile<i32>
      %42, %43, %44 = get_tile_block_id : tile<i32>
      %45, %46, %47 = get_tile_block_id : tile<i32>
      %48 = constant <f32: 0.000000e+00> : tile<64x64xf32>
      %49 = divi %28, %41 signed rounding<positive_inf> : tile<i32>
      %50 = constant <i32: 0> : tile<i32>
      %51 = constant <i32: 1> : tile<i32>
      %52 = make_partition_view %30 : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %53 = make_partition_view %34 : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %54:3 = for %55 in (%50 to %49, step %51) : tile<i32> iter_values(%56 = %48, %57 = %18, %58 = %18) -> (tile<64x64xf32>, token, token) {
        %59, %60 = load_view_tko weak %52[%42, %55] token = %18 : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
        %61 = join_tokens %57, %60 : token
        %62, %63 = load_view_tko weak %53[%55, %46] token = %18 : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x64xf16>, token
        %64 = join_tokens %58, %63 : token
        %65 = mmaf %59, %62, %56 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
        continue %65, %61, %64 : tile<64x64xf32>, token, token
      }
      %66 = make_partition_view %38 : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>
      %67 = store_view_tko weak %54#0, %66[%42, %46] token = %18 : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
      %68 = muli %46, %40 : tile<i32>
      %69 = iota : tile<64xi32>
      %70 = reshape %68 : tile<i32> -> tile<1xi32>
      %71 = broadcast %70 : tile<1xi32> -> tile<64xi32>
      %72 = addi %71, %69 : tile<64xi32>
      %73 = reduce %54#0 dim=0 identities=[0.000000e+00 : f32] : tile<64x64xf32> -> tile<64xf32> 
      (%74: tile<f32>, %75: tile<f32>) {
        %76 = addf %74, %75  : tile<f32>
        yield %76 : tile<f32>
      }
      %77 = exti %72 signed : tile<64xi32> -> tile<64xi64>
      %78 = exti %39 signed : tile<i32> -> tile<i64>
      %79 = reshape %78 : tile<i64> -> tile<1xi64>
      %80 = broadcast %79 : tile<1xi64> -> tile<64xi64>
      %81 = cmpi less_than %77, %80, unsigned : tile<64xi64> -> tile<64xi1>
      %82 = muli %77, %26 : tile<64xi64>
      %83 = reshape %22 : tile<ptr<f32>> -> tile<1xptr<f32>>
      %84 = broadcast %83 : tile<1xptr<f32>> -> tile<64xptr<f32>>
      %85 = offset %84, %82 : tile<64xptr<f32>>, tile<64xi64> -> tile<64xptr<f32>>
      %86 = join_tokens %18, %54#1, %54#2, %67 : token
      %87, %88 = atomic_rmw_tko acq_rel device %85, addf, %73, %81, token=%86 : tile<64xptr<f32>>, tile<64xf32>, tile<64xi1> -> tile<64xf32>, token
      return
    }
  }
}
// CHECK:      func.func @gemm_f16_f32_bn_64x64x64_{{[a-z0-9_]*}}(
// CHECK-SAME: remarks = ["1 column reduction(s) of the result stored beside it
// CHECK-SAME: "1 of these reductions added atomically (each CTA tile's one partial per row or column, by one thread
// The consumer: the exchange through shared memory, then the one add per column of the tile
// (lanes 0..3 write the warps' partials between two bar.sync of barrier 1; thread c reads column c's)
// CHECK:      cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 128
// CHECK:      cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 128
// CHECK:      arith.muli %tn_{{[0-9]+}}, %{{.*}} : i32
// CHECK-NEXT: %[[COL:.*]] = arith.addi %{{.*}}, %column : i32
// CHECK:      %[[PTR:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK:      %[[INB:.*]] = arith.cmpi ult, %[[COL]], %{{.*}} : i32
// CHECK-NEXT: %[[OK:.*]] = arith.andi %in_tile, %[[INB]] : i1
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-NEXT:   llvm.fence syncscope("device") release
// CHECK-NEXT:   llvm.atomicrmw fadd %[[PTR]], %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK-NEXT:   llvm.fence syncscope("device") acquire
// CHECK-NOT:  llvm.atomicrmw
// CHECK:      cutlass.tile_scheduler.static_fetch_next_work
// PTX:        wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX:        bar.sync {{.*}}1, 128;
// PTX:        fence.release.gpu;
// PTX-NEXT:   {{(atom|red)}}.global.add.f32
// PTX-NEXT:   fence.acquire.gpu;
