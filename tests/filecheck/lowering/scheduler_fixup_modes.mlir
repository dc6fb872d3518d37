// RUN: tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm | filecheck %s
// The device fix-up honours CUTLASS's ReductionMode (cutlass-semantics.md 5.5 "Fixup protocol";
// host model schedulers/fixup.py), read at run time from the params record's `reduction_mode`
// word (CUTLASS enum values: Deterministic = 0, Nondeterministic = 1).  That word is the 19th
// i32 of the stream-K tail after the 48-byte seed header: byte 48 + 4*18 = 120.
// Only a later non-final piece (k_tile_start != 0, not final) depends on the mode:
//   deterministic:    wait lock == k_tile_start (CUTLASS wait_eq), plain load, add, store;
//   nondeterministic: wait lock >= 1 (CUTLASS wait_lt(lock, 1): the first partial is stored),
//   (each wait: thread 0 of the warp group polls with ld.acquire, then bar.sync of the group)
//                     then one relaxed (monotonic) device-scope atomicrmw per element.
// Both then release-increment the lock by k_tile_count; the final piece waits for
// lock == k_tile_start in both modes and never reads the mode.
//
// Scalar f32 accumulator, W = 1, w = 0: the thread's element is at 512*tile + 4*t.

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @scalar(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>, %acc: f32) -> f32 attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    func.return %r : f32
  }
}
// Work-tile fields: k_tile_start [3], k_tile_count [4], tile_idx [8].
// CHECK-LABEL: func.func @scalar
// CHECK:      %[[START:.*]] = llvm.extractvalue %{{.*}}[3]
// CHECK-NEXT: %[[COUNT:.*]] = llvm.extractvalue %{{.*}}[4]
// CHECK:      %[[WS:.*]] = llvm.inttoptr
// CHECK:      %[[LOCK:.*]] = llvm.getelementptr %[[WS]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
//
// Final piece: lock == k_tile_start whatever the mode; the mode word is not read before the
// first piece's store.
// One thread of the warp group polls with an acquire load (no read-modify-write, no fence);
// the group then syncs on its own Stream-K barrier (StreamK0 + 0 = 4, 128 threads).
// CHECK:      llvm.urem %{{.*}}, %{{.*}} : i32
// CHECK:      scf.if
// CHECK-NEXT: scf.while
// CHECK-NEXT: %[[FL:.*]] = llvm.load %[[LOCK]] atomic syncscope("device") acquire <alignment = 4> : !llvm.ptr<1> -> i32
// CHECK-NEXT: llvm.icmp "eq" %[[FL]], %[[START]] : i32
// CHECK:      nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK-NOT:  llvm.fence
// CHECK-NOT:  %p[120]
// CHECK:      llvm.store %acc, %{{.*}} : f32, !llvm.ptr<1>
// CHECK-NEXT: } else {
//
// Later non-final piece: branch on the mode word.
// CHECK-NEXT: %[[MP:.*]] = llvm.getelementptr %p[120] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[MODE:.*]] = llvm.load %[[MP]] <alignment = 4> : !llvm.ptr -> i32
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[ND:.*]] = llvm.icmp "ne" %[[MODE]], %[[Z]] : i32
// CHECK-NEXT: scf.if %[[ND]] {
//
// Nondeterministic: thread 0 of the group waits lock >= 1 (acquire load), group barrier,
// atomic fadd of the partial.
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:      %[[NLEAD:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: scf.if %[[NLEAD]] {
// CHECK-NEXT: scf.while () : () -> () {
// CHECK-NEXT: %[[NL:.*]] = llvm.load %[[LOCK]] atomic syncscope("device") acquire <alignment = 4> : !llvm.ptr<1> -> i32
// CHECK-NEXT: %[[NOK:.*]] = llvm.icmp "sge" %[[NL]], %[[ONE]] : i32
// CHECK-NEXT: %[[T1:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT: %[[NW:.*]] = llvm.xor %[[NOK]], %[[T1]] : i1
// CHECK-NEXT: scf.condition(%[[NW]])
// CHECK-NEXT: } do {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: %[[NBID:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[NBN:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: nvvm.barrier id = %[[NBID]] number_of_threads = %[[NBN]]
// CHECK-NOT:  llvm.load
// CHECK-NOT:  llvm.store
// CHECK:      %[[NB:.*]] = llvm.getelementptr %[[WS]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %{{.*}} = llvm.atomicrmw fadd %[[NB]], %acc syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK-NEXT: } else {
//
// Deterministic: thread 0 of the group waits lock == k_tile_start (acquire load), group
// barrier, plain load + add + store, no atomics on the partial.
// CHECK:      %[[DLEAD:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: scf.if %[[DLEAD]] {
// CHECK-NEXT: scf.while () : () -> () {
// CHECK-NEXT: %[[DL:.*]] = llvm.load %[[LOCK]] atomic syncscope("device") acquire <alignment = 4> : !llvm.ptr<1> -> i32
// CHECK-NEXT: %[[DOK:.*]] = llvm.icmp "eq" %[[DL]], %[[START]] : i32
// CHECK-NEXT: %[[T2:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT: %[[DW:.*]] = llvm.xor %[[DOK]], %[[T2]] : i1
// CHECK-NEXT: scf.condition(%[[DW]])
// CHECK-NEXT: } do {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: %[[DBID:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[DBN:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: nvvm.barrier id = %[[DBID]] number_of_threads = %[[DBN]]
// CHECK-NOT:  llvm.atomicrmw
// CHECK:      %[[DB:.*]] = llvm.getelementptr %[[WS]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %[[OLD:.*]] = llvm.load %[[DB]] : !llvm.ptr<1> -> f32
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %acc : f32
// CHECK-NOT:  llvm.atomicrmw
// CHECK:      %[[SB:.*]] = llvm.getelementptr %[[WS]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT: llvm.store %[[NEW]], %[[SB]] : f32, !llvm.ptr<1>
// CHECK-NEXT: }
// CHECK-NEXT: }
//
// Both modes: warp-group barrier StreamK0 = 4, then thread 0 release-adds k_tile_count.
// CHECK-NEXT: %[[BID:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[BN:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: nvvm.barrier id = %[[BID]] number_of_threads = %[[BN]]
// CHECK:      llvm.fence syncscope("device") acq_rel
// CHECK-NEXT: llvm.atomicrmw add %[[LOCK]], %[[COUNT]] syncscope("device") release : !llvm.ptr<1>, i32

// -----

// vector<2xi32> accumulator, W = 2, w = 1: integer `add` atomics, one per striped element:
// slice of w = 1 is V*128*w*4 = 2*128*1*4 = 1024 bytes, element i at 128*i*4 = 0, 512 bytes.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @ints(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>, %acc: vector<2xi32>) -> vector<2xi32> attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc {barrier_idx = 1 : i32, num_barriers = 2 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<2xi32>
    func.return %r : vector<2xi32>
  }
}
// CHECK-LABEL: func.func @ints
// CHECK:      %[[IMP:.*]] = llvm.getelementptr %p[120] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:      llvm.icmp "sge"
// CHECK:      %[[IBID:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT: %[[IBN:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: nvvm.barrier id = %[[IBID]] number_of_threads = %[[IBN]]
// CHECK:      %[[SLICE:.*]] = llvm.mlir.constant(1024) : i64
// CHECK:      %[[IB:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %[[I0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[E0:.*]] = llvm.extractelement %acc[%[[I0]] : i32] : vector<2xi32>
// CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %[[IB]][0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %{{.*}} = llvm.atomicrmw add %[[P0]], %[[E0]] syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT: %[[I1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[E1:.*]] = llvm.extractelement %acc[%[[I1]] : i32] : vector<2xi32>
// CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %[[IB]][512] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %{{.*}} = llvm.atomicrmw add %[[P1]], %[[E1]] syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT: } else {
// CHECK:      llvm.icmp "eq"
// CHECK:      arith.addi
// CHECK:      llvm.store
// CHECK:      nvvm.barrier
