// RUN: tileorch-opt %s --split-input-file -p convert-cudatile-to-tileaa | filecheck %s

// An if that only chooses between a ZERO-padded and an unpadded load of the same tile (boundary specialisation)
// becomes the padded load, no branch (padded_load_choice.py): in-bounds tiles read the same elements, and an
// unpadded load's out-of-bounds elements are undefined, so zero is one of their values.

// CHECK-LABEL: nv_tileaa.func @choose_padded
// CHECK-NOT: scf.if
// CHECK: nv_tileaa.tiled_load {{.*}}padding_value = #nv_tileaa.padding_value<zero>
// CHECK-NOT: scf.if
// CHECK: nv_tileaa.tiled_store
cuda_tile.module @m {
  entry @choose_padded(%a: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %o: tile<ptr<f32>>, %c: tile<i1>, %i: tile<i32>) {
    %tok = make_token : token
    %tv = make_tensor_view %a, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %ov = make_tensor_view %o, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %t = if %c -> (tile<16x16xf32>) {
      %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
      %x, %xt = load_view_tko weak %pv[%i, %i] token = %tok : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      yield %x : tile<16x16xf32>
    } else {
      %pz = make_partition_view %tv : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
      %y, %yt = load_view_tko weak %pz[%i, %i] token = %tok : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      yield %y : tile<16x16xf32>
    }
    %opv = make_partition_view %ov : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %t, %opv[%i, %i] token = %tok : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// Different indices: two different tiles, the if stays.
// CHECK-LABEL: nv_tileaa.func @other_index
// CHECK: scf.if
cuda_tile.module @m {
  entry @other_index(%a: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %o: tile<ptr<f32>>, %c: tile<i1>, %i: tile<i32>, %j: tile<i32>) {
    %tok = make_token : token
    %tv = make_tensor_view %a, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %ov = make_tensor_view %o, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %t = if %c -> (tile<16x16xf32>) {
      %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
      %x, %xt = load_view_tko weak %pv[%i, %i] token = %tok : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      yield %x : tile<16x16xf32>
    } else {
      %pz = make_partition_view %tv : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
      %y, %yt = load_view_tko weak %pz[%i, %j] token = %tok : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      yield %y : tile<16x16xf32>
    }
    %opv = make_partition_view %ov : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %t, %opv[%i, %i] token = %tok : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// Two different padding values (zero and nan) are two programs: the if stays.
// CHECK-LABEL: nv_tileaa.func @two_paddings
// CHECK: scf.if
cuda_tile.module @m {
  entry @two_paddings(%a: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %o: tile<ptr<f32>>, %c: tile<i1>, %i: tile<i32>) {
    %tok = make_token : token
    %tv = make_tensor_view %a, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %ov = make_tensor_view %o, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %t = if %c -> (tile<16x16xf32>) {
      %pv = make_partition_view %tv : partition_view<tile=(16x16), padding_value = nan, tensor_view<?x?xf32, strides=[?,1]>>
      %x, %xt = load_view_tko weak %pv[%i, %i] token = %tok : partition_view<tile=(16x16), padding_value = nan, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      yield %x : tile<16x16xf32>
    } else {
      %pz = make_partition_view %tv : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
      %y, %yt = load_view_tko weak %pz[%i, %i] token = %tok : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      yield %y : tile<16x16xf32>
    }
    %opv = make_partition_view %ov : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %t, %opv[%i, %i] token = %tok : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// A branch that computes besides its load: the if stays.
// CHECK-LABEL: nv_tileaa.func @computes
// CHECK: scf.if
cuda_tile.module @m {
  entry @computes(%a: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %o: tile<ptr<f32>>, %c: tile<i1>, %i: tile<i32>) {
    %tok = make_token : token
    %tv = make_tensor_view %a, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %ov = make_tensor_view %o, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %t = if %c -> (tile<16x16xf32>) {
      %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
      %x, %xt = load_view_tko weak %pv[%i, %i] token = %tok : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      %x2 = addf %x, %x rounding<nearest_even> : tile<16x16xf32>
      yield %x2 : tile<16x16xf32>
    } else {
      %pz = make_partition_view %tv : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
      %y, %yt = load_view_tko weak %pz[%i, %i] token = %tok : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      yield %y : tile<16x16xf32>
    }
    %opv = make_partition_view %ov : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %t, %opv[%i, %i] token = %tok : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// The same padded load yielded twice by both branches: one load for both results.
// CHECK-LABEL: nv_tileaa.func @yielded_twice
// CHECK-NOT: scf.if
// CHECK: nv_tileaa.tiled_load
// CHECK-NOT: nv_tileaa.tiled_load
// CHECK: nv_tileaa.addf
cuda_tile.module @m {
  entry @yielded_twice(%a: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %o: tile<ptr<f32>>, %c: tile<i1>, %i: tile<i32>) {
    %tok = make_token : token
    %tv = make_tensor_view %a, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %ov = make_tensor_view %o, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %t:2 = if %c -> (tile<16x16xf32>, tile<16x16xf32>) {
      %pv = make_partition_view %tv : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
      %x, %xt = load_view_tko weak %pv[%i, %i] token = %tok : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      yield %x, %x : tile<16x16xf32>, tile<16x16xf32>
    } else {
      %pz = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
      %y, %yt = load_view_tko weak %pz[%i, %i] token = %tok : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      yield %y, %y : tile<16x16xf32>, tile<16x16xf32>
    }
    %u = addf %t#0, %t#1 rounding<nearest_even> : tile<16x16xf32>
    %opv = make_partition_view %ov : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %u, %opv[%i, %i] token = %tok : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
