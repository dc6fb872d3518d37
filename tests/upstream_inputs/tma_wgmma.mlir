// Hand-written in upstream MLIR's llvm + nvvm syntax (what upstream's NVGPU-to-NVVM conversion
// emits for nvgpu.tma.prefetch.descriptor, nvgpu.tma.async.load and nvgpu.warpgroup.mma): a TMA
// tensor-map prefetch, a 2-D TMA tile load completing on an mbarrier, and one m64n8k16 bf16
// WGMMA with its fence / commit / wait.  The tensor map is a grid-constant byval kernel parameter.
// EXPECT-PTX: prefetch.param.tensormap
// EXPECT-PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// EXPECT-PTX: wgmma.fence.sync.aligned
// EXPECT-PTX: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
// EXPECT-PTX: wgmma.commit_group.sync.aligned
// EXPECT-PTX: wgmma.wait_group.sync.aligned 0
llvm.func @tma_wgmma(%tmap: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %descA: i64, %descB: i64) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c64 = llvm.mlir.constant(64 : i32) : i32
  %bar = llvm.mlir.addressof @bar : !llvm.ptr<3>
  %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
  nvvm.prefetch tensormap, %tmap : !llvm.ptr
  %dst = llvm.addrspacecast %tile : !llvm.ptr<3> to !llvm.ptr<7>
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %bar, box[%c0, %c64] : !llvm.ptr<7>, !llvm.ptr
  %f0 = llvm.mlir.constant(0.0 : f32) : f32
  %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
  %a0 = llvm.insertvalue %f0, %u[0] : !llvm.struct<(f32, f32, f32, f32)>
  %a1 = llvm.insertvalue %f0, %a0[1] : !llvm.struct<(f32, f32, f32, f32)>
  %a2 = llvm.insertvalue %f0, %a1[2] : !llvm.struct<(f32, f32, f32, f32)>
  %acc = llvm.insertvalue %f0, %a2[3] : !llvm.struct<(f32, f32, f32, f32)>
  nvvm.wgmma.fence.aligned
  %d = nvvm.wgmma.mma_async %descA, %descB, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 0
  llvm.return
}
llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
