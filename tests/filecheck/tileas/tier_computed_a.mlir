// RUN: env TILEORCH_COMPUTED_OPERAND=staged,global_k_vectors tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: env TILEORCH_COMPUTED_OPERAND=staged,global_k_vectors tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// RUN: env TILEORCH_COMPUTED_OPERAND=prefetch,staged tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=PRE
// RUN: env TILEORCH_COMPUTED_OPERAND=registers,global_k_vectors tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=REG
// RUN: env TILEORCH_COMPUTED_OPERAND=registers,global_k_vectors tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.reg.ptx
// RUN: ptxas -arch=sm_90a %t.reg.ptx -o %t.reg.cubin
// RUN: filecheck %s --check-prefix=REGPTX < %t.reg.ptx
// RUN: not grep -E "bar.sync[[:space:]]+3,|fence.proxy.async" %t.reg.ptx
// RUN: env TILEORCH_COMPUTED_OPERAND= tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=DEFAULT
// RUN: env TILEORCH_COMPUTED_OPERAND=staged tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=KV
// RUN: env TILEORCH_COMPUTED_OPERAND=staged tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.kv.ptx
// RUN: ptxas -arch=sm_90a %t.kv.ptx -o %t.kv.cubin
// RUN: filecheck %s --check-prefix=KVPTX < %t.kv.ptx
// RUN: env TILEORCH_COMPUTED_OPERAND= tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=KVREG

// Session 41 (tileas/k_vector_tma.py, the default; here with A staged, TILEORCH_COMPUTED_OPERAND=staged): gamma is TMA-loaded by the producer into each stage.  Its 64 f16
// values (128 bytes) have a slot per stage after the rest of shared memory (8 stages of A, B and raw A, then the
// slots: 196608 + 128 * stage), its box is loaded from gamma's own 2-D map (the kernel's parameter after the
// builder's, before the program's) at (kt * 64, 0), and counts in the stage's transaction bytes (16384 + 128); the
// consumers read their 8 values from the slot after the wait, no global load left in the K loop; the first load's
// alignment (16: the unit's first K column is a multiple of 8, the slot 128-byte aligned) lets LLVM merge the 8 into
// one 16-byte shared load (no ld.shared.b16 in the PTX).
// KV:         func.func @gemm_f16_f32_bn_64x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_arawf16_kv128(
// KV-SAME:    %tmap_kv0: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant}
// KV-SAME:    not WGMMA's register A operand: TILEORCH_COMPUTED_OPERAND asks for the staged path
// KV-SAME:    1 vector(s) indexed by the K tile TMA-loaded by the producer into each stage (128 bytes, in the stage's transaction bytes; zero fill past the array) and read by the consumers from the stage's shared memory
// KV:         cutlass.pipeline.init {{.*}}transaction_size = array<i32: 16512>
// KV:         nvvm.cp.async.bulk.tensor.shared.cluster.global %adst, %tmap_a, %fb, box[%kc, %m0] {cutlass.tx_bytes = 8192 : i32}
// KV:         %[[C128:[0-9]+]] = arith.constant 128 : i32
// KV-NEXT:    %[[SOFF:[0-9]+]] = arith.muli %idx, %[[C128]] : i32
// KV-NEXT:    %[[BASE:[0-9]+]] = arith.constant 196608 : i32
// KV-NEXT:    %kvdst_off0 = arith.addi %[[SOFF]], %[[BASE]] : i32
// KV:         %kvcoord0x = arith.muli %kt, %{{[0-9]+}} : i32
// KV-NEXT:    %kvcoord0y = arith.constant 0 : i32
// KV-NEXT:    nvvm.cp.async.bulk.tensor.shared.cluster.global %kvdst0, %tmap_kv0, %fb, box[%kvcoord0x, %kvcoord0y] {cutlass.tx_bytes = 128 : i32}
// KV:         cutlass.pipeline.producer_commit %ready, %st {transaction_bytes = 16512 : i32}
// KV:         scf.for %{{kt_[0-9]+}} =
// KV-NOT:     llvm.load %{{.*}} : !llvm.ptr<1>
// KV:         cutlass.pipeline.consumer_wait %ready, %[[ST:.*]]
// KV:         %kvec_off0 = arith.addi
// KV:         llvm.load %{{[0-9]+}} <alignment = 16> : !llvm.ptr<3> -> f16
// KV-COUNT-7: llvm.load %{{[0-9]+}} <alignment = {{[248]}}> : !llvm.ptr<3> -> f16
// KV-NOT:     llvm.load %{{.*}} : !llvm.ptr<1>
// KV:         nvvm.fence.proxy <async.shared>, space = <cta>
// KV-NEXT:    cutlass.named_barrier.arrive_and_wait barrier_id = 3 num_threads = 128

// KVPTX:      .entry gemm_f16_f32_bn_64x64x64
// KVPTX-NOT:  ld.global
// KVPTX:      cp.async.bulk.tensor.2d.shared::cluster.global
// KVPTX:      mbarrier.try_wait
// KVPTX-NOT:  ld.shared.b16
// KVPTX:      bar.sync 3, 128

// The default since session 41 (gamma TMA-loaded: register_a_operand.k_vector_staged counts only the vectors read
// from global memory; H100, 4096^3: 493.7 TFLOP/s against 391.9 staged): register A reads gamma from the stage too
// (16 values a thread, after the wait, in 8 pairs), no global load in the K loop.
// KVREG:         func.func @gemm_f16_f32_bn_64x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_arawf16_areg_kv128(
// KVREG-SAME:    WGMMA's register A operand: the producer TMA-loads the raw 64x64 tile
// KVREG-SAME:    1 vector(s) indexed by the K tile TMA-loaded by the producer into each stage
// KVREG:         cutlass.pipeline.init {{.*}}transaction_size = array<i32: 16512>
// KVREG:         scf.for %{{kt_[0-9]+}} =
// KVREG-NOT:     llvm.load %{{.*}} : !llvm.ptr<1>
// KVREG:         cutlass.pipeline.consumer_wait %ready
// KVREG:         %kvec_off0 = arith.addi
// KVREG:         %araw_rs_off = arith.addi
// KVREG-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
// KVREG-NOT:     llvm.load %{{.*}} : !llvm.ptr<1>
// KVREG:         nvvm.wgmma.wait.group.sync.aligned 0

// Default since session 26: gamma[k] read from global memory by the consumers makes A staged (the register-A path
// ran 0.87x the staged one for this map on an H200, session 25); since session 41 gamma is TMA-loaded by the producer
// and A is register A (KVREG below).
// DEFAULT:      func.func @gemm_f16_f32_bn_64x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_arawf16_areg_kv128(
// DEFAULT-SAME: WGMMA's register A operand

// TILEORCH_COMPUTED_OPERAND=registers (tileas/register_a_operand.py; the default for a map without a K-indexed
// vector): A is WGMMA's register A operand.  No A operand tile: a stage holds B
// (8192 B) and A's raw tile (8192 B, after B, its TMA box swizzled by its 128-byte K row: GemmConfig.a_raw_swizzle);
// each consumer thread loads gamma at its 16 fragment columns before the wait, reads its 16 pairs of the raw tile
// (one 32-bit shared load each) and multiplies while the previous K step's WGMMAs run; then waits for them
// (wait_group 0: they read the A registers), releases their stage, packs the f16 products by their bits into the
// 4 registers of each of the 4 k16 steps' A fragment (pinned after the wait) and issues wgmma with A from
// registers; no fence.proxy.async, no named barrier 3.
// REG:        func.func @gemm_f16_f32_bn_64x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_arawf16_areg(
// REG-SAME:   remark: dot operand A computed in the K loop (mulf of an f16 tile): WGMMA's register A operand: the producer TMA-loads the raw 64x64 tile (8192 bytes, 128-byte swizzle)
// REG-SAME:   (B operand tiles, raw A tiles)
// REG:        cutlass.pipeline.init {{.*}}transaction_size = array<i32: 16384>
// REG:        %b_off = arith.addi %a_off, %a_bytes : i32
// REG:        %araw_dst = arith.addi %a_off, %{{.*}} : i32
// REG:        nvvm.cp.async.bulk.tensor.shared.cluster.global %adst, %tmap_a, %fb, box[%kc, %m0] {cutlass.tx_bytes = 8192 : i32}
// REG:        scf.for %{{kt_[0-9]+}} =
// REG-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<1> -> f16
// REG-NOT:    llvm.load %{{.*}} : !llvm.ptr<1>
// REG:        cutlass.pipeline.consumer_wait %ready, %[[ST:.*]]
// REG-NOT:    nvvm.wgmma.wait.group.sync.aligned
// REG:        %araw_rs_off = arith.addi
// REG-COUNT-16: llvm.load %{{.*}} <alignment = 4> : !llvm.ptr<3> -> i32
// REG-NOT:    llvm.inline_asm
// REG:        nvvm.wgmma.wait.group.sync.aligned 0
// REG:        cutlass.pipeline.consumer_release %ready, %prev {cutlass.reads_retired}
// REG:        %afrag0q0 = llvm.inline_asm has_side_effects "mov.b32 $0, {$1, $2};", "=r,h,h"
// REG-NOT:    nvvm.fence.proxy
// REG-NOT:    cutlass.named_barrier
// REG:        %afrag3q3 = llvm.inline_asm has_side_effects "mov.b32 $0, {$1, $2};"
// REG-NEXT:   nvvm.wgmma.fence.aligned
// REG:        %d0 = atom.wgmma_mma_async_reg_a %afrag0q0, %afrag0q1, %afrag0q2, %afrag0q3, %db0, %acc {n = 64 : i64, typeAB = #nvvm.wgmma_type<f16>, layoutB = #nvvm.mma_layout<row>}
// REG:        %d3 = atom.wgmma_mma_async_reg_a %afrag3q0, %afrag3q1, %afrag3q2, %afrag3q3, %db3, %d2
// REG-NEXT:   nvvm.wgmma.commit.group.sync.aligned
// REG-NEXT:   cutlass.pipeline.state.increment
// REG:        nvvm.wgmma.wait.group.sync.aligned 0

// (the PTX places the pack + WGMMA block before the loads and the wait in the text; the branches run it after)
// REGPTX: .entry gemm_f16_f32_bn_64x64x64
// REGPTX-DAG: ld.shared.b32
// REGPTX-DAG: wgmma.wait_group.sync.aligned 0;
// REGPTX-DAG: mov.b32 %r{{[0-9]+}}, {%rs{{[0-9]+}}, %rs{{[0-9]+}}};
// REGPTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// A computed in the K loop with a vector loaded per K step (tileorch.testing.computed_b_programs.a_times_gamma,
// as convert-cudatile-to-tileaa emits it): `(a * gamma[k]) @ b`, an RMSNorm weight folded into the next GEMM.
// A is staged as a computed B is (GemmConfig.a_raw): each stage holds the A operand tile (8192 B), B (8192 B) and
// after them A's raw f16 tile (8192 B, unswizzled: its own tensor map), the full barrier expects raw A + B =
// 16384 bytes; every consumer thread loads gamma at its units' K columns at the top of the K step (before
// the consumer wait: 8 distinct columns, kt standing for the program's k), reads its 16-byte units of the
// raw tile, multiplies, writes them swizzled into the A operand tile, then fence.proxy.async and named
// barrier 3 before the WGMMAs.

// TILEORCH_COMPUTED_OPERAND=prefetch: gamma loaded one K step ahead.  K tile kbeg's 8 values before the
// consumer's K loop, carried by it (8 more iter_args); in the loop the loads read K tile kt + 1 (the index
// bounds-checked as before: the last step's read past K selects the padding), before the wait; the
// transform reads the carried values; the yield passes the next step's.
// PRE:        remarks = [{{.*}}one K step ahead (the K loop carries them
// PRE:        %[[KB:kbeg_[0-9]+]] = arith.constant 0 : i32
// PRE:        arith.muli %[[KB]], %{{.*}} : i32
// PRE-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<1> -> f16
// PRE-NOT:    cutlass.pipeline.consumer_wait
// PRE:        = scf.for %[[KT:kt_[0-9]+]] = %[[KB]] to %{{.*}} step %c1 iter_args(%acc = %zero, %{{.*}}, %{{.*}}, %[[G0:[0-9]+]] = %{{[0-9]+}}, %{{[0-9]+}} = %{{[0-9]+}}, %{{[0-9]+}} = %{{[0-9]+}}, %{{[0-9]+}} = %{{[0-9]+}}, %{{[0-9]+}} = %{{[0-9]+}}, %{{[0-9]+}} = %{{[0-9]+}}, %{{[0-9]+}} = %{{[0-9]+}}, %{{[0-9]+}} = %{{[0-9]+}})
// PRE-NEXT:   %[[ONE:[0-9]+]] = arith.constant 1 : i32
// PRE-NEXT:   %[[NEXT:[0-9]+]] = arith.addi %[[KT]], %[[ONE]] : i32
// PRE:        arith.muli %[[NEXT]], %{{.*}} : i32
// PRE-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<1> -> f16
// PRE-NOT:    llvm.load %{{.*}} : !llvm.ptr<1>
// PRE:        cutlass.pipeline.consumer_wait
// PRE:        arith.mulf %{{.*}}, %[[G0]] : f16
// PRE:        scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} :

// CHECK:      func.func @gemm_f16_f32_bn_64x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_arawf16(
// CHECK-SAME: remarks = [{{.*}}"{{.*}}:{{[0-9]+}}:{{[0-9]+}}: remark: dot operand A computed in the K loop (mulf of an f16 tile): the producer TMA-loads the raw 64x64 tile (8192 bytes, unswizzled)
// CHECK-SAME: not WGMMA's register A operand
// CHECK-SAME: 1 vector(s) indexed by the K tile loaded from global memory in each K step
// CHECK-SAME: not by TMA: TILEORCH_COMPUTED_OPERAND=global_k_vectors asks for it
// CHECK:      cutlass.pipeline.init {{.*}}transaction_size = array<i32: 16384>
// CHECK:      %araw_dst = arith.addi %a_off, %{{.*}} : i32
// CHECK:      nvvm.cp.async.bulk.tensor.shared.cluster.global %adst, %tmap_a, %fb, box[%kc, %m0] {cutlass.tx_bytes = 8192 : i32}
// CHECK:      cutlass.pipeline.producer_commit %ready, %st {transaction_bytes = 16384 : i32}
// the consumer: the gamma loads at the top of the K step, before the wait
// CHECK:      scf.for %[[KT:kt_[0-9]+]] =
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<1> -> f16
// CHECK-NOT:  llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK:      cutlass.pipeline.consumer_wait %ready, %[[ST:.*]]
// CHECK:      %aop_off = arith.addi %bstage_off, %c0 : i32
// CHECK:      %araw_off = arith.addi %aop_off, %{{.*}} : i32
// CHECK:      llvm.load {{.*}} <alignment = 16> : !llvm.ptr<3> -> vector<4xi32>
// CHECK:      arith.mulf
// CHECK:      llvm.store {{.*}} <alignment = 16> : vector<4xi32>, !llvm.ptr<3>
// CHECK-NOT:  llvm.load %{{.*}} : !llvm.ptr<1>
// CHECK:      nvvm.fence.proxy <async.shared>, space = <cta>
// CHECK-NEXT: cutlass.named_barrier.arrive_and_wait barrier_id = 3 num_threads = 128
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK:      nvvm.wgmma.mma_async

// PTX: .entry gemm_f16_f32_bn_64x64x64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global
// PTX: ld.global
// PTX: mbarrier.try_wait
// PTX: ld.shared.v4.b32
// PTX: st.shared.v4.b32
// PTX: fence.proxy.async.shared::cta
// PTX: bar.sync 3, 128
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @a_times_gamma_Kt1_A2f16_1l0_2t1_p16_A1f16_1t1_p16_A2f16_1l0_2t1_p16_A2f32_1l0_2t1_p16_I64_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: !nv_tileaa.ptr<f16>, %9: i32, %10: i32, %11: i32, %12: i32, %13: !nv_tileaa.ptr<f32>, %14: i32, %15: i32, %16: i32, %17: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %18 = nv_tileaa.create_mem_token
    %19 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %20 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %21 = nv_tileaa.assume %8 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %22 = nv_tileaa.assume %13 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
    %23 = arith.constant 1 : i32
    %24 = arith.constant 1 : i32
    %25 = arith.constant 1 : i32
    %26 = arith.constant 1 : i32
    %27 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %28 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %29 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %30 = nv_tileaa.make_memref %19[%27, %28] [%29] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %31 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %32 = nv_tileaa.make_memref %20[%31] [] : !nv_tileaa.ptr<f16>[i32] [] -> !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>
    %33 = nv_tileaa.assume %9 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %34 = nv_tileaa.assume %10 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %35 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.make_memref %21[%33, %34] [%35] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %37 = nv_tileaa.assume %14 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.assume %15 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %39 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = nv_tileaa.make_memref %22[%37, %38] [%39] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %41 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %42 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %43 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %44 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %45 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %46 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %47 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %48 = nv_tileaa.block_tile %30 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %49 = nv_tileaa.get_dim_size %48 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %50 = nv_tileaa.get_dim_size %48 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %51 = arith.constant 0 : i32
    %52 = arith.constant 1 : i32
    %53 = nv_tileaa.block_tile %32 : !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>>
    %54 = nv_tileaa.block_tile %30 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %55 = nv_tileaa.block_tile %36 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %56 = scf.for %57 = %51 to %50 step %52 iter_args(%58 = %47) -> (tensor<64x64xf32>) : i32 {
      %59, %60 = nv_tileaa.tiled_load %53[%57] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !nv_tileaa.memref<f16, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<64xf16>
      %61, %62 = nv_tileaa.tiled_load %54[%41, %57] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %63 = nv_tileaa.expand_dims %59 {dim = 0 : i32} : tensor<64xf16> -> tensor<1x64xf16>
      %64 = nv_tileaa.broadcast %63 : tensor<1x64xf16> -> tensor<64x64xf16>
      %65 = nv_tileaa.mulf %61, %64 : tensor<64x64xf16>
      %66, %67 = nv_tileaa.tiled_load %55[%57, %45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %68 = nv_tileaa.dot %65, %66, %58 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %68 : tensor<64x64xf32>
    }
    %69 = nv_tileaa.block_tile %40 : !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %70 = nv_tileaa.tiled_store %56, %69[%41, %45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<64x64xf32>, !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}

