// SM100 Stream-K with cluster-level coordination on sm_100a (seed 000 scheduler body sub_R01;
// docs/blackwell.md "SM100 Stream-K").  A 2x1 cluster is one Stream-K worker: it claims a
// contiguous range of (tile, K) iterations and walks it one piece per output tile; the piece is the
// same in both CTAs, which split its K tiles by cluster rank (get_work_k_tile_start / _count are
// this CTA's share).  The fix-up first reduces the piece inside the cluster: rank 1 stores its
// partial in its own shared memory, barrier.cluster.arrive/wait, rank 0 adds it through DSMEM
// (mapa + ld.shared::cluster), barrier.cluster.arrive/wait again; then rank 0 alone does the
// generic workspace fix-up with the other clusters that hold pieces of the same tile, and the
// rank 0 of the tile's final split runs the epilogue.
//
// The whole CTA (a `cta` executor of 128 threads) runs the loop: barrier.cluster counts every
// thread.  The loop tests the cluster's piece (work_tile_info_get_value k_tile_count), never the
// CTA's share, which can be 0.  The MMA is a stand-in (one add per K tile), so a correct run
// writes k_tiles_per_output_tile into every element of every output tile.

builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  // this CTA's partial tile: 128 threads x 8 f32 (the fix-up's striped layout)
  llvm.mlir.global internal @partials() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4096 x i8>

  func.func @streamk_sm100(%params: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>,
                           %zero: vector<8xf32>, %one: vector<8xf32>, %out: !llvm.ptr<1>)
      attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    cutlass.async.exec cta mask(1) threads(128) {
      %c0 = arith.constant 0 : i32
      %tiles_n = arith.constant 64 : i32
      %threads = arith.constant 128 : i32
      %buf = llvm.mlir.addressof @partials : !llvm.ptr<3>
      %sched = cutlass.tile_scheduler.create_SM100_scheduler %params
          : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<streamk>
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched
          : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
      %last = scf.while (%w = %first) : (!cutlass.streamk_work_tile_info) -> !cutlass.streamk_work_tile_info {
        %piece = cutlass.tile_scheduler.work_tile_info_get_value %w {field = #cutlass<streamk_work_tile_info_field k_tile_count>}
            : !cutlass.streamk_work_tile_info -> i32
        %valid = arith.cmpi sgt, %piece, %c0 : i32
        scf.condition(%valid) %w : !cutlass.streamk_work_tile_info
      } do {
      ^bb0(%w: !cutlass.streamk_work_tile_info):
        // this CTA's share of the piece
        %start = cutlass.tile_scheduler.get_work_k_tile_start %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        %end = arith.addi %start, %count : i32
        %lo = arith.index_cast %start : i32 to index
        %hi = arith.index_cast %end : i32 to index
        %step = arith.constant 1 : index
        %acc = scf.for %kt = %lo to %hi step %step iter_args(%a = %zero) -> (vector<8xf32>) {
          %mma = arith.addf %a, %one : vector<8xf32>
          scf.yield %mma : vector<8xf32>
        }
        %fixed = cutlass.tile_scheduler.fixup %sched, %w, %acc smem(%buf : !llvm.ptr<3>)
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<8xf32>
        %run_epilogue = cutlass.tile_scheduler.compute_epilogue %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.if %run_epilogue {
          %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_cta_coord %sched, %w
              : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
          %tid = nvvm.read.ptx.sreg.tid.x : i32
          %row = arith.muli %m, %tiles_n : i32
          %tile = arith.addi %row, %n : i32
          %base = arith.muli %tile, %threads : i32
          %slot = arith.addi %base, %tid : i32
          %dst = llvm.getelementptr %out[%slot] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<8xf32>
          llvm.store %fixed, %dst : vector<8xf32>, !llvm.ptr<1>
        }
        %next, %increment_pipe = cutlass.tile_scheduler.fetch_next_work %sched, %w
            : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
        scf.yield %next : !cutlass.streamk_work_tile_info
      }
    }
    func.return
  }
}
