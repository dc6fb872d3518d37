// REQUIRES: ptxas
// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa | filecheck %s --check-prefix=AA
// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt > %t.simt.mlir
// RUN: filecheck %s --check-prefix=SIMT < %t.simt.mlir
// RUN: filecheck %s --check-prefix=LINE < %t.simt.mlir
// RUN: tileorch compile %s -o %t.ptx --cubin %t.cubin
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// RUN: python -c "import sys; d = open(sys.argv[1], 'rb').read(); sys.exit(0 if d[16] == 2 else 'relocatable cubin')" %t.cubin

// cuTile's ct.assert_(cond, message): convert-cudatile-to-tileaa keeps it as nv_tileaa.assert; the
// SIMT lowering ANDs the condition over a thread's slots and, where it is false, calls the PTX
// system call __assertfail with the message, the assert's own file and line and the kernel's
// name (constant strings), then traps.  ptxas resolves __assertfail itself: the cubin is an
// executable (ELF type 2), not relocatable code assembled with -c.

cuda_tile.module @m {
  entry @checked(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %x = iota : tile<512xi32>
    %n1 = reshape %n : tile<i32> -> tile<1xi32>
    %nb = broadcast %n1 : tile<1xi32> -> tile<512xi32>
    %ok = cmpi less_than %x, %nb, signed : tile<512xi32> -> tile<512xi1>
    // AA: nv_tileaa.assert %{{.*}}, "x must be below n" : tensor<512xi1>
    // the assert's own line is __assertfail's third argument:
    // LINE: %[[L:.*]] = arith.constant [[# @LINE + 2]] : i32
    // LINE: llvm.call @__assertfail(%{{.*}}, %{{.*}}, %[[L]], %{{.*}}, %{{.*}})
    assert %ok, "x must be below n" : tile<512xi1>
    return
  }
}

// SIMT-DAG: llvm.mlir.global internal constant @[[MSG:__tileorch_str_checked_[0-9]+]]("x must be below n\00")
// SIMT-DAG: llvm.mlir.global internal constant @[[FILE:__tileorch_str_checked_[0-9]+]]("{{.*}}assert_to_simt.mlir\00")
// SIMT-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)
// SIMT: func.func @checked
// SIMT: %[[OK:.*]] = arith.andi
// SIMT: %[[BAD:.*]] = arith.xori %{{.*}}, %{{.*}} : i1
// SIMT: scf.if %[[BAD]]
// SIMT: llvm.mlir.addressof @[[MSG]]
// SIMT: llvm.call @__assertfail(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// SIMT: llvm.inline_asm has_side_effects "trap;"

// PTX: .extern .func __assertfail
// PTX: call.uni __assertfail
// PTX-NEXT: }
// PTX: trap;
