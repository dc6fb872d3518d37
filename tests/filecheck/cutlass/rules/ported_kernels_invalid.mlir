// Kernels a CUTLASS user ports with one static mistake each: the verifier rejects every one with a
// file:line:col: error: at the offending op (tileorch-opt, and so tileorch compile and tileorch check).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A ring declared with 0 stages.
func.func @stages0(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
  %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 0, producers = 1, consumers = 1>
  func.return
}
// CHECK: ported_kernels_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: pipeline stage count must be in [1, 32], found 0

// -----

// The type declares 4 consumer groups, the init lists 3 consumer warps (a count off by one).
func.func @consumers_off_by_one(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
  %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 3, producers = 1, consumers = 4>
  %r = cutlass.pipeline.init %p {numStages = 3 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2, 0x4, 0x8>}
  func.return
}
// CHECK: ported_kernels_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.pipeline.init: consumers length mismatch: the pipeline type declares 4 consumer group(s), consumers has 3 mask(s)

// -----

// An explicit release count one above the consumer warp's 32 threads: the empty barrier never completes
// (was accepted by tileorch-opt and rejected only when lowering).
func.func @release_count_plus_one(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
  %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, consumer_arv_count = array<i32: 33>}
  func.return
}
// CHECK: ported_kernels_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.pipeline.init: consumer_arv_count[0] = 33 but its group (mask 0x2, warp) has 32 threads; each thread arrives once per phase, so the barrier could never complete

// -----

// A producer count above a two-warp-group producer's 256 threads.
func.func @producer_count_too_big(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
  %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 0x3>, consumers = array<i64: 0x4>, producer_arv_count = array<i32: 257>}
  func.return
}
// CHECK: ported_kernels_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.pipeline.init: producer_arv_count[0] = 257 but its group (mask 0x3, warpgroup) has 256 threads

// -----

// Two rings in one kernel: the epilogue ring is acquired with the load ring's state.
func.func @crossed_states(%smem: !llvm.ptr<3>, %smem2: !llvm.ptr<3>) attributes {nvvm.kernel} {
  %lp = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 3, producers = 1, consumers = 1>
  %load = cutlass.pipeline.init %lp {numStages = 3 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  %ep = cutlass.pipeline.create storage(%smem2) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %epi = cutlass.pipeline.init %ep {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x2>, consumers = array<i64: 0x4>}
  cutlass.async.exec warp mask(0x2) {
    %s = cutlass.pipeline.state.create %load consumer
    cutlass.pipeline.producer_acquire %epi, %s
  }
  func.return
}
// CHECK: ported_kernels_invalid.mlir:[[# @LINE - 4]]:5: error: cutlass.pipeline.producer_acquire: the state has 3 stages but the pipeline has 2

// -----

// numStages written as a float.
func.func @stages_float(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
  %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %p {numStages = 2.0 : f32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
  func.return
}
// CHECK: ported_kernels_invalid.mlir:[[# @LINE - 3]]:3: error: property 'numStages' of cutlass.pipeline.init does not verify

// -----

// Executor masks written as i32.
func.func @masks_i32(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
  %p = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i32: 1>, consumers = array<i64: 0x2>}
  func.return
}
// CHECK: ported_kernels_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.pipeline.init: participants holds executor masks, so it must be array<i64: ...>, found array<i32: 1>

// -----

// max_swizzle_size written as i64.
func.func @swizzle_i64(%m: i32, %sms: i32) {
  %sp = cutlass.tile_scheduler.make_static_persistent_params %m, %m, %m, %m sms(%sms) {tile_shape = array<i64: 128, 128, 64>, max_swizzle_size = 4 : i64} : !cutlass.tile_scheduler_static_persistent_params<cga = [1, 1, 1], raster = along_n>
  func.return
}
// CHECK: ported_kernels_invalid.mlir:[[# @LINE - 3]]:3: error: property 'max_swizzle_size' of cutlass.tile_scheduler.make_static_persistent_params does not verify: Expected attribute i32 but got i64

// -----

// A 3x1 cluster for a persistent tile walk: the scheduler divides the tile grid by the cluster
// extents with shifts, so a 3-wide cluster would not tile the grid.
builtin.module attributes {cutlass.cluster_shape = array<i32: 3, 1, 1>} {
  func.func @walk_cga3(%spp: !cutlass.tile_scheduler_static_persistent_params<cga = [3, 1, 1], raster = along_n>) attributes {nvvm.kernel} {
    cutlass.async.exec warpgroup mask(1) {
      %sp = cutlass.tile_scheduler.create_static_persistent_params %spp : !cutlass.tile_scheduler_static_persistent_params<cga = [3, 1, 1], raster = along_n> -> !cutlass.tile_scheduler<static_persistent>
    }
    func.return
  }
}
// CHECK: ported_kernels_invalid.mlir:[[# @LINE - 5]]:{{[0-9]+}}: error: CGA shape extents must be powers of two (the scheduler divides by them with shifts), found [3, 1, 1]

// -----

// setmaxnreg budgets: 40 + 240 + 240 = 520 registers per lane slot, more than the 3 x 168 a
// 384-thread CTA starts with.
func.func @regs_over_budget() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
  cutlass.async.exec warpgroup mask(0x1) regs(40) {
  }
  cutlass.async.exec warpgroup mask(0x6) regs(240) {
  }
  func.return
}
// CHECK: ported_kernels_invalid.mlir:[[# @LINE - 6]]:3: error: cutlass.async.exec: the warp groups' regs(N) need 40 (warp group 0) + 240 (warp group 1) + 240 (warp group 2) = 520 registers per lane slot, more than the 3 x 168 = 504 they start with

// -----

// Named barrier 3 waits for 384 threads in a CTA of 256.
func.func @named_count_over_cta() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>} {
  cutlass.async.exec warpgroup mask(0x1) {
    cutlass.named_barrier.arrive barrier_id = 3 num_threads = 256
  }
  cutlass.async.exec warpgroup mask(0x2) {
    cutlass.named_barrier.arrive_and_wait barrier_id = 3 num_threads = 384
  }
  func.return
}
// CHECK: ported_kernels_invalid.mlir:[[# @LINE - 4]]:5: error: 'cutlass.named_barrier.arrive_and_wait' op arrive count (from num_threads) is 384, more than the 256 threads of the CTA (the kernel's nvvm.maxntid): the barrier could never complete
