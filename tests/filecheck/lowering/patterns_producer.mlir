// RUN: tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s
// Producer acquire / try_acquire / commit (cutlass-semantics.md §0, §3, §3.1).
// Storage: full[s] = word s, empty[s] = word S + s; parity = state.phase & 1.

// acquire, mbarrier, with a token: phase A unpacks (index, phase); phase B builds no mask (a 1x1
// pipeline always has a signal source); the wait on empty[index] runs iff the token is false.
builtin.module {
  func.func @acq_token(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>, %t: i1) attributes {nvvm.reqntid = array<i32: 1024, 1, 1>} {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.producer_acquire %r, %s token(%t)
    func.return
  }
}
// CHECK-LABEL: func.func @acq_token
// CHECK:      nvvm.barrier{{$}}
// CHECK-NEXT: %[[IDX:.*]] = llvm.extractvalue %s[0] : !llvm.struct<(i32, i32, i32)>
// CHECK-NEXT: %[[PH:.*]] = llvm.extractvalue %s[1] : !llvm.struct<(i32, i32, i32)>
// CHECK-NEXT: %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT: %[[GO:.*]] = llvm.xor %t, %[[TRUE]] : i1
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[W:.*]] = llvm.add %[[IDX]], %[[S]] : i32
// CHECK-NEXT: %[[EMPTY:.*]] = llvm.getelementptr %smem[%[[W]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: scf.if %[[GO]] {
// CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %[[PAR:.*]] = llvm.and %[[PH]], %[[ONE]] : i32
// CHECK-NEXT:   %[[HINT:.*]] = llvm.mlir.constant(10000000 : i32) : i32
// CHECK-NEXT:   nvvm.mbarrier.try_wait.parity %[[EMPTY]], %[[PAR]], %[[HINT]] : !llvm.ptr<3>, i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// Named-barrier pipeline (ids from barrier_id_base 8: full[s] = 8 + s, empty[s] = 8 + 2 + s; every
// op counts the 32 producer + 64 consumer threads = 96). acquire phase A's unacquired_state flag
// (count < stages: the first pass over the ring) skips phase D's bar.sync on empty[index];
// try_acquire can only promise that first pass; commit is bar.arrive on full[index].
builtin.module {
  func.func @acq_named(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) -> i1 {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, barrier = named_barrier>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 6>, barrier_id_base = 8 : i32}
    cutlass.pipeline.producer_acquire %r, %s
    %ok = cutlass.pipeline.producer_try_acquire %r, %s
    cutlass.pipeline.producer_commit %r, %s
    func.return %ok : i1
  }
}
// CHECK-LABEL: func.func @acq_named
// CHECK-NEXT: %[[IDX:.*]] = llvm.extractvalue %s[0] : !llvm.struct<(i32, i32, i32)>
// CHECK-NEXT: %[[CNT:.*]] = llvm.extractvalue %s[2] : !llvm.struct<(i32, i32, i32)>
// CHECK-NEXT: %[[EB:.*]] = llvm.mlir.constant(10 : i32) : i32
// CHECK-NEXT: %[[EID:.*]] = arith.addi %[[EB]], %[[IDX]] : i32
// CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(96 : i32) : i32
// CHECK-NEXT: %[[NS:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[FIRST:.*]] = llvm.icmp "ult" %[[CNT]], %[[NS]] : i32
// CHECK-NEXT: %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT: %[[AGAIN:.*]] = llvm.xor %[[FIRST]], %[[TRUE]] : i1
// CHECK-NEXT: scf.if %[[AGAIN]] {
// CHECK-NEXT:   nvvm.barrier id = %[[EID]] number_of_threads = %[[N]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[TCNT:.*]] = llvm.extractvalue %s[2]
// CHECK-NEXT: %[[TNS:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[OK:.*]] = llvm.icmp "ult" %[[TCNT]], %[[TNS]] : i32
// CHECK-NEXT: %[[CIDX:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[FB:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[FID:.*]] = arith.addi %[[FB]], %[[CIDX]] : i32
// CHECK-NEXT: %[[N2:.*]] = llvm.mlir.constant(96 : i32) : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %[[FID]] number_of_threads = %[[N2]]
// CHECK-NEXT: func.return %[[OK]] : i1

// -----

// try_acquire: one non-blocking try_wait (no suspend hint) on empty[index]; skip_wait ORs in.
builtin.module {
  func.func @try(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>, %b: i1) -> (i1, i1) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %x = cutlass.pipeline.producer_try_acquire %r, %s
    %y = cutlass.pipeline.producer_try_acquire %r, %s skip_wait(%b)
    func.return %x, %y : i1, i1
  }
}
// CHECK-LABEL: func.func @try
// CHECK:      nvvm.barrier{{$}}
// CHECK-NEXT: %[[I:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[P:.*]] = llvm.extractvalue %s[1]
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[W:.*]] = llvm.add %[[I]], %[[S]] : i32
// CHECK-NEXT: %[[E:.*]] = llvm.getelementptr %smem[%[[W]]]
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[PAR:.*]] = llvm.and %[[P]], %[[ONE]] : i32
// CHECK-NEXT: %[[X:.*]] = nvvm.mbarrier.try_wait %[[E]], %[[PAR]] : !llvm.ptr<3>, i32 -> i1
// CHECK:      %[[Y0:.*]] = nvvm.mbarrier.try_wait %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32 -> i1
// CHECK-NEXT: %[[Y:.*]] = llvm.or %[[Y0]], %b : i1
// CHECK-NEXT: func.return %[[X]], %[[Y]] : i1, i1

// -----

// commit with transaction bytes, producer_arv_count 2 (full count 2): threads 0 and 1 arrive;
// thread 0 (the leader) with arrive.expect_tx of exactly 12288 bytes, thread 1 plainly.
builtin.module {
  func.func @commit_tx(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) attributes {nvvm.reqntid = array<i32: 1024, 1, 1>} {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, producer_arv_count = array<i32: 2>}
    cutlass.pipeline.producer_commit %r, %s {transaction_bytes = 12288 : i32}
    func.return
  }
}
// CHECK-LABEL: func.func @commit_tx
// CHECK:      nvvm.barrier{{$}}
// CHECK-NEXT: %[[I:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[FULL:.*]] = llvm.getelementptr %smem[%[[I]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[F:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[D:.*]] = llvm.sub %[[TID]], %[[F]] : i32
// CHECK-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[ARR:.*]] = llvm.icmp "ult" %[[D]], %[[TWO]] : i32
// CHECK-NEXT: scf.if %[[ARR]] {
// CHECK-NEXT:   %[[F2:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   %[[D2:.*]] = llvm.sub %[[TID]], %[[F2]] : i32
// CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %[[LEAD:.*]] = llvm.icmp "ult" %[[D2]], %[[ONE]] : i32
// CHECK-NEXT:   scf.if %[[LEAD]] {
// CHECK-NEXT:     %[[B:.*]] = llvm.mlir.constant(12288 : i32) : i32
// CHECK-NEXT:     nvvm.mbarrier.arrive.expect_tx %[[FULL]], %[[B]] : !llvm.ptr<3>, i32
// CHECK-NEXT:   } else {
// CHECK-NEXT:     nvvm.mbarrier.arrive %[[FULL]] : !llvm.ptr<3>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// plain commit (no transaction bytes): only the leader arrives (full count 1), no expect_tx.
builtin.module {
  func.func @commit_plain(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) attributes {nvvm.reqntid = array<i32: 1024, 1, 1>} {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.producer_commit %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @commit_plain
// CHECK:      nvvm.barrier{{$}}
// CHECK-NEXT: llvm.extractvalue %s[0]
// CHECK-NEXT: %[[FULL:.*]] = llvm.getelementptr %smem
// CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[F:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[D:.*]] = llvm.sub %[[TID]], %[[F]] : i32
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[ARR:.*]] = llvm.icmp "ult" %[[D]], %[[ONE]] : i32
// CHECK-NEXT: scf.if %[[ARR]] {
// CHECK-NEXT:   nvvm.mbarrier.arrive %[[FULL]] : !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NOT:  expect_tx

// -----

// Regression: two producers (warps 0 and 1) with different transaction_size used to be rejected;
// each producer's leader (threads 0 and 32) must expect its own bytes (1024, 2048): the
// full barrier completes only when both TMA streams have landed.
builtin.module {
  func.func @commit_two(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) attributes {nvvm.reqntid = array<i32: 1024, 1, 1>} {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 2, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1, 2>, consumers = array<i64: 4>, transaction_size = array<i32: 1024, 2048>}
    cutlass.pipeline.producer_commit %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @commit_two
// CHECK:      nvvm.barrier{{$}}
// CHECK:      scf.if
// CHECK-NEXT:   %[[F0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   llvm.sub %{{.*}}, %[[F0]]
// CHECK:        scf.if
// CHECK-NEXT:     %[[B0:.*]] = llvm.mlir.constant(1024 : i32) : i32
// CHECK-NEXT:     nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[B0]]
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %[[F1:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:     llvm.sub %{{.*}}, %[[F1]]
// CHECK:          scf.if
// CHECK-NEXT:       %[[B1:.*]] = llvm.mlir.constant(2048 : i32) : i32
// CHECK-NEXT:       nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[B1]]
// CHECK-NEXT:     } else {
// CHECK-NEXT:       nvvm.mbarrier.arrive
// CHECK-NEXT:     }

// -----

// Regression: a warp-specialized 1x1 ring deeper than the 16 mask slots. Stage 16 used to get an
// empty one-hot mask, so the producer skipped its wait and overwrote a stage still being read.
// A 1x1 ring always has a signal source: the wait on empty[index] is unconditional at every depth.
builtin.module {
  func.func @deep(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<18>) attributes {nvvm.reqntid = array<i32: 1024, 1, 1>} {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 18, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 18 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.producer_acquire %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @deep
// CHECK:      nvvm.barrier{{$}}
// CHECK-NEXT: %[[IDX:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[PH:.*]] = llvm.extractvalue %s[1]
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.constant(18 : i32) : i32
// CHECK-NEXT: %[[W:.*]] = llvm.add %[[IDX]], %[[S]] : i32
// CHECK-NEXT: %[[E:.*]] = llvm.getelementptr %smem[%[[W]]]
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[PAR:.*]] = llvm.and %[[PH]]
// CHECK-NEXT: llvm.mlir.constant(10000000 : i32)
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[E]], %[[PAR]]
// CHECK-NEXT: func.return
