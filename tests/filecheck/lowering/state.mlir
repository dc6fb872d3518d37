// RUN: tileorch-opt %s -p convert-pipeline-to-nvvm | filecheck %s
// PipelineState (cutlass-semantics.md §1): producer starts {0, 1, 0}; ++ wraps index at S and
// flips phase exactly then; the bump form wraps the index but never touches the phase.
builtin.module {
  func.func @states(%p: !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>, %n: i32) -> (i32, i32, i32) {
    %s = cutlass.pipeline.state.create %p producer
    %i = cutlass.pipeline.state.increment %s
    %b = cutlass.pipeline.state.increment %s {bump}
    %a = cutlass.pipeline.state.increment %s by %n
    %x = cutlass.pipeline.state.get_phase %i
    %y = cutlass.pipeline.state.get_phase %b
    %z = cutlass.pipeline.state.get_count %a
    func.return %x, %y, %z : i32, i32, i32
  }
}
// CHECK-LABEL: func.func @states
// create: index 0, phase 1, count 0
// CHECK:      %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[Z2:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(i32, i32, i32)>
// CHECK-NEXT: %[[S0:.*]] = llvm.insertvalue %[[Z]], %[[U]][0]
// CHECK-NEXT: %[[S1:.*]] = llvm.insertvalue %[[ONE]], %[[S0]][1]
// CHECK-NEXT: %[[S:.*]] = llvm.insertvalue %[[Z2]], %[[S1]][2]
// increment: index + 1 == 4 -> index 0 and phase ^= 1
// CHECK:      %[[IDX:.*]] = llvm.extractvalue %[[S]][0]
// CHECK-NEXT: %[[PH:.*]] = llvm.extractvalue %[[S]][1]
// CHECK-NEXT: %[[CNT:.*]] = llvm.extractvalue %[[S]][2]
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[INC:.*]] = llvm.add %[[IDX]], %[[C1]]
// CHECK-NEXT: %[[WRAP:.*]] = llvm.icmp "eq" %[[INC]], %[[FOUR]]
// CHECK-NEXT: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[NIDX:.*]] = llvm.select %[[WRAP]], %[[C0]], %[[INC]]
// CHECK-NEXT: %[[C1B:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[NCNT:.*]] = llvm.add %[[CNT]], %[[C1B]]
// CHECK-NEXT: %[[FLIP:.*]] = llvm.zext %[[WRAP]] : i1 to i32
// CHECK-NEXT: %[[NPH:.*]] = llvm.xor %[[PH]], %[[FLIP]]
// CHECK:      llvm.insertvalue %[[NPH]], %{{.*}}[1]
// bump: same index/count update, the phase goes into the new state unchanged
// CHECK:      %[[BPH:.*]] = llvm.extractvalue %[[S]][1]
// CHECK:      %[[BWRAP:.*]] = llvm.icmp "eq"
// CHECK-NOT:  llvm.xor
// CHECK:      llvm.insertvalue %[[BPH]], %{{.*}}[1]
// advance(n): phase ^= ((index + n) / 4) & 1, index = (index + n) % 4, count += n
// CHECK:      %[[T:.*]] = llvm.add %{{.*}}, %n
// CHECK-NEXT: llvm.urem %[[T]]
// CHECK-NEXT: llvm.add %{{.*}}, %n
// CHECK-NEXT: %[[W:.*]] = llvm.udiv %[[T]]
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[B:.*]] = llvm.and %[[W]]
// CHECK-NEXT: llvm.xor %{{.*}}, %[[B]]
