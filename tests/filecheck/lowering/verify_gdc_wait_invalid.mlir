// RUN: tileorch-opt %s -p verify-gdc-wait --verify-diagnostics --split-input-file
// verify-gdc-wait: a kernel holding griddepcontrol.wait (compiled for programmatic dependent launch) must
// execute it before every global-memory access on each path, and before its return.

// the wait moved after a load
builtin.module {
  func.func @after_load(%in: !llvm.ptr<1>) attributes {nvvm.kernel} {
    // expected-error @+1 {{'llvm.load' through a pointer in address space 1 reached before griddepcontrol.wait on some path of kernel 'after_load' (programmatic dependent launch: the previous kernel's writes may not be visible yet)}}
    %v = llvm.load %in : !llvm.ptr<1> -> i32
    nvvm.griddepcontrol wait
    func.return
  }
}

// -----

// waited in one branch only; the TMA load after the branch
builtin.module {
  func.func @one_branch(%tmap: !llvm.ptr, %c: i1, %dst: !llvm.ptr<7>, %bar: !llvm.ptr<3>, %x: i32) attributes {nvvm.kernel} {
    scf.if %c {
      nvvm.griddepcontrol wait
    }
    // expected-error @+1 {{'nvvm.cp.async.bulk.tensor.shared.cluster.global' reached before griddepcontrol.wait on some path of kernel 'one_branch'}}
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %bar, box[%x] : !llvm.ptr<7>, !llvm.ptr
    func.return
  }
}

// -----

// waited inside a loop after its store: the first iteration stores first
builtin.module {
  func.func @in_loop(%out: !llvm.ptr, %n: index) attributes {nvvm.kernel} {
    %lb = arith.constant 0 : index
    %st = arith.constant 1 : index
    %c1 = arith.constant 1 : i32
    scf.for %i = %lb to %n step %st {
      // expected-error @+1 {{'llvm.store' through a pointer in address space 0 reached before griddepcontrol.wait}}
      llvm.store %c1, %out : i32, !llvm.ptr
      nvvm.griddepcontrol wait
    }
    func.return
  }
}

// -----

// a global load in inline asm; a generic prefetch (not a kernel parameter's tensor map)
builtin.module {
  func.func @asm(%p: i64) attributes {nvvm.kernel} {
    // expected-error @+1 {{inline asm 'ld.global.nc.u32' reached before griddepcontrol.wait}}
    %v = llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Ald.global.nc.u32 $0, [$1];\0A}", "=r,l" %p : (i64) -> i32
    nvvm.griddepcontrol wait
    func.return
  }
}

// -----

// the return reached without a wait on the else path
builtin.module {
  func.func @return_unwaited(%c: i1) attributes {nvvm.kernel} {
    scf.if %c {
      nvvm.griddepcontrol wait
    }
    // expected-error @+1 {{the kernel's return reached before griddepcontrol.wait on some path of kernel 'return_unwaited'}}
    func.return
  }
}
