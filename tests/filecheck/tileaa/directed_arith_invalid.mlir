// nv_tileaa.addf / subf / mulf / fma take a directed rounding (rz / rm / rp, session 32: cuTile's
// ct.add(..., rounding_mode=RZ) ...) of f32 and f64 elements only: another value, or f16 / bf16 elements
// (computed in f32, rounded back a second time), is a verifier error at the op.  The valid forms last.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = () -> ()}> ({
    %f = "arith.constant"() <{value = 2.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    // expected-error @+1 {{'nv_tileaa.addf' rounding 'rn': rz, rm or rp (or none: to nearest even)}}
    %s = "nv_tileaa.addf"(%t, %t) <{rounding = "rn"}> : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = () -> ()}> ({
    %f = "arith.constant"() <{value = 2.0 : f32}> : () -> f32
    %t = "nv_tileaa.splat"(%f) : (f32) -> tensor<16xf32>
    // expected-error @+1 {{'nv_tileaa.fma' rounding 'approx': rz, rm or rp (or none: to nearest even)}}
    %s = "nv_tileaa.fma"(%t, %t, %t) <{rounding = "approx"}> : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = () -> ()}> ({
    %f = "arith.constant"() <{value = 2.0 : f16}> : () -> f16
    %t = "nv_tileaa.splat"(%f) : (f16) -> tensor<16xf16>
    // expected-error @+1 {{'nv_tileaa.mulf' rounding 'rz' takes f32 or f64 elements, got f16 (computed in f32, it would be rounded a second time)}}
    %s = "nv_tileaa.mulf"(%t, %t) <{rounding = "rz"}> : (tensor<16xf16>, tensor<16xf16>) -> tensor<16xf16>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = () -> ()}> ({
    %f = "arith.constant"() <{value = 2.0 : bf16}> : () -> bf16
    // expected-error @+1 {{'nv_tileaa.subf' rounding 'rp' takes f32 or f64 elements, got bf16}}
    %s = "nv_tileaa.subf"(%f, %f) <{rounding = "rp"}> : (bf16, bf16) -> bf16
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "nv_tileaa.func"() <{sym_name = "k", function_type = () -> ()}> ({
    %f = "arith.constant"() <{value = 2.0 : f64}> : () -> f64
    %t = "nv_tileaa.splat"(%f) : (f64) -> tensor<16xf64>
    %a = "nv_tileaa.addf"(%t, %t) <{rounding = "rz"}> : (tensor<16xf64>, tensor<16xf64>) -> tensor<16xf64>
    %b = "nv_tileaa.subf"(%t, %t) <{rounding = "rm"}> : (tensor<16xf64>, tensor<16xf64>) -> tensor<16xf64>
    %c = "nv_tileaa.mulf"(%f, %f) <{rounding = "rp"}> : (f64, f64) -> f64
    %d = "nv_tileaa.fma"(%t, %t, %t) <{rounding = "rz"}> : (tensor<16xf64>, tensor<16xf64>, tensor<16xf64>) -> tensor<16xf64>
    "nv_tileaa.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
