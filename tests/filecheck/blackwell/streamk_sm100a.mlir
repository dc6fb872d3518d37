// RUN: tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm | filecheck %s
// SM100 Stream-K with cluster-level coordination (seed 000 sub_R01; docs/blackwell.md "SM100
// Stream-K"; host model schedulers/sm100_cluster_streamk.py).  On a multi-CTA cluster the work
// tile is the cluster's piece; each CTA takes its rank's share of the piece's K tiles, and the
// fix-up reduces the piece inside the cluster (own smem, cluster barrier, leader reads DSMEM,
// cluster barrier) before rank 0 alone runs the generic workspace fix-up.

// 2x2 cluster, scalar f32 accumulator: thread t's partial sits at buf + 4*t.
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @fixup4(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 2, 1], raster = along_n>, %acc: f32, %buf: !llvm.ptr<3>) -> f32 attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 2, 1], raster = along_n> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc smem(%buf : !llvm.ptr<3>) : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    func.return %r : f32
  }
}
// The unit is the cluster's (%clusterid, not %ctaid); the body is traced for a one-CTA cluster.
// CHECK-LABEL: func.func @fixup4
// CHECK-NOT:   nvvm.read.ptx.sreg.ctaid
// CHECK:       nvvm.read.ptx.sreg.clusterid.x
// CHECK-NEXT:  nvvm.read.ptx.sreg.clusterid.y
// CHECK-NEXT:  nvvm.read.ptx.sreg.clusterid.z
// CHECK:       %[[W:.*]] = llvm.call @__tileorch_sched_sm100_streamk_c1x1_n(
// Contributing ranks n = min(k_tile_count, 4).
// CHECK:       %[[COUNT:.*]] = llvm.extractvalue %[[W]][4]
// CHECK:       %[[N:.*]] = llvm.select %{{.*}}, %[[COUNT]], %{{.*}} : i1, i32
// CHECK:       %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK:       %[[MINE:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:       %[[LEADER:.*]] = llvm.icmp "eq" %[[RANK]], %{{.*}} : i32
// 1. ranks 1..n-1 publish into their own shared memory
// CHECK:       %[[NOT0:.*]] = llvm.icmp "ne" %[[RANK]], %{{.*}} : i32
// CHECK-NEXT:  %[[HAS:.*]] = llvm.icmp "slt" %[[RANK]], %[[N]] : i32
// CHECK-NEXT:  %[[PUB:.*]] = llvm.and %[[NOT0]], %[[HAS]] : i1
// CHECK-NEXT:  scf.if %[[PUB]] {
// CHECK-NEXT:    llvm.store %{{.*}}, %[[MINE]] : f32, !llvm.ptr<3>
// CHECK-NEXT:  }
// 2. cluster barrier (release / acquire)
// CHECK-NEXT:  nvvm.cluster.arrive aligned
// CHECK-NEXT:  nvvm.cluster.wait aligned
// 3. the leader adds ranks 1, 2, 3 in order, each read through DSMEM when it holds K tiles
// CHECK-NEXT:  %[[SUM:.*]] = scf.if %[[LEADER]] -> (f32) {
// CHECK:         llvm.icmp "slt" %{{.*}}, %[[N]] : i32
// CHECK-NEXT:    scf.if
// CHECK-NEXT:    %[[R1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[P1:.*]] = nvvm.mapa %[[MINE]], %[[R1]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:    %[[V1:.*]] = llvm.load %[[P1]] : !llvm.ptr<7> -> f32
// CHECK-NEXT:    arith.addf %{{.*}}, %[[V1]] : f32
// CHECK:         llvm.icmp "slt" %{{.*}}, %[[N]] : i32
// CHECK-NEXT:    scf.if
// CHECK-NEXT:    %[[R2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    nvvm.mapa %[[MINE]], %[[R2]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK:         llvm.icmp "slt" %{{.*}}, %[[N]] : i32
// CHECK-NEXT:    scf.if
// CHECK-NEXT:    %[[R3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    nvvm.mapa %[[MINE]], %[[R3]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NOT:     nvvm.mapa
// 4. cluster barrier: buffers stay live until the leader has read them
// CHECK:       nvvm.cluster.arrive aligned
// CHECK-NEXT:  nvvm.cluster.wait aligned
// 5. the leader alone runs the generic (global workspace + lock) fix-up with the cluster's sum
// CHECK-NEXT:  %[[OUT:.*]] = scf.if %[[LEADER]] -> (f32) {
// CHECK:         llvm.inttoptr
// CHECK:         llvm.load %{{.*}} atomic syncscope("device") acquire
// CHECK:         nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK:         arith.addf %[[SUM]], %{{.*}} : f32
// CHECK-NOT:   nvvm.cluster
// CHECK:       func.return %[[OUT]] : f32

// -----

// The CTA's share of the piece: rank r of 2 gets count/2 + (r < count%2) tiles from
// start + r*(count/2) + min(r, count%2); the epilogue runs on rank 0 of the final split.
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @share(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>) -> (i32, i32, i32, i1) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %start = cutlass.tile_scheduler.get_work_k_tile_start %s, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %count = cutlass.tile_scheduler.get_work_k_tile_count %s, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_cta_coord %s, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %e = cutlass.tile_scheduler.compute_epilogue %s, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    func.return %start, %count, %k, %e : i32, i32, i32, i1
  }
}
// CHECK-LABEL: func.func @share
// CHECK:       %[[W:.*]] = llvm.call @__tileorch_sched_sm100_streamk_c1x1_m(
// CHECK:       %[[S0:.*]] = llvm.extractvalue %[[W]][3]
// CHECK-NEXT:  %[[C0:.*]] = llvm.extractvalue %[[W]][4]
// CHECK-NEXT:  %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT:  %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:  %[[BASE:.*]] = llvm.sdiv %[[C0]], %[[TWO]] : i32
// CHECK-NEXT:  %[[EXTRA:.*]] = llvm.srem %[[C0]], %[[TWO]] : i32
// CHECK-NEXT:  %[[OFF:.*]] = llvm.mul %[[RANK]], %[[BASE]] : i32
// CHECK-NEXT:  %[[FROM:.*]] = llvm.add %[[S0]], %[[OFF]] : i32
// min(rank, extra) as a compare and a select
// CHECK:       %[[START:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK:       %[[C1:.*]] = llvm.extractvalue %[[W]][4]
// CHECK-NEXT:  %[[RANK2:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT:  %[[TWO2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:  %[[BASE2:.*]] = llvm.sdiv %[[C1]], %[[TWO2]] : i32
// CHECK-NEXT:  %[[EXTRA2:.*]] = llvm.srem %[[C1]], %[[TWO2]] : i32
// CHECK-NEXT:  %[[BIG:.*]] = llvm.icmp "slt" %[[RANK2]], %[[EXTRA2]] : i32
// CHECK:       %[[ONE:.*]] = llvm.select %[[BIG]], %{{.*}}, %{{.*}} : i1, i32
// CHECK-NEXT:  %[[COUNT:.*]] = llvm.add %[[BASE2]], %[[ONE]] : i32
// work_tile_info_to_cta_coord: k is the share's first K tile (same formula)
// CHECK:       %[[K:.*]] = llvm.select
// CHECK:       %[[ER:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK:       %[[LEAD:.*]] = llvm.icmp "eq" %[[ER]], %{{.*}} : i32
// CHECK:       %[[FINAL:.*]] = llvm.icmp "eq"
// CHECK-NEXT:  %[[E:.*]] = llvm.and %[[LEAD]], %[[FINAL]] : i1
// CHECK-NEXT:  func.return %[[START]], %[[COUNT]], %[[K]], %[[E]] : i32, i32, i32, i1

// -----

// The generic (Hopper) Stream-K body on sm_90a, even on a 2x1 cluster: per-CTA locks only.
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @hopper(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>, %acc: f32) -> f32 attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    func.return %r : f32
  }
}
// CHECK-LABEL: func.func @hopper
// CHECK-NOT:   nvvm.cluster
// CHECK-NOT:   nvvm.mapa
// CHECK-NOT:   clusterid
// CHECK:       llvm.call @__tileorch_sched_streamk_c2x1_m(
// CHECK-NOT:   nvvm.cluster
// CHECK-NOT:   nvvm.mapa
// CHECK:       func.return

// -----

// SM100 Stream-K on a one-CTA cluster: nothing to coordinate (CUTLASS's SM100 decomposition).
builtin.module attributes {cutlass.target = "sm_100a"} {
  func.func @single(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m>, %acc: f32) -> f32 attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    func.return %r : f32
  }
}
// CHECK-LABEL: func.func @single
// CHECK-NOT:   nvvm.cluster
// CHECK:       nvvm.read.ptx.sreg.ctaid.x
// CHECK:       llvm.call @__tileorch_sched_sm100_streamk_c1x1_m(
// CHECK-NOT:   nvvm.cluster
// CHECK:       func.return
