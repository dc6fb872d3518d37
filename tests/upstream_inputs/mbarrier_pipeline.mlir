// Hand-written in upstream MLIR's llvm + nvvm syntax (as upstream's NVGPU-to-NVVM and
// convert-to-llvm produce it): a one-stage producer/consumer handshake on a shared-memory
// mbarrier, a bulk copy completing transaction bytes, an elected leader, a proxy fence and a
// cluster barrier. Read by tileorch-opt, compiled by `tileorch compile`.
// EXPECT-PTX: mbarrier.init.shared.b64
// EXPECT-PTX: fence.mbarrier_init.release.cluster
// EXPECT-PTX: fence.proxy.async.shared::cta
// EXPECT-PTX: elect.sync
// EXPECT-PTX: mbarrier.arrive.expect_tx.shared.b64
// EXPECT-PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// EXPECT-PTX: mbarrier.try_wait.parity.shared.b64
// EXPECT-PTX: mbarrier.test_wait.shared.b64
// EXPECT-PTX: mapa.shared::cluster
// EXPECT-PTX: mbarrier.arrive.relaxed.cluster.shared::cluster.b64
// EXPECT-PTX: barrier.cluster.arrive.relaxed.aligned
// EXPECT-PTX: barrier.cluster.wait.aligned
module attributes {gpu.container_module} {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i8>
  llvm.func @handshake(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 1, 1, 1>} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c128 = llvm.mlir.constant(128 : i32) : i32
    %c1024 = llvm.mlir.constant(1024 : i32) : i32
    %ticks = llvm.mlir.constant(10000000 : i32) : i32
    %bar = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %buf = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %is0 = llvm.icmp "eq" %tid, %c0 : i32
    llvm.cond_br %is0, ^init, ^synced
  ^init:
    nvvm.mbarrier.init %bar, %c1 : !llvm.ptr<3>, i32
    nvvm.fence.mbarrier.init
    nvvm.fence.proxy <async.shared>, space = <cta>
    llvm.br ^synced
  ^synced:
    nvvm.barrier
    %leader = nvvm.elect.sync -> i1
    %warp0 = llvm.icmp "ult" %tid, %c1 : i32
    %issue = llvm.and %leader, %warp0 : i1
    llvm.cond_br %issue, ^copy, ^wait
  ^copy:
    %dst = llvm.addrspacecast %buf : !llvm.ptr<3> to !llvm.ptr<7>
    nvvm.mbarrier.arrive.expect_tx %bar, %c1024 : !llvm.ptr<3>, i32
    nvvm.cp.async.bulk.shared.cluster.global %dst, %src, %bar, %c1024 : !llvm.ptr<7>, !llvm.ptr<1>
    llvm.br ^wait
  ^wait:
    nvvm.mbarrier.try_wait.parity %bar, %c0, %ticks : !llvm.ptr<3>, i32, i32
    %slot = llvm.getelementptr %buf[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    %v = llvm.load %slot <alignment = 4> : !llvm.ptr<3> -> i32
    %o = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %v, %o <alignment = 4> : i32, !llvm.ptr<1>
    %bar1 = llvm.getelementptr %bar[1] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i64
    %state = nvvm.mbarrier.arrive %bar1 : !llvm.ptr<3> -> i64
    %done = nvvm.mbarrier.test.wait %bar1, %state : !llvm.ptr<3>, i64 -> i1
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = nvvm.mapa %bar1, %rank : !llvm.ptr<3> -> !llvm.ptr<7>
    nvvm.mbarrier.arrive %peer, %c1 scope = cluster relaxed = true : !llvm.ptr<7>
    nvvm.cluster.arrive.relaxed aligned
    nvvm.cluster.wait aligned
    nvvm.barrier id = %c1 number_of_threads = %c128 aligned = true
    llvm.return
  }
}
