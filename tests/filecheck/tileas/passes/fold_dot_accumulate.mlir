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

// -----
// C += A @ B: the accumulator starts from a loaded tile (%c): the loop starts from zeros and the
// start is added after it (the tier's epilogue).
builtin.module {
  func.func @loaded_start(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %c: tensor<128x128xf32>, %n: i32) -> tensor<128x128xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%x = %c) -> (tensor<128x128xf32>) : i32 {
      %d = nv_tileaa.dot %a, %b, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    func.return %acc : tensor<128x128xf32>
  }
}
// CHECK-LABEL: func.func @loaded_start
// CHECK-SAME:  (%{{.*}}: tensor<128x64xf16>, %{{.*}}: tensor<64x128xf16>, %[[C:.*]]: tensor<128x128xf32>, %{{.*}}: i32)
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
// CHECK-NEXT:  %[[R:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[Z]])
// CHECK:       %[[S:.*]] = nv_tileaa.addf %[[R]], %[[C]] : tensor<128x128xf32>
// CHECK-NEXT:  func.return %[[S]]

// -----
// The carried start feeds something besides the dot (here the yield's second value): kept.
builtin.module {
  func.func @start_used_twice(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %c: tensor<128x128xf32>, %n: i32) -> tensor<128x128xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc, %keep = scf.for %i = %c0 to %n step %c1 iter_args(%x = %c, %y = %c) -> (tensor<128x128xf32>, tensor<128x128xf32>) : i32 {
      %d = nv_tileaa.dot %a, %b, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %d, %x : tensor<128x128xf32>, tensor<128x128xf32>
    }
    func.return %acc : tensor<128x128xf32>
  }
}
// CHECK-LABEL: func.func @start_used_twice
// CHECK-NOT:   nv_tileaa.addf
// CHECK:       func.return

// -----
// (q @ k^T).astype(f32) of f16 tiles (an f16 dot from zeros, widened) becomes the f32 dot; o = o *
// alpha + (p @ v).astype(f32) (one fma yielded in o's place) becomes one dot into o * alpha.
builtin.module {
  func.func @attention_matmuls(%q: tensor<64x32xf16>, %kt: tensor<32x64xf16>, %v: tensor<64x32xf16>, %alpha: tensor<64x32xf32>, %n: i32) -> tensor<64x32xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %o0 = arith.constant dense<0.0> : tensor<64x32xf32>
    %z64 = arith.constant dense<0.0> : tensor<64x64xf16>
    %z32 = arith.constant dense<0.0> : tensor<64x32xf16>
    %o = scf.for %i = %c0 to %n step %c1 iter_args(%x = %o0) -> (tensor<64x32xf32>) : i32 {
      %s16 = nv_tileaa.dot %q, %kt, %z64 : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
      %s = nv_tileaa.fp_to_fp %s16 : tensor<64x64xf16> -> tensor<64x64xf32>
      %p = nv_tileaa.fp_to_fp %s : tensor<64x64xf32> -> tensor<64x64xf16>
      %pv16 = nv_tileaa.dot %p, %v, %z32 : tensor<64x64xf16>, tensor<64x32xf16>, tensor<64x32xf16> -> tensor<64x32xf16>
      %pv = nv_tileaa.fp_to_fp %pv16 : tensor<64x32xf16> -> tensor<64x32xf32>
      %next = nv_tileaa.fma %x, %alpha, %pv : tensor<64x32xf32>
      scf.yield %next : tensor<64x32xf32>
    }
    func.return %o : tensor<64x32xf32>
  }
}
// CHECK-LABEL: func.func @attention_matmuls
// CHECK:       scf.for %{{.*}} iter_args(%[[X:.*]] = %{{.*}})
// CHECK:         %[[S:.*]] = nv_tileaa.dot %{{.*}}, %{{.*}}, %{{.*}} {{.*}}: tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK-NEXT:    %[[P:.*]] = nv_tileaa.fp_to_fp %[[S]] {{.*}}-> tensor<64x64xf16>
// CHECK-NEXT:    %[[M:.*]] = nv_tileaa.mulf %[[X]], %{{.*}} : tensor<64x32xf32>
// CHECK-NEXT:    %[[D:.*]] = nv_tileaa.dot %[[P]], %{{.*}}, %[[M]] {{.*}}-> tensor<64x32xf32>
// CHECK-NEXT:    scf.yield %[[D]]

// -----
// An f16 dot whose f16 result is used as it is (not only widened): kept.
builtin.module {
  func.func @f16_result_used(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) -> tensor<64x64xf16> {
    %z = arith.constant dense<0.0> : tensor<64x64xf16>
    %d = nv_tileaa.dot %a, %b, %z : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
    %w = nv_tileaa.fp_to_fp %d : tensor<64x64xf16> -> tensor<64x64xf32>
    func.return %d : tensor<64x64xf16>
  }
}
// CHECK-LABEL: func.func @f16_result_used
// CHECK:       nv_tileaa.dot {{.*}}-> tensor<64x64xf16>

// -----
// h = relu(x @ w1) of f16 tiles then h @ w2 (a chain): the first dot (f16, from zeros, feeding the
// second dot's A through a maxf) becomes the f32 dot rounded once to f16.
builtin.module {
  func.func @f16_dot_feeding_a_dot(%x: tensor<64x32xf16>, %w1: tensor<32x64xf16>, %w2: tensor<64x32xf16>) -> tensor<64x32xf32> {
    %z = arith.constant dense<0.0> : tensor<64x64xf16>
    %zero = arith.constant dense<0.0> : tensor<64x64xf16>
    %z2 = arith.constant dense<0.0> : tensor<64x32xf32>
    %h = nv_tileaa.dot %x, %w1, %z : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
    %r = nv_tileaa.maxf %h, %zero : tensor<64x64xf16>
    %y = nv_tileaa.dot %r, %w2, %z2 : tensor<64x64xf16>, tensor<64x32xf16>, tensor<64x32xf32> -> tensor<64x32xf32>
    func.return %y : tensor<64x32xf32>
  }
}
// CHECK-LABEL: func.func @f16_dot_feeding_a_dot
// CHECK:       %[[D:.*]] = nv_tileaa.dot %{{.*}}, %{{.*}}, %{{.*}} {{.*}}: tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK-NEXT:  %[[H:.*]] = nv_tileaa.fp_to_fp %[[D]] {{.*}}-> tensor<64x64xf16>
// CHECK-NEXT:  %[[R:.*]] = nv_tileaa.maxf %[[H]], %{{.*}} : tensor<64x64xf16>
// CHECK-NEXT:  nv_tileaa.dot %[[R]], %{{.*}}, %{{.*}} {{.*}}-> tensor<64x32xf32>
