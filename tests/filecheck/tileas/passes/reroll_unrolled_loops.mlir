// RUN: tileorch-opt %s --split-input-file -p tileas-reroll-unrolled-loops | filecheck %s

// Four copies of a K step (ct.static_iter(range(4)): the K indices 0..3 defined before the copies),
// each accumulating into the one before: one loop over 0..4 carrying the accumulator, the K index
// the induction variable, the store reading the loop's result.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!mc = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !mc>
builtin.module {
  nv_tileaa.func @static_iter(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mc
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %va0 = nv_tileaa.block_tile %ma : !m -> !va
    %x0, %tx0 = nv_tileaa.tiled_load %va0[%i, %c0] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb0 = nv_tileaa.block_tile %mb : !m -> !vb
    %y0, %ty0 = nv_tileaa.tiled_load %vb0[%c0, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d0 = nv_tileaa.dot %x0, %y0, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %va1 = nv_tileaa.block_tile %ma : !m -> !va
    %x1, %tx1 = nv_tileaa.tiled_load %va1[%i, %c1] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb1 = nv_tileaa.block_tile %mb : !m -> !vb
    %y1, %ty1 = nv_tileaa.tiled_load %vb1[%c1, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d1 = nv_tileaa.dot %x1, %y1, %d0 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %va2 = nv_tileaa.block_tile %ma : !m -> !va
    %x2, %tx2 = nv_tileaa.tiled_load %va2[%i, %c2] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb2 = nv_tileaa.block_tile %mb : !m -> !vb
    %y2, %ty2 = nv_tileaa.tiled_load %vb2[%c2, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d2 = nv_tileaa.dot %x2, %y2, %d1 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %va3 = nv_tileaa.block_tile %ma : !m -> !va
    %x3, %tx3 = nv_tileaa.tiled_load %va3[%i, %c3] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb3 = nv_tileaa.block_tile %mb : !m -> !vb
    %y3, %ty3 = nv_tileaa.tiled_load %vb3[%c3, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d3 = nv_tileaa.dot %x3, %y3, %d2 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %vc = nv_tileaa.block_tile %mc : !mc -> !vc
    %st = nv_tileaa.tiled_store %d3, %vc[%i, %j] token %tok : tensor<128x128xf32>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @static_iter
// CHECK-NOT:   arith.constant 3 : i32
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
// CHECK-NEXT:  %[[LB:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[UB:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[ST:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[R:.*]] = scf.for %[[K:.*]] = %[[LB]] to %[[UB]] step %[[ST]] iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<128x128xf32>) : i32 {
// CHECK-NEXT:    nv_tileaa.block_tile
// CHECK-NEXT:    %[[X:.*]], %{{.*}} = nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %[[K]]]
// CHECK-NEXT:    nv_tileaa.block_tile
// CHECK-NEXT:    %[[Y:.*]], %{{.*}} = nv_tileaa.tiled_load %{{.*}}[%[[K]], %{{.*}}]
// CHECK-NEXT:    %[[D:.*]] = nv_tileaa.dot %[[X]], %[[Y]], %[[ACC]]
// CHECK-NEXT:    scf.yield %[[D]] : tensor<128x128xf32>
// CHECK-NEXT:  }
// CHECK-NOT:   nv_tileaa.dot
// CHECK:       nv_tileaa.tiled_store %[[R]], %{{.*}}[%{{.*}}, %{{.*}}]

// -----
// Three K steps written out by hand, each copy with its own constants: B's K tile 0, 1, 2 and A's
// 1, 3, 5 (a progression of step 2 from 1): the loop computes 2 * k + 1 for A.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!mc = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !mc>
builtin.module {
  nv_tileaa.func @by_hand(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mc
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %ka0 = arith.constant 1 : i32
    %kb0 = arith.constant 0 : i32
    %va0 = nv_tileaa.block_tile %ma : !m -> !va
    %x0, %tx0 = nv_tileaa.tiled_load %va0[%i, %ka0] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb0 = nv_tileaa.block_tile %mb : !m -> !vb
    %y0, %ty0 = nv_tileaa.tiled_load %vb0[%kb0, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d0 = nv_tileaa.dot %x0, %y0, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %ka1 = arith.constant 3 : i32
    %kb1 = arith.constant 1 : i32
    %va1 = nv_tileaa.block_tile %ma : !m -> !va
    %x1, %tx1 = nv_tileaa.tiled_load %va1[%i, %ka1] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb1 = nv_tileaa.block_tile %mb : !m -> !vb
    %y1, %ty1 = nv_tileaa.tiled_load %vb1[%kb1, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d1 = nv_tileaa.dot %x1, %y1, %d0 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %ka2 = arith.constant 5 : i32
    %kb2 = arith.constant 2 : i32
    %va2 = nv_tileaa.block_tile %ma : !m -> !va
    %x2, %tx2 = nv_tileaa.tiled_load %va2[%i, %ka2] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb2 = nv_tileaa.block_tile %mb : !m -> !vb
    %y2, %ty2 = nv_tileaa.tiled_load %vb2[%kb2, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d2 = nv_tileaa.dot %x2, %y2, %d1 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %vc = nv_tileaa.block_tile %mc : !mc -> !vc
    %st = nv_tileaa.tiled_store %d2, %vc[%i, %j] token %tok : tensor<128x128xf32>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @by_hand
// CHECK:       %[[UB:.*]] = arith.constant 3 : i32
// CHECK:       scf.for %[[K:.*]] = %{{.*}} to %[[UB]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<128x128xf32>) : i32 {
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[K2:.*]] = arith.muli %[[K]], %[[TWO]] : i32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[KA:.*]] = arith.addi %[[K2]], %[[ONE]] : i32
// CHECK-NOT:     arith.constant
// CHECK:         nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %[[KA]]]
// CHECK:         nv_tileaa.tiled_load %{{.*}}[%[[K]], %{{.*}}]
// CHECK:         nv_tileaa.dot
// CHECK-NEXT:    scf.yield
// CHECK-NOT:   nv_tileaa.dot

// -----
// The copies read A's row tile %i, %j, %i: not a constant difference; left as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!mc = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !mc>
builtin.module {
  nv_tileaa.func @non_constant(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mc
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %va0 = nv_tileaa.block_tile %ma : !m -> !va
    %x0, %tx0 = nv_tileaa.tiled_load %va0[%i, %c0] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb0 = nv_tileaa.block_tile %mb : !m -> !vb
    %y0, %ty0 = nv_tileaa.tiled_load %vb0[%c0, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d0 = nv_tileaa.dot %x0, %y0, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %va1 = nv_tileaa.block_tile %ma : !m -> !va
    %x1, %tx1 = nv_tileaa.tiled_load %va1[%j, %c1] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb1 = nv_tileaa.block_tile %mb : !m -> !vb
    %y1, %ty1 = nv_tileaa.tiled_load %vb1[%c1, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d1 = nv_tileaa.dot %x1, %y1, %d0 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %va2 = nv_tileaa.block_tile %ma : !m -> !va
    %x2, %tx2 = nv_tileaa.tiled_load %va2[%i, %c2] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb2 = nv_tileaa.block_tile %mb : !m -> !vb
    %y2, %ty2 = nv_tileaa.tiled_load %vb2[%c2, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d2 = nv_tileaa.dot %x2, %y2, %d1 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %vc = nv_tileaa.block_tile %mc : !mc -> !vc
    %st = nv_tileaa.tiled_store %d2, %vc[%i, %j] token %tok : tensor<128x128xf32>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @non_constant
// CHECK-NOT:   scf.for
// CHECK-COUNT-3: nv_tileaa.dot
// CHECK-NOT:   scf.for

// -----
// K tiles 0, 1, 3: not a progression over the three copies; left as written (no shorter loop).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!mc = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !mc>
builtin.module {
  nv_tileaa.func @not_a_progression(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mc
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %va0 = nv_tileaa.block_tile %ma : !m -> !va
    %x0, %tx0 = nv_tileaa.tiled_load %va0[%i, %c0] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb0 = nv_tileaa.block_tile %mb : !m -> !vb
    %y0, %ty0 = nv_tileaa.tiled_load %vb0[%c0, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d0 = nv_tileaa.dot %x0, %y0, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %va1 = nv_tileaa.block_tile %ma : !m -> !va
    %x1, %tx1 = nv_tileaa.tiled_load %va1[%i, %c1] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb1 = nv_tileaa.block_tile %mb : !m -> !vb
    %y1, %ty1 = nv_tileaa.tiled_load %vb1[%c1, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d1 = nv_tileaa.dot %x1, %y1, %d0 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %va2 = nv_tileaa.block_tile %ma : !m -> !va
    %x2, %tx2 = nv_tileaa.tiled_load %va2[%i, %c3] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb2 = nv_tileaa.block_tile %mb : !m -> !vb
    %y2, %ty2 = nv_tileaa.tiled_load %vb2[%c3, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d2 = nv_tileaa.dot %x2, %y2, %d1 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %vc = nv_tileaa.block_tile %mc : !mc -> !vc
    %st = nv_tileaa.tiled_store %d2, %vc[%i, %j] token %tok : tensor<128x128xf32>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @not_a_progression
// CHECK-NOT:   scf.for
// CHECK-COUNT-3: nv_tileaa.dot
// CHECK-NOT:   scf.for

// -----
// The second copy's accumulator is also stored after the chain: not a loop's result; left as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!mc = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !mc>
builtin.module {
  nv_tileaa.func @middle_value_used(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mc
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %va0 = nv_tileaa.block_tile %ma : !m -> !va
    %x0, %tx0 = nv_tileaa.tiled_load %va0[%i, %c0] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb0 = nv_tileaa.block_tile %mb : !m -> !vb
    %y0, %ty0 = nv_tileaa.tiled_load %vb0[%c0, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d0 = nv_tileaa.dot %x0, %y0, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %va1 = nv_tileaa.block_tile %ma : !m -> !va
    %x1, %tx1 = nv_tileaa.tiled_load %va1[%i, %c1] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb1 = nv_tileaa.block_tile %mb : !m -> !vb
    %y1, %ty1 = nv_tileaa.tiled_load %vb1[%c1, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d1 = nv_tileaa.dot %x1, %y1, %d0 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %va2 = nv_tileaa.block_tile %ma : !m -> !va
    %x2, %tx2 = nv_tileaa.tiled_load %va2[%i, %c2] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb2 = nv_tileaa.block_tile %mb : !m -> !vb
    %y2, %ty2 = nv_tileaa.tiled_load %vb2[%c2, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d2 = nv_tileaa.dot %x2, %y2, %d1 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %vc = nv_tileaa.block_tile %mc : !mc -> !vc
    %st = nv_tileaa.tiled_store %d2, %vc[%i, %j] token %tok : tensor<128x128xf32>, !vc [i32, i32]
    %st2 = nv_tileaa.tiled_store %d1, %vc[%j, %i] token %tok : tensor<128x128xf32>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @middle_value_used
// CHECK-NOT:   scf.for
// CHECK-COUNT-3: nv_tileaa.dot
// CHECK-NOT:   scf.for

// -----
// Each copy starts from the zeros and stores its own tile: nothing carried from copy to copy (not a
// loop's accumulation); left as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!mc = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !mc>
builtin.module {
  nv_tileaa.func @nothing_carried(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mc
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %va0 = nv_tileaa.block_tile %ma : !m -> !va
    %x0, %tx0 = nv_tileaa.tiled_load %va0[%i, %c0] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb0 = nv_tileaa.block_tile %mb : !m -> !vb
    %y0, %ty0 = nv_tileaa.tiled_load %vb0[%c0, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d0 = nv_tileaa.dot %x0, %y0, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %vc0 = nv_tileaa.block_tile %mc : !mc -> !vc
    %st0 = nv_tileaa.tiled_store %d0, %vc0[%i, %c0] token %tok : tensor<128x128xf32>, !vc [i32, i32]
    %va1 = nv_tileaa.block_tile %ma : !m -> !va
    %x1, %tx1 = nv_tileaa.tiled_load %va1[%i, %c1] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb1 = nv_tileaa.block_tile %mb : !m -> !vb
    %y1, %ty1 = nv_tileaa.tiled_load %vb1[%c1, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d1 = nv_tileaa.dot %x1, %y1, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %vc1 = nv_tileaa.block_tile %mc : !mc -> !vc
    %st1 = nv_tileaa.tiled_store %d1, %vc1[%i, %c1] token %tok : tensor<128x128xf32>, !vc [i32, i32]
    %va2 = nv_tileaa.block_tile %ma : !m -> !va
    %x2, %tx2 = nv_tileaa.tiled_load %va2[%i, %c2] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %vb2 = nv_tileaa.block_tile %mb : !m -> !vb
    %y2, %ty2 = nv_tileaa.tiled_load %vb2[%c2, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d2 = nv_tileaa.dot %x2, %y2, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %vc2 = nv_tileaa.block_tile %mc : !mc -> !vc
    %st2 = nv_tileaa.tiled_store %d2, %vc2[%i, %c2] token %tok : tensor<128x128xf32>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @nothing_carried
// CHECK-NOT:   scf.for

// -----
// Attention's key loop unrolled three times: each copy reads the running max %m and output %o of
// the one before, and its key load waits on the token of the load before (three carried values,
// a reduction's region in each copy): one loop carrying the max, the output and the token.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @two_values_and_a_token(%q: !nv_tileaa.ptr<f16>, %s: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %qt, %t0 = nv_tileaa.tiled_load %vq[%i, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %m0 = arith.constant dense<-1.0e+30> : tensor<64x1xf32>
    %k0, %tk0 = nv_tileaa.tiled_load %vq[%c0, %c0] token %t0 : !v [i32, i32] -> tensor<64x64xf16>
    %kt0 = "nv_tileaa.permute"(%k0) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
    %sc0 = nv_tileaa.dot %qt, %kt0, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %mx0 = "nv_tileaa.reduce"(%sc0) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%x0: f32, %y0: f32):
      %w0 = nv_tileaa.maxf %x0, %y0 : f32
      "nv_tileaa.yield"(%w0) : (f32) -> ()
    }) : (tensor<64x64xf32>) -> tensor<64xf32>
    %mx20 = nv_tileaa.expand_dims %mx0 {dim = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %mn0 = nv_tileaa.maxf %m0, %mx20 : tensor<64x1xf32>
    %mb0 = nv_tileaa.broadcast %mn0 : tensor<64x1xf32> -> tensor<64x64xf32>
    %p0 = nv_tileaa.subf %sc0, %mb0 : tensor<64x64xf32>
    %ph0 = nv_tileaa.fp_to_fp %p0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o0 = nv_tileaa.dot %ph0, %k0, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %k1, %tk1 = nv_tileaa.tiled_load %vq[%c1, %c0] token %tk0 : !v [i32, i32] -> tensor<64x64xf16>
    %kt1 = "nv_tileaa.permute"(%k1) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
    %sc1 = nv_tileaa.dot %qt, %kt1, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %mx1 = "nv_tileaa.reduce"(%sc1) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%x1: f32, %y1: f32):
      %w1 = nv_tileaa.maxf %x1, %y1 : f32
      "nv_tileaa.yield"(%w1) : (f32) -> ()
    }) : (tensor<64x64xf32>) -> tensor<64xf32>
    %mx21 = nv_tileaa.expand_dims %mx1 {dim = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %mn1 = nv_tileaa.maxf %mn0, %mx21 : tensor<64x1xf32>
    %mb1 = nv_tileaa.broadcast %mn1 : tensor<64x1xf32> -> tensor<64x64xf32>
    %p1 = nv_tileaa.subf %sc1, %mb1 : tensor<64x64xf32>
    %ph1 = nv_tileaa.fp_to_fp %p1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o1 = nv_tileaa.dot %ph1, %k1, %o0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %k2, %tk2 = nv_tileaa.tiled_load %vq[%c2, %c0] token %tk1 : !v [i32, i32] -> tensor<64x64xf16>
    %kt2 = "nv_tileaa.permute"(%k2) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
    %sc2 = nv_tileaa.dot %qt, %kt2, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %mx2 = "nv_tileaa.reduce"(%sc2) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%x2: f32, %y2: f32):
      %w2 = nv_tileaa.maxf %x2, %y2 : f32
      "nv_tileaa.yield"(%w2) : (f32) -> ()
    }) : (tensor<64x64xf32>) -> tensor<64xf32>
    %mx22 = nv_tileaa.expand_dims %mx2 {dim = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %mn2 = nv_tileaa.maxf %mn1, %mx22 : tensor<64x1xf32>
    %mb2 = nv_tileaa.broadcast %mn2 : tensor<64x1xf32> -> tensor<64x64xf32>
    %p2 = nv_tileaa.subf %sc2, %mb2 : tensor<64x64xf32>
    %ph2 = nv_tileaa.fp_to_fp %p2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o2 = nv_tileaa.dot %ph2, %k2, %o1 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %oh = nv_tileaa.fp_to_fp %o2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %t3 = nv_tileaa.tiled_store %oh, %vq[%i, %c0] token %tk2 : tensor<64x64xf16>, !v [i32, i32]
    %mh = nv_tileaa.fp_to_fp %mn2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x1xf32> -> tensor<64x1xf16>
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @two_values_and_a_token
// CHECK:       %{{.*}}, %[[T0:.*]] = nv_tileaa.tiled_load
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT:  %[[M0:.*]] = arith.constant dense<-1.000000e+30> : tensor<64x1xf32>
// CHECK:       %[[UB:.*]] = arith.constant 3 : i32
// CHECK:       %[[RT:[^ ,]*]], %[[RM:[^ ,]*]], %[[RO:[^ ,]*]] = scf.for %[[J:.*]] = %{{.*}} to %[[UB]] step %{{.*}} iter_args(%[[T:.*]] = %[[T0]], %[[M:.*]] = %[[M0]], %[[O:.*]] = %[[Z]]) -> (!nv_tileaa.mem_token, tensor<64x1xf32>, tensor<64x64xf32>) : i32 {
// CHECK-NEXT:    %[[K:.*]], %[[TK:.*]] = nv_tileaa.tiled_load %{{.*}}[%[[J]], %{{.*}}] token %[[T]]
// CHECK:         nv_tileaa.dot
// CHECK:         "nv_tileaa.reduce"
// CHECK:         nv_tileaa.maxf %{{.*}}, %{{.*}} : f32
// CHECK:         %[[MN:.*]] = nv_tileaa.maxf %[[M]], %{{.*}} : tensor<64x1xf32>
// CHECK:         %[[ON:.*]] = nv_tileaa.dot %{{.*}}, %[[K]], %[[O]]
// CHECK-NEXT:    scf.yield %[[TK]], %[[MN]], %[[ON]] : !nv_tileaa.mem_token, tensor<64x1xf32>, tensor<64x64xf32>
// CHECK-NEXT:  }
// CHECK-NOT:   nv_tileaa.dot
// CHECK:       nv_tileaa.fp_to_fp %[[RO]]
// CHECK-NEXT:  nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] token %[[RT]]
// CHECK-NEXT:  nv_tileaa.fp_to_fp %[[RM]]

// -----
// Three copies of an elementwise update without a dot: not for the tensor-core tiers; left as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @no_dot(%q: !nv_tileaa.ptr<f16>, %s: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %qt, %t0 = nv_tileaa.tiled_load %vq[%i, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %m0 = arith.constant dense<-1.0e+30> : tensor<64x1xf32>
    %k0, %tk0 = nv_tileaa.tiled_load %vq[%c0, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %kf0 = nv_tileaa.fp_to_fp %k0 : tensor<64x64xf16> -> tensor<64x64xf32>
    %a0 = nv_tileaa.addf %z, %kf0 : tensor<64x64xf32>
    %k1, %tk1 = nv_tileaa.tiled_load %vq[%c1, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %kf1 = nv_tileaa.fp_to_fp %k1 : tensor<64x64xf16> -> tensor<64x64xf32>
    %a1 = nv_tileaa.addf %a0, %kf1 : tensor<64x64xf32>
    %k2, %tk2 = nv_tileaa.tiled_load %vq[%c2, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %kf2 = nv_tileaa.fp_to_fp %k2 : tensor<64x64xf16> -> tensor<64x64xf32>
    %a2 = nv_tileaa.addf %a1, %kf2 : tensor<64x64xf32>
    %oh = nv_tileaa.fp_to_fp %a2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %t3 = nv_tileaa.tiled_store %oh, %vq[%i, %c0] token %tok : tensor<64x64xf16>, !v [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @no_dot
// CHECK-NOT:   scf.for
// CHECK-COUNT-3: nv_tileaa.addf

// -----
// Two equal dots two ops apart that do not chain, after a stretch repeating with the same period
// (the program ids) that holds no dot: nothing to re-roll (found on sweep 5's mm_two_k_loops, where
// the pass raised on the stretch without a dot).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!mc = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vc = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !mc>
builtin.module {
  nv_tileaa.func @stretch_without_a_dot(%q: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f32>, %s: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %i0 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j0 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %i1 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j1 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %mq = nv_tileaa.make_memref %q[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %mm = nv_tileaa.make_memref %c[%s, %s] [%s] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mc
    %vc = nv_tileaa.block_tile %mm : !mc -> !vc
    %x, %t0 = nv_tileaa.tiled_load %vq[%i0, %j0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d0 = nv_tileaa.dot %x, %x, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %d1 = nv_tileaa.dot %x, %x, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %t1 = nv_tileaa.tiled_store %d0, %vc[%i1, %c0] token %tok : tensor<64x64xf32>, !vc [i32, i32]
    %t2 = nv_tileaa.tiled_store %d1, %vc[%j1, %c0] token %tok : tensor<64x64xf32>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @stretch_without_a_dot
// CHECK-NOT:   scf.for
// CHECK-COUNT-2: nv_tileaa.dot
// CHECK-NOT:   scf.for

// -----
// Each copy reads its own views of A and B, computed alike before the copies (cuTile hoists a
// copy's views out of an enclosing tile loop): equivalent values, so the loop reads the second
// copy's views.  A copy that read a view of another array would differ (the @non_constant case).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!mc = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !mc>
builtin.module {
  nv_tileaa.func @views_per_copy(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mc
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %va0 = nv_tileaa.block_tile %ma : !m -> !va
    %vb0 = nv_tileaa.block_tile %mb : !m -> !vb
    %va1 = nv_tileaa.block_tile %ma : !m -> !va
    %vb1 = nv_tileaa.block_tile %mb : !m -> !vb
    %x0, %tx0 = nv_tileaa.tiled_load %va0[%i, %c0] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %y0, %ty0 = nv_tileaa.tiled_load %vb0[%c0, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d0 = nv_tileaa.dot %x0, %y0, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %x1, %tx1 = nv_tileaa.tiled_load %va1[%i, %c1] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %y1, %ty1 = nv_tileaa.tiled_load %vb1[%c1, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %d1 = nv_tileaa.dot %x1, %y1, %d0 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %vc = nv_tileaa.block_tile %mc : !mc -> !vc
    %st = nv_tileaa.tiled_store %d1, %vc[%i, %j] token %tok : tensor<128x128xf32>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @views_per_copy
// CHECK:       %va1 = nv_tileaa.block_tile %ma
// CHECK-NEXT:  %vb1 = nv_tileaa.block_tile %mb
// CHECK:       scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %z)
// CHECK-NEXT:    %[[X:.*]], %{{.*}} = nv_tileaa.tiled_load %va1[%i, %[[K]]]
// CHECK-NEXT:    %[[Y:.*]], %{{.*}} = nv_tileaa.tiled_load %vb1[%[[K]], %j]
// CHECK-NEXT:    nv_tileaa.dot %[[X]], %[[Y]], %[[ACC]]

// -----
// Each copy masks the key positions j * 64 + cols past %n: j * 64 is a constant tile in each copy
// (dense<0>, dense<64>, dense<128>: a progression of splat tiles), rebuilt in the loop from
// 64 * k splat and broadcast as cuTile writes a scalar added to a tile.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @splat_tiles(%q: !nv_tileaa.ptr<f16>, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %p0 = arith.constant dense<0> : tensor<1x64xi32>
    %p1 = arith.constant dense<64> : tensor<1x64xi32>
    %p2 = arith.constant dense<128> : tensor<1x64xi32>
    %range = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %cols = nv_tileaa.expand_dims %range {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %ns = nv_tileaa.splat %n : i32 -> tensor<1x1xi32>
    %nb = nv_tileaa.broadcast %ns : tensor<1x1xi32> -> tensor<1x64xi32>
    %qt, %t0 = nv_tileaa.tiled_load %vq[%i, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %ninf = arith.constant dense<-1.0e+30> : tensor<64x64xf32>
    %k0, %tk0 = nv_tileaa.tiled_load %vq[%c0, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %sc0 = nv_tileaa.dot %qt, %k0, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %key0 = nv_tileaa.addi %p0, %cols : tensor<1x64xi32>
    %ok0 = nv_tileaa.cmpi "slt", %key0, %nb : tensor<1x64xi32> -> tensor<1x64xi1>
    %okb0 = nv_tileaa.broadcast %ok0 : tensor<1x64xi1> -> tensor<64x64xi1>
    %sel0 = nv_tileaa.select %okb0, %sc0, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    %o0 = nv_tileaa.addf %z, %sel0 : tensor<64x64xf32>
    %k1, %tk1 = nv_tileaa.tiled_load %vq[%c1, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %sc1 = nv_tileaa.dot %qt, %k1, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %key1 = nv_tileaa.addi %p1, %cols : tensor<1x64xi32>
    %ok1 = nv_tileaa.cmpi "slt", %key1, %nb : tensor<1x64xi32> -> tensor<1x64xi1>
    %okb1 = nv_tileaa.broadcast %ok1 : tensor<1x64xi1> -> tensor<64x64xi1>
    %sel1 = nv_tileaa.select %okb1, %sc1, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    %o1 = nv_tileaa.addf %o0, %sel1 : tensor<64x64xf32>
    %k2, %tk2 = nv_tileaa.tiled_load %vq[%c2, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %sc2 = nv_tileaa.dot %qt, %k2, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %key2 = nv_tileaa.addi %p2, %cols : tensor<1x64xi32>
    %ok2 = nv_tileaa.cmpi "slt", %key2, %nb : tensor<1x64xi32> -> tensor<1x64xi1>
    %okb2 = nv_tileaa.broadcast %ok2 : tensor<1x64xi1> -> tensor<64x64xi1>
    %sel2 = nv_tileaa.select %okb2, %sc2, %ninf : tensor<64x64xi1>, tensor<64x64xf32>
    %o2 = nv_tileaa.addf %o1, %sel2 : tensor<64x64xf32>
    %oh = nv_tileaa.fp_to_fp %o2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %t3 = nv_tileaa.tiled_store %oh, %vq[%i, %c0] token %tok : tensor<64x64xf16>, !v [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @splat_tiles
// CHECK-NOT:   dense<64> : tensor<1x64xi32>
// CHECK:       scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[O:.*]] = %z) -> (tensor<64x64xf32>) : i32 {
// CHECK-NEXT:    %[[S:.*]] = arith.constant 64 : i32
// CHECK-NEXT:    %[[K64:.*]] = arith.muli %[[K]], %[[S]] : i32
// CHECK-NEXT:    %[[SP:.*]] = nv_tileaa.splat %[[K64]] : i32 -> tensor<1x1xi32>
// CHECK-NEXT:    %[[P:.*]] = nv_tileaa.broadcast %[[SP]] : tensor<1x1xi32> -> tensor<1x64xi32>
// CHECK-NEXT:    nv_tileaa.tiled_load %vq[%[[K]], %c0]
// CHECK-NEXT:    nv_tileaa.dot
// CHECK-NEXT:    nv_tileaa.addi %[[P]], %cols : tensor<1x64xi32>
// CHECK:         %[[ON:.*]] = nv_tileaa.addf %[[O]], %{{.*}}
// CHECK-NEXT:    scf.yield %[[ON]]
