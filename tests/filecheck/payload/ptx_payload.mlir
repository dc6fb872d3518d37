// The TMA / WGMMA / stmatrix / PDL payload ops down to PTX, assembled by ptxas -arch=sm_90a.
// Expected spellings are the PTX ISA's (hopper-gemm.md §1).
// REQUIRES: ptxas
// RUN: tileorch compile %s --arch sm_90a -o %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  llvm.mlir.global internal @bars() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<8 x i64>
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
  // The tensor map is a 128-byte byval parameter marked grid-constant: PTX reads it in .param space.
  // CHECK: .visible .entry kernel(
  // CHECK-NEXT: .param .align 64 .b8 kernel_param_0[128]
  func.func @kernel(%tmap: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant},
                    %x: i32, %y: i32, %z: i32, %da: i64, %db: i64)
      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %bar = llvm.mlir.addressof @bars : !llvm.ptr<3>
    %smem = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %dst = llvm.addrspacecast %smem : !llvm.ptr<3> to !llvm.ptr<7>
    %mask = arith.constant 3 : i16
    %hint = arith.constant 1152921504606846976 : i64
    // CHECK: cvta.param.u64 [[TMAP:%rd[0-9]+]], %rd{{[0-9]+}};
    // One prefetch of the parameter's map (LLVM 22 made two of the generic form: the .param one and
    // prefetch.tensormap of its cvta.param address; the lowering casts a kernel parameter to address space 101).
    // CHECK: prefetch.param.tensormap [kernel_param_0];
    // CHECK-NOT: prefetch.tensormap
    nvvm.prefetch tensormap, %tmap : !llvm.ptr
    // CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{[%a-z0-9_]+}}], [[[TMAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [{{.+}}];
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %bar, box[%x, %y] : !llvm.ptr<7>, !llvm.ptr
    // CHECK: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [{{[%a-z0-9_]+}}], [[[TMAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [{{.+}}], %rs{{[0-9]+}}, %rd{{[0-9]+}};
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %bar, box[%x, %y, %z] multicast_mask = %mask l2_cache_hint = %hint : !llvm.ptr<7>, !llvm.ptr
    // CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [{{[%a-z0-9_]+}}], [[[TMAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [{{.+}}];
    nvvm.cp.async.bulk.tensor.shared.cluster.global %smem, %tmap, %bar, box[%x, %y] cta_only = true : !llvm.ptr<3>, !llvm.ptr
    // CHECK: cp.async.bulk.prefetch.tensor.1d.L2.global.tile [[[TMAP]], {%r{{[0-9]+}}}];
    nvvm.cp.async.bulk.tensor.prefetch %tmap, box[%x] : !llvm.ptr
    // The epilogue: registers -> stmatrix -> async-proxy fence -> TMA store / reduce.
    %v = arith.constant 7 : i32
    // CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16 [{{[%a-z0-9_]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
    nvvm.stmatrix %smem, %v, %v, %v, %v layout = <row>, shape = <m = 8, n = 8>, element_type = <b16> : !llvm.ptr<3>, i32, i32, i32, i32
    // CHECK: stmatrix.sync.aligned.m8n8.x2.trans.shared.b16
    nvvm.stmatrix %smem, %v, %v layout = <col>, shape = <m = 8, n = 8>, element_type = <b16> : !llvm.ptr<3>, i32, i32
    // CHECK: fence.proxy.async.shared::cta;
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    // CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [[[TMAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [{{[%a-z0-9_]+}}];
    nvvm.cp.async.bulk.tensor.global.shared.cta %tmap, %smem, box[%x, %y] : !llvm.ptr, !llvm.ptr<3>
    // CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [[[TMAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [{{[%a-z0-9_]+}}];
    nvvm.cp.async.bulk.tensor.reduce %tmap, %smem, box[%x, %y], reduction = add : !llvm.ptr, !llvm.ptr<3>
    nvvm.cp.async.bulk.commit.group
    nvvm.cp.async.bulk.wait_group 0 {read}
    // WGMMA: fence, two k16 steps on tied registers, commit, wait.
    %zero = arith.constant 0.0 : f32
    %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %a0 = llvm.insertvalue %zero, %u[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %a1 = llvm.insertvalue %zero, %a0[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %a2 = llvm.insertvalue %zero, %a1[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %a3 = llvm.insertvalue %zero, %a2[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %a4 = llvm.insertvalue %zero, %a3[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %a5 = llvm.insertvalue %zero, %a4[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %a6 = llvm.insertvalue %zero, %a5[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %acc = llvm.insertvalue %zero, %a6[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    // CHECK: wgmma.fence.sync.aligned;
    nvvm.wgmma.fence.aligned
    // CHECK: setp.ne.b32 p, 1, 0;
    // CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {[[D0:%(r|f)[0-9]+]], {{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
    %d1 = nvvm.wgmma.mma_async %da, %db, %acc, <m = 64, n = 16, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    // B given N-major (layout row) sets imm-trans-b; f16 inputs.
    // CHECK: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
    %d2 = nvvm.wgmma.mma_async %da, %db, %d1, <m = 64, n = 16, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    // A from registers (four 32-bit registers of f16 pairs; no imm-trans-a), B N-major
    // CHECK: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
    %fi0 = llvm.bitcast %zero : f32 to i32
    %d3 = atom.wgmma_mma_async_reg_a %fi0, %fi0, %fi0, %fi0, %db, %d2 {n = 16 : i64, typeAB = #nvvm.wgmma_type<f16>, layoutB = #nvvm.mma_layout<row>} : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    // int8 inputs: s32 accumulators in 32-bit registers, no operand scales or transposes (PTX 8.4+
    // for the mixed-signedness form)
    // CHECK: wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {{[{]}}%r{{[0-9]+}}, {{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p;
    %izero = llvm.mlir.zero : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
    %i1 = nvvm.wgmma.mma_async %da, %db, %izero, <m = 64, n = 16, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)> -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
    // CHECK: wgmma.mma_async.sync.aligned.m64n16k32.s32.u8.s8.satfinite {{.*}}, p;
    %i2 = nvvm.wgmma.mma_async %da, %db, %i1, <m = 64, n = 16, k = 32>, D[<s32>, <one>, <satfinite>], A[<u8>, <one>, <row>], B[<s8>, <one>, <col>] : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)> -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
    // CHECK: wgmma.commit_group.sync.aligned;
    nvvm.wgmma.commit.group.sync.aligned
    // CHECK: wgmma.wait_group.sync.aligned 0;
    nvvm.wgmma.wait.group.sync.aligned 0
    %f = llvm.extractvalue %d3[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %fi = llvm.bitcast %f : f32 to i32
    nvvm.stmatrix %smem, %fi layout = <row>, shape = <m = 8, n = 8>, element_type = <b16> : !llvm.ptr<3>, i32
    // CHECK: griddepcontrol.wait;
    nvvm.griddepcontrol wait
    // CHECK: griddepcontrol.launch_dependents;
    nvvm.griddepcontrol launch_dependents
    func.return
  }
}
