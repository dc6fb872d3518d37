// RUN: tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm | filecheck %s
// OrderedSequenceBarrier<Depth, Length> (cutlass-semantics.md §2.7): barrier[d][g] = word d*L + g;
// state.create {0, g == 0 ? 1 : 0, 0}; wait = barrier[index][g].wait(phase);
// arrive = barrier[index][(g + 1) % L].arrive() by every thread, then ++state (flip on wrap at D).

builtin.module {
  func.func @seq(%smem: !llvm.ptr<3>, %g: i32) {
    %sb = cutlass.seq_bar.create storage(%smem : !llvm.ptr<3>) : !cutlass.seq_bar<depth = 2, length = 3>
    %r = cutlass.seq_bar.init %sb group_size(128)
    %st = cutlass.seq_bar.state.create %r group(%g)
    cutlass.seq_bar.wait %r, %st group(%g)
    %st1 = cutlass.seq_bar.arrive %r, %st group(%g)
    func.return
  }
}
// CHECK-LABEL: func.func @seq
// CHECK-COUNT-6: nvvm.mbarrier.init
// CHECK:      nvvm.barrier{{$}}
// state.create
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[G0:.*]] = llvm.icmp "eq" %g, %[[Z]] : i32
// CHECK-NEXT: %[[I0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[P0:.*]] = llvm.zext %[[G0]] : i1 to i32
// CHECK-NEXT: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(i32, i32, i32)>
// CHECK-NEXT: %[[S1:.*]] = llvm.insertvalue %[[I0]], %[[U]][0]
// CHECK-NEXT: %[[S2:.*]] = llvm.insertvalue %[[P0]], %[[S1]][1]
// CHECK-NEXT: %[[ST:.*]] = llvm.insertvalue %[[C0]], %[[S2]][2]
// wait: word index*3 + g, parity phase & 1
// CHECK-NEXT: %[[I:.*]] = llvm.extractvalue %[[ST]][0]
// CHECK-NEXT: %[[P:.*]] = llvm.extractvalue %[[ST]][1]
// CHECK-NEXT: %[[L:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[ROW:.*]] = llvm.mul %[[I]], %[[L]] : i32
// CHECK-NEXT: %[[SLOT:.*]] = llvm.add %[[ROW]], %g : i32
// CHECK-NEXT: %[[A:.*]] = llvm.getelementptr %smem[%[[SLOT]]]
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[PAR:.*]] = llvm.and %[[P]], %[[ONE]] : i32
// CHECK-NEXT: %[[H:.*]] = llvm.mlir.constant(10000000 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[A]], %[[PAR]], %[[H]]
// arrive: word index*3 + (g + 1) % 3, plain local arrive
// CHECK-NEXT: %[[I2:.*]] = llvm.extractvalue %[[ST]][0]
// CHECK-NEXT: %[[L2:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[ROW2:.*]] = llvm.mul %[[I2]], %[[L2]] : i32
// CHECK-NEXT: %[[ONE2:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[GP:.*]] = llvm.add %g, %[[ONE2]] : i32
// CHECK-NEXT: %[[L3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[NXT:.*]] = llvm.urem %[[GP]], %[[L3]] : i32
// CHECK-NEXT: %[[SLOT2:.*]] = llvm.add %[[ROW2]], %[[NXT]] : i32
// CHECK-NEXT: %[[A2:.*]] = llvm.getelementptr %smem[%[[SLOT2]]]
// CHECK-NEXT: nvvm.mbarrier.arrive %[[A2]] : !llvm.ptr<3>
// CHECK-NEXT: func.return

// -----

// Regression: a named-barrier sequence barrier used to wait/arrive on never-initialised
// mbarriers. Now: id = 8 + index*2 + g, 2 * group_size = 256 threads (the arriving group's
// bar.arrive + this group's bar.sync); group 0 skips its waits during the first lap (count < 2),
// which is what its start phase 1 means for mbarriers.
builtin.module {
  func.func @seq_named(%g: i32) {
    %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
    %r = cutlass.seq_bar.init %sb group_size(128) barrier(named_barrier) barrier_id_base(8)
    %st = cutlass.seq_bar.state.create %r group(%g)
    cutlass.seq_bar.wait %r, %st group(%g)
    %st1 = cutlass.seq_bar.arrive %r, %st group(%g)
    func.return
  }
}
// CHECK-LABEL: func.func @seq_named
// CHECK-NOT:  nvvm.mbarrier
// CHECK:      %[[ST:.*]] = llvm.insertvalue %{{.*}}[2]
// CHECK-NEXT: %[[I:.*]] = llvm.extractvalue %[[ST]][0]
// CHECK-NEXT: %[[L:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[ROW:.*]] = llvm.mul %[[I]], %[[L]] : i32
// CHECK-NEXT: %[[SLOT:.*]] = llvm.add %[[ROW]], %g : i32
// CHECK-NEXT: %[[CNT:.*]] = llvm.extractvalue %[[ST]][2]
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[G0:.*]] = llvm.icmp "eq" %g, %[[Z]] : i32
// CHECK-NEXT: %[[D:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[LAP0:.*]] = llvm.icmp "ult" %[[CNT]], %[[D]] : i32
// CHECK-NEXT: %[[SKIP:.*]] = llvm.and %[[G0]], %[[LAP0]] : i1
// CHECK-NEXT: %[[BASE:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[ID:.*]] = llvm.add %[[SLOT]], %[[BASE]] : i32
// CHECK-NEXT: %[[T:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT: %[[GO:.*]] = llvm.xor %[[SKIP]], %[[T]] : i1
// CHECK-NEXT: scf.if %[[GO]] {
// CHECK-NEXT:   %[[N:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:   nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
// CHECK-NEXT: }
// CHECK:      %[[NXT:.*]] = llvm.urem
// CHECK-NEXT: %[[SLOT2:.*]] = llvm.add %{{.*}}, %[[NXT]] : i32
// CHECK-NEXT: %[[BASE2:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[ID2:.*]] = llvm.add %[[SLOT2]], %[[BASE2]] : i32
// CHECK-NEXT: %[[N2:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %[[ID2]] number_of_threads = %[[N2]]
// CHECK-NOT:  nvvm.mbarrier
