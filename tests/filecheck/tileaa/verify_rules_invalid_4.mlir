// nv_tileaa verifier rules that had no negative test (tools/untested_diagnostics.py, session 21):
// memref extents vs strides, tiled_view entries per rank, positive tile/step extents and a
// permutation order, int_to_ptr's i64 source, reduce/scan result and identity counts, result shape
// and the combiner's arguments.  (cmpi/cmpf's "compares tiles of one type" and select's "one tile
// type" were unreachable: the ops' IRDL type variable rejects both first; removed.)
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

"builtin.module"() ({
  // expected-error @+1 {{memref has 2 extents but 1 strides}}
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: 1>, i32>) -> ()}> ({
  ^bb0(%m: !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: 1>, i32>):
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  // expected-error @+1 {{tiled_view step has 2 entries for a rank-1 memref}}
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.tiled_view<array<i32: 16>, array<i32: 16, 16>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>) -> ()}> ({
  ^bb0(%m: !nv_tileaa.tiled_view<array<i32: 16>, array<i32: 16, 16>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>):
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  // expected-error @+1 {{tiled_view tile and step extents must be positive}}
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.tiled_view<array<i32: 0>, array<i32: 16>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>) -> ()}> ({
  ^bb0(%m: !nv_tileaa.tiled_view<array<i32: 0>, array<i32: 16>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>):
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  // expected-error @+1 {{tiled_view order [0, 0] is not a permutation of 0..1}}
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.tiled_view<array<i32: 16, 16>, array<i32: 16, 16>, array<i32: 0, 0>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>) -> ()}> ({
  ^bb0(%m: !nv_tileaa.tiled_view<array<i32: 16, 16>, array<i32: 16, 16>, array<i32: 0, 0>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>):
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (i32) -> ()}> ({
  ^bb0(%a: i32):
    // expected-error @+1 {{int_to_ptr takes i64 addresses, got i32}}
    %p = "nv_tileaa.int_to_ptr"(%a) : (i32) -> !nv_tileaa.ptr<f32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (tensor<64x128xf32>) -> ()}> ({
  ^bb0(%t: tensor<64x128xf32>):
    // expected-error @+1 {{'nv_tileaa.reduce' needs one result and one identity per operand}}
    %r = "nv_tileaa.reduce"(%t) <{dim = 0 : i32, identities = [0.000000e+00 : f32, 0.000000e+00 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      "nv_tileaa.yield"(%p) : (f32) -> ()
    }) : (tensor<64x128xf32>) -> tensor<128xf32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (tensor<64x128xf32>) -> ()}> ({
  ^bb0(%t: tensor<64x128xf32>):
    // expected-error @+1 {{'nv_tileaa.reduce' result must have shape [128] and the operand element type}}
    %r = "nv_tileaa.reduce"(%t) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      "nv_tileaa.yield"(%p) : (f32) -> ()
    }) : (tensor<64x128xf32>) -> tensor<64xf32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (tensor<64x128xf32>) -> ()}> ({
  ^bb0(%t: tensor<64x128xf32>):
    // expected-error @+1 {{the combiner takes two scalars (accumulated, next) per operand}}
    %r = "nv_tileaa.scan"(%t) <{dim = 1 : i32, identities = [0.000000e+00 : f32], reverse = false}> ({
    ^bb0(%p: f32):
      "nv_tileaa.yield"(%p) : (f32) -> ()
    }) : (tensor<64x128xf32>) -> tensor<64x128xf32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

// cmpf of two tile types: the IRDL type variable's error (the op's own check was unreachable)
"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (tensor<16xf32>, tensor<16xi32>) -> ()}> ({
  ^bb0(%a: tensor<16xf32>, %b: tensor<16xi32>):
    // expected-error @+1 {{operand 'rhs' at position 1 does not verify: attribute tensor<16xf32> expected from variable 'T', but got tensor<16xi32>}}
    %c = "nv_tileaa.cmpf"(%a, %b) <{predicate = "olt"}> : (tensor<16xf32>, tensor<16xi32>) -> tensor<16xi1>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

// select of two tile types: likewise
"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (i1, tensor<16xf32>, tensor<16xi32>) -> ()}> ({
  ^bb0(%c: i1, %a: tensor<16xf32>, %b: tensor<16xi32>):
    // expected-error @+1 {{operand 'rhs' at position 2 does not verify: attribute tensor<16xf32> expected from variable 'T', but got tensor<16xi32>}}
    %s = "nv_tileaa.select"(%c, %a, %b) : (i1, tensor<16xf32>, tensor<16xi32>) -> tensor<16xf32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
