// A ported ring on a 2x1 cluster: the producer multicasts along the row (get_producer_mask row),
// consumers release to both CTAs; with it a persistent tile walk (static-persistent scheduler,
// swizzle 4, raster along_n) and its host-side params and grid.
// It verifies, lowers (ptxas sm_90a) and `tileorch check` proves it over both CTAs' agents.
// RUN: tileorch check %s --jobs 1 2>&1 | filecheck %s --check-prefix=CHECKER
// RUN: tileorch compile %s -o %t.ptx 2>&1 | filecheck %s --check-prefix=PTX
// PTX: accepted by ptxas -arch=sm_90a
// CHECKER-NOT: error:
// CHECKER: {{^}}cl2x1: OK: all properties hold{{.*}}; 4 agents)
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @cl2x1(%k_tiles: i32, %smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x3) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          %mc = cutlass.pipeline.get_producer_mask %p row
          cutlass.pipeline.producer_commit %p, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0x2) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<2>
        }
      }
    }
    func.return
  }
  func.func @host(%m: i32, %n: i32, %k: i32, %l: i32, %sms: i32)
      -> (!cutlass.tile_scheduler_static_persistent_params<cga = [2, 1, 1], raster = along_n>, i32, i32, i32) {
    %sp = cutlass.tile_scheduler.make_static_persistent_params %m, %n, %k, %l sms(%sms) {tile_shape = array<i64: 128, 128, 64>, max_swizzle_size = 4 : i32} : !cutlass.tile_scheduler_static_persistent_params<cga = [2, 1, 1], raster = along_n>
    %gx, %gy, %gz = cutlass.tile_scheduler.get_grid_shape %sp, %sms : !cutlass.tile_scheduler_static_persistent_params<cga = [2, 1, 1], raster = along_n>
    func.return %sp, %gx, %gy, %gz : !cutlass.tile_scheduler_static_persistent_params<cga = [2, 1, 1], raster = along_n>, i32, i32, i32
  }
  func.func private @tile(i32)
  func.func @walk(%spp: !cutlass.tile_scheduler_static_persistent_params<cga = [2, 1, 1], raster = along_n>, %ntiles: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    cutlass.async.exec warpgroup mask(1) {
      %sp = cutlass.tile_scheduler.create_static_persistent_params %spp : !cutlass.tile_scheduler_static_persistent_params<cga = [2, 1, 1], raster = along_n> -> !cutlass.tile_scheduler<static_persistent>
      %s0 = cutlass.tile_scheduler.create_static_persistent_work_tile_info
      %first, %inc0 = cutlass.tile_scheduler.static_fetch_next_work %sp, %s0 : !cutlass.tile_scheduler<static_persistent>, !cutlass.static_persistent_work_tile_info
      %last = scf.while (%w = %first) : (!cutlass.static_persistent_work_tile_info) -> !cutlass.static_persistent_work_tile_info {
        %t = cutlass.tile_scheduler.work_tile_info_get_value %w {field = #cutlass<static_persistent_work_tile_info_field tile_idx>} : !cutlass.static_persistent_work_tile_info -> i32
        %more = arith.cmpi slt, %t, %ntiles : i32
        scf.condition(%more) %w : !cutlass.static_persistent_work_tile_info
      } do {
      ^bb0(%w: !cutlass.static_persistent_work_tile_info):
        %t = cutlass.tile_scheduler.work_tile_info_get_value %w {field = #cutlass<static_persistent_work_tile_info_field tile_idx>} : !cutlass.static_persistent_work_tile_info -> i32
        func.call @tile(%t) : (i32) -> ()
        %next, %inc = cutlass.tile_scheduler.static_fetch_next_work %sp, %w : !cutlass.tile_scheduler<static_persistent>, !cutlass.static_persistent_work_tile_info
        scf.yield %next : !cutlass.static_persistent_work_tile_info
      }
    }
    func.return
  }
}
