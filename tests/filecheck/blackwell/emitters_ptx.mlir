// The 4-CTA (BG06) and 2-CTA (S02) S2T copies and the DSMEM handshake (S01) through the whole
// `tileorch compile` pipeline to PTX accepted by `ptxas -arch=sm_100a`.
// REQUIRES: ptxas
// RUN: tileorch compile %s --arch sm_100a -o %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin

module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 4, 1, 1>} {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  llvm.mlir.global internal @flag() {addr_space = 3 : i32, alignment = 4 : i64} : i32
  // CHECK-LABEL: .visible .entry copy4(
  // CHECK: mov.u32 {{.*}}%cluster_ctarank;
  // (rank % 4) & 1, then lane 0's predicate for the whole warp
  // CHECK: and.b32 {{.*}}, 1;
  // CHECK-NEXT: shfl.sync.idx.b32 {{.*}}, 0, 31, -1;
  // CHECK: tcgen05.cp.cta_group::2.128x256b [{{%r[0-9]+}}], {{%rd[0-9]+}};
  func.func @copy4(%t: !llvm.ptr<6>, %d: i64) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    cute_nvgpu.atom.s2t_copy %t, %d {cta_group = 4 : i32, cols = 256 : i32, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>} : !llvm.ptr<6>
    return
  }
  // CHECK-LABEL: .visible .entry copy2(
  // CHECK: %cluster_ctarank
  // CHECK: tcgen05.cp.cta_group::2.64x128b.warpx2::02_13
  // CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
  func.func @copy2(%t: !llvm.ptr<6>, %d: i64) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %bar = llvm.mlir.addressof @bar : !llvm.ptr<3>
    cute_nvgpu.arch.mbarrier_init %bar {cta_group = 2 : i32, count = 1 : i32} : !llvm.ptr<3>
    cute_nvgpu.atom.s2t_copy %t, %d, %bar {cta_group = 2 : i32, cols = 128 : i32, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx2_02_13>} : !llvm.ptr<6>, !llvm.ptr<3>
    return
  }
  // CHECK-LABEL: .visible .entry handshake(
  // CHECK: fence.release.cluster;
  // CHECK: mbarrier.expect_tx
  // CHECK: mapa.shared::cluster.u64 [[REMOTE:%rd[0-9]+]]
  // CHECK: xor.b32
  // CHECK: st.shared::cluster.b32 {{\[}}[[REMOTE]]]
  // CHECK: barrier.cluster.arrive.relaxed.aligned;
  // CHECK-NEXT: barrier.cluster.wait.aligned;
  func.func @handshake(%peer: i32, %tx: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %bar = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %flag = llvm.mlir.addressof @flag : !llvm.ptr<3>
    cute_nvgpu.cluster_handshake %bar, %flag, %peer, %tx {relaxed} : !llvm.ptr<3>, !llvm.ptr<3>
    return
  }
}
