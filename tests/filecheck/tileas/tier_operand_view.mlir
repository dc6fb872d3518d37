// RUN: sed -e "s/VIEW_INDEX/%e/" %s | tileorch-opt -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: sed -e 's/VIEW_INDEX/%k1/' %s | tileorch-opt -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=CONST
// RUN: sed -e 's/VIEW_INDEX/%ecomp/' %s | tileorch-opt -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=COMP
// B one matrix of a 3-D [E, K, N] array picked by the scalar argument %e (an MoE expert's weight,
// X @ W[e]) beside a 2-D C: the GEMM tier reads it as a 2-D B whose view the launcher derives,
// recorded per operand in tileorch.gemm_config's "views" (the entry parameter of %e: 9; or the
// constant 1).  A matrix index computed in the kernel (%e + 1; refused until session 23, "B is one
// matrix of a 3-D array picked by the program"): the batched kernel evaluates B's batch index per work
// tile (-1, the TMA's zero fill, outside W) and C is its one matrix (batch 0, no guard).
// COMP:      func.func @gemm_f16_f16_bn_128x256x64{{.*}}_batched_gl(
// COMP:      %batch_c = arith.constant 0 : i32
// COMP-NEXT: %tile_guard = arith.constant true
// COMP:      %batch_b = arith.select
// COMP:      nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst0, %tmap_b, %fb, box[%bcol0, %kc, %batch_b]
// COMP:      %batch_c_1 = arith.constant 0 : i32
// COMP:      nvvm.cp.async.bulk.tensor.global.shared.cta %tmap_c, %eslot0, box[%ecol0, %row0, %batch_c_1]
// CHECK: func.func @gemm_f16_f16_bn_128x256x64{{.*}}tileorch.gemm_config = {{{.*}}args = [0 : i64, 1 : i64, 2 : i64]{{.*}}views = {b = [["arg", 9 : i64]]}
// CONST: func.func @gemm_f16_f16_bn_128x256x64{{.*}}tileorch.gemm_config = {{{.*}}views = {b = [["const", 1 : i64]]}
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!w = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!vb = !nv_tileaa.tiled_view<array<i32: 1, 64, 256>, array<i32: 1, 64, 256>, array<i32: 0, 1, 2>, !w>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @expert_gemm(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32, %ne: i32, %sbe: i32, %sbk: i32, %e: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%ne, %k, %n] [%sbe, %sbk] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !w
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
    %vb = nv_tileaa.block_tile %mb : !w -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !nv_tileaa.tiled_view<array<i32: 128, 256>, array<i32: 128, 256>, array<i32: 0, 1>, !m>
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m> -> i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %k1 = arith.constant 1 : i32
    %ecomp = arith.addi %e, %c1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x256xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%pm, %i] : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m> [i32, i32] -> tensor<128x64xf16>
      %tb3, %t1 = nv_tileaa.tiled_load %vb[VIEW_INDEX, %i, %pn] : !vb [i32, i32, i32] -> tensor<1x64x256xf16>
      %tb = nv_tileaa.reshape %tb3 : tensor<1x64x256xf16> -> tensor<64x256xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
      scf.yield %y : tensor<128x256xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x256xf32> -> tensor<128x256xf16>
    %t2 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x256xf16>, !nv_tileaa.tiled_view<array<i32: 128, 256>, array<i32: 128, 256>, array<i32: 0, 1>, !m> [i32, i32]
    nv_tileaa.return
  }
}
