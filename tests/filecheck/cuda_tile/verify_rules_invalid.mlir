// CUDA Tile IR verifier rules that had no negative test (integer extension/truncation, no-op
// conversions, iota, reshape, permute, broadcast, assume predicates, globals, tensor_view and
// partition_view types, if without else, join_tokens): one per split, each reported at its op.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{extending to smaller or identical integer}}
    %b = exti %a signed : tile<4xi32> -> tile<4xi16>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{truncating to larger or identical integer}}
    %b = trunci %a : tile<4xi32> -> tile<4xi64>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{converting tiles must not be a no-op}}
    %b = ftof %a : tile<4xf32> -> tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @+1 {{expects result type to be 1-d tile, but got 2-d tile}}
    %i = iota : tile<4x4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @+1 {{the number of elements 512 exceeds the maximum value of element type i8}}
    %i = iota : tile<512xi8>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f32: 1.0> : tile<4x8xf32>
    // expected-error @+1 {{expected source tile and result tile to have the same number of elements, got 32 and 16}}
    %b = reshape %a : tile<4x8xf32> -> tile<16xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{expects at least rank 2, but got: 1}}
    %b = permute %a [0] : tile<4xf32> -> tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f32: 1.0> : tile<4x8xf32>
    // expected-error @+1 {{expected permutation of size 2, got 3}}
    %b = permute %a [0, 1, 2] : tile<4x8xf32> -> tile<4x8xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f32: 1.0> : tile<4x8xf32>
    // expected-error @+1 {{permutation must be a permutation of [0, rank)}}
    %b = permute %a [0, 2] : tile<4x8xf32> -> tile<8x4xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f32: 1.0> : tile<2xf32>
    // expected-error @+1 {{source dimension #0 of size 2 cannot be broadcast to size 4}}
    %b = broadcast %a : tile<2xf32> -> tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{divisor must be a power of 2, got 12}}
    %b = assume div_by<12>, %a : tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{div_by predicate requires integer or pointer elements, got f32}}
    %b = assume div_by<16>, %a : tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{lower bound (8) must not exceed upper bound (2)}}
    %b = assume bounded<8, 2>, %a : tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{bounded predicate requires an integer tile}}
    %b = assume bounded<0, 2>, %a : tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  // expected-error @+1 {{global value must be a 1-d tile, got tile<2x2xf32>}}
  global private constant @lut alignment = 64 <f32: [[1.0, 0.25], [1.0, 0.5]]> : tile<2x2xf32>
}

// -----

cuda_tile.module @m {
  // expected-error @+1 {{alignment must be a power of two, got 48}}
  global private constant @lut alignment = 48 <f32: [1.0, 0.25]> : tile<2xf32>
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    // expected-error @+1 {{expected shape and stride to be of same rank but got shape of rank 2 and stride of rank 1}}
    %tv = make_tensor_view %p, shape = [64, 64], strides = [1] : tensor_view<64x64xf32, strides=[1]>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    // expected-error @+1 {{dimensions must have strictly positive constant sizes but got [0]}}
    %tv = make_tensor_view %p, shape = [0], strides = [1] : tensor_view<0xf32, strides=[1]>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    // expected-error @+1 {{expected strictly positive integer, got 0}}
    %tv = make_tensor_view %p, shape = [64], strides = [0] : tensor_view<64xf32, strides=[0]>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    // expected-error @+1 {{expected dim_map to map exactly all 2 dimensions of the tile, got 1 mappings}}
    %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>, dim_map=[0]>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    // expected-error @+1 {{target dimension is outside of tensor view dimensions, expected strictly less than 2, got 2}}
    %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>, dim_map=[0, 2]>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%c: tile<i1>) {
    // expected-error @+1 {{must have an else block if defining values}}
    %x = if %c -> (tile<i32>) {
      %a = constant <i32: 1> : tile<i32>
      yield %a : tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %t1 = make_token : token
    // expected-error @+1 {{expect at least 2 tokens, but got 1}}
    %t = join_tokens %t1 : token
  }
}
