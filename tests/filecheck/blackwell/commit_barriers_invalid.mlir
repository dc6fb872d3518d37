// The mbarriers a 2-CTA tcgen05.commit arrives on (convert-blackwell-cluster-emitters, check_commit_barriers;
// sweep 34: each of these compiled).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p convert-blackwell-cluster-emitters | filecheck %s

// A barrier a cta_group::2 commit arrives on, initialised for one CTA (no cluster fence / sync after the init).
module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  func.func @k() attributes {nvvm.kernel} {
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    cute_nvgpu.arch.mbarrier_init %b {cta_group = 1 : i32, count = 1 : i32} : !llvm.ptr<3>
    %m = arith.constant 3 : i16
    nvvm.tcgen05.commit %b, multicast_mask = %m group = <cta_2> : !llvm.ptr<3>, i16
    return
  }
}
// CHECK: commit_barriers_invalid.mlir:10:5: error: this mbarrier is initialised for one CTA (cta_group = 1: the init is synchronised inside the CTA only), but the nvvm.tcgen05.commit at {{.*}}commit_barriers_invalid.mlir:12:5 is a CTA-pair (cta_group::2) operation

// -----

// A 2-CTA S2T copy committed to a barrier initialised for one CTA.
module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  func.func @k(%t: !llvm.ptr<6>, %d: i64) attributes {nvvm.kernel} {
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    cute_nvgpu.arch.mbarrier_init %b {cta_group = 1 : i32, count = 1 : i32} : !llvm.ptr<3>
    cute_nvgpu.atom.s2t_copy %t, %d, %b {cta_group = 2 : i32, cols = 64 : i32, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>} : !llvm.ptr<6>, !llvm.ptr<3>
    return
  }
}
// CHECK: commit_barriers_invalid.mlir:25:5: error: this mbarrier is initialised for one CTA {{.*}} but the cute_nvgpu.atom.s2t_copy at {{.*}}:26:5 is a CTA-pair

// -----

// Every CTA waits on the barrier, but the commit's mask names CTA 0 only: CTA 1 waits forever.
module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  func.func @k(%issue: i1) attributes {nvvm.kernel} {
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %ticks = arith.constant 1000 : i32
    cute_nvgpu.arch.mbarrier_init %b {cta_group = 2 : i32, count = 1 : i32} : !llvm.ptr<3>
    scf.if %issue {
      %m = arith.constant 1 : i16
      nvvm.tcgen05.commit %b, multicast_mask = %m group = <cta_2> : !llvm.ptr<3>, i16
    }
    nvvm.mbarrier.try_wait.parity %b, %c0, %ticks : !llvm.ptr<3>, i32, i32
    return
  }
}
// CHECK: commit_barriers_invalid.mlir:44:7: error: tcgen05.commit multicast mask 0b0001 arrives on this mbarrier in CTA(s) 0 only, but every CTA of the 2-CTA cluster waits on it (nvvm.mbarrier.try_wait.parity at {{.*}}:46:5): CTA 1 would wait forever

// -----

// A mask bit past the cluster (the kernel's nvvm.cluster_dim: 2 CTAs).
module attributes {cutlass.target = "sm_100a"} {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  func.func @k() attributes {nvvm.kernel, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %m = arith.constant 4 : i16
    nvvm.tcgen05.commit %b, multicast_mask = %m group = <cta_2> : !llvm.ptr<3>, i16
    return
  }
}
// CHECK: commit_barriers_invalid.mlir:60:5: error: tcgen05.commit multicast mask 0b0100 names CTA 2, but the cluster has 2 CTAs
