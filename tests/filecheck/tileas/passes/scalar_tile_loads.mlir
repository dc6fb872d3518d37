// RUN: tileorch-opt %s --split-input-file -p tileas-scalar-tile-loads | filecheck %s

// A paged KV cache's page read with `ct.load(Table, index=(b, j), shape=(1, 1)).item()` inside the
// key loop: the one-element tile load feeds the K tile's index, so it becomes the bounds-checked
// scalar load a gather spells (element index = tile index: unit tiles), zero where out of bounds.
!mt = !nv_tileaa.memref<i32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vt = !nv_tileaa.tiled_view<array<i32: 1, 1>, array<i32: 1, 1>, array<i32: 0, 1>, !mt>
!mk = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!vk = !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !mk>
builtin.module {
  nv_tileaa.func @paged(%t: !nv_tileaa.ptr<i32>, %k: !nv_tileaa.ptr<f16>, %b0: i32, %b1: i32, %s0: i32, %p: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mt = nv_tileaa.make_memref %t[%b0, %b1] [%s0] : !nv_tileaa.ptr<i32> [i32, i32] [i32] -> !mt
    %mk = nv_tileaa.make_memref %k[%p, %p, %p] [%p, %p] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !mk
    %vt = nv_tileaa.block_tile %mt : !mt -> !vt
    %vk = nv_tileaa.block_tile %mk : !mk -> !vk
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %pt, %t1 = nv_tileaa.tiled_load %vt[%b, %j] token %tok {mem_semantic = #nv_tileaa.mem_semantic<weak>} : !vt [i32, i32] -> tensor<1x1xi32>
      %page = nv_tileaa.extract %pt {indices = array<i32: 0, 0>} : tensor<1x1xi32> -> i32
      %kt, %t2 = nv_tileaa.tiled_load %vk[%page, %c0, %c0] token %tok : !vk [i32, i32, i32] -> tensor<1x64x64xf16>
      %k2 = nv_tileaa.reshape %kt : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %d = nv_tileaa.dot %q, %k2, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @paged
// CHECK:       scf.for %[[J:[^ ,]+]] = 
// CHECK-NOT:   tensor<1x1xi32>
// CHECK:       %[[B:[^ ,]+]] = arith.extsi %{{.*}} : i32 to i64
// CHECK:       %[[IN0:[^ ,]+]] = arith.cmpi ult, %[[B]], %{{.*}} : i64
// CHECK:       %[[R0:[^ ,]+]] = nv_tileaa.muli %[[B]], %{{.*}} : i64
// CHECK:       %[[JJ:[^ ,]+]] = arith.extsi %[[J]] : i32 to i64
// CHECK:       %[[IN1:[^ ,]+]] = arith.cmpi ult, %[[JJ]], %{{.*}} : i64
// CHECK:       %[[OK:[^ ,]+]] = arith.andi %[[IN0]], %[[IN1]] : i1
// CHECK:       %[[R1:[^ ,]+]] = nv_tileaa.muli %[[JJ]], %{{.*}} : i64
// CHECK:       %[[OFF:[^ ,]+]] = nv_tileaa.addi %[[R0]], %[[R1]] : i64
// CHECK:       %[[ZERO:[^ ,]+]] = arith.constant 0 : i32
// CHECK:       %[[PTR:[^ ,]+]] = nv_tileaa.offset %{{.*}}, %[[OFF]] : !nv_tileaa.ptr<i32>, i64 -> !nv_tileaa.ptr<i32>
// CHECK:       %[[PAGE:[^ ,]+]], %{{.*}} = nv_tileaa.load %[[PTR]] mask %[[OK]] : i1 other %[[ZERO]] : i32 token %{{.*}} {mem_semantic = #nv_tileaa.mem_semantic<weak>}
// CHECK:       nv_tileaa.tiled_load %{{.*}}[%[[PAGE]], %{{.*}}, %{{.*}}]
// CHECK-NOT:   nv_tileaa.extract

// -----

// The same read whose scalar feeds no tile index (a per-tile scale) stays a tile load: its kernels'
// code is what it was.
!mt = !nv_tileaa.memref<i32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vt = !nv_tileaa.tiled_view<array<i32: 1, 1>, array<i32: 1, 1>, array<i32: 0, 1>, !mt>
builtin.module {
  nv_tileaa.func @not_an_index(%t: !nv_tileaa.ptr<i32>, %b0: i32, %b1: i32, %s0: i32, %q: tensor<64x64xf16>, %kk: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mt = nv_tileaa.make_memref %t[%b0, %b1] [%s0] : !nv_tileaa.ptr<i32> [i32, i32] [i32] -> !mt
    %vt = nv_tileaa.block_tile %mt : !mt -> !vt
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z, %s = %c0) -> (tensor<64x64xf32>, i32) : i32 {
      %pt, %t1 = nv_tileaa.tiled_load %vt[%b, %j] token %tok : !vt [i32, i32] -> tensor<1x1xi32>
      %x = nv_tileaa.extract %pt {indices = array<i32: 0, 0>} : tensor<1x1xi32> -> i32
      %s2 = nv_tileaa.addi %s, %x : i32
      %d = nv_tileaa.dot %q, %kk, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d, %s2 : tensor<64x64xf32>, i32
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @not_an_index
// CHECK:       nv_tileaa.tiled_load %{{.*}} -> tensor<1x1xi32>
// CHECK:       nv_tileaa.extract
// CHECK-NOT:   nv_tileaa.load %
