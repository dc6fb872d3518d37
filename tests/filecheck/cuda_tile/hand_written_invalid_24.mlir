// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Invalid sweep 24, hand-written cuda_tile: mistakes cuTile's front end refuses in Python (a zero-size
// view, a permute with a repeated axis, a dot whose inner dims differ after a reshape, a store of the
// wrong dtype) written straight as CUDA Tile IR text; each is the verifier's located error.

cuda_tile.module @m {
  entry @zero_size_view(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %v = make_tensor_view %p, shape = [%n, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    // CHECK: hand_written_invalid_24.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: tile dimension 1 is 0: a view's tile extents must be strictly positive
    %q = make_partition_view %v : partition_view<tile=(64x0), tensor_view<?x?xf32, strides=[?,1]>>
  }
}

// -----

cuda_tile.module @m {
  entry @permute_repeated_axis() {
    %a = constant <f32: 1.0> : tile<16x32xf32>
    // CHECK: hand_written_invalid_24.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}permutation must be a permutation of [0, rank)
    %b = permute %a [1, 1] : tile<16x32xf32> -> tile<32x32xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @permute_of_the_wrong_length() {
    %a = constant <f32: 1.0> : tile<16x32xf32>
    // CHECK: hand_written_invalid_24.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}expected permutation of size 2, got 3
    %b = permute %a [1, 0, 2] : tile<16x32xf32> -> tile<32x16xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @dot_of_a_reshaped_operand() {
    %a = constant <f16: 1.0> : tile<64x64xf16>
    %b = reshape %a : tile<64x64xf16> -> tile<32x128xf16>
    %c = constant <f32: 0.0> : tile<64x128xf32>
    // CHECK: hand_written_invalid_24.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}lhs K dimension (64) must match rhs K dimension (32)
    %d = mmaf %a, %b, %c : tile<64x64xf16>, tile<32x128xf16>, tile<64x128xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @f32_tile_stored_into_an_f16_view(%p: tile<ptr<f16>>, %n: tile<i32>) {
    %t = make_token : token
    %z = constant <i32: 0> : tile<i32>
    %x = constant <f32: 1.0> : tile<64xf32>
    %v = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf16, strides=[1]>
    %q = make_partition_view %v : partition_view<tile=(64), tensor_view<?xf16, strides=[1]>>
    // CHECK: hand_written_invalid_24.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}expected tile type to be tile<64xf16> (based on view type), got tile<64xf32>
    %s = store_view_tko weak %x, %q[%z] token = %t : tile<64xf32>, partition_view<tile=(64), tensor_view<?xf16, strides=[1]>>, tile<i32> -> token
  }
}

// -----

cuda_tile.module @m {
  entry @one_index_for_a_2d_view(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %t = make_token : token
    %z = constant <i32: 0> : tile<i32>
    %v = make_tensor_view %p, shape = [%n, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %q = make_partition_view %v : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    // CHECK: hand_written_invalid_24.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}expected 2 index operands (based on view type), got 1
    %x, %u = load_view_tko weak %q[%z] token = %t : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
  }
}
