// The valid forms check_commit_barriers accepts (convert-blackwell-cluster-emitters).
// RUN: tileorch-opt %s --split-input-file -p convert-blackwell-cluster-emitters | filecheck %s

// Both CTAs' barriers initialised for the pair and named by the mask: accepted, the init fenced to the cluster.
module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  func.func @pair(%issue: i1) attributes {nvvm.kernel} {
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %ticks = arith.constant 1000 : i32
    cute_nvgpu.arch.mbarrier_init %b {cta_group = 2 : i32, count = 1 : i32} : !llvm.ptr<3>
    scf.if %issue {
      %m = arith.constant 3 : i16
      nvvm.tcgen05.commit %b, multicast_mask = %m group = <cta_2> : !llvm.ptr<3>, i16
    }
    nvvm.mbarrier.try_wait.parity %b, %c0, %ticks : !llvm.ptr<3>, i32, i32
    return
  }
}
// CHECK-LABEL: func.func @pair
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.tcgen05.commit

// -----

// Mask 1 where only CTA 0 waits (the wait under a rank test): not a hang, accepted; a one-CTA barrier signalled by
// a cta_group::1 commit is initialised for one CTA.
module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  func.func @only_cta0_waits(%issue: i1, %cta0: i1) attributes {nvvm.kernel} {
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %ticks = arith.constant 1000 : i32
    cute_nvgpu.arch.mbarrier_init %b {cta_group = 1 : i32, count = 1 : i32} : !llvm.ptr<3>
    scf.if %issue {
      %m = arith.constant 1 : i16
      nvvm.tcgen05.commit %b, multicast_mask = %m : !llvm.ptr<3>, i16
    }
    scf.if %cta0 {
      nvvm.mbarrier.try_wait.parity %b, %c0, %ticks : !llvm.ptr<3>, i32, i32
    }
    return
  }
}
// CHECK-LABEL: func.func @only_cta0_waits
// CHECK: nvvm.tcgen05.commit

// -----

// The kernel's nvvm.cluster_dim (4 CTAs) takes precedence over the module's cutlass.cluster_shape (2) for a kernel
// without cutlass ops (docs/backend.md, docs/blackwell.md): legal.  Each pair leader's mask is computed from its rank
// (0b11 << (rank & ~1)), so every waiting CTA gets its arrival: accepted, not decided statically.
module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  func.func @kernel_cluster_dim_wins(%issue: i1) attributes {nvvm.kernel, nvvm.cluster_dim = array<i32: 4, 1, 1>} {
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %ticks = arith.constant 1000 : i32
    cute_nvgpu.arch.mbarrier_init %b {cta_group = 2 : i32, count = 1 : i32} : !llvm.ptr<3>
    scf.if %issue {
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %not1 = arith.constant -2 : i32
      %even = arith.andi %rank, %not1 : i32
      %three = arith.constant 3 : i32
      %m32 = arith.shli %three, %even : i32
      %m = arith.trunci %m32 : i32 to i16
      nvvm.tcgen05.commit %b, multicast_mask = %m group = <cta_2> : !llvm.ptr<3>, i16
    }
    nvvm.mbarrier.try_wait.parity %b, %c0, %ticks : !llvm.ptr<3>, i32, i32
    return
  }
}
// CHECK-LABEL: func.func @kernel_cluster_dim_wins
// CHECK: nvvm.tcgen05.commit

// -----

// Mask 1 while both CTAs wait, but the barrier is also arrived on by CTA 1's own threads (an mbarrier.arrive): the
// arrivals are not all known, so the mask is not judged.
module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  func.func @other_arrivals(%issue: i1, %cta1: i1) attributes {nvvm.kernel} {
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %ticks = arith.constant 1000 : i32
    cute_nvgpu.arch.mbarrier_init %b {cta_group = 2 : i32, count = 1 : i32} : !llvm.ptr<3>
    scf.if %issue {
      %m = arith.constant 1 : i16
      nvvm.tcgen05.commit %b, multicast_mask = %m group = <cta_2> : !llvm.ptr<3>, i16
    }
    scf.if %cta1 {
      %s = nvvm.mbarrier.arrive %b : !llvm.ptr<3> -> i64
    }
    nvvm.mbarrier.try_wait.parity %b, %c0, %ticks : !llvm.ptr<3>, i32, i32
    return
  }
}
// CHECK-LABEL: func.func @other_arrivals
// CHECK: nvvm.mbarrier.arrive
