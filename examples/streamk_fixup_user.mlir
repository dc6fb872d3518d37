// Stream-K fix-up written out by hand (cutlass-semantics.md §5.5) instead of the monolithic
// cutlass.tile_scheduler.fixup: the first split of an output tile stores its partial
// accumulator into the tile's slice of the workspace, later non-final splits wait until the
// tile's lock counts every K tile before theirs and atomically add theirs, each non-final split
// then bumps the lock by its K tiles; the final split waits for the lock, folds the workspace
// into its accumulator and runs the epilogue.  A tile that is not split (its only unit of work
// starts at K tile 0 and is final) never touches the workspace.  The partial layout is
// CUTLASS's BlockStripedReduce (element i of thread t at slice[128 * i + t]); output tile
// (m, n, l) owns slice (l * tiles_m + m) * tiles_n + n of 1024 f32 (4 KiB).
// `tileorch check examples/streamk_fixup_user.mlir` evaluates the work-tile body once per split
// of a three-way split tile and once for an unsplit tile.

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>} {
  func.func private @epilogue(vector<8xf32>, i32, i32, i32)

  func.func @kernel(%params: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>,
                    %ws: !llvm.ptr<1>, %zero: vector<8xf32>, %tiles_m: i32, %tiles_n: i32)
      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %slice = arith.constant 1024 : i32
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
        // This output tile's slice of the workspace: one partial region per tile.
        %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_cta_coord %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %lm = arith.muli %l, %tiles_m : i32
        %row = arith.addi %lm, %m : i32
        %rown = arith.muli %row, %tiles_n : i32
        %tile = arith.addi %rown, %n : i32
        %off = arith.muli %tile, %slice : i32
        %part = llvm.getelementptr %ws[%off] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        scf.if %final {
          // Final unit of work: a split tile waits for every earlier K tile and folds the
          // partials in; an unsplit tile (it started at K tile 0) has no partials.
          %sum = scf.if %first_split -> (vector<8xf32>) {
            scf.yield %acc : vector<8xf32>
          } else {
            cutlass.tile_scheduler.fixup_wait %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
            %folded = cutlass.block_striped.load_add %part, %t, %acc n_threads_in_block = 128 : !llvm.ptr<1>, vector<8xf32> -> vector<8xf32>
            scf.yield %folded : vector<8xf32>
          }
          func.call @epilogue(%sum, %m, %n, %l) : (vector<8xf32>, i32, i32, i32) -> ()
        } else {
          scf.if %first_split {
            cutlass.block_striped.store %acc, %part, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<1>
          } else {
            // Deterministic order: add after exactly the earlier K tiles were folded in.
            cutlass.tile_scheduler.fixup_wait %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
            cutlass.block_striped.reduce add %acc, %part, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<1>
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
