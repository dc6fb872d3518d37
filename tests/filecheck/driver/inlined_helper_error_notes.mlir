// A SIMT-path error at an op inlined from a helper, in a dot kernel the tensor-core tier refused at another
// inlined op (cuTile's ct.function helpers, written as call-site locations): the error's first line is at the
// helper's op, its own "called from" notes follow it directly, then the refusal as a located note with the
// refusal's own call under it; no "error:" or "[the tensor-core path refused ...]" bracket inside a note.
// Was (session 31): the error's calls printed after the refusal's, reading as the refusal's.
// RUN: not tileorch compile %s --no-ptxas --no-cache -o /dev/null 2>&1 | filecheck %s
// CHECK: atomic.py:6:4: error: 'nv_tileaa.atomic_rmw' is not supported yet by convert-nv-tileaa-to-simt: a system-scope atomic_rmw (LLVM's NVPTX backend would emit it at device scope){{$}}
// CHECK-NEXT: {{^}}kernel.py:17:4: note: called from{{$}}
// CHECK-NEXT: {{^}}load.py:3:11: note: the SIMT path was taken because the tensor-core path refused the kernel here: this dot operand is loaded with padding_mode=NEG_INF, {{.*}}runs on it){{$}}
// CHECK-NEXT: {{^}}mid.py:9:8: note: called from{{$}}
// CHECK-NEXT: {{^}}kernel.py:12:21: note: called from{{$}}
// CHECK-NOT: {{.}}
builtin.module {
  cuda_tile.module @kernels {
    entry @mm_helper_refused_then_helper_atomic(%0: tile<ptr<f16>>, %1: tile<i32>, %2: tile<i32>, %3: tile<i32>, %4: tile<i32>, %5: tile<ptr<f16>>, %6: tile<i32>, %7: tile<i32>, %8: tile<i32>, %9: tile<i32>, %10: tile<ptr<f16>>, %11: tile<i32>, %12: tile<i32>, %13: tile<i32>, %14: tile<i32>, %15: tile<ptr<f32>>, %16: tile<i32>, %17: tile<i32>) optimization_hints=<default = {}> {
      %18 = make_token : token
      %19 = assume div_by<16>, %0 : tile<ptr<f16>>
      %20 = assume div_by<16>, %5 : tile<ptr<f16>>
      %21 = assume div_by<16>, %10 : tile<ptr<f16>>
      %22 = assume div_by<16>, %15 : tile<ptr<f32>>
      %23 = constant <i32: 1> : tile<i32>
      %24 = constant <i32: 1> : tile<i32>
      %25 = constant <i32: 1> : tile<i32>
      %26 = constant <i32: 1> : tile<i32>
      %27 = constant <i64: 1> : tile<64xi64>
      %28 = assume bounded<0, ?>, %1 : tile<i32>
      %29 = assume bounded<0, ?>, %2 : tile<i32>
      %30 = assume bounded<0, ?>, %3 : tile<i32>
      %31 = make_tensor_view %19, shape = [%28, %29], strides = [%30, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
      %32 = assume bounded<0, ?>, %6 : tile<i32>
      %33 = assume bounded<0, ?>, %7 : tile<i32>
      %34 = assume bounded<0, ?>, %8 : tile<i32>
      %35 = make_tensor_view %20, shape = [%32, %33], strides = [%34, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
      %36 = assume bounded<0, ?>, %11 : tile<i32>
      %37 = assume bounded<0, ?>, %12 : tile<i32>
      %38 = assume bounded<0, ?>, %13 : tile<i32>
      %39 = make_tensor_view %21, shape = [%36, %37], strides = [%38, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
      %40 = assume bounded<0, ?>, %16 : tile<i32>
      %41 = make_tensor_view %22, shape = [%40], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
      %42 = constant <i32: 32> : tile<i32>
      %43, %44, %45 = get_tile_block_id : tile<i32>
      %46, %47, %48 = get_tile_block_id : tile<i32>
      %49 = constant <f32: 0.000000e+00> : tile<64x64xf32>
      %50 = divi %29, %42 signed rounding<positive_inf> : tile<i32>
      %51 = constant <i32: 0> : tile<i32>
      %52 = constant <i32: 1> : tile<i32>
      %53 = make_partition_view %35 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
      %54 = make_partition_view %31 : partition_view<tile=(64x32), padding_value = neg_inf, tensor_view<?x?xf16, strides=[?,1]>>
      %55:3 = for %56 in (%51 to %50, step %52) : tile<i32> iter_values(%57 = %49, %58 = %18, %59 = %18) -> (tile<64x64xf32>, token, token) {
        %60, %61 = load_view_tko weak %53[%56, %47] token = %18 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<32x64xf16>, token
        %62 = join_tokens %58, %61 : token
        %63, %64 = load_view_tko weak %54[%43, %56] token = %18 : partition_view<tile=(64x32), padding_value = neg_inf, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x32xf16>, token loc(callsite("load.py":3:11 at callsite("mid.py":9:8 at "kernel.py":12:21)))
        %65 = join_tokens %59, %64 : token
        %66 = mmaf %63, %60, %57 : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
        continue %66, %62, %65 : tile<64x64xf32>, token, token
      }
      %67 = ftof %55#0  : tile<64x64xf32> -> tile<64x64xf16>
      %68 = make_partition_view %39 : partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>
      %69 = store_view_tko weak %67, %68[%43, %47] token = %18 : tile<64x64xf16>, partition_view<tile=(64x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
      %70 = constant <i32: 0> : tile<i32>
      %71 = make_partition_view %41 : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
      %72, %73 = load_view_tko weak %71[%70] token = %18 : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
      %74 = join_tokens %18, %73 : token
      %75 = iota : tile<64xi32>
      %76 = exti %75 signed : tile<64xi32> -> tile<64xi64>
      %77 = exti %40 signed : tile<i32> -> tile<i64>
      %78 = reshape %77 : tile<i64> -> tile<1xi64>
      %79 = broadcast %78 : tile<1xi64> -> tile<64xi64>
      %80 = cmpi less_than %76, %79, unsigned : tile<64xi64> -> tile<64xi1>
      %81 = muli %76, %27 : tile<64xi64>
      %82 = reshape %22 : tile<ptr<f32>> -> tile<1xptr<f32>>
      %83 = broadcast %82 : tile<1xptr<f32>> -> tile<64xptr<f32>>
      %84 = offset %83, %81 : tile<64xptr<f32>>, tile<64xi64> -> tile<64xptr<f32>>
      %85 = join_tokens %74, %55#1, %55#2, %69 : token
      %86, %87 = atomic_rmw_tko acq_rel sys %84, addf, %72, %80, token=%85 : tile<64xptr<f32>>, tile<64xf32>, tile<64xi1> -> tile<64xf32>, token loc(callsite("atomic.py":6:4 at "kernel.py":17:4))
      return
    }
  }
}
