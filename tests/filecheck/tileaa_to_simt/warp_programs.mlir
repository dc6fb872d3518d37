// RUN: env TILEORCH_PROGRAMS_PER_WARP=1 tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s
// RUN: tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=TWO

// A one-warp program (kernel_spec<1, 1>: a 256-element tile, eight elements a lane) with no
// barrier and no shared memory runs one program per warp, up to 2 per CTA (warp_programs.py):
// a trailing i32 parameter holds the programs along x, the program id is ctaid.x times the
// CTA's warps plus the warp, the thread index the program sees is the lane, and the whole body
// runs under the test program < programs (a warp past the last program does nothing).
// CHECK-LABEL: func.func @scale
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %[[N:.*]]: i32, %[[PROGS:.*]]: i32)
// CHECK-SAME: attributes {nvvm.kernel, tileorch.warp_programs = 2 : i32, nvvm.maxntid = array<i32: 64, 1, 1>}
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[NTID:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
// CHECK: %[[CTA:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: %[[LANE:.*]] = arith.andi %[[TID]], %{{.*}} : i32
// CHECK: %[[WARP:.*]] = arith.shrui %[[TID]], %{{.*}} : i32
// CHECK: %[[WARPS:.*]] = arith.shrui %[[NTID]], %{{.*}} : i32
// CHECK: %[[FIRST:.*]] = arith.muli %[[CTA]], %[[WARPS]] : i32
// CHECK: %[[PROG:.*]] = arith.addi %[[FIRST]], %[[WARP]] : i32
// CHECK: %[[LIVE:.*]] = arith.cmpi ult, %[[PROG]], %[[PROGS]] : i32
// CHECK: scf.if %[[LIVE]] {
// CHECK-NOT: nvvm.read.ptx.sreg
// CHECK: arith.muli %[[LANE]]
// CHECK: arith.muli %[[PROG]]
// CHECK: func.return

// By default the program, whose load brings 1 KiB per warp, runs twice per warp
// (warp_programs.programs_per_warp: up to 2 KiB): the warp runs when its first program
// (2 * warp index) is one; program k's id is 2 * warp index + k; the loads of both programs are
// issued before the first store, and the second program's store runs under its id < programs.
// TWO-LABEL: func.func @scale
// TWO-SAME: %[[PROGS:[^:]*]]: i32)
// TWO-SAME: attributes {nvvm.kernel, tileorch.warp_programs = 2 : i32, tileorch.programs_per_warp = 2 : i32, nvvm.maxntid = array<i32: 64, 1, 1>}
// TWO: %[[PROG:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// TWO: %[[TWO:.*]] = arith.constant 2 : i32
// TWO: %[[FIRST:.*]] = arith.muli %[[PROG]], %[[TWO]] : i32
// TWO: %[[LIVE:.*]] = arith.cmpi ult, %[[FIRST]], %[[PROGS]] : i32
// TWO: scf.if %[[LIVE]] {
// TWO: %[[K1:.*]] = arith.constant 1 : i32
// TWO: %[[B0:.*]] = arith.muli %[[PROG]], %{{.*}} : i32
// TWO: %[[K0:.*]] = arith.constant 0 : i32
// TWO: arith.addi %[[B0]], %[[K0]] : i32
// TWO: ld.global.v4.b32
// TWO-NOT: llvm.store
// TWO: %[[B1:.*]] = arith.muli %[[PROG]], %{{.*}} : i32
// TWO: %[[ID1:.*]] = arith.addi %[[B1]], %[[K1]] : i32
// TWO: ld.global.v4.b32
// TWO: llvm.store
// TWO: %[[B1B:.*]] = arith.muli %[[PROG]], %{{.*}} : i32
// TWO: %[[ID1B:.*]] = arith.addi %[[B1B]], %[[K1]] : i32
// TWO: %[[LIVE1:.*]] = arith.cmpi ult, %[[ID1B]], %[[PROGS]] : i32
// TWO: scf.if %[[LIVE1]] {
// TWO-NOT: ld.global
// TWO: llvm.store
// TWO: func.return
builtin.module {
  nv_tileaa.func @scale(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 1>} {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %tok = nv_tileaa.tiled_load %vx[%b] : !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<256xf32>
    %two = arith.constant dense<2.0> : tensor<256xf32>
    %r = nv_tileaa.mulf %t, %two : tensor<256xf32>
    %s = nv_tileaa.tiled_store %r, %vy[%b] : tensor<256xf32>, !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}

// -----

// A one-warp program with a CTA barrier (a tile exchanged through shared memory: a broadcast
// of a non-power-of-two reduction) keeps one program per CTA and its 32 threads.
// CHECK-LABEL: func.func @exchange
// CHECK-SAME: (%{{.*}}: f32)
// CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 32, 1, 1>}
// CHECK-NOT: tileorch.warp_programs
// CHECK: nvvm.barrier
builtin.module {
  nv_tileaa.func @exchange(%f: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 1>} {
    %x = nv_tileaa.splat %f : f32 -> tensor<8x48xf32>
    %p = "nv_tileaa.permute"(%x) <{permutation = array<i32: 1, 0>}> : (tensor<8x48xf32>) -> tensor<48x8xf32>
    nv_tileaa.return
  }
}

// -----

// Several programs per warp when an op after the loads may not run past the grid (here a
// branch): the loads of both programs first, then each program's other ops in turn, the second
// program's under its id < programs.
// TWO-LABEL: func.func @branchy
// TWO-SAME: %[[PROGS:[^:]*]]: i32)
// TWO-SAME: tileorch.programs_per_warp = 2 : i32
// TWO: %[[PROG:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// TWO: %[[K1:.*]] = arith.constant 1 : i32
// TWO: ld.global.v4.b32
// TWO-NOT: llvm.store
// TWO: %[[B1:.*]] = arith.muli %[[PROG]], %{{.*}} : i32
// TWO: arith.addi %[[B1]], %[[K1]] : i32
// TWO: ld.global.v4.b32
// TWO-NOT: llvm.store
// TWO: scf.if
// TWO: llvm.store
// TWO: %[[B1B:.*]] = arith.muli %[[PROG]], %{{.*}} : i32
// TWO: %[[ID1:.*]] = arith.addi %[[B1B]], %{{.*}} : i32
// TWO: %[[LIVE1:.*]] = arith.cmpi ult, %[[ID1]], %[[PROGS]] : i32
// TWO: scf.if %[[LIVE1]] {
// TWO-NOT: ld.global
// TWO: scf.if
// TWO: llvm.store
// TWO: func.return
builtin.module {
  nv_tileaa.func @branchy(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32, %lim: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 1>} {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %tok = nv_tileaa.tiled_load %vx[%b] : !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<256xf32>
    %c = arith.cmpi slt, %b, %lim : i32
    scf.if %c {
      %s = nv_tileaa.tiled_store %t, %vy[%b] : tensor<256xf32>, !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
      scf.yield
    }
    nv_tileaa.return
  }
}
