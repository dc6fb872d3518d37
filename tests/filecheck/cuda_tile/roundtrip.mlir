// RUN: TILEORCH_ROUNDTRIP
// RUN: TILEORCH_CUSTOM_ROUNDTRIP

// A tiled GEMM as cuTile writes it: tensor views over pointer arguments, a K loop of
// view loads and an MMA, a converted store.  Ops inside cuda_tile.module omit the prefix.

// CHECK-LABEL: cuda_tile.module @gemm_module {
cuda_tile.module @gemm_module {
  // CHECK: entry @gemm(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f16>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) optimization_hints=<sm_90 = {num_cta_in_cga = 2, occupancy = 1}> {
  entry @gemm(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f16>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) optimization_hints=<sm_90 = {num_cta_in_cga = 2, occupancy = 1}> {
    // CHECK: %[[TOK:.*]] = make_token : token
    %tok = make_token : token
    // CHECK: %[[A16:.*]] = assume div_by<16>, %a : tile<ptr<f16>>
    %a16 = assume div_by<16>, %a : tile<ptr<f16>>
    // CHECK: %[[TVA:.*]] = make_tensor_view %[[A16]], shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tva = make_tensor_view %a16, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tvb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tvc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    // CHECK: %[[PA:.*]] = make_partition_view %[[TVA]] : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>
    %pa = make_partition_view %tva : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tvb : partition_view<tile=(64x128), tensor_view<?x?xf16, strides=[?,1]>>
    %pc = make_partition_view %tvc : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>, dim_map=[1, 0]>
    // CHECK: %[[BX:.*]], %[[BY:.*]], %{{.*}} = get_tile_block_id : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    // CHECK: %[[KT:.*]]:2 = get_index_space_shape %[[PA]] : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %kt:2 = get_index_space_shape %pa : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    // CHECK: constant <f32: 0.000000e+00> : tile<128x128xf32>
    %zero = constant <f32: 0.0> : tile<128x128xf32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    // CHECK: for %[[I:.*]] in (%{{.*}} to %[[KT]]#1, step %{{.*}}) : tile<i32> iter_values(%[[ACC:.*]] = %{{.*}}) -> (tile<128x128xf32>) {
    %acc = for %i in (%c0 to %kt#1, step %c1) : tile<i32> iter_values(%acc0 = %zero) -> (tile<128x128xf32>) {
      // CHECK: load_view_tko weak %[[PA]][%[[BX]], %[[I]]] token = %[[TOK]] : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
      %ta, %t1 = load_view_tko weak %pa[%bx, %i] token = %tok : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
      %tb, %t2 = load_view_tko weak %pb[%i, %by] token = %tok : partition_view<tile=(64x128), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x128xf16>, token
      // CHECK: mmaf %{{.*}}, %{{.*}}, %[[ACC]] : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
      %d = mmaf %ta, %tb, %acc0 : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
      // CHECK: continue %{{.*}} : tile<128x128xf32>
      continue %d : tile<128x128xf32>
    }
    // CHECK: ftof %{{.*}} : tile<128x128xf32> -> tile<128x128xf16>
    %h = ftof %acc : tile<128x128xf32> -> tile<128x128xf16>
    // CHECK: store_view_tko relaxed device %{{.*}}, %{{.*}}[%[[BY]], %[[BX]]] : tile<128x128xf16>, partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>, dim_map=[1, 0]>, tile<i32> -> token
    %t3 = store_view_tko relaxed device %h, %pc[%by, %bx] : tile<128x128xf16>, partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>, dim_map=[1, 0]>, tile<i32> -> token
    // CHECK: return
  }
}

// -----

// Elementwise ops, modifiers (printed only when not the default), reductions and control flow.
// CHECK-LABEL: cuda_tile.module @elementwise
cuda_tile.module @elementwise {
  // CHECK: global private constant @lut alignment = 64 <f32: [1.000000e+00, 2.500000e-01]> : tile<2xf32>
  global private constant @lut alignment = 64 <f32: [1.0, 0.25]> : tile<2xf32>
  entry @ew(%p: tile<ptr<f32>>) {
    %x = constant <f32: [1.0, -2.0, 3.5, 0.1]> : tile<4xf32>
    // CHECK: addf %{{.*}}, %{{.*}} rounding<zero> flush_to_zero : tile<4xf32>
    %s = addf %x, %x rounding<zero> flush_to_zero : tile<4xf32>
    // CHECK: %{{.*}} = mulf %{{.*}}, %{{.*}} : tile<4xf32>
    %m = mulf %s, %x rounding<nearest_even> : tile<4xf32>
    // CHECK: exp %{{.*}} rounding<approx> : tile<4xf32>
    %e = exp %m rounding<approx> : tile<4xf32>
    // CHECK: maxf %{{.*}}, %{{.*}} flush_to_zero propagate_nan : tile<4xf32>
    %mx = maxf %e, %x propagate_nan flush_to_zero : tile<4xf32>
    // CHECK: cmpf less_than ordered %{{.*}}, %{{.*}} : tile<4xf32> -> tile<4xi1>
    %lt = cmpf less_than ordered %mx, %x : tile<4xf32> -> tile<4xi1>
    // CHECK: select %{{.*}}, %{{.*}}, %{{.*}} : tile<4xi1>, tile<4xf32>
    %sel = select %lt, %mx, %x : tile<4xi1>, tile<4xf32>
    %i = iota : tile<4xi32>
    // CHECK: addi %{{.*}}, %{{.*}} overflow<no_wrap> : tile<4xi32>
    %i2 = addi %i, %i overflow<no_wrap> : tile<4xi32>
    // CHECK: divi %{{.*}}, %{{.*}} unsigned rounding<positive_inf> : tile<4xi32>
    %q = divi %i2, %i unsigned rounding<positive_inf> : tile<4xi32>
    // CHECK: itof %{{.*}} signed : tile<4xi32> -> tile<4xf32>
    %f = itof %q signed : tile<4xi32> -> tile<4xf32>
    // CHECK: reduce %{{.*}} dim=0 identities=[0.000000e+00 : f32] : tile<4xf32> -> tile<f32>
    %r = reduce %f dim=0 identities=[0.000000e+00 : f32] : tile<4xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      %sum = addf %a, %b : tile<f32>
      yield %sum : tile<f32>
    }
    %r1 = reshape %r : tile<f32> -> tile<1xf32>
    // CHECK: broadcast %{{.*}} : tile<1xf32> -> tile<4xf32>
    %bc = broadcast %r1 : tile<1xf32> -> tile<4xf32>
    %pos = cmpf greater_than unordered %r, %r : tile<f32> -> tile<i1>
    // CHECK: if %{{.*}} -> (tile<4xf32>) {
    %y = if %pos -> (tile<4xf32>) {
      yield %bc : tile<4xf32>
    } else {
      yield %sel : tile<4xf32>
    }
    %p1 = reshape %p : tile<ptr<f32>> -> tile<1xptr<f32>>
    %pv = broadcast %p1 : tile<1xptr<f32>> -> tile<4xptr<f32>>
    %ptrs = offset %pv, %i : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    // CHECK: store_ptr_tko weak %{{.*}}, %{{.*}} : tile<4xptr<f32>>, tile<4xf32> -> token
    %t = store_ptr_tko weak %ptrs, %y : tile<4xptr<f32>>, tile<4xf32> -> token
    // CHECK: loop iter_values(%{{.*}} = %{{.*}}) : tile<4xi32> -> tile<4xi32> {
    %w = loop iter_values(%v = %i2) : tile<4xi32> -> tile<4xi32> {
      break %v : tile<4xi32>
    }
  }
}
