// Kernel attribute rules that had no negative test (tools/untested_diagnostics.py, session 17): a
// non-integer nvvm.maxnreg, and a kernel cluster_dim other than the module's cluster_shape when the
// kernel uses cutlass ops (their lowerings read the module's shape).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{nvvm.maxnreg must be an integer (registers per thread), found "64"}}
func.func @k() attributes {nvvm.kernel, nvvm.maxnreg = "64"} {
  func.return
}

// -----

builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  // expected-error @+1 {{nvvm.cluster_dim = [1, 1, 1] differs from the module's cutlass.cluster_shape = [2, 1, 1]; the cluster-aware lowerings (arrive counts, multicast masks) use the module's shape}}
  func.func @k(%smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.cluster_dim = array<i32: 1, 1, 1>} {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    func.return
  }
}
