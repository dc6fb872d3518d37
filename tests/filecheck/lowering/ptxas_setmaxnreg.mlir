// REQUIRES: ptxas
// ptxas reports a dropped setmaxnreg (C7508 here: no nvvm.maxntid + nvvm.minctasm, so the register
// count at entry is unknown) as an info line and succeeds; the kernel would then run without its
// register reallocation. tileorch treats C7504/C7508 as errors naming the kernel.
// RUN: not tileorch compile %s -o %t.ptx 2>&1 | filecheck %s
// RUN: sed -e "s/attributes {nvvm.kernel}/attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 1 : i32}/" %s > %t.bounded.mlir
// RUN: tileorch compile %t.bounded.mlir -o %t.bounded.ptx 2>&1 | filecheck %s --check-prefix=BOUNDED
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @regs(%out: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warpgroup mask(2) regs(232) {
      llvm.store %c1, %out : i32, !llvm.ptr<1>
    }
    func.return
  }
}
// CHECK: error: ptxas ignored setmaxnreg in kernel regs: ptxas info {{.*}}(C7508){{.*}}; setmaxnreg needs the register count at kernel entry: give the kernel nvvm.maxntid and nvvm.minctasm (C7508)
// BOUNDED-NOT: error
// BOUNDED: accepted by ptxas
