// A stage copy whose shared-memory destination is known statically (a constant or the stage index and the CTA's
// cluster coordinates, through llvm.getelementptr / llvm.addrspacecast) is refused by convert-atoms-to-nvvm, the
// first pass of `tileorch compile`, where it lands on the pipeline's own mbarriers (`storage(%smem)`: bytes
// 0 .. 16 x stages - 1) or where two copies of one stage write the same bytes: before session 41 only
// `tileorch check` refused these, and a compile without it built a kernel that corrupts its barriers (a hang).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p convert-atoms-to-nvvm | filecheck %s

// stage 1 of a 2-stage ring lands at 16 + 4096 * index: stage 0 on bytes [16, 4112), over the 2 x 2 barriers
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @onto_the_barriers(%smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %p = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, transaction_size = array<i32: 4096>}
    %s = cutlass.pipeline.state.create %p producer
    %full = cutlass.pipeline.get_producer_barrier %p, %s
    %bytes = arith.constant 4096 : i32
    %idx = cutlass.pipeline.state.get_index %s
    %sidx = arith.muli %idx, %bytes : i32
    %c16 = arith.constant 16 : i32
    %off = arith.addi %sidx, %c16 : i32
    %dst = llvm.getelementptr %smem[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    atom.bulk_copy_g2s %dst, %src, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
    func.return
  }
}
// CHECK: stage_copy_slots_invalid.mlir:[[# @LINE - 4]]:5: error: stage-slots: this copy of stage 0 writes bytes [16, 4112) of the pipeline's storage pointer, where its 2 x 2 mbarriers live (bytes 0..31, cutlass.pipeline.create storage(...)): the data lands on the barriers it completes on

// -----

// the storage pointer itself as the destination
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @at_the_storage(%smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1>
    %p = cutlass.pipeline.init %pipe {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, transaction_size = array<i32: 4096>}
    %s = cutlass.pipeline.state.create %p producer
    %full = cutlass.pipeline.get_producer_barrier %p, %s
    %bytes = arith.constant 4096 : i32
    atom.bulk_copy_g2s %smem, %src, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
    func.return
  }
}
// CHECK: stage_copy_slots_invalid.mlir:[[# @LINE - 4]]:5: error: stage-slots: this copy of stage 0 writes bytes [0, 4096) of the pipeline's storage pointer, where its 1 x 2 mbarriers live

// -----

// a hand-written nvvm copy through an address-space cast: stage 3 of 4 at 4 + 1024 * 3 is past the barriers, stage 0
// at byte 4 is not
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @cast_onto_the_barriers(%smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
    %p = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, transaction_size = array<i32: 1024>}
    %s = cutlass.pipeline.state.create %p producer
    %full = cutlass.pipeline.get_producer_barrier %p, %s
    %bytes = arith.constant 1024 : i32
    %idx = cutlass.pipeline.state.get_index %s
    %sidx = arith.muli %idx, %bytes : i32
    %at = llvm.getelementptr %smem[%sidx] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %dst3 = llvm.getelementptr %at[4] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %dst = llvm.addrspacecast %dst3 : !llvm.ptr<3> to !llvm.ptr<7>
    "nvvm.cp.async.bulk.shared.cluster.global"(%dst, %src, %full, %bytes) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0>}> : (!llvm.ptr<7>, !llvm.ptr<1>, !llvm.ptr<3>, i32) -> ()
    func.return
  }
}
// CHECK: stage_copy_slots_invalid.mlir:[[# @LINE - 4]]:5: error: stage-slots: this copy of stage 0 writes bytes [4, 1028) of the pipeline's storage pointer, where its 4 x 2 mbarriers live

// -----

// a 1x2 cluster: the B half of CTA 1 lands on the A half (its offset 2048 * rank added to the A base, not the B base)
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 2, 1>} {
  func.func @halves_overlap(%smem: !llvm.ptr<3>, %a: !llvm.ptr<1>, %b: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %p = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, transaction_size = array<i32: 8192>}
    %s = cutlass.pipeline.state.create %p producer
    %full = cutlass.pipeline.get_producer_barrier %p, %s
    %stage = arith.constant 8192 : i32
    %half = arith.constant 4096 : i32
    %c1024 = arith.constant 1024 : i32
    %idx = cutlass.pipeline.state.get_index %s
    %sidx = arith.muli %idx, %stage : i32
    %base = arith.addi %sidx, %c1024 : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %b_part = arith.muli %rank, %half : i32
    %b_off = arith.addi %base, %b_part : i32
    %a_dst = llvm.getelementptr %smem[%base] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %b_dst = llvm.getelementptr %smem[%b_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    atom.bulk_copy_g2s %a_dst, %a, %full, %half : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
    atom.bulk_copy_g2s %b_dst, %b, %full, %half : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
    func.return
  }
}
// CHECK: stage_copy_slots_invalid.mlir:[[# @LINE - 4]]:5: error: stage-slots: in CTA 0 of the cluster, this copy from CTA 0 writes bytes [1024, 5120) past the copies' base pointer (stage 0) and the copy at

// -----

// two pipelines' barriers in one block of shared memory: the second's at %smem[16] overlaps the first's 2 x 2 words
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @barriers_overlap(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
    %pa = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %a = cutlass.pipeline.init %pa {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x4>}
    %at = arith.constant 16 : i32
    %second = llvm.getelementptr %smem[%at] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %pb = cutlass.pipeline.create storage(%second) : !cutlass.pipeline<stages = 3, producers = 1, consumers = 1>
    %b = cutlass.pipeline.init %pb {numStages = 3 : i32, participants = array<i64: 0x2>, consumers = array<i64: 0x4>}
    func.return
  }
}
// CHECK: stage_copy_slots_invalid.mlir:[[# @LINE - 5]]:5: error: stage-slots: this pipeline's 3 x 2 mbarriers (bytes [16, 64) past their base pointer) overlap those of the pipeline created at {{.*}}stage_copy_slots_invalid.mlir:[[# @LINE - 9]]:5 (bytes [0, 32))

// -----

// a copy of the first pipeline lands on the second pipeline's barriers (at %smem[4096], past the first's stages)
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @onto_another_pipelines_barriers(%smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pa = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1>
    %a = cutlass.pipeline.init %pa {numStages = 1 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x4>, transaction_size = array<i32: 4096>}
    %at = arith.constant 4096 : i32
    %second = llvm.getelementptr %smem[%at] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %pb = cutlass.pipeline.create storage(%second) : !cutlass.pipeline<stages = 1, producers = 1, consumers = 1>
    %b = cutlass.pipeline.init %pb {numStages = 1 : i32, participants = array<i64: 0x2>, consumers = array<i64: 0x4>}
    %s = cutlass.pipeline.state.create %a producer
    %full = cutlass.pipeline.get_producer_barrier %a, %s
    %bytes = arith.constant 4096 : i32
    %c16 = arith.constant 16 : i32
    %dst = llvm.getelementptr %smem[%c16] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    atom.bulk_copy_g2s %dst, %src, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
    func.return
  }
}
// CHECK: stage_copy_slots_invalid.mlir:[[# @LINE - 4]]:5: error: stage-slots: this copy of stage 0 writes bytes [16, 4112) past its base pointer, where the 1 x 2 mbarriers of the pipeline created at {{.*}}:[[# @LINE - 11]]:5 live (bytes 4096..4111): the data lands on another pipeline's barriers

// -----

// two stages of one ring 2048 bytes apart, each copy 4096 bytes: stage 1 lands on the second half of stage 0
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @stages_overlap(%smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %p = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, transaction_size = array<i32: 4096>}
    %s = cutlass.pipeline.state.create %p producer
    %full = cutlass.pipeline.get_producer_barrier %p, %s
    %bytes = arith.constant 4096 : i32
    %stride = arith.constant 2048 : i32
    %idx = cutlass.pipeline.state.get_index %s
    %sidx = arith.muli %idx, %stride : i32
    %c1024 = arith.constant 1024 : i32
    %off = arith.addi %sidx, %c1024 : i32
    %dst = llvm.getelementptr %smem[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    atom.bulk_copy_g2s %dst, %src, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
    func.return
  }
}
// CHECK: stage_copy_slots_invalid.mlir:[[# @LINE - 4]]:5: error: stage-slots: in CTA 0 of the cluster, this copy of stage 1 (from CTA 0) writes bytes [3072, 7168) past its base pointer and the copy of stage 0 at {{.*}} (from CTA 0) writes [1024, 5120): two stages of one pipeline on the same bytes
