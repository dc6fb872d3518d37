// Round trip (generic form -> custom form) of every nvvm op; the custom syntax is upstream
// NVVMOps.td's assembly format, the generic form its op names, operand order and properties.
// RUN: TILEORCH_ROUNDTRIP
// RUN: tileorch-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @f(%bar: !llvm.ptr<3>, %g: !llvm.ptr, %r: !llvm.ptr<7>, %src: !llvm.ptr<1>, %n: i32, %st: i64, %p: i1) {
  %t = nvvm.read.ptx.sreg.tid.x : i32
  %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
  %sm = nvvm.read.ptx.sreg.smid : i32
  %clk = nvvm.read.ptx.sreg.clock64 : i64
  %cid = nvvm.read.ptx.sreg.clusterid.x : i32
  %wid = nvvm.read.ptx.sreg.warpid : i32
  %gt = nvvm.read.ptx.sreg.globaltimer : i64
  nvvm.mbarrier.init %bar, %n : !llvm.ptr<3>, i32
  nvvm.mbarrier.init %bar, %n, predicate = %p : !llvm.ptr<3>, i32, i1
  nvvm.mbarrier.init.shared %bar, %n : !llvm.ptr<3>, i32
  %s = nvvm.mbarrier.arrive %bar : !llvm.ptr<3> -> i64
  nvvm.mbarrier.arrive %r {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
  %s2 = nvvm.mbarrier.arrive %bar count = %n {relaxed = true} : !llvm.ptr<3> -> i64
  %s3 = nvvm.mbarrier.arrive.shared %bar : !llvm.ptr<3> -> i64
  nvvm.mbarrier.arrive.expect_tx %bar, %n : !llvm.ptr<3>, i32
  nvvm.mbarrier.arrive.expect_tx.shared %bar, %n : !llvm.ptr<3>, i32
  nvvm.mbarrier.expect_tx %bar, %n : !llvm.ptr<3>, i32
  nvvm.mbarrier.try_wait.parity %bar, %n, %n : !llvm.ptr<3>, i32, i32
  nvvm.mbarrier.try_wait.parity.shared %bar, %n, %n : !llvm.ptr<3>, i32, i32
  %d = nvvm.mbarrier.try_wait %bar, %n, %n : !llvm.ptr<3>, i32, i32 -> i1
  %d2 = nvvm.mbarrier.try_wait %bar, %st : !llvm.ptr<3>, i64 -> i1
  %d3 = nvvm.mbarrier.test.wait %bar, %st : !llvm.ptr<3>, i64 -> i1
  %d4 = nvvm.mbarrier.test.wait.shared %bar, %st : !llvm.ptr<3>, i64 -> i1
  nvvm.fence.mbarrier.init
  nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  nvvm.cluster.arrive
  nvvm.cluster.arrive.relaxed {aligned}
  nvvm.cluster.wait {aligned}
  nvvm.barrier id = %n number_of_threads = %n
  nvvm.barrier
  nvvm.barrier
  nvvm.barrier.arrive id = %n number_of_threads = %n
  %e = nvvm.elect.sync -> i1
  %m = nvvm.mapa %bar, %n : !llvm.ptr<3> -> !llvm.ptr<7>
  nvvm.cp.async.bulk.commit.group
  nvvm.cp.async.bulk.wait_group 0 {read}
  nvvm.cp.async.bulk.shared.cluster.global %r, %src, %bar, %n : !llvm.ptr<7>, !llvm.ptr<1>
  nvvm.wgmma.fence.aligned
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 0
  nvvm.setmaxregister increase 232
  %ns = llvm.mlir.constant(100 : i32) : i32
  nvvm.nanosleep %ns
  nvvm.breakpoint
  llvm.return
}

// CHECK-LABEL: llvm.func @f(
// CHECK-NEXT: %t = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %sm = nvvm.read.ptx.sreg.smid : i32
// CHECK-NEXT: %clk = nvvm.read.ptx.sreg.clock64 : i64
// CHECK-NEXT: %cid = nvvm.read.ptx.sreg.clusterid.x : i32
// CHECK-NEXT: %wid = nvvm.read.ptx.sreg.warpid : i32
// CHECK-NEXT: %gt = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: nvvm.mbarrier.init %bar, %n : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.mbarrier.init %bar, %n, predicate = %p : !llvm.ptr<3>, i32, i1
// CHECK-NEXT: nvvm.mbarrier.init.shared %bar, %n : !llvm.ptr<3>, i32
// CHECK-NEXT: %s = nvvm.mbarrier.arrive %bar : !llvm.ptr<3> -> i64
// CHECK-NEXT: nvvm.mbarrier.arrive %r scope = cluster : !llvm.ptr<7>
// CHECK-NEXT: %s2 = nvvm.mbarrier.arrive %bar, %n relaxed = true : !llvm.ptr<3> -> i64
// CHECK-NEXT: %s3 = nvvm.mbarrier.arrive.shared %bar : !llvm.ptr<3> -> i64
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %bar, %n : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx.shared %bar, %n : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.mbarrier.expect_tx %bar, %n : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %bar, %n, %n : !llvm.ptr<3>, i32, i32
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity.shared %bar, %n, %n : !llvm.ptr<3>, i32, i32
// CHECK-NEXT: %d = nvvm.mbarrier.try_wait %bar, %n, %n : !llvm.ptr<3>, i32, i32 -> i1
// CHECK-NEXT: %d2 = nvvm.mbarrier.try_wait %bar, %st : !llvm.ptr<3>, i64 -> i1
// CHECK-NEXT: %d3 = nvvm.mbarrier.test.wait %bar, %st : !llvm.ptr<3>, i64 -> i1
// CHECK-NEXT: %d4 = nvvm.mbarrier.test.wait.shared %bar, %st : !llvm.ptr<3>, i64 -> i1
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.fence.proxy <async.shared>, space = <cta>
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.arrive.relaxed aligned
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK-NEXT: nvvm.barrier id = %n number_of_threads = %n
// CHECK-NEXT: nvvm.barrier{{$}}
// CHECK-NEXT: nvvm.barrier{{$}}
// CHECK-NEXT: nvvm.barrier.arrive id = %n number_of_threads = %n
// CHECK-NEXT: %e = nvvm.elect.sync -> i1
// CHECK-NEXT: %m = nvvm.mapa %bar, %n : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 read
// CHECK-NEXT: nvvm.cp.async.bulk.shared.cluster.global %r, %src, %bar, %n : !llvm.ptr<7>, !llvm.ptr<1>
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK-NEXT: %ns = llvm.mlir.constant(100 : i32) : i32
// CHECK-NEXT: nvvm.nanosleep %ns
// CHECK-NEXT: nvvm.breakpoint
// CHECK-NEXT: llvm.return

// GENERIC: "nvvm.read.ptx.sreg.tid.x"() : () -> i32
// GENERIC: "nvvm.read.ptx.sreg.cluster.ctarank"() : () -> i32
// GENERIC: "nvvm.mbarrier.init"(%bar, %n, %p) : (!llvm.ptr<3>, i32, i1) -> ()
// GENERIC: "nvvm.mbarrier.arrive"(%r) <{scope = #nvvm.mem_scope<cluster>}> : (!llvm.ptr<7>) -> ()
// GENERIC: "nvvm.mbarrier.try_wait.parity"(%bar, %n, %n) : (!llvm.ptr<3>, i32, i32) -> ()
// GENERIC: "nvvm.fence.proxy"() <{kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}> : () -> ()
// GENERIC: "nvvm.cluster.arrive.relaxed"() <{aligned}> : () -> ()
// GENERIC: "nvvm.barrier"(%n, %n) <{operandSegmentSizes = array<i32: 1, 1>}> : (i32, i32) -> ()
// GENERIC: "nvvm.barrier"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> ()
// GENERIC: "nvvm.barrier.arrive"(%n, %n) : (i32, i32) -> ()
// GENERIC: "nvvm.mapa"(%bar, %n) : (!llvm.ptr<3>, i32) -> !llvm.ptr<7>
// GENERIC: "nvvm.cp.async.bulk.wait_group"() <{group = 0 : i32, read}> : () -> ()
// GENERIC: "nvvm.cp.async.bulk.shared.cluster.global"(%r, %src, %bar, %n) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0>}> : (!llvm.ptr<7>, !llvm.ptr<1>, !llvm.ptr<3>, i32) -> ()
// GENERIC: "nvvm.wgmma.wait.group.sync.aligned"() <{group = 0 : i64}> : () -> ()
// GENERIC: "nvvm.setmaxregister"() <{action = #nvvm.action<increase>, regCount = 232 : i32}> : () -> ()
// GENERIC: "nvvm.nanosleep"(%{{.*}}) : (i32) -> ()
