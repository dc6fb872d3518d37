// RUN: env TILEORCH_SIMT_PREDICATED_TAILS=0 tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s
// RUN: env TILEORCH_SIMT_PREDICATED_TAILS=1 tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=PRED

// The scalar path of a run that is not one aligned vector: by default a branch per element around
// its load (the padding on the other side) and around its store; with
// TILEORCH_SIMT_PREDICATED_TAILS=1 one predicated ld.global.b16 (the padding moved in first) and
// one predicated st.global.b16 per element, on the element's own bounds predicate, no branch.
// CHECK-LABEL: func.func @copy_f16
// CHECK: %{{.*}} = scf.if %{{.*}} -> (f16) {
// CHECK-NEXT: %[[V:.*]] = llvm.load %{{.*}} <alignment = 2> : !llvm.ptr<1> -> f16
// CHECK-NEXT: scf.yield %[[V]] : f16
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %{{.*}} : f16
// CHECK-NOT: ld.global.b16
// CHECK: llvm.store %{{.*}}, %{{.*}} <alignment = 2> : f16, !llvm.ptr<1>
// CHECK-NEXT: } else {
// CHECK-NOT: st.global.b16
// CHECK: func.return
// PRED-LABEL: func.func @copy_f16
// PRED-NOT: scf.if %{{.*}} -> (f16)
// PRED: llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, $1, 0; mov.b16 $0, $3; @p ld.global.b16 $0, [$2]; }", "=h,r,l,h" %{{.*}}, %{{.*}}, %{{.*}} : (i32, i64, f16) -> f16
// PRED-NOT: scf.if %{{.*}} -> (f16)
// PRED-NOT: llvm.load %{{.*}} -> f16
// PRED: llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, $0, 0; @p st.global.b16 [$1], $2; }", "r,l,h" %{{.*}}, %{{.*}}, %{{.*}} : (i32, i64, f16) -> ()
// PRED-NOT: llvm.store %{{.*}}, %{{.*}} <alignment = 2> : f16, !llvm.ptr<1>
// PRED: func.return
builtin.module {
  nv_tileaa.func @copy_f16(%x: !nv_tileaa.ptr<f16>, %y: !nv_tileaa.ptr<f16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 1>} {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f16>[i32] [] -> !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f16>[i32] [] -> !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %tok = nv_tileaa.tiled_load %vx[%b] : !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<256xf16>
    %s = nv_tileaa.tiled_store %t, %vy[%b] : tensor<256xf16>, !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}

// -----

// 8-bit elements keep the branch (no 8-bit PTX register to move the padding into).
// PRED-LABEL: func.func @copy_i8
// PRED: scf.if %{{.*}} -> (i8) {
// PRED-NEXT: llvm.load %{{.*}} <alignment = 1> : !llvm.ptr<1> -> i8
// PRED-NOT: ld.global.b8
// PRED: func.return
builtin.module {
  nv_tileaa.func @copy_i8(%x: !nv_tileaa.ptr<i8>, %y: !nv_tileaa.ptr<i8>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 1>} {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<i8>[i32] [] -> !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<i8>[i32] [] -> !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32>>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %tok = nv_tileaa.tiled_load %vx[%b] : !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<256xi8>
    %s = nv_tileaa.tiled_store %t, %vy[%b] : tensor<256xi8>, !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<i8, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}
