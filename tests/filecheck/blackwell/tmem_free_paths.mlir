// Tensor memory freed on every path the alloc ran on: accepted (convert-blackwell-cluster-emitters,
// check_frees_on_every_path).
// RUN: tileorch-opt %s --split-input-file -p convert-blackwell-cluster-emitters | filecheck %s

// Alloc and dealloc under one condition value (the 2-CTA example's warp 0).
module attributes {cutlass.target = "sm_100a"} {
  func.func @same_condition(%slot: !llvm.ptr<3>, %t: !llvm.ptr<6>, %a: i1) attributes {nvvm.kernel} {
    %cols = arith.constant 128 : i32
    scf.if %a {
      nvvm.tcgen05.alloc %slot, %cols : !llvm.ptr<3>, i32
    }
    scf.if %a {
      nvvm.tcgen05.dealloc %t, %cols : !llvm.ptr<6>, i32
    }
    return
  }
}
// CHECK-LABEL: func.func @same_condition
// CHECK: nvvm.tcgen05.dealloc

// -----

// The condition recomputed (an equal arith.cmpi of the warp index), and a dealloc on both branches of another if.
module attributes {cutlass.target = "sm_100a"} {
  func.func @recomputed_and_both_branches(%slot: !llvm.ptr<3>, %t: !llvm.ptr<6>, %b: i1) attributes {nvvm.kernel} {
    %cols = arith.constant 128 : i32
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %warp = arith.divui %tid, %c32 : i32
    %w0 = arith.cmpi eq, %warp, %c0 : i32
    scf.if %w0 {
      nvvm.tcgen05.alloc %slot, %cols : !llvm.ptr<3>, i32
    }
    %w0_again = arith.cmpi eq, %warp, %c0 : i32
    scf.if %w0_again {
      scf.if %b {
        nvvm.tcgen05.dealloc %t, %cols : !llvm.ptr<6>, i32
      } else {
        nvvm.tcgen05.dealloc %t, %cols : !llvm.ptr<6>, i32
      }
    }
    return
  }
}
// CHECK-LABEL: func.func @recomputed_and_both_branches
// CHECK-COUNT-2: nvvm.tcgen05.dealloc

// -----

// One branch frees with the op, the other with inline asm spelling tcgen05.dealloc (session 42's final read: the
// inline-asm free was not counted, a false "not freed on every path").
module attributes {cutlass.target = "sm_100a"} {
  func.func @asm_branch(%slot: !llvm.ptr<3>, %t: !llvm.ptr<6>, %b: i1, %ta: i32) attributes {nvvm.kernel} {
    %cols = arith.constant 128 : i32
    nvvm.tcgen05.alloc %slot, %cols : !llvm.ptr<3>, i32
    scf.if %b {
      nvvm.tcgen05.dealloc %t, %cols : !llvm.ptr<6>, i32
    } else {
      llvm.inline_asm has_side_effects "tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, $1;", "r,r" %ta, %cols : (i32, i32) -> ()
    }
    return
  }
}
// CHECK-LABEL: func.func @asm_branch
// CHECK: llvm.inline_asm has_side_effects "tcgen05.dealloc
