// CUDA Tile IR verifier rules that had no negative test (tools/untested_diagnostics.py, session 20):
// strided views' traversal strides (count, sign), a gather/scatter view's sparse_dim, an atomic
// reduction through a gather/scatter view; and a view index that is not a tile (the ops' operand
// constraint rejects it before the view type's index rules, which therefore no longer check it).
// A zero stride or a zero tile extent in a type is refused by the type parser; from bytecode the
// types' own rules name them (tests/unit/test_cuda_tile_bytecode_errors.py).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    // expected-error @+1 {{expected 1 traversal strides, got 2}}
    %sv = make_strided_view %tv : strided_view<tile=(8), traversal_strides=[3, 1], tensor_view<64xf32, strides=[1]>>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    // expected-error @+1 {{traversal strides must be strictly positive but got [0]}}
    %sv = make_strided_view %tv : strided_view<tile=(8), traversal_strides=[0], tensor_view<64xf32, strides=[1]>>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    // expected-error @+1 {{sparse_dim 2 is out of range for a rank-2 view}}
    %gv = make_gather_scatter_view %tv : gather_scatter_view<tile=(8x8), tensor_view<64x64xf32, strides=[64,1]>, sparse_dim=2>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %gv = make_gather_scatter_view %tv : gather_scatter_view<tile=(8x8), tensor_view<64x64xf32, strides=[64,1]>, sparse_dim=0>
    %i = constant <i32: 0> : tile<8xi32>
    %j = constant <i32: 0> : tile<i32>
    %v = constant <f32: 1.0> : tile<8x8xf32>
    // expected-error @+1 {{gather_scatter_view is not supported; use partition_view instead}}
    %t = atomic_red_view_tko relaxed device %gv[%i, %j], addf, %v : tile<8x8xf32>, gather_scatter_view<tile=(8x8), tensor_view<64x64xf32, strides=[64,1]>, sparse_dim=0>, tile<8xi32>, tile<i32> -> token
  }
}

// -----

cuda_tile.module @m {
  // expected-error @+1 {{entry op arguments must be CUDA Tile IR types, got i32}}
  entry @e(%p: tile<ptr<f32>>, %i: i32) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<64xf32, strides=[1]>>
    // expected-error @+1 {{operand 'index' at position 1 does not verify: i32 should be of base attribute cuda_tile.tile}}
    %t, %t1 = load_view_tko weak %pv[%i] : partition_view<tile=(16), tensor_view<64xf32, strides=[1]>>, i32 -> tile<16xf32>, token
  }
}
