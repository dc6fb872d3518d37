// RUN: tileorch-opt %s --split-input-file -p tileas-fold-dot-accumulate,tileas-fuse-split-loops | filecheck %s
// A K loop written as two loops over consecutive ranges, range(0, X) then range(X, n), the second continuing the
// first's accumulator (user sweep 31's gemm_two_k_loops_halves): tileas-fold-dot-accumulate leaves the second
// loop's start as it is (it is not a C += A @ B start: zeros + an add would hide the pair), and
// tileas-fuse-split-loops fuses the pair into one loop over [min(0, X), max(X, n)) from the first loop's start.
// (Before session 39 the second loop was started from zeros with an add after it: the pair was refused.)
builtin.module {
  func.func @k_loop_in_two_halves(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %x: i32, %n: i32) -> tensor<64x64xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<64x64xf32>
    %r1 = scf.for %i = %c0 to %x step %c1 iter_args(%acc = %init) -> (tensor<64x64xf32>) : i32 {
      %d = nv_tileaa.dot %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %c1b = arith.constant 1 : i32
    %r2 = scf.for %j = %x to %n step %c1b iter_args(%acc = %r1) -> (tensor<64x64xf32>) : i32 {
      %d = nv_tileaa.dot %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    func.return %r2 : tensor<64x64xf32>
  }
}
// CHECK-LABEL: func.func @k_loop_in_two_halves
// CHECK:       %[[INIT:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT:  %[[LB:.*]] = arith.minsi %c0, %x : i32
// CHECK-NEXT:  %[[UB:.*]] = arith.maxsi %x, %n : i32
// CHECK-NEXT:  %[[R:.*]] = scf.for %{{.*}} = %[[LB]] to %[[UB]] step %c1 iter_args(%[[ACC:.*]] = %[[INIT]])
// CHECK:         %[[D:.*]] = nv_tileaa.dot %a, %b, %[[ACC]]
// CHECK-NEXT:    scf.yield %[[D]]
// CHECK-NOT:   scf.for
// CHECK-NOT:   nv_tileaa.addf
// CHECK:       func.return %[[R]]

// -----
// Two loops over the same range (not consecutive ranges), each with its own operands: the second loop's start is
// hoisted as before (zeros, the first loop's result added after it), and the pair runs as one loop of two
// accumulators (fuse_same_range).
builtin.module {
  func.func @same_range_twice(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %a2: tensor<64x32xf16>,
                              %b2: tensor<32x64xf16>, %n: i32) -> tensor<64x64xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<64x64xf32>
    %r1 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x64xf32>) : i32 {
      %d = nv_tileaa.dot %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %r1) -> (tensor<64x64xf32>) : i32 {
      %d = nv_tileaa.dot %a2, %b2, %acc : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    func.return %r2 : tensor<64x64xf32>
  }
}
// CHECK-LABEL: func.func @same_range_twice
// CHECK:       %[[INIT:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT:  %[[R1:.*]], %[[R2:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[INIT]], %{{.*}} = %[[INIT]])
// CHECK:       %[[S:.*]] = nv_tileaa.addf %[[R2]], %[[R1]]
// CHECK-NEXT:  func.return %[[S]]
