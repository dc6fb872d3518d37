// A persistent Stream-K GEMM skeleton on sm_90a (generic Stream-K body, per-CTA atomics on the
// barrier workspace).  The host builds the params, sizes and zeroes the workspace and picks the
// grid; on the device a producer warp walks the same tile sequence as the two consumer warp
// groups, which run the mainloop over each work piece's K range and fix up partial
// accumulators through the workspace before the final split runs the epilogue.
// The MMA is a stand-in (arith.addf); see docs/dialect-conventions.md, tile scheduler section.

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @host(%m: i32, %n: i32, %k: i32, %l: i32, %sms: i32, %workspace: !llvm.ptr<1>)
      -> (!cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic>, i32, i32, i32) {
    %params = cutlass.tile_scheduler.make_streamk_params %m, %n, %k, %l sms(%sms)
        {tile_shape = array<i64: 128, 128, 64>, max_swizzle_size = 2 : i32,
         decomp_mode = #cutlass<decomp_mode heuristic>}
        : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic>
    %total, %reduc, %bar = cutlass.tile_scheduler.get_workspace_sizes %params
        : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic> -> i64, i64, i64
    cutlass.tile_scheduler.initialize_workspace %params, %workspace sizes(%reduc, %bar : i64, i64)
        : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic>, !llvm.ptr<1>
    %gx, %gy, %gz = cutlass.tile_scheduler.get_grid_shape %params, %sms
        : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic>
    func.return %params, %gx, %gy, %gz
        : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic>, i32, i32, i32
  }

  func.func private @load_k_tile(i32, i32, i32, index)
  func.func private @epilogue(vector<64xf32>, i32, i32, i32)

  func.func @kernel(%params: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic>,
                    %zero: vector<64xf32>) attributes {nvvm.kernel} {
    %c0 = arith.constant 0 : i32
    // Producer: warp 0 issues the loads of every K tile of every work piece.
    cutlass.async.exec warp mask(1) {
      %sched = cutlass.tile_scheduler.create_streamk_params %params
          : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched
          : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
      %last = scf.while (%w = %first) : (!cutlass.streamk_work_tile_info) -> !cutlass.streamk_work_tile_info {
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %valid = arith.cmpi sgt, %count, %c0 : i32
        scf.condition(%valid) %w : !cutlass.streamk_work_tile_info
      } do {
      ^bb0(%w: !cutlass.streamk_work_tile_info):
        %start = cutlass.tile_scheduler.get_work_k_tile_start %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %tm, %tn, %tk, %tl = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %w : !cutlass.streamk_work_tile_info
        %lo = arith.index_cast %start : i32 to index
        %end = arith.addi %start, %count : i32
        %hi = arith.index_cast %end : i32 to index
        %one = arith.constant 1 : index
        scf.for %kt = %lo to %hi step %one {
          func.call @load_k_tile(%tm, %tn, %tl, %kt) : (i32, i32, i32, index) -> ()
        }
        %next, %is_valid, %increment_pipe = cutlass.tile_scheduler.advance_to_next_work %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.yield %next : !cutlass.streamk_work_tile_info
      }
    }
    // Consumer warp group 1 accumulates, fixes up, and runs the epilogue on the final split.
    // Each consumer warp group passes its own fix-up barrier index (CUTLASS: the warp group's
    // index): it names the group's named barrier (StreamK0 + 0) and its lock and workspace
    // slice of every tile, so the two groups never meet on one barrier or race on one lock.
    cutlass.async.exec warpgroup mask(2) {
      %sched = cutlass.tile_scheduler.create_streamk_params %params
          : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched
          : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
      %last = scf.while (%w = %first) : (!cutlass.streamk_work_tile_info) -> !cutlass.streamk_work_tile_info {
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %valid = arith.cmpi sgt, %count, %c0 : i32
        scf.condition(%valid) %w : !cutlass.streamk_work_tile_info
      } do {
      ^bb0(%w: !cutlass.streamk_work_tile_info):
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %n_k = arith.index_cast %count : i32 to index
        %lo = arith.constant 0 : index
        %one = arith.constant 1 : index
        %acc = scf.for %kt = %lo to %n_k step %one iter_args(%a = %zero) -> (vector<64xf32>) {
          %mma = arith.addf %a, %a : vector<64xf32>
          scf.yield %mma : vector<64xf32>
        }
        // Non-final splits store/reduce their partials and bump the tile's lock; the final split
        // waits for all earlier K tiles and folds them in.
        %fixed = cutlass.tile_scheduler.fixup %sched, %w, %acc {barrier_idx = 0 : i32, num_barriers = 2 : i32}
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<64xf32>
        %run_epilogue = cutlass.tile_scheduler.compute_epilogue %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.if %run_epilogue {
          %cm, %cn, %ck, %cl = cutlass.tile_scheduler.work_tile_info_to_cta_coord %sched, %w
              : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
          func.call @epilogue(%fixed, %cm, %cn, %cl) : (vector<64xf32>, i32, i32, i32) -> ()
        }
        %next, %increment_pipe = cutlass.tile_scheduler.fetch_next_work %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.yield %next : !cutlass.streamk_work_tile_info
      }
    }
    // Consumer warp group 2 accumulates, fixes up, and runs the epilogue on the final split.
    // Each consumer warp group passes its own fix-up barrier index (CUTLASS: the warp group's
    // index): it names the group's named barrier (StreamK0 + 1) and its lock and workspace
    // slice of every tile, so the two groups never meet on one barrier or race on one lock.
    cutlass.async.exec warpgroup mask(4) {
      %sched = cutlass.tile_scheduler.create_streamk_params %params
          : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched
          : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
      %last = scf.while (%w = %first) : (!cutlass.streamk_work_tile_info) -> !cutlass.streamk_work_tile_info {
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %valid = arith.cmpi sgt, %count, %c0 : i32
        scf.condition(%valid) %w : !cutlass.streamk_work_tile_info
      } do {
      ^bb0(%w: !cutlass.streamk_work_tile_info):
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %n_k = arith.index_cast %count : i32 to index
        %lo = arith.constant 0 : index
        %one = arith.constant 1 : index
        %acc = scf.for %kt = %lo to %n_k step %one iter_args(%a = %zero) -> (vector<64xf32>) {
          %mma = arith.addf %a, %a : vector<64xf32>
          scf.yield %mma : vector<64xf32>
        }
        // Non-final splits store/reduce their partials and bump the tile's lock; the final split
        // waits for all earlier K tiles and folds them in.
        %fixed = cutlass.tile_scheduler.fixup %sched, %w, %acc {barrier_idx = 1 : i32, num_barriers = 2 : i32}
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<64xf32>
        %run_epilogue = cutlass.tile_scheduler.compute_epilogue %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.if %run_epilogue {
          %cm, %cn, %ck, %cl = cutlass.tile_scheduler.work_tile_info_to_cta_coord %sched, %w
              : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
          func.call @epilogue(%fixed, %cm, %cn, %cl) : (vector<64xf32>, i32, i32, i32) -> ()
        }
        %next, %increment_pipe = cutlass.tile_scheduler.fetch_next_work %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.yield %next : !cutlass.streamk_work_tile_info
      }
    }
    func.return
  }
}
