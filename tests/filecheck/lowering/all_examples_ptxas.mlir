// REQUIRES: ptxas
// Every example compiles to PTX in one command; ptxas assembles it for the module's target
// (-c: the examples call external device functions, i.e. relocatable code).
// RUN: tileorch compile %S/../../../examples/ws_pipeline.mlir --no-ptxas -o %t.ws.ptx
// RUN: ptxas -c -arch=sm_90a %t.ws.ptx -o %t.ws.o
// RUN: tileorch compile %S/../../../examples/coop_pipeline.mlir --no-ptxas -o %t.coop.ptx
// RUN: ptxas -c -arch=sm_90a %t.coop.ptx -o %t.coop.o
// RUN: tileorch compile %S/../../../examples/pingpong_seq_bar.mlir --no-ptxas -o %t.pp.ptx
// RUN: ptxas -c -arch=sm_90a %t.pp.ptx -o %t.pp.o
// RUN: tileorch compile %S/../../../examples/streamk_persistent.mlir --no-ptxas -o %t.sk.ptx
// RUN: ptxas -c -arch=sm_90a %t.sk.ptx -o %t.sk.o
// RUN: tileorch compile %S/../../../examples/mods_mainloop.mlir --no-ptxas -o %t.mods.ptx
// RUN: ptxas -c -arch=sm_100a %t.mods.ptx -o %t.mods.o
// RUN: tileorch compile %S/../../../examples/ws_stream_copy.mlir --no-ptxas -o %t.wsc.ptx
// RUN: ptxas -arch=sm_90a %t.wsc.ptx -o %t.wsc.o
// RUN: cat %t.ws.ptx %t.coop.ptx %t.pp.ptx %t.sk.ptx %t.mods.ptx %t.wsc.ptx | filecheck %s
// Kernels are .entry; the ping-pong kernel reads %tid.x (gpu.thread_id) and syncs on the epilogue
// barrier; Stream-K calls its scheduler body, one thread polls the fix-up lock with ld.acquire
// before the group's bar.sync on StreamK0 (id 4), and the lock is released after it; MODS arrives/waits on the cluster barrier around the loop.
// CHECK: .entry ws_mainloop
// CHECK: .entry coop_mainloop
// CHECK: .entry pingpong_math
// CHECK: mov.u32 {{.*}}%tid.x
// CHECK: bar.sync 1, 128
// CHECK: .func {{.*}}__tileorch_sched_streamk_c2x1_rt
// CHECK: .entry kernel
// CHECK: call.uni (retval0), __tileorch_sched_streamk_c2x1_rt
// CHECK: ld.acquire.gpu.global.b32
// CHECK: bar.sync 4, 128
// CHECK: fence.acq_rel.gpu;
// CHECK-NEXT: atom.global.add.u32
// CHECK: .func {{.*}}__tileorch_sched_sm100_streamk_c1x1_m
// CHECK: barrier.cluster.arrive.aligned;
// CHECK: %globaltimer
// CHECK: %smid
// CHECK: nanosleep.u32 1000;
// CHECK: cp.async.bulk.wait_group 0;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// ws_stream_copy is a complete kernel (ptxas without -c): the producer's elected thread issues
// the 16 KiB bulk copy onto the stage's full barrier and arms it with the same byte count.
// CHECK: .entry ws_stream_copy(
// CHECK: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: ld.shared.v4.b32
// CHECK-NEXT: st.global.v4.b32
