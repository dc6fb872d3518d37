// The nv_tileaa ops with an optional rounding (exp, tanh, sqrt: _RoundedUnaryOp) take only their
// own values: sqrt rz / rm / rp (directed roots, session 25), tanh approx.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = () -> ()}> ({
    %f = "arith.constant"() <{value = 2.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    // expected-error @+1 {{'nv_tileaa.sqrt' rounding 'approx': rz or rm or rp (or none: nearest even)}}
    %s = "nv_tileaa.sqrt"(%t) <{rounding = "approx"}> : (tensor<16xf32>) -> tensor<16xf32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = () -> ()}> ({
    %f = "arith.constant"() <{value = 2.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    // expected-error @+1 {{'nv_tileaa.tanh' rounding 'rz': approx (or none: full precision)}}
    %s = "nv_tileaa.tanh"(%t) <{rounding = "rz"}> : (tensor<16xf32>) -> tensor<16xf32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
