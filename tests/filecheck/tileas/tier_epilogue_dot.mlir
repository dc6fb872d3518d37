// RUN: env TILEORCH_EPILOGUE_DOT_COARSEN=off tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: env TILEORCH_EPILOGUE_DOT_TMA_STORE=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=LOOP
// RUN: env TILEORCH_EPILOGUE_DOT_TMA_STORE=1 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=TMA
// RUN: env TILEORCH_EPILOGUE_DOT_OVERLAP=1 TILEORCH_EPILOGUE_DOT_TMA_STORE=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=OV
// A low-rank chain, alpha ((x A) rounded to f16) B + bias[n] (tileorch.testing.epilogue_dot_programs): the second
// dot reads the K loop's result after the loop, and runs as the GEMM kernel's second dot on the accumulator:
// the ring of A / B K tiles (B the whole [K, 64] block at column 0), E's [64, 128] tile through a one-stage
// pipeline of its own loaded once the work tile's K tiles are issued, the accumulator packed pairwise as the
// register A of four m64n128k16 WGMMAs, and the epilogue (alpha, the bias) on their accumulator.
// CHECK: func.func @gemm_f16_f16_bn_128x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_edirect_dot128(
// CHECK-SAME: %tmap_e: !llvm.ptr {llvm.byval
// CHECK: %eready = cutlass.pipeline.init %epipe {numStages = 1 : i32
// CHECK-SAME: transaction_size = array<i32: 16384>
// producer: the K tiles (B at column 0), then E's two 64-column boxes of 64 rows
// CHECK: %n0 = arith.constant 0 : i32
// CHECK: scf.for %kt
// CHECK: cutlass.pipeline.producer_acquire %eready
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %edst0, %tmap_e, %efb, box[%ecol0, %c0] {cutlass.tx_bytes = 8192 : i32}
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %edst1, %tmap_e, %efb, box[%ecol1, %c0] {cutlass.tx_bytes = 8192 : i32}
// CHECK: cutlass.pipeline.producer_commit %eready, %{{.*}} {transaction_bytes = 16384 : i32}
// CHECK: cutlass.pipeline.producer_tail %eready
// CHECK: cutlass.pipeline.producer_tail %ready
// consumer: the K loop, then the packs of accumulator elements (1, 0), (3, 2), ... (the f16 cast is the pack's)
// CHECK: %acc_out, %{{.*}}, %{{.*}} = scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.extractvalue %acc_out[1] :
// CHECK: llvm.extractvalue %acc_out[0] :
// CHECK-NEXT: %efrag0q0 = llvm.inline_asm has_side_effects "cvt.rn.f16x2.f32
// CHECK: %efrag3q3 = llvm.inline_asm
// CHECK: cutlass.pipeline.consumer_wait %eready
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK: atom.wgmma_mma_async_reg_a %efrag0q0, %efrag0q1, %efrag0q2, %efrag0q3, %de0, %zero2 {n = 128 : i64, typeAB = #nvvm.wgmma_type<f16>, layoutB = #nvvm.mma_layout<row>}
// CHECK: %acc2 = atom.wgmma_mma_async_reg_a %efrag3q0, %efrag3q1, %efrag3q2, %efrag3q3, %de3, %e2
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: cutlass.pipeline.consumer_release %eready
// the epilogue reads the second accumulator at the output's columns: alpha * acc2 + bias[n0 + col], one fma
// CHECK: %bn_out = arith.constant 128 : i32
// CHECK: %n0_1 = arith.muli %{{.*}}, %bn_out : i32
// CHECK: %[[E:[0-9]+]] = llvm.extractvalue %acc2[0] :
// CHECK: arith.addi %n0_1,
// CHECK: llvm.load
// CHECK: "llvm.fma.f32"(%{{[0-9]+}}, %[[E]], %{{[0-9]+}})
// CHECK: atom.store_fragment
// By default (LOOP) program id 1 reaches only E's tile, the epilogue and C's store: the kernel (name suffix
// "_nloop") takes epi_c, computes the first dot once per work tile and loops over its N tiles, E's tiles through
// a two-stage pipeline (buffer e_off = 147456 + index * 16384), the epilogue's column tile the loop's.
// LOOP: func.func @gemm_f16_f16_bn_128x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_edirect_dot128_nloop(
// LOOP-SAME: %tmap_e: !llvm.ptr {{{.*}}}, %epi_c: i32,
// LOOP-SAME: "the first dot once per work tile, the second dot over N tiles: program id 1 (the column tile) enters only E's tile, the epilogue and C's store
// LOOP: %eready = cutlass.pipeline.init %epipe {numStages = 2 : i32
// producer: after the K tiles, E's tile of each N tile tn epi_c .. min(tn epi_c + epi_c, ceil(N / 128)) - 1
// LOOP: %etile0 = arith.muli %tn, %epi_c : i32
// LOOP: %[[T:[0-9]+]] = arith.divui
// LOOP: %[[E:[0-9]+]] = arith.addi %etile0, %epi_c : i32
// LOOP: %etile_end = arith.minsi %[[E]], %[[T]] : i32
// LOOP: scf.for %etile = %etile0 to %etile_end step %c1 iter_args(%est = %{{.*}}) -> (!cutlass.pipeline_state<2>)
// LOOP-NEXT: cutlass.pipeline.producer_acquire %eready, %est
// LOOP: %e0 = arith.muli %etile,
// LOOP: %e_off = arith.addi
// LOOP: nvvm.cp.async.bulk.tensor.shared.cluster.global %edst0, %tmap_e, %efb, box[%ecol0, %c0] {cutlass.tx_bytes = 8192 : i32}
// LOOP: cutlass.pipeline.producer_commit %eready, %est {transaction_bytes = 16384 : i32}
// LOOP: cutlass.pipeline.producer_tail %eready
// consumer: the packs once, after the K loop and before the loop over N tiles
// LOOP: %acc_out, %{{.*}}, %{{.*}} = scf.for
// LOOP: %efrag0q0 = llvm.inline_asm
// LOOP: %efrag3q3 = llvm.inline_asm
// LOOP-NOT: inline_asm
// LOOP: %etile_end_1 = arith.minsi
// LOOP: scf.for %etile_1 = %etile0_1 to %etile_end_1 step %c1 iter_args(%est_1 = %{{.*}}) -> (!cutlass.pipeline_state<2>)
// LOOP: %e_off_1 = arith.addi
// LOOP: cutlass.pipeline.consumer_wait %eready, %est_1
// LOOP: atom.wgmma_mma_async_reg_a %efrag0q0, %efrag0q1, %efrag0q2, %efrag0q3, %de0, %zero2
// LOOP: %acc2 = atom.wgmma_mma_async_reg_a %efrag3q0, %efrag3q1, %efrag3q2, %efrag3q3, %de3, %e2
// LOOP: cutlass.pipeline.consumer_release %eready, %est_1
// LOOP: %n0_1 = arith.muli %etile_1, %bn_out : i32
// LOOP: llvm.extractvalue %acc2[0] :
// LOOP: arith.addi %n0_1,
// LOOP: atom.store_fragment
// With TILEORCH_EPILOGUE_DOT_TMA_STORE=1 (TMA) each N tile's two 64-column rounds are staged in the warp group's
// two slots and stored by TMA (name suffix etma): before round 0 and round 1 the elected thread waits until one
// bulk store at most still reads (the other slot's), and once after the work tiles until none does.
// TMA: func.func @gemm_f16_f16_bn_128x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_etma_dot128_nloop(
// TMA-SAME: %tmap_c: !llvm.ptr
// TMA-SAME: "TILEORCH_EPILOGUE_DOT_TMA_STORE=1: each N tile of C staged in shared memory
// TMA: scf.for %etile_1 = %etile0_1 to %etile_end_1
// TMA: cutlass.pipeline.consumer_release %eready, %est_1
// TMA: nvvm.cp.async.bulk.wait_group 1 read
// TMA: atom.stage_fragment %{{.*}}, %eslot0 {first_column = 0 : i64, columns = 64 : i64, dtype = "f16"}
// TMA-NEXT: nvvm.fence.proxy <async.shared>, space = <cta>
// TMA-NEXT: cutlass.named_barrier.arrive_and_wait barrier_id = 14 num_threads = 128
// TMA: nvvm.cp.async.bulk.tensor.global.shared.cta %tmap_c, %eslot0, box[%ecol0_1, %row0]
// TMA-NEXT: nvvm.cp.async.bulk.commit.group
// TMA: nvvm.cp.async.bulk.wait_group 1 read
// TMA: atom.stage_fragment %{{.*}}, %eslot1 {first_column = 64 : i64, columns = 64 : i64, dtype = "f16"}
// TMA: nvvm.cp.async.bulk.tensor.global.shared.cta %tmap_c, %eslot1, box[%ecol1_1, %row0]
// TMA-NEXT: nvvm.cp.async.bulk.commit.group
// TMA: scf.yield %{{.*}} : !cutlass.pipeline_state<2>
// TMA: nvvm.cp.async.bulk.wait_group 0 read
// TMA-NOT: atom.store_fragment
// With TILEORCH_EPILOGUE_DOT_OVERLAP=1 (OV) the first N tile's WGMMAs are retired before the loop (the next
// tile's read the same A registers), the loop runs to the last tile but one: the next tile's WGMMAs issued, the
// current tile's E stage released, its two 64-column stores, the next tile retired before it is carried on; the
// last tile's release and stores after the loop (name suffix _ov).
// OV: func.func @gemm_f16_f16_bn_128x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_edirect_dot128_nloop_ov(
// OV: cutlass.pipeline.consumer_wait %eready
// OV: %acc2_first = atom.wgmma_mma_async_reg_a %efrag3q0
// OV-NEXT: nvvm.wgmma.commit.group.sync.aligned
// OV-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// OV-NEXT: %etile_last = arith.subi %etile_end_1, %c1 : i32
// OV: %acc2_last, %{{.*}}, %[[LAST:[0-9]+]] = scf.for %etile_1 = %etile0_1 to %etile_last step %c1 iter_args(%acc2_cur = %acc2_first, %est_next = %{{.*}}, %est_1 = %{{.*}})
// OV: cutlass.pipeline.consumer_wait %eready, %est_next
// OV: %acc2_next = atom.wgmma_mma_async_reg_a %efrag3q0
// OV-NEXT: nvvm.wgmma.commit.group.sync.aligned
// OV-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// OV-NEXT: cutlass.pipeline.consumer_release %eready, %est_1 {cutlass.reads_retired}
// OV: llvm.extractvalue %acc2_cur[0]
// OV: atom.store_fragment {{.*}}first_column = 0
// OV: atom.store_fragment {{.*}}first_column = 64
// OV-NEXT: }
// OV-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// OV: scf.yield %acc2_next, %{{.*}}, %est_next
// OV: nvvm.wgmma.wait.group.sync.aligned 0
// OV-NEXT: cutlass.pipeline.consumer_release %eready, %[[LAST]] {cutlass.reads_retired}
// OV: llvm.extractvalue %acc2_last[0]
// OV: atom.store_fragment {{.*}}first_column = 0
// OV: atom.store_fragment {{.*}}first_column = 64
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @lowrank_scaled_bias(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: i32, %9: i32, %10: !nv_tileaa.ptr<f16>, %11: i32, %12: i32, %13: i32, %14: i32, %15: !nv_tileaa.ptr<f32>, %16: i32, %17: i32, %18: !nv_tileaa.ptr<f16>, %19: i32, %20: i32, %21: i32, %22: i32, %23: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %24 = nv_tileaa.create_mem_token
    %25 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %26 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %27 = nv_tileaa.assume %10 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %28 = nv_tileaa.assume %15 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
    %29 = nv_tileaa.assume %18 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %30 = arith.constant 1 : i32
    %31 = arith.constant 1 : i32
    %32 = arith.constant 1 : i32
    %33 = arith.constant 1 : i32
    %34 = arith.constant 1 : i32
    %35 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %37 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.make_memref %25[%35, %36] [%37] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %39 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %41 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %42 = nv_tileaa.make_memref %26[%39, %40] [%41] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %43 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %44 = nv_tileaa.assume %12 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %45 = nv_tileaa.assume %13 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %46 = nv_tileaa.make_memref %27[%43, %44] [%45] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %47 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %48 = nv_tileaa.make_memref %28[%47] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %49 = nv_tileaa.assume %19 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %50 = nv_tileaa.assume %20 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %51 = nv_tileaa.assume %21 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %52 = nv_tileaa.make_memref %29[%49, %50] [%51] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %53 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %54 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %55 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %56 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %57 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %58 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %59 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %60 = nv_tileaa.block_tile %38 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %61 = nv_tileaa.get_dim_size %60 {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %62 = nv_tileaa.get_dim_size %60 {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %63 = arith.constant 0 : i32
    %64 = arith.constant 1 : i32
    %65 = nv_tileaa.block_tile %38 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %66 = arith.constant 0 : i32
    %67 = nv_tileaa.block_tile %42 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %68 = scf.for %69 = %63 to %62 step %64 iter_args(%70 = %59) -> (tensor<128x64xf32>) : i32 {
      %71, %72 = nv_tileaa.tiled_load %65[%53, %69] token %24 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<128x64xf16>
      %73, %74 = nv_tileaa.tiled_load %67[%69, %66] token %24 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %75 = nv_tileaa.dot %71, %73, %70 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %75 : tensor<128x64xf32>
    }
    %76 = nv_tileaa.fp_to_fp %68 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
    %77 = arith.constant 0 : i32
    %78 = nv_tileaa.block_tile %46 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %79, %80 = nv_tileaa.tiled_load %78[%77, %57] token %24 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x128xf16>
    %81 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %82 = nv_tileaa.dot %76, %79, %81 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %83 = nv_tileaa.block_tile %48 : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %84, %85 = nv_tileaa.tiled_load %83[%57] token %24 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<128xf32>
    %86 = nv_tileaa.splat %23 : f32 -> tensor<1x1xf32>
    %87 = nv_tileaa.broadcast %86 : tensor<1x1xf32> -> tensor<128x128xf32>
    %88 = nv_tileaa.expand_dims %84 {dim = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
    %89 = nv_tileaa.broadcast %88 : tensor<1x128xf32> -> tensor<128x128xf32>
    %90 = nv_tileaa.fma %87, %82, %89 : tensor<128x128xf32>
    %91 = nv_tileaa.fp_to_fp %90 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    %92 = nv_tileaa.block_tile %52 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %93 = nv_tileaa.tiled_store %91, %92[%53, %57] token %24 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<128x128xf16>, !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}