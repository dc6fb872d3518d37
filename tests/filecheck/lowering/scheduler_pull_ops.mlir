// RUN: tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm | filecheck %s
// The WorkID pull model: the handle's state is the shared response slot (the CTA's current
// linear work id).  The constructor seeds it with the launch index; query_next_work claims the
// next id (leader: relaxed global atomicrmw add 1 on the counter at the record's workspace_ptr,
// +0x20, plus total_ctas at +0x1C) and publishes it between two bar.sync 0; get_current_work
// decodes the slot with the shared body (Params*, i32) -> WorkTileInfo.

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @ops(%p: !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m>, %resp: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    cutlass.async.exec cta mask(1) threads(128) {
      %s = cutlass.tile_scheduler.create_dp_params %p workid(%resp : !llvm.ptr<3>) {runtime_pull} : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<dp>
      %r = cutlass.tile_scheduler.get_workid_response_ptr %s : !cutlass.tile_scheduler<dp> -> !llvm.ptr<3>
      %r0 = cutlass.tile_scheduler.get_workid_response_ptr %s : !cutlass.tile_scheduler<dp> -> !llvm.ptr
      %c = cutlass.tile_scheduler.get_current_work %s : !cutlass.tile_scheduler<dp> -> !cutlass.dp_work_tile_info
      cutlass.tile_scheduler.query_next_work %s : !cutlass.tile_scheduler<dp>
      %w = cutlass.tile_scheduler.get_current_work %s : !cutlass.tile_scheduler<dp> -> !cutlass.dp_work_tile_info
      %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %w : !cutlass.dp_work_tile_info
      %m0, %n0, %k0, %l0 = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %c : !cutlass.dp_work_tile_info
      llvm.store %m, %out : i32, !llvm.ptr<1>
      llvm.store %m0, %out : i32, !llvm.ptr<1>
      %v = llvm.load %r : !llvm.ptr<3> -> i32
      llvm.store %v, %out : i32, !llvm.ptr<1>
      llvm.store %r0, %out : !llvm.ptr, !llvm.ptr<1>
    }
    func.return
  }
}
// Along M, 1x1 cluster: launch index = ctaid.x * grid.y + ctaid.y (grid.y at +0x40); seeded
// into the slot by the constructor.
// CHECK-LABEL: func.func @ops
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr, %[[RESP:.*]]: !llvm.ptr<3>, %[[OUT:.*]]: !llvm.ptr<1>)
// CHECK:      %[[GYP:.*]] = llvm.getelementptr %[[P]][64] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[GY:.*]] = llvm.load %[[GYP]]
// CHECK:      %[[BX:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT: %[[BY:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-NEXT: %[[BXG:.*]] = llvm.mul %[[BX]], %[[GY]] : i32
// CHECK-NEXT: %[[LAUNCH:.*]] = llvm.add %[[BXG]], %[[BY]] : i32
// CHECK-NEXT: llvm.store %[[LAUNCH]], %[[RESP]] <alignment = 4> : i32, !llvm.ptr<3>
// get_workid_response_ptr is the slot itself (a cast for a generic-pointer result).
// CHECK-NEXT: %[[GEN:.*]] = llvm.addrspacecast %[[RESP]] : !llvm.ptr<3> to !llvm.ptr
// get_current_work before any query: the seeded id, decoded by the body; no barrier, no atomic.
// CHECK-NEXT: %[[CUR0:.*]] = llvm.load %[[RESP]] <alignment = 4> : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[W0:.*]] = llvm.call @__tileorch_sched_dp_c1x1_m(%[[P]], %[[CUR0]]) : (!llvm.ptr, i32) -> !llvm.struct<(i32, i32, i32, i32, i32)>
// query_next_work: WAR barrier, the leader (thread 0) claims and publishes, publish barrier.
// CHECK-NEXT: nvvm.barrier{{$}}
// CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[LEAD:.*]] = llvm.icmp "eq" %[[TID]], %[[ZERO]] : i32
// CHECK-NEXT: scf.if %[[LEAD]] {
// CHECK-NEXT:   %[[WSP:.*]] = llvm.getelementptr %[[P]][32] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:   %[[WS:.*]] = llvm.load %[[WSP]] <alignment = 8> : !llvm.ptr -> i64
// CHECK-NEXT:   %[[CTR:.*]] = llvm.inttoptr %[[WS]] : i64 to !llvm.ptr<1>
// CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %[[OLD:.*]] = llvm.atomicrmw add %[[CTR]], %[[ONE]] syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT:   %[[GP:.*]] = llvm.getelementptr %[[P]][28] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:   %[[G:.*]] = llvm.load %[[GP]] <alignment = 4> : !llvm.ptr -> i32
// CHECK-NEXT:   %[[ID:.*]] = llvm.add %[[G]], %[[OLD]] : i32
// CHECK-NEXT:   llvm.store %[[ID]], %[[RESP]] <alignment = 4> : i32, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier{{$}}
// get_current_work after the query: every thread reads the published id.
// CHECK-NEXT: %[[CUR:.*]] = llvm.load %[[RESP]] <alignment = 4> : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[W:.*]] = llvm.call @__tileorch_sched_dp_c1x1_m(%[[P]], %[[CUR]])
// CHECK-NEXT: %[[M:.*]] = llvm.extractvalue %[[W]][0]
// CHECK:      %[[M0:.*]] = llvm.extractvalue %[[W0]][0]
// CHECK:      llvm.store %[[M]], %[[OUT]]
// CHECK-NEXT: llvm.store %[[M0]], %[[OUT]]
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[RESP]] : !llvm.ptr<3> -> i32
// CHECK-NEXT: llvm.store %[[V]], %[[OUT]]
// CHECK-NEXT: llvm.store %[[GEN]], %[[OUT]] : !llvm.ptr, !llvm.ptr<1>
// CHECK:      llvm.func internal @__tileorch_sched_dp_c1x1_m(%{{.*}}: !llvm.ptr, %{{.*}}: i32) -> !llvm.struct<(i32, i32, i32, i32, i32)>
// CHECK-NOT:  llvm.func internal @__tileorch_sched_dp_c1x1_m

// -----

// fetch_next_work on a pull-model handle claims then decodes (the same body); is_valid_tile is
// field 4 of the dp work tile; dynamic persistent (sm_100) shares the dp body.
builtin.module attributes {cutlass.target = "sm_100a"} {
  func.func @fetch(%p: !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_n>, %resp: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {nvvm.reqntid = array<i32: 64, 1, 1>} {
    cutlass.async.exec warp mask(3) {
      %s = cutlass.tile_scheduler.create_SM100_scheduler %p workid(%resp : !llvm.ptr<3>) : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_n> -> !cutlass.tile_scheduler<dynamic_persistent>
      %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<dynamic_persistent> -> !cutlass.dp_work_tile_info
      %nw, %valid, %inc = cutlass.tile_scheduler.advance_to_next_work %s, %w : !cutlass.tile_scheduler<dynamic_persistent>, !cutlass.dp_work_tile_info
      llvm.store %valid, %out : i1, !llvm.ptr<1>
    }
    func.return
  }
}
// CHECK-LABEL: func.func @fetch
// CHECK:      llvm.store %{{.*}}, %[[RESP:.*]] <alignment = 4> : i32, !llvm.ptr<3>
// CHECK:      llvm.call @__tileorch_sched_dp_c1x1_n(
// CHECK:      nvvm.barrier{{$}}
// CHECK:      llvm.atomicrmw add %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK:      nvvm.barrier{{$}}
// CHECK-NEXT: %[[ID:.*]] = llvm.load %[[RESP]] <alignment = 4> : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[NW:.*]] = llvm.call @__tileorch_sched_dp_c1x1_n(%{{.*}}, %[[ID]])
// CHECK-NEXT: %[[V:.*]] = llvm.extractvalue %[[NW]][4]
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %{{.*}} = llvm.icmp "ne" %[[V]], %[[ZERO]] : i32
// CHECK:      llvm.func internal @__tileorch_sched_dp_c1x1_n(
