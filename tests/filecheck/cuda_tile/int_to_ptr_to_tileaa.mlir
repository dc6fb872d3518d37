// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa | filecheck %s
// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=SIMT

// A list-of-arrays parameter as cuTile emits it: the list is an i64 table (one row of
// [ptr, shape, stride] per array) and its length; item %g's data pointer is word 0 of row %g,
// read as a pointer by int_to_ptr, then the array's tensor view.  int_to_ptr becomes
// nv_tileaa.int_to_ptr (scalar: !nv_tileaa.ptr<f32>; a tile: a tensor of pointers), the SIMT
// lowering an llvm.inttoptr to a global pointer.

// CHECK: nv_tileaa.func @list_item
// CHECK: %[[W:.*]] = nv_tileaa.extract %{{.*}} {indices = array<i32: 0, 0>} : tensor<1x1xi64> -> i64
// CHECK: %[[P:.*]] = nv_tileaa.int_to_ptr %[[W]] : i64 -> !nv_tileaa.ptr<f32>
// CHECK: nv_tileaa.assume %[[P]] {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
// CHECK: nv_tileaa.int_to_ptr %{{.*}} : tensor<4xi64> -> tensor<4x!nv_tileaa.ptr<f32>>
// SIMT: func.func @list_item
// SIMT: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
cuda_tile.module @m {
  entry @list_item(%tab: tile<ptr<i64>>, %len: tile<i32>, %out: tile<ptr<f32>>) {
    %tok = make_token : token
    %tv = make_tensor_view %tab, shape = [%len, 3], strides = [3, 1] : tile<i32> -> tensor_view<?x3xi64, strides=[3,1]>
    %pv = make_partition_view %tv : partition_view<tile=(1x4), tensor_view<?x3xi64, strides=[3,1]>>
    %g, %y, %z = get_tile_block_id : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    %row, %t1 = load_view_tko weak %pv[%g, %c0] : partition_view<tile=(1x4), tensor_view<?x3xi64, strides=[3,1]>>, tile<i32> -> tile<1x4xi64>, token
    %w0 = extract %row[%c0, %c0] : tile<1x4xi64> -> tile<1x1xi64>
    %a0 = reshape %w0 : tile<1x1xi64> -> tile<i64>
    %c1 = constant <i32: 1> : tile<i32>
    %w1 = extract %row[%c0, %c1] : tile<1x4xi64> -> tile<1x1xi64>
    %a1 = reshape %w1 : tile<1x1xi64> -> tile<i64>
    %n = trunci %a1 : tile<i64> -> tile<i32>
    %p = int_to_ptr %a0 : tile<i64> -> tile<ptr<f32>>
    %pa = assume div_by<16>, %p : tile<ptr<f32>>
    %xv = make_tensor_view %pa, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %xp = make_partition_view %xv : partition_view<tile=(4), tensor_view<?xf32, strides=[1]>>
    %x, %t2 = load_view_tko weak %xp[%c0] : partition_view<tile=(4), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<4xf32>, token
    %r4 = reshape %row : tile<1x4xi64> -> tile<4xi64>
    %ps = int_to_ptr %r4 : tile<4xi64> -> tile<4xptr<f32>>
    %ov = make_tensor_view %out, shape = [4], strides = [1] : tensor_view<4xf32, strides=[1]>
    %op = make_partition_view %ov : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>
    %t3 = store_view_tko weak %x, %op[%c0] : tile<4xf32>, partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
