// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p tileas-tier,convert-nv-tileas-to-cutlass 2>&1 | filecheck %s
// What convert-nv-tileas-to-cutlass cannot lower is a located error naming the reason.

// The epilogue transposes the accumulator tile: its register layout cannot without an exchange.
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
    %tr = "nv_tileaa.permute"(%out) <{permutation = array<i32: 1, 0>}> : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %h = nv_tileaa.fp_to_fp %tr : tensor<128x128xf32> -> tensor<128x128xf16>
    %t5 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: tier_epilogue_errors.mlir:30:7: error: convert-nv-tileas-to-cutlass: the program's ids were rewritten onto the output tile grid

// -----
// A^T, B^T, C stored untransposed at tile (pn, pm): after the axis swap, index roles disagree with the dot's operands.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vat = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
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
    %vat = nv_tileaa.block_tile %ma : !m -> !vat
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
      %tat, %t0 = nv_tileaa.tiled_load %vat[%i, %pm] : !vat [i32, i32] -> tensor<64x128xf16>
      %ta = "nv_tileaa.permute"(%tat) <{permutation = array<i32: 1, 0>}> : (tensor<64x128xf16>) -> tensor<128x64xf16>
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
    %t5 = nv_tileaa.tiled_store %h, %vc[%pn, %pm] : tensor<128x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: tier_epilogue_errors.mlir:85:7: error: convert-nv-tileas-to-cutlass: the program's ids were rewritten onto the output tile grid

// -----
// A and B read different K tiles (A tile i, B tile i + 1): one stage holds one K tile of both.
!m = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vat = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm_at(%at: !nv_tileaa.ptr<bf16>, %b: !nv_tileaa.ptr<bf16>, %c: !nv_tileaa.ptr<bf16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %mat = nv_tileaa.make_memref %at[%k, %m] [%m] : !nv_tileaa.ptr<bf16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<bf16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<bf16> [i32, i32] [i32] -> !m
    %vat = nv_tileaa.block_tile %mat : !m -> !vat
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %vat {index = 0 : i32} : !vat -> i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %tat, %t0 = nv_tileaa.tiled_load %vat[%i, %pm] : !vat [i32, i32] -> tensor<64x128xbf16>
      %ta = "nv_tileaa.permute"(%tat) <{permutation = array<i32: 1, 0>}> : (tensor<64x128xbf16>) -> tensor<128x64xbf16>
      %i1 = arith.addi %i, %c1 : i32
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i1, %pn] : !vb [i32, i32] -> tensor<64x128xbf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xbf16>
    %t5 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x128xbf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: tier_epilogue_errors.mlir:131:5: error: convert-nv-tileas-to-cutlass: the operands' K tile indices are different functions of the iv (k, k + 1)

// -----
// A column reduction of the transposed accumulator (a row reduction of it, stored as [1, 128]):
// the fold reads the accumulator at swapped coordinates.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!mp = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vbt = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
!vp = !nv_tileaa.tiled_view<array<i32: 1, 128>, array<i32: 1, 128>, array<i32: 0, 1>, !mp>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm_colsum_transposed(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %p: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %k: i32, %tiles_m: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%n, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mp = nv_tileaa.make_memref %p[%tiles_m, %n] [%n] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mp
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vbt
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %vp = nv_tileaa.block_tile %mp : !mp -> !vp
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
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
    %t5 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x128xf16>, !vc [i32, i32]
    %tr = "nv_tileaa.permute"(%acc) <{permutation = array<i32: 1, 0>}> : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %sm = "nv_tileaa.reduce"(%tr) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%u: f32, %v: f32):
      %w = nv_tileaa.addf %u, %v : f32
      "nv_tileaa.yield"(%w) : (f32) -> ()
    }) : (tensor<128x128xf32>) -> tensor<128xf32>
    %sm2 = nv_tileaa.reshape %sm : tensor<128xf32> -> tensor<1x128xf32>
    %t6 = nv_tileaa.tiled_store %sm2, %vp[%pm, %pn] : tensor<1x128xf32>, !vp [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: tier_epilogue_errors.mlir:179:5: error: convert-nv-tileas-to-cutlass: not supported yet in the accumulator's register layout: the epilogue reads the accumulator at other coordinates (a transpose or slice of it)

// -----
// The stored tile reads a column reduction of the result (C = acc - max(acc, axis 0)): refused at the
// reduction (a [1, tile_n] side output of it would be taken).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vbt = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm_minus_colmax(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%n, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vbt
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
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
    %mx = "nv_tileaa.reduce"(%acc) <{dim = 0 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%u: f32, %v: f32):
      %w = nv_tileaa.maxf %u, %v : f32
      "nv_tileaa.yield"(%w) : (f32) -> ()
    }) : (tensor<128x128xf32>) -> tensor<128xf32>
    %mx2 = nv_tileaa.expand_dims %mx {dim = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
    %mxb = nv_tileaa.broadcast %mx2 : tensor<1x128xf32> -> tensor<128x128xf32>
    %d = nv_tileaa.subf %acc, %mxb : tensor<128x128xf32>
    %h = nv_tileaa.fp_to_fp %d : tensor<128x128xf32> -> tensor<128x128xf16>
    %t5 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x128xf16>, !vc [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: tier_epilogue_errors.mlir:221:5: error: convert-nv-tileas-to-cutlass: a column reduction of the result that the stored tile reads (not only a [1, tile_n] side output) is not supported yet by the WGMMA lowering

// -----
// A second output of the accumulator's shape at another tile than C's (column tile 0): refused at it.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!mf = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
!vd = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !mf>
builtin.module {
  nv_tileaa.func @second_output_elsewhere(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %d: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %md = nv_tileaa.make_memref %d[%m, %n] [%n] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mf
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %vd = nv_tileaa.block_tile %md : !mf -> !vd
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%pm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %pn] : !vb [i32, i32] -> tensor<64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
    %t5 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x128xf16>, !vc [i32, i32]
    %t6 = nv_tileaa.tiled_store %acc, %vd[%pm, %c0] : tensor<128x128xf32>, !vd [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: tier_epilogue_errors.mlir:268:5: error: convert-nv-tileas-to-cutlass: a second output tile [128, 128] at other indices than C's
