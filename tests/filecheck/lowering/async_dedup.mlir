// RUN: tileorch-opt %s -p convert-pipeline-to-nvvm | filecheck %s
// The eight nv_tileas.async patterns and the wait-group dedup walker.
builtin.module {
  func.func @f(%b: !llvm.struct<(!llvm.ptr<3>, i32)>) {
    %t = nv_tileas.create_none : !nv_tileas.token<tma>
    nv_tileas.async.wait %t {pending = 1 : i32} : !nv_tileas.token<tma>
    nv_tileas.async.wait %t : !nv_tileas.token<tma>
    %g = nv_tileas.create_none : !nv_tileas.token<gmma>
    nv_tileas.async.wait %g : !nv_tileas.token<gmma>
    %m = nv_tileas.async.to_async %b : !llvm.struct<(!llvm.ptr<3>, i32)> -> !nv_tileas.async<mbarrier>
    nv_tileas.async.future_wait %m : !nv_tileas.async<mbarrier>
    %f = nv_tileas.async.token_to_async %t : !nv_tileas.token<tma> -> !nv_tileas.async<tma>
    nv_tileas.async.future_wait %f : !nv_tileas.async<tma>
    nv_tileas.async.future_wait %f {pending = 2 : i32} : !nv_tileas.async<tma>
    func.return
  }
}
// TMA waits commit then wait; a commit separates the two waits, so both stay
// CHECK:      nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 1
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// GMMA wait
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// mbarrier future: spin on try_wait with the future's (barrier, phase) and the 0x1000 hint
// CHECK-NEXT: %[[A:.*]] = llvm.extractvalue %b[0]
// CHECK-NEXT: %[[P:.*]] = llvm.extractvalue %b[1]
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK-NEXT: %[[PAR:.*]] = llvm.and %[[P]]
// CHECK-NEXT: %[[H:.*]] = llvm.mlir.constant(4096 : i32)
// CHECK-NEXT: scf.while
// CHECK-NEXT:   nvvm.mbarrier.try_wait %[[A]], %[[PAR]], %[[H]]
// the two group future waits (no commit between) dedupe into one wait with the smaller count
// CHECK:      nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT:  nvvm.cp.async.bulk.wait_group
// CHECK-NOT:  tileorch.group_wait
// CHECK:      func.return
