// REQUIRES: ptxas
// RUN: tileorch-opt %S/../../../examples/tile_gemm.mlir -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=CUTLASS
// RUN: tileorch-opt %S/../../../examples/tile_gemm.mlir -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: tileorch-opt %S/../../../examples/tile_gemm.mlir -p "tileas-tier,convert-nv-tileas-to-cutlass{schedule=streamk}" | filecheck %s --check-prefix=STREAMK
// RUN: tileorch-opt %S/../../../examples/tile_gemm.mlir -p "tileas-tier{dynamic-persistent=true}" | filecheck %s --check-prefix=DYN
// RUN: tileorch-opt %S/../../../examples/tile_gemm.mlir -p "tileas-tier{dynamic-persistent=true},convert-nv-tileas-to-cutlass{schedule=dp}" | filecheck %s --check-prefix=DP
// RUN: tileorch-opt %S/../../../examples/tile_gemm.mlir -p "tileas-tier{dynamic-persistent=true},convert-nv-tileas-to-cutlass{schedule=persistent}" | filecheck %s --check-prefix=PERSISTENT
// RUN: tileorch-opt %S/../../../examples/tile_gemm.mlir -p "tileas-tier{dynamic-persistent=true},convert-nv-tileas-to-cutlass{schedule=streamk}" | filecheck %s --check-prefix=STREAMK
// The example tile GEMM, through the TileAS tier, lowered onto the cutlass pipeline and tile
// scheduler ops and the TMA + WGMMA payload, to PTX that ptxas accepts for sm_90a.
// CUTLASS: func.func @gemm_f16_f16_bn_128x256x64_s4_c2x1_persistent{{.*}} attributes {{{.*}}tileorch.gemm_config = {{{.*}}stages = 4 : i64{{.*}}}, tileorch.tile_kernel = "tile_gemm"
// One consumer group of the pipeline: the two consumer warp groups run one body (TILEORCH_GEMM_SHARED_CONSUMER=1,
// the default): its consumer mask holds warp groups 1 and 2
// CUTLASS: cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
// CUTLASS: consumers = array<i64: 6>
// CUTLASS: cutlass.tile_scheduler.create_static_persistent_params
// CUTLASS: cutlass.pipeline.producer_acquire
// CUTLASS: cutlass.async.exec warpgroup mask(0x6) regs(232)
// CUTLASS: nvvm.wgmma.mma_async
// CUTLASS-NOT: cutlass.async.exec
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global{{.*}}.multicast::cluster
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// STREAMK: cutlass.tile_scheduler.create_streamk_params
// The dynamic-persistent form: agents inside the program-id loop, the next id claimed after them;
// it lowers onto each of the tile schedulers.
// DYN: scf.while (%{{.*}} = %{{.*}}) : (!nv_tileaa.program_id) -> !nv_tileaa.program_id
// DYN: nv_tileaa.is_valid_program_id
// DYN: nv_tileaa.get_program_id %{{.*}} {axis = 0 : i32}
// DYN: nv_tileas.async.pipeline.agent_switch
// DYN: %[[N:.*]] = nv_tileas.cancel_next_program_id
// DYN-NEXT: scf.yield %[[N]] : !nv_tileaa.program_id
// DP: func.func @gemm_f16_f16_bn_128x256x64_s4_c2x1_dp
// PERSISTENT: cutlass.tile_scheduler.create_static_persistent_params
