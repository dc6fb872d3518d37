// RUN: tileorch-opt %s --split-input-file -p tileas-remove-layout-conversions | filecheck %s

// scf.if: both branches convert #b2 -> #blk, the result is converted back after the if. The
// if result takes #b2, the converts in the branches and the inverse after the if all cancel.
#blk = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>
#b2 = #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>
!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @both(%c: i1, %v: !v, %i: i32, %x: tensor<64x64xf32, #b2>, %y: tensor<64x64xf32, #b2>) {
    %r = scf.if %c -> (tensor<64x64xf32, #blk>) {
      %e = nv_tileaa.exp %x : tensor<64x64xf32, #b2>
      %ce = nv_tileas.convert_layout %e : tensor<64x64xf32, #b2> -> tensor<64x64xf32, #blk>
      scf.yield %ce : tensor<64x64xf32, #blk>
    } else {
      %cy = nv_tileas.convert_layout %y : tensor<64x64xf32, #b2> -> tensor<64x64xf32, #blk>
      scf.yield %cy : tensor<64x64xf32, #blk>
    }
    %back = nv_tileas.convert_layout %r : tensor<64x64xf32, #blk> -> tensor<64x64xf32, #b2>
    nv_tileas.tiled_store %back, %v[%i, %i] {atom = #nv_tileas.stg<4>} : tensor<64x64xf32, #b2>, !v [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @both
// CHECK-NOT:  nv_tileas.convert_layout
// CHECK:      %[[R:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>>) {
// CHECK-NEXT:   %[[E:.*]] = nv_tileaa.exp
// CHECK-NEXT:   scf.yield %[[E]] : tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>>
// CHECK-NEXT: } else {
// CHECK-NEXT:   scf.yield %{{.*}} : tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>>
// CHECK-NEXT: }
// CHECK-NEXT: nv_tileas.tiled_store %[[R]]
// CHECK-NOT:  nv_tileas.convert_layout

// -----

// One branch converts, the other yields a dense constant (retyped for free); the result's other
// user (a tiled store in #blk) gets one convert after the if.
#blk = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>
#b2 = #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>
!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @const_branch(%c: i1, %v: !v, %i: i32, %x: tensor<64x64xf32, #b2>) {
    %r = scf.if %c -> (tensor<64x64xf32, #blk>) {
      %cx = nv_tileas.convert_layout %x : tensor<64x64xf32, #b2> -> tensor<64x64xf32, #blk>
      scf.yield %cx : tensor<64x64xf32, #blk>
    } else {
      %z = arith.constant dense<0.0> : tensor<64x64xf32, #blk>
      scf.yield %z : tensor<64x64xf32, #blk>
    }
    nv_tileas.tiled_store %r, %v[%i, %i] {atom = #nv_tileas.stg<4>} : tensor<64x64xf32, #blk>, !v [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @const_branch
// CHECK:      %[[R:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>>) {
// CHECK-NEXT:   scf.yield %{{.*}} : tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>>
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>>
// CHECK-NEXT:   scf.yield %[[Z]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[C:.*]] = nv_tileas.convert_layout %[[R]] : {{.*}} -> tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
// CHECK-NEXT: nv_tileas.tiled_store %[[C]]

// -----

// Only the then-branch converts; the else-branch value is computed in #blk.  The result's only
// user converts it back to #b2, so the if yields #b2: the else-branch gets the one convert and
// the then-branch and after-if converts go.
#blk = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>
#b2 = #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>
!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @one_branch(%c: i1, %v: !v, %i: i32, %x: tensor<64x64xf32, #b2>, %w: !v) {
    %r = scf.if %c -> (tensor<64x64xf32, #blk>) {
      %cx = nv_tileas.convert_layout %x : tensor<64x64xf32, #b2> -> tensor<64x64xf32, #blk>
      scf.yield %cx : tensor<64x64xf32, #blk>
    } else {
      %l = nv_tileas.tiled_load %w[%i, %i] {atom = #nv_tileas.ldg<4>} : !v [i32, i32] -> tensor<64x64xf32, #blk>
      nv_tileas.tiled_store %l, %w[%i, %i] {atom = #nv_tileas.stg<4>} : tensor<64x64xf32, #blk>, !v [i32, i32]
      scf.yield %l : tensor<64x64xf32, #blk>
    }
    %back = nv_tileas.convert_layout %r : tensor<64x64xf32, #blk> -> tensor<64x64xf32, #b2>
    nv_tileas.tiled_store %back, %v[%i, %i] {atom = #nv_tileas.stg<4>} : tensor<64x64xf32, #b2>, !v [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @one_branch
// CHECK:      %[[R:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>>) {
// CHECK-NEXT:   scf.yield %{{.*}} : tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>>
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[L:.*]] = nv_tileas.tiled_load
// CHECK-NEXT:   nv_tileas.tiled_store %[[L]]
// CHECK-NEXT:   %[[LC:.*]] = nv_tileas.convert_layout %[[L]] : {{.*}}warps = [4, 1]>> -> tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>>
// CHECK-NEXT:   scf.yield %[[LC]]
// CHECK-NEXT: }
// CHECK-NEXT: nv_tileas.tiled_store %[[R]]

// -----

// consume_one (the seed's worker handles it with scf.if): a register convert yielded out of the
// region moves below it and cancels with its inverse; the convert that reads the slot buffer
// (shared memory, valid only inside the region) stays inside.
#blk = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>
#b2 = #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>
#sm = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
!sa = tensor<64x64xf16, #sm>
!pipe = !nv_tileas.async.pipeline<2, tuple<!sa>>
!it = !nv_tileas.async.pipeline.iterator<consumer, 2, tuple<!sa>>
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @consume(%p: !pipe, %it: !it, %v: !v, %i: i32) {
    %r:3 = nv_tileas.async.pipeline.consume_one %p, %it attributes {consumer_idx = 0 : i32} : !pipe, !it -> tensor<64x64xf16, #blk>, tensor<64x64xf16, #blk>, !it {
    ^bb0(%s: !sa):
      %a = nv_tileas.convert_layout %s : !sa -> tensor<64x64xf16, #b2>
      %e = nv_tileaa.exp %a : tensor<64x64xf16, #b2>
      %ce = nv_tileas.convert_layout %e : tensor<64x64xf16, #b2> -> tensor<64x64xf16, #blk>
      %rs = nv_tileas.convert_layout %s : !sa -> tensor<64x64xf16, #blk>
      nv_tileas.async.pipeline.yield %ce, %rs : tensor<64x64xf16, #blk>, tensor<64x64xf16, #blk>
    }
    %back = nv_tileas.convert_layout %r#0 : tensor<64x64xf16, #blk> -> tensor<64x64xf16, #b2>
    nv_tileas.tiled_store %back, %v[%i, %i] {atom = #nv_tileas.stg<8>} : tensor<64x64xf16, #b2>, !v [i32, i32]
    nv_tileas.tiled_store %r#1, %v[%i, %i] {atom = #nv_tileas.stg<8>} : tensor<64x64xf16, #blk>, !v [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @consume
// CHECK:      %[[R:.*]], %[[R1:.*]], %{{.*}} = nv_tileas.async.pipeline.consume_one {{.*}} -> tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [2, 2]>>, tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>, {{.*}} {
// CHECK-NEXT: ^{{.*}}(%[[S:.*]]: tensor<64x64xf16, #nv_tileas.layout<smem
// CHECK-NEXT:   %[[A:.*]] = nv_tileas.convert_layout %[[S]]
// CHECK-NEXT:   %[[E:.*]] = nv_tileaa.exp %[[A]]
// CHECK-NEXT:   %[[RS:.*]] = nv_tileas.convert_layout %[[S]] : {{.*}} -> tensor<64x64xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
// CHECK-NEXT:   nv_tileas.async.pipeline.yield %[[E]], %[[RS]]
// CHECK-NEXT: }
// CHECK-NEXT: nv_tileas.tiled_store %[[R]]
// CHECK-NEXT: nv_tileas.tiled_store %[[R1]]
