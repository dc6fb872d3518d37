// examples/streamk_sm100a.mlir (SM100 Stream-K on a 2x1 cluster) through the whole
// `tileorch compile` pipeline to PTX that `ptxas -arch=sm_100a` accepts (a complete kernel: no
// -c), and the sm_90a Stream-K example for contrast: the generic body has no cluster barrier.
// REQUIRES: ptxas
// RUN: tileorch compile %S/../../../examples/streamk_sm100a.mlir --arch sm_100a -o %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin
// RUN: tileorch compile %S/../../../examples/streamk_persistent.mlir --no-ptxas -o %t.sm90.ptx
// RUN: filecheck %s --check-prefix=SM90 < %t.sm90.ptx
//
// CHECK:      .entry streamk_sm100(
// CHECK:      .explicitcluster
// CHECK-NEXT: .reqnctapercluster 2, 1, 1
// CHECK:      .shared .align 16 .b8 partials[4096];
// the cluster's unit: %clusterid, not %ctaid
// CHECK-NOT:  %ctaid
// CHECK:      mov.u32 {{.*}}%clusterid.x;
// CHECK:      call.uni (retval0), __tileorch_sched_sm100_streamk_c1x1_m
// CHECK:      mov.u32 {{.*}}%cluster_ctarank;
// rank 1 publishes its partial (8 f32 per thread, 512-byte stride) in its own shared memory
// CHECK:      st.shared.b32 [[[MINE:%rd[0-9]+]]],
// CHECK:      st.shared.b32 [[[MINE]]+3584],
// CHECK-NEXT: $L__BB0_{{[0-9]+}}:
// CHECK:      barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// the leader reads it through DSMEM
// CHECK:      mapa.shared::cluster.u64 [[PEER:%rd[0-9]+]], [[MINE]], 1;
// CHECK-NEXT: ld.shared::cluster.b32 {{%r[0-9]+}}, [[[PEER]]];
// CHECK:      ld.shared::cluster.b32 {{%r[0-9]+}}, [[[PEER]]+3584];
// CHECK:      barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// then only the leader touches the global workspace lock (cross-cluster splits)
// CHECK:      ld.acquire.gpu.global.b32
// CHECK:      bar.sync 4, 128;
// CHECK:      atom.global.add.u32
// CHECK-NOT:  barrier.cluster
// CHECK:      .func {{.*}}__tileorch_sched_sm100_streamk_c1x1_m(
//
// SM90:       .entry kernel(
// SM90-NOT:   barrier.cluster
// SM90-NOT:   mapa
// SM90-NOT:   shared::cluster
// SM90:       ld.acquire.gpu.global.b32
// SM90-NOT:   barrier.cluster
