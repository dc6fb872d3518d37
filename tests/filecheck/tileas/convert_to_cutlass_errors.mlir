// RUN: tileorch-opt %s --verify-diagnostics -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// B [64, 128] is read at tile (program id 1, k): neither B (k, program id 1) nor a transposed B^T tile.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @tile_gemm(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
    %vb = nv_tileaa.block_tile %mb : !m -> !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
    %vc = nv_tileaa.block_tile %mc : !m -> !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m> -> i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%pm, %i] : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m> [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%pn, %i] : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m> [i32, i32] -> tensor<64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
    %t2 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x128xf16>, !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m> [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: convert_to_cutlass_errors.mlir:20:7: error: convert-nv-tileas-to-cutlass: operand tile [64, 128] at (program id 1, k) does not feed a 128x128x64 dot as A (program id 0, k) / A^T (k, program id 0) or B (k, program id 1) / B^T (program id 1, k)
