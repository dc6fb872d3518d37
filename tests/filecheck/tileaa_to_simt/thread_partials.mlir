// RUN: tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt --verify-diagnostics | filecheck %s

// thread_partial (set by tileaa-hoist-online-softmax's per-thread form) on a reduction to one element:
// each of the 256 threads folds its own two elements of the 512 (one max) and keeps that partial; no
// shuffle, no barrier, no shared memory (the unit-dimension reduction before it moves nothing either).
// CHECK-LABEL: func.func @partial_max
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.call_intrinsic "llvm.maxnum.f32"
// CHECK-NOT: llvm.call_intrinsic "llvm.maxnum.f32"
// CHECK-NOT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"
// CHECK-NOT: nvvm.barrier
// CHECK-NOT: llvm.store
// CHECK: func.return
builtin.module {
  nv_tileaa.func @partial_max(%f: f32, %g: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
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
    }) {tileorch.simt.thread_partial} : (tensor<512xf32>) -> tensor<f32>
    %e = nv_tileaa.extract %r {indices = array<i32>} : tensor<f32> -> f32
    %d = nv_tileaa.subf %e, %f : f32
    nv_tileaa.return
  }
}

// -----

// thread_combine on the first reduction of a sum over a per-thread value broadcast to the tile: each
// thread keeps its first slot and gives 0 for its second (a select-free constant), then the sum crosses
// the threads as any other (five shuffle steps, the warps' partials through shared memory).
// CHECK-LABEL: func.func @combine_sum
// CHECK-SAME: (%[[F:[0-9]+]]: f32)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[MINE:.*]] = arith.addf %[[F]], %[[ZERO]] : f32
// CHECK: arith.bitcast %[[MINE]] : f32 to i32
// CHECK-COUNT-5: llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"
// CHECK: nvvm.barrier
// CHECK: func.return
builtin.module {
  nv_tileaa.func @combine_sum(%f: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %s = nv_tileaa.splat %f : f32 -> tensor<1x1xf32>
    %w = nv_tileaa.broadcast %s : tensor<1x1xf32> -> tensor<1x512xf32>
    %c = "nv_tileaa.reduce"(%w) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      %a = nv_tileaa.addf %p, %q : f32
      "nv_tileaa.yield"(%a) : (f32) -> ()
    }) {tileorch.simt.thread_combine} : (tensor<1x512xf32>) -> tensor<512xf32>
    %r = "nv_tileaa.reduce"(%c) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      %a = nv_tileaa.addf %p, %q : f32
      "nv_tileaa.yield"(%a) : (f32) -> ()
    }) : (tensor<512xf32>) -> tensor<f32>
    %e = nv_tileaa.extract %r {indices = array<i32>} : tensor<f32> -> f32
    %d = nv_tileaa.subf %e, %f : f32
    nv_tileaa.return
  }
}
