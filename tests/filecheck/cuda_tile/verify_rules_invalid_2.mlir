// More CUDA Tile IR verifier rules that had no negative test (mmaf K, batch and rank; ftoi/itof
// rounding; cat element type and dim; extract shape and type; continue/break placement; assume
// along/same_elements; zero-size and odd f4E2M1FN tiles; pointee types; get_global): one per
// split, each reported at its op.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  entry @e() {
    %a = constant <f16: 1.0> : tile<16x16xf16>
    %b = constant <f16: 1.0> : tile<8x16xf16>
    %c = constant <f32: 0.0> : tile<16x16xf32>
    // expected-error @+1 {{lhs K dimension (16) must match rhs K dimension (8)}}
    %d = mmaf %a, %b, %c : tile<16x16xf16>, tile<8x16xf16>, tile<16x16xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f16: 1.0> : tile<2x16x16xf16>
    %b = constant <f16: 1.0> : tile<4x16x16xf16>
    %c = constant <f32: 0.0> : tile<2x16x16xf32>
    // expected-error @+1 {{batch dimensions of lhs, rhs and acc must match}}
    %d = mmaf %a, %b, %c : tile<2x16x16xf16>, tile<4x16x16xf16>, tile<2x16x16xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f16: 1.0> : tile<16xf16>
    %c = constant <f32: 0.0> : tile<16xf32>
    // expected-error @+1 {{expected operands of rank 2 or 3, got rank 1}}
    %d = mmaf %a, %a, %c : tile<16xf16>, tile<16xf16>, tile<16xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{expected rounding mode to be one of: 'nearest_int_to_zero', got: 'nearest_even'}}
    %b = ftoi %a signed rounding<nearest_even> : tile<4xf32> -> tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{invalid rounding mode specified. Only 'nearest_even' is supported}}
    %b = itof %a signed rounding<zero> : tile<4xi32> -> tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<2x4x8xf32>
    %y = constant <f16: 1.0> : tile<2x4x8xf16>
    // expected-error @+1 {{failed to verify that all of {lhs, rhs, result} have the same element type}}
    %c = cat %x, %y dim = 1 : tile<2x4x8xf32>, tile<2x4x8xf16> -> tile<2x8x8xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<2x4x8xf32>
    // expected-error @+1 {{dim 3 is out of range for rank 3}}
    %c = cat %x, %x dim = 3 : tile<2x4x8xf32>, tile<2x4x8xf32> -> tile<2x8x8xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<8x8xf32>
    %c0 = constant <i32: 0> : tile<i32>
    // expected-error @+1 {{all dimensions must be powers of two, got [3, 8]}}
    %e = extract %x[%c0, %c0] : tile<8x8xf32> -> tile<3x8xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<8x8xf32>
    %c0 = constant <i32: 0> : tile<i32>
    // expected-error @+1 {{source and result must have the same element type}}
    %e = extract %x[%c0, %c0] : tile<8x8xf32> -> tile<4x8xf16>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c0 = constant <i32: 0> : tile<i32>
    // expected-error @+1 {{'cuda_tile.continue' expects parent op to be one of 'cuda_tile.for', 'cuda_tile.if', 'cuda_tile.loop'}}
    continue
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c0 = constant <i32: 0> : tile<i32>
    // expected-error @+1 {{'cuda_tile.break' expects parent op to be one of 'cuda_tile.if', 'cuda_tile.loop'}}
    break
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{'along' must be in [0, 1), got 3}}
    %b = assume div_by<4, every 2 along 3>, %a : tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{'cuda_tile.same_elements' is valid only for tile of integer/pointer values}}
    %b = assume same_elements<[2]>, %a : tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @+1 {{all dimensions must be positive constants, got [0]}}
    %a = constant <f32: 1.0> : tile<0xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @+1 {{F4E2M1FN tiles must have an even number of elements}}
    %a = constant <f4E2M1FN: 1.0> : tile<1xf4E2M1FN>
  }
}

// -----

cuda_tile.module @m {
  // expected-error @+1 {{pointee type must be a number type, got tile<f32>}}
  entry @e(%p: tile<ptr<tile<f32>>>) {
    return
  }
}

// -----

cuda_tile.module @m {
  global private constant @lut alignment = 64 <f32: [1.0, 0.25]> : tile<2xf32>
  entry @e() {
    // expected-error @+1 {{result pointee type must match the element type of global @lut}}
    %p = get_global @lut : tile<ptr<f16>>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @+1 {{'@nope' does not reference a valid global}}
    %p = get_global @nope : tile<ptr<f32>>
  }
}
