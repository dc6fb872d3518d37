// RUN: tileorch-opt %s --split-input-file -p tileas-scatter-row-store | filecheck %s
// (Arguments as the launcher passes an array: its pointer, its extents, its strides.)
// The LSE of a chained kernel scattered at (bh, 64 qt + arange(64)) into [BH, S], bounds-checked: a
// [1, 64] tile store of the vector at tile (bh, 64 qt / 64) of the array's memref (same pointer, extents,
// strides), with the scatter's token; the address and mask math gone.
builtin.module {
  nv_tileaa.func @lse(%p: !nv_tileaa.ptr<f32>, %e0: i32, %e1: i32, %s0: i32, %s1: i32, %bh: i32, %qt: i32, %n: i32, %q: tensor<64x64xf16>, %kt: tensor<64x64xf16>, %v: tensor<64xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z0 = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z0) -> (tensor<64x64xf32>) : i32 {
      %sc = nv_tileaa.dot %q, %kt, %z0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p1 = nv_tileaa.fp_to_fp %sc {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %d = nv_tileaa.dot %p1, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %c64 = arith.constant 64 : i32
    %qtid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %s = nv_tileaa.muli %qtid, %c64 : i32
    %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
    %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
    %rng0 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %i1 = nv_tileaa.addi %sb, %rng0 : tensor<64xi32>
    %z = arith.constant dense<0> : tensor<64xi32>
    %bs = nv_tileaa.splat %bh : i32 -> tensor<1xi32>
    %bb = nv_tileaa.broadcast %bs : tensor<1xi32> -> tensor<64xi32>
    %i0 = nv_tileaa.addi %z, %bb : tensor<64xi32>
    %x0 = nv_tileaa.extsi %i0 : tensor<64xi32> -> tensor<64xi64>
    %e064 = arith.extsi %e0 : i32 to i64
    %e0s = nv_tileaa.splat %e064 : i64 -> tensor<1xi64>
    %e0b = nv_tileaa.broadcast %e0s : tensor<1xi64> -> tensor<64xi64>
    %m0 = nv_tileaa.cmpi "ult", %x0, %e0b : tensor<64xi64> -> tensor<64xi1>
    %s064 = arith.extsi %s0 : i32 to i64
    %s0s = nv_tileaa.splat %s064 : i64 -> tensor<1xi64>
    %s0b = nv_tileaa.broadcast %s0s : tensor<1xi64> -> tensor<64xi64>
    %t0 = nv_tileaa.muli %x0, %s0b : tensor<64xi64>
    %x1 = nv_tileaa.extsi %i1 : tensor<64xi32> -> tensor<64xi64>
    %e164 = arith.extsi %e1 : i32 to i64
    %e1s = nv_tileaa.splat %e164 : i64 -> tensor<1xi64>
    %e1b = nv_tileaa.broadcast %e1s : tensor<1xi64> -> tensor<64xi64>
    %m1 = nv_tileaa.cmpi "ult", %x1, %e1b : tensor<64xi64> -> tensor<64xi1>
    %m = arith.andi %m0, %m1 : tensor<64xi1>
    %one = arith.constant dense<1> : tensor<64xi64>
    %t1 = nv_tileaa.muli %x1, %one : tensor<64xi64>
    %lin = nv_tileaa.addi %t0, %t1 : tensor<64xi64>
    %ps = nv_tileaa.splat %p : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %pb = nv_tileaa.broadcast %ps : tensor<1x!nv_tileaa.ptr<f32>> -> tensor<64x!nv_tileaa.ptr<f32>>
    %ptr = nv_tileaa.offset %pb, %lin : tensor<64x!nv_tileaa.ptr<f32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<f32>>
    %w = nv_tileaa.store %v, %ptr mask %m : tensor<64xi1> token %tok : tensor<64xf32>, tensor<64x!nv_tileaa.ptr<f32>>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @lse
// CHECK:      scf.for
// CHECK:      %[[MM:.*]] = nv_tileaa.make_memref %p[%e0, %e1] [%s0]
// CHECK:      %[[VIEW:.*]] = nv_tileaa.block_tile %[[MM]] {{.*}} -> !nv_tileaa.tiled_view<array<i32: 1, 64>
// CHECK:      %[[C64:.*]] = arith.constant 64 : i32
// CHECK:      %[[T:.*]] = arith.divsi %s, %[[C64]] : i32
// CHECK:      %[[R:.*]] = nv_tileaa.reshape %v : tensor<64xf32> -> tensor<1x64xf32>
// CHECK:      nv_tileaa.tiled_store %[[R]], %[[VIEW]][%bh, %[[T]]] token %tok
// CHECK-NOT:  nv_tileaa.store
// CHECK-NOT:  nv_tileaa.offset
// CHECK:      nv_tileaa.return

// -----

// check_bounds=False (no mask): the same tile store.
builtin.module {
  nv_tileaa.func @lse_no_bounds(%p: !nv_tileaa.ptr<f32>, %e0: i32, %e1: i32, %s0: i32, %s1: i32, %bh: i32, %qt: i32, %n: i32, %q: tensor<64x64xf16>, %kt: tensor<64x64xf16>, %v: tensor<64xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z0 = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z0) -> (tensor<64x64xf32>) : i32 {
      %sc = nv_tileaa.dot %q, %kt, %z0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p1 = nv_tileaa.fp_to_fp %sc {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %d = nv_tileaa.dot %p1, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %c64 = arith.constant 64 : i32
    %qtid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %s = nv_tileaa.muli %qtid, %c64 : i32
    %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
    %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
    %rng0 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %i1 = nv_tileaa.addi %sb, %rng0 : tensor<64xi32>
    %z = arith.constant dense<0> : tensor<64xi32>
    %bs = nv_tileaa.splat %bh : i32 -> tensor<1xi32>
    %bb = nv_tileaa.broadcast %bs : tensor<1xi32> -> tensor<64xi32>
    %i0 = nv_tileaa.addi %z, %bb : tensor<64xi32>
    %x0 = nv_tileaa.extsi %i0 : tensor<64xi32> -> tensor<64xi64>
    %e064 = arith.extsi %e0 : i32 to i64
    %e0s = nv_tileaa.splat %e064 : i64 -> tensor<1xi64>
    %e0b = nv_tileaa.broadcast %e0s : tensor<1xi64> -> tensor<64xi64>
    %m0 = nv_tileaa.cmpi "ult", %x0, %e0b : tensor<64xi64> -> tensor<64xi1>
    %s064 = arith.extsi %s0 : i32 to i64
    %s0s = nv_tileaa.splat %s064 : i64 -> tensor<1xi64>
    %s0b = nv_tileaa.broadcast %s0s : tensor<1xi64> -> tensor<64xi64>
    %t0 = nv_tileaa.muli %x0, %s0b : tensor<64xi64>
    %x1 = nv_tileaa.extsi %i1 : tensor<64xi32> -> tensor<64xi64>
    %e164 = arith.extsi %e1 : i32 to i64
    %e1s = nv_tileaa.splat %e164 : i64 -> tensor<1xi64>
    %e1b = nv_tileaa.broadcast %e1s : tensor<1xi64> -> tensor<64xi64>
    %m1 = nv_tileaa.cmpi "ult", %x1, %e1b : tensor<64xi64> -> tensor<64xi1>
    %m = arith.andi %m0, %m1 : tensor<64xi1>
    %one = arith.constant dense<1> : tensor<64xi64>
    %t1 = nv_tileaa.muli %x1, %one : tensor<64xi64>
    %lin = nv_tileaa.addi %t0, %t1 : tensor<64xi64>
    %ps = nv_tileaa.splat %p : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %pb = nv_tileaa.broadcast %ps : tensor<1x!nv_tileaa.ptr<f32>> -> tensor<64x!nv_tileaa.ptr<f32>>
    %ptr = nv_tileaa.offset %pb, %lin : tensor<64x!nv_tileaa.ptr<f32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<f32>>
    %w = nv_tileaa.store %v, %ptr token %tok : tensor<64xf32>, tensor<64x!nv_tileaa.ptr<f32>>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @lse_no_bounds
// CHECK:      nv_tileaa.tiled_store
// CHECK-NOT:  nv_tileaa.store

// -----

// The run starts at 32 qt, not a multiple of its 64 elements (it straddles two [1, 64] tiles): left alone.
builtin.module {
  nv_tileaa.func @unaligned(%p: !nv_tileaa.ptr<f32>, %e0: i32, %e1: i32, %s0: i32, %s1: i32, %bh: i32, %qt: i32, %n: i32, %q: tensor<64x64xf16>, %kt: tensor<64x64xf16>, %v: tensor<64xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z0 = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z0) -> (tensor<64x64xf32>) : i32 {
      %sc = nv_tileaa.dot %q, %kt, %z0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p1 = nv_tileaa.fp_to_fp %sc {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %d = nv_tileaa.dot %p1, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %c32 = arith.constant 32 : i32
    %s = nv_tileaa.muli %qt, %c32 : i32
    %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
    %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
    %rng0 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %i1 = nv_tileaa.addi %sb, %rng0 : tensor<64xi32>
    %z = arith.constant dense<0> : tensor<64xi32>
    %bs = nv_tileaa.splat %bh : i32 -> tensor<1xi32>
    %bb = nv_tileaa.broadcast %bs : tensor<1xi32> -> tensor<64xi32>
    %i0 = nv_tileaa.addi %z, %bb : tensor<64xi32>
    %x0 = nv_tileaa.extsi %i0 : tensor<64xi32> -> tensor<64xi64>
    %e064 = arith.extsi %e0 : i32 to i64
    %e0s = nv_tileaa.splat %e064 : i64 -> tensor<1xi64>
    %e0b = nv_tileaa.broadcast %e0s : tensor<1xi64> -> tensor<64xi64>
    %m0 = nv_tileaa.cmpi "ult", %x0, %e0b : tensor<64xi64> -> tensor<64xi1>
    %s064 = arith.extsi %s0 : i32 to i64
    %s0s = nv_tileaa.splat %s064 : i64 -> tensor<1xi64>
    %s0b = nv_tileaa.broadcast %s0s : tensor<1xi64> -> tensor<64xi64>
    %t0 = nv_tileaa.muli %x0, %s0b : tensor<64xi64>
    %x1 = nv_tileaa.extsi %i1 : tensor<64xi32> -> tensor<64xi64>
    %e164 = arith.extsi %e1 : i32 to i64
    %e1s = nv_tileaa.splat %e164 : i64 -> tensor<1xi64>
    %e1b = nv_tileaa.broadcast %e1s : tensor<1xi64> -> tensor<64xi64>
    %m1 = nv_tileaa.cmpi "ult", %x1, %e1b : tensor<64xi64> -> tensor<64xi1>
    %m = arith.andi %m0, %m1 : tensor<64xi1>
    %one = arith.constant dense<1> : tensor<64xi64>
    %t1 = nv_tileaa.muli %x1, %one : tensor<64xi64>
    %lin = nv_tileaa.addi %t0, %t1 : tensor<64xi64>
    %ps = nv_tileaa.splat %p : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %pb = nv_tileaa.broadcast %ps : tensor<1x!nv_tileaa.ptr<f32>> -> tensor<64x!nv_tileaa.ptr<f32>>
    %ptr = nv_tileaa.offset %pb, %lin : tensor<64x!nv_tileaa.ptr<f32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<f32>>
    %w = nv_tileaa.store %v, %ptr mask %m : tensor<64xi1> token %tok : tensor<64xf32>, tensor<64x!nv_tileaa.ptr<f32>>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @unaligned
// CHECK-NOT:  nv_tileaa.tiled_store
// CHECK:      nv_tileaa.store %v, %ptr mask %m

// -----

// The first index varies along the vector (bh + arange): no row of one tile; left alone.
builtin.module {
  nv_tileaa.func @row_index_varies(%p: !nv_tileaa.ptr<f32>, %e0: i32, %e1: i32, %s0: i32, %s1: i32, %bh: i32, %qt: i32, %n: i32, %q: tensor<64x64xf16>, %kt: tensor<64x64xf16>, %v: tensor<64xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z0 = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z0) -> (tensor<64x64xf32>) : i32 {
      %sc = nv_tileaa.dot %q, %kt, %z0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p1 = nv_tileaa.fp_to_fp %sc {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %d = nv_tileaa.dot %p1, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %c64 = arith.constant 64 : i32
    %s = nv_tileaa.muli %qt, %c64 : i32
    %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
    %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
    %rng0 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %i1 = nv_tileaa.addi %sb, %rng0 : tensor<64xi32>
    %z = arith.constant dense<0> : tensor<64xi32>
    %bs = nv_tileaa.splat %bh : i32 -> tensor<1xi32>
    %bb = nv_tileaa.broadcast %bs : tensor<1xi32> -> tensor<64xi32>
    %i0 = nv_tileaa.addi %bb, %rng0 : tensor<64xi32>
    %x0 = nv_tileaa.extsi %i0 : tensor<64xi32> -> tensor<64xi64>
    %e064 = arith.extsi %e0 : i32 to i64
    %e0s = nv_tileaa.splat %e064 : i64 -> tensor<1xi64>
    %e0b = nv_tileaa.broadcast %e0s : tensor<1xi64> -> tensor<64xi64>
    %m0 = nv_tileaa.cmpi "ult", %x0, %e0b : tensor<64xi64> -> tensor<64xi1>
    %s064 = arith.extsi %s0 : i32 to i64
    %s0s = nv_tileaa.splat %s064 : i64 -> tensor<1xi64>
    %s0b = nv_tileaa.broadcast %s0s : tensor<1xi64> -> tensor<64xi64>
    %t0 = nv_tileaa.muli %x0, %s0b : tensor<64xi64>
    %x1 = nv_tileaa.extsi %i1 : tensor<64xi32> -> tensor<64xi64>
    %e164 = arith.extsi %e1 : i32 to i64
    %e1s = nv_tileaa.splat %e164 : i64 -> tensor<1xi64>
    %e1b = nv_tileaa.broadcast %e1s : tensor<1xi64> -> tensor<64xi64>
    %m1 = nv_tileaa.cmpi "ult", %x1, %e1b : tensor<64xi64> -> tensor<64xi1>
    %m = arith.andi %m0, %m1 : tensor<64xi1>
    %one = arith.constant dense<1> : tensor<64xi64>
    %t1 = nv_tileaa.muli %x1, %one : tensor<64xi64>
    %lin = nv_tileaa.addi %t0, %t1 : tensor<64xi64>
    %ps = nv_tileaa.splat %p : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %pb = nv_tileaa.broadcast %ps : tensor<1x!nv_tileaa.ptr<f32>> -> tensor<64x!nv_tileaa.ptr<f32>>
    %ptr = nv_tileaa.offset %pb, %lin : tensor<64x!nv_tileaa.ptr<f32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<f32>>
    %w = nv_tileaa.store %v, %ptr mask %m : tensor<64xi1> token %tok : tensor<64xf32>, tensor<64x!nv_tileaa.ptr<f32>>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @row_index_varies
// CHECK-NOT:  nv_tileaa.tiled_store
// CHECK:      nv_tileaa.store %v, %ptr mask %m

// -----

// One dot in the loop (a GEMM, no chain): left alone.
builtin.module {
  nv_tileaa.func @gemm_row(%p: !nv_tileaa.ptr<f32>, %e0: i32, %e1: i32, %s0: i32, %s1: i32, %bh: i32, %qt: i32, %n: i32, %q: tensor<64x64xf16>, %kt: tensor<64x64xf16>, %v: tensor<64xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z0 = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z0) -> (tensor<64x64xf32>) : i32 {
      %d = nv_tileaa.dot %q, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %c64 = arith.constant 64 : i32
    %s = nv_tileaa.muli %qt, %c64 : i32
    %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
    %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
    %rng0 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %i1 = nv_tileaa.addi %sb, %rng0 : tensor<64xi32>
    %z = arith.constant dense<0> : tensor<64xi32>
    %bs = nv_tileaa.splat %bh : i32 -> tensor<1xi32>
    %bb = nv_tileaa.broadcast %bs : tensor<1xi32> -> tensor<64xi32>
    %i0 = nv_tileaa.addi %z, %bb : tensor<64xi32>
    %x0 = nv_tileaa.extsi %i0 : tensor<64xi32> -> tensor<64xi64>
    %e064 = arith.extsi %e0 : i32 to i64
    %e0s = nv_tileaa.splat %e064 : i64 -> tensor<1xi64>
    %e0b = nv_tileaa.broadcast %e0s : tensor<1xi64> -> tensor<64xi64>
    %m0 = nv_tileaa.cmpi "ult", %x0, %e0b : tensor<64xi64> -> tensor<64xi1>
    %s064 = arith.extsi %s0 : i32 to i64
    %s0s = nv_tileaa.splat %s064 : i64 -> tensor<1xi64>
    %s0b = nv_tileaa.broadcast %s0s : tensor<1xi64> -> tensor<64xi64>
    %t0 = nv_tileaa.muli %x0, %s0b : tensor<64xi64>
    %x1 = nv_tileaa.extsi %i1 : tensor<64xi32> -> tensor<64xi64>
    %e164 = arith.extsi %e1 : i32 to i64
    %e1s = nv_tileaa.splat %e164 : i64 -> tensor<1xi64>
    %e1b = nv_tileaa.broadcast %e1s : tensor<1xi64> -> tensor<64xi64>
    %m1 = nv_tileaa.cmpi "ult", %x1, %e1b : tensor<64xi64> -> tensor<64xi1>
    %m = arith.andi %m0, %m1 : tensor<64xi1>
    %one = arith.constant dense<1> : tensor<64xi64>
    %t1 = nv_tileaa.muli %x1, %one : tensor<64xi64>
    %lin = nv_tileaa.addi %t0, %t1 : tensor<64xi64>
    %ps = nv_tileaa.splat %p : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %pb = nv_tileaa.broadcast %ps : tensor<1x!nv_tileaa.ptr<f32>> -> tensor<64x!nv_tileaa.ptr<f32>>
    %ptr = nv_tileaa.offset %pb, %lin : tensor<64x!nv_tileaa.ptr<f32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<f32>>
    %w = nv_tileaa.store %v, %ptr mask %m : tensor<64xi1> token %tok : tensor<64xf32>, tensor<64x!nv_tileaa.ptr<f32>>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @gemm_row
// CHECK-NOT:  nv_tileaa.tiled_store
// CHECK:      nv_tileaa.store %v, %ptr mask %m

// -----

// The same scatter with its run starting at 64 x an argument (%qt may be negative: the scatter's unsigned bounds
// compare writes nothing there, a tile store at a negative tile would not be its equal): left alone.
builtin.module {
  nv_tileaa.func @start_may_be_negative(%p: !nv_tileaa.ptr<f32>, %e0: i32, %e1: i32, %s0: i32, %s1: i32, %bh: i32, %qt: i32, %n: i32, %q: tensor<64x64xf16>, %kt: tensor<64x64xf16>, %v: tensor<64xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z0 = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z0) -> (tensor<64x64xf32>) : i32 {
      %sc = nv_tileaa.dot %q, %kt, %z0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p1 = nv_tileaa.fp_to_fp %sc {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %d = nv_tileaa.dot %p1, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %c64 = arith.constant 64 : i32
    %s = nv_tileaa.muli %qt, %c64 : i32
    %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
    %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
    %rng0 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %i1 = nv_tileaa.addi %sb, %rng0 : tensor<64xi32>
    %z = arith.constant dense<0> : tensor<64xi32>
    %bs = nv_tileaa.splat %bh : i32 -> tensor<1xi32>
    %bb = nv_tileaa.broadcast %bs : tensor<1xi32> -> tensor<64xi32>
    %i0 = nv_tileaa.addi %z, %bb : tensor<64xi32>
    %x0 = nv_tileaa.extsi %i0 : tensor<64xi32> -> tensor<64xi64>
    %e064 = arith.extsi %e0 : i32 to i64
    %e0s = nv_tileaa.splat %e064 : i64 -> tensor<1xi64>
    %e0b = nv_tileaa.broadcast %e0s : tensor<1xi64> -> tensor<64xi64>
    %m0 = nv_tileaa.cmpi "ult", %x0, %e0b : tensor<64xi64> -> tensor<64xi1>
    %s064 = arith.extsi %s0 : i32 to i64
    %s0s = nv_tileaa.splat %s064 : i64 -> tensor<1xi64>
    %s0b = nv_tileaa.broadcast %s0s : tensor<1xi64> -> tensor<64xi64>
    %t0 = nv_tileaa.muli %x0, %s0b : tensor<64xi64>
    %x1 = nv_tileaa.extsi %i1 : tensor<64xi32> -> tensor<64xi64>
    %e164 = arith.extsi %e1 : i32 to i64
    %e1s = nv_tileaa.splat %e164 : i64 -> tensor<1xi64>
    %e1b = nv_tileaa.broadcast %e1s : tensor<1xi64> -> tensor<64xi64>
    %m1 = nv_tileaa.cmpi "ult", %x1, %e1b : tensor<64xi64> -> tensor<64xi1>
    %m = arith.andi %m0, %m1 : tensor<64xi1>
    %one = arith.constant dense<1> : tensor<64xi64>
    %t1 = nv_tileaa.muli %x1, %one : tensor<64xi64>
    %lin = nv_tileaa.addi %t0, %t1 : tensor<64xi64>
    %ps = nv_tileaa.splat %p : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %pb = nv_tileaa.broadcast %ps : tensor<1x!nv_tileaa.ptr<f32>> -> tensor<64x!nv_tileaa.ptr<f32>>
    %ptr = nv_tileaa.offset %pb, %lin : tensor<64x!nv_tileaa.ptr<f32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<f32>>
    %w = nv_tileaa.store %v, %ptr mask %m : tensor<64xi1> token %tok : tensor<64xf32>, tensor<64x!nv_tileaa.ptr<f32>>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @start_may_be_negative
// CHECK-NOT:  nv_tileaa.tiled_store
// CHECK:      nv_tileaa.store

// -----

// The same scatter masked by a second compare of its row index (against %lim, beside its extent): a mask the tile store
// would drop (its bounds are the array's extents only): left alone.
builtin.module {
  nv_tileaa.func @second_bound_on_the_row_index(%p: !nv_tileaa.ptr<f32>, %e0: i32, %e1: i32, %s0: i32, %s1: i32, %bh: i32, %qt: i32, %n: i32, %q: tensor<64x64xf16>, %kt: tensor<64x64xf16>, %v: tensor<64xf32>, %lim: i64) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z0 = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z0) -> (tensor<64x64xf32>) : i32 {
      %sc = nv_tileaa.dot %q, %kt, %z0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p1 = nv_tileaa.fp_to_fp %sc {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %d = nv_tileaa.dot %p1, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %c64 = arith.constant 64 : i32
    %qtid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %s = nv_tileaa.muli %qtid, %c64 : i32
    %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
    %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
    %rng0 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %i1 = nv_tileaa.addi %sb, %rng0 : tensor<64xi32>
    %z = arith.constant dense<0> : tensor<64xi32>
    %bs = nv_tileaa.splat %bh : i32 -> tensor<1xi32>
    %bb = nv_tileaa.broadcast %bs : tensor<1xi32> -> tensor<64xi32>
    %i0 = nv_tileaa.addi %z, %bb : tensor<64xi32>
    %x0 = nv_tileaa.extsi %i0 : tensor<64xi32> -> tensor<64xi64>
    %e064 = arith.extsi %e0 : i32 to i64
    %e0s = nv_tileaa.splat %e064 : i64 -> tensor<1xi64>
    %e0b = nv_tileaa.broadcast %e0s : tensor<1xi64> -> tensor<64xi64>
    %m0 = nv_tileaa.cmpi "ult", %x0, %e0b : tensor<64xi64> -> tensor<64xi1>
    %s064 = arith.extsi %s0 : i32 to i64
    %s0s = nv_tileaa.splat %s064 : i64 -> tensor<1xi64>
    %s0b = nv_tileaa.broadcast %s0s : tensor<1xi64> -> tensor<64xi64>
    %t0 = nv_tileaa.muli %x0, %s0b : tensor<64xi64>
    %x1 = nv_tileaa.extsi %i1 : tensor<64xi32> -> tensor<64xi64>
    %e164 = arith.extsi %e1 : i32 to i64
    %e1s = nv_tileaa.splat %e164 : i64 -> tensor<1xi64>
    %e1b = nv_tileaa.broadcast %e1s : tensor<1xi64> -> tensor<64xi64>
    %m1 = nv_tileaa.cmpi "ult", %x1, %e1b : tensor<64xi64> -> tensor<64xi1>
    %ls = nv_tileaa.splat %lim : i64 -> tensor<1xi64>
    %lb = nv_tileaa.broadcast %ls : tensor<1xi64> -> tensor<64xi64>
    %m2 = nv_tileaa.cmpi "ult", %x1, %lb : tensor<64xi64> -> tensor<64xi1>
    %m01 = arith.andi %m0, %m2 : tensor<64xi1>
    %m = arith.andi %m01, %m1 : tensor<64xi1>
    %one = arith.constant dense<1> : tensor<64xi64>
    %t1 = nv_tileaa.muli %x1, %one : tensor<64xi64>
    %lin = nv_tileaa.addi %t0, %t1 : tensor<64xi64>
    %ps = nv_tileaa.splat %p : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %pb = nv_tileaa.broadcast %ps : tensor<1x!nv_tileaa.ptr<f32>> -> tensor<64x!nv_tileaa.ptr<f32>>
    %ptr = nv_tileaa.offset %pb, %lin : tensor<64x!nv_tileaa.ptr<f32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<f32>>
    %w = nv_tileaa.store %v, %ptr mask %m : tensor<64xi1> token %tok : tensor<64xf32>, tensor<64x!nv_tileaa.ptr<f32>>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @second_bound_on_the_row_index
// CHECK-NOT:  nv_tileaa.tiled_store
// CHECK:      nv_tileaa.store
