// RUN: tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm | filecheck %s
// BarOpLowering: named barriers (cutlass-semantics.md §2.4) and the global-memory generic barrier
// (§2.5: arrive = sync FIRST, then the leader does fence.acq_rel.gpu + red.relaxed.gpu.add;
// wait = the leader spins on ld.global.acquire.gpu, THEN sync).

// named_barrier.arrive = bar.arrive id, n; arrive_and_wait = bar.sync id, n. n defaults to the
// enclosing executor's threads (warps 4-7 = 128), an explicit num_threads wins; dynamic ids pass through.
builtin.module {
  func.func @named(%id: i32) attributes {nvvm.reqntid = array<i32: 1024, 1, 1>} {
    cutlass.async.exec warp mask(0xf0) {
      cutlass.named_barrier.arrive barrier_id = 9
      cutlass.named_barrier.arrive_and_wait %id num_threads = 256
    }
    func.return
  }
}
// CHECK-LABEL: func.func @named
// CHECK:        scf.if
// CHECK-NEXT:     %[[N:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:     %[[ID:.*]] = llvm.mlir.constant(9 : i32) : i32
// CHECK-NEXT:     nvvm.barrier.arrive id = %[[ID]] number_of_threads = %[[N]]
// CHECK-NEXT:     %[[N2:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:     nvvm.barrier id = %id number_of_threads = %[[N2]]
// CHECK-NEXT:   }

// -----

// Generic barrier in warp group 1 (threads [128, 256), leader = thread 128).
builtin.module {
  func.func @sem(%lock: !llvm.ptr<1>, %i: i32, %n: i32) attributes {nvvm.reqntid = array<i32: 1024, 1, 1>} {
    cutlass.async.exec warpgroup mask(2) {
      cutlass.generic_barrier.arrive_increment %lock[%i] add %n sync = named_barrier barrier_id = 9 : !llvm.ptr<1>
      cutlass.generic_barrier.wait_eq %lock[%i] sync = named_barrier barrier_id = 4 : !llvm.ptr<1>
      cutlass.generic_barrier.wait_less_than %lock[%i], %n sync = syncwarp : !llvm.ptr<1>
    }
    func.return
  }
}
// CHECK-LABEL: func.func @sem
// arrive_increment: named-barrier policy over the executor's 128 threads (bar.sync 9, 128), then
// the leader: release fence (acq_rel, gpu = "device") + relaxed (monotonic) atomic add of %n.
// CHECK:          %[[B0:.*]] = llvm.mlir.constant(9 : i32) : i32
// CHECK-NEXT:     %[[N0:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:     nvvm.barrier id = %[[B0]] number_of_threads = %[[N0]]
// CHECK-NEXT:     %[[FLAG:.*]] = llvm.getelementptr %lock[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
// CHECK-NEXT:     %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:     %[[L:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:     %[[LEAD:.*]] = llvm.icmp "eq" %[[T]], %[[L]] : i32
// CHECK-NEXT:     scf.if %[[LEAD]] {
// CHECK-NEXT:       llvm.fence syncscope("device") acq_rel
// CHECK-NEXT:       %{{.*}} = llvm.atomicrmw add %[[FLAG]], %n syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT:     }
// wait_eq (value defaults to 1): the leader spins while the acquire load != 1 (the loop must
// survive dead-code elimination: it used to be deleted), then bar.sync 4, 128 (raw named id).
// CHECK-NEXT:     %[[FLAG2:.*]] = llvm.getelementptr %lock[%i]
// CHECK-NEXT:     %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:     %[[T2:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:     %[[L2:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:     %[[LEAD2:.*]] = llvm.icmp "eq" %[[T2]], %[[L2]] : i32
// CHECK-NEXT:     scf.if %[[LEAD2]] {
// CHECK-NEXT:       scf.while () : () -> () {
// CHECK-NEXT:         %[[V:.*]] = llvm.inline_asm has_side_effects "ld.global.acquire.gpu.b32 $0, [$1];", "=r,l" %[[FLAG2]] : (!llvm.ptr<1>) -> i32
// CHECK-NEXT:         %[[NE:.*]] = llvm.icmp "ne" %[[V]], %[[ONE]] : i32
// CHECK-NEXT:         %[[T3:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT:         %[[DONE:.*]] = llvm.xor %[[NE]], %[[T3]] : i1
// CHECK-NEXT:         %[[T4:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT:         %[[AGAIN:.*]] = llvm.xor %[[DONE]], %[[T4]] : i1
// CHECK-NEXT:         scf.condition(%[[AGAIN]])
// CHECK-NEXT:       } do {
// CHECK-NEXT:         scf.yield
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     %[[B4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:     %[[N4:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:     nvvm.barrier id = %[[B4]] number_of_threads = %[[N4]]
// wait_less_than, syncwarp policy: lane 0 of each warp spins while flag < %n, then bar.warp.sync -1.
// CHECK-NEXT:     %[[FLAG3:.*]] = llvm.getelementptr %lock[%i]
// CHECK-NEXT:     %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK-NEXT:     %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:     %[[LEAD3:.*]] = llvm.icmp "eq" %[[LANE]], %[[Z]] : i32
// CHECK-NEXT:     scf.if %[[LEAD3]] {
// CHECK-NEXT:       scf.while () : () -> () {
// CHECK-NEXT:         %[[V3:.*]] = llvm.inline_asm has_side_effects "ld.global.acquire.gpu.b32 $0, [$1];", "=r,l" %[[FLAG3]]
// CHECK-NEXT:         llvm.icmp "slt" %[[V3]], %n : i32
// CHECK:              scf.condition
// CHECK:          %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT:     nvvm.bar.warp.sync %[[ALL]] : i32

// -----

// sync = syncthreads is __syncthreads: bar.sync 0 over the whole CTA (no thread count, like the
// barrier-init sync that shares id 0), allowed where every thread of the CTA runs the op: a cta
// executor, or (with the kernel's declared size) a warp group mask covering all 256 threads.
builtin.module {
  func.func @syncthreads(%lock: !llvm.ptr<1>, %i: i32) attributes {nvvm.maxntid = array<i32: 256, 1, 1>} {
    cutlass.async.exec cta mask(1) threads(256) {
      cutlass.generic_barrier.arrive_increment %lock[%i] : !llvm.ptr<1>
    }
    cutlass.async.exec warpgroup mask(3) {
      cutlass.generic_barrier.wait_eq %lock[%i] : !llvm.ptr<1>
    }
    func.return
  }
}
// CHECK-LABEL: func.func @syncthreads
// CHECK:        nvvm.barrier{{$}}
// CHECK-NEXT:   llvm.getelementptr %lock[%i]
// CHECK:        scf.while
// CHECK:        nvvm.barrier{{$}}
// CHECK-NOT:    nvvm.barrier id
// CHECK:        func.return
