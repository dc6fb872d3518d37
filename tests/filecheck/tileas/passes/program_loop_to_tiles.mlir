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
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:      arith.floordivsi

// -----
// The trip count multiplies tile counts of a view that is not the stored tile grid (A's rows): t is
// not known to walk the output tiles, so the loop stays.
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
    %tiles_m = nv_tileaa.get_dim_size %va {index = 0 : i32} : !va -> i32
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
// CHECK:      %[[QM:.*]] = nv_tileaa.get_program_id {axis = 0 : i32} : i32
// CHECK-NEXT: %[[QN:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK-NOT:  arith.floordivsi
// CHECK-NOT:  arith.select
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%[[QM]], %[[QN]]]
