// RUN: tileorch-opt %s -p convert-pipeline-to-nvvm | filecheck %s
// AsyncWaitOpConversionMbarrier (the one nv_tileas.async pattern async_dedup.mlir does not reach):
// every mbarrier token is a (barrier, phase) record; each gets its own blocking parity wait
// (never deduplicated: each belongs to its own barrier slot).
builtin.module {
  func.func @mbar(%a: !llvm.struct<(!llvm.ptr<3>, i32)>, %b: !llvm.struct<(!llvm.ptr<3>, i32)>) {
    %t = builtin.unrealized_conversion_cast %a : !llvm.struct<(!llvm.ptr<3>, i32)> to !nv_tileas.token<mbarrier>
    %u = builtin.unrealized_conversion_cast %b : !llvm.struct<(!llvm.ptr<3>, i32)> to !nv_tileas.token<mbarrier>
    nv_tileas.async.wait %t, %u : !nv_tileas.token<mbarrier>, !nv_tileas.token<mbarrier>
    func.return
  }
}
// CHECK-LABEL: func.func @mbar
// CHECK-NEXT: %[[A:.*]] = llvm.extractvalue %a[0] : !llvm.struct<(!llvm.ptr<3>, i32)>
// CHECK-NEXT: %[[PA:.*]] = llvm.extractvalue %a[1] : !llvm.struct<(!llvm.ptr<3>, i32)>
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[PARA:.*]] = llvm.and %[[PA]], %[[ONE]] : i32
// CHECK-NEXT: %[[H:.*]] = llvm.mlir.constant(10000000 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[A]], %[[PARA]], %[[H]] : !llvm.ptr<3>, i32, i32
// CHECK-NEXT: %[[B:.*]] = llvm.extractvalue %b[0]
// CHECK-NEXT: %[[PB:.*]] = llvm.extractvalue %b[1]
// CHECK-NEXT: %[[ONEB:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[PARB:.*]] = llvm.and %[[PB]], %[[ONEB]] : i32
// CHECK-NEXT: %[[HB:.*]] = llvm.mlir.constant(10000000 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[B]], %[[PARB]], %[[HB]]
// CHECK-NEXT: func.return
