// RUN: tileorch-opt %s --split-input-file -p tileas-plan-cta | filecheck %s

// Two CTAs: TMA anchors are split along dimension 0; the A split reaches the accumulator
// (through the dot and the loop iter arg), the epilogue and the TMA store, whose boxes shrink
// to the per-CTA tile; B (split along K) stays behind a convert, the dot needs it whole.
#sm = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
#acc = #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 256, 64>, array<i32: 256, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 256, 128>, array<i32: 256, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @gemm(%va: !va, %vb: !vb, %vc: !vc, %nk: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<2, 4>} {
    %z = arith.constant dense<0.0> : tensor<256x128xf32, #acc>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = arith.constant true
    %r = scf.for %k = %c0 to %nk step %c1 iter_args(%acc = %z) -> (tensor<256x128xf32, #acc>) : i32 {
      %a = nv_tileas.tiled_load %va[%k, %k] {atom = #nv_tileas.sm_tma_load<[64, 256]>} : !va [i32, i32] -> tensor<256x64xf16, #sm>
      %b = nv_tileas.tiled_load %vb[%k, %k] {atom = #nv_tileas.sm_tma_load<[64, 64]>} : !vb [i32, i32] -> tensor<64x128xf16, #sm>
      %d = nv_tileas.dot %a, %b, %acc, %t {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<256x64xf16, #sm>, tensor<64x128xf16, #sm>, tensor<256x128xf32, #acc> -> tensor<256x128xf32, #acc>
      scf.yield %d : tensor<256x128xf32, #acc>
    }
    %h = nv_tileaa.fp_to_fp %r : tensor<256x128xf32, #acc> -> tensor<256x128xf16, #acc>
    %s = nv_tileas.convert_layout %h : tensor<256x128xf16, #acc> -> tensor<256x128xf16, #sm>
    nv_tileas.tiled_store %s, %vc[%c0, %c0] {atom = #nv_tileas.sm_tma_store<[64, 256]>} : tensor<256x128xf16, #sm>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: arith.constant dense<0.000000e+00> : tensor<256x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1], cta = [2, 1]>>
// CHECK: scf.for {{.*}} -> (tensor<256x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1], cta = [2, 1]>>)
// CHECK-NEXT: %[[A:.*]] = nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.sm_tma_load<[64, 128]>} : {{.*}} -> tensor<256x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0], cta = [2, 1]>>
// CHECK-NEXT: %[[B:.*]] = nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.sm_tma_load<[64, 32]>} : {{.*}} -> tensor<64x128xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0], cta = [2, 1]>>
// CHECK-NEXT: %[[BW:.*]] = nv_tileas.convert_layout %[[B]] : {{.*}} -> tensor<64x128xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
// CHECK-NEXT: nv_tileas.dot %[[A]], %[[BW]], %{{.*}}
// CHECK: nv_tileaa.fp_to_fp {{.*}} -> tensor<256x128xf16, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1], cta = [2, 1]>>
// CHECK-NEXT: nv_tileas.convert_layout {{.*}} -> tensor<256x128xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0], cta = [2, 1]>>
// CHECK-NEXT: nv_tileas.tiled_store {{.*}} {atom = #nv_tileas.sm_tma_store<[64, 128]>}
// CHECK-NOT: plancta.direction

// -----

// num_ctas == 1: nothing to plan.
#sm = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 256, 64>, array<i32: 256, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @one(%va: !va, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %a = nv_tileas.tiled_load %va[%k, %k] {atom = #nv_tileas.sm_tma_load<[64, 256]>} : !va [i32, i32] -> tensor<256x64xf16, #sm>
    nv_tileaa.return
  }
}
// CHECK-LABEL: @one
// CHECK: nv_tileas.sm_tma_load<[64, 256]>} : {{.*}} -> tensor<256x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>

// -----

// A forward convert already in the IR seeds the worklist (no anchor seeding): its split flows
// through an scf.while slot (init, both block arguments, result) and a backward convert at the
// yield merges with it.
#r = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>
#rc = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1], cta = [4, 1]>
builtin.module {
  nv_tileaa.func @loop(%x: tensor<128x32xf32, #rc>, %c: i1) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<4, 4>} {
    %f = nv_tileas.convert_layout %x : tensor<128x32xf32, #rc> -> tensor<128x32xf32, #r>
    %w = scf.while (%v = %f) : (tensor<128x32xf32, #r>) -> tensor<128x32xf32, #r> {
      scf.condition(%c) %v : tensor<128x32xf32, #r>
    } do {
    ^bb0(%u: tensor<128x32xf32, #r>):
      %e = nv_tileaa.exp %u : tensor<128x32xf32, #r>
      scf.yield %e : tensor<128x32xf32, #r>
    }
    %k = nv_tileas.pragma %w : tensor<128x32xf32, #r> -> tensor<128x32xf32, #r>
    nv_tileaa.return
  }
}
// CHECK: @loop(%[[X:.*]]: tensor<128x32xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1], cta = [4, 1]>>
// CHECK-NOT: convert_layout
// CHECK: %[[W:.*]] = scf.while (%[[V:.*]] = %[[X]]) : (tensor<128x32xf32, {{.*}}cta = [4, 1]>>) -> tensor<128x32xf32, {{.*}}cta = [4, 1]>>
// CHECK-NEXT: scf.condition(%{{.*}}) %[[V]]
// CHECK: ^{{.*}}(%[[U:.*]]: tensor<128x32xf32, {{.*}}cta = [4, 1]>>):
// CHECK-NEXT: %[[E:.*]] = nv_tileaa.exp %[[U]] : tensor<128x32xf32, {{.*}}cta = [4, 1]>>
// CHECK-NEXT: scf.yield %[[E]]
// CHECK: nv_tileas.pragma %[[W]] : tensor<128x32xf32, {{.*}}cta = [4, 1]>>
// CHECK-NOT: convert_layout

