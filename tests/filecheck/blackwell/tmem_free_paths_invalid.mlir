// Tensor memory freed on one path only (convert-blackwell-cluster-emitters, check_frees_on_every_path; sweep 34:
// compiled).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p convert-blackwell-cluster-emitters | filecheck %s

// The alloc runs in every CTA; the dealloc only where %leader holds.
module attributes {cutlass.target = "sm_100a"} {
  func.func @k(%slot: !llvm.ptr<3>, %t: !llvm.ptr<6>, %leader: i1) attributes {nvvm.kernel} {
    %cols = arith.constant 128 : i32
    nvvm.tcgen05.alloc %slot, %cols : !llvm.ptr<3>, i32
    scf.if %leader {
      nvvm.tcgen05.dealloc %t, %cols : !llvm.ptr<6>, i32
    }
    return
  }
}
// CHECK: tmem_free_paths_invalid.mlir:9:5: error: tensor memory allocated here is not freed on every path on which it is allocated: the tcgen05.dealloc at {{.*}}tmem_free_paths_invalid.mlir:11:7 (and any other) sits on a branch such a path may not take

// -----

// The alloc under %a, the dealloc under a different condition %b.
module attributes {cutlass.target = "sm_100a"} {
  func.func @k(%slot: !llvm.ptr<3>, %t: !llvm.ptr<6>, %a: i1, %b: i1) attributes {nvvm.kernel} {
    %cols = arith.constant 128 : i32
    scf.if %a {
      nvvm.tcgen05.alloc %slot, %cols : !llvm.ptr<3>, i32
    }
    scf.if %b {
      nvvm.tcgen05.dealloc %t, %cols : !llvm.ptr<6>, i32
    }
    return
  }
}
// CHECK: tmem_free_paths_invalid.mlir:25:7: error: tensor memory allocated here is not freed on every path

// -----

// The dealloc in the else branch of the alloc's own condition: the allocating path never frees.
module attributes {cutlass.target = "sm_100a"} {
  func.func @k(%slot: !llvm.ptr<3>, %t: !llvm.ptr<6>, %a: i1) attributes {nvvm.kernel} {
    %cols = arith.constant 128 : i32
    scf.if %a {
      nvvm.tcgen05.alloc %slot, %cols : !llvm.ptr<3>, i32
    } else {
      nvvm.tcgen05.dealloc %t, %cols : !llvm.ptr<6>, i32
    }
    return
  }
}
// CHECK: tmem_free_paths_invalid.mlir:42:7: error: tensor memory allocated here is not freed on every path
