// RUN: tileorch-opt %s --split-input-file -p tileas-program-loop-to-tiles | filecheck %s
// A persistent tile loop written in the program (t from program id 0 in steps of the grid size, up
// to tiles_m * tiles_n; bm = t floordiv tiles_n, bn = t mod tiles_n with cuTile's sign fix-up)
// becomes the tile program of one (bm, bn) = (program id 0, program id 1): the loop, t and the
// fix-up are gone, the loads and the store index by program ids.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @persistent(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %tiles_m = nv_tileaa.get_dim_size %vc {index = 0 : i32} : !vc -> i32
    %tiles_n = nv_tileaa.get_dim_size %vc {index = 1 : i32} : !vc -> i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %nprog = nv_tileaa.get_num_programs {axis = 0 : i32} : i32
    %tiles = nv_tileaa.muli %tiles_m, %tiles_n : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %neg_n = arith.cmpi slt, %tiles_n, %c0 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %out = scf.for %t = %pid to %tiles step %nprog iter_args(%tk = %tok) -> (!nv_tileaa.mem_token) : i32 {
      %bm = arith.floordivsi %t, %tiles_n : i32
      %r = arith.remsi %t, %tiles_n : i32
      %rneg = arith.cmpi slt, %r, %c0 : i32
      %sign = arith.xori %rneg, %neg_n : i1
      %rnz = arith.cmpi ne, %r, %c0 : i32
      %fix = arith.andi %sign, %rnz : i1
      %radj = nv_tileaa.addi %r, %tiles_n : i32
      %bn = arith.select %fix, %radj, %r : i32
      %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
        %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
        %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x128xf16>
        %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %y : tensor<128x128xf32>
      }
      %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
      %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] token %tk : tensor<128x128xf16>, !vc [i32, i32]
      scf.yield %st : !nv_tileaa.mem_token
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @persistent
// CHECK-SAME: tileorch.launch_grid_axes = array<i32: -1, -1, 2, 1, 1, 1>
// CHECK:      %[[PM:.*]] = nv_tileaa.get_program_id {axis = 0 : i32} : i32
// CHECK-NEXT: %[[PN:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK-NOT:  arith.floordivsi
// CHECK-NOT:  arith.remsi
// CHECK-NOT:  arith.select
// CHECK:      scf.for
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%[[PM]], %{{.*}}]
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %[[PN]]]
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%[[PM]], %[[PN]]] token %{{.*}}
// CHECK-NOT:  scf.yield %{{.*}} : !nv_tileaa.mem_token

// -----
// A loop over a constant range is not a persistent tile loop (t is not a tile id of the grid): it stays.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @not_persistent(%c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %tiles_n = nv_tileaa.get_dim_size %vc {index = 1 : i32} : !vc -> i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf16>
    %out = scf.for %t = %c0 to %c8 step %c1 iter_args(%tk = %tok) -> (!nv_tileaa.mem_token) : i32 {
      %bm = arith.floordivsi %t, %tiles_n : i32
      %bn = arith.remsi %t, %tiles_n : i32
      %st = nv_tileaa.tiled_store %z, %vc[%bm, %bn] token %tk : tensor<128x128xf16>, !vc [i32, i32]
      scf.yield %st : !nv_tileaa.mem_token
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @not_persistent
// CHECK-NOT:  launch_grid_axes
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:      arith.floordivsi

// -----
// The trip count multiplies the K tile count (A's columns) by the column tile count: t does not walk
// the output tiles (rows x columns), so the loop stays.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @counts_of_another_view(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %tiles_m = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %tiles_n = nv_tileaa.get_dim_size %vc {index = 1 : i32} : !vc -> i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %nprog = nv_tileaa.get_num_programs {axis = 0 : i32} : i32
    %tiles = nv_tileaa.muli %tiles_m, %tiles_n : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %neg_n = arith.cmpi slt, %tiles_n, %c0 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %out = scf.for %t = %pid to %tiles step %nprog iter_args(%tk = %tok) -> (!nv_tileaa.mem_token) : i32 {
      %bm = arith.floordivsi %t, %tiles_n : i32
      %r = arith.remsi %t, %tiles_n : i32
      %rneg = arith.cmpi slt, %r, %c0 : i32
      %sign = arith.xori %rneg, %neg_n : i1
      %rnz = arith.cmpi ne, %r, %c0 : i32
      %fix = arith.andi %sign, %rnz : i1
      %radj = nv_tileaa.addi %r, %tiles_n : i32
      %bn = arith.select %fix, %radj, %r : i32
      %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
        %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
        %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x128xf16>
        %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %y : tensor<128x128xf32>
      }
      %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
      %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] token %tk : tensor<128x128xf16>, !vc [i32, i32]
      scf.yield %st : !nv_tileaa.mem_token
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @counts_of_another_view
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:      arith.floordivsi

// -----
// One program id numbers the tiles (pid // tiles_n, pid % tiles_n with the sign fix-up): the
// coordinates become program ids 0 and 1 (the grid the GEMM host side walks).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @linear_pid(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %tiles_n = nv_tileaa.get_dim_size %vc {index = 1 : i32} : !vc -> i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %neg_n = arith.cmpi slt, %tiles_n, %c0 : i32
    %bm = arith.floordivsi %pid, %tiles_n : i32
    %r = arith.remsi %pid, %tiles_n : i32
    %rneg = arith.cmpi slt, %r, %c0 : i32
    %sign = arith.xori %rneg, %neg_n : i1
    %rnz = arith.cmpi ne, %r, %c0 : i32
    %fix = arith.andi %sign, %rnz : i1
    %radj = nv_tileaa.addi %r, %tiles_n : i32
    %bn = arith.select %fix, %radj, %r : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] : tensor<128x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @linear_pid
// CHECK-SAME: tileorch.launch_grid_axes = array<i32: -2, -2, 2, 1, 1, 1>
// CHECK:      %[[QM:.*]] = nv_tileaa.get_program_id {axis = 0 : i32} : i32
// CHECK-NEXT: %[[QN:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK-NOT:  arith.floordivsi
// CHECK-NOT:  arith.select
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%[[QM]], %[[QN]]]

// -----
// The grouped raster of cuTile's and Triton's matmul samples (G = 8 rows of tiles per group, tile
// counts as ceildiv of A's rows and B's columns, floor division and modulo with cuTile's sign
// fix-ups): one-to-one onto the tile grid, so the coordinates become program ids 0 and 1.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 256>, array<i32: 128, 256>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @grouped(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %c128 = arith.constant 128 : i32
    %c256 = arith.constant 256 : i32
    %g = arith.constant 8 : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %nm = arith.ceildivsi %m, %c128 : i32
    %nn = arith.ceildivsi %n, %c256 : i32
    %w = nv_tileaa.muli %g, %nn : i32
    %grp = arith.floordivsi %pid, %w : i32
    %first = nv_tileaa.muli %grp, %g : i32
    %left = nv_tileaa.subi %nm, %first : i32
    %size = arith.minsi %left, %g : i32
    %r = arith.remsi %pid, %size : i32
    %rneg = arith.cmpi slt, %r, %c0 : i32
    %sneg = arith.cmpi slt, %size, %c0 : i32
    %x = arith.xori %rneg, %sneg : i1
    %rnz = arith.cmpi ne, %r, %c0 : i32
    %fix = arith.andi %x, %rnz : i1
    %radj = nv_tileaa.addi %r, %size : i32
    %rr = arith.select %fix, %radj, %r : i32
    %bm = nv_tileaa.addi %first, %rr : i32
    %u = arith.remsi %pid, %w : i32
    %uneg = arith.cmpi slt, %u, %c0 : i32
    %wneg = arith.cmpi slt, %w, %c0 : i32
    %y = arith.xori %uneg, %wneg : i1
    %unz = arith.cmpi ne, %u, %c0 : i32
    %ufix = arith.andi %y, %unz : i1
    %uadj = nv_tileaa.addi %u, %w : i32
    %uu = arith.select %ufix, %uadj, %u : i32
    %bn = arith.floordivsi %uu, %size : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%acc0 = %zero) -> (tensor<128x256xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x256xf16>
      %d = nv_tileaa.dot %ta, %tb, %acc0 : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x256xf32> -> tensor<128x256xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] token %tok : tensor<128x256xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @grouped
// CHECK-SAME: tileorch.launch_grid_axes = array<i32: -2, -2, 2, 1, 1, 1>
// CHECK:      %[[GM:.*]] = nv_tileaa.get_program_id {axis = 0 : i32} : i32
// CHECK-NEXT: %[[GN:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK-NOT:  arith.minsi
// CHECK-NOT:  arith.floordivsi
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%[[GM]], %{{.*}}]
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %[[GN]]]
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%[[GM]], %[[GN]]]

// -----
// The group size of min() (4) is not the one the groups are numbered with (8): not one-to-one,
// the coordinates stay.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 256>, array<i32: 128, 256>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @grouped_mismatched_group(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %c128 = arith.constant 128 : i32
    %c256 = arith.constant 256 : i32
    %g = arith.constant 8 : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %nm = arith.ceildivsi %m, %c128 : i32
    %nn = arith.ceildivsi %n, %c256 : i32
    %w = nv_tileaa.muli %g, %nn : i32
    %grp = arith.floordivsi %pid, %w : i32
    %first = nv_tileaa.muli %grp, %g : i32
    %left = nv_tileaa.subi %nm, %first : i32
    %g4 = arith.constant 4 : i32
    %size = arith.minsi %left, %g4 : i32
    %r = arith.remsi %pid, %size : i32
    %rneg = arith.cmpi slt, %r, %c0 : i32
    %sneg = arith.cmpi slt, %size, %c0 : i32
    %x = arith.xori %rneg, %sneg : i1
    %rnz = arith.cmpi ne, %r, %c0 : i32
    %fix = arith.andi %x, %rnz : i1
    %radj = nv_tileaa.addi %r, %size : i32
    %rr = arith.select %fix, %radj, %r : i32
    %bm = nv_tileaa.addi %first, %rr : i32
    %u = arith.remsi %pid, %w : i32
    %uneg = arith.cmpi slt, %u, %c0 : i32
    %wneg = arith.cmpi slt, %w, %c0 : i32
    %y = arith.xori %uneg, %wneg : i1
    %unz = arith.cmpi ne, %u, %c0 : i32
    %ufix = arith.andi %y, %unz : i1
    %uadj = nv_tileaa.addi %u, %w : i32
    %uu = arith.select %ufix, %uadj, %u : i32
    %bn = arith.floordivsi %uu, %size : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%acc0 = %zero) -> (tensor<128x256xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x256xf16>
      %d = nv_tileaa.dot %ta, %tb, %acc0 : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x256xf32> -> tensor<128x256xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] token %tok : tensor<128x256xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @grouped_mismatched_group
// CHECK:      arith.minsi
// CHECK:      arith.floordivsi

// -----
// The major tile count is A's K tiles (ceildiv of K by 64), not the rows the coordinate indexes:
// the coordinates stay.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 256>, array<i32: 128, 256>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @grouped_counts_of_k(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %c128 = arith.constant 128 : i32
    %c256 = arith.constant 256 : i32
    %g = arith.constant 8 : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c64 = arith.constant 64 : i32
    %nm = arith.ceildivsi %k, %c64 : i32
    %nn = arith.ceildivsi %n, %c256 : i32
    %w = nv_tileaa.muli %g, %nn : i32
    %grp = arith.floordivsi %pid, %w : i32
    %first = nv_tileaa.muli %grp, %g : i32
    %left = nv_tileaa.subi %nm, %first : i32
    %size = arith.minsi %left, %g : i32
    %r = arith.remsi %pid, %size : i32
    %rneg = arith.cmpi slt, %r, %c0 : i32
    %sneg = arith.cmpi slt, %size, %c0 : i32
    %x = arith.xori %rneg, %sneg : i1
    %rnz = arith.cmpi ne, %r, %c0 : i32
    %fix = arith.andi %x, %rnz : i1
    %radj = nv_tileaa.addi %r, %size : i32
    %rr = arith.select %fix, %radj, %r : i32
    %bm = nv_tileaa.addi %first, %rr : i32
    %u = arith.remsi %pid, %w : i32
    %uneg = arith.cmpi slt, %u, %c0 : i32
    %wneg = arith.cmpi slt, %w, %c0 : i32
    %y = arith.xori %uneg, %wneg : i1
    %unz = arith.cmpi ne, %u, %c0 : i32
    %ufix = arith.andi %y, %unz : i1
    %uadj = nv_tileaa.addi %u, %w : i32
    %uu = arith.select %ufix, %uadj, %u : i32
    %bn = arith.floordivsi %uu, %size : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%acc0 = %zero) -> (tensor<128x256xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x256xf16>
      %d = nv_tileaa.dot %ta, %tb, %acc0 : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x256xf32> -> tensor<128x256xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] token %tok : tensor<128x256xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @grouped_counts_of_k
// CHECK:      arith.minsi
// CHECK:      arith.floordivsi

// -----
// The program id is also used outside the coordinates (in the K loop's bound): replacing the
// coordinates would change that use, so they stay.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 256>, array<i32: 128, 256>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @grouped_pid_used_elsewhere(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %c128 = arith.constant 128 : i32
    %c256 = arith.constant 256 : i32
    %g = arith.constant 8 : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %nm = arith.ceildivsi %m, %c128 : i32
    %nn = arith.ceildivsi %n, %c256 : i32
    %w = nv_tileaa.muli %g, %nn : i32
    %grp = arith.floordivsi %pid, %w : i32
    %first = nv_tileaa.muli %grp, %g : i32
    %left = nv_tileaa.subi %nm, %first : i32
    %size = arith.minsi %left, %g : i32
    %r = arith.remsi %pid, %size : i32
    %rneg = arith.cmpi slt, %r, %c0 : i32
    %sneg = arith.cmpi slt, %size, %c0 : i32
    %x = arith.xori %rneg, %sneg : i1
    %rnz = arith.cmpi ne, %r, %c0 : i32
    %fix = arith.andi %x, %rnz : i1
    %radj = nv_tileaa.addi %r, %size : i32
    %rr = arith.select %fix, %radj, %r : i32
    %bm = nv_tileaa.addi %first, %rr : i32
    %u = arith.remsi %pid, %w : i32
    %uneg = arith.cmpi slt, %u, %c0 : i32
    %wneg = arith.cmpi slt, %w, %c0 : i32
    %y = arith.xori %uneg, %wneg : i1
    %unz = arith.cmpi ne, %u, %c0 : i32
    %ufix = arith.andi %y, %unz : i1
    %uadj = nv_tileaa.addi %u, %w : i32
    %uu = arith.select %ufix, %uadj, %u : i32
    %bn = arith.floordivsi %uu, %size : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %kt0 = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %kt = nv_tileaa.addi %kt0, %pid : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%acc0 = %zero) -> (tensor<128x256xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x256xf16>
      %d = nv_tileaa.dot %ta, %tb, %acc0 : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x256xf32> -> tensor<128x256xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] token %tok : tensor<128x256xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @grouped_pid_used_elsewhere
// CHECK-NOT:  launch_grid_axes
// CHECK:      arith.minsi
// CHECK:      arith.floordivsi

// -----
// Batched GEMM with the batch on program axis 0 (cuTile's batched-matmul sample): the axes are
// renumbered so that the stored tile's rows are axis 0, its columns axis 1 and the batch axis 2.
!m3 = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!va3 = !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !m3>
!vb3 = !nv_tileaa.tiled_view<array<i32: 1, 64, 128>, array<i32: 1, 64, 128>, array<i32: 0, 1, 2>, !m3>
!vc3 = !nv_tileaa.tiled_view<array<i32: 1, 128, 128>, array<i32: 1, 128, 128>, array<i32: 0, 1, 2>, !m3>
builtin.module {
  nv_tileaa.func @batch_first(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %l: i32, %m: i32, %n: i32, %k: i32, %s0: i32, %s1: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %a[%l, %m, %k] [%s0, %k] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m3
    %mb = nv_tileaa.make_memref %b[%l, %k, %n] [%s1, %n] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m3
    %mc = nv_tileaa.make_memref %c[%l, %m, %n] [%s0, %n] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m3
    %va = nv_tileaa.block_tile %ma : !m3 -> !va3
    %vb = nv_tileaa.block_tile %mb : !m3 -> !vb3
    %vc = nv_tileaa.block_tile %mc : !m3 -> !vc3
    %batch = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %bm = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %bn = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 2 : i32} : !va3 -> i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%batch, %bm, %i] : !va3 [i32, i32, i32] -> tensor<1x128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%batch, %i, %bn] : !vb3 [i32, i32, i32] -> tensor<1x64x128xf16>
      %a2 = nv_tileaa.reshape %ta : tensor<1x128x64xf16> -> tensor<128x64xf16>
      %b2 = nv_tileaa.reshape %tb : tensor<1x64x128xf16> -> tensor<64x128xf16>
      %y = nv_tileaa.dot %a2, %b2, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
    %h3 = nv_tileaa.reshape %h : tensor<128x128xf16> -> tensor<1x128x128xf16>
    %st = nv_tileaa.tiled_store %h3, %vc[%batch, %bm, %bn] : tensor<1x128x128xf16>, !vc3 [i32, i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @batch_first
// CHECK-SAME: tileorch.launch_grid_axes = array<i32: 1, 2, 0, 1, 1, 1>
// CHECK:      %[[L:.*]] = nv_tileaa.get_program_id {axis = 2 : i32} : i32
// CHECK-NEXT: %[[M:.*]] = nv_tileaa.get_program_id {axis = 0 : i32} : i32
// CHECK-NEXT: %[[N:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%[[L]], %[[M]], %[[N]]]

// -----
// A 2-D program on the transposed grid (``bn, bm = ct.bid(0), ct.bid(1)``): the two axes swap, so
// the stored tile's rows are program axis 0 (the grid the GEMM host side walks).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @swapped_axes(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %bn = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %bm = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] : tensor<128x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @swapped_axes
// CHECK-SAME: tileorch.launch_grid_axes = array<i32: 1, 0, 2, 1, 1, 1>
// CHECK:      %[[N:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK-NEXT: %[[M:.*]] = nv_tileaa.get_program_id {axis = 0 : i32} : i32
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%[[M]], %[[N]]]

// -----
// Two dots (the chained-dots path launches on the program's own grid): the axes stay as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @two_dots(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %bn = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %bm = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %c0 = arith.constant 0 : i32
    %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %c0] : !va [i32, i32] -> tensor<128x64xf16>
    %tb, %t1 = nv_tileaa.tiled_load %vb[%c0, %bn] : !vb [i32, i32] -> tensor<64x64xf16>
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %s = nv_tileaa.dot %ta, %tb, %zero : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
    %p = nv_tileaa.fp_to_fp %s : tensor<128x64xf32> -> tensor<128x64xf16>
    %o = nv_tileaa.dot %p, %tb, %zero : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
    %h = nv_tileaa.fp_to_fp %o : tensor<128x64xf32> -> tensor<128x64xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] : tensor<128x64xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @two_dots
// CHECK:      nv_tileaa.get_program_id {axis = 0 : i32} : i32
// CHECK-NEXT: nv_tileaa.get_program_id {axis = 1 : i32} : i32

// -----
// One dot outside any loop, both operand tiles at K tile 0: a one-trip K loop [0, 1) goes around
// the two loads and the dot, the loop's index standing in for the constant K index.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @loopless(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %bm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %bn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %c0 = arith.constant 0 : i32
    %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %c0] : !va [i32, i32] -> tensor<128x64xf16>
    %tb, %t1 = nv_tileaa.tiled_load %vb[%c0, %bn] : !vb [i32, i32] -> tensor<64x128xf16>
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %y = nv_tileaa.dot %ta, %tb, %zero : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %h = nv_tileaa.fp_to_fp %y : tensor<128x128xf32> -> tensor<128x128xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] : tensor<128x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @loopless
// CHECK:      %[[UB:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[ST:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[UB]] step %[[ST]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128x128xf32>) : i32 {
// CHECK-NEXT:   %[[A:.*]], %{{.*}} = nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %[[K]]]
// CHECK-NEXT:   %[[B:.*]], %{{.*}} = nv_tileaa.tiled_load %{{.*}}[%[[K]], %{{.*}}]
// CHECK-NEXT:   %[[D:.*]] = nv_tileaa.dot %[[A]], %[[B]], %[[ACC]]
// CHECK-NEXT:   scf.yield %[[D]]
// CHECK:      nv_tileaa.fp_to_fp %[[R]]

// -----
// Both indices of the A tile constant (which one is K is not known): left alone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @loopless_ambiguous(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %bn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %c0 = arith.constant 0 : i32
    %ta, %t0 = nv_tileaa.tiled_load %va[%c0, %c0] : !va [i32, i32] -> tensor<128x64xf16>
    %tb, %t1 = nv_tileaa.tiled_load %vb[%c0, %bn] : !vb [i32, i32] -> tensor<64x128xf16>
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %y = nv_tileaa.dot %ta, %tb, %zero : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %h = nv_tileaa.fp_to_fp %y : tensor<128x128xf32> -> tensor<128x128xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%c0, %bn] : tensor<128x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @loopless_ambiguous
// CHECK-NOT:  scf.for
// CHECK:      nv_tileaa.dot

// -----
// A 1-D grid and N in one tile: B and C at column tile 0.  The constant column index becomes
// program id 1 (the tile walk the GEMM host side does) and the axis is recorded, so the launcher
// can check that the output has one column tile.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @one_n_tile(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %bm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %c0] : !vb [i32, i32] -> tensor<64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %c0] : tensor<128x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @one_n_tile
// CHECK-SAME: tileorch.single_tile_axes = array<i32: 1>
// CHECK-SAME: tileorch.launch_grid_axes = array<i32: 0, -1, 2, 1, 1, 1>
// CHECK:      %[[N:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %[[N]]]
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%{{.*}}, %[[N]]]

// -----
// A 1-D grid, a second dot after the K loop (relu(X W1) W2: an epilogue dot) whose B and the
// output are at column tile 0: the output's columns are the second dot's, so its B's column index
// and the store's become program id 1 (the first dot's B keeps its constant column 0, the rank).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!ve = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @epilogue_dot_one_n_tile(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %e: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %r: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %r] [%r] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %me = nv_tileaa.make_memref %e[%r, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %ve = nv_tileaa.block_tile %me : !m -> !ve
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %bm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %zero2 = arith.constant dense<0.0> : tensor<64x128xf32>
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<64x64xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<64x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %c0] : !vb [i32, i32] -> tensor<64x64xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %y : tensor<64x64xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<64x64xf32> -> tensor<64x64xf16>
    %te, %t2 = nv_tileaa.tiled_load %ve[%c0, %c0] : !ve [i32, i32] -> tensor<64x128xf16>
    %y2 = nv_tileaa.dot %h, %te, %zero2 : tensor<64x64xf16>, tensor<64x128xf16>, tensor<64x128xf32> -> tensor<64x128xf32>
    %h2 = nv_tileaa.fp_to_fp %y2 : tensor<64x128xf32> -> tensor<64x128xf16>
    %st = nv_tileaa.tiled_store %h2, %vc[%bm, %c0] : tensor<64x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @epilogue_dot_one_n_tile
// CHECK-SAME: tileorch.single_tile_axes = array<i32: 1>
// CHECK:      %[[N:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %c0]
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%c0, %[[N]]]
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%{{.*}}, %[[N]]]

// -----
// The same with the second dot's B at column tile 1 (not the output's column tile 0): left alone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!ve = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @epilogue_dot_b_at_tile_1(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %e: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %r: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %r] [%r] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %me = nv_tileaa.make_memref %e[%r, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %ve = nv_tileaa.block_tile %me : !m -> !ve
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %bm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %zero2 = arith.constant dense<0.0> : tensor<64x128xf32>
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<64x64xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<64x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %c0] : !vb [i32, i32] -> tensor<64x64xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %y : tensor<64x64xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<64x64xf32> -> tensor<64x64xf16>
    %te, %t2 = nv_tileaa.tiled_load %ve[%c0, %c1] : !ve [i32, i32] -> tensor<64x128xf16>
    %y2 = nv_tileaa.dot %h, %te, %zero2 : tensor<64x64xf16>, tensor<64x128xf16>, tensor<64x128xf32> -> tensor<64x128xf32>
    %h2 = nv_tileaa.fp_to_fp %y2 : tensor<64x128xf32> -> tensor<64x128xf16>
    %st = nv_tileaa.tiled_store %h2, %vc[%bm, %c0] : tensor<64x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @epilogue_dot_b_at_tile_1
// CHECK-NOT:  single_tile_axes
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%{{.*}}, %c0]

// -----
// The same with program id 1 read elsewhere (the column tile is not free): left alone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @one_n_tile_pid_used(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %bm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %other = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %lo = arith.addi %c0, %other : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %acc = scf.for %i = %lo to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %c0] : !vb [i32, i32] -> tensor<64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %c0] : tensor<128x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @one_n_tile_pid_used
// CHECK-NOT:  single_tile_axes
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%{{.*}}, %c0]

// -----
// The grouped raster as Triton's later tutorial writes it: the major coordinate
// first + (pid % w) % size (the remainder of the in-group index, not of pid): also one-to-one.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 256>, array<i32: 128, 256>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @grouped_rem_of_rem(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %c128 = arith.constant 128 : i32
    %c256 = arith.constant 256 : i32
    %g = arith.constant 8 : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %nm = arith.ceildivsi %m, %c128 : i32
    %nn = arith.ceildivsi %n, %c256 : i32
    %w = nv_tileaa.muli %g, %nn : i32
    %grp = arith.floordivsi %pid, %w : i32
    %first = nv_tileaa.muli %grp, %g : i32
    %left = nv_tileaa.subi %nm, %first : i32
    %size = arith.minsi %left, %g : i32
    %u = arith.remsi %pid, %w : i32
    %uneg = arith.cmpi slt, %u, %c0 : i32
    %wneg = arith.cmpi slt, %w, %c0 : i32
    %y = arith.xori %uneg, %wneg : i1
    %unz = arith.cmpi ne, %u, %c0 : i32
    %ufix = arith.andi %y, %unz : i1
    %uadj = nv_tileaa.addi %u, %w : i32
    %uu = arith.select %ufix, %uadj, %u : i32
    %r = arith.remsi %uu, %size : i32
    %rneg = arith.cmpi slt, %r, %c0 : i32
    %sneg = arith.cmpi slt, %size, %c0 : i32
    %x = arith.xori %rneg, %sneg : i1
    %rnz = arith.cmpi ne, %r, %c0 : i32
    %fix = arith.andi %x, %rnz : i1
    %radj = nv_tileaa.addi %r, %size : i32
    %rr = arith.select %fix, %radj, %r : i32
    %bm = nv_tileaa.addi %first, %rr : i32
    %bn = arith.floordivsi %uu, %size : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%acc0 = %zero) -> (tensor<128x256xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x256xf16>
      %d = nv_tileaa.dot %ta, %tb, %acc0 : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x256xf32> -> tensor<128x256xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] token %tok : tensor<128x256xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @grouped_rem_of_rem
// CHECK:      %[[GM:.*]] = nv_tileaa.get_program_id {axis = 0 : i32} : i32
// CHECK-NEXT: %[[GN:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK-NOT:  arith.minsi
// CHECK-NOT:  arith.floordivsi
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%[[GM]], %{{.*}}]
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %[[GN]]]
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%[[GM]], %[[GN]]]

// -----
// (pid % nn) % size: the inner remainder is not by the group width w: not recognised, the
// coordinates stay.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 256>, array<i32: 128, 256>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @grouped_rem_of_other_rem(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %c128 = arith.constant 128 : i32
    %c256 = arith.constant 256 : i32
    %g = arith.constant 8 : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %nm = arith.ceildivsi %m, %c128 : i32
    %nn = arith.ceildivsi %n, %c256 : i32
    %w = nv_tileaa.muli %g, %nn : i32
    %grp = arith.floordivsi %pid, %w : i32
    %first = nv_tileaa.muli %grp, %g : i32
    %left = nv_tileaa.subi %nm, %first : i32
    %size = arith.minsi %left, %g : i32
    %u = arith.remsi %pid, %w : i32
    %uneg = arith.cmpi slt, %u, %c0 : i32
    %wneg = arith.cmpi slt, %w, %c0 : i32
    %y = arith.xori %uneg, %wneg : i1
    %unz = arith.cmpi ne, %u, %c0 : i32
    %ufix = arith.andi %y, %unz : i1
    %uadj = nv_tileaa.addi %u, %w : i32
    %uu = arith.select %ufix, %uadj, %u : i32
    %v = arith.remsi %pid, %nn : i32
    %r = arith.remsi %v, %size : i32
    %rneg = arith.cmpi slt, %r, %c0 : i32
    %sneg = arith.cmpi slt, %size, %c0 : i32
    %x = arith.xori %rneg, %sneg : i1
    %rnz = arith.cmpi ne, %r, %c0 : i32
    %fix = arith.andi %x, %rnz : i1
    %radj = nv_tileaa.addi %r, %size : i32
    %rr = arith.select %fix, %radj, %r : i32
    %bm = nv_tileaa.addi %first, %rr : i32
    %bn = arith.floordivsi %uu, %size : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%acc0 = %zero) -> (tensor<128x256xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x256xf16>
      %d = nv_tileaa.dot %ta, %tb, %acc0 : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x256xf32> -> tensor<128x256xf16>
    %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] token %tok : tensor<128x256xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @grouped_rem_of_other_rem
// CHECK-NOT:  get_program_id {axis = 1
// CHECK:      arith.minsi
// CHECK:      scf.for

// -----
// A persistent loop over a 2-D launch grid the program linearised (sweep 11: from bid(0) + bid(1) *
// num_blocks(0) in steps of num_blocks(0) * num_blocks(1)) walks each tile once as the 1-D form: taken.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @linearised_2d_grid(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %tiles_m = nv_tileaa.get_dim_size %vc {index = 0 : i32} : !vc -> i32
    %tiles_n = nv_tileaa.get_dim_size %vc {index = 1 : i32} : !vc -> i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %p0 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p1 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %n0 = nv_tileaa.get_num_programs {axis = 0 : i32} : i32
    %n1 = nv_tileaa.get_num_programs {axis = 1 : i32} : i32
    %row = nv_tileaa.muli %p1, %n0 : i32
    %first = nv_tileaa.addi %p0, %row : i32
    %step = nv_tileaa.muli %n1, %n0 : i32
    %tiles = nv_tileaa.muli %tiles_m, %tiles_n : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %out = scf.for %t = %first to %tiles step %step iter_args(%tk = %tok) -> (!nv_tileaa.mem_token) : i32 {
      %bm = arith.divui %t, %tiles_n : i32
      %bn = arith.remui %t, %tiles_n : i32
      %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
        %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
        %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x128xf16>
        %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %y : tensor<128x128xf32>
      }
      %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
      %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] token %tk : tensor<128x128xf16>, !vc [i32, i32]
      scf.yield %st : !nv_tileaa.mem_token
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @linearised_2d_grid
// CHECK-SAME: tileorch.launch_grid_axes = array<i32: -1, -1, 2, 1, 1, 1>
// CHECK:      %[[PM:.*]] = nv_tileaa.get_program_id {axis = 0 : i32} : i32
// CHECK-NEXT: %[[PN:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK-NOT:  arith.divui
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%[[PM]], %[[PN]]] token %{{.*}}
// CHECK-NOT:  scf.yield %{{.*}} : !nv_tileaa.mem_token

// -----
// The same start with a step that is not the grid's size (num_blocks(0) squared): programs would skip or
// repeat tiles, so the loop stays.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @linearised_start_one_axis_step(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %tiles_m = nv_tileaa.get_dim_size %vc {index = 0 : i32} : !vc -> i32
    %tiles_n = nv_tileaa.get_dim_size %vc {index = 1 : i32} : !vc -> i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %p0 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p1 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %n0 = nv_tileaa.get_num_programs {axis = 0 : i32} : i32
    %n1 = nv_tileaa.get_num_programs {axis = 1 : i32} : i32
    %row = nv_tileaa.muli %p1, %n0 : i32
    %first = nv_tileaa.addi %p0, %row : i32
    %step = nv_tileaa.muli %n0, %n0 : i32
    %tiles = nv_tileaa.muli %tiles_m, %tiles_n : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %out = scf.for %t = %first to %tiles step %step iter_args(%tk = %tok) -> (!nv_tileaa.mem_token) : i32 {
      %bm = arith.divui %t, %tiles_n : i32
      %bn = arith.remui %t, %tiles_n : i32
      %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
        %ta, %t0 = nv_tileaa.tiled_load %va[%bm, %i] : !va [i32, i32] -> tensor<128x64xf16>
        %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %bn] : !vb [i32, i32] -> tensor<64x128xf16>
        %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %y : tensor<128x128xf32>
      }
      %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
      %st = nv_tileaa.tiled_store %h, %vc[%bm, %bn] token %tk : tensor<128x128xf16>, !vc [i32, i32]
      scf.yield %st : !nv_tileaa.mem_token
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @linearised_start_one_axis_step
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args

// -----
// A persistent loop over every (batch, row tile, column tile) of a batched GEMM (session 22):
// t < L * (tiles_m * tiles_n), b = t floordiv P, bm = (t mod P, sign-fixed) floordiv tiles_n,
// bn = t mod tiles_n (sign-fixed): b becomes program id 2, bm program id 0, bn program id 1; the
// loop, t and the fix-ups are gone.
!m3 = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!va3 = !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !m3>
!vb3 = !nv_tileaa.tiled_view<array<i32: 1, 64, 128>, array<i32: 1, 64, 128>, array<i32: 0, 1, 2>, !m3>
!vc3 = !nv_tileaa.tiled_view<array<i32: 1, 128, 128>, array<i32: 1, 128, 128>, array<i32: 0, 1, 2>, !m3>
builtin.module {
  nv_tileaa.func @persistent_batched(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %l: i32, %m: i32, %n: i32, %k: i32, %sa: i32, %sb: i32, %sc: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%l, %m, %k] [%sa, %k] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m3
    %mb = nv_tileaa.make_memref %b[%l, %k, %n] [%sb, %n] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m3
    %mc = nv_tileaa.make_memref %c[%l, %m, %n] [%sc, %n] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m3
    %va = nv_tileaa.block_tile %ma : !m3 -> !va3
    %vb = nv_tileaa.block_tile %mb : !m3 -> !vb3
    %vc = nv_tileaa.block_tile %mc : !m3 -> !vc3
    %tiles_m = nv_tileaa.get_dim_size %vc {index = 1 : i32} : !vc3 -> i32
    %tiles_n = nv_tileaa.get_dim_size %vc {index = 2 : i32} : !vc3 -> i32
    %kt = nv_tileaa.get_dim_size %va {index = 2 : i32} : !va3 -> i32
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %nprog = nv_tileaa.get_num_programs {axis = 0 : i32} : i32
    %per = nv_tileaa.muli %tiles_m, %tiles_n : i32
    %total = nv_tileaa.muli %l, %per : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %neg_p = arith.cmpi slt, %per, %c0 : i32
    %neg_n = arith.cmpi slt, %tiles_n, %c0 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %out = scf.for %t = %pid to %total step %nprog iter_args(%tk = %tok) -> (!nv_tileaa.mem_token) : i32 {
      %bb = arith.floordivsi %t, %per : i32
      %r = arith.remsi %t, %per : i32
      %rneg = arith.cmpi slt, %r, %c0 : i32
      %sign = arith.xori %rneg, %neg_p : i1
      %rnz = arith.cmpi ne, %r, %c0 : i32
      %fix = arith.andi %sign, %rnz : i1
      %radj = nv_tileaa.addi %r, %per : i32
      %rr = arith.select %fix, %radj, %r : i32
      %bm = arith.floordivsi %rr, %tiles_n : i32
      %q = arith.remsi %t, %tiles_n : i32
      %qneg = arith.cmpi slt, %q, %c0 : i32
      %qsign = arith.xori %qneg, %neg_n : i1
      %qnz = arith.cmpi ne, %q, %c0 : i32
      %qfix = arith.andi %qsign, %qnz : i1
      %qadj = nv_tileaa.addi %q, %tiles_n : i32
      %bn = arith.select %qfix, %qadj, %q : i32
      %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
        %ta, %t0 = nv_tileaa.tiled_load %va[%bb, %bm, %i] : !va3 [i32, i32, i32] -> tensor<1x128x64xf16>
        %ta2 = nv_tileaa.reshape %ta : tensor<1x128x64xf16> -> tensor<128x64xf16>
        %tb, %t1 = nv_tileaa.tiled_load %vb[%bb, %i, %bn] : !vb3 [i32, i32, i32] -> tensor<1x64x128xf16>
        %tb2 = nv_tileaa.reshape %tb : tensor<1x64x128xf16> -> tensor<64x128xf16>
        %y = nv_tileaa.dot %ta2, %tb2, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %y : tensor<128x128xf32>
      }
      %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
      %h3 = nv_tileaa.reshape %h : tensor<128x128xf16> -> tensor<1x128x128xf16>
      %st = nv_tileaa.tiled_store %h3, %vc[%bb, %bm, %bn] token %tk : tensor<1x128x128xf16>, !vc3 [i32, i32, i32]
      scf.yield %st : !nv_tileaa.mem_token
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @persistent_batched
// CHECK-SAME: tileorch.launch_grid_axes = array<i32: -1, -1, -1, 1, 1, 1>
// CHECK-DAG:  %[[PM:.*]] = nv_tileaa.get_program_id {axis = 0 : i32} : i32
// CHECK-DAG:  %[[PN:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK-DAG:  %[[PB:.*]] = nv_tileaa.get_program_id {axis = 2 : i32} : i32
// CHECK-NOT:  arith.floordivsi
// CHECK-NOT:  arith.remsi
// CHECK-NOT:  arith.select
// CHECK:      scf.for
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%[[PB]], %[[PM]], %{{.*}}]
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%[[PB]], %{{.*}}, %[[PN]]]
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%[[PB]], %[[PM]], %[[PN]]] token %{{.*}}
// CHECK-NOT:  scf.yield %{{.*}} : !nv_tileaa.mem_token

// -----
// The same loop bounded by a count that is no array's batch extent (a scalar argument %l2): t // P
// could pass the arrays' batches, so the loop stays.
!m3 = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!va3 = !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !m3>
!vb3 = !nv_tileaa.tiled_view<array<i32: 1, 64, 128>, array<i32: 1, 64, 128>, array<i32: 0, 1, 2>, !m3>
!vc3 = !nv_tileaa.tiled_view<array<i32: 1, 128, 128>, array<i32: 1, 128, 128>, array<i32: 0, 1, 2>, !m3>
builtin.module {
  nv_tileaa.func @persistent_batched_other_count(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %l: i32, %l2: i32, %m: i32, %n: i32, %k: i32, %sa: i32, %sb: i32, %sc: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%l, %m, %k] [%sa, %k] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m3
    %mb = nv_tileaa.make_memref %b[%l, %k, %n] [%sb, %n] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m3
    %mc = nv_tileaa.make_memref %c[%l, %m, %n] [%sc, %n] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m3
    %va = nv_tileaa.block_tile %ma : !m3 -> !va3
    %vb = nv_tileaa.block_tile %mb : !m3 -> !vb3
    %vc = nv_tileaa.block_tile %mc : !m3 -> !vc3
    %tiles_m = nv_tileaa.get_dim_size %vc {index = 1 : i32} : !vc3 -> i32
    %tiles_n = nv_tileaa.get_dim_size %vc {index = 2 : i32} : !vc3 -> i32
    %kt = nv_tileaa.get_dim_size %va {index = 2 : i32} : !va3 -> i32
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %nprog = nv_tileaa.get_num_programs {axis = 0 : i32} : i32
    %per = nv_tileaa.muli %tiles_m, %tiles_n : i32
    %total = nv_tileaa.muli %l2, %per : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %out = scf.for %t = %pid to %total step %nprog iter_args(%tk = %tok) -> (!nv_tileaa.mem_token) : i32 {
      %bb = arith.floordivsi %t, %per : i32
      %r = arith.remsi %t, %per : i32
      %bm = arith.floordivsi %r, %tiles_n : i32
      %bn = arith.remsi %t, %tiles_n : i32
      %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
        %ta, %t0 = nv_tileaa.tiled_load %va[%bb, %bm, %i] : !va3 [i32, i32, i32] -> tensor<1x128x64xf16>
        %ta2 = nv_tileaa.reshape %ta : tensor<1x128x64xf16> -> tensor<128x64xf16>
        %tb, %t1 = nv_tileaa.tiled_load %vb[%bb, %i, %bn] : !vb3 [i32, i32, i32] -> tensor<1x64x128xf16>
        %tb2 = nv_tileaa.reshape %tb : tensor<1x64x128xf16> -> tensor<64x128xf16>
        %y = nv_tileaa.dot %ta2, %tb2, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %y : tensor<128x128xf32>
      }
      %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
      %h3 = nv_tileaa.reshape %h : tensor<128x128xf16> -> tensor<1x128x128xf16>
      %st = nv_tileaa.tiled_store %h3, %vc[%bb, %bm, %bn] token %tk : tensor<1x128x128xf16>, !vc3 [i32, i32, i32]
      scf.yield %st : !nv_tileaa.mem_token
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @persistent_batched_other_count
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (!nv_tileaa.mem_token)
// CHECK:      arith.floordivsi
