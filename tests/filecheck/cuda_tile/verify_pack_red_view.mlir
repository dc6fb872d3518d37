// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

// The verifier rules of atomic_red_view_tko (a tile reduction into a view: relaxed only, tl_blk or
// device scope, no xchg, the mode's element types, no padded view) and of pack / unpack (rank-1
// tiles of different widths and equal byte sizes), one broken per case.

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <f32: 1.0> : tile<16xf32>
    // expected-error @+1 {{atomic_red_view_tko supports only 'relaxed' memory ordering semantics}}
    %t = atomic_red_view_tko acquire device %pv[%i], addf, %v : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <f32: 1.0> : tile<16xf32>
    // expected-error @+1 {{atomic_red_view_tko requires memory scope 'tl_blk' or 'device'}}
    %t = atomic_red_view_tko relaxed sys %pv[%i], addf, %v : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<i32>>, %n: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <i32: 1> : tile<16xi32>
    // expected-error @+1 {{atomic_red_view_tko does not support mode 'xchg'}}
    %t = atomic_red_view_tko relaxed device %pv[%i], xchg, %v : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <f32: 1.0> : tile<16xf32>
    // expected-error @+1 {{'add' works only with integers i32 and i64}}
    %t = atomic_red_view_tko relaxed device %pv[%i], add, %v : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<i32>>, %n: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <i32: 1> : tile<16xi32>
    // expected-error @+1 {{'addf' works only with floats f16, bf16, f32, and f64}}
    %t = atomic_red_view_tko relaxed device %pv[%i], addf, %v : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <f32: 1.0> : tile<16xf32>
    // expected-error @+1 {{views with padding_value are not supported for atomic reductions}}
    %t = atomic_red_view_tko relaxed device %pv[%i], addf, %v : tile<16xf32>, partition_view<tile=(16), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @+1 {{expects source and result to be rank-1 tiles}}
    %r = pack %x : tile<2x4xf32> -> tile<2x16xi8>
    return
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <i8: 1> : tile<16xi8>
    // expected-error @+1 {{expects source and result to have different element type widths}}
    %r = pack %x : tile<16xi8> -> tile<16xi8>
    return
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{expects source and result to have the same size in bytes, but got source tile size 16 bytes and result tile size 8 bytes}}
    %r = pack %x : tile<4xf32> -> tile<8xi8>
    return
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <i8: 1> : tile<8xi8>
    // expected-error @+1 {{expects source and result to have the same size in bytes, but got source tile size 8 bytes and result tile size 16 bytes}}
    %r = unpack %x : tile<8xi8> -> tile<4xf32>
    return
  }
}
