// convert-blackwell-cluster-emitters: seed 003's BG06 (4-CTA S2T copy), S02 (2-CTA TMEM copy and its
// mbarrier init) and S01 (DSMEM handshake and its single-CTA bypass).
// RUN: tileorch-opt %s --split-input-file -p convert-blackwell-cluster-emitters | filecheck %s

// BG06: mcw = 4, parity predicate (rank % 4) & 1 made warp-uniform, quarter slice keyed off rank,
// only the odd CTAs issue the copy, as a cta_group::2 pair copy.
func.func @four(%t: !llvm.ptr<6>, %d: i64) {
  cute_nvgpu.atom.s2t_copy %t, %d {cta_group = 4 : i32, cols = 256 : i32, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>} : !llvm.ptr<6>
  return
}
// CHECK-LABEL: func.func @four
// CHECK:      %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %[[MCW:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[REM:.*]] = arith.remsi %[[RANK]], %[[MCW]] : i32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[ODD:.*]] = arith.andi %[[REM]], %[[ONE]] : i32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[PRED:.*]] = arith.cmpi ne, %[[ODD]], %[[ZERO]] : i32
// CHECK-NEXT: %[[Q:.*]] = arith.constant 64 : i32
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[REM]], %[[Q]] : i32
// CHECK-NEXT: %[[BASE:.*]] = llvm.ptrtoint %t : !llvm.ptr<6> to i32
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[BASE]], %[[OFF]] : i32
// CHECK-NEXT: %[[DST:.*]] = llvm.inttoptr %[[SUM]] : i32 to !llvm.ptr<6>
// CHECK-NEXT: %[[WIDE:.*]] = arith.extui %[[PRED]] : i1 to i32
// CHECK:      %[[SHFL:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%{{.*}}, %[[WIDE]], %{{.*}}, %{{.*}}) : (i32, i32, i32, i32) -> i32
// CHECK:      %[[UNI:.*]] = arith.cmpi ne, %[[SHFL]], %{{.*}} : i32
// CHECK-NEXT: scf.if %[[UNI]] {
// CHECK-NEXT:   %[[ONE_LANE:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT:   scf.if %[[ONE_LANE]] {
// CHECK-NEXT:     nvvm.tcgen05.cp %[[DST]], %d, shape = shape_128x256b group = <cta_2>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----
// S02: multicast width 2, direct-build leader predicate (no remsi), the copy committed to the
// mbarrier of both CTAs of the pair; the 2-CTA mbarrier init is fenced to the cluster.
func.func @two(%t: !llvm.ptr<6>, %d: i64, %bar: !llvm.ptr<3>) {
  cute_nvgpu.arch.mbarrier_init %bar {cta_group = 2 : i32, count = 1 : i32} : !llvm.ptr<3>
  cute_nvgpu.atom.s2t_copy %t, %d, %bar {cta_group = 2 : i32, cols = 128 : i32, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>} : !llvm.ptr<6>, !llvm.ptr<3>
  return
}
// CHECK-LABEL: func.func @two
// CHECK:      %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:      %[[T0:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : i32
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK-NEXT:   %[[CNT:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   nvvm.mbarrier.init %bar, %[[CNT]] : !llvm.ptr<3>, i32
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.cluster.arrive.relaxed aligned
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK-NEXT: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NOT:  arith.remsi
// CHECK:      %[[LOW:.*]] = arith.andi %[[RANK]], %{{.*}} : i32
// CHECK:      %[[LEAD:.*]] = arith.cmpi eq, %[[LOW]], %{{.*}} : i32
// CHECK:      llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"
// CHECK:      scf.if
// CHECK-NEXT:   nvvm.elect.sync
// CHECK-NEXT:   scf.if
// CHECK-NEXT:     nvvm.tcgen05.cp %t, %d, shape = shape_128x256b group = <cta_2>
// CHECK-NEXT:     %[[M2:.*]] = arith.constant -2 : i32
// CHECK-NEXT:     %[[EVEN:.*]] = arith.andi %[[RANK]], %[[M2]] : i32
// CHECK-NEXT:     %[[PAIR:.*]] = arith.constant 3 : i32
// CHECK-NEXT:     %[[SH:.*]] = arith.shli %[[PAIR]], %[[EVEN]] : i32
// CHECK-NEXT:     %[[MASK:.*]] = arith.trunci %[[SH]] : i32 to i16
// CHECK-NEXT:     nvvm.tcgen05.commit %bar, multicast_mask = %[[MASK]] group = <cta_2> : !llvm.ptr<3>, i16
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----
// One CTA: the plain copy and commit, no rank predicate; a 1-CTA mbarrier init syncs the CTA only.
func.func @one(%t: !llvm.ptr<6>, %d: i64, %bar: !llvm.ptr<3>) {
  cute_nvgpu.arch.mbarrier_init %bar {cta_group = 1 : i32, count = 1 : i32} : !llvm.ptr<3>
  cute_nvgpu.atom.s2t_copy %t, %d, %bar {cta_group = 1 : i32, cols = 64 : i32, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>} : !llvm.ptr<6>, !llvm.ptr<3>
  return
}
// CHECK-LABEL: func.func @one
// CHECK:      nvvm.mbarrier.init %bar
// CHECK:      nvvm.barrier
// CHECK-NOT:  cluster
// CHECK-NEXT: %[[E:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT:   nvvm.tcgen05.cp %t, %d, shape = shape_32x128b multicast = warpx4
// CHECK-NEXT:   nvvm.tcgen05.commit %bar : !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----
// S01, multi-CTA cluster (from cutlass.cluster_shape): mapa -> addrspacecast -> fence.release.cluster
// (relaxed) -> expect_tx -> cmpi -> scf.if {load, xori, store} -> arrive.relaxed -> wait.
module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @handshake(%bar: !llvm.ptr<3>, %flag: !llvm.ptr<3>, %peer: i32, %tx: i32) {
    cute_nvgpu.cluster_handshake %bar, %flag, %peer, %tx {relaxed} : !llvm.ptr<3>, !llvm.ptr<3>
    return
  }
}
// CHECK-LABEL: func.func @handshake
// CHECK-NEXT: %[[R:.*]] = nvvm.mapa %flag, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: %[[G:.*]] = llvm.addrspacecast %[[R]] : !llvm.ptr<7> to !llvm.ptr
// CHECK-NEXT: llvm.inline_asm has_side_effects "fence.release.cluster;", "" : () -> ()
// CHECK:      scf.if
// CHECK-NEXT:   nvvm.mbarrier.expect_tx %bar, %tx : !llvm.ptr<3>, i32
// CHECK-NEXT: }
// CHECK-NEXT: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %[[OTHER:.*]] = arith.cmpi ne, %[[RANK]], %peer : i32
// CHECK-NEXT: %[[GO:.*]] = arith.andi %[[OTHER]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[GO]] {
// CHECK-NEXT:   %[[V:.*]] = llvm.load %[[G]] : !llvm.ptr -> i32
// CHECK-NEXT:   %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[X:.*]] = arith.xori %[[V]], %[[C1]] : i32
// CHECK-NEXT:   llvm.store %[[X]], %[[G]] : i32, !llvm.ptr
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cluster.arrive.relaxed aligned
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK-NEXT: func.return

// -----
// S01 without the relaxed flag: no fence, a releasing (plain) arrive.
func.func @handshake_release(%bar: !llvm.ptr<3>, %flag: !llvm.ptr<3>, %peer: i32, %tx: i32) attributes {nvvm.cluster_dim = array<i32: 2, 2, 1>} {
  cute_nvgpu.cluster_handshake %bar, %flag, %peer, %tx : !llvm.ptr<3>, !llvm.ptr<3>
  return
}
// CHECK-LABEL: func.func @handshake_release
// CHECK:      nvvm.mapa
// CHECK-NOT:  fence.release.cluster
// CHECK:      nvvm.mbarrier.expect_tx
// CHECK:      nvvm.cluster.arrive aligned
// CHECK-NEXT: nvvm.cluster.wait aligned

// -----
// S01 single-CTA bypass: a bare cluster arrive + wait, no DSMEM traffic.
func.func @bypass(%bar: !llvm.ptr<3>, %flag: !llvm.ptr<3>, %peer: i32, %tx: i32) {
  cute_nvgpu.cluster_handshake %bar, %flag, %peer, %tx {relaxed} : !llvm.ptr<3>, !llvm.ptr<3>
  cute_nvgpu.cluster_handshake %bar, %flag, %peer, %tx {num_ctas = 1 : i32} : !llvm.ptr<3>, !llvm.ptr<3>
  return
}
// CHECK-LABEL: func.func @bypass
// CHECK-NEXT: nvvm.cluster.arrive.relaxed aligned
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK-NEXT: nvvm.cluster.arrive aligned
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK-NEXT: func.return
