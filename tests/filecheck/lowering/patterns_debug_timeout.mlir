// RUN: tileorch-opt %s -p 'cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm{debug-timeout=1000}' | filecheck %s
// debug-timeout=N: every mbarrier / semaphore wait polls in a counted loop; after N failed polls it
// vprintf's which barrier (pipeline and its source position, full/empty side, stage) and phase it
// waits on, plus the CTA and thread, and traps.
builtin.module {
  func.func @dbg(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>, %lock: !llvm.ptr<1>, %i: i32) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.consumer_wait %r, %s
    cutlass.pipeline.producer_acquire %r, %s
    cutlass.generic_barrier.wait_eq %lock[%i] num_threads = 128 : !llvm.ptr<1>
    func.return
  }
}
// CHECK-DAG:  llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG:  llvm.mlir.global internal constant @[[FULL_MSG:__tileorch_timeout_msg_[0-9]+]]("tileorch: timeout after 1000 polls waiting on pipeline {{.*}}patterns_debug_timeout.mlir:8:5 full barrier: stage %d, phase %d (block %d, thread %d)\0A\00") {addr_space = 1 : i32}
// CHECK-DAG:  llvm.mlir.global internal constant @[[EMPTY_MSG:__tileorch_timeout_msg_[0-9]+]]("tileorch: timeout after 1000 polls waiting on pipeline {{.*}}patterns_debug_timeout.mlir:8:5 empty barrier: stage %d, phase %d (block %d, thread %d)\0A\00")
// CHECK-DAG:  llvm.mlir.global internal constant @[[SEM_MSG:__tileorch_timeout_msg_[0-9]+]]("tileorch: timeout after 1000 polls waiting on semaphore of cutlass.generic_barrier.wait_eq {{.*}}patterns_debug_timeout.mlir:11:5: flag %d, target %d (block %d, thread %d)\0A\00")
// CHECK-LABEL: func.func @dbg
// the report buffers: static allocas in the entry block
// CHECK:      llvm.alloca %{{.*}} x !llvm.struct<(i32, i32, i32, i32)>
// consumer wait on full[index]: poll, count, report (stage = index, phase) and trap at 1000 polls
// CHECK:      %[[IDX:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[PH:.*]] = llvm.extractvalue %s[1]
// CHECK-NEXT: %[[FULL:.*]] = llvm.getelementptr %smem[%[[IDX]]]
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[PAR:.*]] = llvm.and %[[PH]], %[[ONE]] : i32
// CHECK-NEXT: %[[HINT:.*]] = llvm.mlir.constant(10000000 : i32) : i32
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %{{.*}} = scf.while (%[[N:.*]] = %[[Z]]) : (i32) -> i32 {
// CHECK-NEXT:   %[[OK:.*]] = nvvm.mbarrier.try_wait %[[FULL]], %[[PAR]], %[[HINT]] : !llvm.ptr<3>, i32, i32 -> i1
// CHECK-NEXT:   %[[T:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT:   %[[AGAIN:.*]] = llvm.xor %[[OK]], %[[T]] : i1
// CHECK-NEXT:   scf.condition(%[[AGAIN]]) %[[N]] : i32
// CHECK-NEXT: } do {
// CHECK-NEXT: ^{{.*}}(%[[M:.*]]: i32):
// CHECK-NEXT:   %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %[[POLLS:.*]] = llvm.add %[[M]], %[[C1]] : i32
// CHECK-NEXT:   %[[LIMIT:.*]] = llvm.mlir.constant(1000 : i32) : i32
// CHECK-NEXT:   %[[EXPIRED:.*]] = llvm.icmp "uge" %[[POLLS]], %[[LIMIT]] : i32
// CHECK-NEXT:   scf.if %[[EXPIRED]] {
// CHECK-NEXT:     %[[CTA:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT:     %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:     %[[F0:.*]] = llvm.getelementptr %[[BUF:.*]][0, 0]
// CHECK-NEXT:     llvm.store %[[IDX]], %[[F0]]
// CHECK-NEXT:     %[[F1:.*]] = llvm.getelementptr %[[BUF]][0, 1]
// CHECK-NEXT:     llvm.store %[[PH]], %[[F1]]
// CHECK-NEXT:     %[[F2:.*]] = llvm.getelementptr %[[BUF]][0, 2]
// CHECK-NEXT:     llvm.store %[[CTA]], %[[F2]]
// CHECK-NEXT:     %[[F3:.*]] = llvm.getelementptr %[[BUF]][0, 3]
// CHECK-NEXT:     llvm.store %[[TID]], %[[F3]]
// CHECK-NEXT:     %[[G:.*]] = llvm.mlir.addressof @[[FULL_MSG]] : !llvm.ptr<1>
// CHECK-NEXT:     %[[FMT:.*]] = llvm.addrspacecast %[[G]] : !llvm.ptr<1> to !llvm.ptr
// CHECK-NEXT:     %{{.*}} = llvm.call @vprintf(%[[FMT]], %[[BUF]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT:     llvm.inline_asm has_side_effects "trap;", "" : () -> ()
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.yield %[[POLLS]] : i32
// CHECK-NEXT: }
// producer acquire on empty[index]: same loop, reporting the empty barrier
// CHECK:      nvvm.mbarrier.try_wait
// CHECK:      llvm.mlir.addressof @[[EMPTY_MSG]]
// CHECK:      llvm.inline_asm has_side_effects "trap;"
// semaphore: the leader's acquire-load loop reports flag index and target value
// CHECK:      "ld.global.acquire.gpu.b32 $0, [$1];"
// CHECK:      llvm.mlir.addressof @[[SEM_MSG]]
// CHECK:      llvm.inline_asm has_side_effects "trap;"
// CHECK-NOT:  nvvm.mbarrier.try_wait.parity
