// REQUIRES: ptxas
// Every pipeline example compiles cutlass -> PTX in one command and ptxas -arch=sm_90a accepts it.
// RUN: tileorch compile %S/../../../examples/ws_pipeline.mlir --no-ptxas -o %t.ws.ptx
// RUN: ptxas -arch=sm_90a %t.ws.ptx -o %t.ws.cubin
// RUN: filecheck %s --check-prefix=WS < %t.ws.ptx
// RUN: tileorch compile %S/../../../examples/coop_pipeline.mlir --no-ptxas -o %t.coop.ptx
// RUN: ptxas -arch=sm_90a %t.coop.ptx -o %t.coop.cubin
// RUN: filecheck %s --check-prefix=COOP < %t.coop.ptx
// WS: mbarrier.init.shared.b64
// WS: fence.mbarrier_init.release.cluster;
// WS: mbarrier.try_wait.parity.shared.b64
// WS: mbarrier.arrive.expect_tx.shared.b64
// WS: cp.async.bulk.wait_group 0;
// COOP: barrier.cluster.arrive.relaxed.aligned;
// COOP: barrier.cluster.wait.aligned;
// COOP: mapa.shared::cluster
// COOP: mbarrier.arrive.shared::cluster.b64
