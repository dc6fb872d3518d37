// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s

// The integer dot of int8_dot.mlir on an sm_90 target: warp-level mma.sync (tileaa_to_simt/mma.py),
// m16n8k32 with a uint8 A and an int8 B, an i32 accumulator.  The 16x16x32 dot is 2 column
// blocks of 8 (one work item, so no item loop), one K step (no K loop); the constant accumulator is
// the C fragments (not staged); operands are stored as bytes in rows of 12 words (8 + 4 of skew).
// CHECK-LABEL: func.func @int8_dot
// CHECK: "nvvm.mma.sync"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C:[0-9]+]], %[[C]], %[[C]], %[[C]])
// CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 32>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<u8>, multiplicandBPtxType = #nvvm.mma_type<s8>
// CHECK-SAME: (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: "nvvm.mma.sync"
// CHECK-NOT: "nvvm.mma.sync"
// CHECK: func.return
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 0>} {
  nv_tileaa.func @int8_dot(%pa: !nv_tileaa.ptr<i8>, %pb: !nv_tileaa.ptr<i8>, %pc: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %pa[] [] : !nv_tileaa.ptr<i8>[] [] -> !nv_tileaa.memref<i8, array<i64: 16, 32>, array<i64: 32, 1>, i32>
    %mb = nv_tileaa.make_memref %pb[] [] : !nv_tileaa.ptr<i8>[] [] -> !nv_tileaa.memref<i8, array<i64: 32, 16>, array<i64: 16, 1>, i32>
    %mc = nv_tileaa.make_memref %pc[] [] : !nv_tileaa.ptr<i32>[] [] -> !nv_tileaa.memref<i32, array<i64: 16, 16>, array<i64: 16, 1>, i32>
    %va = nv_tileaa.block_tile %ma : !nv_tileaa.memref<i8, array<i64: 16, 32>, array<i64: 32, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 16, 32>, array<i32: 16, 32>, array<i32: 0, 1>, !nv_tileaa.memref<i8, array<i64: 16, 32>, array<i64: 32, 1>, i32>>
    %vb = nv_tileaa.block_tile %mb : !nv_tileaa.memref<i8, array<i64: 32, 16>, array<i64: 16, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 32, 16>, array<i32: 32, 16>, array<i32: 0, 1>, !nv_tileaa.memref<i8, array<i64: 32, 16>, array<i64: 16, 1>, i32>>
    %vc = nv_tileaa.block_tile %mc : !nv_tileaa.memref<i32, array<i64: 16, 16>, array<i64: 16, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 16, 16>, array<i32: 16, 16>, array<i32: 0, 1>, !nv_tileaa.memref<i32, array<i64: 16, 16>, array<i64: 16, 1>, i32>>
    %c0 = arith.constant 0 : i32
    %a, %ta = nv_tileaa.tiled_load %va[%c0, %c0] : !nv_tileaa.tiled_view<array<i32: 16, 32>, array<i32: 16, 32>, array<i32: 0, 1>, !nv_tileaa.memref<i8, array<i64: 16, 32>, array<i64: 32, 1>, i32>>[i32, i32] -> tensor<16x32xi8>
    %b, %tb = nv_tileaa.tiled_load %vb[%c0, %c0] : !nv_tileaa.tiled_view<array<i32: 32, 16>, array<i32: 32, 16>, array<i32: 0, 1>, !nv_tileaa.memref<i8, array<i64: 32, 16>, array<i64: 16, 1>, i32>>[i32, i32] -> tensor<32x16xi8>
    %z = arith.constant dense<0> : tensor<16x16xi32>
    %d = nv_tileaa.dot %a, %b, %z {signedness_a = #nv_tileaa.signedness<unsigned>, signedness_b = #nv_tileaa.signedness<signed>} : tensor<16x32xi8>, tensor<32x16xi8>, tensor<16x16xi32> -> tensor<16x16xi32>
    %ts = nv_tileaa.tiled_store %d, %vc[%c0, %c0] : tensor<16x16xi32>, !nv_tileaa.tiled_view<array<i32: 16, 16>, array<i32: 16, 16>, array<i32: 0, 1>, !nv_tileaa.memref<i32, array<i64: 16, 16>, array<i64: 16, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}
