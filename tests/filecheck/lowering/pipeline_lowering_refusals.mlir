// RUN: not tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm 2>&1 | filecheck %s
// Pipeline programs the verifier accepts but convert-pipeline-to-nvvm cannot lower: each a located
// error at the op (session 20: these refusals had no test).

// A named-barrier pipeline has no mbarrier to probe.
builtin.module {
  func.func @try_wait_named(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) -> i1 {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, barrier = named_barrier>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, barrier_id_base = 8 : i32}
    %t = cutlass.pipeline.consumer_try_wait %r, %s
    func.return %t : i1
  }
}
// CHECK: pipeline_lowering_refusals.mlir:[[# @LINE - 4]]:5: error: consumer_try_wait cannot probe a named-barrier pipeline

// -----

// A consumer group of warps 1 and 3 (mask 0xa) is not one run of threads the lowering can select.
builtin.module {
  func.func @split_group(%smem: !llvm.ptr<3>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 0xa>}
    cutlass.pipeline.consumer_release %r, %s
    func.return
  }
}
// CHECK: pipeline_lowering_refusals.mlir:[[# @LINE - 4]]:5: error: pipeline group mask 0xa is not one contiguous run of executor units

// -----

// Barrier initialisation ends with a CTA-wide sync: one warp alone would wait forever.
builtin.module {
  func.func @init_in_warp(%smem: !llvm.ptr<3>) {
    %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    cutlass.async.exec warp mask(0x1) {
      %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    }
    func.return
  }
}
// CHECK: pipeline_lowering_refusals.mlir:[[# @LINE - 5]]:7: error: 'cutlass.pipeline.init' must run on the whole CTA (it ends with a CTA/cluster sync), not inside an executor region

// -----

// A grid-constant parameter is passed by value: a pointer argument needs llvm.byval.
builtin.module {
  func.func @grid_constant_without_byval(%p: !llvm.ptr {nvvm.grid_constant}) attributes {nvvm.kernel} {
    func.return
  }
}
// CHECK: pipeline_lowering_refusals.mlir:[[# @LINE - 4]]:3: error: argument 0: nvvm.grid_constant needs llvm.byval or a tile-scheduler params type

// -----

// A tile-scheduler params argument of a device function (not a kernel) marked grid-constant: only
// kernel parameters live in the constant bank.
builtin.module {
  func.func @grid_constant_params_of_a_helper(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic> {nvvm.grid_constant}) {
    func.return
  }
}
// CHECK: pipeline_lowering_refusals.mlir:[[# @LINE - 4]]:3: error: argument 0: only kernel arguments can be grid-constant

// -----

// block_striped ops and semaphores take pointers: a memref operand was not converted first
// (tileorch compile converts memrefs; tileorch-opt runs only the passes it is given).
builtin.module {
  func.func @striped_memref(%p: memref<512xf32>, %t: i32) -> vector<4xf32> {
    %v = cutlass.block_striped.load %p, %t n_threads_in_block = 128 access_width = 2 : memref<512xf32> -> vector<4xf32>
    func.return %v : vector<4xf32>
  }
}
// CHECK: pipeline_lowering_refusals.mlir:[[# @LINE - 4]]:5: error: 'cutlass.block_striped.load': a memref tile must be converted to !llvm.ptr before convert-pipeline-to-nvvm

// -----

builtin.module {
  func.func @semaphore_memref(%lock: memref<8xi32>, %i: i32) {
    cutlass.generic_barrier.wait_eq %lock[%i] num_threads = 128 : memref<8xi32>
    func.return
  }
}
// CHECK: pipeline_lowering_refusals.mlir:[[# @LINE - 4]]:5: error: a memref semaphore must be converted to !llvm.ptr<1> before convert-pipeline-to-nvvm

// -----

// A sequence barrier passed in as an argument: its seq_bar.init (which says mbarrier or named
// barrier) is not in the function.
builtin.module {
  func.func @seq_bar_from_an_argument(%r: !cutlass.seq_bar<depth = 2, length = 3>, %g: i32) {
    %st = cutlass.seq_bar.state.create %r group(%g)
    cutlass.seq_bar.wait %r, %st group(%g)
    func.return
  }
}
// CHECK: pipeline_lowering_refusals.mlir:[[# @LINE - 4]]:5: error: cannot find the cutlass.seq_bar.init of this sequence barrier (needed for its barrier kind)
