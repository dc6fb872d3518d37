// RUN: env TILEORCH_ATTN_OVERLAP=0 TILEORCH_ATTN_PERSISTENT=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: env TILEORCH_ATTN_OVERLAP=0 TILEORCH_ATTN_PERSISTENT=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// Plain decoding with one query row per program (tileorch.testing.attention_programs2.
// attn_decode_one_query, as convert-cudatile-to-tileaa emits it): a (1, 64) Q tile, a KV cache of
// runtime length.  The chained tier pads the one-row tile to the WGMMA's 64 rows like the 8/16/32-
// row tiles (chained_dots.PADDED_ROWS, session 16): the Q box (rank 2) reads 64 rows (8192 bytes:
// the next programs' query rows, zero past the array), the dots are m64 WGMMAs, the epilogue's row
// coordinate is the thread's own (a broadcast of the [1, 1] row sum keeps it) and every store is
// predicated on the thread's row < 1, so only row 0 is written.

// CHECK:      func.func @chained_dots_64x64x64_64_f16(
// CHECK-SAME: tileorch.chained_config = {{{.*}}remarks = ["{{.*}}:{{[0-9]+}}:{{[0-9]+}}: remark: chained-dots tier (TMA + WGMMA): the 1-row tile runs as WGMMAs of M = 64: the Q tile is loaded as a box of 64 rows
// CHECK-SAME: tile_rows = 1 : i64, tm = 64 : i64, tmaps = [{arg = 0 : i64, box = 64 : i64, rank = 2 : i64, rows = 64 : i64
// CHECK:      nvvm.mbarrier.arrive.expect_tx %qbar, %{{([a-z]+_)*c8192(_[a-z0-9]+)*}}
// CHECK:      nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>
// CHECK:      %[[KEEP0:.*]] = arith.cmpi ult, %{{.*}}, %[[ONE:.*]] : i32
// CHECK-NEXT: arith.cmpi ult, %{{.*}}, %[[ONE]] : i32
// CHECK:      %[[OK:.*]] = arith.andi %[[KEEP0]], %{{.*}} : i1
// CHECK-NEXT: arith.truncf
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-NEXT:   llvm.getelementptr
// CHECK-NEXT:   llvm.store {{.*}} : f16, !llvm.ptr<1>

// PTX: .entry chained_dots_64x64x64_64_f16
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @attn_decode_one_query_Kt1_A2f16_1l0_2t1_p16_A3f16_3l0_4t1_p16_A3f16_3l0_4t1_p16_A2f16_1l0_2t1_p16_Sf32_Si32_I64_I64(%0: !nv_tileaa.ptr<f16>, %1: i32, %2: i32, %3: i32, %4: i32, %5: !nv_tileaa.ptr<f16>, %6: i32, %7: i32, %8: i32, %9: i32, %10: i32, %11: i32, %12: !nv_tileaa.ptr<f16>, %13: i32, %14: i32, %15: i32, %16: i32, %17: i32, %18: i32, %19: !nv_tileaa.ptr<f16>, %20: i32, %21: i32, %22: i32, %23: i32, %24: f32, %25: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_ctas_auto, tileorch.num_warps_auto} {
    %26 = nv_tileaa.create_mem_token
    %27 = nv_tileaa.assume %0 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %28 = nv_tileaa.assume %5 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %29 = nv_tileaa.assume %12 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %30 = nv_tileaa.assume %19 {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %31 = arith.constant 1 : i32
    %32 = arith.constant 1 : i32
    %33 = arith.constant 1 : i32
    %34 = arith.constant 1 : i32
    %35 = nv_tileaa.assume %1 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %36 = nv_tileaa.assume %2 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %37 = nv_tileaa.assume %3 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %38 = nv_tileaa.make_memref %27[%35, %36] [%37] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %39 = nv_tileaa.assume %6 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %40 = nv_tileaa.assume %7 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %41 = nv_tileaa.assume %8 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %42 = nv_tileaa.assume %9 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %43 = nv_tileaa.assume %10 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %44 = nv_tileaa.make_memref %28[%39, %40, %41] [%42, %43] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %45 = nv_tileaa.assume %13 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %46 = nv_tileaa.assume %14 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %47 = nv_tileaa.assume %15 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %48 = nv_tileaa.assume %16 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %49 = nv_tileaa.assume %17 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %50 = nv_tileaa.make_memref %29[%45, %46, %47] [%48, %49] : !nv_tileaa.ptr<f16>[i32, i32, i32] [i32, i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
    %51 = nv_tileaa.assume %20 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %52 = nv_tileaa.assume %21 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %53 = nv_tileaa.assume %22 {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %54 = nv_tileaa.make_memref %30[%51, %52] [%53] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %55 = arith.constant 64 : i32
    %56 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %57 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %58 = nv_tileaa.get_program_id {axis = 2 : i32} : i32
    %59 = arith.constant 0 : i32
    %60 = nv_tileaa.block_tile %38 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64>, array<i32: 1, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %61, %62 = nv_tileaa.tiled_load %60[%56, %59] token %26 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 64>, array<i32: 1, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<1x64xf16>
    %63 = arith.constant dense<0xff800000> : tensor<1x1xf32>
    %64 = arith.constant dense<0.000000e+00> : tensor<1x1xf32>
    %65 = arith.constant dense<0.000000e+00> : tensor<1x64xf32>
    %66 = arith.ceildivsi %25, %55 : i32
    %67 = arith.constant 0 : i32
    %68 = arith.constant 1 : i32
    %69 = arith.constant 0 : i32
    %70 = nv_tileaa.block_tile %44 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %71 = arith.constant dense<0.000000e+00> : tensor<1x64xf32>
    %72 = nv_tileaa.splat %24 : f32 -> tensor<1x1xf32>
    %73 = nv_tileaa.broadcast %72 : tensor<1x1xf32> -> tensor<1x64xf32>
    %74 = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %75 = nv_tileaa.splat %25 : i32 -> tensor<1x1xi32>
    %76 = nv_tileaa.broadcast %75 : tensor<1x1xi32> -> tensor<1x64xi32>
    %77 = arith.constant 0xff800000 : f32
    %78 = nv_tileaa.splat %77 : f32 -> tensor<1x1xf32>
    %79 = nv_tileaa.broadcast %78 : tensor<1x1xf32> -> tensor<1x64xf32>
    %80 = arith.constant 0 : i32
    %81 = nv_tileaa.block_tile %50 : !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>
    %82, %83, %84 = scf.for %85 = %67 to %66 step %68 iter_args(%86 = %64, %87 = %63, %88 = %65) -> (tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x64xf32>) : i32 {
      %89, %90 = nv_tileaa.tiled_load %70[%56, %85, %69] token %26 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
      %91 = nv_tileaa.reshape %89 : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %92 = "nv_tileaa.permute"(%91) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %93 = nv_tileaa.dot %61, %92, %71 {matmul_fast_accum = false} : tensor<1x64xf16>, tensor<64x64xf16>, tensor<1x64xf32> -> tensor<1x64xf32>
      %94 = nv_tileaa.mulf %93, %73 : tensor<1x64xf32>
      %95 = nv_tileaa.muli %85, %55 : i32
      %96 = nv_tileaa.splat %95 : i32 -> tensor<1xi32>
      %97 = nv_tileaa.broadcast %96 : tensor<1xi32> -> tensor<64xi32>
      %98 = nv_tileaa.addi %97, %74 : tensor<64xi32>
      %99 = nv_tileaa.expand_dims %98 {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %100 = nv_tileaa.cmpi "slt", %99, %76 : tensor<1x64xi32> -> tensor<1x64xi1>
      %101 = nv_tileaa.select %100, %94, %79 : tensor<1x64xi1>, tensor<1x64xf32>
      %102, %103 = nv_tileaa.tiled_load %81[%56, %85, %80] token %26 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>>[i32, i32, i32] -> tensor<1x64x64xf16>
      %104 = nv_tileaa.reshape %102 : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %105 = "nv_tileaa.reduce"(%101) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%106: f32, %107: f32):
        %108 = nv_tileaa.maxf %106, %107 : f32
        "nv_tileaa.yield"(%108) : (f32) -> ()
      }) : (tensor<1x64xf32>) -> tensor<1xf32>
      %109 = nv_tileaa.expand_dims %105 {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %110 = nv_tileaa.maxf %87, %109 : tensor<1x1xf32>
      %111 = nv_tileaa.broadcast %110 : tensor<1x1xf32> -> tensor<1x64xf32>
      %112 = nv_tileaa.subf %101, %111 : tensor<1x64xf32>
      %113 = nv_tileaa.exp2 %112 : tensor<1x64xf32>
      %114 = nv_tileaa.subf %87, %110 : tensor<1x1xf32>
      %115 = nv_tileaa.exp2 %114 : tensor<1x1xf32>
      %116 = "nv_tileaa.reduce"(%113) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%117: f32, %118: f32):
        %119 = nv_tileaa.addf %117, %118 : f32
        "nv_tileaa.yield"(%119) : (f32) -> ()
      }) : (tensor<1x64xf32>) -> tensor<1xf32>
      %120 = nv_tileaa.expand_dims %116 {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %121 = nv_tileaa.fma %86, %115, %120 : tensor<1x1xf32>
      %122 = nv_tileaa.fp_to_fp %113 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x64xf32> -> tensor<1x64xf16>
      %123 = nv_tileaa.broadcast %115 : tensor<1x1xf32> -> tensor<1x64xf32>
      %124 = nv_tileaa.mulf %88, %123 : tensor<1x64xf32>
      %125 = nv_tileaa.dot %122, %104, %124 {matmul_fast_accum = false} : tensor<1x64xf16>, tensor<64x64xf16>, tensor<1x64xf32> -> tensor<1x64xf32>
      scf.yield %121, %110, %125 : tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x64xf32>
    }
    %126 = arith.constant 0 : i32
    %127 = nv_tileaa.broadcast %82 : tensor<1x1xf32> -> tensor<1x64xf32>
    %128 = nv_tileaa.divf %84, %127 : tensor<1x64xf32>
    %129 = nv_tileaa.fp_to_fp %128 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x64xf32> -> tensor<1x64xf16>
    %130 = nv_tileaa.block_tile %54 : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 1, 64>, array<i32: 1, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %131 = nv_tileaa.tiled_store %129, %130[%56, %126] token %26 {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} : tensor<1x64xf16>, !nv_tileaa.tiled_view<array<i32: 1, 64>, array<i32: 1, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32]
    nv_tileaa.return
  }
}
