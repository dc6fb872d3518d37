// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
builtin.module {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<f16>, %m: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %p[%m] [%m] : !nv_tileaa.ptr<f16> [i32] [i32] -> !m
    nv_tileaa.return
  }
}
// CHECK: verify_errors.mlir:6:5: error: expected 2 shape operands (one per '?' extent), got 1

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%v: !v, %i: i32) {
    %a, %t = nv_tileaa.tiled_load %v[%i, %i] : !v [i32, i32] -> tensor<64x64xf16>
    nv_tileaa.return
  }
}
// CHECK: error: tiled_load tile shape [64, 64] differs from the view's tile shape [128, 64]

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%v: !v, %i: i32) {
    %a, %t = nv_tileaa.tiled_load %v[%i] : !v [i32] -> tensor<128x64xf16>
    nv_tileaa.return
  }
}
// CHECK: error: tiled_load needs 2 tile indices, got 1

// -----

builtin.module {
  nv_tileaa.func @k(%a: tensor<128x64xf16>, %b: tensor<32x128xf16>, %c: tensor<128x128xf32>) {
    %d = nv_tileaa.dot %a, %b, %c : tensor<128x64xf16>, tensor<32x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    nv_tileaa.return
  }
}
// CHECK: error: dot contraction sizes differ: lhs K = 64, rhs K = 32

// -----

builtin.module {
  nv_tileaa.func @k(%x: i32) {
    %y = nv_tileaa.assume %x {predicate = #nv_tileaa.div_by<12>} : i32
    nv_tileaa.return
  }
}
// CHECK: error: div_by divisor must be a positive power of two, got 12

// -----

builtin.module {
  nv_tileaa.func @k() attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<3, 4>} {
    nv_tileaa.return
  }
}
// CHECK: kernel_spec num_ctas must be a power of two in [1, 16], got 3

// -----

builtin.module {
  nv_tileaa.func @k(%x: tensor<4x8xf32>) {
    %y = nv_tileaa.broadcast %x : tensor<4x8xf32> -> tensor<4x16xf32>
    nv_tileaa.return
  }
}
// CHECK: error: cannot broadcast shape [4, 8] to [4, 16]: only extent-1 dimensions grow

// -----

builtin.module {
  nv_tileaa.func @k() {
    %p = nv_tileaa.get_program_id {axis = 3 : i32} : i32
    nv_tileaa.return
  }
}
// CHECK: error: axis must be 0, 1 or 2, got 3

// -----

builtin.module {
  nv_tileaa.func @k(%x: tensor<4xi32>) {
    %y = nv_tileaa.addf %x, %x : tensor<4xi32>
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.addf' expects float elements, got tensor<4xi32>

// -----

builtin.module {
  nv_tileaa.func @k(%a: tensor<1x128x64xf16>) {
    %b = nv_tileaa.reshape %a : tensor<1x128x64xf16> -> tensor<128x32xf16>
    nv_tileaa.return
  }
}
// CHECK: error: reshape of [1, 128, 64] (8192 elements) to [128, 32] (4096 elements)

// -----

builtin.module {
  nv_tileaa.func @k(%a: tensor<1x128x64xf16>) {
    %b = nv_tileaa.reshape %a : tensor<1x128x64xf16> -> tensor<128x64xf32>
    nv_tileaa.return
  }
}
// CHECK: error: reshape keeps the element type: f16 -> f32

// -----

// An integer dot (cuda_tile.mmai) accumulates in an integer.
builtin.module {
  nv_tileaa.func @k(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %c: tensor<64x64xf32>) {
    %d = nv_tileaa.dot %a, %b, %c {signedness_a = #nv_tileaa.signedness<signed>} : tensor<64x32xi8>, tensor<32x64xi8>, tensor<64x64xf32> -> tensor<64x64xf32>
    nv_tileaa.return
  }
}
// CHECK: error: dot of integer operands (i8) needs an integer accumulator, got f32

// -----

// signedness applies to integer operands only.
builtin.module {
  nv_tileaa.func @k(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
    %d = nv_tileaa.dot %a, %b, %c {signedness_b = #nv_tileaa.signedness<unsigned>} : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    nv_tileaa.return
  }
}
// CHECK: error: signedness_a/signedness_b apply to integer operands only, got f16

// -----

// Float operands accumulate in a float.
builtin.module {
  nv_tileaa.func @k(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xi32>) {
    %d = nv_tileaa.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xi32> -> tensor<64x64xi32>
    nv_tileaa.return
  }
}
// CHECK: error: dot of float operands (f16) needs a float accumulator, got i32

// -----

// The signedness keyword is signed or unsigned.
builtin.module {
  nv_tileaa.func @k(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %c: tensor<64x64xi32>) {
    %d = nv_tileaa.dot %a, %b, %c {signedness_a = #nv_tileaa.signedness<twos>} : tensor<64x32xi8>, tensor<32x64xi8>, tensor<64x64xi32> -> tensor<64x64xi32>
    nv_tileaa.return
  }
}
// CHECK: error: expected one of signed, unsigned, got 'twos'
