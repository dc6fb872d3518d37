// The example kernels parse, verify, round-trip in custom and generic form, and get the
// arrive counts derived by hand in their headers.
// RUN: tileorch-opt %S/../../../../examples/ws_pipeline.mlir > %t.ws.mlir
// RUN: tileorch-opt %t.ws.mlir | diff %t.ws.mlir -
// RUN: tileorch-opt %S/../../../../examples/ws_pipeline.mlir --print-op-generic | tileorch-opt | diff %t.ws.mlir -
// RUN: tileorch-opt %S/../../../../examples/coop_pipeline.mlir > %t.coop.mlir
// RUN: tileorch-opt %t.coop.mlir | diff %t.coop.mlir -
// RUN: tileorch-opt %S/../../../../examples/coop_pipeline.mlir --print-op-generic | tileorch-opt | diff %t.coop.mlir -
// RUN: tileorch-opt %S/../../../../examples/ws_pipeline.mlir -p cutlass-allocate-barrier-ids,cutlass-stamp-arrive-counts | filecheck %s --check-prefix=WS
// RUN: tileorch-opt %S/../../../../examples/coop_pipeline.mlir -p cutlass-stamp-arrive-counts | filecheck %s --check-prefix=COOP
// WS: cutlass.pipeline.init %pipe {{{.*}}arvCount = array<i32: 1, 256>}
// WS: cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 4096 : i32}
// COOP: arvCount = array<i32: 1, 4>
