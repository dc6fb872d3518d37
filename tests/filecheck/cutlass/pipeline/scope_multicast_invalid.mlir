// Verifier rules of CTA-scoped pipelines and per-load multicast masks (docs/dialect-conventions.md
// §4.3): a CTA-scoped pipeline neither multicasts nor takes cluster-derived participants; a
// load's multicast mask comes from the pipeline whose stage it fills, stays inside the pipeline's
// multicast set, and a constant mask names existing CTAs (PTX: a 16-bit CTA mask of the cluster).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %m = cutlass.pipeline.get_producer_mask %r
    func.return
  }
}
// CHECK: scope_multicast_invalid.mlir:11:5: error: cutlass.pipeline.get_producer_mask: the pipeline is CTA-scoped (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>): its stages are filled by this CTA only, so it has no multicast mask; use scope = cluster to multicast its loads

// -----

builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @f() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, multicast = #cutlass<multicast_direction row>}
    func.return
  }
}
// CHECK: error: cutlass.pipeline.init: multicast = row on a CTA-scoped pipeline (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>): its stages are filled and released inside one CTA; drop multicast or use scope = cluster

// -----

builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f() {
    %dp = cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<2, 1, 1>} : !cutlass.dynamic_participants<1, 1>
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
    %r = cutlass.pipeline.init %p dynamic(%dp) {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    func.return
  }
}
// CHECK: error: cutlass.pipeline.init: CGA-derived participants (cutlass.pipeline.make_participants cga) on a CTA-scoped pipeline (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>): a CTA-scoped pipeline has no cluster peers; use custom participants or scope = cluster

// -----

// A constant multicast mask on a load into a CTA-scoped pipeline's stage (bulk copy atom).
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %fb = cutlass.pipeline.get_producer_barrier %r, %s
    %n = arith.constant 1024 : i32
    %m = arith.constant 3 : i16
    atom.bulk_copy_g2s %dst, %src, %fb, %n multicast %m : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
    func.return
  }
}
// CHECK: scope_multicast_invalid.mlir:47:5: error: cutlass.pipeline.get_producer_barrier: atom.bulk_copy_g2s at {{.*}}scope_multicast_invalid.mlir:50:5 multicasts into a stage of a CTA-scoped pipeline (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>); its empty barriers count releases of this CTA only, so peers could overwrite a stage still being read; drop the multicast mask or use scope = cluster

// -----

// The same through a TMA tensor load and get_full_barrier, with a runtime mask.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @f(%dst: !llvm.ptr<7>, %tmap: !llvm.ptr, %s: !cutlass.pipeline_state<2>, %m: i16, %x: i32) {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %fb = cutlass.pipeline.get_full_barrier %r, %s
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %fb, box[%x, %x] multicast_mask = %m : !llvm.ptr<7>, !llvm.ptr
    func.return
  }
}
// CHECK: error: cutlass.pipeline.get_full_barrier: nvvm.cp.async.bulk.tensor.shared.cluster.global at {{.*}}scope_multicast_invalid.mlir:{{[0-9]+}}:5 multicasts into a stage of a CTA-scoped pipeline

// -----

// A col mask on a pipeline that declares a row multicast set: the column peers' releases are
// not counted by this CTA's empty barriers.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @f() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>, multicast = #cutlass<multicast_direction row>}
    %m = cutlass.pipeline.get_producer_mask %r col
    func.return
  }
}
// CHECK: error: cutlass.pipeline.get_producer_mask: a col multicast reaches CTAs outside the pipeline's multicast set (multicast = row at {{.*}}scope_multicast_invalid.mlir:77:5), whose releases its empty barriers do not count; widen the pipeline's multicast (e.g. row_col) or use a row mask

// -----

// row_col is wider than a declared col set too.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @f() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>, multicast = #cutlass<multicast_direction col>}
    %m = cutlass.pipeline.get_producer_mask %r row_col
    func.return
  }
}
// CHECK: error: cutlass.pipeline.get_producer_mask: a row_col multicast reaches CTAs outside the pipeline's multicast set (multicast = col

// -----

// The mask of pipeline %r multicasts a load that fills a stage of pipeline %r2.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f(%dst: !llvm.ptr<7>, %tmap: !llvm.ptr, %s: !cutlass.pipeline_state<2>, %x: i32) {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %p2 = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r2 = cutlass.pipeline.init %p2 {numStages = 2 : i32, participants = array<i64: 4>, consumers = array<i64: 8>}
    %m = cutlass.pipeline.get_producer_mask %r
    %fb = cutlass.pipeline.get_producer_barrier %r2, %s
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %fb, box[%x] multicast_mask = %m : !llvm.ptr<7>, !llvm.ptr
    func.return
  }
}
// CHECK: error: cutlass.pipeline.get_producer_mask: the mask multicasts nvvm.cp.async.bulk.tensor.shared.cluster.global at {{.*}}scope_multicast_invalid.mlir:{{[0-9]+}}:5, which completes on a stage barrier of another pipeline (initialised at {{.*}}scope_multicast_invalid.mlir:105:5); a load's mask must come from the pipeline whose stage it fills

// -----

// Constant masks: 0 names no CTA.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f(%dst: !llvm.ptr<7>, %tmap: !llvm.ptr, %s: !cutlass.pipeline_state<2>, %x: i32) {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %fb = cutlass.pipeline.get_producer_barrier %r, %s
    %m = arith.constant 0 : i16
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %fb, box[%x] multicast_mask = %m : !llvm.ptr<7>, !llvm.ptr
    func.return
  }
}
// CHECK: error: cutlass.pipeline.get_producer_barrier: nvvm.cp.async.bulk.tensor.shared.cluster.global at {{.*}}scope_multicast_invalid.mlir:{{[0-9]+}}:5 has multicast mask 0, which names no CTA: the load lands nowhere and the stage's transaction bytes never arrive

// -----

// Constant masks: CTA 4 does not exist in a 2x2 cluster.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @f(%dst: !llvm.ptr<7>, %tmap: !llvm.ptr, %s: !cutlass.pipeline_state<2>, %x: i32) {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %fb = cutlass.pipeline.get_producer_barrier %r, %s
    %m = arith.constant 17 : i16
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %fb, box[%x] multicast_mask = %m : !llvm.ptr<7>, !llvm.ptr
    func.return
  }
}
// CHECK: error: cutlass.pipeline.get_producer_barrier: nvvm.cp.async.bulk.tensor.shared.cluster.global at {{.*}}scope_multicast_invalid.mlir:{{[0-9]+}}:5 has multicast mask 0x11, which names CTA 4, but the cluster has 4 CTA(s) (2x2x1, ranks 0..3)

// -----

// Constant masks: -1 : i16 is the unsigned bit set 0xffff (CTA 15) on a 2x1 cluster (raw bulk copy).
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f(%dst: !llvm.ptr<7>, %src: !llvm.ptr<1>, %s: !cutlass.pipeline_state<2>) {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %fb = cutlass.pipeline.get_producer_barrier %r, %s
    %n = arith.constant 1024 : i32
    %m = arith.constant -1 : i16
    nvvm.cp.async.bulk.shared.cluster.global %dst, %src, %fb, %n multicast_mask = %m : !llvm.ptr<7>, !llvm.ptr<1>
    func.return
  }
}
// CHECK: error: cutlass.pipeline.get_producer_barrier: nvvm.cp.async.bulk.shared.cluster.global at {{.*}}scope_multicast_invalid.mlir:{{[0-9]+}}:5 has multicast mask 0xffff, which names CTA 15, but the cluster has 2 CTA(s) (2x1x1, ranks 0..1)

// -----

// Constant masks: all four CTAs of a 2x2 cluster lie in no CTA's row_col set (the diagonal CTA's
// releases would never reach the issuer).
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @f(%dst: !llvm.ptr<7>, %tmap: !llvm.ptr, %s: !cutlass.pipeline_state<2>, %x: i32) {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    %fb = cutlass.pipeline.get_producer_barrier %r, %s
    %m = arith.constant 15 : i16
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %fb, box[%x] multicast_mask = %m : !llvm.ptr<7>, !llvm.ptr
    func.return
  }
}
// CHECK: error: cutlass.pipeline.get_producer_barrier: nvvm.cp.async.bulk.tensor.shared.cluster.global at {{.*}}scope_multicast_invalid.mlir:{{[0-9]+}}:5 has multicast mask 0xf, which no CTA's multicast set contains (the pipeline's multicast is row_col on a 2x2x1 cluster)

// -----

// Constant masks: ranks 0 and 1 share y, not x, so they are no row (same-x) set of a 2x2 cluster.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @f(%dst: !llvm.ptr<7>, %tmap: !llvm.ptr, %s: !cutlass.pipeline_state<2>, %x: i32) {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>, multicast = #cutlass<multicast_direction row>}
    %fb = cutlass.pipeline.get_producer_barrier %r, %s
    %m = arith.constant 3 : i16
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %fb, box[%x] multicast_mask = %m : !llvm.ptr<7>, !llvm.ptr
    func.return
  }
}
// CHECK: error: cutlass.pipeline.get_producer_barrier: nvvm.cp.async.bulk.tensor.shared.cluster.global at {{.*}}scope_multicast_invalid.mlir:{{[0-9]+}}:5 has multicast mask 0x3, which no CTA's multicast set contains (the pipeline's multicast is row on a 2x2x1 cluster)

// -----

// Type confusion: scope takes cta or cluster.
func.func @f() {
  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = grid>
  func.return
}
// CHECK: scope_multicast_invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: Expected `cta`, or `cluster`

// -----

// ... and a direction is row, col or row_col (an unknown word is not taken as one).
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %m = cutlass.pipeline.get_producer_mask %r diagonal
    func.return
  }
}
// CHECK: scope_multicast_invalid.mlir:208:5: error: Operation diagonal is not registered

// -----

// Type confusion in the generic form: multicast and direction are multicast_direction enums.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, multicast = 3 : i32}
    func.return
  }
}
// CHECK: error: property 'multicast' of cutlass.pipeline.init does not verify: 3 : i32 should be of base attribute cutlass.multicast_direction

// -----

builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %m = "cutlass.pipeline.get_producer_mask"(%r) <{direction = #cutlass<pipeline_scope cta>}> : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1>) -> i16
    func.return
  }
}
// CHECK: error: property 'direction' of cutlass.pipeline.get_producer_mask does not verify: #cutlass<pipeline_scope cta> should be of base attribute cutlass.multicast_direction

// -----

// A hand-written remote arrive on a CTA-scoped pipeline's empty barrier.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f(%s: !cutlass.pipeline_state<2>, %peer: i32) {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
    %eb = cutlass.pipeline.get_empty_barrier %r, %s
    %remote = nvvm.mapa %eb, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
    func.return
  }
}
// CHECK: error: cutlass.pipeline.get_empty_barrier: the barrier of a CTA-scoped pipeline (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>) is mapped into another CTA by nvvm.mapa at {{.*}}scope_multicast_invalid.mlir:{{[0-9]+}}:5; its arrive counts cover this CTA's threads only, so a remote arrive over-completes its phase; use scope = cluster

// -----

// The scope is the type's: an init attribute named scope would otherwise be silently ignored.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @f() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, scope = #cutlass<pipeline_scope cta>}
    func.return
  }
}
// CHECK: error: cutlass.pipeline.init: scope is a parameter of the pipeline type, not of its init; write !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta> on the cutlass.pipeline.create
