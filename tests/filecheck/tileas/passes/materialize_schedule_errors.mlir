// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p 'tileas-materialize-schedule{smem-budget=60000}' | filecheck %s

#sm = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
#acc = #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @gemm(%va: !va, %vb: !vb, %nk: i32) {
    %z = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = arith.constant true
    %r = scf.for %k = %c0 to %nk step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #acc>) : i32 {
      %a = nv_tileas.tiled_load %va[%k, %k] {atom = #nv_tileas.sm_tma_load<[64, 128]>} : !va [i32, i32] -> tensor<128x64xf16, #sm>
      %b = nv_tileas.tiled_load %vb[%k, %k] {atom = #nv_tileas.sm_tma_load<[64, 64]>} : !vb [i32, i32] -> tensor<64x128xf16, #sm>
      %d = nv_tileas.dot %a, %b, %acc, %t {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<128x64xf16, #sm>, tensor<64x128xf16, #sm>, tensor<128x128xf32, #acc> -> tensor<128x128xf32, #acc>
      scf.yield %d : tensor<128x128xf32, #acc>
    }
    nv_tileaa.return
  }
}
// CHECK: materialize_schedule_errors.mlir:[[# @LINE - 9]]:5: error: failed to find a schedule for the loop: 32784 bytes per stage do not fit twice in the 60000 bytes of shared memory left of 60000

// -----

#sm = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
#acc = #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 64, 16], warps = [4, 1]>
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @gemm(%va: !va, %nk: i32) {
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = arith.constant true
    %r = scf.for %k = %c0 to %nk step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #acc>) : i32 {
      %pid = nv_tileaa.cancel_next_program_id
      %i = nv_tileaa.get_program_id %pid {axis = 0 : i32} : i32
      %a = nv_tileas.tiled_load %va[%i, %k] {atom = #nv_tileas.sm_tma_load<[64, 64]>} : !va [i32, i32] -> tensor<64x64xf16, #sm>
      %d = nv_tileas.dot %a, %a, %acc, %t {atom = #nv_tileas.mma.sm90<[64, 64, 16]>} : tensor<64x64xf16, #sm>, tensor<64x64xf16, #sm>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
      scf.yield %d : tensor<64x64xf32, #acc>
    }
    nv_tileaa.return
  }
}
// CHECK: error: unsupported operation in warp-specialized agent dispatch: a TMA load depends on 'nv_tileaa.cancel_next_program_id', which the producer agent cannot replay
