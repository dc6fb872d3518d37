// RUN: tileorch-opt %s --split-input-file -p tileas-guarded-k-loop | filecheck %s

// `if flag != 0: for k in range(cdiv(K, 64)): acc = mma(...)` as convert-cudatile-to-tileaa writes
// it: the trip count and the views (side-effect-free) move before the if, the loop runs to
// select(test, ub, lb) and its result replaces the if's.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @guarded(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32, %flag: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %go = arith.cmpi ne, %flag, %c0 : i32
    %r = scf.if %go -> (tensor<128x128xf32>) {
      %nk = arith.ceildivsi %k, %c64 : i32
      %lb = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %va = nv_tileaa.block_tile %ma : !m -> !va
      %vb = nv_tileaa.block_tile %mb : !m -> !vb
      %l = scf.for %kk = %lb to %nk step %one iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
        %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %i] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      scf.yield %l : tensor<128x128xf32>
    } else {
      scf.yield %z : tensor<128x128xf32>
    }
    %o = nv_tileaa.fp_to_fp %r {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @guarded
// CHECK:      %[[GO:.*]] = arith.cmpi ne, %flag, %c0 : i32
// CHECK-NEXT: %[[NK:.*]] = arith.ceildivsi %k, %c64 : i32
// CHECK-NEXT: %[[LB:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: nv_tileaa.block_tile %ma
// CHECK-NEXT: nv_tileaa.block_tile %mb
// CHECK-NEXT: %[[UB:.*]] = arith.select %[[GO]], %[[NK]], %[[LB]] : i32
// CHECK-NEXT: %[[R:.*]] = scf.for %{{.*}} = %[[LB]] to %[[UB]] step %[[ONE]] iter_args(%{{.*}} = %z) -> (tensor<128x128xf32>) : i32 {
// CHECK:        nv_tileaa.dot
// CHECK:      }
// CHECK-NOT:  scf.if
// CHECK-NEXT: nv_tileaa.fp_to_fp %[[R]]

// -----

// Left alone: the then-branch loads before the loop (a side effect the test guards), and the
// else-branch yields a value other than the loop's initial one.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @kept(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32, %flag: i1, %nk: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %w = arith.constant dense<1.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.if %flag -> (tensor<128x128xf32>) {
      %x0, %t0 = nv_tileaa.tiled_load %va[%i, %c0] token %tok : !va [i32, i32] -> tensor<128x64xf16>
      %l = scf.for %kk = %c0 to %nk step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
        %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %i] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x0, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      scf.yield %l : tensor<128x128xf32>
    } else {
      scf.yield %z : tensor<128x128xf32>
    }
    %r2 = scf.if %flag -> (tensor<128x128xf32>) {
      %l2 = scf.for %kk = %c0 to %nk step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
        %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %i] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      scf.yield %l2 : tensor<128x128xf32>
    } else {
      scf.yield %w : tensor<128x128xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @kept
// CHECK:      scf.if %flag
// CHECK-NEXT:   nv_tileaa.tiled_load %va[%i, %c0]
// CHECK-NEXT:   scf.for
// CHECK:      } else {
// CHECK-NEXT:   scf.yield %z
// CHECK:      scf.if %flag
// CHECK-NEXT:   scf.for
// CHECK:      } else {
// CHECK-NEXT:   scf.yield %w
// CHECK-NOT:  arith.select

// -----

// `for k in range(nk): if k < stop: acc = mma(...)` as cuTile exports it: a dot loop to min(nk, stop)
// and an empty loop over the rest yielding the accumulator back; the empty loop is dropped and the
// dot loop's result is what the store's conversion reads.  An empty loop with no results stays.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @split(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32, %mid: i32, %nk: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %l = scf.for %kk = %c0 to %mid step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
      %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
      %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %i] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
      %d = nv_tileaa.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    %e = scf.for %kk = %mid to %nk step %c1 iter_args(%acc = %l) -> (tensor<128x128xf32>) : i32 {
      scf.yield %acc : tensor<128x128xf32>
    }
    scf.for %kk = %mid to %nk step %c1 : i32 {
      scf.yield
    }
    %o = nv_tileaa.fp_to_fp %e {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @split
// CHECK:      %[[L:.*]] = scf.for %{{.*}} = %c0 to %mid step %c1 iter_args
// CHECK:        nv_tileaa.dot
// CHECK:      }
// CHECK-NEXT: scf.for %{{.*}} = %mid to %nk step %c1 : i32 {
// CHECK-NEXT: }
// CHECK-NEXT: nv_tileaa.fp_to_fp %[[L]]
