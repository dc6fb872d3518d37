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

// -----
// A loop over the output's column tiles reading the first loop's result that carries its accumulator from one column
// tile to the next (a running sum over j): not the grid's axis 1 (tileas-column-loop-to-tiles), and the refusal says why.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vx = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vw = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vy = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @running_sum(%x: !nv_tileaa.ptr<f16>, %w2: !nv_tileaa.ptr<f16>, %y: !nv_tileaa.ptr<f16>, %m: i32, %k: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mw2 = nv_tileaa.make_memref %w2[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %my = nv_tileaa.make_memref %y[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %bm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %vx = nv_tileaa.block_tile %mx : !m -> !vx
    %vw2 = nv_tileaa.block_tile %mw2 : !m -> !vw
    %vy = nv_tileaa.block_tile %my : !m -> !vy
    %nk = arith.ceildivsi %k, %c64 : i32
    %acc = scf.for %i = %c0 to %nk step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
      %tx, %t0 = nv_tileaa.tiled_load %vx[%bm, %i] token %tok : !vx [i32, i32] -> tensor<128x64xf16>
      %tw, %t1 = nv_tileaa.tiled_load %vw2[%i, %c0] token %tok : !vw [i32, i32] -> tensor<64x64xf16>
      %d = nv_tileaa.dot %tx, %tw, %a : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %d : tensor<128x64xf32>
    }
    %a16 = nv_tileaa.fp_to_fp %acc {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
    %nj = arith.ceildivsi %n, %c64 : i32
    // expected-error@+1 {{the second loop reads the first loop's result (e.g. acc2 += f(acc1) @ w2), so its steps need the first loop complete; a loop over the output's column tiles whose iterations are independent (each one dot of f(acc1) with the second operand's tile j from zeros, and its store at column tile j) runs as the grid's axis 1 (tileas-column-loop-to-tiles), but this one is not: it carries a value from one iteration to the next}}
    %out = scf.for %j = %c0 to %nj step %c1 iter_args(%b = %zero) -> (tensor<128x64xf32>) : i32 {
      %te, %t2 = nv_tileaa.tiled_load %vw2[%c0, %j] token %tok : !vw [i32, i32] -> tensor<64x64xf16>
      %e = nv_tileaa.dot %a16, %te, %b : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      %e16 = nv_tileaa.fp_to_fp %e {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
      %st = nv_tileaa.tiled_store %e16, %vy[%bm, %j] token %tok : tensor<128x64xf16>, !vy [i32, i32]
      scf.yield %e : tensor<128x64xf32>
    }
    nv_tileaa.return
  }
}

// -----
// A two-pass softmax: the first loop carries the row max of its dot's result (a reduce), the second reads it.
builtin.module {
  func.func @two_pass_row_max(%q: tensor<128x64xf16>, %kt: tensor<64x64xf16>, %v: tensor<64x64xf16>, %n: i32) -> tensor<128x64xf32> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %ninf = arith.constant dense<0xFF800000> : tensor<128x1xf32>
    %m = scf.for %i = %c0 to %n step %c1 iter_args(%mi = %ninf) -> (tensor<128x1xf32>) : i32 {
      %s = nv_tileaa.dot %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      %r = "nv_tileaa.reduce"(%s) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%x: f32, %y: f32):
        %z = nv_tileaa.maxf %x, %y : f32
        "nv_tileaa.yield"(%z) : (f32) -> ()
      }) : (tensor<128x64xf32>) -> tensor<128xf32>
      %rm = nv_tileaa.expand_dims %r {dim = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
      %mn = nv_tileaa.maxf %mi, %rm : tensor<128x1xf32>
      scf.yield %mn : tensor<128x1xf32>
    }
    // expected-error@+1 {{the second loop reads a row statistic the first loop reduces from its dot's result (a two-pass softmax: the row max of Q K^T over every key tile, then exp, sum and P V)}}
    %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf32>) : i32 {
      %s2 = nv_tileaa.dot %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      %mb = nv_tileaa.broadcast %m : tensor<128x1xf32> -> tensor<128x64xf32>
      %d = nv_tileaa.subf %s2, %mb : tensor<128x64xf32>
      %p = nv_tileaa.exp2 %d : tensor<128x64xf32>
      %ph = nv_tileaa.fp_to_fp %p : tensor<128x64xf32> -> tensor<128x64xf16>
      %a2 = nv_tileaa.dot %ph, %v, %acc : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %a2 : tensor<128x64xf32>
    }
    func.return %o : tensor<128x64xf32>
  }
}
