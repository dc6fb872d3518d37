// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p tileas-plan-cta | filecheck %s
// PlanCTA's rule: a CTA's share of a tile an MMA atom computes on is whole atoms.

// A 64-row GEMM tile split over 16 CTAs leaves each CTA 4 rows; wgmma's M is 64.
#sm = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
#acc = #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @sixteen(%va: !va, %vb: !vb, %nk: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<16, 4>} {
    %z = arith.constant dense<0.0> : tensor<64x128xf32, #acc>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = arith.constant true
    %r = scf.for %k = %c0 to %nk step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32, #acc>) : i32 {
      %a = nv_tileas.tiled_load %va[%k, %k] {atom = #nv_tileas.sm_tma_load<[64, 64]>} : !va [i32, i32] -> tensor<64x64xf16, #sm>
      %b = nv_tileas.tiled_load %vb[%k, %k] {atom = #nv_tileas.sm_tma_load<[64, 64]>} : !vb [i32, i32] -> tensor<64x128xf16, #sm>
      %d = nv_tileas.dot %a, %b, %acc, %t {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<64x64xf16, #sm>, tensor<64x128xf16, #sm>, tensor<64x128xf32, #acc> -> tensor<64x128xf32, #acc>
      scf.yield %d : tensor<64x128xf32, #acc>
    }
    nv_tileaa.return
  }
}
// CHECK: plan_cta_share_errors.mlir:19:7: error: a CTA's share of the tile must be at least the MMA atom: 16 CTAs (split [16, 1]) leave each CTA 4x128 of the dot's 64x128 accumulator tile, not whole 64x128 tiles of the #nv_tileas.mma.sm90<[64, 128, 16]> atom

// -----

// mma.sync (M = 16): a 64-row register tile over 8 CTAs, carried through the dot into the
// accumulator, leaves 8 rows per CTA.
#r = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>
#ma = #nv_tileas.layout<reg, atom = mma_a, instr = [16, 8, 16], warps = [4, 1]>
#mb = #nv_tileas.layout<reg, atom = mma_b, instr = [16, 8, 16], warps = [4, 1]>
#acc = #nv_tileas.layout<reg, atom = mma_acc, instr = [16, 8, 16], warps = [4, 1]>
#rc = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1], cta = [8, 1]>
builtin.module {
  nv_tileaa.func @eight(%x: tensor<64x32xf16, #rc>, %b: tensor<32x64xf16, #mb>, %c: tensor<64x64xf32, #acc>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<8, 4>} {
    %f = nv_tileas.convert_layout %x : tensor<64x32xf16, #rc> -> tensor<64x32xf16, #r>
    %e = nv_tileaa.exp %f : tensor<64x32xf16, #r>
    %a = nv_tileas.convert_layout %e : tensor<64x32xf16, #r> -> tensor<64x32xf16, #ma>
    %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas.mma.sm80<[16, 8, 16]>} : tensor<64x32xf16, #ma>, tensor<32x64xf16, #mb>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
    nv_tileaa.return
  }
}
// CHECK: plan_cta_share_errors.mlir:41:5: error: a CTA's share of the tile must be at least the MMA atom: 8 CTAs (split [8, 1]) leave each CTA 8x64 of the dot's 64x64 accumulator tile, not whole 16x8 tiles of the #nv_tileas.mma.sm80<[16, 8, 16]> atom

// -----

// At the limit: a 128-row tile over 2 CTAs leaves each CTA exactly one 64-row atom: planned.
#sm = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
#acc = #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @two(%va: !va, %vb: !vb, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<2, 4>} {
    %z = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %t = arith.constant true
    %a = nv_tileas.tiled_load %va[%k, %k] {atom = #nv_tileas.sm_tma_load<[64, 128]>} : !va [i32, i32] -> tensor<128x64xf16, #sm>
    %b = nv_tileas.tiled_load %vb[%k, %k] {atom = #nv_tileas.sm_tma_load<[64, 64]>} : !vb [i32, i32] -> tensor<64x128xf16, #sm>
    %d = nv_tileas.dot %a, %b, %z, %t {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<128x64xf16, #sm>, tensor<64x128xf16, #sm>, tensor<128x128xf32, #acc> -> tensor<128x128xf32, #acc>
    nv_tileaa.return
  }
}
// CHECK-NOT: error
// CHECK-LABEL: nv_tileaa.func @two
// CHECK: nv_tileas.dot {{.*}} -> tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1], cta = [2, 1]>>
