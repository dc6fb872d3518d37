// One 2-CTA UMMA step on Blackwell (sm_100a), written with tileorch's nvvm.tcgen05 ops and the
// cute_nvgpu cluster atoms of seed 003 (docs/blackwell.md):
//
//   2-CTA mbarrier init (S02 helper) -> TMEM alloc by warp 0 of both peer CTAs -> S2T copy of A into
//   TMEM by the pair leader (warp 0, one elected lane), committed to both CTAs' copy barrier (S02) -> leader issues
//   tcgen05.mma cta_group::2 (A from TMEM, B from SMEM) and commits it to both CTAs' MMA barrier ->
//   all threads wait, load their accumulator lane from TMEM -> DSMEM handshake with the peer (S01)
//   so neither CTA frees TMEM while the pair still uses it -> dealloc.
//
// tileorch compile examples/tcgen05_sm100a.mlir --arch sm_100a   (PTX accepted by ptxas -arch=sm_100a)
// No Blackwell GPU was available: this is checked by ptxas, not run.
module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  llvm.mlir.global internal @tmem_slot() {addr_space = 3 : i32, alignment = 16 : i64} : i32
  llvm.mlir.global internal @copy_bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  llvm.mlir.global internal @mma_bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  llvm.mlir.global internal @peer_bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  llvm.mlir.global internal @peer_flag() {addr_space = 3 : i32, alignment = 4 : i64} : i32

  func.func @umma_2cta(%out: !llvm.ptr<1>, %desc_a: i64, %desc_b: i64, %idesc: i32)
      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
    %slot = llvm.mlir.addressof @tmem_slot : !llvm.ptr<3>
    %copy_bar = llvm.mlir.addressof @copy_bar : !llvm.ptr<3>
    %mma_bar = llvm.mlir.addressof @mma_bar : !llvm.ptr<3>
    %peer_bar = llvm.mlir.addressof @peer_bar : !llvm.ptr<3>
    %peer_flag = llvm.mlir.addressof @peer_flag : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %cols = arith.constant 128 : i32
    %a_cols = arith.constant 64 : i32
    %ticks = arith.constant 1000000 : i32
    %false = arith.constant false

    // Barriers: one arrival per phase (a multicast tcgen05.commit); the peer CTA signals them, so
    // the 2-CTA init is fenced to the cluster.
    cute_nvgpu.arch.mbarrier_init %copy_bar {cta_group = 2 : i32, count = 1 : i32} : !llvm.ptr<3>
    cute_nvgpu.arch.mbarrier_init %mma_bar {cta_group = 2 : i32, count = 1 : i32} : !llvm.ptr<3>
    cute_nvgpu.arch.mbarrier_init %peer_bar {cta_group = 1 : i32, count = 1 : i32} : !llvm.ptr<3>

    // TMEM: warp 0 of each peer CTA allocates 128 columns together (cta_group::2).
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %warp = arith.divui %tid, %c32 : i32
    %warp0 = arith.cmpi eq, %warp, %c0 : i32
    scf.if %warp0 {
      nvvm.tcgen05.alloc %slot, %cols, group = <cta_2> : !llvm.ptr<3>, i32
      nvvm.tcgen05.relinquish_alloc_permit group = <cta_2>
    }
    nvvm.tcgen05.fence <before>
    nvvm.barrier
    nvvm.tcgen05.fence <after>
    %taddr_i = llvm.load %slot : !llvm.ptr<3> -> i32
    %acc = llvm.inttoptr %taddr_i : i32 to !llvm.ptr<6>
    %a_i = arith.addi %taddr_i, %a_cols : i32
    %a_tmem = llvm.inttoptr %a_i : i32 to !llvm.ptr<6>

    // S02: the pair leader copies A (SMEM descriptor) into the TMEM of both CTAs and commits the
    // copy to both CTAs' copy barrier (the atom runs on one whole warp; one lane issues); everyone
    // waits for phase 0.
    scf.if %warp0 {
      cute_nvgpu.atom.s2t_copy %a_tmem, %desc_a, %copy_bar {cta_group = 2 : i32, cols = 64 : i32, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>} : !llvm.ptr<6>, !llvm.ptr<3>
    }
    nvvm.mbarrier.try_wait.parity %copy_bar, %c0, %ticks : !llvm.ptr<3>, i32, i32
    nvvm.tcgen05.fence <after>

    // The 2-CTA UMMA, issued by one thread of the pair leader; its completion arrives on the MMA
    // barrier of both CTAs (multicast mask 0b11 << even rank).
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %low = arith.andi %rank, %c1 : i32
    %leader = arith.cmpi eq, %low, %c0 : i32
    %t0 = arith.cmpi eq, %tid, %c0 : i32
    %issue = arith.andi %leader, %t0 : i1
    scf.if %issue {
      nvvm.tcgen05.mma %acc, %a_tmem, %desc_b, %idesc, %false, kind = f16, cta_group = <cta_2> : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
      %pair = arith.constant 3 : i16
      nvvm.tcgen05.commit %mma_bar, multicast_mask = %pair group = <cta_2> : !llvm.ptr<3>, i16
    }
    nvvm.mbarrier.try_wait.parity %mma_bar, %c0, %ticks : !llvm.ptr<3>, i32, i32
    nvvm.tcgen05.fence <after>

    // Warp w reads TMEM lanes 32w..32w+31 of the accumulator (32x32b.x4: 4 columns per thread);
    // a TMEM address is (lane << 16) | column.
    %c16 = arith.constant 16 : i32
    %lane0 = arith.muli %warp, %c32 : i32
    %lane_off = arith.shli %lane0, %c16 : i32
    %acc_w_i = arith.addi %taddr_i, %lane_off : i32
    %acc_w = llvm.inttoptr %acc_w_i : i32 to !llvm.ptr<6>
    %v = nvvm.tcgen05.ld %acc_w shape = shape_32x32b : vector<4xi32>
    nvvm.tcgen05.wait <load>
    %e0 = llvm.extractelement %v[%c0 : i32] : vector<4xi32>
    %e1 = llvm.extractelement %v[%c1 : i32] : vector<4xi32>
    %sum = arith.addi %e0, %e1 : i32
    %dst = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %sum, %dst : i32, !llvm.ptr<1>

    // S01: tell the peer CTA we are done with the pair's TMEM before either frees it (the tcgen05
    // fences order this thread's TMEM accesses around the cluster barrier).
    %peer = arith.xori %rank, %c1 : i32
    nvvm.tcgen05.fence <before>
    cute_nvgpu.cluster_handshake %peer_bar, %peer_flag, %peer, %c0 {relaxed} : !llvm.ptr<3>, !llvm.ptr<3>
    nvvm.tcgen05.fence <after>
    scf.if %warp0 {
      nvvm.tcgen05.dealloc %acc, %cols, group = <cta_2> : !llvm.ptr<6>, i32
    }
    return
  }
}
