// The atoms on their own (no cutlass ops): thread 0 initialises one mbarrier, arms it with
// arrive.expect_tx(%bytes) and bulk-copies %bytes from %src into dynamic shared memory; every
// thread waits on the barrier (phase 0), then copies the shared words to %dst.
// Launch: 1 CTA, 128 threads, dynamic smem = 16 + %bytes.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @bulk_copy(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>, %bytes: i32) attributes {nvvm.kernel} {
    %smem = atom.dynamic_smem : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %ticks = arith.constant 10000000 : i32
    %bar = llvm.getelementptr %smem[%c0] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
    %data = llvm.getelementptr %smem[%c2] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %ntid = nvvm.read.ptx.sreg.ntid.x : i32
    %leader = arith.cmpi eq, %tid, %c0 : i32
    scf.if %leader {
      nvvm.mbarrier.init %bar, %c1 : !llvm.ptr<3>, i32
    }
    nvvm.barrier
    scf.if %leader {
      nvvm.mbarrier.arrive.expect_tx %bar, %bytes : !llvm.ptr<3>, i32
      atom.bulk_copy_g2s %data, %src, %bar, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
    }
    nvvm.mbarrier.try_wait.parity %bar, %c0, %ticks : !llvm.ptr<3>, i32, i32
    %words = arith.divui %bytes, %c4 : i32
    scf.for %i = %tid to %words step %ntid : i32 {
      %sp = llvm.getelementptr %data[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
      %v = llvm.load %sp : !llvm.ptr<3> -> i32
      %gp = llvm.getelementptr %dst[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      llvm.store %v, %gp : i32, !llvm.ptr<1>
    }
    func.return
  }
}
