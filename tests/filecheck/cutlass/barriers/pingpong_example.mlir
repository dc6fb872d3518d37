// examples/pingpong_seq_bar.mlir verifies and round-trips (custom and generic form).
// RUN: tileorch-opt %S/../../../../examples/pingpong_seq_bar.mlir | filecheck %s
// RUN: tileorch-opt %S/../../../../examples/pingpong_seq_bar.mlir --print-op-generic | tileorch-opt | filecheck %s
// RUN: tileorch-opt %S/../../../../examples/pingpong_seq_bar.mlir -p dce,cse | filecheck %s

// CHECK:      %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
// CHECK-NEXT: %order = cutlass.seq_bar.init %sb group_size(128)
// CHECK:      cutlass.named_barrier.arrive_and_wait barrier_id = 0{{$}}
// CHECK:      %st0 = cutlass.seq_bar.state.create %order group(%group)
// CHECK:      scf.for %tile = %group to %num_tiles step %c2_i32 iter_args(%st = %st0) -> (!cutlass.seq_bar_state<2>)
// CHECK-NEXT:   cutlass.seq_bar.wait %order, %st group(%group)
// CHECK-NEXT:   func.call @mma_tile(%tile)
// CHECK-NEXT:   %st_epi = cutlass.seq_bar.arrive %order, %st group(%group)
// CHECK-NEXT:   cutlass.seq_bar.wait %order, %st_epi group(%group)
// CHECK-NEXT:   func.call @epilogue_tile(%tile)
// CHECK-NEXT:   cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 128
// CHECK-NEXT:   %st_next = cutlass.seq_bar.arrive %order, %st_epi group(%group)
// CHECK-NEXT:   scf.yield %st_next : !cutlass.seq_bar_state<2>
