// A MODS-instrumented persistent mainloop on sm_100a (seed 004).  The SM100 Stream-K scheduler
// runs on a 2x2 cluster with 2-CTA MMA, so the MODS participant mask has one bit per cluster
// half (2 participants: mask 0b11).  mods_report_mainloop_start / _end open and close the
// cluster-scoped MODS window around the whole tile loop; inside it the loop reports its SM id,
// throttles cooperatively (profile 2, cluster-aware) and with a fixed sleep (profile 1).
// The end probe returns the elapsed global-timer time since the start's timestamp.

builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func private @mainloop_tile(i32, i32, i32, i32, i32)
  func.func private @record(i32, i64)

  func.func @kernel(%params: !cutlass.tile_scheduler_streamk_params<cga = [2, 2, 1], raster = along_m>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %participants = arith.constant 3 : i64
    cutlass.async.exec warpgroup mask(1) {
      %sched = cutlass.tile_scheduler.create_SM100_scheduler %params
          : !cutlass.tile_scheduler_streamk_params<cga = [2, 2, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched
          : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
      %t_start = cutlass.tile_scheduler.mods_report_mainloop_start %sched, %participants
          {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64 -> i64
      %smid = cutlass.tile_scheduler.mods_report_smid : i32
      %last = scf.while (%w = %first) : (!cutlass.streamk_work_tile_info) -> !cutlass.streamk_work_tile_info {
        // the cluster's piece (the same in every CTA), not this CTA's share of it (may be 0)
        %count = cutlass.tile_scheduler.work_tile_info_get_value %w {field = #cutlass<streamk_work_tile_info_field k_tile_count>}
            : !cutlass.streamk_work_tile_info -> i32
        %valid = arith.cmpi sgt, %count, %c0 : i32
        scf.condition(%valid) %w : !cutlass.streamk_work_tile_info
      } do {
      ^bb0(%w: !cutlass.streamk_work_tile_info):
        %start = cutlass.tile_scheduler.get_work_k_tile_start %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_cta_coord %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        func.call @mainloop_tile(%m, %n, %l, %start, %count) : (i32, i32, i32, i32, i32) -> ()
        cutlass.tile_scheduler.mods_throttle {profile = 2 : i32}
        %next, %increment_pipe = cutlass.tile_scheduler.fetch_next_work %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
        scf.yield %next : !cutlass.streamk_work_tile_info
      }
      %elapsed = cutlass.tile_scheduler.mods_report_mainloop_end %sched, %participants, %t_start
          {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64, i64 -> i64
      func.call @record(%smid, %elapsed) : (i32, i64) -> ()
    }
    func.return
  }
}
