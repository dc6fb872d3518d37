// Custom and generic forms of the five cutlass.seq_bar ops round-trip.
// RUN: TILEORCH_ROUNDTRIP
// RUN: TILEORCH_CUSTOM_ROUNDTRIP
// RUN: tileorch-opt %s --split-input-file --print-op-generic | tileorch-opt --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @order(%g: i32) {
  %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %ready = cutlass.seq_bar.init %sb group_size(128)
  %st = cutlass.seq_bar.state.create %ready group(%g)
  cutlass.seq_bar.wait %ready, %st group(%g)
  %st1 = cutlass.seq_bar.arrive %ready, %st group(%g) {note = "mma done"}
  func.return
}
// CHECK-LABEL: func.func @order(%g: i32)
// CHECK-NEXT:    %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
// CHECK-NEXT:    %ready = cutlass.seq_bar.init %sb group_size(128){{$}}
// CHECK-NEXT:    %st = cutlass.seq_bar.state.create %ready group(%g){{$}}
// CHECK-NEXT:    cutlass.seq_bar.wait %ready, %st group(%g){{$}}
// CHECK-NEXT:    %st1 = cutlass.seq_bar.arrive %ready, %st group(%g) {note = "mma done"}
// GENERIC: %sb = "cutlass.seq_bar.create"() : () -> !cutlass.seq_bar<depth = 2, length = 2>
// GENERIC: %ready = "cutlass.seq_bar.init"(%sb) <{group_size = 128 : i32, initializing_warp = 0 : i32, barrier = #cutlass<pipeline_barrier_type mbarrier>}> : (!cutlass.seq_bar<depth = 2, length = 2>) -> !cutlass.seq_bar<depth = 2, length = 2>
// GENERIC: %st = "cutlass.seq_bar.state.create"(%ready, %g) : (!cutlass.seq_bar<depth = 2, length = 2>, i32) -> !cutlass.seq_bar_state<2>
// GENERIC: "cutlass.seq_bar.wait"(%ready, %st, %g) : (!cutlass.seq_bar<depth = 2, length = 2>, !cutlass.seq_bar_state<2>, i32) -> ()
// GENERIC: %st1 = "cutlass.seq_bar.arrive"(%ready, %st, %g) {note = "mma done"} : (!cutlass.seq_bar<depth = 2, length = 2>, !cutlass.seq_bar_state<2>, i32) -> !cutlass.seq_bar_state<2>

// -----

func.func @storage_and_options(%smem: !llvm.ptr<3>) {
  %sb = cutlass.seq_bar.create storage(%smem : !llvm.ptr<3>) : !cutlass.seq_bar<depth = 2, length = 4>
  %ready = cutlass.seq_bar.init %sb group_size(64) initializing_warp(4) barrier(named_barrier) barrier_id_base(8)
  func.return
}
// CHECK-LABEL: func.func @storage_and_options
// CHECK-NEXT: %sb = cutlass.seq_bar.create storage(%smem : !llvm.ptr<3>) : !cutlass.seq_bar<depth = 2, length = 4>
// CHECK-NEXT: %ready = cutlass.seq_bar.init %sb group_size(64) initializing_warp(4) barrier(named_barrier) barrier_id_base(8)
// GENERIC: "cutlass.seq_bar.create"(%smem) : (!llvm.ptr<3>) -> !cutlass.seq_bar<depth = 2, length = 4>
// GENERIC: "cutlass.seq_bar.init"(%sb) <{group_size = 64 : i32, initializing_warp = 4 : i32, barrier = #cutlass<pipeline_barrier_type named_barrier>, barrier_id_base = 8 : i32}> : (!cutlass.seq_bar<depth = 2, length = 4>) -> !cutlass.seq_bar<depth = 2, length = 4>
