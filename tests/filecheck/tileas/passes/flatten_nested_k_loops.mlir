// RUN: tileorch-opt %s --split-input-file -p tileas-flatten-nested-k-loops | filecheck %s

// Blocks of 2 K tiles (for kb in range(kt2): for ki in range(2): k = kb * 2 + ki): one loop over
// kt2 * 2 steps whose K index is the flat iv itself.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @blocks(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32, %kt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %r = scf.for %kb = %c0 to %kt2 step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
      %base = nv_tileaa.muli %kb, %c2 : i32
      %s = scf.for %ki = %c0 to %c2 step %c1 iter_args(%acc2 = %acc) -> (tensor<128x128xf32>) : i32 {
        %kk = nv_tileaa.addi %base, %ki : i32
        %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %y, %acc2 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      scf.yield %s : tensor<128x128xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @blocks
// CHECK:      arith.maxsi
// CHECK-NEXT: %[[KT:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[N:.*]] = arith.muli %{{.*}}, %[[KT]] : i32
// CHECK:      scf.for %[[T:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NOT:  scf.for
// CHECK-NOT:  muli
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %[[T]]]
// CHECK:      nv_tileaa.tiled_load %{{.*}}[%[[T]], %{{.*}}]
// CHECK:      nv_tileaa.dot %{{.*}}, %{{.*}}, %[[ACC]]
// CHECK-NOT:  scf.for

// -----

// An inner loop over a runtime count from 1 (not the flat form): the ivs recomputed by a division
// and a remainder of the flat iv.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @general(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32, %no: i32, %ni: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %o = %c0 to %no step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
      %s = scf.for %q = %c1 to %ni step %c1 iter_args(%acc2 = %acc) -> (tensor<128x128xf32>) : i32 {
        %kk = nv_tileaa.addi %o, %q : i32
        %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %y, %acc2 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      scf.yield %s : tensor<128x128xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @general
// CHECK:      %[[SPAN:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// CHECK:      scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NEXT: %[[Q:.*]] = arith.divsi %[[T]], %{{.*}} : i32
// CHECK-NEXT: %[[R:.*]] = arith.remsi %[[T]], %{{.*}} : i32
// CHECK-NOT:  scf.for
// CHECK:      nv_tileaa.dot
// CHECK-NOT:  scf.for

// -----

// The outer loop stores between the K loops (a persistent tile loop): left alone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @persistent(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32, %no: i32, %kt: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %t = %c0 to %no step %c1 : i32 {
      %s = scf.for %q = %c0 to %kt step %c1 iter_args(%acc2 = %z) -> (tensor<128x128xf32>) : i32 {
        %x, %t2 = nv_tileaa.tiled_load %va[%t, %q] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %y, %t3 = nv_tileaa.tiled_load %vb[%q, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %y, %acc2 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      scf.yield
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @persistent
// CHECK:      scf.for
// CHECK:      scf.for
// CHECK-NOT:  arith.divsi

// -----

// A paged walk: the outer loop reads the page number (a scalar load of the block table, its token unread)
// between the loops; nothing in the loops writes memory: flattened, the read repeated inside the flat loop at
// the page of step t (t / 2).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @paged(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %tab: !nv_tileaa.ptr<i32>, %m: i32, %n: i32, %k: i32, %kt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %r = scf.for %kb = %c0 to %kt2 step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
      %pp = nv_tileaa.offset %tab, %kb : !nv_tileaa.ptr<i32>, i32 -> !nv_tileaa.ptr<i32>
      %page, %tp = nv_tileaa.load %pp token %tok : !nv_tileaa.ptr<i32> -> i32
      %base = nv_tileaa.muli %page, %c2 : i32
      %s = scf.for %ki = %c0 to %c2 step %c1 iter_args(%acc2 = %acc) -> (tensor<128x128xf32>) : i32 {
        %kk = nv_tileaa.addi %base, %ki : i32
        %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %y, %acc2 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      scf.yield %s : tensor<128x128xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @paged
// CHECK:      scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NOT:  scf.for
// CHECK:      arith.divsi %[[T]]
// CHECK:      %[[PP:.*]] = nv_tileaa.offset
// CHECK:      nv_tileaa.load %[[PP]]
// CHECK:      nv_tileaa.dot
// CHECK-NOT:  scf.for

// -----

// The same walk with a store in the inner loop: a repeated read could see it: left alone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @paged_store(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %tab: !nv_tileaa.ptr<i32>, %m: i32, %n: i32, %k: i32, %kt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %r = scf.for %kb = %c0 to %kt2 step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
      %pp = nv_tileaa.offset %tab, %kb : !nv_tileaa.ptr<i32>, i32 -> !nv_tileaa.ptr<i32>
      %page, %tp = nv_tileaa.load %pp token %tok : !nv_tileaa.ptr<i32> -> i32
      %base = nv_tileaa.muli %page, %c2 : i32
      %s = scf.for %ki = %c0 to %c2 step %c1 iter_args(%acc2 = %acc) -> (tensor<128x128xf32>) : i32 {
        %kk = nv_tileaa.addi %base, %ki : i32
        %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %y, %acc2 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        %st = nv_tileaa.store %kk, %pp token %tok : i32, !nv_tileaa.ptr<i32>
        scf.yield %d : tensor<128x128xf32>
      }
      scf.yield %s : tensor<128x128xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @paged_store
// CHECK:      scf.for
// CHECK:      nv_tileaa.load
// CHECK:      scf.for
// CHECK-NOT:  arith.divsi

// -----

// A counter carried by both loops read before the inner loop (the page index): it sees the block's start value,
// a flat step would see the step's: left alone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @carry(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %tab: !nv_tileaa.ptr<i32>, %m: i32, %n: i32, %k: i32, %kt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %r, %cnt = scf.for %kb = %c0 to %kt2 step %c1 iter_args(%acc = %z, %p = %c0) -> (tensor<128x128xf32>, i32) : i32 {
      %pp = nv_tileaa.offset %tab, %p : !nv_tileaa.ptr<i32>, i32 -> !nv_tileaa.ptr<i32>
      %page, %tp = nv_tileaa.load %pp token %tok : !nv_tileaa.ptr<i32> -> i32
      %base = nv_tileaa.muli %page, %c2 : i32
      %s, %q = scf.for %ki = %c0 to %c2 step %c1 iter_args(%acc2 = %acc, %p2 = %p) -> (tensor<128x128xf32>, i32) : i32 {
        %kk = nv_tileaa.addi %base, %ki : i32
        %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %y, %acc2 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        %p3 = nv_tileaa.addi %p2, %c1 : i32
        scf.yield %d, %p3 : tensor<128x128xf32>, i32
      }
      scf.yield %s, %q : tensor<128x128xf32>, i32
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @carry
// CHECK:      scf.for
// CHECK:      nv_tileaa.load
// CHECK:      scf.for
// CHECK-NOT:  arith.divsi

// -----

// The paged walk with an acquire read of the page number: a value ordered against another CTA may change
// between two steps of a block, so the read is not repeated: left alone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @paged_acquire(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %tab: !nv_tileaa.ptr<i32>, %m: i32, %n: i32, %k: i32, %kt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %r = scf.for %kb = %c0 to %kt2 step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
      %pp = nv_tileaa.offset %tab, %kb : !nv_tileaa.ptr<i32>, i32 -> !nv_tileaa.ptr<i32>
      %page, %tp = nv_tileaa.load %pp token %tok {mem_semantic = #nv_tileaa.mem_semantic<acquire>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<i32> -> i32
      %base = nv_tileaa.muli %page, %c2 : i32
      %s = scf.for %ki = %c0 to %c2 step %c1 iter_args(%acc2 = %acc) -> (tensor<128x128xf32>) : i32 {
        %kk = nv_tileaa.addi %base, %ki : i32
        %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
        %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
        %d = nv_tileaa.dot %x, %y, %acc2 : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      scf.yield %s : tensor<128x128xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @paged_acquire
// CHECK:      scf.for
// CHECK:      nv_tileaa.load
// CHECK:      scf.for
// CHECK-NOT:  arith.divsi
