// Every nvvm op through LLVM's NVPTX backend to PTX, then assembled by ptxas -arch=sm_90a.
// Expected PTX spellings are the PTX ISA's (and CUTLASS's, cutlass-semantics.md §2).
// REQUIRES: ptxas
// RUN: tileorch compile %s --arch sm_90a -o %t.ptx 2>&1 | filecheck %s --check-prefix=DIAG --allow-empty
// RUN: filecheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// DIAG-NOT: C7508

module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  llvm.mlir.global internal @bars() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i64>
  func.func @kernel(%out: !llvm.ptr<1>, %src: !llvm.ptr<1>, %phase: i32)
      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
    %bar = llvm.mlir.addressof @bars : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %bytes = arith.constant 4096 : i32
    %ticks = arith.constant 10000000 : i32
    nvvm.setmaxregister increase 232
    %leader = nvvm.elect.sync -> i1
    scf.if %leader {
      nvvm.mbarrier.init %bar, %c1 : !llvm.ptr<3>, i32
    }
    nvvm.fence.mbarrier.init
    nvvm.cluster.arrive.relaxed {aligned}
    nvvm.cluster.wait {aligned}
    nvvm.mbarrier.arrive.expect_tx %bar, %bytes : !llvm.ptr<3>, i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %c1 : i32
    %remote = nvvm.mapa %bar, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    nvvm.cp.async.bulk.shared.cluster.global %remote, %src, %bar, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
    nvvm.mbarrier.try_wait.parity %bar, %phase, %ticks : !llvm.ptr<3>, i32, i32
    nvvm.mbarrier.arrive %remote : !llvm.ptr<7>
    nvvm.barrier id = %c1 number_of_threads = %c128
    nvvm.barrier.arrive id = %c1 number_of_threads = %c128
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    nvvm.cp.async.bulk.commit.group
    nvvm.cp.async.bulk.wait_group 0 {read}
    nvvm.wgmma.fence.aligned
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 0
    %ns = llvm.mlir.constant(64 : i32) : i32
    nvvm.nanosleep %ns
    %sm = nvvm.read.ptx.sreg.smid : i32
    %t = nvvm.read.ptx.sreg.globaltimer : i64
    %t32 = arith.trunci %t : i64 to i32
    %v = arith.addi %sm, %t32 : i32
    llvm.store %v, %out : i32, !llvm.ptr<1>
    func.return
  }
}
// CHECK:      .target sm_90a
// CHECK:      .visible .entry kernel(
// CHECK:      .maxntid 384, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK-NEXT: .explicitcluster
// CHECK-NEXT: .reqnctapercluster 2, 1, 1
// CHECK:      .shared .align 8 .b8 bars[64];
// CHECK:      setmaxnreg.inc.sync.aligned.u32 232;
// CHECK:      elect.sync {{%r[0-9]+}}|{{%p[0-9]+}}, -1;
// CHECK:      mbarrier.init.shared.b64 [bars],
// CHECK:      fence.mbarrier_init.release.cluster;
// CHECK:      barrier.cluster.arrive.relaxed.aligned;
// CHECK:      barrier.cluster.wait.aligned;
// CHECK:      mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [bars],
// CHECK:      mov.u32 {{%r[0-9]+}}, %cluster_ctarank;
// CHECK:      mapa.shared::cluster.u64
// CHECK:      cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [{{%rd[0-9]+}}], {{%r[0-9]+}}, [bars];
// CHECK:      [[LOOP:\$L__BB0_[0-9]+]]:
// CHECK:      mbarrier.try_wait.parity.shared.b64 {{%p[0-9]+}}, [bars], {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK:      bra {{.*}}[[LOOP]];
// CHECK:      mbarrier.arrive.shared::cluster.b64 _, [{{%rd[0-9]+}}],
// CHECK:      bar.sync 1, 128;
// CHECK:      bar.arrive 1, 128;
// CHECK:      fence.proxy.async.shared::cta;
// CHECK:      cp.async.bulk.commit_group;
// CHECK:      cp.async.bulk.wait_group.read 0;
// CHECK:      wgmma.fence.sync.aligned;
// CHECK:      wgmma.commit_group.sync.aligned;
// CHECK:      wgmma.wait_group.sync.aligned 0;
// CHECK:      nanosleep.u32 64;
// CHECK:      mov.u32 {{%r[0-9]+}}, %smid;
// CHECK:      mov.u64 {{%rd[0-9]+}}, %globaltimer;
// CHECK-NOT:  .extern .func
