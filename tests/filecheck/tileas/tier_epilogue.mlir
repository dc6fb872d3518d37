// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass > %t.cutlass.mlir
// RUN: filecheck %s < %t.cutlass.mlir
// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: tileorch-opt %s -p "tileas-tier,convert-nv-tileas-to-cutlass{config=\"tile_n=256,stages=4\"}" | filecheck %s --check-prefix=RETILE
// RUN: filecheck %s --check-prefix=ROUNDS < %t.cutlass.mlir
// RUN: env TILEORCH_EPILOGUE_ROUNDS=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=WHOLE
// A GEMM with the epilogue  C = relu(alpha * acc + bias[col]) * s[row]  written as tile ops after the
// K loop (a row vector, a column vector, a scalar argument, a splat constant), and B^T stored [N, K]
// (tile (program id 1, k), permuted before the dot).  The epilogue is compiled into each consumer warp
// group, per accumulator element, before the fragment is staged for the TMA store.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vbt = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
!vvec = !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !v>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm_epilogue(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %bias: !nv_tileaa.ptr<f32>, %s: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %k: i32, %alpha: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%n, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mbias = nv_tileaa.make_memref %bias[%n] [] : !nv_tileaa.ptr<f32> [i32] [] -> !v
    %ms = nv_tileaa.make_memref %s[%m] [] : !nv_tileaa.ptr<f32> [i32] [] -> !v
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vbt
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %vbias = nv_tileaa.block_tile %mbias : !v -> !vvec
    %vs = nv_tileaa.block_tile %ms : !v -> !vvec
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%pm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tbt, %t1 = nv_tileaa.tiled_load %vb[%pn, %i] : !vbt [i32, i32] -> tensor<128x64xf16>
      %tb = "nv_tileaa.permute"(%tbt) <{permutation = array<i32: 1, 0>}> : (tensor<128x64xf16>) -> tensor<64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %al = nv_tileaa.splat %alpha : f32 -> tensor<128x128xf32>
    %scaled = nv_tileaa.mulf %acc, %al : tensor<128x128xf32>
    %bv, %t3 = nv_tileaa.tiled_load %vbias[%pn] : !vvec [i32] -> tensor<128xf32>
    %brow = nv_tileaa.expand_dims %bv {dim = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
    %bb = nv_tileaa.broadcast %brow : tensor<1x128xf32> -> tensor<128x128xf32>
    %sum = nv_tileaa.addf %scaled, %bb : tensor<128x128xf32>
    %zt = arith.constant dense<0.0> : tensor<128x128xf32>
    %r = nv_tileaa.maxf %sum, %zt : tensor<128x128xf32>
    %sv, %t4 = nv_tileaa.tiled_load %vs[%pm] : !vvec [i32] -> tensor<128xf32>
    %scol = nv_tileaa.expand_dims %sv {dim = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
    %sb = nv_tileaa.broadcast %scol : tensor<128x1xf32> -> tensor<128x128xf32>
    %out = nv_tileaa.mulf %r, %sb : tensor<128x128xf32>
    %h = nv_tileaa.fp_to_fp %out : tensor<128x128xf32> -> tensor<128x128xf16>
    %t5 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// The kernel builder's parameters, then the tile kernel's (pointers in the global address space):
// CHECK:      func.func @gemm_f16_f16_bk_128x128x64
// CHECK-SAME: %params
// CHECK-SAME: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: f32)
// CHECK-SAME: b_major = "k"
// CHECK-SAME: epilogue_ops = true
// CHECK-SAME: retile_safe = true
// B^T: K-major WGMMA B operand
// CHECK:      nvvm.wgmma.mma_async {{.*}} B[<f16>, <one>, <col>]
// The epilogue of consumer warp group 1: accumulator element 0 scaled, bias and row scale loaded
// from global memory, relu as max.f32, the element put back into the fragment
// CHECK:      %row0 = arith.addi %m0{{.*}}, %row_wg : i32
// CHECK:      llvm.extractvalue %acc_out[0] : !llvm.struct<(f32
// CHECK:      arith.mulf
// CHECK:      llvm.load
// CHECK:      arith.addf
// CHECK:      "llvm.maxnum.f32"
// CHECK:      llvm.load
// CHECK:      arith.mulf
// CHECK:      llvm.insertvalue {{.*}}[0] : !llvm.struct<(f32
// CHECK:      atom.stage_fragment
// RETILE:     func.func @gemm_f16_f16_bk_128x256x64_s4_
// RETILE:     retile_safe = true
// Round by round (the default): the 32 values of a thread's first 64 columns (fields 0-31) are
// computed right before the first 64-column box is staged, the next 32 (fields 32-63, their bias
// loads included) only after that box's TMA store was issued.
// ROUNDS:      %row0 = arith.addi
// ROUNDS:      llvm.insertvalue {{.*}}[31] : !llvm.struct<(f32
// ROUNDS-NOT:  llvm.insertvalue {{.*}}[32] : !llvm.struct<(f32
// ROUNDS:      atom.stage_fragment {{.*}}{first_column = 0 : i64, columns = 64 : i64
// ROUNDS:      nvvm.cp.async.bulk.tensor.global.shared.cta
// ROUNDS:      llvm.load
// ROUNDS:      llvm.insertvalue {{.*}}[32] : !llvm.struct<(f32
// ROUNDS:      llvm.insertvalue {{.*}}[63] : !llvm.struct<(f32
// ROUNDS:      atom.stage_fragment {{.*}}{first_column = 64 : i64, columns = 64 : i64
// TILEORCH_EPILOGUE_ROUNDS=0: the whole fragment's 64 values first, then both boxes
// WHOLE:       %row0 = arith.addi
// WHOLE:       llvm.insertvalue {{.*}}[63] : !llvm.struct<(f32
// WHOLE-NOT:   llvm.load
// WHOLE:       atom.stage_fragment {{.*}}{first_column = 0 : i64, columns = 64 : i64
// WHOLE-NOT:   llvm.insertvalue
// WHOLE:       atom.stage_fragment {{.*}}{first_column = 64 : i64, columns = 64 : i64
