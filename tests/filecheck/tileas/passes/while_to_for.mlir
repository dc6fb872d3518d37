// RUN: tileorch-opt %s --split-input-file -p tileas-while-to-for | filecheck %s

// `k = 0; while k < nk: acc = dot(...); k += 1` as convert-cudatile-to-tileaa writes it: one
// scf.for from the counter's start to nk, the accumulator carried, the loop's result read after.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @counted(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32, %nk: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:4 = scf.while (%acc = %z, %kk = %c0) : (tensor<128x128xf32>, i32) -> (tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
      %go = arith.cmpi slt, %kk, %nk : i32
      %f, %t0, %t1, %x0, %x1 = scf.if %go -> (i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
        %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %i] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        %next = nv_tileaa.addi %kk, %c1 : i32
        %true = arith.constant true
        %u = arith.constant dense<0.0> : tensor<128x128xf32>
        %u0 = arith.constant 0 : i32
        scf.yield %true, %d, %next, %u, %u0 : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      } else {
        %false = arith.constant false
        scf.yield %false, %acc, %kk, %acc, %kk : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      }
      scf.condition(%f) %t0, %t1, %x0, %x1 : tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
    } do {
    ^bb0(%a0: tensor<128x128xf32>, %a1: i32, %a2: tensor<128x128xf32>, %a3: i32):
      scf.yield %a0, %a1 : tensor<128x128xf32>, i32
    }
    %o = nv_tileaa.fp_to_fp %r#2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @counted
// CHECK-NOT:  scf.while
// CHECK:      %c1 = arith.constant 1 : i32
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[R:.*]] = scf.for %[[K:.*]] = %c0 to %nk step %[[STEP]] iter_args(%[[ACC:.*]] = %z) -> (tensor<128x128xf32>) : i32 {
// CHECK-NEXT:   nv_tileaa.tiled_load %va[%i, %[[K]]]
// CHECK-NEXT:   nv_tileaa.tiled_load %vb[%[[K]], %i]
// CHECK-NEXT:   %[[D:.*]] = nv_tileaa.dot %{{.*}}, %{{.*}}, %[[ACC]]
// CHECK-NEXT:   scf.yield %[[D]] : tensor<128x128xf32>
// CHECK-NEXT: }
// CHECK-NEXT: nv_tileaa.fp_to_fp %[[R]]

// -----

// `while k * 64 < end` (a scaled counter, the bound computed in the condition from outside values)
// stepping by 2: the bound's ops hoisted, the trip bound ceil(bound / 64), step 2.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @scaled(%a: !nv_tileaa.ptr<f16>, %m: i32, %k: i32, %e: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %r:4 = scf.while (%acc = %z, %kk = %c0) : (tensor<128x128xf32>, i32) -> (tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
      %end = nv_tileaa.addi %e, %c2 : i32
      %at = nv_tileaa.muli %kk, %c64 : i32
      %go = arith.cmpi slt, %at, %end : i32
      %f, %t0, %t1, %x0, %x1 = scf.if %go -> (i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
        %x, %t2 = nv_tileaa.tiled_load %va[%at, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %xt = "nv_tileaa.permute"(%x) <{permutation = array<i32: 1, 0>}> : (tensor<128x64xf16>) -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %xt, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        %next = nv_tileaa.addi %kk, %c2 : i32
        %true = arith.constant true
        scf.yield %true, %d, %next, %d, %next : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      } else {
        %false = arith.constant false
        scf.yield %false, %acc, %kk, %acc, %kk : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      }
      scf.condition(%f) %t0, %t1, %x0, %x1 : tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
    } do {
    ^bb0(%a0: tensor<128x128xf32>, %a1: i32, %a2: tensor<128x128xf32>, %a3: i32):
      scf.yield %a0, %a1 : tensor<128x128xf32>, i32
    }
    %o = nv_tileaa.fp_to_fp %r#2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @scaled
// CHECK:      %[[END:.*]] = nv_tileaa.addi %e, %c2 : i32
// CHECK-NEXT: %[[UB:.*]] = arith.ceildivsi %[[END]], %c64 : i32
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[R:.*]] = scf.for %[[K:.*]] = %c0 to %[[UB]] step %[[STEP]] iter_args(%[[ACC:.*]] = %z)
// CHECK-NEXT:   %[[AT:.*]] = nv_tileaa.muli %[[K]], %c64 : i32
// CHECK-NEXT:   nv_tileaa.tiled_load %va[%[[AT]], %[[K]]]
// CHECK-NOT:    arith.cmpi
// CHECK:        scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nv_tileaa.fp_to_fp %[[R]]

// -----

// Left as written: the condition an `and` of two comparisons (a grouped GEMM's tile range), and a
// loop whose counter's value after the loop is read (the last k: not the for's).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @kept(%a: !nv_tileaa.ptr<f16>, %m: i32, %k: i32, %nk: i32, %lo: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:4 = scf.while (%acc = %z, %kk = %c0) : (tensor<128x128xf32>, i32) -> (tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
      %g1 = arith.cmpi slt, %kk, %nk : i32
      %g2 = arith.cmpi sge, %kk, %lo : i32
      %go = arith.andi %g1, %g2 : i1
      %f, %t0, %t1, %x0, %x1 = scf.if %go -> (i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
        %x, %t2 = nv_tileaa.tiled_load %va[%kk, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %xt = "nv_tileaa.permute"(%x) <{permutation = array<i32: 1, 0>}> : (tensor<128x64xf16>) -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %xt, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        %next = nv_tileaa.addi %kk, %c1 : i32
        %true = arith.constant true
        scf.yield %true, %d, %next, %d, %next : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      } else {
        %false = arith.constant false
        scf.yield %false, %acc, %kk, %acc, %kk : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      }
      scf.condition(%f) %t0, %t1, %x0, %x1 : tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
    } do {
    ^bb0(%a0: tensor<128x128xf32>, %a1: i32, %a2: tensor<128x128xf32>, %a3: i32):
      scf.yield %a0, %a1 : tensor<128x128xf32>, i32
    }
    %s:4 = scf.while (%acc = %z, %kk = %c0) : (tensor<128x128xf32>, i32) -> (tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
      %go = arith.cmpi slt, %kk, %nk : i32
      %f, %t0, %t1, %x0, %x1 = scf.if %go -> (i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
        %x, %t2 = nv_tileaa.tiled_load %va[%kk, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %xt = "nv_tileaa.permute"(%x) <{permutation = array<i32: 1, 0>}> : (tensor<128x64xf16>) -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %xt, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        %next = nv_tileaa.addi %kk, %c1 : i32
        %true = arith.constant true
        scf.yield %true, %d, %next, %d, %next : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      } else {
        %false = arith.constant false
        scf.yield %false, %acc, %kk, %acc, %kk : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      }
      scf.condition(%f) %t0, %t1, %x0, %x1 : tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
    } do {
    ^bb0(%a0: tensor<128x128xf32>, %a1: i32, %a2: tensor<128x128xf32>, %a3: i32):
      scf.yield %a0, %a1 : tensor<128x128xf32>, i32
    }
    %last = nv_tileaa.addi %s#3, %c1 : i32
    nv_tileaa.return
  }
}
// CHECK:     nv_tileaa.func @kept
// CHECK:     scf.while
// CHECK:     arith.andi
// CHECK:     scf.while
// CHECK:     %last = nv_tileaa.addi %s_3, %c1
// CHECK-NOT: scf.for

// -----

// A counter of key offsets (`start += 64`) read through cuTile's `assume div_by<64>`, its own
// result after the loop unused (the else-branch yields the assume's value for it).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @offsets(%a: !nv_tileaa.ptr<f16>, %m: i32, %k: i32, %sk: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %r:4 = scf.while (%acc = %z, %st = %c0) : (tensor<128x128xf32>, i32) -> (tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
      %sa = nv_tileaa.assume %st {predicate = #nv_tileaa.div_by<64>} : i32
      %go = arith.cmpi slt, %sa, %sk : i32
      %f, %t0, %t1, %x0, %x1 = scf.if %go -> (i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
        %kt = arith.floordivsi %sa, %c64 : i32
        %x, %t2 = nv_tileaa.tiled_load %va[%kt, %kt] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %xt = "nv_tileaa.permute"(%x) <{permutation = array<i32: 1, 0>}> : (tensor<128x64xf16>) -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %xt, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        %next = nv_tileaa.addi %sa, %c64 : i32
        %true = arith.constant true
        scf.yield %true, %d, %next, %d, %next : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      } else {
        %false = arith.constant false
        scf.yield %false, %acc, %st, %acc, %sa : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      }
      scf.condition(%f) %t0, %t1, %x0, %x1 : tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
    } do {
    ^bb0(%a0: tensor<128x128xf32>, %a1: i32, %a2: tensor<128x128xf32>, %a3: i32):
      scf.yield %a0, %a1 : tensor<128x128xf32>, i32
    }
    %o = nv_tileaa.fp_to_fp %r#2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @offsets
// CHECK-NOT:  scf.while
// CHECK:      %c64 = arith.constant 64 : i32
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 64 : i32
// CHECK-NEXT: %[[R:.*]] = scf.for %[[S:.*]] = %c0 to %sk step %[[STEP]] iter_args(%{{.*}} = %z)
// CHECK-NEXT:   %[[SA:.*]] = nv_tileaa.assume %[[S]] {predicate = #nv_tileaa.div_by<64>} : i32
// CHECK-NEXT:   arith.floordivsi %[[SA]], %c64
// CHECK:      nv_tileaa.fp_to_fp %[[R]]

// -----

// `while True: if k >= nk: break; body`: the break in the then-region on `sge`, the body in the
// else-region: the loop `k < nk`.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @break_first(%a: !nv_tileaa.ptr<f16>, %m: i32, %k: i32, %nk: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:4 = scf.while (%acc = %z, %kk = %c0) : (tensor<128x128xf32>, i32) -> (tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
      %stop = arith.cmpi sge, %kk, %nk : i32
      %f, %t0, %t1, %x0, %x1 = scf.if %stop -> (i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
        %false = arith.constant false
        scf.yield %false, %acc, %kk, %acc, %kk : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      } else {
        %x, %t2 = nv_tileaa.tiled_load %va[%kk, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %xt = "nv_tileaa.permute"(%x) <{permutation = array<i32: 1, 0>}> : (tensor<128x64xf16>) -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %xt, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        %next = nv_tileaa.addi %kk, %c1 : i32
        %true = arith.constant true
        scf.yield %true, %d, %next, %d, %next : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      }
      scf.condition(%f) %t0, %t1, %x0, %x1 : tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
    } do {
    ^bb0(%a0: tensor<128x128xf32>, %a1: i32, %a2: tensor<128x128xf32>, %a3: i32):
      scf.yield %a0, %a1 : tensor<128x128xf32>, i32
    }
    %o = nv_tileaa.fp_to_fp %r#2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @break_first
// CHECK-NOT:  scf.while
// CHECK:      %c1 = arith.constant 1 : i32
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[R:.*]] = scf.for %[[K:.*]] = %c0 to %nk step %[[STEP]] iter_args(%[[ACC:.*]] = %z)
// CHECK-NEXT:   nv_tileaa.tiled_load %va[%[[K]], %[[K]]]
// CHECK-NOT:    arith.cmpi
// CHECK:        scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nv_tileaa.fp_to_fp %[[R]]

// -----

// `while k * 64 <= last`: the trip bound floor(last / 64) + 1.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @inclusive(%a: !nv_tileaa.ptr<f16>, %m: i32, %k: i32, %last: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r:4 = scf.while (%acc = %z, %kk = %c0) : (tensor<128x128xf32>, i32) -> (tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
      %at = nv_tileaa.muli %c64, %kk : i32
      %go = arith.cmpi sle, %at, %last : i32
      %f, %t0, %t1, %x0, %x1 = scf.if %go -> (i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
        %x, %t2 = nv_tileaa.tiled_load %va[%kk, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %xt = "nv_tileaa.permute"(%x) <{permutation = array<i32: 1, 0>}> : (tensor<128x64xf16>) -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %xt, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        %next = nv_tileaa.addi %c1, %kk : i32
        %true = arith.constant true
        scf.yield %true, %d, %next, %d, %next : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      } else {
        %false = arith.constant false
        scf.yield %false, %acc, %kk, %acc, %kk : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      }
      scf.condition(%f) %t0, %t1, %x0, %x1 : tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
    } do {
    ^bb0(%a0: tensor<128x128xf32>, %a1: i32, %a2: tensor<128x128xf32>, %a3: i32):
      scf.yield %a0, %a1 : tensor<128x128xf32>, i32
    }
    %o = nv_tileaa.fp_to_fp %r#2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @inclusive
// CHECK-NOT:  scf.while
// CHECK:      %c64 = arith.constant 64 : i32
// CHECK-NEXT: %[[Q:.*]] = arith.floordivsi %last, %c64 : i32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[UB:.*]] = arith.addi %[[Q]], %[[ONE]] : i32
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[R:.*]] = scf.for %{{.*}} = %c0 to %[[UB]] step %[[STEP]]
// CHECK-NOT:    arith.cmpi
// CHECK:      nv_tileaa.fp_to_fp %[[R]]

// -----

// `while k < nk and k * 64 < lim` as cuTile exports the `and` (a short-circuit scf.if whose taken side
// computes the second test): the second test is a pure comparison, so it is computed beside the first
// and joined by andi; the loop runs to the least bound, min(nk, ceil(lim / 64)).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @conjunction(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32, %nk: i32, %lim: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r:4 = scf.while (%acc = %z, %kk = %c0) : (tensor<128x128xf32>, i32) -> (tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
      %go1 = arith.cmpi slt, %kk, %nk : i32
      %go = scf.if %go1 -> (i1) {
        %off = nv_tileaa.muli %kk, %c64 : i32
        %go2 = arith.cmpi slt, %off, %lim : i32
        scf.yield %go2 : i1
      } else {
        scf.yield %go1 : i1
      }
      %f, %t0, %t1, %x0, %x1 = scf.if %go -> (i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
        %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %i] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        %next = nv_tileaa.addi %kk, %c1 : i32
        %true = arith.constant true
        scf.yield %true, %d, %next, %acc, %kk : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      } else {
        %false = arith.constant false
        scf.yield %false, %acc, %kk, %acc, %kk : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      }
      scf.condition(%f) %t0, %t1, %x0, %x1 : tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
    } do {
    ^bb0(%a0: tensor<128x128xf32>, %a1: i32, %a2: tensor<128x128xf32>, %a3: i32):
      scf.yield %a0, %a1 : tensor<128x128xf32>, i32
    }
    %o = nv_tileaa.fp_to_fp %r#2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @conjunction
// CHECK-NOT:  scf.while
// CHECK:      %[[B2:[^ ]+]] = arith.ceildivsi %lim, %c64 : i32
// CHECK-NEXT: %[[UB:[^ ]+]] = arith.minsi %nk, %[[B2]] : i32
// CHECK-NEXT: %[[STEP:[^ ]+]] = arith.constant 1 : i32
// CHECK-NEXT: %[[R:[^ ]+]] = scf.for %[[K:[^ ]+]] = %c0 to %[[UB]] step %[[STEP]] iter_args(%[[ACC:[^ ]+]] = %z) -> (tensor<128x128xf32>) : i32 {
// CHECK-NEXT:   nv_tileaa.tiled_load %va[%i, %[[K]]]
// CHECK-NOT:    scf.if
// CHECK:        scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nv_tileaa.fp_to_fp %[[R]]

// -----

// A do-while: `while True: acc = dot(...); k += 1; if k >= nk: break` (the body in the before-region,
// then the counter's step and the break): the body runs for k0 and then while k < nk, so the loop is
// `for k = k0 to max(nk, k0 + 1)`; the loop's result is the last accumulator.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @do_while(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32, %nk: i32, %k0: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c1 = arith.constant 1 : i32
    %r:4 = scf.while (%acc = %z, %kk = %k0) : (tensor<128x128xf32>, i32) -> (tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
      %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
      %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %i] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
      %d = nv_tileaa.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      %next = nv_tileaa.addi %kk, %c1 : i32
      %stop = arith.cmpi sge, %next, %nk : i32
      %f, %t0, %t1, %x0, %x1 = scf.if %stop -> (i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32) {
        %false = arith.constant false
        scf.yield %false, %acc, %kk, %d, %next : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      } else {
        %true = arith.constant true
        %u = arith.constant dense<0.0> : tensor<128x128xf32>
        %u0 = arith.constant 0 : i32
        scf.yield %true, %d, %next, %u, %u0 : i1, tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
      }
      scf.condition(%f) %t0, %t1, %x0, %x1 : tensor<128x128xf32>, i32, tensor<128x128xf32>, i32
    } do {
    ^bb0(%a0: tensor<128x128xf32>, %a1: i32, %a2: tensor<128x128xf32>, %a3: i32):
      scf.yield %a0, %a1 : tensor<128x128xf32>, i32
    }
    %o = nv_tileaa.fp_to_fp %r#2 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @do_while
// CHECK-NOT:  scf.while
// CHECK:      %[[K1:[^ ]+]] = arith.addi %k0, %[[S:[^ ]+]] : i32
// CHECK-NEXT: %[[UB:[^ ]+]] = arith.maxsi %nk, %[[K1]] : i32
// CHECK-NEXT: %[[R:[^ ]+]] = scf.for %[[K:[^ ]+]] = %k0 to %[[UB]] step %[[S]] iter_args(%[[ACC:[^ ]+]] = %z) -> (tensor<128x128xf32>) : i32 {
// CHECK-NEXT:   nv_tileaa.tiled_load %va[%i, %[[K]]]
// CHECK-NEXT:   nv_tileaa.tiled_load %vb[%[[K]], %i]
// CHECK-NEXT:   %[[D:[^ ]+]] = nv_tileaa.dot %{{.*}}, %{{.*}}, %[[ACC]]
// CHECK-NEXT:   scf.yield %[[D]] : tensor<128x128xf32>
// CHECK-NEXT: }
// CHECK-NEXT: nv_tileaa.fp_to_fp %[[R]]
