// RUN: env TILEORCH_ATTN_OVERLAP=0 TILEORCH_ATTN_PERSISTENT=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: env TILEORCH_ATTN_OVERLAP=0 TILEORCH_ATTN_PERSISTENT=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// RUN: filecheck %s --check-prefix=PTXA < %t.ptx
// RUN: env TILEORCH_ATTN_OVERLAP=0 TILEORCH_ATTN_ROW_GROUPS=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=PERSIST
// RUN: env TILEORCH_ATTN_NEXT_S=1 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=NEXTS
// RUN: env TILEORCH_ATTN_LATE_RESCALE=1 TILEORCH_ATTN_SKIP_RESCALE=1 TILEORCH_ATTN_LATE_PACK=1 TILEORCH_ATTN_STAGES=3 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=S17
// RUN: env TILEORCH_ATTN_LATE_RESCALE=1 TILEORCH_ATTN_NEXT_S=1 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=S17OFF
// RUN: env TILEORCH_ATTN_S_AHEAD=1 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=SAHEAD
// RUN: env TILEORCH_ATTN_S_AHEAD=2 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=SAHEAD2
// RUN: env TILEORCH_ATTN_SCHEDULE=snake TILEORCH_ATTN_ROW_GROUPS=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=SNAKE
// RUN: env TILEORCH_ATTN_SCHEDULE=snake TILEORCH_ATTN_PERSISTENT=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=SNAKEOFF
// RUN: env TILEORCH_ATTN_PINGPONG=kernel tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=PPK
// RUN: env TILEORCH_ATTN_PINGPONG=kernel TILEORCH_ATTN_PERSISTENT=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=PPKOFF
// RUN: env TILEORCH_ATTN_OVERLAP=0 TILEORCH_ATTN_KV_AHEAD=1 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=AHEADOFF
// RUN: env TILEORCH_ATTN_Q_REGS=1 TILEORCH_ATTN_ROW_GROUPS=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=QREGS
// RUN: env TILEORCH_ATTN_Q_REGS=1 TILEORCH_ATTN_NEXT_S=1 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=QREGSOFF
// Without the intra-warp-group overlap (TILEORCH_ATTN_OVERLAP=0; the overlapped kernel's structure:
// tests/unit/test_chained_overlap.py), one CTA per program instance (TILEORCH_ATTN_PERSISTENT=0;
// the persistent kernel, the default for this program whose loops all have one trip count, is
// checked under PERSIST below).  The textbook FlashAttention forward (tileorch.testing.attention_programs.attention_fwd, 128x64 tiles,
// head dim 64, Q/K/V/O [BH, S, D] f16) as convert-cudatile-to-tileaa emits it: two chained dots in one
// loop, the second's A (P = exp2(S * scale - m)) computed from the first's result.  The tier's
// chained-dots lowering (transforms/tileas/chained_dots.py) gives one warp-specialized kernel on the
// program's grid: two consumer warp groups and a producer warp group (setmaxnreg 240 / 24) whose
// thread 0 loads Q once and K/V into a 4-stage ring (full and empty mbarriers per stage, the consumers
// release a stage by arriving on its empty barrier), S = Q K^T on WGMMA from shared memory
// (K transposed: a K-major B), the online softmax in the accumulator's registers (row max / row sum
// along the thread's columns, then shfl.xor 1 and 2), P packed to f16 pairs as the register A of the
// second WGMMA (V [tn, d]: an N-major B, layout row), the epilogue acc / l_i stored per element.

// CHECK:      func.func @chained_dots_128x64x64_64_f16(%tmap_a0: !llvm.ptr {{.*}}, %tmap_b1: !llvm.ptr {{.*}}, %tmap_b2: !llvm.ptr {{.*}}, %{{.*}}: !llvm.ptr<1>
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK-SAME: tileorch.chained_config = {{{.*}}kind = "chained"{{.*}}smem = 81992 : i64{{.*}}stages = 4 : i64{{.*}}threads = 384 : i64
// CHECK:      nvvm.mbarrier.init %ebar0, %{{([a-z]+_)*c256(_[a-z0-9]+)*}}
// CHECK:      scf.if %is_prod {
// CHECK-NEXT:   nvvm.setmaxregister decrease 24
// CHECK:        nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %tmap_a0, %qbar, box[
// CHECK:        scf.for %pj =
// CHECK:          nvvm.mbarrier.try_wait.parity %pebar
// CHECK:          nvvm.mbarrier.arrive.expect_tx %nx_bar, %{{([a-z]+_)*c16384(_[a-z0-9]+)*}}
// CHECK:          nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %tmap_b1,
// CHECK:          nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %tmap_b2,
// CHECK:        scf.for %tj = %n_tiles to %tail_end
// CHECK:          nvvm.mbarrier.try_wait.parity %tebar
// CHECK:      } else {
// CHECK-NEXT:   nvvm.setmaxregister increase 240
// CHECK:      scf.for %j =
// CHECK:      nvvm.mbarrier.try_wait.parity %fbar, %ph
// CHECK:      nvvm.wgmma.mma_async {{.*}}, %s_init, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async
// CHECK:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:      "shfl.sync.bfly.b32 $0, $1, 1, 31, -1;"
// CHECK:      "shfl.sync.bfly.b32 $0, $1, 2, 31, -1;"
// CHECK:      "llvm.nvvm.ex2.approx.ftz.f"
// CHECK:      "cvt.rn.f16x2.f32 $0, $1, $2;"
// CHECK:      nvvm.wgmma.fence.aligned
// CHECK:      wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;
// CHECK:      nvvm.wgmma.commit.group.sync.aligned
// CHECK:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: nvvm.mbarrier.arrive %ebar : !llvm.ptr<3>
// CHECK-NOT:  nvvm.barrier
// CHECK:      scf.yield
// CHECK:      llvm.store {{.*}} : f16, !llvm.ptr<1>

// The first dot's four K steps read both operands from shared memory (descriptors); the second dot's A is P from
// registers after the row max's shuffles.  Two checks, as the two dots' blocks may be laid out in either order (the
// plain loop's versioned key tiles, TILEORCH_ATTN_PLAIN_MASKS, put the register-A block first).
// PTX: .entry chained_dots_128x64x64_64_f16
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p
// PTXA: .entry chained_dots_128x64x64_64_f16
// PTXA: shfl.sync.bfly.b32
// PTXA: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @attention_fwd(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: i32, %6: i32, %7: !nv_tileaa.ptr<f16>, %8: i32, %9: i32, %10: i32, %11: i32, %12: i32, %13: i32, %14: !nv_tileaa.ptr<f16>, %15: i32, %16: i32, %17: i32, %18: i32, %19: i32, %20: i32, %21: !nv_tileaa.ptr<f16>, %22: i32, %23: i32, %24: i32, %25: i32, %26: i32, %27: i32, %28: f32, %29: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto} {
    %30 = nv_tileaa.create_mem_token
    %31 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %32 = nv_tileaa.assume %7 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %33 = nv_tileaa.assume %14 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %34 = nv_tileaa.assume %21 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %35 = arith.constant 1 : i32
    %36 = arith.constant 1 : i32
    %37 = arith.constant 1 : i32
    %38 = arith.constant 1 : i32
    %39 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %41 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %42 = nv_tileaa.assume %4 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %43 = nv_tileaa.assume %5 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %44 = nv_tileaa.make_memref %31[%39, %40, %41] [%42, %43] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %45 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %46 = nv_tileaa.assume %9 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %47 = nv_tileaa.assume %10 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %48 = nv_tileaa.assume %11 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %49 = nv_tileaa.assume %12 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %50 = nv_tileaa.make_memref %32[%45, %46, %47] [%48, %49] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %51 = nv_tileaa.assume %15 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %52 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %53 = nv_tileaa.assume %17 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %54 = nv_tileaa.assume %18 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %55 = nv_tileaa.assume %19 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %56 = nv_tileaa.make_memref %33[%51, %52, %53] [%54, %55] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %57 = nv_tileaa.assume %22 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %58 = nv_tileaa.assume %23 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %59 = nv_tileaa.assume %24 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %60 = nv_tileaa.assume %25 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %61 = nv_tileaa.assume %26 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %62 = nv_tileaa.make_memref %34[%57, %58, %59] [%60, %61] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %63 = arith.constant 64 : i32
    %64 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %65 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %66 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %67 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %68 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %69 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %70 = arith.constant 0 : i32
    %71 = nv_tileaa.block_tile %44 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %72, %73 = nv_tileaa.tiled_load %71[%68, %64, %70] token %30 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x128x64xf16>
    %74 = nv_tileaa.reshape %72 : tensor<1x128x64xf16> -> tensor<128x64xf16>
    %75 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %76 = nv_tileaa.expand_dims %75 {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %77 = arith.constant dense<0xff800000> : tensor<128x1xf32>
    %78 = arith.constant dense<0.000000e+00> : tensor<128x1xf32>
    %79 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %80 = arith.ceildivsi %29, %63 : i32
    %81 = arith.constant 0 : i32
    %82 = arith.constant 1 : i32
    %83 = arith.constant 0 : i32
    %84 = nv_tileaa.block_tile %50 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %85 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %86 = nv_tileaa.splat %29 : i32 -> tensor<1x1xi32>
    %87 = nv_tileaa.broadcast %86 : tensor<1x1xi32> -> tensor<1x64xi32>
    %88 = arith.constant 0xff800000 : f32
    %89 = nv_tileaa.splat %88 : f32 -> tensor<1x1xf32>
    %90 = nv_tileaa.broadcast %89 : tensor<1x1xf32> -> tensor<128x64xf32>
    %91 = nv_tileaa.splat %28 : f32 -> tensor<1x1xf32>
    %92 = nv_tileaa.broadcast %91 : tensor<1x1xf32> -> tensor<128x1xf32>
    %93 = nv_tileaa.splat %28 : f32 -> tensor<1x1xf32>
    %94 = nv_tileaa.broadcast %93 : tensor<1x1xf32> -> tensor<128x64xf32>
    %95 = arith.constant 0 : i32
    %96 = nv_tileaa.block_tile %56 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %97, %98, %99 = scf.for %100 = %81 to %80 step %82 iter_args(%101 = %79, %102 = %78, %103 = %77) -> (tensor<128x64xf32>, tensor<128x1xf32>, tensor<128x1xf32>) : i32 {
      %104, %105 = nv_tileaa.tiled_load %84[%68, %100, %83] token %30 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
      %106 = nv_tileaa.reshape %104 : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %107 = "nv_tileaa.permute"(%106) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %108 = nv_tileaa.dot %74, %107, %85 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      %109 = nv_tileaa.muli %100, %63 : i32
      %110 = nv_tileaa.splat %109 : i32 -> tensor<1x1xi32>
      %111 = nv_tileaa.broadcast %110 : tensor<1x1xi32> -> tensor<1x64xi32>
      %112 = nv_tileaa.addi %111, %76 : tensor<1x64xi32>
      %113 = nv_tileaa.cmpi "slt", %112, %87 : tensor<1x64xi32> -> tensor<1x64xi1>
      %114 = nv_tileaa.broadcast %113 : tensor<1x64xi1> -> tensor<128x64xi1>
      %115 = nv_tileaa.select %114, %108, %90 : tensor<128x64xi1>, tensor<128x64xf32>
      %116 = "nv_tileaa.reduce"(%115) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%117: f32, %118: f32):
        %119 = nv_tileaa.maxf %117, %118 : f32
        "nv_tileaa.yield"(%119) : (f32) -> ()
      }) : (tensor<128x64xf32>) -> tensor<128xf32>
      %120 = nv_tileaa.expand_dims %116 {dim = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
      %121 = nv_tileaa.mulf %120, %92 : tensor<128x1xf32>
      %122 = nv_tileaa.maxf %103, %121 : tensor<128x1xf32>
      %123 = nv_tileaa.broadcast %122 : tensor<128x1xf32> -> tensor<128x64xf32>
      %124 = nv_tileaa.negf %123 : tensor<128x64xf32>
      %125 = nv_tileaa.fma %115, %94, %124 : tensor<128x64xf32>
      %126 = nv_tileaa.exp2 %125 : tensor<128x64xf32>
      %127 = nv_tileaa.subf %103, %122 : tensor<128x1xf32>
      %128 = nv_tileaa.exp2 %127 : tensor<128x1xf32>
      %129 = "nv_tileaa.reduce"(%126) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%130: f32, %131: f32):
        %132 = nv_tileaa.addf %130, %131 : f32
        "nv_tileaa.yield"(%132) : (f32) -> ()
      }) : (tensor<128x64xf32>) -> tensor<128xf32>
      %133 = nv_tileaa.expand_dims %129 {dim = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
      %134 = nv_tileaa.fma %102, %128, %133 : tensor<128x1xf32>
      %135, %136 = nv_tileaa.tiled_load %96[%68, %100, %95] token %30 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
      %137 = nv_tileaa.reshape %135 : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %138 = nv_tileaa.fp_to_fp %126 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
      %139 = nv_tileaa.broadcast %128 : tensor<128x1xf32> -> tensor<128x64xf32>
      %140 = nv_tileaa.mulf %101, %139 : tensor<128x64xf32>
      %141 = nv_tileaa.dot %138, %137, %140 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %141, %134, %122 : tensor<128x64xf32>, tensor<128x1xf32>, tensor<128x1xf32>
    }
    %142 = nv_tileaa.broadcast %98 : tensor<128x1xf32> -> tensor<128x64xf32>
    %143 = nv_tileaa.divf %97, %142 : tensor<128x64xf32>
    %144 = arith.constant 0 : i32
    %145 = nv_tileaa.fp_to_fp %143 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x64xf32> -> tensor<128x64xf16>
    %146 = nv_tileaa.expand_dims %145 {dim = 0 : i32} : tensor<128x64xf16> -> tensor<1x128x64xf16>
    %147 = nv_tileaa.block_tile %62 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %148 = nv_tileaa.tiled_store %146, %147[%68, %64, %144] token %30 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<1x128x64xf16>, !nv_tileaa.tiled_view<array<i32: 1, 128, 64>, array<i32: 1, 128, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32]
    nv_tileaa.return
  }
}

// The persistent kernel of 128-row instances (TILEORCH_ATTN_ROW_GROUPS=0: this program's default since session 35 is
// four row groups over 256 rows, tier_chained_dots_row_groups.mlir; PERSIST, SNAKE and QREGS check the two-group
// kernel, which the launcher runs where a grid is too small for row groups and whose registers Q_REGS needs).
// The program's grid as three more parameters; two Q slots, each with a full
// and an empty barrier (every consumer thread releases it); each agent loops over the CTA's program
// instances (ctaid.x, step nctaid.x), counting the K/V ring on across them; the producer waits for
// the slot's release before arming and loading its next Q, and drains the ring and both Q slots
// before leaving; the consumers wait for their instance's Q, release the slot after the loop (a
// wait_group 0 before the arrive) and store.
// PERSIST:      func.func @chained_dots_128x64x64_64_f16({{.*}}%grid_x: i32, %grid_y: i32, %grid_z: i32)
// PERSIST-SAME: persistent = {q_slots = 2 : i64}
// PERSIST:      nvvm.mbarrier.init %qbar1, %{{([a-z]+_)*c1(_[a-z0-9]+)*}}
// PERSIST-NEXT: nvvm.mbarrier.init %qebar0, %{{([a-z]+_)*c256(_[a-z0-9]+)*}}
// PERSIST-NEXT: nvvm.mbarrier.init %qebar1, %{{([a-z]+_)*c256(_[a-z0-9]+)*}}
// PERSIST:      %pg_total = arith.muli %pg_xy, %grid_z
// PERSIST:      nvvm.setmaxregister decrease 24
// PERSIST:      scf.for %pg_w = %pg_first to %pg_total step %pg_step iter_args(%pg_it = %pg_c0, %ring = %pg_c0)
// PERSIST:      nvvm.mbarrier.try_wait.parity %qsebar, %q_eph
// PERSIST:      nvvm.mbarrier.arrive.expect_tx %qsbar, %{{([a-z]+_)*c16384(_[a-z0-9]+)*}}
// PERSIST:      nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %tmap_a0, %qsbar
// PERSIST:      scf.for %pj = %{{.*}} to %n_tiles
// PERSIST:        %pjr = arith.addi %pj, %ring
// PERSIST:      scf.for %tj =
// PERSIST:      scf.for {{.*}} to %q_tail_end
// PERSIST:        nvvm.mbarrier.try_wait.parity %qsebar_1, %q_tph
// PERSIST:      nvvm.setmaxregister increase 240
// PERSIST:      scf.for %pg_w_1 = %pg_first to %pg_total step %pg_step
// PERSIST:        nvvm.mbarrier.try_wait.parity %qsbar_1, %q_ph
// PERSIST:        nvvm.mbarrier.arrive %ebar
// PERSIST-NEXT:   scf.yield
// PERSIST-NEXT: }
// PERSIST-NEXT:   nvvm.wgmma.wait.group.sync.aligned 0
// PERSIST-NEXT:   %qsebar_o_2 = arith.muli %q_slot_2, %{{([a-z]+_)*c8(_[a-z0-9]+)*}}
// PERSIST:        nvvm.mbarrier.arrive %qsebar_2
// PERSIST:        llvm.store {{.*}} : f16, !llvm.ptr<1>

// TILEORCH_ATTN_KV_AHEAD=1 (tier_chained_dots_kv_ahead.mlir) is for a kernel with one Q slot; with two the next Q
// waits for no release: not applied, and the record says why.
// AHEADOFF:     kv_ahead_off = "2 Q slots: the next instance's Q is loaded right after this instance's last tile, without waiting for a release"
// AHEADOFF-NOT: %kv_ahead =

// TILEORCH_ATTN_NEXT_S=1 (the overlapped, persistent kernel): before the consumers' work loop the
// CTA's first instance's Q and tile 0 are waited for and its first dot run; the work loop carries S
// (32 f32 of the 64-wide key tile) to the instance's peeled tile; after the ring loop the Q slot is
// released, the last second dot completes and its stage is released, then the next instance's Q and
// tile 0 are waited for and its first dot issued (committed, not waited for) before the epilogue's
// stores, and waited for after them.
// NEXTS:      tileorch.chained_config = {{{.*}}persistent = {next_s = "after_last", q_slots = 2 : i64}
// NEXTS:      nvvm.setmaxregister increase 240
// NEXTS:      scf.if %pf_valid -> (i1) {
// NEXTS:        nvvm.mbarrier.try_wait.parity %qsbar_1, %nq_ph
// NEXTS:        nvvm.mbarrier.try_wait.parity %f0bar, %f0ph
// NEXTS:        nvvm.wgmma.commit.group.sync.aligned
// NEXTS-NEXT:   nvvm.wgmma.wait.group.sync.aligned 0
// NEXTS:      scf.for %pg_w_1 = %pg_first to %pg_total step %pg_step iter_args(%pg_it_1 = %pg_c0, %ring_1 = %pg_c0, [[S0:%[0-9]+]] = %{{[0-9]+}},
// NEXTS-SAME: -> (i32, i32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) : i32 {
// NEXTS-NOT:    nvvm.mbarrier.try_wait.parity %qsbar
// NEXTS:        scf.for %j = %{{c1[_a-z0-9]*}} to %n_tiles_3 step %{{c1[_a-z0-9]*}}
// NEXTS:        nvvm.wgmma.wait.group.sync.aligned 0
// NEXTS:        nvvm.mbarrier.arrive %qsebar_2
// NEXTS:        nvvm.wgmma.commit.group.sync.aligned
// NEXTS-NEXT:   nvvm.wgmma.wait.group.sync.aligned 0
// NEXTS-NEXT:   nvvm.mbarrier.arrive %ebar_last
// NEXTS:        nvvm.mbarrier.try_wait.parity %qsbar_2, %nq_ph_1
// NEXTS:        nvvm.mbarrier.try_wait.parity %f0bar_1, %f0ph_1
// NEXTS:        nvvm.wgmma.commit.group.sync.aligned
// NEXTS-NOT:    nvvm.wgmma.wait
// NEXTS:        llvm.store {{.*}} <alignment = 4> : i32, !llvm.ptr<1>
// NEXTS-NOT:    nvvm.wgmma.wait
// NEXTS:        llvm.store {{.*}} : f16, !llvm.ptr<1>
// NEXTS:        nvvm.wgmma.wait.group.sync.aligned 0
// NEXTS-NEXT:   llvm.extractvalue %z3_1[0]

// Session 17's switches (tests/unit/test_chained_s17_switches.py runs them): the record says what
// took effect, the ring holds at most 3 stages; in the loop, after tile j's first dot is committed (the
// consumer loop, %lp), tile j-1's C = acc * alpha is computed under a vote of the two row factors (the
// skip branch yields the accumulator) and its P packed (volatile cvt), then the second dot.
// S17:      tileorch.chained_config = {{{.*}}late_pack = true, late_rescale = true,{{.*}}skip_rescale = true,{{.*}}stages = 3 : i64, stages_cap = 3 : i64
// S17:      %lp, %lp_1,
// S17:      nvvm.wgmma.commit.group.sync.aligned
// S17-NOT:  nvvm.wgmma.wait.group
// S17:      %all_one = llvm.inline_asm has_side_effects "{ .reg .pred p, q; setp.eq.f32 p, $1, 0f3F800000; setp.eq.f32 q, $2, 0f3F800000; and.pred p, p, q; vote.sync.all.pred p, p, -1; selp.u32 $0, 1, 0, p; }"
// S17-NEXT: %skip_rescale = arith.cmpi ne, %all_one, %{{([a-z]+_)*c0(_[a-z0-9]+)*}} : i32
// S17-NEXT: scf.if %skip_rescale
// S17-NEXT:   scf.yield
// S17:      } else {
// S17:        arith.mulf
// S17-NOT:  nvvm.wgmma.wait.group
// S17:      llvm.inline_asm has_side_effects "cvt.rn.f16x2.f32 $0, $1, $2;"
// S17-NOT:  nvvm.wgmma.wait.group
// S17:      nvvm.wgmma.fence.aligned
// S17-NEXT: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// S17:      nvvm.wgmma.commit.group.sync.aligned
// S17-NEXT: nvvm.wgmma.wait.group.sync.aligned 1

// With TILEORCH_ATTN_NEXT_S the late rescale applies too (session 27): the loop carries the unscaled
// accumulator and the factor's two row registers (%lp_52, %lp_53: the last two of the loop's results),
// and the instance's tail scales the last tile's C from them (in the branch of an instance with key
// tiles) right before the last second dot, then waits for it and releases its stage.
// S17OFF:     late_rescale = true
// S17OFF-NOT: late_rescale_off
// S17OFF:     %pf_tiles = arith.cmpi sgt, %n_tiles_3, %{{([a-z]+_)*c0(_[a-z0-9]+)*}} : i32
// S17OFF:     arith.mulf %lp_16, %lp_52 : f32
// S17OFF:     arith.mulf %lp_18, %lp_53 : f32
// S17OFF-NOT: nvvm.wgmma.commit.group
// S17OFF:     %ebar_last = llvm.getelementptr
// S17OFF:     wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// S17OFF:     nvvm.wgmma.commit.group.sync.aligned
// S17OFF-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// S17OFF-NEXT: nvvm.mbarrier.arrive %ebar_last

// TILEORCH_ATTN_S_AHEAD=1 (session 27): the peeled tile waits for its S, then waits for tile min(1, n - 1) and issues
// its first dot, and computes tile 0's P (the ex2) while it runs; in the loop (no wait for tile j: its S came with
// the loop), tile j-1's second dot, then tile min(j + 1, n - 1)'s first dot, both committed, tile j's P with no
// wait_group before it, then one wait_group 0 and the release of tile j-1's stage.
// SAHEAD:      tileorch.chained_config = {{{.*}}s_ahead = true
// SAHEAD:      %sa_n1 = arith.subi %n_tiles_1, %{{([a-z]+_)*c1(_[a-z0-9]+)*}} : i32
// SAHEAD:      nvvm.wgmma.commit.group.sync.aligned
// SAHEAD-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// SAHEAD-NEXT: %sa_t = arith.minsi %{{([a-z]+_)*c1(_[a-z0-9]+)*}}, %sa_n1 : i32
// SAHEAD:      nvvm.mbarrier.try_wait.parity %sa_fbar,
// SAHEAD:      %sa3 = nvvm.wgmma.mma_async
// SAHEAD-NEXT: nvvm.wgmma.commit.group.sync.aligned
// SAHEAD-NOT:  nvvm.wgmma.wait.group
// SAHEAD:      ex2.approx
// SAHEAD:      nvvm.wgmma.wait.group.sync.aligned 0
// SAHEAD:      scf.for %j = %{{([a-z]+_)*c1(_[a-z0-9]+)*}} to %n_tiles_1 step %{{([a-z]+_)*c1(_[a-z0-9]+)*}}
// SAHEAD-NOT:  nvvm.mbarrier.try_wait.parity
// SAHEAD:      wgmma.mma_async.sync.aligned.m64n64k16
// SAHEAD:      nvvm.wgmma.commit.group.sync.aligned
// SAHEAD-NEXT: %sa_j1 = arith.addi %j, %{{([a-z]+_)*c1(_[a-z0-9]+)*}} : i32
// SAHEAD-NEXT: %sa_t_1 = arith.minsi %sa_j1, %sa_n1 : i32
// SAHEAD:      nvvm.mbarrier.try_wait.parity %sa_fbar_1,
// SAHEAD:      %sa3_1 = nvvm.wgmma.mma_async
// SAHEAD-NEXT: nvvm.wgmma.commit.group.sync.aligned
// SAHEAD-NOT:  nvvm.wgmma.wait.group
// SAHEAD:      ex2.approx
// SAHEAD:      nvvm.wgmma.wait.group.sync.aligned 0
// SAHEAD-NEXT: nvvm.mbarrier.arrive %ebar :

// TILEORCH_ATTN_S_AHEAD=2: two tiles per trip (the second iteration's tile is %j1), to n - 1 in steps of 2, then
// the odd last tile's iteration under an scf.if.
// SAHEAD2:      tileorch.chained_config = {{{.*}}s_ahead = true, s_ahead_unrolled = true
// SAHEAD2:      scf.for %j = %{{([a-z]+_)*c1(_[a-z0-9]+)*}} to %sa_n1 step %{{([a-z]+_)*c2(_[a-z0-9]+)*}}
// SAHEAD2-NEXT:   %j1 = arith.addi %j, %{{([a-z]+_)*c1(_[a-z0-9]+)*}} : i32
// SAHEAD2:        %sa_j1 = arith.addi %j, %{{([a-z]+_)*c1(_[a-z0-9]+)*}} : i32
// SAHEAD2:        nvvm.mbarrier.arrive %ebar :
// SAHEAD2:        %sa_j1_1 = arith.addi %j1, %{{([a-z]+_)*c1(_[a-z0-9]+)*}} : i32
// SAHEAD2:        nvvm.mbarrier.arrive %ebar_1 :
// SAHEAD2:      %sa_odd = arith.andi %sa_n1, %{{([a-z]+_)*c1(_[a-z0-9]+)*}} : i32
// SAHEAD2:      %sa_rest = arith.andi %sa_odd1, %sa_more : i1
// SAHEAD2:      = scf.if %sa_rest
// SAHEAD2:        arith.minsi
// SAHEAD2:        nvvm.mbarrier.arrive

// TILEORCH_ATTN_SCHEDULE=snake (session 19): the CTA's odd rounds of instances are dealt backwards, in the producer's
// and in the consumers' work loop alike (round it covers [it G, it G + n), n = min(G, total - it G); CTA b takes
// it G + n - 1 - b); the instance's program ids are read from that index.
// SNAKE:      persistent = {q_slots = 2 : i64, schedule = "snake"}
// SNAKE:      nvvm.setmaxregister decrease 24
// SNAKE:      scf.for %pg_w = %pg_first to %pg_total step %pg_step iter_args(%pg_it = %pg_c0, %ring = %pg_c0)
// SNAKE-NEXT:   %pg_round = arith.subi %pg_w, %pg_first
// SNAKE-NEXT:   %pg_left = arith.subi %pg_total, %pg_round
// SNAKE-NEXT:   %pg_n = arith.minui %pg_left, %pg_step
// SNAKE-NEXT:   %pg_end = arith.addi %pg_round, %pg_n
// SNAKE-NEXT:   %pg_end1 = arith.subi %pg_end, %{{([a-z]+_)*c1(_[a-z0-9]+)*}}
// SNAKE-NEXT:   %pg_rev = arith.subi %pg_end1, %pg_first
// SNAKE-NEXT:   %pg_odd0 = arith.andi %pg_it, %{{([a-z]+_)*c1(_[a-z0-9]+)*}}
// SNAKE-NEXT:   %pg_odd = arith.trunci %pg_odd0 : i32 to i1
// SNAKE-NEXT:   %pg_ws = arith.select %pg_odd, %pg_rev, %pg_w
// SNAKE-NEXT:   %pidx = arith.remui %pg_ws, %grid_x
// SNAKE:      nvvm.setmaxregister increase 240
// SNAKE:      scf.for %pg_w_1 = %pg_first to %pg_total step %pg_step iter_args(%pg_it_1 = %pg_c0, %ring_1 = %pg_c0)
// SNAKE:        %pg_ws_1 = arith.select %pg_odd_1, %pg_rev_1, %pg_w_1
// SNAKE-NEXT:   %pidx_1 = arith.remui %pg_ws_1, %grid_x
// SNAKEOFF-NOT: persistent =
// SNAKEOFF-NOT: pg_ws

// TILEORCH_ATTN_PINGPONG=kernel (session 20, FlashAttention-3's protocol): the kernel stays persistent; warp group 1
// gives warp group 0 its first turn once, before the consumers' loop over instances, and warp group 0 takes the last
// hand-over once, after it; inside an instance only the loop's turns (sync before the dots' issue, hand-over after).
// PPK:      persistent = {pingpong = "kernel", q_slots = 2 : i64}, pingpong = true
// PPK:      nvvm.setmaxregister increase 240
// PPK:      %pp_wg1 = arith.cmpi eq, %wg, %{{([a-z]+_)*c1(_[a-z0-9]+)*}} : i32
// PPK-NEXT: scf.if %pp_wg1 {
// PPK-NEXT:   nvvm.barrier.arrive id = %{{([a-z]+_)*c1(_[a-z0-9]+)*}} number_of_threads = %{{([a-z]+_)*c256(_[a-z0-9]+)*}}
// PPK:      scf.for %pg_w_1 = %pg_first to %pg_total step %pg_step
// PPK-NOT:  nvvm.barrier.arrive id = %{{([a-z]+_)*c1(_[a-z0-9]+)*}}
// PPK:      nvvm.barrier id = %pp_bar number_of_threads = %{{([a-z]+_)*c256(_[a-z0-9]+)*}}
// PPK:      nvvm.barrier.arrive id = %pp_next number_of_threads = %{{([a-z]+_)*c256(_[a-z0-9]+)*}}
// PPK-NOT:  nvvm.barrier id = %{{([a-z]+_)*c1(_[a-z0-9]+)*}}
// PPK:      %pp_wg0 = arith.cmpi eq, %wg, %{{([a-z]+_)*c0(_[a-z0-9]+)*}} : i32
// PPK-NEXT: scf.if %pp_wg0 {
// PPK-NEXT:   nvvm.barrier id = %{{([a-z]+_)*c1(_[a-z0-9]+)*}} number_of_threads = %{{([a-z]+_)*c256(_[a-z0-9]+)*}}
// Without persistence the per-instance turns of =1 run, and the record says why the kernel-wide ones do not.
// PPKOFF:     pingpong_kernel_off = "not a persistent kernel
// PPKOFF-NOT: persistent =
// PPKOFF:     %pp_first = arith.andi %pp_wg1, %pp_has

// TILEORCH_ATTN_Q_REGS=1 (transforms/tileas/q_registers.py): after each instance's Q wait every consumer thread
// loads its 16 A-fragment registers of the warp group's Q rows (head dim 64: four K steps x four 32-bit words),
// releases the Q slot right there (before the instance's first K/V wait), and every first dot of the instance
// (tile 0's and the loop's) takes A from those registers: no descriptor of the Q slot is read.
// QREGS:      tileorch.chained_config = {{{.*}}persistent = {q_slots = 2 : i64}{{.*}}q_regs = 16 : i64
// QREGS:      nvvm.setmaxregister increase 240
// QREGS:      nvvm.mbarrier.try_wait.parity %qsbar_1, %q_ph
// QREGS:      %qf0r0 = llvm.load %qf_p : !llvm.ptr<3> -> i32
// QREGS:      %qf3r3 = llvm.load %qf_p_15 : !llvm.ptr<3> -> i32
// QREGS-NOT:  mma_async
// QREGS:      nvvm.wgmma.wait.group.sync.aligned 0
// QREGS:      nvvm.mbarrier.arrive %qsebar_2
// QREGS:      nvvm.mbarrier.try_wait.parity %f0bar, %f0ph
// QREGS:      %z0 = atom.wgmma_mma_async_reg_a %qf0r0, %qf0r1, %qf0r2, %qf0r3, %zb0, %s_init0 {n = 64 : i64
// QREGS:      %z3 = atom.wgmma_mma_async_reg_a %qf3r0, %qf3r1, %qf3r2, %qf3r3, %zb3, %z2 {n = 64 : i64
// QREGS:      %s0 = atom.wgmma_mma_async_reg_a %qf0r0, %qf0r1, %qf0r2, %qf0r3, %sb0, %s_init {n = 64 : i64
// QREGS-NOT:  nvvm.mbarrier.arrive %qsebar
// QREGS-NOT:  nvvm.wgmma.mma_async

// Beside TILEORCH_ATTN_NEXT_S (the next instance's Q waited for inside the previous one's tail) it is refused
// and the record says why.
// QREGSOFF:     tileorch.chained_config = {{{.*}}q_regs_off = "TILEORCH_ATTN_NEXT_S waits for the next instance's Q inside the previous instance's tail"
// QREGSOFF-NOT: atom.wgmma_mma_async_reg_a %qf
