// CUDA Tile IR verifier rules that had no negative test (tools/untested_diagnostics.py, session 17):
// rounding modes and modifiers of arithmetic and conversions, sub-byte select, bitcast widths,
// permute/cat/extract shapes, mmaf accumulator types, module-level ops (reported at the op, not
// the module), continue/break/if operand lists, reduce dims and regions, alloca, atomics, stores.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics


cuda_tile.module @m {
  entry @e() {
    %x = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{rounding mode must be one of 'zero', 'positive_inf' or 'negative_inf', got 'nearest_even'}}
    %y = divi %x, %x signed rounding<nearest_even> : tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{overflow flag 'no_unsigned_wrap' is not supported for negi}}
    %y = negi %x overflow<no_unsigned_wrap> : tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{invalid rounding mode 'nearest_int_to_zero'}}
    %y = divf %x, %x rounding<nearest_int_to_zero> : tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f16: 1.0> : tile<4xf16>
    // expected-error @+1 {{approx modifier only supported for f32 data type, but got: f16}}
    %y = divf %x, %x rounding<approx> : tile<4xf16>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f16: 1.0> : tile<4xf16>
    // expected-error @+1 {{full modifier only supported for f32 data type, but got: f16}}
    %y = divf %x, %x rounding<full> : tile<4xf16>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{invalid rounding mode 'zero': expected 'approx' or 'full'}}
    %y = exp %x rounding<zero> : tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f16: 1.0> : tile<4xf16>
    // expected-error @+1 {{approx modifier only supported for f32 data type, but got: f16}}
    %y = exp %x rounding<approx> : tile<4xf16>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{invalid rounding mode 'full' for sqrt}}
    %y = sqrt %x rounding<full> : tile<4xf32>
  }
}

// -----
cuda_tile.module @m {
  entry @e(%q: tile<ptr<f4E2M1FN>>) {
    %c = constant <i1: true> : tile<2xi1>
    %q1 = reshape %q : tile<ptr<f4E2M1FN>> -> tile<1xptr<f4E2M1FN>>
    %p = broadcast %q1 : tile<1xptr<f4E2M1FN>> -> tile<2xptr<f4E2M1FN>>
    %x, %t = load_ptr_tko weak %p : tile<2xptr<f4E2M1FN>> -> tile<2xf4E2M1FN>, token
    // expected-error @+1 {{cannot operate on sub-byte type F4E2M1FN}}
    %y = select %c, %x, %x : tile<2xi1>, tile<2xf4E2M1FN>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{source and result element types must have the same bit width, got f32 and i16}}
    %y = bitcast %x : tile<4xf32> -> tile<4xi16>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{invalid rounding mode specified for conversion to f8E8M0FNU. Only 'zero' and 'positive_inf' are supported}}
    %y = ftof %x rounding<nearest_even> : tile<4xf32> -> tile<4xf8E8M0FNU>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{integer to f8E8M0FNU conversion is not supported, please first convert to another float type}}
    %y = itof %x signed : tile<4xi32> -> tile<4xf8E8M0FNU>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <f32: 1.0> : tile<4x8xf32>
    // expected-error @+1 {{result dimension 0 should be 8 (source dimension 1), got 4}}
    %b = permute %a [1, 0] : tile<4x8xf32> -> tile<4x8xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @+1 {{result dimension 1 must be 8, got 4}}
    %c = cat %x, %x dim = 1 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x4xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<2x4xf32>
    %y = constant <f32: 1.0> : tile<4x4xf32>
    // expected-error @+1 {{must match across operands and result}}
    %c = cat %x, %y dim = 1 : tile<2x4xf32>, tile<4x4xf32> -> tile<2x8xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<8x8xf32>
    %c0 = constant <i32: 0> : tile<i32>
    // expected-error @+1 {{result dimension 0 (16) must divide source dimension (8)}}
    %e = extract %x[%c0, %c0] : tile<8x8xf32> -> tile<16x8xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <bf16: 1.0> : tile<16x16xbf16>
    %c = constant <f16: 0.0> : tile<16x16xf16>
    // expected-error @+1 {{unsupported combination of element types. Input type 'bf16' expects accumulator/result type to be one of}}
    %d = mmaf %a, %a, %c : tile<16x16xbf16>, tile<16x16xbf16>, tile<16x16xf16>
  }
}

// -----

cuda_tile.module @m {
  // expected-error @+1 {{'cuda_tile.make_token' is not allowed at module level (expected entry or global)}}
  %x = "cuda_tile.make_token"() : () -> !cuda_tile.token
  entry @e() {
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c4 = constant <i32: 4> : tile<i32>
    %r = for %i in (%c0 to %c4, step %c1) : tile<i32> iter_values(%v = %c0) -> (tile<i32>) {
      // expected-error @+1 {{'continue' has 2 operands, but its parent expects 1}}
      continue %v, %v : tile<i32>, tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c0 = constant <i32: 0> : tile<i32>
    %r = loop iter_values(%v = %c0) : tile<i32> -> tile<i32> {
      %f = constant <f32: 0.0> : tile<f32>
      // expected-error @+1 {{'break' operand #0 has type tile<f32>, but its parent expects tile<i32>}}
      break %f : tile<f32>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c = constant <i1: true> : tile<i1>
    %c0 = constant <i32: 0> : tile<i32>
    // expected-error @+1 {{then branch yields 2 values, but the op has 1 results}}
    %x = if %c -> (tile<i32>) {
      yield %c0, %c0 : tile<i32>, tile<i32>
    } else {
      yield %c0 : tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c = constant <i1: true> : tile<i1>
    %c0 = constant <i32: 0> : tile<i32>
    // expected-error @+1 {{does not return a value, but then branch yields 'tile<i32>'}}
    if %c {
      yield %c0 : tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{dim 1 is out of range for operands of rank 1}}
    %r = reduce %x dim=1 identities=[0.000000e+00 : f32] : tile<4xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      %s = addf %a, %b : tile<f32>
      yield %s : tile<f32>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{region argument types must be tile<f32>, got tile<i32>}}
    %r = reduce %x dim=0 identities=[0.000000e+00 : f32] : tile<4xf32> -> tile<f32>
    (%a: tile<i32>, %b: tile<i32>) {
      %s = addi %a, %b : tile<i32>
      yield %s : tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @+1 {{'num_elem' must be non-negative}}
    %a = alloca num_elem = -1, alignment = 16 : tile<ptr<f32>>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @+1 {{'alignment' must be power of two}}
    %a = alloca num_elem = 4, alignment = 12 : tile<ptr<f32>>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @+1 {{'alignment' (2) must be at least the natural size (4 bytes) for element type f32}}
    %a = alloca num_elem = 4, alignment = 2 : tile<ptr<f32>>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%q: tile<ptr<i16>>) {
    %v = constant <i16: 1> : tile<i16>
    // expected-error @+1 {{works only with integers or float of 32 or 64 bitwidth}}
    %o, %t = atomic_rmw_tko relaxed device %q, xchg, %v : tile<ptr<i16>>, tile<i16> -> tile<i16>, token
  }
}

// -----

cuda_tile.module @m {
  entry @e(%q: tile<ptr<i32>>) {
    %v = constant <i32: 1> : tile<i32>
    // expected-error @+1 {{works only with floats f16, bf16, f32, and f64}}
    %o, %t = atomic_rmw_tko relaxed device %q, addf, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
  }
}

// -----

cuda_tile.module @m {
  entry @e(%q: tile<ptr<f32>>) {
    %v = constant <f16: 1.0> : tile<f16>
    // expected-error @+1 {{`destination` type is expected a pointer type of `value` type}}
    %t = store_ptr_tko weak %q, %v : tile<ptr<f32>>, tile<f16> -> token
  }
}

// -----

cuda_tile.module @m {
  entry @e(%q: tile<ptr<i16>>) {
    %c = constant <i16: 1> : tile<i16>
    // expected-error @+1 {{atomic_cas_tko works only with 32- or 64-bit integers or floats}}
    %o, %t = atomic_cas_tko relaxed device %q, %c, %c : tile<ptr<i16>>, tile<i16> -> tile<i16>, token
  }
}
