// Every nvvm.tcgen05 op down to LLVM 22 intrinsics, PTX and `ptxas -arch=sm_100a`.
// Expected spellings are the PTX ISA's (tcgen05 instructions, PTX 8.6).
// REQUIRES: ptxas
// RUN: tileorch compile %s --arch sm_100a -o %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: ptxas -arch=sm_100a %t.ptx -o %t.cubin

module attributes {cutlass.target = "sm_100a"} {
  llvm.mlir.global internal @slot() {addr_space = 3 : i32, alignment = 16 : i64} : i32
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  // CHECK: .visible .entry k(
  func.func @k(%out: !llvm.ptr<1>, %desc: i64, %idesc: i32, %acc: i1, %mask: i16)
      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %slot = llvm.mlir.addressof @slot : !llvm.ptr<3>
    %bar = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %cols = arith.constant 64 : i32
    // CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{[%a-z0-9_]+}}], {{%r[0-9]+|64}};
    nvvm.tcgen05.alloc %slot, %cols : !llvm.ptr<3>, i32
    // CHECK: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
    nvvm.tcgen05.relinquish_alloc_permit
    // CHECK: tcgen05.fence::before_thread_sync;
    nvvm.tcgen05.fence <before>
    nvvm.barrier
    // CHECK: tcgen05.fence::after_thread_sync;
    nvvm.tcgen05.fence <after>
    %a = llvm.load %slot : !llvm.ptr<3> -> i32
    %t = llvm.inttoptr %a : i32 to !llvm.ptr<6>
    // CHECK: tcgen05.cp.cta_group::1.128x256b [{{%r[0-9]+}}], {{%rd[0-9]+}};
    nvvm.tcgen05.cp %t, %desc, shape = shape_128x256b
    // CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [{{%r[0-9]+}}], {{%rd[0-9]+}};
    nvvm.tcgen05.cp %t, %desc, shape = shape_32x128b multicast = warpx4
    // CHECK: tcgen05.cp.cta_group::1.64x128b.warpx2::01_23.b8x16.b4x16_p64 [{{%r[0-9]+}}], {{%rd[0-9]+}};
    nvvm.tcgen05.cp %t, %desc, shape = shape_64x128b multicast = warpx2_01_23 source_format = <b4x16_p64>
    // CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}};
    nvvm.tcgen05.mma %t, %desc, %desc, %idesc, %acc, kind = f16, cta_group = <cta_1> : (!llvm.ptr<6>, i64, i64, i32, i1)
    // CHECK: tcgen05.mma.cta_group::1.kind::tf32.collector::a::fill [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}}, 3;
    %scale = arith.constant 3 : i64
    nvvm.tcgen05.mma %t, %desc, %desc, %idesc, %acc scale = %scale, kind = tf32, cta_group = <cta_1> collector_a = fill : (!llvm.ptr<6>, i64, i64, i32, i1, i64)
    // A from TMEM: the `.tensor` intrinsic, `[taddr]` operand.
    // CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}};
    nvvm.tcgen05.mma %t, %t, %desc, %idesc, %acc, kind = f16, cta_group = <cta_1> : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
    %z = arith.constant 0 : i32
    %u = llvm.mlir.undef : vector<4xi32>
    %lanes = llvm.insertelement %z, %u[%z : i32] : vector<4xi32>
    // CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, {{%p[0-9]+}};
    nvvm.tcgen05.mma %t, %desc, %desc, %idesc, %acc mask = %lanes, kind = f16, cta_group = <cta_1> : (!llvm.ptr<6>, i64, i64, i32, i1, vector<4xi32>)
    // CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [{{[%a-z0-9_]+}}];
    nvvm.tcgen05.commit %bar : !llvm.ptr<3>
    // CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [{{[%a-z0-9_]+}}], {{%rs[0-9]+}};
    nvvm.tcgen05.commit %bar, multicast_mask = %mask : !llvm.ptr<3>, i16
    // CHECK: tcgen05.shift.cta_group::1.down [{{%r[0-9]+}}];
    nvvm.tcgen05.shift %t : !llvm.ptr<6>
    // CHECK: tcgen05.ld.sync.aligned.32x32b.x4.b32 {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, [{{%r[0-9]+}}];
    %v = nvvm.tcgen05.ld %t shape = shape_32x32b : vector<4xi32>
    // CHECK: tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32 {{{%r[0-9]+}}, {{%r[0-9]+}}}, [{{%r[0-9]+}}], 4;
    %off = arith.constant 4 : i64
    %w = nvvm.tcgen05.ld %t, %off pack shape = shape_16x32bx2 : vector<2xi32>
    // CHECK: tcgen05.wait::ld.sync.aligned;
    nvvm.tcgen05.wait <load>
    // CHECK: tcgen05.st.sync.aligned.16x128b.x2.b32 [{{%r[0-9]+}}], {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}};
    nvvm.tcgen05.st %t, %v shape = shape_16x128b : vector<4xi32>
    // CHECK: tcgen05.wait::st.sync.aligned;
    nvvm.tcgen05.wait <store>
    %e0 = llvm.extractelement %v[%z : i32] : vector<4xi32>
    %e1 = llvm.extractelement %w[%z : i32] : vector<2xi32>
    %s = arith.addi %e0, %e1 : i32
    llvm.store %s, %out : i32, !llvm.ptr<1>
    // CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{%r[0-9]+}}, {{%r[0-9]+|64}};
    nvvm.tcgen05.dealloc %t, %cols : !llvm.ptr<6>, i32
    return
  }
}
