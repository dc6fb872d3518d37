// RUN: tileorch-opt %s --split-input-file --allow-unregistered-dialect -p cutlass-allocate-barrier-ids,cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm | filecheck %s
// CTA-scoped pipelines and per-load multicast directions, lowered (issue 10, item 5).

// A CTA-scoped pipeline (CUTLASS PipelineAsync) next to a cluster pipeline in a 2x2 cluster.
// CTA-scoped: empty[s] counts the 128 local consumer threads, the init is made visible with
// bar.sync 0 (no cluster barrier), every consumer thread arrives on its own CTA's empty barrier
// (no mapa, no shared::cluster arrive), and the tail only drains bulk groups.  The cluster
// pipeline keeps its (2 + 2 - 1) = 3 arrivals, the cluster sync and the remote releases.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @mixed(%s: !cutlass.pipeline_state<2>) attributes {nvvm.reqntid = array<i32: 256, 1, 1>} {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
    %local = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    %q = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %shared = cutlass.pipeline.init %q {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    cutlass.pipeline.consumer_release %local, %s
    cutlass.pipeline.producer_tail %local, %s
    cutlass.pipeline.consumer_release %shared, %s {cutlass.reads_retired}
    func.return
  }
}
// CHECK-LABEL: func.func @mixed
// CHECK:         %[[P:.*]] = llvm.mlir.addressof @__tileorch_pipeline_0
// CHECK:         scf.if
// CHECK:           %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:      nvvm.mbarrier.init %{{.*}}, %[[C1]]
// CHECK:           %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:      nvvm.mbarrier.init %{{.*}}, %[[C128]]
// CHECK:         }
// CHECK-NEXT:    nvvm.fence.mbarrier.init
// CHECK-NEXT:    nvvm.barrier{{$}}
// CHECK:         %[[Q:.*]] = llvm.mlir.addressof @__tileorch_pipeline_1
// CHECK:         scf.if
// CHECK:           %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:      nvvm.mbarrier.init %{{.*}}, %[[C3]]
// CHECK:         }
// CHECK-NEXT:    nvvm.fence.mbarrier.init
// CHECK-NEXT:    nvvm.cluster.arrive.relaxed aligned
// CHECK-NEXT:    nvvm.cluster.wait aligned
// local release: threads [128, 256) arrive on this CTA's empty[index]
// CHECK-NEXT:    %[[I:.*]] = llvm.extractvalue %s[0]
// CHECK-NEXT:    %[[S:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[W:.*]] = llvm.add %[[I]], %[[S]] : i32
// CHECK-NEXT:    %[[E:.*]] = llvm.getelementptr %[[P]][%[[W]]]
// CHECK-NEXT:    %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[F:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    %[[D:.*]] = llvm.sub %[[TID]], %[[F]] : i32
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    %[[IN:.*]] = llvm.icmp "ult" %[[D]], %[[N]] : i32
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK-NEXT:      nvvm.mbarrier.arrive %[[E]] : !llvm.ptr<3>
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.cp.async.bulk.wait_group 0
// cluster release: the remote arrives of CUTLASS's row/column spread
// CHECK:         %[[E2:.*]] = llvm.getelementptr %[[Q]]
// CHECK:         nvvm.read.ptx.sreg.cluster.ctarank
// CHECK:         scf.if
// CHECK-NEXT:      %[[R:.*]] = nvvm.mapa %[[E2]], %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      nvvm.mbarrier.arrive %[[R]] : !llvm.ptr<7>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// -----

// explicit consumer_arv_count on a CTA-scoped pipeline of a 2x1 cluster: the first 32 threads of
// the consumer warp group arrive locally (on a cluster-scoped pipeline this is a located error).
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @counted(%s: !cutlass.pipeline_state<2>) attributes {nvvm.reqntid = array<i32: 256, 1, 1>} {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>, consumer_arv_count = array<i32: 32>}
    cutlass.pipeline.consumer_release %r, %s
    func.return
  }
}
// CHECK-LABEL: func.func @counted
// CHECK:         %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:    nvvm.mbarrier.init %{{.*}}, %[[C32]]
// CHECK:         nvvm.barrier{{$}}
// CHECK-NOT:     nvvm.cluster
// CHECK:         %[[N:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:    %[[IN:.*]] = llvm.icmp "ult" %{{.*}}, %[[N]] : i32
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK-NEXT:      nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// -----

// Per-load direction on a 4x2 cluster: only row masks (same x, cy = 2 CTAs), so the empty
// barrier counts 2 arrivals per consumer warp group; the mask tests x = rank % 4 only, and the
// release reaches only the CTAs of the same x (no y test).
builtin.module attributes {cutlass.cluster_shape = array<i32: 4, 2, 1>} {
  func.func @row_only(%s: !cutlass.pipeline_state<2>) attributes {nvvm.reqntid = array<i32: 256, 1, 1>} {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    %m = cutlass.pipeline.get_producer_mask %r row
    "test.use"(%m) : (i16) -> ()
    cutlass.pipeline.consumer_release %r, %s {cutlass.reads_retired}
    func.return
  }
}
// CHECK-LABEL: func.func @row_only
// CHECK:         %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    nvvm.mbarrier.init %{{.*}}, %[[C1]]
// CHECK:         llvm.add
// CHECK-NEXT:    llvm.getelementptr
// CHECK-NEXT:    %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    nvvm.mbarrier.init %{{.*}}, %[[C2]]
// CHECK:         nvvm.cluster.wait aligned
// CHECK:         %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NOT:     llvm.udiv
// CHECK:         %[[MASK:.*]] = llvm.trunc %{{.*}} : i32 to i16
// CHECK-NEXT:    "test.use"(%[[MASK]])
// CHECK:         %[[RANK2:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NOT:     llvm.udiv %[[RANK2]]
// CHECK:         %[[MX:.*]] = llvm.urem %[[RANK2]], %{{.*}} : i32
// CHECK-NEXT:    %[[SX:.*]] = llvm.icmp "eq" %{{.*}}, %[[MX]] : i32
// CHECK-NEXT:    %[[GO:.*]] = llvm.and %{{.*}}, %[[SX]] : i1
// CHECK-NEXT:    scf.if %[[GO]] {
// CHECK-NEXT:      nvvm.mapa
