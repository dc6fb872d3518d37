// RUN: tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s
// RUN: env TILEORCH_UNIFORM_DIV=0 tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=OFF

// A tile divided by one value (a splat of %g): the operands' range test (a max.NaN tree of |a|,
// an unsigned min tree of 2 bits(a) - 1, the divisor in [2^-60, 2^60]) before one branch per
// thread; one rcp.approx and a Newton step for the thread; three instructions per element on the
// fast path (q = a r, rem = b q - a, q - r rem); arith.divf per element on the other.
// CHECK-LABEL: func.func @shared_divisor
// CHECK: llvm.call_intrinsic "llvm.maximum.f32"
// CHECK: arith.minui
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : i32
// CHECK: %[[R0:.*]] = llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"(%[[B:.*]]) : (f32) -> f32
// CHECK: %[[NB:.*]] = arith.negf %[[B]] : f32
// CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%[[NB]], %[[R0]], %{{.*}})
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%[[R0]], %[[E]], %[[R0]])
// CHECK: %[[NR:.*]] = arith.negf %[[R]] : f32
// CHECK: %{{.*}}, %{{.*}} = scf.if %{{.*}} -> (f32, f32) {
// CHECK-NEXT: %[[Q:.*]] = llvm.call_intrinsic "llvm.nvvm.mul.rn.f"(%[[A:.*]], %[[R]])
// CHECK-NEXT: %[[NA:.*]] = arith.negf %[[A]] : f32
// CHECK-NEXT: %[[REM:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%[[B]], %[[Q]], %[[NA]])
// CHECK-NEXT: llvm.call_intrinsic "llvm.fma.f32"(%[[NR]], %[[REM]], %[[Q]])
// CHECK-NOT: arith.divf
// CHECK: } else {
// CHECK-NEXT: arith.divf %{{.*}}, %[[B]] : f32
// CHECK-NEXT: arith.divf %{{.*}}, %[[B]] : f32
// CHECK-NEXT: scf.yield
// OFF-LABEL: func.func @shared_divisor
// OFF-NOT: rcp.approx
// OFF: arith.divf
// OFF: arith.divf
// OFF-NOT: arith.divf
// OFF: func.return
builtin.module {
  nv_tileaa.func @shared_divisor(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32, %g: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %tok = nv_tileaa.tiled_load %vx[%b] : !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<256xf32>
    %d = nv_tileaa.splat %g : f32 -> tensor<256xf32>
    %r = nv_tileaa.divf %t, %d : tensor<256xf32>
    %s = nv_tileaa.tiled_store %r, %vy[%b] : tensor<256xf32>, !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}

// -----

// A divisor that differs between a thread's elements (a loaded tile) and an f16 division keep
// arith.divf per element: no reciprocal.
// CHECK-LABEL: func.func @per_element_divisor
// CHECK-NOT: rcp.approx
// CHECK: arith.divf
// CHECK: arith.divf
// CHECK-NOT: rcp.approx
// CHECK: func.return
builtin.module {
  nv_tileaa.func @per_element_divisor(%x: !nv_tileaa.ptr<f32>, %n: i32, %h: f16) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %tok = nv_tileaa.tiled_load %vx[%b] : !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<256xf32>
    %u, %tok2 = nv_tileaa.tiled_load %vx[%n] : !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<256xf32>
    %r = nv_tileaa.divf %t, %u : tensor<256xf32>
    %s = nv_tileaa.tiled_store %r, %vx[%b] : tensor<256xf32>, !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    %hs = nv_tileaa.splat %h : f16 -> tensor<256xf16>
    %hh = nv_tileaa.divf %hs, %hs : tensor<256xf16>
    nv_tileaa.return
  }
}
