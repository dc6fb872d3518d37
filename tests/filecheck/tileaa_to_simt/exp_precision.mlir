// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa | filecheck %s --check-prefix=AA
// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s
// RUN: env TILEORCH_MATH=approx tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=FAST
// cuda_tile.exp's rounding mode: the default (full) is CUDA's expf sequence: k = rint(x log2 e)
// clamped to [-126, 127] by a saturating fma, the reduced argument in two fma, one ex2.approx.ftz of
// it and an exact power-of-two scale (the shifted exponent bits); rounding<approx> keeps its approx
// property in nv_tileaa and takes ex2.approx.ftz of x * log2(e); TILEORCH_MATH=approx takes the
// approximate form for both.
cuda_tile.module @m {
  entry @expk(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %n: tile<i32>) {
    %tok = make_token : token
    %tvx = make_tensor_view %x, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %tvy = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %px = make_partition_view %tvx : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %py = make_partition_view %tvy : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %t, %t1 = load_view_tko weak %px[%bx] token = %tok : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %e = exp %t : tile<128xf32>
    %a = exp %e rounding<approx> : tile<128xf32>
    %t3 = store_view_tko weak %a, %py[%bx] : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  }
}
// AA:      %[[E:.*]] = nv_tileaa.exp %{{.*}} : tensor<128xf32>
// AA-NEXT: nv_tileaa.exp %[[E]] {rounding = "approx"} : tensor<128xf32>
// The full form: the clamp, the rounding to an integer, the two-part reduction, one ex2.approx
// of the reduced argument, the scale from the shifted bits; then the approx exp: ex2.approx of a product.
// CHECK:      func.func @expk
// CHECK-NOT:  ex2.approx
// CHECK:      llvm.call_intrinsic "llvm.nvvm.fma.rn.sat.f"
// CHECK-NOT:  ex2.approx
// CHECK:      arith.constant 0x4B400001 : f32
// CHECK-NOT:  ex2.approx
// CHECK:      arith.subf
// CHECK-NOT:  ex2.approx
// CHECK:      %[[R1:.*]] = llvm.call_intrinsic "llvm.fma.f32"
// CHECK:      %[[R2:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%{{.*}}, %{{.*}}, %[[R1]])
// CHECK-NEXT: %[[P:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[R2]])
// CHECK:      arith.shli
// CHECK:      %[[E:.*]] = arith.mulf %[[P]], %{{.*}} : f32
// CHECK:      %[[X:.*]] = arith.mulf %[[E]], %{{.*}} : f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[X]])
// FAST:      func.func @expk
// FAST-NOT:  "llvm.fma.f32"
// FAST:      "llvm.nvvm.ex2.approx.ftz.f"
// FAST-NOT:  "llvm.fma.f32"
// FAST:      "llvm.nvvm.ex2.approx.ftz.f"
