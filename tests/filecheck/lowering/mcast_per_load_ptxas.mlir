// REQUIRES: ptxas
// A 2x2-cluster mainloop whose A and B loads use different multicast masks (A along the row,
// B along the column) plus a CTA-scoped hand-off pipeline (inputs/mcast_2x2.mlir) compiles to PTX
// that ptxas -arch=sm_90a accepts (issue 10, item 5).
// RUN: tileorch compile %S/inputs/mcast_2x2.mlir --no-ptxas -o %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: filecheck %s < %t.ptx
// RUN: tileorch-opt %S/inputs/mcast_2x2.mlir -p cutlass-allocate-barrier-ids,cutlass-stamp-arrive-counts,convert-atoms-to-nvvm,convert-pipeline-to-nvvm | filecheck %s --check-prefix=NVVM

// Mainloop pipeline: full = 1 (the elected leader), empty = (2 + 2 - 1) x 2 consumer warp groups;
// cluster-wide init sync.  Hand-off pipeline: empty = its 256 local consumer threads, bar.sync 0.
// CHECK:      mov.b32 %r[[F:[0-9]+]], 1;
// CHECK-NEXT: mbarrier.init.shared.b64 [__tileorch_pipeline_0], %r[[F]];
// CHECK-NEXT: mov.b32 %r[[E:[0-9]+]], 6;
// CHECK-NEXT: mbarrier.init.shared.b64 [__tileorch_pipeline_0+16], %r[[E]];
// CHECK:      fence.mbarrier_init.release.cluster;
// CHECK-NEXT: barrier.cluster.arrive.relaxed.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK:      mov.b32 %r[[LE:[0-9]+]], 256;
// CHECK-NEXT: mbarrier.init.shared.b64 [__tileorch_pipeline_1+16], %r[[LE]];
// CHECK:      fence.mbarrier_init.release.cluster;
// CHECK-NEXT: bar.sync 0;
// CHECK-NOT:  barrier.cluster
// Two multicast TMA loads, each with its own 16-bit mask register.
// CHECK:      cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd[[FB:[0-9]+]]], %rs{{[0-9]+}};
// CHECK:      cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd[[FB]]], %rs{{[0-9]+}};
// Only the two mainloop consumer groups release remotely; the hand-off releases stay local.
// CHECK-COUNT-2: mbarrier.arrive.shared::cluster.b64
// CHECK-NOT:  mbarrier.arrive.shared::cluster

// The A mask tests x = rank % 2 only, the B mask y = rank / 2 only.
// NVVM:      %mask_a{{.*}} = nvvm.read.ptx.sreg.cluster.ctarank : i32
// NVVM-NOT:  llvm.udiv
// NVVM:      %[[MA:mask_a[_0-9]*]] = llvm.trunc %{{.*}} : i32 to i16
// NVVM-NEXT: %mask_b{{.*}} = llvm.mlir.constant(0 : i32) : i32
// NVVM-NOT:  llvm.urem
// NVVM:      %[[MB:mask_b[_0-9]*]] = llvm.trunc %{{.*}} : i32 to i16
// NVVM:      nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} multicast_mask = %[[MA]]
// NVVM:      nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} multicast_mask = %[[MB]]

