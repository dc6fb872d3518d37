// RUN: tileorch-opt %s -p 'bound-barrier-waits{debug-timeout=500}' | filecheck %s
// RUN: tileorch-opt %s -p 'bound-barrier-waits' | filecheck %s --check-prefix=OFF
// bound-barrier-waits: a blocking mbarrier wait (as the chained-dots kernel emits it) becomes a
// counted loop of non-blocking tries that reports and traps after N polls; the report names the
// barrier (tileorch.wait_site), its stage (tileorch.wait_ring: the address is gep(base, stage * 8
// + ring)) or else its shared address, and the phase.  A spin loop marked tileorch.spin_site gets
// a poll counter.  debug-timeout=0 (the default) changes nothing.
builtin.module {
  func.func @k(%smem: !llvm.ptr<3>, %st: i32, %ph: i32, %lock: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %hint = arith.constant 10000000 : i32
    %off0 = arith.muli %st, %c8 : i32
    %off = arith.addi %off0, %c64 : i32
    %bar = llvm.getelementptr %smem[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    nvvm.mbarrier.try_wait.parity %bar, %ph, %hint {tileorch.wait_site = "chained-dots kernel @k: K/V ring full barrier", tileorch.wait_ring = 64 : i32} : !llvm.ptr<3>, i32, i32
    nvvm.mbarrier.try_wait.parity %smem, %ph, %hint : !llvm.ptr<3>, i32, i32
    scf.while () : () -> () {
      %v = llvm.load %lock : !llvm.ptr<1> -> i32
      %z = arith.constant 0 : i32
      %again = arith.cmpi ne, %v, %z : i32
      scf.condition(%again)
    } do {
      scf.yield
    } attributes {tileorch.spin_site = "the print lock"}
    func.return
  }
}
// CHECK-DAG:  llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG:  llvm.mlir.global internal constant @{{.*}}("tileorch: timeout after 500 polls waiting on chained-dots kernel @k: K/V ring full barrier {{.*}}bound_barrier_waits.mlir:16:5: stage %d, phase %d (block %d, thread %d)\0A\00")
// CHECK-DAG:  llvm.mlir.global internal constant @{{.*}}("tileorch: timeout after 500 polls waiting on mbarrier wait {{.*}}bound_barrier_waits.mlir:17:5: shared address %d, phase %d (block %d, thread %d)\0A\00")
// CHECK-DAG:  llvm.mlir.global internal constant @{{.*}}("tileorch: timeout after 500 polls waiting on the print lock {{.*}}bound_barrier_waits.mlir:18:5 (block %d, thread %d)\0A\00")
// CHECK-LABEL: func.func @k
// CHECK-NOT:  nvvm.mbarrier.try_wait.parity
// the ring's stage: (off - 64) / 8
// CHECK:      %[[RING:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: %[[REL:.*]] = llvm.sub %off, %[[RING]] : i32
// CHECK-NEXT: %[[EIGHT:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[STAGE:.*]] = llvm.udiv %[[REL]], %[[EIGHT]] : i32
// CHECK:      scf.while (%[[N:.*]] = %{{.*}}) : (i32) -> i32 {
// CHECK-NEXT:   %[[OK:.*]] = nvvm.mbarrier.try_wait %bar, %ph, %hint : !llvm.ptr<3>, i32, i32 -> i1
// CHECK:        scf.condition(%{{.*}}) %[[N]] : i32
// CHECK:        llvm.icmp "uge" %{{.*}}, %{{.*}} : i32
// CHECK:        llvm.call @vprintf
// CHECK:        llvm.inline_asm has_side_effects "trap;"
// the unnamed wait: its shared address
// CHECK:      llvm.ptrtoint %smem : !llvm.ptr<3> to i32
// CHECK:      nvvm.mbarrier.try_wait %smem, %ph, %hint
// CHECK:      llvm.inline_asm has_side_effects "trap;"
// the marked spin: the load and the test move into the counted loop
// CHECK:      scf.while (%{{.*}} = %{{.*}}) : (i32) -> i32 {
// CHECK-NEXT:   llvm.load %lock
// CHECK:        arith.cmpi ne
// CHECK:        llvm.inline_asm has_side_effects "trap;"
// CHECK-NOT:  tileorch.spin_site
// OFF:        nvvm.mbarrier.try_wait.parity %bar, %ph, %hint {tileorch.wait_site
// OFF:        nvvm.mbarrier.try_wait.parity %smem
// OFF:        tileorch.spin_site = "the print lock"
// OFF-NOT:    trap
