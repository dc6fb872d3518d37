// RUN: tileorch-opt %s --split-input-file -p tileas-view-order-to-reshape | filecheck %s

// K [B, S, H, D] read as [D, BN] tiles through order (0, 2, 3, 1), the dot's B: a view in the
// array's order (tile [1, 64, 1, 32], indices (b, j, h, 0)), the tile squeezed to [64, 32] in the
// array's order, transposed to [32, 64], reshaped back to the view's [1, 1, 32, 64]; the program's
// view, now unused, erased.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?, ?>, array<i64: ?, ?, ?, 1>, i32>
!vk = !nv_tileaa.tiled_view<array<i32: 1, 1, 32, 64>, array<i32: 1, 1, 32, 64>, array<i32: 0, 2, 3, 1>, !m>
builtin.module {
  nv_tileaa.func @k_order(%p: !nv_tileaa.ptr<f16>, %b0: i32, %s0: i32, %h0: i32, %d0: i32, %st0: i32, %st1: i32, %st2: i32, %b: i32, %h: i32, %j: i32, %q: tensor<64x32xf16>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mk = nv_tileaa.make_memref %p[%b0, %s0, %h0, %d0] [%st0, %st1, %st2] : !nv_tileaa.ptr<f16> [i32, i32, i32, i32] [i32, i32, i32] -> !m
    %vk = nv_tileaa.block_tile %mk : !m -> !vk
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %kt, %t1 = nv_tileaa.tiled_load %vk[%b, %h, %c0, %j] token %tok {allow_tma = true} : !vk [i32, i32, i32, i32] -> tensor<1x1x32x64xf16>
    %kt2 = nv_tileaa.reshape %kt : tensor<1x1x32x64xf16> -> tensor<32x64xf16>
    %s = nv_tileaa.dot %q, %kt2, %z : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.make_memref
// CHECK-NEXT: %[[V:.*]] = nv_tileaa.block_tile %mk : {{.*}} -> !nv_tileaa.tiled_view<array<i32: 1, 64, 1, 32>, array<i32: 1, 64, 1, 32>, array<i32: 0, 1, 2, 3>
// CHECK:      %[[L:.*]], %[[T:.*]] = nv_tileaa.tiled_load %[[V]][%b, %j, %h, %c0] token %tok {allow_tma = true} : {{.*}} -> tensor<1x64x1x32xf16>
// CHECK-NEXT: %[[S:.*]] = nv_tileaa.reshape %[[L]] : tensor<1x64x1x32xf16> -> tensor<64x32xf16>
// CHECK-NEXT: %[[P:.*]] = "nv_tileaa.permute"(%[[S]]) <{permutation = array<i32: 1, 0>}> : (tensor<64x32xf16>) -> tensor<32x64xf16>
// CHECK-NEXT: %[[R:.*]] = nv_tileaa.reshape %[[P]] : tensor<32x64xf16> -> tensor<1x1x32x64xf16>
// CHECK-NEXT: nv_tileaa.reshape %[[R]] : tensor<1x1x32x64xf16> -> tensor<32x64xf16>
// CHECK-NOT:  array<i32: 0, 2, 3, 1>

// -----

// Left as written: the last two dimensions swapped (the tiers read it as it is), and a load with a
// general order that feeds no dot (an epilogue's tile).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!vs = !nv_tileaa.tiled_view<array<i32: 1, 32, 64>, array<i32: 1, 32, 64>, array<i32: 0, 2, 1>, !m>
!vg = !nv_tileaa.tiled_view<array<i32: 64, 1, 64>, array<i32: 64, 1, 64>, array<i32: 1, 0, 2>, !m>
builtin.module {
  nv_tileaa.func @kept(%p: !nv_tileaa.ptr<f16>, %a0: i32, %a1: i32, %a2: i32, %st0: i32, %st1: i32, %b: i32, %j: i32, %q: tensor<64x32xf16>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mk = nv_tileaa.make_memref %p[%a0, %a1, %a2] [%st0, %st1] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %vs = nv_tileaa.block_tile %mk : !m -> !vs
    %vg = nv_tileaa.block_tile %mk : !m -> !vg
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %kt, %t1 = nv_tileaa.tiled_load %vs[%b, %c0, %j] token %tok : !vs [i32, i32, i32] -> tensor<1x32x64xf16>
    %kt2 = nv_tileaa.reshape %kt : tensor<1x32x64xf16> -> tensor<32x64xf16>
    %s = nv_tileaa.dot %q, %kt2, %z : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %g, %t2 = nv_tileaa.tiled_load %vg[%j, %b, %c0] token %tok : !vg [i32, i32, i32] -> tensor<64x1x64xf16>
    nv_tileaa.return
  }
}
// CHECK:     nv_tileaa.func @kept
// CHECK:     nv_tileaa.tiled_load %vs[%b, %c0, %j]
// CHECK:     nv_tileaa.tiled_load %vg[%j, %b, %c0]
// CHECK-NOT: nv_tileaa.permute
