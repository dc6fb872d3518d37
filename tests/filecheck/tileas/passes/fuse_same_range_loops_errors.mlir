// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p tileas-fuse-split-loops
// Two K loops one after the other that are not one loop: located at the second loop, naming why.
builtin.module {
  func.func @different_k(%x: tensor<128x64xf16>, %w1: tensor<64x64xf16>, %n1: i32, %n2: i32) -> tensor<128x64xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<128x64xf32>
    %r1 = scf.for %i = %c0 to %n1 step %c1 iter_args(%a = %init) -> (tensor<128x64xf32>) : i32 {
      %d = nv_tileaa.dot %x, %w1, %a : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %d : tensor<128x64xf32>
    }
    // expected-error@+1 {{2 loops with dots one after another: the tensor-core kernels run the dots of one loop, and these two are not fused into one: they run different ranges of K tiles}}
    %r2 = scf.for %j = %c0 to %n2 step %c1 iter_args(%b = %r1) -> (tensor<128x64xf32>) : i32 {
      %e = nv_tileaa.dot %x, %w1, %b : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %e : tensor<128x64xf32>
    }
    func.return %r2 : tensor<128x64xf32>
  }
}

// -----
builtin.module {
  func.func @reads_first(%x: tensor<128x64xf16>, %w1: tensor<64x64xf16>, %n: i32) -> tensor<128x64xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<128x64xf32>
    %r1 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<128x64xf32>) : i32 {
      %d = nv_tileaa.dot %x, %w1, %a : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %d : tensor<128x64xf32>
    }
    %h = nv_tileaa.fp_to_fp %r1 : tensor<128x64xf32> -> tensor<128x64xf16>
    // expected-error@+1 {{these two are not fused into one: the second loop reads the first loop's result}}
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%b = %init) -> (tensor<128x64xf32>) : i32 {
      %e = nv_tileaa.dot %h, %w1, %b : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %e : tensor<128x64xf32>
    }
    func.return %r2 : tensor<128x64xf32>
  }
}

// -----
builtin.module {
  func.func @rescaled(%x: tensor<128x64xf16>, %w1: tensor<64x64xf16>, %s: tensor<128x64xf32>, %n: i32) -> tensor<128x64xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.0> : tensor<128x64xf32>
    %r1 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<128x64xf32>) : i32 {
      %m = nv_tileaa.mulf %a, %s : tensor<128x64xf32>
      %d = nv_tileaa.dot %x, %w1, %m : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %d : tensor<128x64xf32>
    }
    // expected-error@+1 {{the second loop continues a value of the first that is not only a sum of dot products}}
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%b = %r1) -> (tensor<128x64xf32>) : i32 {
      %e = nv_tileaa.dot %x, %w1, %b : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %e : tensor<128x64xf32>
    }
    func.return %r2 : tensor<128x64xf32>
  }
}
