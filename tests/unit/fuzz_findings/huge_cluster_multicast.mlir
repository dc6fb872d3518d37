// finding:hang: tests/filecheck/cutlass/pipeline/scope_multicast_invalid.mlir#12 [hex_mask]

// Constant masks: ranks 0 and 1 share y, not x, so they are no row (same-x) set of a 2x2 cluster.
builtin.module attributes {cutlass.cluster_shape = array<i32: 0xffff, 2, 1>} {
  func.func @f(%dst: !llvm.ptr<7>, %tmap: !llvm.ptr, %s: !cutlass.pipeline_state<2>, %x: i32) {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>, multicast = #cutlass<multicast_direction row>}
    %fb = cutlass.pipeline.get_producer_barrier %r, %s
    %m = arith.constant 3 : i16
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %fb, box[%x] multicast_mask = %m : !llvm.ptr<7>, !llvm.ptr
    func.return
  }
}

