// nv_tileaa verifier rules that had no negative test (tools/untested_diagnostics.py, session 19), in
// the generic form: make_memref operands, block_tile's memref, tiled_load indices and in_bounds,
// divf rounding and arity, splat element types, extract of a scalar, reshape shapes, the func's
// signature and kernel spec.  (Rules the ops' IRDL constraints made unreachable were removed.)
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.ptr<f32>, i32) -> ()}> ({
  ^bb0(%p: !nv_tileaa.ptr<f32>, %n: i32):
    %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %f = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    // expected-error @+1 {{shape and stride operands must be integers, got f32}}
    %m = "nv_tileaa.make_memref"(%p, %f) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!nv_tileaa.ptr<f32>, f32) -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.ptr<f32>, i32) -> ()}> ({
  ^bb0(%p: !nv_tileaa.ptr<f32>, %n: i32):
    %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %f = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    // expected-error @+1 {{expected 0 stride operands (one per '?' stride), got 1}}
    %m = "nv_tileaa.make_memref"(%p, %n, %n) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!nv_tileaa.ptr<f32>, i32, i32) -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.ptr<f32>, i32) -> ()}> ({
  ^bb0(%p: !nv_tileaa.ptr<f32>, %n: i32):
    %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %f = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    %m = "nv_tileaa.make_memref"(%p, %n) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!nv_tileaa.ptr<f32>, i32) -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    // expected-error @+1 {{the tiled_view's memref type differs from the operand's type}}
    %v = "nv_tileaa.block_tile"(%m) : (!nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>) -> !nv_tileaa.tiled_view<array<i32: 16>, array<i32: 16>, array<i32: 0>, !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.ptr<f32>, i32) -> ()}> ({
  ^bb0(%p: !nv_tileaa.ptr<f32>, %n: i32):
    %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %f = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    %m = "nv_tileaa.make_memref"(%p, %n) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!nv_tileaa.ptr<f32>, i32) -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %v = "nv_tileaa.block_tile"(%m) : (!nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>) -> !nv_tileaa.tiled_view<array<i32: 16>, array<i32: 16>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
    // expected-error @+1 {{tile indices must be integers, got f32}}
    %l, %lt = "nv_tileaa.tiled_load"(%v, %f, %tok) <{operandSegmentSizes = array<i32: 1, 1, 1>, mem_semantic = #nv_tileaa.mem_semantic<weak>}> : (!nv_tileaa.tiled_view<array<i32: 16>, array<i32: 16>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>, f32, !nv_tileaa.mem_token) -> (tensor<16xf32>, !nv_tileaa.mem_token)
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.ptr<f32>, i32) -> ()}> ({
  ^bb0(%p: !nv_tileaa.ptr<f32>, %n: i32):
    %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %f = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    %m = "nv_tileaa.make_memref"(%p, %n) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!nv_tileaa.ptr<f32>, i32) -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %v = "nv_tileaa.block_tile"(%m) : (!nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>) -> !nv_tileaa.tiled_view<array<i32: 16>, array<i32: 16>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
    // expected-error @+1 {{in_bounds needs one entry per dimension}}
    %l, %lt = "nv_tileaa.tiled_load"(%v, %c0, %tok) <{in_bounds = array<i1: true, true>, operandSegmentSizes = array<i32: 1, 1, 1>, mem_semantic = #nv_tileaa.mem_semantic<weak>}> : (!nv_tileaa.tiled_view<array<i32: 16>, array<i32: 16>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>, i32, !nv_tileaa.mem_token) -> (tensor<16xf32>, !nv_tileaa.mem_token)
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.ptr<f32>, i32) -> ()}> ({
  ^bb0(%p: !nv_tileaa.ptr<f32>, %n: i32):
    %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %f = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    // expected-error @+1 {{'nv_tileaa.divf' rounding 'nearest': approx, full, rz, rm or rp, optionally .ftz (or none: IEEE)}}
    %d = "nv_tileaa.divf"(%t, %t) <{rounding = "nearest"}> : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.ptr<f32>, i32) -> ()}> ({
  ^bb0(%p: !nv_tileaa.ptr<f32>, %n: i32):
    %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %f = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    // expected-error @+1 {{'nv_tileaa.divf' takes 2 operands, got 3}}
    %d = "nv_tileaa.divf"(%t, %t, %t) : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.ptr<f32>, i32) -> ()}> ({
  ^bb0(%p: !nv_tileaa.ptr<f32>, %n: i32):
    %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %f = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    // expected-error @+1 {{splat of f32 into a tile of f16}}
    %s = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf16>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.ptr<f32>, i32) -> ()}> ({
  ^bb0(%p: !nv_tileaa.ptr<f32>, %n: i32):
    %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %f = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    // expected-error @+1 {{extract from a non-tensor takes no indices}}
    %x = "nv_tileaa.extract"(%f) <{indices = array<i32: 0>}> : (f32) -> f32
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = (!nv_tileaa.ptr<f32>, i32) -> ()}> ({
  ^bb0(%p: !nv_tileaa.ptr<f32>, %n: i32):
    %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %f = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    // expected-error @+1 {{reshape takes static shapes}}
    %r = "nv_tileaa.reshape"(%t) : (tensor<16xf32>) -> tensor<?xf32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  // expected-error @+1 {{entry block arguments do not match the function type}}
  "nv_tileaa.func"() <{sym_name = "k", function_type = (i32) -> ()}> ({
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  // expected-error @+1 {{'nv_tileaa.kernel_spec' must be a #nv_tileaa.kernel_spec, got 3 : i32}}
  "nv_tileaa.func"() <{sym_name = "k", function_type = () -> ()}> ({
    "nv_tileaa.return"() : () -> ()
  }) {nv_tileaa.kernel_spec = 3 : i32} : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  // expected-error @+1 {{a tile kernel returns nothing}}
  "nv_tileaa.func"() <{sym_name = "k", function_type = () -> i32}> ({
    %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    "nv_tileaa.return"(%c0) : (i32) -> ()
  }) {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} : () -> ()
}) : () -> ()
