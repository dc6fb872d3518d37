// convert-nvvm-to-llvm: each nvvm op -> the LLVM 22 intrinsic (names from the LLVM NVPTX
// intrinsic set: llvm.nvvm.mbarrier.*.scope.{cta,cluster}.space.{cta,cluster}, ...).
// RUN: tileorch-opt %s --split-input-file -p convert-nvvm-to-llvm | filecheck %s

llvm.func @use(i32, i32, i32, i64)
llvm.func @regs() {
  %t = nvvm.read.ptx.sreg.tid.x : i32
  %r = nvvm.read.ptx.sreg.cluster.ctarank : i32
  %s = nvvm.read.ptx.sreg.smid : i32
  %g = nvvm.read.ptx.sreg.globaltimer : i64
  llvm.call @use(%t, %r, %s, %g) : (i32, i32, i32, i64) -> ()
  llvm.return
}
// CHECK-LABEL: llvm.func @regs()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.cluster.ctarank"() : () -> i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.smid"() : () -> i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.globaltimer"() : () -> i64

// -----

llvm.func @mbarrier(%bar: !llvm.ptr<3>, %gen: !llvm.ptr, %remote: !llvm.ptr<7>, %n: i32, %st: i64, %p: i1) {
  nvvm.mbarrier.init %bar, %n : !llvm.ptr<3>, i32
  nvvm.mbarrier.init %gen, %n : !llvm.ptr, i32
  nvvm.mbarrier.init %bar, %n, predicate = %p : !llvm.ptr<3>, i32, i1
  %s0 = nvvm.mbarrier.arrive %bar : !llvm.ptr<3> -> i64
  %s1 = nvvm.mbarrier.arrive.shared %bar : !llvm.ptr<3> -> i64
  nvvm.mbarrier.arrive %remote : !llvm.ptr<7>
  nvvm.mbarrier.arrive %remote {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
  %s2 = nvvm.mbarrier.arrive %bar count = %n {relaxed = true} : !llvm.ptr<3> -> i64
  nvvm.mbarrier.arrive.expect_tx %bar, %n : !llvm.ptr<3>, i32
  nvvm.mbarrier.arrive.expect_tx.shared %bar, %n : !llvm.ptr<3>, i32
  nvvm.mbarrier.arrive.expect_tx %gen, %n : !llvm.ptr, i32
  nvvm.mbarrier.arrive.expect_tx %remote, %n {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>, i32
  nvvm.mbarrier.arrive.expect_tx %bar, %n, predicate = %p : !llvm.ptr<3>, i32, i1
  nvvm.mbarrier.expect_tx %bar, %n : !llvm.ptr<3>, i32
  %d0 = nvvm.mbarrier.try_wait %bar, %n : !llvm.ptr<3>, i32 -> i1
  %d1 = nvvm.mbarrier.try_wait %bar, %n, %n {scope = #nvvm.mem_scope<cluster>, relaxed = true} : !llvm.ptr<3>, i32, i32 -> i1
  %d2 = nvvm.mbarrier.try_wait %bar, %st : !llvm.ptr<3>, i64 -> i1
  %d3 = nvvm.mbarrier.test.wait %bar, %st : !llvm.ptr<3>, i64 -> i1
  %d4 = nvvm.mbarrier.test.wait %bar, %n : !llvm.ptr<3>, i32 -> i1
  %d5 = nvvm.mbarrier.test.wait.shared %bar, %st : !llvm.ptr<3>, i64 -> i1
  nvvm.mbarrier.inval %bar : !llvm.ptr<3>
  nvvm.fence.mbarrier.init
  nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  nvvm.fence.proxy {kind = #nvvm.proxy_kind<async>}
  llvm.return
}
// CHECK-LABEL: llvm.func @mbarrier(
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.init.shared"(%bar, %n) : (!llvm.ptr<3>, i32) -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.init"(%gen, %n) : (!llvm.ptr, i32) -> ()
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$2 mbarrier.init.shared.b64 [$0], $1;", "l,r,b" %bar, %n, %p
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.arrive.scope.cta.space.cta"(%bar, %[[ONE]]) : (!llvm.ptr<3>, i32) -> i64
// CHECK:      llvm.call_intrinsic "llvm.nvvm.mbarrier.arrive.scope.cta.space.cta"(%bar, %{{.*}}) : (!llvm.ptr<3>, i32) -> i64
// CHECK:      llvm.call_intrinsic "llvm.nvvm.mbarrier.arrive.scope.cta.space.cluster"(%remote, %{{.*}}) : (!llvm.ptr<7>, i32) -> ()
// CHECK:      llvm.call_intrinsic "llvm.nvvm.mbarrier.arrive.scope.cluster.space.cluster"(%remote, %{{.*}}) : (!llvm.ptr<7>, i32) -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.arrive.relaxed.scope.cta.space.cta"(%bar, %n) : (!llvm.ptr<3>, i32) -> i64
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta"(%bar, %n) : (!llvm.ptr<3>, i32) -> i64
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta"(%bar, %n) : (!llvm.ptr<3>, i32) -> i64
// CHECK-NEXT: %[[CAST:.*]] = llvm.addrspacecast %gen : !llvm.ptr to !llvm.ptr<3>
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta"(%[[CAST]], %n) : (!llvm.ptr<3>, i32) -> i64
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.arrive.expect.tx.scope.cluster.space.cluster"(%remote, %n) : (!llvm.ptr<7>, i32) -> ()
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$2 mbarrier.arrive.expect_tx.shared.b64 _, [$0], $1;", "l,r,b" %bar, %n, %p
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.expect.tx.scope.cta.space.cta"(%bar, %n) : (!llvm.ptr<3>, i32) -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.try.wait.parity.scope.cta.space.cta"(%bar, %n) : (!llvm.ptr<3>, i32) -> i1
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.try.wait.parity.tl.relaxed.scope.cluster.space.cta"(%bar, %n, %n) : (!llvm.ptr<3>, i32, i32) -> i1
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.try.wait.scope.cta.space.cta"(%bar, %st) : (!llvm.ptr<3>, i64) -> i1
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.test.wait.scope.cta.space.cta"(%bar, %st) : (!llvm.ptr<3>, i64) -> i1
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.test.wait.parity.scope.cta.space.cta"(%bar, %n) : (!llvm.ptr<3>, i32) -> i1
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.test.wait.scope.cta.space.cta"(%bar, %st) : (!llvm.ptr<3>, i64) -> i1
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mbarrier.inval.shared"(%bar) : (!llvm.ptr<3>) -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.fence.mbarrier_init.release.cluster"() : () -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.fence.proxy.async.shared_cta"() : () -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.fence.proxy.async"() : () -> ()

// -----

// The blocking try_wait.parity becomes a loop around the time-limited try-wait.
llvm.func @blocking_wait(%bar: !llvm.ptr<3>, %phase: i32, %ticks: i32) {
  nvvm.mbarrier.try_wait.parity.shared %bar, %phase, %ticks : !llvm.ptr<3>, i32, i32
  nvvm.barrier
  llvm.return
}
// CHECK-LABEL: llvm.func @blocking_wait(
// CHECK-NEXT:   llvm.br ^[[WAIT:.*]]
// CHECK-NEXT: ^[[WAIT]]:
// CHECK-NEXT:   %[[DONE:.*]] = llvm.call_intrinsic "llvm.nvvm.mbarrier.try.wait.parity.tl.scope.cta.space.cta"(%bar, %phase, %ticks) : (!llvm.ptr<3>, i32, i32) -> i1
// CHECK-NEXT:   llvm.cond_br %[[DONE]], ^[[REST:.*]], ^[[WAIT]]
// CHECK-NEXT: ^[[REST]]:
// CHECK-NEXT:   %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%[[Z]]) : (i32) -> ()

// -----

llvm.func @sync(%id: i32, %n: i32, %a: !llvm.ptr<3>, %dst: !llvm.ptr<7>, %src: !llvm.ptr<1>, %mask: i16) {
  nvvm.cluster.arrive
  nvvm.cluster.arrive.relaxed {aligned}
  nvvm.cluster.wait {aligned}
  nvvm.barrier id = %id number_of_threads = %n
  nvvm.barrier.arrive id = %id number_of_threads = %n
  %e = nvvm.elect.sync -> i1
  %m = nvvm.mapa %a, %id : !llvm.ptr<3> -> !llvm.ptr<7>
  nvvm.mbarrier.arrive %m : !llvm.ptr<7>
  nvvm.cp.async.bulk.shared.cluster.global %dst, %src, %a, %n multicast_mask = %mask : !llvm.ptr<7>, !llvm.ptr<1>
  nvvm.cp.async.bulk.commit.group
  nvvm.cp.async.bulk.wait_group 0
  nvvm.cp.async.bulk.wait_group 1 {read}
  nvvm.wgmma.fence.aligned
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 1
  nvvm.setmaxregister decrease 40
  %ns = llvm.mlir.constant(100 : i32) : i32
  nvvm.nanosleep %ns
  nvvm.breakpoint
  llvm.return
}
// CHECK-LABEL: llvm.func @sync(
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cluster.arrive"() : () -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cluster.arrive.relaxed.aligned"() : () -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cluster.wait.aligned"() : () -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.count"(%id, %n) : (i32, i32) -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%id, %n) : (i32, i32) -> ()
// CHECK-NEXT: %[[M1:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: %[[PAIR:.*]] = llvm.call_intrinsic "llvm.nvvm.elect.sync"(%[[M1]]) : (i32) -> !llvm.struct<(i32, i1)>
// CHECK-NEXT: llvm.extractvalue %[[PAIR]][1] : !llvm.struct<(i32, i1)>
// CHECK-NEXT: %[[REMOTE:.*]] = llvm.call_intrinsic "llvm.nvvm.mapa.shared.cluster"(%a, %id) : (!llvm.ptr<3>, i32) -> !llvm.ptr<7>
// CHECK:      llvm.call_intrinsic "llvm.nvvm.mbarrier.arrive.scope.cta.space.cluster"(%[[REMOTE]], %{{.*}}) : (!llvm.ptr<7>, i32) -> ()
// CHECK:      %[[T:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT: %[[F:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.cp.async.bulk.global.to.shared.cluster"(%dst, %a, %src, %n, %mask, %{{.*}}, %[[T]], %[[F]]) : (!llvm.ptr<7>, !llvm.ptr<3>, !llvm.ptr<1>, i32, i16, i64, i1, i1) -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.cp.async.bulk.commit.group"() : () -> ()
// CHECK:      llvm.call_intrinsic "llvm.nvvm.cp.async.bulk.wait.group"(%{{.*}}) : (i32) -> ()
// CHECK:      llvm.call_intrinsic "llvm.nvvm.cp.async.bulk.wait.group.read"(%{{.*}}) : (i32) -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.wgmma.fence.sync.aligned"() : () -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.wgmma.commit_group.sync.aligned"() : () -> ()
// CHECK-NEXT: %[[G:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.wgmma.wait_group.sync.aligned"(%[[G]]) : (i64) -> ()
// CHECK-NEXT: %[[R:.*]] = llvm.mlir.constant(40 : i32) : i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.setmaxnreg.dec.sync.aligned.u32"(%[[R]]) : (i32) -> ()
// CHECK-NEXT: %ns = llvm.mlir.constant(100 : i32) : i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.nanosleep"(%ns) : (i32) -> ()
// CHECK-NEXT: llvm.call_intrinsic "llvm.debugtrap"() : () -> ()
