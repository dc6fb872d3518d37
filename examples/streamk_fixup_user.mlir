// Stream-K fix-up written out by hand (cutlass-semantics.md §5.5) instead of the monolithic
// cutlass.tile_scheduler.fixup: the first split of an output tile stores its partial
// accumulator into the workspace, later non-final splits wait until the tile's lock counts
// every K tile before theirs and atomically add theirs, each non-final split then bumps the
// lock by its K tiles; the final split waits for the lock, folds the workspace into its
// accumulator and runs the epilogue.  The partial layout is CUTLASS's BlockStripedReduce
// (element i of thread t at ws[128 * i + t]).
// `tileorch check examples/streamk_fixup_user.mlir` evaluates the work-tile body once per split.

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>} {
  func.func private @epilogue(vector<8xf32>, i32, i32, i32)

  func.func @kernel(%params: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>,
                    %ws: !llvm.ptr<1>, %zero: vector<8xf32>) {
    %c0 = arith.constant 0 : i32
    cutlass.async.exec warpgroup mask(1) {
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t = arith.index_cast %tid : index to i32
      %sched = cutlass.tile_scheduler.create_streamk_params %params
          : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched
          : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
      %last = scf.while (%w = %first) : (!cutlass.streamk_work_tile_info) -> !cutlass.streamk_work_tile_info {
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %valid = arith.cmpi sgt, %count, %c0 : i32
        scf.condition(%valid) %w : !cutlass.streamk_work_tile_info
      } do {
      ^bb0(%w: !cutlass.streamk_work_tile_info):
        %k_start = cutlass.tile_scheduler.get_work_k_tile_start %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %n_k = arith.index_cast %count : i32 to index
        %lo = arith.constant 0 : index
        %one = arith.constant 1 : index
        %acc = scf.for %kt = %lo to %n_k step %one iter_args(%a = %zero) -> (vector<8xf32>) {
          %mma = arith.addf %a, %a : vector<8xf32>
          scf.yield %mma : vector<8xf32>
        }
        %final = cutlass.tile_scheduler.compute_epilogue %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %first_split = arith.cmpi eq, %k_start, %c0 : i32
        scf.if %final {
          // Final split: wait for every earlier K tile, fold the partials in, epilogue.
          cutlass.tile_scheduler.fixup_wait %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
          %sum = cutlass.block_striped.load_add %ws, %t, %acc n_threads_in_block = 128 : !llvm.ptr<1>, vector<8xf32> -> vector<8xf32>
          %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_cta_coord %sched, %w
              : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
          func.call @epilogue(%sum, %m, %n, %l) : (vector<8xf32>, i32, i32, i32) -> ()
        } else {
          scf.if %first_split {
            cutlass.block_striped.store %acc, %ws, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<1>
          } else {
            // Deterministic order: add after exactly the earlier K tiles were folded in.
            cutlass.tile_scheduler.fixup_wait %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
            cutlass.block_striped.reduce add %acc, %ws, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<1>
          }
          cutlass.tile_scheduler.fixup_increment %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        }
        %next, %increment_pipe = cutlass.tile_scheduler.fetch_next_work %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.yield %next : !cutlass.streamk_work_tile_info
      }
    }
    func.return
  }
}
