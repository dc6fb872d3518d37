// RUN: tileorch-opt %s --split-input-file -p convert-nvvm-to-llvm | filecheck %s
// The "read before tcgen05.wait <load>" and "tensor memory never freed" rules (sweep 34) accept the other spellings
// of the wait and the free (session 42's review: both refused these valid kernels): a wait written as inline asm,
// and a dealloc in a helper the kernel calls with llvm.call.

// CHECK-LABEL: llvm.func @asm_wait(
// CHECK:         llvm.call_intrinsic "llvm.nvvm.tcgen05.ld.32x32b.x4"
// CHECK-NEXT:    llvm.inline_asm has_side_effects "tcgen05.wait::ld.sync.aligned;"
// CHECK-NEXT:    llvm.store
llvm.func @asm_wait(%t: !llvm.ptr<6>, %out: !llvm.ptr<1>) {
  %v = nvvm.tcgen05.ld %t shape = shape_32x32b : vector<4xi32>
  llvm.inline_asm has_side_effects "tcgen05.wait::ld.sync.aligned;", ""  : () -> ()
  llvm.store %v, %out : vector<4xi32>, !llvm.ptr<1>
  llvm.return
}

// -----

// CHECK-LABEL: llvm.func @k(
// CHECK:         llvm.call @free_tmem(
llvm.func @free_tmem(%a: !llvm.ptr<6>, %n: i32) {
  nvvm.tcgen05.dealloc %a, %n : !llvm.ptr<6>, i32
  llvm.return
}
llvm.func @k(%slot: !llvm.ptr<3>, %a: !llvm.ptr<6>, %n: i32) attributes {nvvm.kernel} {
  nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  llvm.call @free_tmem(%a, %n) : (!llvm.ptr<6>, i32) -> ()
  llvm.return
}

// -----

// CHECK-LABEL: llvm.func @asm_free(
// CHECK:         llvm.inline_asm has_side_effects "tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, $1;"
llvm.func @asm_free(%slot: !llvm.ptr<3>, %a: i32, %n: i32) attributes {nvvm.kernel} {
  nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  llvm.inline_asm has_side_effects "tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, $1;", "r,r" %a, %n : (i32, i32) -> ()
  llvm.return
}
