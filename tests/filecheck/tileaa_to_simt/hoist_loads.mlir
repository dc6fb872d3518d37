// RUN: tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s

// Loads first (tileaa_to_simt/hoist.py): the second load (%w, written after the reduction) is
// issued before the reduction's shuffles, so both tiles are in flight together; the load after
// the store (%z) stays after it (it may read what the store wrote).
// CHECK-LABEL: func.func @hoist
// CHECK-SAME: (%[[X:.*]]: !llvm.ptr<1>, %[[W:.*]]: !llvm.ptr<1>, %[[Y:.*]]: !llvm.ptr<1>, %{{.*}}: i32)
// CHECK: llvm.getelementptr %[[X]]
// CHECK: ld.global.v4.b32
// CHECK-NOT: llvm.nvvm.shfl
// CHECK: llvm.getelementptr %[[W]]
// CHECK-NOT: llvm.nvvm.shfl
// CHECK: ld.global.v4.b32
// CHECK: llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"
// CHECK: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<1>
// CHECK: nvvm.barrier
// CHECK: llvm.getelementptr %[[Y]]
// CHECK: ld.global.v4.b32
// CHECK: func.return
!m = !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !m>
builtin.module {
  nv_tileaa.func @hoist(%x: !nv_tileaa.ptr<f32>, %w: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 1>} {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !m
    %vx = nv_tileaa.block_tile %mx : !m -> !v
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %tok = nv_tileaa.tiled_load %vx[%b] : !v[i32] -> tensor<128xf32>
    %r = "nv_tileaa.reduce"(%t) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      %s = nv_tileaa.addf %p, %q : f32
      "nv_tileaa.yield"(%s) : (f32) -> ()
    }) : (tensor<128xf32>) -> tensor<f32>
    %mw = nv_tileaa.make_memref %w[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !m
    %vw = nv_tileaa.block_tile %mw : !m -> !v
    %u, %tok2 = nv_tileaa.tiled_load %vw[%b] : !v[i32] -> tensor<128xf32>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !m
    %vy = nv_tileaa.block_tile %my : !m -> !v
    %st = nv_tileaa.tiled_store %u, %vy[%b] : tensor<128xf32>, !v[i32]
    %z, %tok3 = nv_tileaa.tiled_load %vy[%b] : !v[i32] -> tensor<128xf32>
    %st2 = nv_tileaa.tiled_store %z, %vx[%b] : tensor<128xf32>, !v[i32]
    nv_tileaa.return
  }
}
