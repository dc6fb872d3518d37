// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa | filecheck %s

// A tile reduction into a view (TiledView.atomic_store_add) becomes the pointer tile of the view's
// tile and its in-bounds mask, then one nv_tileaa.atomic_rmw: tile dimension i walks the tensor's
// dimension dim_map[i] (here tile dim 0 -> tensor dim 1: the strides and extents are swapped), from
// index * tile (a partition view) or index * traversal stride (a strided view).

// CHECK-LABEL: nv_tileaa.func @red
cuda_tile.module @m {
  entry @red(%p: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %s: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m, %n], strides = [%s, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pv = make_partition_view %tv : partition_view<tile=(8x4), tensor_view<?x?xf32, strides=[?,1]>, dim_map=[1, 0]>
    %i = constant <i32: 3> : tile<i32>
    %j = constant <i32: 5> : tile<i32>
    %v = constant <f32: 1.0> : tile<8x4xf32>
    // the tensor's extents m, n and row stride s, as i64
    // CHECK:      %[[M64:.*]] = arith.extsi %1 : i32 to i64
    // CHECK-NEXT: %[[N64:.*]] = arith.extsi %2 : i32 to i64
    // CHECK-NEXT: %[[S64:.*]] = arith.extsi %3 : i32 to i64
    // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i64
    // tile dim 0 (8 elements) along the tensor's columns: origin 3 * 8, extent n, stride 1
    // CHECK:      nv_tileaa.make_range {start = 0 : i32, end = 8 : i32} : tensor<8xi32>
    // CHECK:      %[[EIGHT:.*]] = arith.constant 8 : i64
    // CHECK-NEXT: arith.muli %{{.*}}, %[[EIGHT]] : i64
    // CHECK:      nv_tileaa.splat %[[N64]] : i64 -> tensor<1x1xi64>
    // CHECK:      nv_tileaa.cmpi "ult", %{{.*}}, %{{.*}} : tensor<8x4xi64> -> tensor<8x4xi1>
    // CHECK-NEXT: nv_tileaa.splat %[[ONE]] : i64 -> tensor<1x1xi64>
    // tile dim 1 (4 elements) along the tensor's rows: origin 5 * 4, extent m, stride s
    // CHECK:      nv_tileaa.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
    // CHECK:      %[[FOUR:.*]] = arith.constant 4 : i64
    // CHECK-NEXT: arith.muli %{{.*}}, %[[FOUR]] : i64
    // CHECK:      nv_tileaa.splat %[[M64]] : i64 -> tensor<1x1xi64>
    // CHECK:      nv_tileaa.cmpi "ult", %{{.*}}, %{{.*}} : tensor<8x4xi64> -> tensor<8x4xi1>
    // CHECK-NEXT: nv_tileaa.splat %[[S64]] : i64 -> tensor<1x1xi64>
    // CHECK:      %[[MASK:.*]] = arith.andi %{{.*}}, %{{.*}} : tensor<8x4xi1>
    // CHECK:      %[[PTRS:.*]] = nv_tileaa.offset %{{.*}}, %{{.*}} : tensor<8x4x!nv_tileaa.ptr<f32>>, tensor<8x4xi64> -> tensor<8x4x!nv_tileaa.ptr<f32>>
    // CHECK-NEXT: nv_tileaa.atomic_rmw %[[PTRS]], %{{.*}} mask %[[MASK]] : tensor<8x4xi1> {rmw_mode = #nv_tileaa.rmw_mode<addf>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<8x4x!nv_tileaa.ptr<f32>>, tensor<8x4xf32> -> tensor<8x4xf32>
    %t = atomic_red_view_tko relaxed device %pv[%i, %j], addf, %v : tile<8x4xf32>, partition_view<tile=(8x4), tensor_view<?x?xf32, strides=[?,1]>, dim_map=[1, 0]>, tile<i32> -> token
    return
  }
}

// CHECK-LABEL: nv_tileaa.func @strided
cuda_tile.module @m2 {
  entry @strided(%p: tile<ptr<i32>>, %n: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %sv = make_strided_view %tv : strided_view<tile=(8), traversal_strides=[3], tensor_view<?xi32, strides=[1]>>
    %i = constant <i32: 2> : tile<i32>
    %v = constant <i32: 1> : tile<8xi32>
    // the window's origin: index * 3 (its traversal stride), not index * 8
    // CHECK:      %[[THREE:.*]] = arith.constant 3 : i64
    // CHECK-NEXT: arith.muli %{{.*}}, %[[THREE]] : i64
    // CHECK:      nv_tileaa.atomic_rmw %{{.*}}, %{{.*}} mask %{{.*}} : tensor<8xi1> {rmw_mode = #nv_tileaa.rmw_mode<max>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<cta>}
    %t = atomic_red_view_tko relaxed tl_blk %sv[%i], max, %v : tile<8xi32>, strided_view<tile=(8), traversal_strides=[3], tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
