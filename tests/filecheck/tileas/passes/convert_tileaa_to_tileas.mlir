// RUN: tileorch-opt %s --split-input-file -p convert-tileaa-to-tileas | filecheck %s

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 64, 32>, array<i32: 64, 32>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 32, 64>, array<i32: 32, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%va: !va, %vb: !vb, %i: i32, %x: tensor<64x64xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %a, %t1 = nv_tileaa.tiled_load %va[%i, %i] token %tok {allow_tma = false} : !va [i32, i32] -> tensor<64x32xf16>
    %b, %t2 = nv_tileaa.tiled_load %vb[%i, %i] token %t1 : !vb [i32, i32] -> tensor<32x64xf16>
    %j = nv_tileaa.join_mem_token %t1, %t2
    %d = nv_tileaa.dot %a, %b, %x : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %r = nv_tileaa.expand_dims %d {dim = 0 : i32} : tensor<64x64xf32> -> tensor<1x64x64xf32>
    %s = nv_tileaa.addf %d, %d : tensor<64x64xf32>
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @k(%{{.*}}, %{{.*}}, %{{.*}}: i32, %{{.*}}: tensor<64x64xf32, #nv_tileas.layout<reg>>)
// CHECK-NOT: mem_token
// CHECK: %[[A:.*]] = nv_tileas.tiled_load %{{.*}}[%{{.*}}, %{{.*}}] {atom = #nv_tileas.unknown_copy_atom, allow_tma = false} : {{.*}} -> tensor<64x32xf16, #nv_tileas.layout<reg>>
// CHECK: %[[B:.*]] = nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.unknown_copy_atom, allow_tma = true} : {{.*}} -> tensor<32x64xf16, #nv_tileas.layout<reg>>
// CHECK-NOT: mem_token
// CHECK: %[[CA:.*]] = nv_tileas.convert_layout %[[A]]
// CHECK: %[[CB:.*]] = nv_tileas.convert_layout %[[B]]
// CHECK: %[[CC:.*]] = nv_tileas.convert_layout %{{.*}} : tensor<64x64xf32, #nv_tileas.layout<reg>> -> tensor<64x64xf32, #nv_tileas.layout<reg>>
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: %[[D:.*]] = nv_tileas.dot %[[CA]], %[[CB]], %[[CC]], %[[T]] {atom = #nv_tileas.fma<[1, 1, 1]>, matmul_fast_accum = false}
// CHECK: nv_tileas.expand_dim %[[D]] {dim = 0 : i32} : tensor<64x64xf32, #nv_tileas.layout<reg>> -> tensor<1x64x64xf32, #nv_tileas.layout<reg>>
// CHECK: nv_tileaa.addf %[[D]], %[[D]] : tensor<64x64xf32, #nv_tileas.layout<reg>>

// -----

// Loop-carried tiles and constants are retyped too; a store keeps its indices.
!m = !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i64>
!v = !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !m>
builtin.module {
  nv_tileaa.func @loop(%v: !v, %n: index) {
    %z = arith.constant dense<0.0> : tensor<128xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128xf32>) {
      %x, %t = nv_tileaa.tiled_load %v[%i] : !v [index] -> tensor<128xf32>
      %y = nv_tileaa.addf %acc, %x : tensor<128xf32>
      scf.yield %y : tensor<128xf32>
    }
    %t2 = nv_tileaa.tiled_store %r, %v[%c0] : tensor<128xf32>, !v [index]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @loop
// CHECK: arith.constant dense<0.000000e+00> : tensor<128xf32, #nv_tileas.layout<reg>>
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #nv_tileas.layout<reg>>)
// CHECK: nv_tileas.tiled_store %{{.*}}, %{{.*}}[%{{.*}}] {atom = #nv_tileas.unknown_copy_atom, allow_tma = true} : tensor<128xf32, #nv_tileas.layout<reg>>

// -----

// An if whose branches only read memory (an epilogue term under a condition on the program id:
// ``if ct.bid(2) == 0: acc = acc + bias``) stops yielding the load's memory token; the tile it
// yields stays (sweep 11: the token was "used by an op TileAS does not know").
!m = !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !m>
builtin.module {
  nv_tileaa.func @read_only_if(%v: !v, %x: tensor<64xf32>, %c: i1, %i: i32) {
    %tok = nv_tileaa.create_mem_token
    %r, %rt = scf.if %c -> (tensor<64xf32>, !nv_tileaa.mem_token) {
      %b, %t = nv_tileaa.tiled_load %v[%i] token %tok : !v [i32] -> tensor<64xf32>
      %j = nv_tileaa.join_mem_token %tok, %t
      %s = nv_tileaa.addf %x, %b : tensor<64xf32>
      scf.yield %s, %j : tensor<64xf32>, !nv_tileaa.mem_token
    } else {
      scf.yield %x, %tok : tensor<64xf32>, !nv_tileaa.mem_token
    }
    %all = nv_tileaa.join_mem_token %tok, %rt
    %st = nv_tileaa.tiled_store %r, %v[%i] token %all : tensor<64xf32>, !v [i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @read_only_if
// CHECK-NOT:   mem_token
// CHECK:       %[[R:.*]] = scf.if %{{.*}} -> (tensor<64xf32, #nv_tileas.layout<reg>>) {
// CHECK:         nv_tileas.tiled_load
// CHECK:         scf.yield %{{.*}} : tensor<64xf32, #nv_tileas.layout<reg>>
// CHECK:       } else {
// CHECK:         scf.yield %{{.*}} : tensor<64xf32, #nv_tileas.layout<reg>>
// CHECK:       nv_tileas.tiled_store %[[R]]
// CHECK-NOT:   mem_token
