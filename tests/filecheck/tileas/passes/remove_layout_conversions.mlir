// RUN: tileorch-opt %s --split-input-file -p tileas-remove-layout-conversions | filecheck %s

// The accumulator's MMA layout moves out of the loop through its iter arg (init constant
// retyped), the epilogue math follows it forward, and one convert to shared memory remains.
#acc = #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>
#blk = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>
#sm = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
builtin.module {
  nv_tileaa.func @k(%a: tensor<128x64xf16, #sm>, %b: tensor<64x128xf16, #sm>, %n: index, %s: f32) {
    %z = arith.constant dense<0.0> : tensor<128x128xf32, #blk>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = arith.constant true
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32, #blk>) {
      %c = nv_tileas.convert_layout %acc : tensor<128x128xf32, #blk> -> tensor<128x128xf32, #acc>
      %d = nv_tileas.dot %a, %b, %c, %t {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<128x64xf16, #sm>, tensor<64x128xf16, #sm>, tensor<128x128xf32, #acc> -> tensor<128x128xf32, #acc>
      %back = nv_tileas.convert_layout %d : tensor<128x128xf32, #acc> -> tensor<128x128xf32, #blk>
      scf.yield %back : tensor<128x128xf32, #blk>
    }
    %sc = nv_tileaa.splat %s : f32 -> tensor<128x128xf32, #blk>
    %m = nv_tileaa.mulf %r, %sc : tensor<128x128xf32, #blk>
    %h = nv_tileaa.fp_to_fp %m : tensor<128x128xf32, #blk> -> tensor<128x128xf16, #blk>
    %st = nv_tileas.convert_layout %h : tensor<128x128xf16, #blk> -> tensor<128x128xf16, #sm>
    %keep = nv_tileas.pragma %st {hints = {use}} : tensor<128x128xf16, #sm> -> tensor<128x128xf16, #sm>
    nv_tileaa.return
  }
}
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>>
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc
// CHECK-NEXT: %[[D:.*]] = nv_tileas.dot %{{.*}}, %{{.*}}, %[[ACC]], %{{.*}}
// CHECK-NEXT: scf.yield %[[D]]
// CHECK: %[[SC:.*]] = nv_tileaa.splat %{{.*}} : f32 -> tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc
// CHECK: %[[M:.*]] = nv_tileaa.mulf %[[R]], %[[SC]] : tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc
// CHECK: %[[H:.*]] = nv_tileaa.fp_to_fp %[[M]] : {{.*}} -> tensor<128x128xf16, #nv_tileas.layout<reg, atom = mma_acc
// CHECK: nv_tileas.convert_layout %[[H]] : tensor<128x128xf16, #nv_tileas.layout<reg, atom = mma_acc, {{.*}}>> -> tensor<128x128xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
// CHECK-NOT: nv_tileas.convert_layout

// -----

// Folding: identity converts vanish, chains collapse, a TMA load absorbs a shared-memory
// layout it can still be loaded in (its box follows the new swizzle) but not a register one.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%v: !v, %i: i32, %x: tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>) {
    %l = nv_tileas.tiled_load %v[%i, %i] {atom = #nv_tileas.sm_tma_load<[64, 64]>} : !v [i32, i32] -> tensor<64x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
    %c = nv_tileas.convert_layout %l : tensor<64x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>> -> tensor<64x64xf16, #nv_tileas.layout<smem, swizzle = 64, order = [1, 0]>>
    %u = nv_tileas.pragma %c : tensor<64x64xf16, #nv_tileas.layout<smem, swizzle = 64, order = [1, 0]>> -> tensor<64x64xf16, #nv_tileas.layout<smem, swizzle = 64, order = [1, 0]>>
    %l2 = nv_tileas.tiled_load %v[%i, %i] {atom = #nv_tileas.sm_tma_load<[64, 64]>} : !v [i32, i32] -> tensor<64x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
    %r = nv_tileas.convert_layout %l2 : tensor<64x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>> -> tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
    %id = nv_tileas.convert_layout %x : tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>> -> tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
    %c1 = nv_tileas.convert_layout %id : tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>> -> tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>>
    %c2 = nv_tileas.convert_layout %c1 : tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>> -> tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
    %s = nv_tileaa.addf %r, %c2 : tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
    nv_tileaa.return
  }
}
// CHECK: %[[L:.*]] = nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.sm_tma_load<[32, 64]>} : {{.*}} -> tensor<64x64xf16, #nv_tileas.layout<smem, swizzle = 64, order = [1, 0]>>
// CHECK-NEXT: nv_tileas.pragma %[[L]]
// CHECK-NEXT: %[[L2:.*]] = nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.sm_tma_load<[64, 64]>}
// CHECK-NEXT: %[[R:.*]] = nv_tileas.convert_layout %[[L2]]
// CHECK-NEXT: nv_tileaa.addf %[[R]], %{{.*}} :
