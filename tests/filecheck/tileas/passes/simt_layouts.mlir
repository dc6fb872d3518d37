// RUN: tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts | filecheck %s --check-prefix=ASSIGN
// RUN: tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions | filecheck %s --check-prefix=REMOVE
// RUN: env TILEORCH_WARP_PROGRAMS=0 TILEORCH_REMATERIALIZE_FLOAT_LOADS=0 tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=SIMT
// RUN: env TILEORCH_WARP_PROGRAMS=0 TILEORCH_REMATERIALIZE_FLOAT_LOADS=0 tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=KEEP

// The SIMT route (kernels without a dot stay in nv_tileaa): tileas-assign-load-store-layouts
// decides the register layouts (transforms/tileas/simt_layouts.py) and attaches them as
// #nv_tileaa.blocked; tileas-remove-layout-conversions drops the conversions between equal
// layouts; convert-nv-tileaa-to-simt holds the tiles as the attributes say.

// Row softmax of 1024 f16 per program, no warps hint: a single-pass reduction kernel holds 4
// vector runs per thread, so 1024 / 8 / 4 = 32 threads: the row lies in one warp, 8 f16 (16
// bytes) per run, consecutive lanes on consecutive runs (coalesced along the contiguous
// dimension).  The max/sum results (one element) are expanded to 1x1: both layouts hold the
// element in thread 0, slot 0, so the conversion goes.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !m>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @softmax(%px: !nv_tileaa.ptr<f16>, %py: !nv_tileaa.ptr<f16>, %rows: i32, %cols: i32, %row: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_warps_auto} {
    %tok = nv_tileaa.create_mem_token
    %x = nv_tileaa.make_memref %px[%rows, %cols] [%cols] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !m
    %y = nv_tileaa.make_memref %py[%rows, %cols] [%cols] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !m
    %c0 = arith.constant 0 : i32
    %vx = nv_tileaa.block_tile %x : !m -> !v
    %t, %t1 = nv_tileaa.tiled_load %vx[%row, %c0] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !v [i32, i32] -> tensor<1x1024xf16>
    %f = nv_tileaa.fp_to_fp %t {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xf16> -> tensor<1x1024xf32>
    %mx = "nv_tileaa.reduce"(%f) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%a: f32, %b: f32):
      %r = nv_tileaa.maxf %a, %b : f32
      "nv_tileaa.yield"(%r) : (f32) -> ()
    }) : (tensor<1x1024xf32>) -> tensor<1xf32>
    %mx2 = nv_tileaa.expand_dims %mx {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
    %mxb = nv_tileaa.broadcast %mx2 : tensor<1x1xf32> -> tensor<1x1024xf32>
    %d = nv_tileaa.subf %f, %mxb : tensor<1x1024xf32>
    %e = nv_tileaa.exp %d : tensor<1x1024xf32>
    %s = "nv_tileaa.reduce"(%e) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%a: f32, %b: f32):
      %r = nv_tileaa.addf %a, %b : f32
      "nv_tileaa.yield"(%r) : (f32) -> ()
    }) : (tensor<1x1024xf32>) -> tensor<1xf32>
    %s2 = nv_tileaa.expand_dims %s {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
    %sb = nv_tileaa.broadcast %s2 : tensor<1x1xf32> -> tensor<1x1024xf32>
    %q = nv_tileaa.divf %e, %sb : tensor<1x1024xf32>
    %h = nv_tileaa.fp_to_fp %q {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xf32> -> tensor<1x1024xf16>
    %vy = nv_tileaa.block_tile %y : !m -> !v
    %t2 = nv_tileaa.tiled_store %h, %vy[%row, %c0] token %tok : tensor<1x1024xf16>, !v [i32, i32]
    nv_tileaa.return
  }
}
// ASSIGN: nv_tileaa.func @softmax{{.*}}nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [8], lanes = [32], warps = [1], order = [0]>
// ASSIGN: nv_tileaa.tiled_load {{.*}}nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 8], lanes = [1, 32], warps = [1, 1], order = [1, 0]>{{.*}} -> tensor<1x1024xf16>
// ASSIGN: "nv_tileaa.reduce"(%{{.*}}) <{{.*}}> ({
// ASSIGN: }) {nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 8], lanes = [1, 32], warps = [1, 1], order = [1, 0]>} : (tensor<1x1024xf32>) -> tensor<1xf32>
// ASSIGN: nv_tileaa.expand_dims {{.*}}nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 1], lanes = [32, 1], warps = [1, 1], order = [1, 0]>, nv_tileaa.source_layout = #nv_tileaa.blocked<elems = [1], lanes = [32], warps = [1], order = [0]>
// ASSIGN: }) {nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 8], lanes = [1, 32], warps = [1, 1], order = [1, 0]>} : (tensor<1x1024xf32>) -> tensor<1xf32>
// ASSIGN: nv_tileaa.tiled_store {{.*}}nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 8], lanes = [1, 32], warps = [1, 1], order = [1, 0]>{{.*}} : tensor<1x1024xf16>
// REMOVE: nv_tileaa.expand_dims
// REMOVE-NOT: source_layout
// REMOVE-SAME: tensor<1xf32> -> tensor<1x1xf32>
// REMOVE: nv_tileaa.expand_dims
// REMOVE-NOT: source_layout
// REMOVE-SAME: tensor<1xf32> -> tensor<1x1xf32>
// The lowering follows: 32 threads, one 16-byte vector load and store per run (4 runs), the
// reductions warp shuffles only (no scratch, no bar.sync)
// SIMT-LABEL: func.func @softmax
// SIMT-SAME: nvvm.maxntid = array<i32: 32, 1, 1>
// SIMT-COUNT-4: ld.global.v4.b32
// SIMT-NOT: nvvm.barrier
// SIMT: llvm.nvvm.shfl.sync.bfly
// SIMT-NOT: nvvm.barrier
// SIMT: llvm.store {{.*}} <alignment = 16> : vector<8xf16>, !llvm.ptr<1>

// -----

// Row sum of 4 x 1024 bf16 tiles in a loop, no warps hint: one run per thread of the largest
// vector-accessed tile (4096 / 8 = 512 threads): each row across 4 warps (a long row), the 4
// rows on 4 groups of warps; the 4-element result store is one element per thread (threads 4..
// hold nothing) and the accumulator's layout follows its shape alone.
!m = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 4, 1024>, array<i32: 4, 1024>, array<i32: 0, 1>, !m>
!mo = !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
!vo = !nv_tileaa.tiled_view<array<i32: 4>, array<i32: 4>, array<i32: 0>, !mo>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @row_sum(%px: !nv_tileaa.ptr<bf16>, %py: !nv_tileaa.ptr<f32>, %rows: i32, %cols: i32, %i: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_warps_auto} {
    %tok = nv_tileaa.create_mem_token
    %x = nv_tileaa.make_memref %px[%rows, %cols] [%cols] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !m
    %y = nv_tileaa.make_memref %py[%rows] [] : !nv_tileaa.ptr<f32>[i32] [] -> !mo
    %zero = arith.constant dense<0.000000e+00> : tensor<4xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %vx = nv_tileaa.block_tile %x : !m -> !v
    %acc = scf.for %j = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<4xf32>) : i32 {
      %t, %t1 = nv_tileaa.tiled_load %vx[%i, %j] token %tok : !v [i32, i32] -> tensor<4x1024xbf16>
      %f = nv_tileaa.fp_to_fp %t {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<4x1024xbf16> -> tensor<4x1024xf32>
      %s = "nv_tileaa.reduce"(%f) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %r = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%r) : (f32) -> ()
      }) : (tensor<4x1024xf32>) -> tensor<4xf32>
      %a2 = nv_tileaa.addf %a, %s : tensor<4xf32>
      scf.yield %a2 : tensor<4xf32>
    }
    %vy = nv_tileaa.block_tile %y : !mo -> !vo
    %t2 = nv_tileaa.tiled_store %acc, %vy[%i] token %tok : tensor<4xf32>, !vo [i32]
    nv_tileaa.return
  }
}
// ASSIGN: nv_tileaa.func @row_sum{{.*}}nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [8], lanes = [32], warps = [16], order = [0]>
// ASSIGN: nv_tileaa.tiled_load {{.*}}nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 8], lanes = [1, 32], warps = [4, 4], order = [1, 0]>{{.*}} -> tensor<4x1024xbf16>
// ASSIGN: }) {nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 8], lanes = [1, 32], warps = [4, 4], order = [1, 0]>} : (tensor<4x1024xf32>) -> tensor<4xf32>
// ASSIGN: nv_tileaa.tiled_store {{.*}}nv_tileaa.layout = #nv_tileaa.blocked<elems = [1], lanes = [32], warps = [16], order = [0]>{{.*}} : tensor<4xf32>
// SIMT-LABEL: func.func @row_sum
// SIMT-SAME: nvvm.maxntid = array<i32: 512, 1, 1>

// -----

// Short rows under the program's own warps hint (kernel_spec: 2 warps, kept): 64 x 8 f32 tiles,
// runs of 4 (16 bytes), 2 lanes per row, 16 rows per warp, 32 per CTA.  A reshape to 512
// elements keeps every element in its thread and slot (its conversion goes); one to 256 x 2
// (runs of 2) moves them (it stays, an exchange through shared memory).
!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 8>, array<i32: 64, 8>, array<i32: 0, 1>, !m>
!m1 = !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
!v1 = !nv_tileaa.tiled_view<array<i32: 512>, array<i32: 512>, array<i32: 0>, !m1>
!v2 = !nv_tileaa.tiled_view<array<i32: 256, 2>, array<i32: 256, 2>, array<i32: 0, 1>, !m>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @rows(%px: !nv_tileaa.ptr<f32>, %py: !nv_tileaa.ptr<f32>, %pz: !nv_tileaa.ptr<f32>, %rows: i32, %i: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 2>} {
    %tok = nv_tileaa.create_mem_token
    %c8 = arith.constant 8 : i32
    %c2 = arith.constant 2 : i32
    %n = arith.muli %rows, %c8 : i32
    %x = nv_tileaa.make_memref %px[%rows, %c8] [%c8] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %y = nv_tileaa.make_memref %py[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !m1
    %z = nv_tileaa.make_memref %pz[%n, %c2] [%c2] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !m
    %c0 = arith.constant 0 : i32
    %vx = nv_tileaa.block_tile %x : !m -> !v
    %t, %t1 = nv_tileaa.tiled_load %vx[%i, %c0] token %tok : !v [i32, i32] -> tensor<64x8xf32>
    %flat = nv_tileaa.reshape %t : tensor<64x8xf32> -> tensor<512xf32>
    %vy = nv_tileaa.block_tile %y : !m1 -> !v1
    %t2 = nv_tileaa.tiled_store %flat, %vy[%i] token %tok : tensor<512xf32>, !v1 [i32]
    %pairs = nv_tileaa.reshape %t : tensor<64x8xf32> -> tensor<256x2xf32>
    %vz = nv_tileaa.block_tile %z : !m -> !v2
    %t3 = nv_tileaa.tiled_store %pairs, %vz[%i, %c0] token %tok : tensor<256x2xf32>, !v2 [i32, i32]
    nv_tileaa.return
  }
}
// ASSIGN: nv_tileaa.func @rows{{.*}}nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [2], order = [0]>
// ASSIGN: nv_tileaa.tiled_load {{.*}}nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 4], lanes = [16, 2], warps = [2, 1], order = [1, 0]>{{.*}} -> tensor<64x8xf32>
// ASSIGN: nv_tileaa.reshape {{.*}}nv_tileaa.layout = #nv_tileaa.blocked<elems = [4], lanes = [32], warps = [2], order = [0]>, nv_tileaa.source_layout = #nv_tileaa.blocked<elems = [1, 4], lanes = [16, 2], warps = [2, 1], order = [1, 0]>{{.*}} -> tensor<512xf32>
// ASSIGN: nv_tileaa.reshape {{.*}}nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 2], lanes = [32, 1], warps = [2, 1], order = [1, 0]>, nv_tileaa.source_layout = #nv_tileaa.blocked<elems = [1, 4], lanes = [16, 2], warps = [2, 1], order = [1, 0]>{{.*}} -> tensor<256x2xf32>
// REMOVE: nv_tileaa.reshape
// REMOVE-NOT: source_layout
// REMOVE-SAME: -> tensor<512xf32>
// REMOVE: nv_tileaa.reshape {{.*}}nv_tileaa.source_layout = #nv_tileaa.blocked<elems = [1, 4], lanes = [16, 2], warps = [2, 1], order = [1, 0]>{{.*}} -> tensor<256x2xf32>
// SIMT-LABEL: func.func @rows
// SIMT-SAME: nvvm.maxntid = array<i32: 64, 1, 1>
// SIMT-NOT: : f32, !llvm.ptr<3>
// SIMT: llvm.store {{.*}} <alignment = 16> : vector<4xf32>, !llvm.ptr<1>
// SIMT: nvvm.barrier
// SIMT: llvm.store {{.*}} : f32, !llvm.ptr<3>
// Without tileas-remove-layout-conversions the first reshape still converts: the lowering
// exchanges its tile through shared memory before the first store
// KEEP-LABEL: func.func @rows
// KEEP: llvm.store {{.*}} : f32, !llvm.ptr<3>
// KEEP: llvm.store {{.*}} <alignment = 16> : vector<4xf32>, !llvm.ptr<1>
