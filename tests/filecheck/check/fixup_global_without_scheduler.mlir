// A block-striped reduce / load_add on a global workspace in a kernel without a cutlass.tile_scheduler (review 36:
// after sweep 28 limited the Stream-K fix-up model to scheduled kernels, this printed "no kernel ... to check" and
// exited 0): a located "cannot model" error, non-zero exit, never silent.
// RUN: not tileorch check %s --jobs 1 2>&1 | filecheck %s
// CHECK: fixup_global_without_scheduler.mlir:13:7: error: the checker cannot model cutlass.block_striped.reduce on global memory in a kernel without a cutlass.tile_scheduler
// CHECK-NOT: no kernel with
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @race(%ws: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    cutlass.async.exec warpgroup mask(1) {
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t = arith.index_cast %tid : index to i32
      %v = arith.constant dense<2.500000e+00> : vector<4xf32>
      cutlass.block_striped.reduce add %v, %ws, %t n_threads_in_block = 128 : vector<4xf32>, !llvm.ptr<1>
      %w = cutlass.block_striped.load_add %ws, %t, %v n_threads_in_block = 128 : !llvm.ptr<1>, vector<4xf32> -> vector<4xf32>
    }
    func.return
  }
}
