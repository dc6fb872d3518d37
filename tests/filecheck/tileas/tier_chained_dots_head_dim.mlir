// RUN: env TILEORCH_ATTN_HEAD_DIM_WIDTH=1 tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=NARROW
// RUN: env TILEORCH_ATTN_HEAD_DIM_WIDTH=0 tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=TILE
// Session 36's s36_d80_plain (head dim 80 in a 128-wide D tile, 64 x 64 tiles, zero padding) as cuTile exports it
// for a launch the launcher specialised on its head dims (launchers/head_dim_variant.py: the Q / K / V / O arrays'
// last extent the constant 80, tensor_view<?x?x80xf16>).  The dots run 80 columns (tileas/head_dim_width.py): the
// first dot five K steps of 16 (%s0..%s4), the second WGMMAs N = 80, the three TMA boxes 16 columns with the 32-byte
// swizzle (160-byte rows are not one 128-byte swizzle span), the kernel named for d = dv = 80, a remark at the
// second dot's line.  TILEORCH_ATTN_HEAD_DIM_WIDTH=0: the tile's 128 columns (eight K steps, N = 128, 64-column
// boxes) and the remark says the switch keeps it.
// NARROW: func.func @chained_dots_64x64x80_80_f16(
// NARROW-SAME: head_dim_width = [80 : i64, 80 : i64]
// NARROW-SAME: remark: chained-dots tier (TMA + WGMMA): the dots run the arrays' head dims, not the tiles': the first dot reduces over 80 of its 128 columns
// NARROW-SAME: the second dot's WGMMAs are N = 80 of the tile's 128
// NARROW-SAME: tmaps = [{arg = 0 : i64, box = 16 : i64, rank = 3 : i64, rows = 64 : i64, swizzle = 32 : i64}, {arg = 7 : i64, box = 16 : i64, rank = 3 : i64, rows = 64 : i64, swizzle = 32 : i64}, {arg = 14 : i64, box = 16 : i64, rank = 3 : i64, rows = 64 : i64, swizzle = 32 : i64}]
// NARROW: %s4 = nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
// NARROW-NOT: %s5 = nvvm.wgmma.mma_async
// NARROW: wgmma.mma_async.sync.aligned.m64n80k16.f32.f16.f16
// NARROW-NOT: m64n128k16
// TILE: func.func @chained_dots_64x64x128_128_f16(
// TILE-NOT: head_dim_width
// TILE-SAME: remark: chained-dots tier (TMA + WGMMA): the arrays' head dims are narrower than the 128 / 128-wide tiles, but the dots run the tiles' width: TILEORCH_ATTN_HEAD_DIM_WIDTH=0
// TILE-SAME: box = 64 : i64
// TILE: %s7 = nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
// TILE: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
builtin.module {
  cuda_tile.module @kernels {
    entry @s36_plain_Kt2_A3f16_3l0_4s80t1_p16_A3f16_3l0_4s80t1_p16_A3f16_3l0_4s80t1_p16_A3f16_3l0_4s80t1_p16_Sf32_I64_I64_I128(%0: tile<ptr<f16>>, %1: tile<i32>, %2: tile<i32>, %3: tile<i32>, %4: tile<i32>, %5: tile<i32>, %6: tile<i32>, %7: tile<ptr<f16>>, %8: tile<i32>, %9: tile<i32>, %10: tile<i32>, %11: tile<i32>, %12: tile<i32>, %13: tile<i32>, %14: tile<ptr<f16>>, %15: tile<i32>, %16: tile<i32>, %17: tile<i32>, %18: tile<i32>, %19: tile<i32>, %20: tile<i32>, %21: tile<ptr<f16>>, %22: tile<i32>, %23: tile<i32>, %24: tile<i32>, %25: tile<i32>, %26: tile<i32>, %27: tile<i32>, %28: tile<f32>) optimization_hints=<default = {}> {
      %29 = make_token : token
      %30 = assume div_by<16>, %0 : tile<ptr<f16>>
      %31 = assume div_by<16>, %7 : tile<ptr<f16>>
      %32 = assume div_by<16>, %14 : tile<ptr<f16>>
      %33 = assume div_by<16>, %21 : tile<ptr<f16>>
      %34 = constant <i32: 80> : tile<i32>
      %35 = constant <i32: 1> : tile<i32>
      %36 = constant <i32: 80> : tile<i32>
      %37 = constant <i32: 1> : tile<i32>
      %38 = constant <i32: 80> : tile<i32>
      %39 = constant <i32: 1> : tile<i32>
      %40 = constant <i32: 80> : tile<i32>
      %41 = constant <i32: 1> : tile<i32>
      %42 = assume bounded<0, ?>, %1 : tile<i32>
      %43 = assume bounded<0, ?>, %2 : tile<i32>
      %44 = assume bounded<0, ?>, %4 : tile<i32>
      %45 = assume bounded<0, ?>, %5 : tile<i32>
      %46 = make_tensor_view %30, shape = [%42, %43, 80], strides = [%44, %45, 1] : tile<i32> -> tensor_view<?x?x80xf16, strides=[?,?,1]>
      %47 = assume bounded<0, ?>, %8 : tile<i32>
      %48 = assume bounded<0, ?>, %9 : tile<i32>
      %49 = assume bounded<0, ?>, %11 : tile<i32>
      %50 = assume bounded<0, ?>, %12 : tile<i32>
      %51 = make_tensor_view %31, shape = [%47, %48, 80], strides = [%49, %50, 1] : tile<i32> -> tensor_view<?x?x80xf16, strides=[?,?,1]>
      %52 = assume bounded<0, ?>, %15 : tile<i32>
      %53 = assume bounded<0, ?>, %16 : tile<i32>
      %54 = assume bounded<0, ?>, %18 : tile<i32>
      %55 = assume bounded<0, ?>, %19 : tile<i32>
      %56 = make_tensor_view %32, shape = [%52, %53, 80], strides = [%54, %55, 1] : tile<i32> -> tensor_view<?x?x80xf16, strides=[?,?,1]>
      %57 = assume bounded<0, ?>, %22 : tile<i32>
      %58 = assume bounded<0, ?>, %23 : tile<i32>
      %59 = assume bounded<0, ?>, %25 : tile<i32>
      %60 = assume bounded<0, ?>, %26 : tile<i32>
      %61 = make_tensor_view %33, shape = [%57, %58, 80], strides = [%59, %60, 1] : tile<i32> -> tensor_view<?x?x80xf16, strides=[?,?,1]>
      %62 = constant <i32: 64> : tile<i32>
      %63, %64, %65 = get_tile_block_id : tile<i32>
      %66, %67, %68 = get_tile_block_id : tile<i32>
      %69 = constant <i32: 0> : tile<i32>
      %70 = make_partition_view %46 : partition_view<tile=(1x64x128), padding_value = zero, tensor_view<?x?x80xf16, strides=[?,?,1]>>
      %71, %72 = load_view_tko weak %70[%67, %63, %69] token = %29 : partition_view<tile=(1x64x128), padding_value = zero, tensor_view<?x?x80xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x128xf16>, token
      %73 = reshape %71 : tile<1x64x128xf16> -> tile<64x128xf16>
      %74 = constant <f32: 0xFF800000> : tile<64x1xf32>
      %75 = constant <f32: 0.000000e+00> : tile<64x1xf32>
      %76 = constant <f32: 0.000000e+00> : tile<64x128xf32>
      %77 = divi %48, %62 signed rounding<positive_inf> : tile<i32>
      %78 = constant <i32: 0> : tile<i32>
      %79 = constant <i32: 1> : tile<i32>
      %80 = constant <i32: 0> : tile<i32>
      %81 = make_partition_view %51 : partition_view<tile=(1x64x128), padding_value = zero, tensor_view<?x?x80xf16, strides=[?,?,1]>>
      %82 = constant <f32: 0.000000e+00> : tile<64x64xf32>
      %83 = reshape %28 : tile<f32> -> tile<1x1xf32>
      %84 = broadcast %83 : tile<1x1xf32> -> tile<64x64xf32>
      %85 = iota : tile<64xi32>
      %86 = reshape %48 : tile<i32> -> tile<1x1xi32>
      %87 = broadcast %86 : tile<1x1xi32> -> tile<1x64xi32>
      %88 = constant <f32: 0xFF800000> : tile<f32>
      %89 = reshape %88 : tile<f32> -> tile<1x1xf32>
      %90 = broadcast %89 : tile<1x1xf32> -> tile<64x64xf32>
      %91 = constant <i32: 0> : tile<i32>
      %92 = make_partition_view %56 : partition_view<tile=(1x64x128), padding_value = zero, tensor_view<?x?x80xf16, strides=[?,?,1]>>
      %93:3 = for %94 in (%78 to %77, step %79) : tile<i32> iter_values(%95 = %76, %96 = %75, %97 = %74) -> (tile<64x128xf32>, tile<64x1xf32>, tile<64x1xf32>) {
        %98, %99 = load_view_tko weak %81[%67, %94, %80] token = %29 : partition_view<tile=(1x64x128), padding_value = zero, tensor_view<?x?x80xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x128xf16>, token
        %100 = reshape %98 : tile<1x64x128xf16> -> tile<64x128xf16>
        %101 = permute %100 [1, 0] : tile<64x128xf16> -> tile<128x64xf16>
        %102 = mmaf %73, %101, %82 : tile<64x128xf16>, tile<128x64xf16>, tile<64x64xf32>
        %103 = mulf %102, %84  : tile<64x64xf32>
        %104 = muli %94, %62 : tile<i32>
        %105 = reshape %104 : tile<i32> -> tile<1xi32>
        %106 = broadcast %105 : tile<1xi32> -> tile<64xi32>
        %107 = addi %106, %85 : tile<64xi32>
        %108 = reshape %107 : tile<64xi32> -> tile<1x64xi32>
        %109 = cmpi less_than %108, %87, signed : tile<1x64xi32> -> tile<1x64xi1>
        %110 = broadcast %109 : tile<1x64xi1> -> tile<64x64xi1>
        %111 = select %110, %103, %90 : tile<64x64xi1>, tile<64x64xf32>
        %112, %113 = load_view_tko weak %92[%67, %94, %91] token = %29 : partition_view<tile=(1x64x128), padding_value = zero, tensor_view<?x?x80xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x128xf16>, token
        %114 = reshape %112 : tile<1x64x128xf16> -> tile<64x128xf16>
        %115 = reduce %111 dim=1 identities=[0xff800000 : f32] : tile<64x64xf32> -> tile<64xf32> 
        (%116: tile<f32>, %117: tile<f32>) {
          %118 = maxf %116, %117 : tile<f32>
          yield %118 : tile<f32>
        }
        %119 = reshape %115 : tile<64xf32> -> tile<64x1xf32>
        %120 = maxf %97, %119 : tile<64x1xf32>
        %121 = broadcast %120 : tile<64x1xf32> -> tile<64x64xf32>
        %122 = subf %111, %121  : tile<64x64xf32>
        %123 = exp2 %122 : tile<64x64xf32>
        %124 = subf %97, %120  : tile<64x1xf32>
        %125 = exp2 %124 : tile<64x1xf32>
        %126 = reduce %123 dim=1 identities=[0.000000e+00 : f32] : tile<64x64xf32> -> tile<64xf32> 
        (%127: tile<f32>, %128: tile<f32>) {
          %129 = addf %127, %128  : tile<f32>
          yield %129 : tile<f32>
        }
        %130 = reshape %126 : tile<64xf32> -> tile<64x1xf32>
        %131 = fma %96, %125, %130  : tile<64x1xf32>
        %132 = ftof %123  : tile<64x64xf32> -> tile<64x64xf16>
        %133 = broadcast %125 : tile<64x1xf32> -> tile<64x128xf32>
        %134 = mulf %95, %133  : tile<64x128xf32>
        %135 = mmaf %132, %114, %134 : tile<64x64xf16>, tile<64x128xf16>, tile<64x128xf32>
        continue %135, %131, %120 : tile<64x128xf32>, tile<64x1xf32>, tile<64x1xf32>
      }
      %136 = constant <i32: 0> : tile<i32>
      %137 = broadcast %93#1 : tile<64x1xf32> -> tile<64x128xf32>
      %138 = divf %93#0, %137  : tile<64x128xf32>
      %139 = ftof %138  : tile<64x128xf32> -> tile<64x128xf16>
      %140 = reshape %139 : tile<64x128xf16> -> tile<1x64x128xf16>
      %141 = make_partition_view %61 : partition_view<tile=(1x64x128), tensor_view<?x?x80xf16, strides=[?,?,1]>>
      %142 = store_view_tko weak %140, %141[%67, %63, %136] token = %29 : tile<1x64x128xf16>, partition_view<tile=(1x64x128), tensor_view<?x?x80xf16, strides=[?,?,1]>>, tile<i32> -> token
      return
    }
  }
}