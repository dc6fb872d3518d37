// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// A given transposed: A^T stored [K, M], its tile (k, program id 0) permuted before the dot.  The
// tier keeps it an M-major WGMMA operand: two [64 M, 64 K] TMA boxes per stage (one per consumer
// warp group, 8 KiB apart), the A descriptor's k16 step is 16 rows of 128 bytes (128 units of 16 B)
// and the wgmma reads A transposed (layout col).
!m = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vat = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm_at(%at: !nv_tileaa.ptr<bf16>, %b: !nv_tileaa.ptr<bf16>, %c: !nv_tileaa.ptr<bf16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %mat = nv_tileaa.make_memref %at[%k, %m] [%m] : !nv_tileaa.ptr<bf16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<bf16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<bf16> [i32, i32] [i32] -> !m
    %vat = nv_tileaa.block_tile %mat : !m -> !vat
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %vat {index = 0 : i32} : !vat -> i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %tat, %t0 = nv_tileaa.tiled_load %vat[%i, %pm] : !vat [i32, i32] -> tensor<64x128xbf16>
      %ta = "nv_tileaa.permute"(%tat) <{permutation = array<i32: 1, 0>}> : (tensor<64x128xbf16>) -> tensor<128x64xbf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %pn] : !vb [i32, i32] -> tensor<64x128xbf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xbf16>
    %t5 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x128xbf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      func.func @gemm_bf16_bf16_bn_128x128x64
// CHECK-SAME: a_major = "m"
// CHECK:      %arow0 = arith.addi %m0, %{{.*}} : i32
// CHECK-NEXT: %[[OFF0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %aoff0 = arith.addi %a_off, %[[OFF0]] : i32
// CHECK:      nvvm.cp.async.bulk.tensor.shared.cluster.global %adst0, %tmap_a, %fb, box[%arow0, %kc] {cutlass.tx_bytes = 8192 : i32}
// CHECK:      %arow1 = arith.addi %m0, %{{.*}} : i32
// CHECK-NEXT: %[[OFF1:.*]] = arith.constant 8192 : i32
// CHECK-NEXT: %aoff1 = arith.addi %a_off, %[[OFF1]] : i32
// CHECK:      nvvm.cp.async.bulk.tensor.shared.cluster.global %adst1, %tmap_a, %fb, box[%arow1, %kc] {cutlass.tx_bytes = 8192 : i32}
// CHECK:      %ka1 = arith.constant 128 : i64
// CHECK:      nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
