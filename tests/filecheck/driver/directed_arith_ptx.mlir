// cuTile's ct.add / ct.sub / ct.mul(..., rounding_mode=RZ / RM / RP) and a CUDA Tile IR fma rounding<zero> of
// f32 tiles (session 32; before: a located "not supported yet") reach the PTX as add.rz.f32 / sub.rm.f32 /
// mul.rp.f32 / fma.rz.f32 (no .ftz: subnormals kept), the kernel having no loop, no remark of the loop rewrites skipped.
// RUN: tileorch compile %s --no-ptxas --no-cache --emit ptx --remarks -o - 2>&1 | filecheck %s
// CHECK-DAG: add.rz.f32 %{{[rf][0-9]+}}, %{{[rf][0-9]+}}, %{{[rf][0-9]+}};
// CHECK-DAG: sub.rm.f32 %{{[rf][0-9]+}}, %{{[rf][0-9]+}}, %{{[rf][0-9]+}};
// CHECK-DAG: mul.rp.f32 %{{[rf][0-9]+}}, %{{[rf][0-9]+}}, %{{[rf][0-9]+}};
// CHECK-DAG: fma.rz.f32 %{{[rf][0-9]+}}, %{{[rf][0-9]+}}, %{{[rf][0-9]+}}, %{{[rf][0-9]+}};
// CHECK-NOT: add.rn.f32
// CHECK-NOT: .ftz.f32
// CHECK-NOT: loop reductions
builtin.module {
  cuda_tile.module @kernels {
    entry @directed3(%0: tile<ptr<f32>>, %1: tile<i32>, %2: tile<i32>, %3: tile<ptr<f32>>, %4: tile<i32>, %5: tile<i32>, %6: tile<ptr<f32>>, %7: tile<i32>, %8: tile<i32>, %9: tile<ptr<f32>>, %10: tile<i32>, %11: tile<i32>, %12: tile<ptr<f32>>, %13: tile<i32>, %14: tile<i32>) optimization_hints=<default = {}> {
      %15 = make_token : token
      %16 = assume div_by<16>, %0 : tile<ptr<f32>>
      %17 = assume div_by<16>, %3 : tile<ptr<f32>>
      %18 = assume div_by<16>, %6 : tile<ptr<f32>>
      %19 = assume div_by<16>, %9 : tile<ptr<f32>>
      %20 = assume div_by<16>, %12 : tile<ptr<f32>>
      %21 = constant <i32: 1> : tile<i32>
      %22 = constant <i32: 1> : tile<i32>
      %23 = constant <i32: 1> : tile<i32>
      %24 = constant <i32: 1> : tile<i32>
      %25 = constant <i32: 1> : tile<i32>
      %26 = assume bounded<0, ?>, %1 : tile<i32>
      %27 = make_tensor_view %16, shape = [%26], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
      %28 = assume bounded<0, ?>, %4 : tile<i32>
      %29 = make_tensor_view %17, shape = [%28], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
      %30 = assume bounded<0, ?>, %7 : tile<i32>
      %31 = make_tensor_view %18, shape = [%30], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
      %32 = assume bounded<0, ?>, %10 : tile<i32>
      %33 = make_tensor_view %19, shape = [%32], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
      %34 = assume bounded<0, ?>, %13 : tile<i32>
      %35 = make_tensor_view %20, shape = [%34], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
      %36, %37, %38 = get_tile_block_id : tile<i32>
      %39 = make_partition_view %27 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
      %40, %41 = load_view_tko weak %39[%36] token = %15 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
      %42 = make_partition_view %29 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
      %43, %44 = load_view_tko weak %42[%36] token = %15 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
      %45 = addf %40, %43 rounding<zero> : tile<128xf32>
      %46 = make_partition_view %31 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
      %47 = store_view_tko weak %45, %46[%36] token = %15 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
      %48 = subf %40, %43 rounding<negative_inf> : tile<128xf32>
      %49 = make_partition_view %33 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
      %50 = store_view_tko weak %48, %49[%36] token = %15 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
      %m = mulf %40, %43 rounding<positive_inf> : tile<128xf32>
      %51 = fma %m, %43, %45 rounding<zero> : tile<128xf32>
      %52 = make_partition_view %35 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
      %53 = store_view_tko weak %51, %52[%36] token = %15 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
      return
    }
  }
}
