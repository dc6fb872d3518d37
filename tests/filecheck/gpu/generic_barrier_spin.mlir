// Regression (GPU conformance kernels gbar_*): the leader's acquire-load spin of
// generic_barrier.wait_eq / wait_less_than must survive the lowering.  An `llvm.load ... atomic
// acquire` that reports only a read effect made the spin loop (scf.while inside scf.if) dead, so
// the greedy rewriter erased it and the CTA never waited: on the GPU the turnstile accumulator and
// the words read after the grid barrier came out wrong.  (Fixed by polling through a side-effecting
// `ld.global.acquire.gpu`.)
// RUN: tileorch-opt %s -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @turnstile(%lock: !llvm.ptr<1>, %me: i32, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec cta mask(1) threads(128) {
      cutlass.generic_barrier.wait_eq %lock[%c0], %me : !llvm.ptr<1>
      cutlass.generic_barrier.arrive_increment %lock[%c0] : !llvm.ptr<1>
      cutlass.generic_barrier.wait_less_than %lock[%c1], %n : !llvm.ptr<1>
    }
    func.return
  }
}

// CHECK-LABEL: func.func @turnstile
// CHECK:       scf.while
// CHECK:         {{ld.global.acquire.gpu|atomic syncscope\("device"\) acquire}}
// CHECK:       nvvm.barrier
// CHECK:       llvm.atomicrmw add
// CHECK:       scf.while
// CHECK:         {{ld.global.acquire.gpu|atomic syncscope\("device"\) acquire}}
// CHECK:       nvvm.barrier
