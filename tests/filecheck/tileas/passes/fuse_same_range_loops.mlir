// RUN: tileorch-opt %s --split-input-file -p tileas-fuse-split-loops | filecheck %s
// Two K loops one after the other over the same K tiles (same bounds and step), each accumulating a dot
// into its own accumulator, become one loop running both bodies (same_range_loops.py): one iteration
// argument per accumulator, both dots per step.
builtin.module {
  func.func @two_accumulators(%x: tensor<128x64xf16>, %w1: tensor<64x64xf16>, %z: tensor<128x64xf16>, %w2: tensor<64x64xf16>, %n: i32) -> (tensor<128x64xf32>, tensor<128x64xf32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<128x64xf32>
    %r1 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<128x64xf32>) : i32 {
      %d = nv_tileaa.dot %x, %w1, %a : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %d : tensor<128x64xf32>
    }
    %init2 = arith.constant dense<0.0> : tensor<128x64xf32>
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%b = %init2) -> (tensor<128x64xf32>) : i32 {
      %e = nv_tileaa.dot %z, %w2, %b : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %e : tensor<128x64xf32>
    }
    func.return %r1, %r2 : tensor<128x64xf32>, tensor<128x64xf32>
  }
}
// CHECK-LABEL: func.func @two_accumulators
// CHECK:      %[[R1:.*]], %[[R2:.*]] = scf.for %{{.*}} = %{{.*}} to %n step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}) -> (tensor<128x64xf32>, tensor<128x64xf32>)
// CHECK-NEXT:   %[[D:.*]] = nv_tileaa.dot %x, %w1, %[[A]]
// CHECK-NEXT:   %[[E:.*]] = nv_tileaa.dot %z, %w2, %[[B]]
// CHECK-NEXT:   scf.yield %[[D]], %[[E]]
// CHECK-NOT:  scf.for
// CHECK:      func.return %[[R1]], %[[R2]]

// -----
// The second loop continues the first's accumulator (its initial value the first loop's result, read nowhere
// else): one accumulator, each step the first body's dot then the second's on its result.
builtin.module {
  func.func @continued(%x: tensor<128x64xf16>, %w1: tensor<64x64xf16>, %z: tensor<128x64xf16>, %w2: tensor<64x64xf16>, %n: i32) -> tensor<128x64xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<128x64xf32>
    %r1 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<128x64xf32>) : i32 {
      %d = nv_tileaa.dot %x, %w1, %a : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %d : tensor<128x64xf32>
    }
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%b = %r1) -> (tensor<128x64xf32>) : i32 {
      %e = nv_tileaa.dot %z, %w2, %b : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %e : tensor<128x64xf32>
    }
    func.return %r2 : tensor<128x64xf32>
  }
}
// CHECK-LABEL: func.func @continued
// CHECK:      %[[R:.*]] = scf.for %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (tensor<128x64xf32>)
// CHECK-NEXT:   %[[D:.*]] = nv_tileaa.dot %x, %w1, %[[A]]
// CHECK-NEXT:   %[[E:.*]] = nv_tileaa.dot %z, %w2, %[[D]]
// CHECK-NEXT:   scf.yield %[[E]]
// CHECK-NOT:  scf.for
// CHECK:      func.return %[[R]]
