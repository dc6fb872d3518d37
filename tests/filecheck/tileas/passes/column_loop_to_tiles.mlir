// RUN: tileorch-opt %s --split-input-file -p tileas-column-loop-to-tiles | filecheck %s
// A second loop over Y's column tiles after the K loop whose result it reads (an MLP block: relu(x @ W1) rounded,
// then one dot with W2's column tile j per iteration, each from zeros, stored at (bm, j)) becomes the tile program
// of (program id 0, program id 1): the loop is gone, j is program id 1, the carried zeros their initial value.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vx = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vw = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vy = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @mlp(%x: !nv_tileaa.ptr<f16>, %w1: !nv_tileaa.ptr<f16>, %w2: !nv_tileaa.ptr<f16>, %y: !nv_tileaa.ptr<f16>, %m: i32, %k: i32, %h: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mw1 = nv_tileaa.make_memref %w1[%k, %h] [%h] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mw2 = nv_tileaa.make_memref %w2[%h, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %my = nv_tileaa.make_memref %y[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %bm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %vx = nv_tileaa.block_tile %mx : !m -> !vx
    %vw1 = nv_tileaa.block_tile %mw1 : !m -> !vw
    %nk = arith.ceildivsi %k, %c64 : i32
    %acc = scf.for %i = %c0 to %nk step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
      %tx, %t0 = nv_tileaa.tiled_load %vx[%bm, %i] token %tok : !vx [i32, i32] -> tensor<128x64xf16>
      %tw, %t1 = nv_tileaa.tiled_load %vw1[%i, %c0] token %tok : !vw [i32, i32] -> tensor<64x64xf16>
      %d = nv_tileaa.dot %tx, %tw, %a : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %d : tensor<128x64xf32>
    }
    %r = nv_tileaa.maxf %acc, %zero : tensor<128x64xf32>
    %a16 = nv_tileaa.fp_to_fp %r {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
    %vw2 = nv_tileaa.block_tile %mw2 : !m -> !vw
    %vy = nv_tileaa.block_tile %my : !m -> !vy
    %nj = arith.ceildivsi %n, %c64 : i32
    %zero2 = arith.constant dense<0.0> : tensor<128x64xf32>
    %out = scf.for %j = %c0 to %nj step %c1 iter_args(%b = %zero) -> (tensor<128x64xf32>) : i32 {
      %te, %t2 = nv_tileaa.tiled_load %vw2[%c0, %j] token %tok : !vw [i32, i32] -> tensor<64x64xf16>
      %e = nv_tileaa.dot %a16, %te, %b : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      %e16 = nv_tileaa.fp_to_fp %e {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
      %st = nv_tileaa.tiled_store %e16, %vy[%bm, %j] token %tok : tensor<128x64xf16>, !vy [i32, i32]
      scf.yield %zero2 : tensor<128x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @mlp
// CHECK-SAME: tileorch.launch_grid_axes = array<i32: 0, -1, 2, 1, 1, 1>
// CHECK:      %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
// CHECK:      scf.for
// CHECK:      nv_tileaa.dot
// CHECK:      scf.yield
// CHECK:      %[[J:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK-NOT:  scf.for
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %[[J]]]
// CHECK-NEXT: nv_tileaa.dot %{{.*}}, %{{.*}}, %[[ZERO]]
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%{{.*}}, %[[J]]]
// CHECK-NOT:  scf.yield
// CHECK:      nv_tileaa.return

// -----
// The second loop carries its accumulator from one column tile to the next (a running sum over j): its iterations
// are not independent tile programs, the loop stays.
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
// CHECK:      nv_tileaa.func @running_sum
// CHECK-NOT:  launch_grid_axes
// CHECK-NOT:  nv_tileaa.get_program_id {axis = 1 : i32}
// CHECK:      scf.for
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK:      scf.yield

// -----
// The second loop counted by a bias's column tiles (ceildiv(nb, 64), nb the bias's own extent), not Y's or W2's: the
// kernel would cover every column tile of Y, more than the loop's when the bias is shorter, so the loop stays
// (session 29: the rewrite took it and the kernel wrote Y's column tiles past the bias's).  (The bias tile's use in
// the sum is left out: the pass reads where the index goes.)
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!m1 = !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>
!vx = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vw = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vy = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !m1>
builtin.module {
  nv_tileaa.func @bias_count(%x: !nv_tileaa.ptr<f16>, %w1: !nv_tileaa.ptr<f16>, %w2: !nv_tileaa.ptr<f16>, %b2: !nv_tileaa.ptr<f16>, %y: !nv_tileaa.ptr<f16>, %m: i32, %k: i32, %h: i32, %n: i32, %nb: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mw1 = nv_tileaa.make_memref %w1[%k, %h] [%h] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mw2 = nv_tileaa.make_memref %w2[%h, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb2 = nv_tileaa.make_memref %b2[%nb] [] : !nv_tileaa.ptr<f16>[i32] [] -> !m1
    %my = nv_tileaa.make_memref %y[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %bm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %vx = nv_tileaa.block_tile %mx : !m -> !vx
    %vw1 = nv_tileaa.block_tile %mw1 : !m -> !vw
    %nk = arith.ceildivsi %k, %c64 : i32
    %acc = scf.for %i = %c0 to %nk step %c1 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
      %tx, %t0 = nv_tileaa.tiled_load %vx[%bm, %i] token %tok : !vx [i32, i32] -> tensor<128x64xf16>
      %tw, %t1 = nv_tileaa.tiled_load %vw1[%i, %c0] token %tok : !vw [i32, i32] -> tensor<64x64xf16>
      %d = nv_tileaa.dot %tx, %tw, %a : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %d : tensor<128x64xf32>
    }
    %a16 = nv_tileaa.fp_to_fp %acc {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
    %vw2 = nv_tileaa.block_tile %mw2 : !m -> !vw
    %vb2 = nv_tileaa.block_tile %mb2 : !m1 -> !vb
    %vy = nv_tileaa.block_tile %my : !m -> !vy
    %nj = arith.ceildivsi %nb, %c64 : i32
    %out = scf.for %j = %c0 to %nj step %c1 iter_args(%b = %zero) -> (tensor<128x64xf32>) : i32 {
      %te, %t2 = nv_tileaa.tiled_load %vw2[%c0, %j] token %tok : !vw [i32, i32] -> tensor<64x64xf16>
      %tb, %t3 = nv_tileaa.tiled_load %vb2[%j] token %tok : !vb [i32] -> tensor<64xf16>
      %e = nv_tileaa.dot %a16, %te, %b : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      %e16 = nv_tileaa.fp_to_fp %e {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
      %st = nv_tileaa.tiled_store %e16, %vy[%bm, %j] token %tok : tensor<128x64xf16>, !vy [i32, i32]
      scf.yield %zero : tensor<128x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @bias_count
// CHECK-NOT:  nv_tileaa.get_program_id {axis = 1 : i32}
// CHECK:      scf.for
// CHECK:      %[[NJ:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : i32
// CHECK:      scf.for %{{.*}} = %{{.*}} to %[[NJ]] step
// CHECK:      nv_tileaa.tiled_store
