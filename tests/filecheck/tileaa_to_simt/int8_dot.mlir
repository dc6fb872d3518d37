// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s

// The SIMT lowering of an integer dot (cuda_tile.mmai: int8/uint8 tiles, i32 accumulator) in a
// module that names no target (no nv_tileaa.compute_capability: mma.sync needs sm_80, so the
// scalar loop; int8_dot_mma.mlir is the same dot on sm_90): each operand widens to i32 by its
// signedness (uint8 A zero-extends, int8 B sign-extends), products and sums in i32.
// CHECK-LABEL: func.func @int8_dot
// CHECK: scf.for
// CHECK: %[[A:.*]] = arith.extui %{{.*}} : i8 to i32
// CHECK-NEXT: %[[B:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK-NEXT: %[[P:.*]] = arith.muli %[[A]], %[[B]] : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[P]] : i32
builtin.module {
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
