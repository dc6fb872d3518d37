// REQUIRES: ptxas
// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=SIMT
// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

// View loads and stores with a memory order on the SIMT path (tileaa_to_simt/ordered_views.py):
// each element is its own ordered access (no vector, no whole-tile branch: a plain
// ld.global.v2 / st.global.v2 would drop the order).  An acquire load's elements are atomic
// loads at the op's scope, then the CTA passes a barrier (its later accesses, whichever thread
// makes them, come after the acquire); a release store first passes a barrier (the CTA's earlier
// accesses come before it), then each thread fences (release, the op's scope) and stores its
// elements as relaxed atomic stores; a relaxed load is the atomic loads alone.

// SIMT-LABEL: func.func @publish
// SIMT: llvm.load %{{.*}} atomic syncscope("device") acquire
// SIMT: llvm.load %{{.*}} atomic syncscope("device") acquire
// SIMT: nvvm.barrier
// SIMT: llvm.load %{{.*}} atomic syncscope("device") monotonic
// SIMT: nvvm.barrier
// SIMT-NEXT: llvm.fence syncscope("device") release
// SIMT: llvm.store %{{.*}}, %{{.*}} atomic monotonic

// CHECK: .entry publish(
// CHECK-NOT: ld.global.v2
// CHECK: ld.acquire.gpu.global.b32
// CHECK: ld.acquire.gpu.global.b32
// CHECK: bar.sync
// CHECK: ld.relaxed.gpu.global.b32
// CHECK: bar.sync 0;
// CHECK-NEXT: fence.release.gpu;
// CHECK: st.relaxed.sys.global.b32
// CHECK-NOT: st.global.v2
builtin.module {
  nv_tileaa.func @publish(%x: !nv_tileaa.ptr<f32>, %w: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %mw = nv_tileaa.make_memref %w[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %vw = nv_tileaa.block_tile %mw : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %tok = nv_tileaa.tiled_load %vx[%b] {mem_semantic = #nv_tileaa.mem_semantic<acquire>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<256xf32>
    %u, %tok2 = nv_tileaa.tiled_load %vw[%b] {mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<256xf32>
    %r = nv_tileaa.addf %t, %u : tensor<256xf32>
    %s = nv_tileaa.tiled_store %r, %vy[%b] {mem_semantic = #nv_tileaa.mem_semantic<release>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<256xf32>, !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}
