// RUN: tileorch-opt %s --split-input-file -p tileas-fold-dot-accumulate | filecheck %s
// acc += a @ b (cuTile: a dot into a zero f16 accumulator, a cast to f32, an add into the
// loop-carried accumulator) becomes one dot accumulating into the carried f32 accumulator.
builtin.module {
  func.func @plus_matmul(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %n: i32) -> tensor<128x128xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<128x128xf32>
    %z16 = arith.constant dense<0.0> : tensor<128x128xf16>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> (tensor<128x128xf32>) : i32 {
      %p = nv_tileaa.dot %a, %b, %z16 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf16> -> tensor<128x128xf16>
      %w = nv_tileaa.fp_to_fp %p : tensor<128x128xf16> -> tensor<128x128xf32>
      %s = nv_tileaa.addf %x, %w : tensor<128x128xf32>
      scf.yield %s : tensor<128x128xf32>
    }
    func.return %acc : tensor<128x128xf32>
  }
}
// CHECK:      scf.for %{{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (tensor<128x128xf32>)
// CHECK-NEXT:   %[[D:.*]] = nv_tileaa.dot %{{.*}}, %{{.*}}, %[[X]] {{.*}}: tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
// CHECK-NEXT:   scf.yield %[[D]] : tensor<128x128xf32>

// -----
// bf16: cuTile's a @ b is an f32 dot rounded to bf16, widened back to f32 for the add (two
// casts): one dot accumulating into the carried f32 accumulator, the casts gone.
builtin.module {
  func.func @plus_matmul_bf16(%a: tensor<128x32xbf16>, %b: tensor<32x128xbf16>, %n: i32) -> tensor<128x128xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<128x128xf32>
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> (tensor<128x128xf32>) : i32 {
      %p = nv_tileaa.dot %a, %b, %z : tensor<128x32xbf16>, tensor<32x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      %r = nv_tileaa.fp_to_fp %p : tensor<128x128xf32> -> tensor<128x128xbf16>
      %w = nv_tileaa.fp_to_fp %r : tensor<128x128xbf16> -> tensor<128x128xf32>
      %s = nv_tileaa.addf %x, %w : tensor<128x128xf32>
      scf.yield %s : tensor<128x128xf32>
    }
    func.return %acc : tensor<128x128xf32>
  }
}
// CHECK-LABEL: func.func @plus_matmul_bf16
// CHECK:      scf.for %{{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (tensor<128x128xf32>)
// CHECK-NEXT:   %[[D:.*]] = nv_tileaa.dot %{{.*}}, %{{.*}}, %[[X]] {{.*}}: tensor<128x32xbf16>, tensor<32x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
// CHECK-NEXT:   scf.yield %[[D]] : tensor<128x128xf32>

// -----
// The dot's accumulator is not zero: the add is kept (a different computation).
builtin.module {
  func.func @nonzero(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %n: i32) -> tensor<128x128xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<128x128xf32>
    %one = arith.constant dense<1.0> : tensor<128x128xf32>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> (tensor<128x128xf32>) : i32 {
      %p = nv_tileaa.dot %a, %b, %one : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      %s = nv_tileaa.addf %x, %p : tensor<128x128xf32>
      scf.yield %s : tensor<128x128xf32>
    }
    func.return %acc : tensor<128x128xf32>
  }
}
// CHECK-LABEL: func.func @nonzero
// CHECK:       nv_tileaa.dot %{{.*}}, %{{.*}}, %{{.*}} {{.*}}: tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>
// CHECK-NEXT:  nv_tileaa.addf
