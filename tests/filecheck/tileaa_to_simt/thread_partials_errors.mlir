// RUN: tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt --verify-diagnostics

// thread_partial is taken on reductions to one element only: elsewhere it is a located error.
builtin.module {
  nv_tileaa.func @partial_many(%f: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %x = nv_tileaa.splat %f : f32 -> tensor<1x512xf32>
    // expected-error @+1 {{thread_partial on a reduction to more than one element}}
    %c = "nv_tileaa.reduce"(%x) <{dim = 0 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      %m = nv_tileaa.maxf %p, %q : f32
      "nv_tileaa.yield"(%m) : (f32) -> ()
    }) {tileorch.simt.thread_partial} : (tensor<1x512xf32>) -> tensor<512xf32>
    %d = nv_tileaa.extract %c {indices = array<i32: 0>} : tensor<512xf32> -> f32
    nv_tileaa.return
  }
}
