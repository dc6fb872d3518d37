// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa | filecheck %s

// get_tensor_shape (the shape of a tensor view: cuTile reads an array's shape from the entry's
// arguments instead) is the memref's dimension sizes.

// CHECK: %[[M:.*]] = nv_tileaa.make_memref %{{.*}}[%[[R:.*]], %[[C:.*]]] [%[[C]]]
// CHECK: %[[D0:.*]] = nv_tileaa.get_dim_size %[[M]] {index = 0 : i32}
// CHECK: %[[D1:.*]] = nv_tileaa.get_dim_size %[[M]] {index = 1 : i32}
// CHECK: nv_tileaa.addi %[[D0]], %[[D1]] : i32
cuda_tile.module @m {
  entry @k(%a: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %o: tile<ptr<i32>>) {
    %tv = make_tensor_view %a, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %s:2 = get_tensor_shape %tv : tensor_view<?x?xf32, strides=[?,1]> -> tile<i32>
    %t = addi %s#0, %s#1 : tile<i32>
    %tok = store_ptr_tko weak %o, %t : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
