// RUN: tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts,cutlass-allocate-barrier-ids,convert-pipeline-to-nvvm | filecheck %s
// Consumer wait / try_wait / release (cutlass-semantics.md §0, §3, §3.1). full[s] = word s,
// empty[s] = word S + s; consumers wait full[index] with parity state.phase & 1.

// wait: the blocking parity wait (CUTLASS's 0x989680 = 10000000 suspend hint); with a token the
// wait runs only when the token (a preceding try_wait) is false. try_wait: a single probe.
builtin.module {
  func.func @wait(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>, %b: i1) attributes {nvvm.reqntid = array<i32: 1024, 1, 1>} {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %ok = cutlass.pipeline.consumer_try_wait %r, %s skip_wait(%b)
    cutlass.pipeline.consumer_wait %r, %s token(%ok)
    func.return
  }
}
// CHECK-LABEL: func.func @wait
// CHECK:      nvvm.barrier{{$}}
// CHECK-NEXT: %[[I:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[P:.*]] = llvm.extractvalue %s[1]
// CHECK-NEXT: %[[F:.*]] = llvm.getelementptr %smem[%[[I]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[PAR:.*]] = llvm.and %[[P]], %[[ONE]] : i32
// CHECK-NEXT: %[[PROBE:.*]] = nvvm.mbarrier.try_wait %[[F]], %[[PAR]] : !llvm.ptr<3>, i32 -> i1
// CHECK-NEXT: %[[OK:.*]] = llvm.or %[[PROBE]], %b : i1
// CHECK-NEXT: %[[I2:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[P2:.*]] = llvm.extractvalue %s[1]
// CHECK-NEXT: %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT: %[[AGAIN:.*]] = llvm.xor %[[OK]], %[[TRUE]] : i1
// CHECK-NEXT: scf.if %[[AGAIN]] {
// CHECK-NEXT:   %[[F2:.*]] = llvm.getelementptr %smem[%[[I2]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT:   %[[ONE2:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %[[PAR2:.*]] = llvm.and %[[P2]], %[[ONE2]] : i32
// CHECK-NEXT:   %[[HINT:.*]] = llvm.mlir.constant(10000000 : i32) : i32
// CHECK-NEXT:   nvvm.mbarrier.try_wait.parity %[[F2]], %[[PAR2]], %[[HINT]] : !llvm.ptr<3>, i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// release, one-CTA cluster: every thread of the consumer group (warp 1 = threads [32, 64): empty
// count 32) arrives locally on empty[index] = word 2 + index.
builtin.module {
  func.func @release_local(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) attributes {nvvm.reqntid = array<i32: 1024, 1, 1>} {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.consumer_release %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @release_local
// CHECK:      nvvm.barrier{{$}}
// CHECK-NEXT: %[[I:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[W:.*]] = llvm.add %[[I]], %[[S]] : i32
// CHECK-NEXT: %[[E:.*]] = llvm.getelementptr %smem[%[[W]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[F32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[D:.*]] = llvm.sub %[[TID]], %[[F32]] : i32
// CHECK-NEXT: %[[N32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[IN:.*]] = llvm.icmp "ult" %[[D]], %[[N32]] : i32
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT:   nvvm.mbarrier.arrive %[[E]] : !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// release, 2x1 cluster, one consumer warp group (threads [128, 256)): empty count (2+1-1)*1 = 2.
// Signalling threads: lanes 0/8/16/24 of each warp (t % 8 == 0 with t = tid - 128), target
// dst = ((warp ^ col) << 2) | col, warp = (t / 32) % 4, col = (t / 8) % 4; kept iff dst < 2 and
// dst shares this CTA's row or column; the arrive goes through mapa to CTA dst's empty[index].
// Those 4 threads arrive for all 128, so first the group (and only it: the scf.if on its thread
// range) syncs on its own named barrier, bar.sync 8, 128 (id 8 = the first unreserved id, the one
// cutlass-allocate-barrier-ids gives this pipeline's one multi-warp consumer group).
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @release_cluster(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) attributes {nvvm.reqntid = array<i32: 1024, 1, 1>} {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.consumer_release %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @release_cluster
// CHECK:      nvvm.cluster.wait
// CHECK-NEXT: %[[I:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[W:.*]] = llvm.add %[[I]], %[[S]] : i32
// CHECK-NEXT: %[[E:.*]] = llvm.getelementptr %smem[%[[W]]]
// CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %[[G0:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[GD:.*]] = llvm.sub %[[TID]], %[[G0]] : i32
// CHECK-NEXT: %[[GN:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[INGROUP:.*]] = llvm.icmp "ult" %[[GD]], %[[GN]] : i32
// CHECK-NEXT: %[[L0:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[LOCAL:.*]] = llvm.sub %[[TID]], %[[L0]] : i32
// CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[T:.*]] = llvm.urem %[[LOCAL]], %[[C128]] : i32
// CHECK-NEXT: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[WQ:.*]] = llvm.udiv %[[T]], %[[C32]] : i32
// CHECK-NEXT: %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[WARP:.*]] = llvm.urem %[[WQ]], %[[C4]] : i32
// CHECK-NEXT: %[[C8:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[CQ:.*]] = llvm.udiv %[[T]], %[[C8]] : i32
// CHECK-NEXT: %[[C4B:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[COL:.*]] = llvm.urem %[[CQ]], %[[C4B]] : i32
// CHECK-NEXT: %[[X:.*]] = llvm.xor %[[WARP]], %[[COL]] : i32
// CHECK-NEXT: %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[SH:.*]] = llvm.shl %[[X]], %[[C2]] : i32
// CHECK-NEXT: %[[DST:.*]] = llvm.or %[[SH]], %[[COL]] : i32
// CHECK-NEXT: %[[C8B:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %[[LANE8:.*]] = llvm.urem %[[T]], %[[C8B]] : i32
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[SIG:.*]] = llvm.icmp "eq" %[[LANE8]], %[[Z]] : i32
// CHECK-NEXT: scf.if %[[INGROUP]] {
// CHECK-NEXT:   %[[ID:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:   %[[NT:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:   nvvm.barrier id = %[[ID]] number_of_threads = %[[NT]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[A1:.*]] = llvm.and %[[INGROUP]], %[[SIG]] : i1
// CHECK-NEXT: %[[SIZE:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[INCL:.*]] = llvm.icmp "ult" %[[DST]], %[[SIZE]] : i32
// CHECK-NEXT: %[[A2:.*]] = llvm.and %[[A1]], %[[INCL]] : i1
// CHECK-NEXT: %[[CX:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[DX:.*]] = llvm.urem %[[DST]], %[[CX]] : i32
// CHECK-NEXT: %[[MX:.*]] = llvm.urem %[[RANK]], %[[CX]] : i32
// CHECK-NEXT: %[[SX:.*]] = llvm.icmp "eq" %[[DX]], %[[MX]] : i32
// CHECK-NEXT: %[[DY:.*]] = llvm.udiv %[[DST]], %[[CX]] : i32
// CHECK-NEXT: %[[MY:.*]] = llvm.udiv %[[RANK]], %[[CX]] : i32
// CHECK-NEXT: %[[SY:.*]] = llvm.icmp "eq" %[[DY]], %[[MY]] : i32
// CHECK-NEXT: %[[ROWCOL:.*]] = llvm.or %[[SX]], %[[SY]] : i1
// CHECK-NEXT: %[[GO:.*]] = llvm.and %[[A2]], %[[ROWCOL]] : i1
// CHECK-NEXT: scf.if %[[GO]] {
// CHECK-NEXT:   %[[REMOTE:.*]] = nvvm.mapa %[[E]], %[[DST]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:   nvvm.mbarrier.arrive %[[REMOTE]] : !llvm.ptr<7>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
