// RUN: tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt --verify-diagnostics | filecheck %s
// RUN: env TILEORCH_SIMT_REDUCE_EXCHANGE=1 tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt --verify-diagnostics | filecheck %s --check-prefix=EXCHANGE

// A full reduction of a (1, 512) tile, as cuTile emits `ct.max(x)`: first the unit dimension
// (512 results, each the one element of its column: every thread already holds its own, the
// result's layout is the source's), then the 512 elements.  The first reduction moves nothing:
// the only barriers are the second's (its eight warps' partials); before, the first reduction
// wrote each thread's two slots to shared memory and read them back between two barriers.
// CHECK-LABEL: func.func @full_max
// CHECK-SAME: tileorch.thread_local_reductions = 1 : i32
// CHECK-NOT: nvvm.barrier
// CHECK-COUNT-5: llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"
// CHECK: nvvm.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK-NOT: nvvm.barrier
// CHECK: func.return
// EXCHANGE-LABEL: func.func @full_max
// EXCHANGE-NOT: tileorch.thread_local_reductions
// EXCHANGE: nvvm.barrier
// EXCHANGE-COUNT-2: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// EXCHANGE: nvvm.barrier
// EXCHANGE-COUNT-5: llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"
builtin.module {
  nv_tileaa.func @full_max(%f: f32, %g: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %x0 = nv_tileaa.splat %f : f32 -> tensor<1x512xf32>
    %y = nv_tileaa.splat %g : f32 -> tensor<1x512xf32>
    %x = nv_tileaa.mulf %x0, %y : tensor<1x512xf32>
    %c = "nv_tileaa.reduce"(%x) <{dim = 0 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      %m = nv_tileaa.maxf %p, %q : f32
      "nv_tileaa.yield"(%m) : (f32) -> ()
    }) : (tensor<1x512xf32>) -> tensor<512xf32>
    %r = "nv_tileaa.reduce"(%c) <{dim = 0 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      %m = nv_tileaa.maxf %p, %q : f32
      "nv_tileaa.yield"(%m) : (f32) -> ()
    }) : (tensor<512xf32>) -> tensor<f32>
    %e = nv_tileaa.extract %r {indices = array<i32>} : tensor<f32> -> f32
    %d = nv_tileaa.subf %e, %f : f32
    nv_tileaa.return
  }
}

// -----

// A column sum of a (4, 512) tile on 256 threads: a row is one sweep of the threads (two
// elements each), so the four rows of a column lie in one thread's slots: each thread adds its
// four rows per column (three adds per output slot, rows in order) and holds its own two sums.
// No shuffle, no barrier, no shared memory.
// CHECK-LABEL: func.func @column_sum
// CHECK-SAME: tileorch.thread_local_reductions = 1 : i32
// CHECK-COUNT-6: arith.addf
// CHECK-NOT: nvvm.barrier
// CHECK-NOT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"
// CHECK: func.return
// EXCHANGE-LABEL: func.func @column_sum
// EXCHANGE-NOT: tileorch.thread_local_reductions
// EXCHANGE: nvvm.barrier
builtin.module {
  nv_tileaa.func @column_sum(%f: f32, %g: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %x0 = nv_tileaa.splat %f : f32 -> tensor<4x512xf32>
    %y = nv_tileaa.splat %g : f32 -> tensor<4x512xf32>
    %x = nv_tileaa.mulf %x0, %y : tensor<4x512xf32>
    %c = "nv_tileaa.reduce"(%x) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      %m = nv_tileaa.addf %p, %q : f32
      "nv_tileaa.yield"(%m) : (f32) -> ()
    }) : (tensor<4x512xf32>) -> tensor<512xf32>
    %s = nv_tileaa.splat %g : f32 -> tensor<512xf32>
    %d = nv_tileaa.subf %c, %s : tensor<512xf32>
    nv_tileaa.return
  }
}

// -----

// A column sum of a (8, 64) tile on 256 threads: a row spans one warp (two elements a thread),
// so a column's rows lie in eight warps (thread bits inside the reduced dimension): their values
// still meet in shared memory (barrier, store, barrier, each thread adds the column's eight).
// CHECK-LABEL: func.func @column_sum_across_threads
// CHECK-NOT: tileorch.thread_local_reductions
// CHECK: nvvm.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
builtin.module {
  nv_tileaa.func @column_sum_across_threads(%f: f32, %g: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %x0 = nv_tileaa.splat %f : f32 -> tensor<8x64xf32>
    %y = nv_tileaa.splat %g : f32 -> tensor<8x64xf32>
    %x = nv_tileaa.mulf %x0, %y : tensor<8x64xf32>
    %c = "nv_tileaa.reduce"(%x) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      %m = nv_tileaa.addf %p, %q : f32
      "nv_tileaa.yield"(%m) : (f32) -> ()
    }) : (tensor<8x64xf32>) -> tensor<64xf32>
    %s = nv_tileaa.splat %g : f32 -> tensor<64xf32>
    %d = nv_tileaa.subf %c, %s : tensor<64xf32>
    nv_tileaa.return
  }
}
