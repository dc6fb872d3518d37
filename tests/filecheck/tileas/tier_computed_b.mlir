// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// W8A16 (tileorch.testing.user_programs5.mm_weight_only_int8, as convert-cudatile-to-tileaa emits it):
// f16 A times an int8 weight converted `astype(f16)` in the K loop.  The B operand is computed in the
// kernel: each stage holds A (8192 B), the f16 B operand tile (8192 B) and after it the raw int8 tile
// (4096 B) that the producer's TMA loads (the full barrier expects A + raw = 12288 bytes); every consumer
// thread converts its 16-byte units of the stage's raw tile into the swizzled operand tile (the
// astype alone: four int8 -> f16 per xor, two prmt and two sub.f16x2), then
// fence.proxy.async and named barrier 3 (CUTLASS's TransformBarrier) before the WGMMAs read it.

// CHECK:      func.func @gemm_f16_f16_bn_64x64x64_s{{[0-9]+}}_c1x1_persistent_{{.*}}_raws8(
// CHECK-SAME: remarks = [{{.*}}"{{.*}}:{{[0-9]+}}:{{[0-9]+}}: remark: dot operand B computed in the K loop (sitofp of an i8 tile): the producer TMA-loads the raw 64x64 tile (4096 bytes, unswizzled)
// CHECK:      cutlass.pipeline.init {{.*}}transaction_size = array<i32: 12288>
// CHECK:      %braw_dst = arith.addi %b_off, %{{.*}} : i32
// CHECK:      nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst0, %tmap_b, %fb, box[%bcol0, %kc] {cutlass.tx_bytes = 4096 : i32}
// CHECK:      cutlass.pipeline.producer_commit %ready, %st {transaction_bytes = 12288 : i32}
// CHECK:      cutlass.pipeline.consumer_wait %ready, %[[ST:.*]]
// CHECK:      %bop_off = arith.addi %bstage_off, %a_bytes : i32
// CHECK:      %braw_off = arith.addi %bop_off, %{{.*}} : i32
// CHECK:      %[[RAW:.*]] = llvm.load {{.*}} <alignment = 8> : !llvm.ptr<3> -> vector<2xi32>
// CHECK:      %[[W0:.*]] = llvm.extractelement %[[RAW]]
// CHECK:      %[[W1:.*]] = llvm.extractelement %[[RAW]]
// CHECK:      %[[X0:.*]] = arith.xori %[[W0]], %{{.*}} : i32
// CHECK:      %[[P0:.*]] = llvm.inline_asm "prmt.b32 $0, $1, $2, 0x4140;", "=r,r,r" %[[X0]]
// CHECK:      llvm.inline_asm "sub.f16x2 $0, $1, $2;", "=r,r,r" %[[P0]]
// CHECK:      llvm.inline_asm "prmt.b32 $0, $1, $2, 0x4342;", "=r,r,r" %[[X0]]
// CHECK:      arith.xori %[[W1]]
// CHECK:      llvm.store {{.*}} <alignment = 16> : vector<4xi32>, !llvm.ptr<3>
// CHECK:      nvvm.fence.proxy <async.shared>, space = <cta>
// CHECK-NEXT: cutlass.named_barrier.arrive_and_wait barrier_id = 3 num_threads = 128
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK:      nvvm.wgmma.mma_async

// PTX: .entry gemm_f16_f16_bn_64x64x64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global
// PTX: ld.shared.v2.b32
// PTX: prmt.b32
// PTX: sub.f16x2
// PTX: st.shared.v4.b32
// PTX: fence.proxy.async.shared::cta
// PTX: bar.sync 3, 128
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @mm_weight_only_int8_Kt1_A2f16_1l0_2t1_p16_A2i8_1l0_2t1_p16_A1f32_1t1_p16_A2f16_1l0_2t1_p16_I64_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<i8>, %6: i32, %7: i32, %8: i32, %9: i32, %10: !nv_tileaa.ptr<f32>, %11: i32, %12: i32, %13: !nv_tileaa.ptr<f16>, %14: i32, %15: i32, %16: i32, %17: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %18 = nv_tileaa.create_mem_token
    %19 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %20 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<i8>
    %21 = nv_tileaa.assume %10 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f32>
    %22 = nv_tileaa.assume %13 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %23 = arith.constant 1 : i32
    %24 = arith.constant 1 : i32
    %25 = arith.constant 1 : i32
    %26 = arith.constant 1 : i32
    %27 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %28 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %29 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %30 = nv_tileaa.make_memref %19[%27, %28] [%29] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %31 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %32 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %33 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %34 = nv_tileaa.make_memref %20[%31, %32] [%33] : !nv_tileaa.ptr<i8>[i32, i32] [i32] -> !nv_tileaa.memref<i8, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %35 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.make_memref %21[%35] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %37 = nv_tileaa.assume %14 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.assume %15 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %39 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = nv_tileaa.make_memref %22[%37, %38] [%39] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
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
    %53 = nv_tileaa.block_tile %34 : !nv_tileaa.memref<i8, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<i8, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %54 = nv_tileaa.block_tile %30 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %55 = scf.for %56 = %51 to %50 step %52 iter_args(%57 = %47) -> (tensor<64x64xf32>) : i32 {
      %58, %59 = nv_tileaa.tiled_load %53[%56, %45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<i8, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xi8>
      %60 = nv_tileaa.sitofp %58 : tensor<64x64xi8> -> tensor<64x64xf16>
      %61, %62 = nv_tileaa.tiled_load %54[%41, %56] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x64xf16>
      %63 = nv_tileaa.dot %61, %60, %57 {matmul_fast_accum = false} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %63 : tensor<64x64xf32>
    }
    %64 = nv_tileaa.block_tile %36 : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %65, %66 = nv_tileaa.tiled_load %64[%45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<64xf32>
    %67 = nv_tileaa.expand_dims %65 {dim = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
    %68 = nv_tileaa.broadcast %67 : tensor<1x64xf32> -> tensor<64x64xf32>
    %69 = nv_tileaa.mulf %55, %68 : tensor<64x64xf32>
    %70 = nv_tileaa.fp_to_fp %69 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %71 = nv_tileaa.block_tile %40 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %72 = nv_tileaa.tiled_store %70, %71[%41, %45] token %18 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<64x64xf16>, !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}
