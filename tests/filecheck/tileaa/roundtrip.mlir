// RUN: TILEORCH_ROUNDTRIP
// RUN: TILEORCH_CUSTOM_ROUNDTRIP

// The tile GEMM in nv_tileaa: program ids -> tile coordinates, K loop of tiled loads and a dot,
// a converted store.
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm(%pa: !nv_tileaa.ptr<f16>, %pb: !nv_tileaa.ptr<f16>, %pc: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32, %lda: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %lda16 = nv_tileaa.assume %lda {predicate = #nv_tileaa.div_by<16>} : i32
    %m0 = nv_tileaa.assume %m {predicate = #nv_tileaa.bounded<0, ?>} : i32
    %ma = nv_tileaa.make_memref %pa[%m0, %k] [%lda16] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %mb = nv_tileaa.make_memref %pb[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %mc = nv_tileaa.make_memref %pc[%m, %n] [] : !nv_tileaa.ptr<f16> [i32, i32] [] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 4096, 1>, i32>
    %va = nv_tileaa.block_tile %ma : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %vb = nv_tileaa.block_tile %mb : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %vc = nv_tileaa.block_tile %mc : !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 4096, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 4096, 1>, i32>>
    %p0 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p1 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %nk = nv_tileaa.get_dim_size %va {index = 1 : i32} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %nk step %c1 iter_args(%a0 = %zero) -> (tensor<128x128xf32>) : i32 {
      %a, %t1 = nv_tileaa.tiled_load %va[%p0, %i] token %tok {allow_tma = true, padding_value = #nv_tileaa.padding_value<zero>, mem_semantic = #nv_tileaa.mem_semantic<weak>} : !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> [i32, i32] -> tensor<128x64xf16>
      %b, %t2 = nv_tileaa.tiled_load %vb[%i, %p1] : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>> [i32, i32] -> tensor<64x128xf16>
      %d = nv_tileaa.dot %a, %b, %a0 {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    %c1f = arith.constant 2.0 : f32
    %two = nv_tileaa.splat %c1f : f32 -> tensor<128x128xf32>
    %scaled = nv_tileaa.mulf %acc, %two : tensor<128x128xf32>
    %h = nv_tileaa.fp_to_fp %scaled {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    %t3 = nv_tileaa.tiled_store %h, %vc[%p0, %p1] token %tok : tensor<128x128xf16>, !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 4096, 1>, i32>> [i32, i32]
    nv_tileaa.return
  }
}
// CHECK: builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>}
// CHECK: nv_tileaa.func @gemm(%{{.*}}: !nv_tileaa.ptr<f16>, {{.*}}) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>}
// CHECK: nv_tileaa.assume %{{.*}} {predicate = #nv_tileaa.div_by<16>} : i32
// CHECK: nv_tileaa.assume %{{.*}} {predicate = #nv_tileaa.bounded<0, ?>} : i32
// CHECK: nv_tileaa.make_memref %{{.*}}[%{{.*}}, %{{.*}}] [%{{.*}}] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
// CHECK: !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: 4096, 1>, i32>
// CHECK: nv_tileaa.block_tile
// CHECK-SAME: -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
// CHECK: nv_tileaa.get_program_id {axis = 1 : i32} : i32
// CHECK: nv_tileaa.get_dim_size %{{.*}} {index = 1 : i32}
// CHECK: nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %{{.*}}] token %{{.*}} {allow_tma = true, padding_value = #nv_tileaa.padding_value<zero>, mem_semantic = #nv_tileaa.mem_semantic<weak>}
// CHECK: nv_tileaa.dot %{{.*}}, %{{.*}}, %{{.*}} {matmul_fast_accum = false} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
// CHECK: nv_tileaa.mulf %{{.*}}, %{{.*}} : tensor<128x128xf32>
// CHECK: nv_tileaa.fp_to_fp %{{.*}} {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
// CHECK: nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] token %{{.*}} : tensor<128x128xf16>
// CHECK: nv_tileaa.return

// -----

builtin.module {
  nv_tileaa.func @persistent() attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<2, 8>} {
    %first = nv_tileaa.current_program_id
    %r = scf.while (%id = %first) : (!nv_tileaa.program_id) -> !nv_tileaa.program_id {
      %ok = nv_tileaa.is_valid_program_id %id
      scf.condition(%ok) %id : !nv_tileaa.program_id
    } do {
    ^bb0(%id2: !nv_tileaa.program_id):
      %x = nv_tileaa.get_program_id %id2 {axis = 0 : i32} : i32
      %next = nv_tileaa.cancel_next_program_id
      scf.yield %next : !nv_tileaa.program_id
    }
    %r0 = nv_tileaa.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
    %e = nv_tileaa.expand_dims %r0 {dim = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %b = nv_tileaa.broadcast %e : tensor<1x16xi32> -> tensor<8x16xi32>
    %s = nv_tileaa.addi %b, %b : tensor<8x16xi32>
    %x0 = nv_tileaa.extract %s {indices = array<i32: 1, 2>} : tensor<8x16xi32> -> i32
    %f = arith.constant dense<1.0> : tensor<8x16xf32>
    %g = nv_tileaa.fma %f, %f, %f : tensor<8x16xf32>
    %n = nv_tileaa.negf %g : tensor<8x16xf32>
    %pr = nv_tileaa.pragma %n {hints = {unroll = 2 : i32}} : tensor<8x16xf32> -> tensor<8x16xf32>
    %np = nv_tileaa.get_num_programs {axis = 2 : i32} : i32
    nv_tileaa.return
  }
}
// CHECK: nv_tileaa.func @persistent() attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<2, 8>}
// CHECK: nv_tileaa.current_program_id
// CHECK: nv_tileaa.is_valid_program_id %{{.*}}
// CHECK: nv_tileaa.get_program_id %{{.*}} {axis = 0 : i32} : i32
// CHECK: nv_tileaa.cancel_next_program_id
// CHECK: nv_tileaa.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
// CHECK: nv_tileaa.expand_dims %{{.*}} {dim = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
// CHECK: nv_tileaa.broadcast %{{.*}} : tensor<1x16xi32> -> tensor<8x16xi32>
// CHECK: nv_tileaa.addi
// CHECK: nv_tileaa.extract %{{.*}} {indices = array<i32: 1, 2>} : tensor<8x16xi32> -> i32
// CHECK: nv_tileaa.fma
// CHECK: nv_tileaa.negf
// CHECK: nv_tileaa.pragma %{{.*}} {hints = {unroll = 2 : i32}}
// CHECK: nv_tileaa.get_num_programs {axis = 2 : i32} : i32
