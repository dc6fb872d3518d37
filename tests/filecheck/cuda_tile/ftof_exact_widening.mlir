// RUN: tileorch-opt %s --split-input-file -p convert-cudatile-to-tileaa --verify-diagnostics | filecheck %s

// A float conversion that rounds nothing (every value of the source type is one of the target's:
// f16 -> f32, bf16 -> f32, e4m3 -> bf16, e5m2 -> f16, f32 -> f64) lowers with rounding<zero> (cuTile's
// astype(x, float32, rounding_mode=RZ) of an f16 tile) as with the default mode; a conversion
// that rounds keeps its refusal of the modes it has no lowering for.

// CHECK-LABEL: nv_tileaa.func @widen
cuda_tile.module @m {
  entry @widen() {
    %h = constant <f16: 1.5> : tile<8xf16>
    // CHECK: nv_tileaa.fp_to_fp %{{.*}} {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<8xf16> -> tensor<8xf32>
    %a = ftof %h rounding<zero> : tile<8xf16> -> tile<8xf32>
    %b16 = constant <bf16: 1.5> : tile<8xbf16>
    // CHECK: nv_tileaa.fp_to_fp %{{.*}} {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<8xbf16> -> tensor<8xf32>
    %b = ftof %b16 rounding<zero> : tile<8xbf16> -> tile<8xf32>
    %q = constant <f8E4M3FN: 1.5> : tile<8xf8E4M3FN>
    // CHECK: nv_tileaa.fp_to_fp %{{.*}} {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<8xf8E4M3FN> -> tensor<8xbf16>
    %c = ftof %q rounding<zero> : tile<8xf8E4M3FN> -> tile<8xbf16>
    %e = constant <f8E5M2: 1.5> : tile<8xf8E5M2>
    // CHECK: nv_tileaa.fp_to_fp %{{.*}} {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<8xf8E5M2> -> tensor<8xf16>
    %d = ftof %e rounding<zero> : tile<8xf8E5M2> -> tile<8xf16>
    %f = constant <f32: 1.5> : tile<8xf32>
    // CHECK: nv_tileaa.fp_to_fp %{{.*}} {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<8xf32> -> tensor<8xf64>
    %g = ftof %f rounding<zero> : tile<8xf32> -> tile<8xf64>
  }
}

// -----

cuda_tile.module @m {
  entry @narrow() {
    %h = constant <f16: 1.5> : tile<8xf16>
    // f16 -> bf16 rounds (10 mantissa bits into 7): rounding<zero> of it has no lowering yet
    // expected-error @+1 {{'cuda_tile.ftof' with rounding<zero> from f16 to bf16 is not supported yet by convert-cudatile-to-tileaa}}
    %a = ftof %h rounding<zero> : tile<8xf16> -> tile<8xbf16>
  }
}

// -----

cuda_tile.module @m {
  entry @narrow() {
    %f = constant <f64: 1.5> : tile<8xf64>
    // expected-error @+1 {{'cuda_tile.ftof' with rounding<zero> from f64 to f32 is not supported yet by convert-cudatile-to-tileaa}}
    %a = ftof %f rounding<zero> : tile<8xf64> -> tile<8xf32>
  }
}
