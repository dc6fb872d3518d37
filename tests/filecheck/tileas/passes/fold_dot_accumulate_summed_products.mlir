// RUN: tileorch-opt %s --split-input-file -p tileas-fold-dot-accumulate | filecheck %s
// acc += x @ w1 + z @ w2 (cuTile: two f16 dots from zeros, their f16 sum widened to f32 and added into the
// loop-carried accumulator) becomes the chain dot(z, w2, dot(x, w1, acc)): one product over two operand pairs.
builtin.module {
  func.func @summed(%x: tensor<128x64xf16>, %w1: tensor<64x128xf16>, %z: tensor<128x64xf16>, %w2: tensor<64x128xf16>, %n: i32) -> tensor<128x128xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<128x128xf32>
    %z16 = arith.constant dense<0.0> : tensor<128x128xf16>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<128x128xf32>) : i32 {
      %p1 = nv_tileaa.dot %x, %w1, %z16 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf16> -> tensor<128x128xf16>
      %p2 = nv_tileaa.dot %z, %w2, %z16 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf16> -> tensor<128x128xf16>
      %p = nv_tileaa.addf %p1, %p2 : tensor<128x128xf16>
      %w = nv_tileaa.fp_to_fp %p : tensor<128x128xf16> -> tensor<128x128xf32>
      %s = nv_tileaa.addf %a, %w : tensor<128x128xf32>
      scf.yield %s : tensor<128x128xf32>
    }
    func.return %acc : tensor<128x128xf32>
  }
}
// CHECK-LABEL: func.func @summed
// CHECK:      scf.for %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (tensor<128x128xf32>)
// CHECK-NEXT:   %[[D1:.*]] = nv_tileaa.dot %x, %w1, %[[A]] {{.*}}-> tensor<128x128xf32>
// CHECK-NEXT:   %[[D2:.*]] = nv_tileaa.dot %z, %w2, %[[D1]] {{.*}}-> tensor<128x128xf32>
// CHECK-NEXT:   scf.yield %[[D2]] : tensor<128x128xf32>

// -----
// One of the products is used again (stored beside the sum): the sum is kept as written.
builtin.module {
  func.func @product_read_twice(%x: tensor<128x64xf32>, %w1: tensor<64x128xf32>, %z: tensor<128x64xf32>, %w2: tensor<64x128xf32>, %n: i32) -> tensor<128x128xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<128x128xf32>
    %acc, %last = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init, %l = %init) -> (tensor<128x128xf32>, tensor<128x128xf32>) : i32 {
      %p1 = nv_tileaa.dot %x, %w1, %init : tensor<128x64xf32>, tensor<64x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
      %p2 = nv_tileaa.dot %z, %w2, %init : tensor<128x64xf32>, tensor<64x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
      %p = nv_tileaa.addf %p1, %p2 : tensor<128x128xf32>
      %s = nv_tileaa.addf %a, %p : tensor<128x128xf32>
      scf.yield %s, %p1 : tensor<128x128xf32>, tensor<128x128xf32>
    }
    func.return %acc : tensor<128x128xf32>
  }
}
// CHECK-LABEL: func.func @product_read_twice
// CHECK:      %[[P:.*]] = nv_tileaa.addf %{{.*}}, %{{.*}} : tensor<128x128xf32>
// CHECK-NEXT: nv_tileaa.addf %{{.*}}, %[[P]] : tensor<128x128xf32>
