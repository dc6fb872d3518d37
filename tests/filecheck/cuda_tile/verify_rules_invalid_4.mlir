// CUDA Tile IR verifier rules that had no negative test (tools/untested_diagnostics.py, session 19):
// ftoi rounding and constant types (generic form: the custom syntax cannot spell them, bytecode can),
// continue/break outside a loop, entry and testing$func signatures, views carried by loops, for's
// region arguments, if regions, assume predicates (div_by, same_elements, bounded), reduce and scan
// operands, identities, regions and yields; make_tensor_view operands, view types, index-space
// shapes, pointer loads, stores and atomics, insert, inbounds, mmaf_scaled scale shapes; tile and
// view types (too many elements, a 0-d view tile, negative dim_map targets, view index types).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{invalid rounding mode specified. Only 'nearest_int_to_zero' is supported}}
    %y = "cuda_tile.ftoi"(%x) <{signedness = #cuda_tile.signedness<signed>, rounding_mode = #cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<4xf32>) -> !cuda_tile.tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @+1 {{failed to verify that all of {value, result} have same type}}
    %y = "cuda_tile.constant"() <{value = #cuda_tile.dense<i32: 1 : tile<4xi32>>}> : () -> !cuda_tile.tile<8xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c = constant <i1: true> : tile<i1>
    if %c {
      // expected-error @+1 {{'continue' must be nested in a 'for' or 'loop'}}
      continue
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %b = constant <i1: true> : tile<i1>
    for %i in (%c0 to %c1, step %c1) : tile<i32> {
      if %b {
        // expected-error @+1 {{'break' must be nested in a 'loop'}}
        break
      }
      continue
    }
  }
}

// -----

cuda_tile.module @m {
  // expected-error @+1 {{entry op must not return values}}
  "cuda_tile.entry"() <{sym_name = "e", function_type = () -> !cuda_tile.tile<i32>}> ({
    "cuda_tile.return"() : () -> ()
  }) : () -> ()
}

// -----

cuda_tile.module @m {
  // expected-error @+1 {{entry block arguments must match the function type}}
  "cuda_tile.entry"() <{sym_name = "e", function_type = (!cuda_tile.tile<i32>) -> ()}> ({
    "cuda_tile.return"() : () -> ()
  }) : () -> ()
}

// -----

cuda_tile.module @m {
  // expected-error @+1 {{entry block arguments must match the function type}}
  "cuda_tile.testing$func"() <{sym_name = "f", function_type = (!cuda_tile.tile<i32>) -> ()}> ({
    "cuda_tile.return"() : () -> ()
  }) : () -> ()
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c0 = constant <i32: 0> : tile<i32>
    // expected-error @+1 {{entry functions cannot return values}}
    "cuda_tile.return"(%c0) : (!cuda_tile.tile<i32>) -> ()
  }
}

// -----

cuda_tile.module @m {
  entry @e(%a: tile<ptr<f16>>, %m: tile<i32>) {
    %tv = make_tensor_view %a, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf16, strides=[1]>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    // expected-error @+1 {{loop-carried value 0 is a tensor_view, which is not supported}}
    %r = for %i in (%c0 to %c1, step %c1) : tile<i32> iter_values(%v = %tv) -> (tensor_view<?xf16, strides=[1]>) {
      continue %v : tensor_view<?xf16, strides=[1]>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e(%a: tile<ptr<f16>>, %m: tile<i32>) {
    %tv = make_tensor_view %a, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf16, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf16, strides=[1]>>
    // expected-error @+1 {{result type 0 is a tile view, which is not supported}}
    %w = loop iter_values(%v = %pv) : partition_view<tile=(16), tensor_view<?xf16, strides=[1]>> -> partition_view<tile=(16), tensor_view<?xf16, strides=[1]>> {
      break %v : partition_view<tile=(16), tensor_view<?xf16, strides=[1]>>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    // expected-error @+1 {{mismatch in number of loop-carried values and region arguments}}
    %r = "cuda_tile.for"(%c0, %c1, %c1, %c0) ({
    ^bb0(%i: !cuda_tile.tile<i32>):
      "cuda_tile.continue"(%c0) : (!cuda_tile.tile<i32>) -> ()
    }) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> !cuda_tile.tile<i32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    // expected-error @+1 {{iter value #0 type tile<i32> does not match its region argument}}
    %r = "cuda_tile.for"(%c0, %c1, %c1, %c0) ({
    ^bb0(%i: !cuda_tile.tile<i32>, %v: !cuda_tile.tile<i64>):
      "cuda_tile.continue"(%c0) : (!cuda_tile.tile<i32>) -> ()
    }) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> !cuda_tile.tile<i32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    // expected-error @+1 {{expected at least one block argument for induction variable}}
    "cuda_tile.for"(%c0, %c1, %c1) ({
      "cuda_tile.continue"() : () -> ()
    }) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> ()
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    // expected-error @+1 {{expected induction variable to be same type as bounds and step: tile<i64> vs tile<i32>}}
    "cuda_tile.for"(%c0, %c1, %c1) ({
    ^bb0(%i: !cuda_tile.tile<i64>):
      "cuda_tile.continue"() : () -> ()
    }) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> ()
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %l = constant <i64: 0> : tile<i64>
    // expected-error @+1 {{result types must match the iter_values types}}
    %r = "cuda_tile.for"(%c0, %c1, %c1, %c0) ({
    ^bb0(%i: !cuda_tile.tile<i32>, %v: !cuda_tile.tile<i32>):
      "cuda_tile.continue"(%l) : (!cuda_tile.tile<i64>) -> ()
    }) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> !cuda_tile.tile<i64>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %c = constant <i1: true> : tile<i1>
    // expected-error @+1 {{'then' region must have exactly one block}}
    "cuda_tile.if"(%c) ({
    }, {
    }) : (!cuda_tile.tile<i1>) -> ()
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{expected an assume predicate attribute}}
    %b = "cuda_tile.assume"(%a) <{predicate = 5 : i32}> : (!cuda_tile.tile<4xi32>) -> !cuda_tile.tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i64: 1> : tile<4xi64>
    // expected-error @+1 {{'cuda_tile.div_by' divisor is too large}}
    %b = assume div_by<9223372036854775808>, %a : tile<4xi64>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f16>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf16, strides=[1]>
    // expected-error @+1 {{'cuda_tile.div_by' 'every'/'along' cannot be used if the constrained value is a tensor_view}}
    %b = assume div_by<16, every 2 along 0>, %tv : tensor_view<?xf16, strides=[1]>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f16>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf16, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf16, strides=[1]>>
    // expected-error @+1 {{div_by predicate applies to integer or pointer tiles}}
    %b = assume div_by<16>, %pv : partition_view<tile=(16), tensor_view<?xf16, strides=[1]>>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{'every' must be a positive power of 2, got 3}}
    %b = assume div_by<4, every 3 along 0>, %a : tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{'every' (8) exceeds dimension 0 (4)}}
    %b = assume div_by<4, every 8 along 0>, %a : tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4x8xi32>
    // expected-error @+1 {{expected 2 values in same_elements, got 1}}
    %b = assume same_elements<[2]>, %a : tile<4x8xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i32: 1> : tile<4x8xi32>
    // expected-error @+1 {{same_elements value #1 (3) must be a power of 2 dividing 8}}
    %b = assume same_elements<[2, 3]>, %a : tile<4x8xi32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %a = constant <i8: 1> : tile<4xi8>
    // expected-error @+1 {{'cuda_tile.bounded' expects upper bound to be within [-128, 127]}}
    %b = assume bounded<0, 300>, %a : tile<4xi8>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{expected at least one operand}}
    "cuda_tile.reduce"() <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%a: !cuda_tile.tile<f32>, %b: !cuda_tile.tile<f32>):
        %s = "cuda_tile.addf"(%a, %b) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>) -> !cuda_tile.tile<f32>
        "cuda_tile.yield"(%s) : (!cuda_tile.tile<f32>) -> ()
    }) : () -> ()
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{expected 1 results, got 2}}
    %r:2 = "cuda_tile.reduce"(%x) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%a: !cuda_tile.tile<f32>, %b: !cuda_tile.tile<f32>):
        %s = "cuda_tile.addf"(%a, %b) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>) -> !cuda_tile.tile<f32>
        "cuda_tile.yield"(%s) : (!cuda_tile.tile<f32>) -> ()
    }) : (!cuda_tile.tile<4xf32>) -> (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>)
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    %y = constant <f32: 1.0> : tile<8xf32>
    // expected-error @+1 {{all operands must have the same shape}}
    %r:2 = "cuda_tile.reduce"(%x, %y) <{dim = 0 : i32, identities = [0.000000e+00 : f32, 0.000000e+00 : f32]}> ({
      ^bb0(%a: !cuda_tile.tile<f32>, %b: !cuda_tile.tile<f32>, %c: !cuda_tile.tile<f32>, %d: !cuda_tile.tile<f32>):
        "cuda_tile.yield"(%a, %c) : (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>) -> ()
    }) : (!cuda_tile.tile<4xf32>, !cuda_tile.tile<8xf32>) -> (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>)
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{expected 1 identities, got 2}}
    %r = "cuda_tile.reduce"(%x) <{dim = 0 : i32, identities = [0.000000e+00 : f32, 1.000000e+00 : f32]}> ({
      ^bb0(%a: !cuda_tile.tile<f32>, %b: !cuda_tile.tile<f32>):
        %s = "cuda_tile.addf"(%a, %b) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>) -> !cuda_tile.tile<f32>
        "cuda_tile.yield"(%s) : (!cuda_tile.tile<f32>) -> ()
    }) : (!cuda_tile.tile<4xf32>) -> !cuda_tile.tile<f32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{identity #0 type must match operand element type f32}}
    %r = "cuda_tile.reduce"(%x) <{dim = 0 : i32, identities = [0 : i32]}> ({
      ^bb0(%a: !cuda_tile.tile<f32>, %b: !cuda_tile.tile<f32>):
        %s = "cuda_tile.addf"(%a, %b) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>) -> !cuda_tile.tile<f32>
        "cuda_tile.yield"(%s) : (!cuda_tile.tile<f32>) -> ()
    }) : (!cuda_tile.tile<4xf32>) -> !cuda_tile.tile<f32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{expected 2 region arguments, got 1}}
    %r = "cuda_tile.reduce"(%x) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%a: !cuda_tile.tile<f32>):
        "cuda_tile.yield"(%a) : (!cuda_tile.tile<f32>) -> ()
    }) : (!cuda_tile.tile<4xf32>) -> !cuda_tile.tile<f32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{region must end with 'yield'}}
    %r = "cuda_tile.reduce"(%x) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%a: !cuda_tile.tile<f32>, %b: !cuda_tile.tile<f32>):
    }) : (!cuda_tile.tile<4xf32>) -> !cuda_tile.tile<f32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    %r = "cuda_tile.reduce"(%x) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%a: !cuda_tile.tile<f32>, %b: !cuda_tile.tile<f32>):
        // expected-error @+1 {{'yield' must return one scalar tile per operand with its element type}}
        "cuda_tile.yield"(%a, %b) : (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>) -> ()
    }) : (!cuda_tile.tile<4xf32>) -> !cuda_tile.tile<f32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    %r = "cuda_tile.scan"(%x) <{dim = 0 : i32, identities = [0.000000e+00 : f32], reverse = false}> ({
      ^bb0(%a: !cuda_tile.tile<f32>, %b: !cuda_tile.tile<f32>):
        // expected-error @+1 {{'cuda_tile.print_tko' op only pure operations are allowed inside 'cuda_tile.scan'}}
        %t = print_tko "x %f\n", %a : tile<f32> -> token
        "cuda_tile.yield"(%a) : (!cuda_tile.tile<f32>) -> ()
    }) : (!cuda_tile.tile<4xf32>) -> !cuda_tile.tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{base pointer element type must match the tensor_view element type}}
    %tv = "cuda_tile.make_tensor_view"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!cuda_tile.tile<ptr<f32>>, !cuda_tile.tile<i32>) -> !cuda_tile.tensor_view<?xf16, strides=[1]>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{expected 1 dynamic shape operands, got 0}}
    %tv = "cuda_tile.make_tensor_view"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!cuda_tile.tile<ptr<f32>>) -> !cuda_tile.tensor_view<?xf32, strides=[1]>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{expected 0 dynamic stride operands, got 1}}
    %tv = "cuda_tile.make_tensor_view"(%p, %m, %m) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!cuda_tile.tile<ptr<f32>>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> !cuda_tile.tensor_view<?xf32, strides=[1]>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{all dynamic shape and stride operands must have the same type}}
    %tv = "cuda_tile.make_tensor_view"(%p, %m, %l) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!cuda_tile.tile<ptr<f32>>, !cuda_tile.tile<i32>, !cuda_tile.tile<i64>) -> !cuda_tile.tensor_view<?xf32, strides=[?]>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    // expected-error @+1 {{expected the type of the provided tensor_view value}}
        %pv = "cuda_tile.make_partition_view"(%tv) : (!cuda_tile.tensor_view<?xf32, strides=[1]>) -> !cuda_tile.partition_view<tile=(16), tensor_view<64xf32, strides=[1]>>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{unexpected source type tile<i32>}}
    %kt = "cuda_tile.get_index_space_shape"(%m) : (!cuda_tile.tile<i32>) -> !cuda_tile.tile<i32>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
        %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    // expected-error @+1 {{expected 1 results due to rank, but got 2}}
        %kt:2 = "cuda_tile.get_index_space_shape"(%pv) : (!cuda_tile.partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>) -> (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>)
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
        %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    // expected-error @+1 {{results must be scalar integer tiles, got tile<f32>}}
        %kt = "cuda_tile.get_index_space_shape"(%pv) : (!cuda_tile.partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>) -> !cuda_tile.tile<f32>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    %tv = make_tensor_view %p, shape = [%m, %m], strides = [%m, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
        %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    // expected-error @+1 {{all results must have the same type}}
        %kt:2 = "cuda_tile.get_index_space_shape"(%pv) : (!cuda_tile.partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>) -> (!cuda_tile.tile<i32>, !cuda_tile.tile<i64>)
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{weak memory ordering semantics must not specify a memory scope}}
    %v, %t1 = "cuda_tile.load_ptr_tko"(%pts, %tok) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, memory_scope = #cuda_tile.memory_scope<device>, operandSegmentSizes = array<i32: 1, 0, 0, 1>}> : (!cuda_tile.tile<64xptr<i32>>, !cuda_tile.token) -> (!cuda_tile.tile<64xi32>, !cuda_tile.token)
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{shape of 'mask' must match the shape of 'source'}}
    %v, %t1 = "cuda_tile.load_ptr_tko"(%pts, %mk32, %tok) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (!cuda_tile.tile<64xptr<i32>>, !cuda_tile.tile<32xi1>, !cuda_tile.token) -> (!cuda_tile.tile<64xi32>, !cuda_tile.token)
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{`source` type is expected a pointer type of `result` type}}
    %v, %t1 = "cuda_tile.load_ptr_tko"(%pts, %tok) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 0, 0, 1>}> : (!cuda_tile.tile<64xptr<i32>>, !cuda_tile.token) -> (!cuda_tile.tile<64xf32>, !cuda_tile.token)
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{type of 'paddingValue' must match the type of 'result'}}
    %v, %t1 = "cuda_tile.load_ptr_tko"(%pts, %mk, %zf, %tok) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (!cuda_tile.tile<64xptr<i32>>, !cuda_tile.tile<64xi1>, !cuda_tile.tile<64xf32>, !cuda_tile.token) -> (!cuda_tile.tile<64xi32>, !cuda_tile.token)
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{`destination` type is expected a pointer type of `value` type}}
    %t2 = "cuda_tile.store_ptr_tko"(%pts, %zf, %tok) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (!cuda_tile.tile<64xptr<i32>>, !cuda_tile.tile<64xf32>, !cuda_tile.token) -> !cuda_tile.token
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{shape of 'destination' must match the shape of 'mask'}}
    %t2 = "cuda_tile.store_ptr_tko"(%pts, %z, %mk32, %tok) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (!cuda_tile.tile<64xptr<i32>>, !cuda_tile.tile<64xi32>, !cuda_tile.tile<32xi1>, !cuda_tile.token) -> !cuda_tile.token
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %q: tile<ptr<i32>>, %m: tile<i32>, %l: tile<i64>) {
    %pt = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pts = broadcast %pt : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %tok = make_token : token
    %mk = constant <i1: true> : tile<64xi1>
    %mk32 = constant <i1: true> : tile<32xi1>
    %z = constant <i32: 0> : tile<64xi32>
    %zf = constant <f32: 0.0> : tile<64xf32>
    // expected-error @+1 {{pointee type must match the value type}}
    %old, %t3 = "cuda_tile.atomic_rmw_tko"(%pts, %zf) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<acq_rel>, memory_scope = #cuda_tile.memory_scope<device>, mode = #cuda_tile.atomic_rmw_mode<addf>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!cuda_tile.tile<64xptr<i32>>, !cuda_tile.tile<64xf32>) -> (!cuda_tile.tile<64xf32>, !cuda_tile.token)
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %x = constant <f32: 1.0> : tile<4xf32>
    %y = constant <f32: 1.0> : tile<16xf32>
    %acc = constant <f32: 0.0> : tile<16x16xf32>
    %xi = constant <i32: 1> : tile<4xi32>
    // expected-error @+1 {{source and destination must have the same element type}}
    %z = "cuda_tile.insert"(%xi, %y, %c0) : (!cuda_tile.tile<4xi32>, !cuda_tile.tile<16xf32>, !cuda_tile.tile<i32>) -> !cuda_tile.tile<16xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %x = constant <f32: 1.0> : tile<4xf32>
    %y = constant <f32: 1.0> : tile<16xf32>
    %acc = constant <f32: 0.0> : tile<16x16xf32>
    %x2 = constant <f32: 1.0> : tile<2x2xf32>
    // expected-error @+1 {{source of rank 2 for a destination of rank 1}}
    %z = "cuda_tile.insert"(%x2, %y, %c0) : (!cuda_tile.tile<2x2xf32>, !cuda_tile.tile<16xf32>, !cuda_tile.tile<i32>) -> !cuda_tile.tile<16xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %x = constant <f32: 1.0> : tile<4xf32>
    %y = constant <f32: 1.0> : tile<16xf32>
    %acc = constant <f32: 0.0> : tile<16x16xf32>
    // expected-error @+1 {{'inbounds' must be an array of i1, got elements of type i32}}
    %ta, %t1 = "cuda_tile.load_view_tko"(%pv, %c0, %tok) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, inbounds = array<i32: 1>, operandSegmentSizes = array<i32: 1, 1, 1>}> : (!cuda_tile.partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, !cuda_tile.tile<i32>, !cuda_tile.token) -> (!cuda_tile.tile<16xf32>, !cuda_tile.token)
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %x = constant <f32: 1.0> : tile<4xf32>
    %y = constant <f32: 1.0> : tile<16xf32>
    %acc = constant <f32: 0.0> : tile<16x16xf32>
    // expected-error @+1 {{expected a tile view, got tensor_view<?xf32, strides=[1]>}}
    %ta, %t1 = "cuda_tile.load_view_tko"(%tv, %c0, %tok) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 1>}> : (!cuda_tile.tensor_view<?xf32, strides=[1]>, !cuda_tile.tile<i32>, !cuda_tile.token) -> (!cuda_tile.tile<16xf32>, !cuda_tile.token)
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %x = constant <f32: 1.0> : tile<4xf32>
    %y = constant <f32: 1.0> : tile<16xf32>
    %acc = constant <f32: 0.0> : tile<16x16xf32>
    %a = constant <f8E5M2: 0.0> : tile<16x64xf8E5M2>
    %b = constant <f8E5M2: 0.0> : tile<64x16xf8E5M2>
    %sa = constant <f8E4M3FN: 1.0> : tile<16x2xf8E4M3FN>
    %sb = constant <f8E4M3FN: 1.0> : tile<2x16xf8E4M3FN>
    // expected-error @+1 {{unsupported combination of element types. Scale type 'f8E4M3FN' expects lhs and rhs element types to be 'f4E2M1FN', but got 'f8E5M2'}}
    %d = mmaf_scaled %a, %b, %acc, %sa, %sb : tile<16x64xf8E5M2>, tile<64x16xf8E5M2>, tile<16x16xf32>, tile<16x2xf8E4M3FN>, tile<2x16xf8E4M3FN>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %x = constant <f32: 1.0> : tile<4xf32>
    %y = constant <f32: 1.0> : tile<16xf32>
    %acc = constant <f32: 0.0> : tile<16x16xf32>
    %a = constant <f8E5M2: 0.0> : tile<16x64xf8E5M2>
    %b = constant <f8E5M2: 0.0> : tile<64x16xf8E5M2>
    %sa = constant <f8E8M0FNU: 1.0> : tile<16x128xf8E8M0FNU>
    %sb = constant <f8E8M0FNU: 1.0> : tile<128x16xf8E8M0FNU>
    // expected-error @+1 {{shape error: dim 1 of lhs_scale (128) must be a divisor of dim 1 of lhs (64)}}
    %d = mmaf_scaled %a, %b, %acc, %sa, %sb : tile<16x64xf8E5M2>, tile<64x16xf8E5M2>, tile<16x16xf32>, tile<16x128xf8E8M0FNU>, tile<128x16xf8E8M0FNU>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %x = constant <f32: 1.0> : tile<4xf32>
    %y = constant <f32: 1.0> : tile<16xf32>
    %acc = constant <f32: 0.0> : tile<16x16xf32>
    %a = constant <f8E5M2: 0.0> : tile<16x64xf8E5M2>
    %b = constant <f8E5M2: 0.0> : tile<64x16xf8E5M2>
    %sa = constant <f8E8M0FNU: 1.0> : tile<16x4xf8E8M0FNU>
    %sb = constant <f8E8M0FNU: 1.0> : tile<4x16xf8E8M0FNU>
    // expected-error @+1 {{shape error: f8 element type requires block scale factor of lhs_scale and rhs_scale to be 32, but got 16}}
    %d = mmaf_scaled %a, %b, %acc, %sa, %sb : tile<16x64xf8E5M2>, tile<64x16xf8E5M2>, tile<16x16xf32>, tile<16x4xf8E8M0FNU>, tile<4x16xf8E8M0FNU>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %x = constant <f32: 1.0> : tile<4xf32>
    %y = constant <f32: 1.0> : tile<16xf32>
    %acc = constant <f32: 0.0> : tile<16x16xf32>
    %a = constant <f4E2M1FN: 0.0> : tile<16x64xf4E2M1FN>
    %b = constant <f4E2M1FN: 0.0> : tile<64x16xf4E2M1FN>
    %sa = constant <f8E4M3FN: 1.0> : tile<16x2xf8E4M3FN>
    %sb = constant <f8E4M3FN: 1.0> : tile<2x16xf8E4M3FN>
    // expected-error @+1 {{shape error: f4E2M1FN element type with f8E4M3FN scales requires block scale factor of lhs_scale and rhs_scale to be 16, but got 32}}
    %d = mmaf_scaled %a, %b, %acc, %sa, %sb : tile<16x64xf4E2M1FN>, tile<64x16xf4E2M1FN>, tile<16x16xf32>, tile<16x2xf8E4M3FN>, tile<2x16xf8E4M3FN>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>, %m: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %x = constant <f32: 1.0> : tile<4xf32>
    %y = constant <f32: 1.0> : tile<16xf32>
    %acc = constant <f32: 0.0> : tile<16x16xf32>
    %a = constant <f4E2M1FN: 0.0> : tile<16x64xf4E2M1FN>
    %b = constant <f4E2M1FN: 0.0> : tile<64x16xf4E2M1FN>
    %sa = constant <f8E8M0FNU: 1.0> : tile<16x1xf8E8M0FNU>
    %sb = constant <f8E8M0FNU: 1.0> : tile<1x16xf8E8M0FNU>
    // expected-error @+1 {{shape error: f4E2M1FN element type with f8E8M0FNU scales requires block scale factor of lhs_scale and rhs_scale to be 16 or 32, but got 64}}
    %d = mmaf_scaled %a, %b, %acc, %sa, %sb : tile<16x64xf4E2M1FN>, tile<64x16xf4E2M1FN>, tile<16x16xf32>, tile<16x1xf8E8M0FNU>, tile<1x16xf8E8M0FNU>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @+1 {{tile would exceed the maximum of}}
    %x = constant <f32: 0.0> : tile<65536x65536xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    // expected-error @+1 {{0-dimension tile shape is not supported}}
    %pv = make_partition_view %tv : partition_view<tile=(), tensor_view<64xf32, strides=[1]>>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    // expected-error @+1 {{target dimension must not be negative, got -1}}
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<64xf32, strides=[1]>, dim_map=[-1]>
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<64xf32, strides=[1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<4xi32>
    // expected-error @+1 {{expected index type to be a scalar tile, got tile<4xi32>}}
    %ta, %t1 = "cuda_tile.load_view_tko"(%pv, %c0, %tok) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 1>}> : (!cuda_tile.partition_view<tile=(16), tensor_view<64xf32, strides=[1]>>, !cuda_tile.tile<4xi32>, !cuda_tile.token) -> (!cuda_tile.tile<16xf32>, !cuda_tile.token)
  }
}

// -----

cuda_tile.module @m {
  entry @e(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i64: 0> : tile<i64>
    // expected-error @+1 {{expected index type 1 to be the same as other index types (tile<i32>), got tile<i64>}}
    %ta, %t1 = "cuda_tile.load_view_tko"(%pv, %c0, %c1, %tok) <{memory_ordering_semantics = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 2, 1>}> : (!cuda_tile.partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>, !cuda_tile.tile<i32>, !cuda_tile.tile<i64>, !cuda_tile.token) -> (!cuda_tile.tile<16x16xf32>, !cuda_tile.token)
  }
}

// -----

// A symbol defined twice: the error is at the second definition, not at the module's first line.
cuda_tile.module @m {
  entry @k() {
  }
  // expected-error @+1 {{Redefinition of symbol "k"}}
  entry @k() {
  }
}

// -----

// Sweep 30: a max reduce's body yielding an i32 (a value from outside the body) -- reported at the yield, the
// line written wrong (was at the reduce).
cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    %k = constant <i32: 64> : tile<i32>
    %r = reduce %x dim=0 identities=[0xff800000 : f32] : tile<4xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      %m = maxf %a, %b : tile<f32>
      // expected-error @+1 {{'yield' must return one scalar tile per operand with its element type}}
      yield %k : tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    %r = scan %x dim=0 reverse=false identities=[0.000000e+00 : f32] : tile<4xf32> -> tile<4xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      %s = addf %a, %b : tile<f32>
      // expected-error @+1 {{'yield' must return one scalar tile per operand with its element type}}
      yield %s, %s : tile<f32>, tile<f32>
    }
  }
}

// -----

// Sweep 34: a cuda_tile.module pasted twice into one builtin.module -- at the second, naming the first (was at the
// builtin.module's line).
builtin.module {
  cuda_tile.module @twice {
    entry @k() {
    }
  }
  // expected-error @+1 {{Redefinition of symbol "twice", first defined at}}
  cuda_tile.module @twice {
    entry @k() {
    }
  }
}
