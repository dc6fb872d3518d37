// RUN: tileorch-opt %s --split-input-file -p convert-cudatile-to-tileaa --verify-diagnostics

// The ops of docs/cuda-tile.md's table "op (cuTile API) | why it does not lower" that have a text
// form stop the lowering with a located error naming the op (never an internal error or a
// verification failure of the user's program); tools/cuda_tile_op_table.py lists this file as
// their test.

cuda_tile.module @m {
  entry @k(%p: tile<ptr<i8>>) {
    // expected-error @+1 {{'cuda_tile.ptr_to_int' is not supported yet by convert-cudatile-to-tileaa}}
    %i = ptr_to_int %p : tile<ptr<i8>> -> tile<i64>
    return
  }
}

// -----

cuda_tile.module @m {
  entry @k(%p: tile<ptr<i8>>) {
    %r = reshape %p : tile<ptr<i8>> -> tile<1xptr<i8>>
    %b = broadcast %r : tile<1xptr<i8>> -> tile<4xptr<i8>>
    // expected-error @+1 {{'cuda_tile.ptr_to_ptr' is not supported yet by convert-cudatile-to-tileaa}}
    %q = ptr_to_ptr %b : tile<4xptr<i8>> -> tile<4xptr<f64>>
    return
  }
}

// -----

cuda_tile.module @m {
  entry @k(%x: tile<i32>) {
    // expected-error @+1 {{'cuda_tile.mulhii' is not supported yet by convert-cudatile-to-tileaa}}
    %h = mulhii %x, %x : tile<i32>
    return
  }
}

// -----

cuda_tile.module @m {
  entry @k() {
    // expected-error @+1 {{'cuda_tile.alloca' is not supported yet by convert-cudatile-to-tileaa}}
    %a = alloca num_elem = 64, alignment = 16 : tile<ptr<f32>>
    return
  }
}
