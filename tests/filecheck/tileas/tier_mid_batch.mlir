// RUN: sed -e 's/MID_INDEX/%%pl/' %s | tileorch-opt -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: sed -e 's/MID_INDEX/%%pl1/' %s | tileorch-opt --verify-diagnostics -p tileas-tier,convert-nv-tileas-to-cutlass 2>&1 | filecheck %s --check-prefix=REFUSED
// RUN: sed -e 's/MID_INDEX/%%pl/' -e '/^!vx/s/0, 1, 2>/0, 2, 1>/' %s | tileorch-opt --verify-diagnostics -p tileas-tier,convert-nv-tileas-to-cutlass 2>&1 | filecheck %s --check-prefix=ORDER_A
// RUN: sed -e 's/MID_INDEX/%%pl/' -e '/^!vy/s/0, 1, 2>/0, 2, 1>/' %s | tileorch-opt --verify-diagnostics -p tileas-tier,convert-nv-tileas-to-cutlass 2>&1 | filecheck %s --check-prefix=ORDER_C
// A sequence-first projection Y[s, b, :] = X[s, b, :] @ W (session 40, issue 21): X [S, B, K] read as (128, 1, 64)
// tiles at (program id 0, program id 2, k) and reshaped, W [K, N] one matrix for every batch, Y [S, B, N] stored as
// (128, 1, 256) tiles at (program id 0, program id 2, program id 1).  The tier takes A and C batched in their
// middle dimension (the config's batch_mid "ac", a kernel named _midac) with a located remark at each tile; the
// producer loads A's box at the work tile's batch coordinate (a 3-D map), B's at batch 0 (shared); C f32 through
// the direct epilogue at column block l N of rows ldc apart (c_ld: the kernel's ldc parameter).
// CHECK:      func.func @gemm_f16_f32_bn_128x256x64{{.*}}_batched_ld_midac_bs(%tmap_a{{.*}}%ldc: i32
// CHECK-SAME: tileorch.gemm_config = {{{.*}}batch_mid = "ac", batched = true, c_ld = true
// CHECK-SAME: stdin:50:7: remark: A's array holds the batch in its middle dimension ([M, L, K], a (128, 1, 64) tile at program id 2)
// CHECK-SAME: stdin:57:5: remark: C's array holds the batch in its middle dimension ([M, L, N], a (128, 1, 256) tile at program id 2): the kernel stores matrix l at column block l N of rows L N apart
// CHECK:      nvvm.cp.async.bulk.tensor.shared.cluster.global %adst, %tmap_a, %fb, box[%kc, %m0, %tl]
// CHECK:      %[[N:.*]] = arith.extui %n : i32 to i64
// CHECK-NEXT: %[[L:.*]] = arith.extui %tl_1 : i32 to i64
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[L]], %[[N]] : i64
// CHECK-NEXT: %c_b = llvm.getelementptr %c[%[[OFF]]]
// CHECK-NEXT: atom.store_fragment %acc_out, %c_b, %row0, %n0_1, %m, %n, %ldc
// The middle index computed from program id 2 (b + 1): not the batch the scheduler walks; refused at the load, located.
// REFUSED: stdin:50:7: error: convert-nv-tileas-to-cutlass: a dot operand is read as a 3-D tile [128, 1, 64] whose rows and columns are not its last two dimensions{{.*}}(a 3-D tile whose unit middle dimension is indexed by program id 2 is taken
// The same tiles through a view of order (0, 2, 1) (review H2: the view's middle dimension is the array's last, its
// rows' pitch the array's middle): refused at the tile, located (it compiled to the tier as an M-major A before).
// ORDER_A: stdin:50:7: error: convert-nv-tileas-to-cutlass: a 3-D tile with a unit middle dimension read through a view with dimension order [0, 2, 1]
// ORDER_C: stdin:57:5: error: convert-nv-tileas-to-cutlass: a 3-D tile with a unit middle dimension stored through a view with dimension order [0, 2, 1]
!x = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!y = !nv_tileaa.memref<f32, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vx = !nv_tileaa.tiled_view<array<i32: 128, 1, 64>, array<i32: 128, 1, 64>, array<i32: 0, 1, 2>, !x>
!vw = !nv_tileaa.tiled_view<array<i32: 64, 256>, array<i32: 64, 256>, array<i32: 0, 1>, !m>
!vy = !nv_tileaa.tiled_view<array<i32: 128, 1, 256>, array<i32: 128, 1, 256>, array<i32: 0, 1, 2>, !y>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @seq_first_projection(%x: !nv_tileaa.ptr<f16>, %w: !nv_tileaa.ptr<f16>, %y: !nv_tileaa.ptr<f32>, %s: i32, %nb: i32, %n: i32, %k: i32, %sx: i32, %sy: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %mx = nv_tileaa.make_memref %x[%s, %nb, %k] [%sx, %k] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !x
    %mw = nv_tileaa.make_memref %w[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %my = nv_tileaa.make_memref %y[%s, %nb, %n] [%sy, %n] : !nv_tileaa.ptr<f32> [i32, i32, i32] [i32, i32] -> !y
    %vx = nv_tileaa.block_tile %mx : !x -> !vx
    %vw = nv_tileaa.block_tile %mw : !m -> !vw
    %vy = nv_tileaa.block_tile %my : !y -> !vy
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %pl = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %kt = nv_tileaa.get_dim_size %vx {index = 2 : i32} : !vx -> i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %pl1 = arith.addi %pl, %c1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%acc0 = %zero) -> (tensor<128x256xf32>) : i32 {
      %ta3, %t0 = nv_tileaa.tiled_load %vx[%pm, MID_INDEX, %i] : !vx [i32, i32, i32] -> tensor<128x1x64xf16>
      %ta = nv_tileaa.reshape %ta3 : tensor<128x1x64xf16> -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vw[%i, %pn] : !vw [i32, i32] -> tensor<64x256xf16>
      %d = nv_tileaa.dot %ta, %tb, %acc0 : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
      scf.yield %d : tensor<128x256xf32>
    }
    %c3 = nv_tileaa.reshape %acc : tensor<128x256xf32> -> tensor<128x1x256xf32>
    %t2 = nv_tileaa.tiled_store %c3, %vy[%pm, %pl, %pn] : tensor<128x1x256xf32>, !vy [i32, i32, i32]
    nv_tileaa.return
  }
}
