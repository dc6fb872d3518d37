// RUN: tileorch-opt %s --split-input-file -p convert-cudatile-to-tileaa --verify-diagnostics | filecheck %s

// cuda_tile.sqrt's rounding modes: nearest_even (and approx, for which the correctly rounded root
// is one answer) lower to nv_tileaa.sqrt; the directed roundings (zero, negative_inf,
// positive_inf: cuTile's ct.sqrt(x, rounding_mode=RZ / RM / RP)) are a located "not supported
// yet", not the nearest-even root (session 25's sweep 21 found rounding<positive_inf> lowered to
// sqrt.rn.f32).

// CHECK-LABEL: nv_tileaa.func @k
cuda_tile.module @m {
  entry @k() {
    %x = constant <f32: 2.0> : tile<8xf32>
    // CHECK: nv_tileaa.sqrt %{{.*}} : tensor<8xf32>
    %a = sqrt %x rounding<nearest_even> : tile<8xf32>
    // CHECK: nv_tileaa.sqrt %{{.*}} : tensor<8xf32>
    %b = sqrt %x rounding<approx> : tile<8xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @k() {
    %x = constant <f32: 2.0> : tile<8xf32>
    // expected-error @+1 {{'cuda_tile.sqrt' with rounding<positive_inf> is not supported yet by convert-cudatile-to-tileaa}}
    %a = sqrt %x rounding<positive_inf> : tile<8xf32>
  }
}

// -----

cuda_tile.module @m {
  entry @k() {
    %x = constant <f64: 2.0> : tile<8xf64>
    // expected-error @+1 {{'cuda_tile.sqrt' with rounding<zero> is not supported yet by convert-cudatile-to-tileaa}}
    %a = sqrt %x rounding<zero> : tile<8xf64>
  }
}

// -----

cuda_tile.module @m {
  entry @k() {
    %x = constant <f32: 2.0> : tile<8xf32>
    // expected-error @+1 {{'cuda_tile.sqrt' with rounding<negative_inf> is not supported yet by convert-cudatile-to-tileaa}}
    %a = sqrt %x rounding<negative_inf> : tile<8xf32>
  }
}
