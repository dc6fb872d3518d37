// RUN: not tileorch compile %s -o %t.ptx 2>&1 | filecheck %s
// A static tensor extent of 2^31 elements or more is refused at the view's line: the SIMT lowering
// indexes in 32 bits, so it would wrap (session 20: this refusal had no test).
cuda_tile.module @m {
  entry @copy(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>) {
    %tvx = make_tensor_view %x, shape = [2147483648], strides = [1] : tensor_view<2147483648xf32, strides=[1]>
    %tvy = make_tensor_view %y, shape = [2147483648], strides = [1] : tensor_view<2147483648xf32, strides=[1]>
    %px = make_partition_view %tvx : partition_view<tile=(128), tensor_view<2147483648xf32, strides=[1]>>
    %py = make_partition_view %tvy : partition_view<tile=(128), tensor_view<2147483648xf32, strides=[1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %t, %t1 = load_view_tko weak %px[%bx] : partition_view<tile=(128), tensor_view<2147483648xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %t3 = store_view_tko weak %t, %py[%bx] : tile<128xf32>, partition_view<tile=(128), tensor_view<2147483648xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
// CHECK: static_extent_past_i32.mlir:6:5: error: static size 2147483648 does not fit the 32-bit index arithmetic of the SIMT lowering
