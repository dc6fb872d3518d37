// Side effects are truthful: accessors are Pure (unused ones vanish, duplicates merge); scheduler
// constructors allocate (never merged, dropped when unused); state mutators, fix-up and workspace
// initialisation write (kept with unused results); get_current_work only reads (not merged across
// an advance).
// RUN: tileorch-opt %s -p dce,cse | filecheck %s

func.func @effects(%p: !cutlass.tile_scheduler_streamk_params, %ws: !llvm.ptr<1>, %rs: i64, %bs: i64, %out: !llvm.ptr) {
  cutlass.async.exec warpgroup mask(1) {
    %dead_sched = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
    %s1 = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
    %s2 = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s1 : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %dead_k = cutlass.tile_scheduler.get_work_k_tile_start %s1, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %dead_m, %dead_n, %dead_kk, %dead_l = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %w : !cutlass.streamk_work_tile_info
    %k1 = cutlass.tile_scheduler.get_work_k_tile_count %s1, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %k2 = cutlass.tile_scheduler.get_work_k_tile_count %s1, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %cur1 = cutlass.tile_scheduler.get_current_work %s1 : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %dead_cur = cutlass.tile_scheduler.get_current_work %s2 : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    cutlass.tile_scheduler.fixup_wait %s1, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    cutlass.tile_scheduler.fixup_increment %s1, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %n1, %v1, %i1 = cutlass.tile_scheduler.advance_to_next_work %s1, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %n2, %i2 = cutlass.tile_scheduler.fetch_next_work %s2, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %cur2 = cutlass.tile_scheduler.get_current_work %s1 : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %c1 = cutlass.tile_scheduler.get_work_k_tile_count %s1, %cur1 : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %c2 = cutlass.tile_scheduler.get_work_k_tile_count %s1, %cur2 : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %sum = arith.addi %k1, %k2 : i32
    %sum2 = arith.addi %c1, %c2 : i32
    %sum3 = arith.addi %sum, %sum2 : i32
    llvm.store %sum3, %out : i32, !llvm.ptr
  }
  cutlass.tile_scheduler.initialize_workspace %p, %ws sizes(%rs, %bs : i64, i64) : !cutlass.tile_scheduler_streamk_params, !llvm.ptr<1>
  func.return
}

// CHECK:       cutlass.async.exec
// CHECK-NEXT:    %[[S1:.*]] = cutlass.tile_scheduler.create_streamk_params
// CHECK-NEXT:    %[[S2:.*]] = cutlass.tile_scheduler.create_streamk_params
// CHECK-NEXT:    %[[W:.*]] = cutlass.tile_scheduler.initial_work_tile_info %[[S1]]
// CHECK-NEXT:    %[[K:.*]] = cutlass.tile_scheduler.get_work_k_tile_count %[[S1]], %[[W]]
// CHECK-NEXT:    %[[CUR1:.*]] = cutlass.tile_scheduler.get_current_work %[[S1]]
// CHECK-NEXT:    cutlass.tile_scheduler.fixup_wait %[[S1]], %[[W]]
// CHECK-NEXT:    cutlass.tile_scheduler.fixup_increment %[[S1]], %[[W]]
// CHECK-NEXT:    cutlass.tile_scheduler.advance_to_next_work %[[S1]], %[[W]]
// CHECK-NEXT:    cutlass.tile_scheduler.fetch_next_work %[[S2]], %[[W]]
// CHECK-NEXT:    %[[CUR2:.*]] = cutlass.tile_scheduler.get_current_work %[[S1]]
// CHECK-NEXT:    %{{.*}} = cutlass.tile_scheduler.get_work_k_tile_count %[[S1]], %[[CUR1]]
// CHECK-NEXT:    %{{.*}} = cutlass.tile_scheduler.get_work_k_tile_count %[[S1]], %[[CUR2]]
// CHECK-NEXT:    arith.addi %[[K]], %[[K]] : i32
// CHECK:       cutlass.tile_scheduler.initialize_workspace
