// RUN: tileorch-opt %s --split-input-file -p tileas-squeeze-unit-tiles | filecheck %s

// Two dots on (1, M, K) tiles in a loop (attention's S = Q K^T then O += P V, without reshapes):
// every leading-extent-1 tile loses that dimension: loads are followed by a reshape, the store
// preceded by the reshape back, the reduction and expand_dims take dim - 1, the permute drops its
// fixed axis, constants and loop-carried values are 2-D.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !m>
builtin.module {
  nv_tileaa.func @attn3d(%q: !nv_tileaa.ptr<f16>, %b: i32, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%b, %s, %n] [%s, %n] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %qt, %t0 = nv_tileaa.tiled_load %vq[%c0, %c0, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %z = arith.constant dense<0.0> : tensor<1x64x64xf32>
    %m0 = arith.constant dense<0.0> : tensor<1x64x1xf32>
    %r:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%m = %m0, %o = %z) -> (tensor<1x64x1xf32>, tensor<1x64x64xf32>) : i32 {
      %k, %t1 = nv_tileaa.tiled_load %vq[%c0, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %kt = "nv_tileaa.permute"(%k) <{permutation = array<i32: 0, 2, 1>}> : (tensor<1x64x64xf16>) -> tensor<1x64x64xf16>
      %sc = nv_tileaa.dot %qt, %kt, %z : tensor<1x64x64xf16>, tensor<1x64x64xf16>, tensor<1x64x64xf32> -> tensor<1x64x64xf32>
      %mx = "nv_tileaa.reduce"(%sc) <{dim = 2 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%x: f32, %y: f32):
        %w = nv_tileaa.maxf %x, %y : f32
        "nv_tileaa.yield"(%w) : (f32) -> ()
      }) : (tensor<1x64x64xf32>) -> tensor<1x64xf32>
      %mx3 = nv_tileaa.expand_dims %mx {dim = 2 : i32} : tensor<1x64xf32> -> tensor<1x64x1xf32>
      %m2 = nv_tileaa.maxf %m, %mx3 : tensor<1x64x1xf32>
      %mb = nv_tileaa.broadcast %m2 : tensor<1x64x1xf32> -> tensor<1x64x64xf32>
      %p = nv_tileaa.subf %sc, %mb : tensor<1x64x64xf32>
      %ph = nv_tileaa.fp_to_fp %p {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x64x64xf32> -> tensor<1x64x64xf16>
      %o2 = nv_tileaa.dot %ph, %k, %o : tensor<1x64x64xf16>, tensor<1x64x64xf16>, tensor<1x64x64xf32> -> tensor<1x64x64xf32>
      scf.yield %m2, %o2 : tensor<1x64x1xf32>, tensor<1x64x64xf32>
    }
    %oh = nv_tileaa.fp_to_fp %r#1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x64x64xf32> -> tensor<1x64x64xf16>
    %t3 = nv_tileaa.tiled_store %oh, %vq[%c0, %c0, %c0] token %tok : tensor<1x64x64xf16>, !v [i32, i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @attn3d
// CHECK:      %[[Q3:.*]], %{{.*}} = nv_tileaa.tiled_load {{.*}} -> tensor<1x64x64xf16>
// CHECK-NEXT: %[[Q:.*]] = nv_tileaa.reshape %[[Q3]] : tensor<1x64x64xf16> -> tensor<64x64xf16>
// CHECK:      arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK:      arith.constant dense<0.000000e+00> : tensor<64x1xf32>
// CHECK:      scf.for {{.*}} -> (tensor<64x1xf32>, tensor<64x64xf32>)
// CHECK:      %[[K3:.*]], %{{.*}} = nv_tileaa.tiled_load {{.*}} -> tensor<1x64x64xf16>
// CHECK-NEXT: %[[K:.*]] = nv_tileaa.reshape %[[K3]] : tensor<1x64x64xf16> -> tensor<64x64xf16>
// CHECK:      "nv_tileaa.permute"(%[[K]]) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
// CHECK:      nv_tileaa.dot %[[Q]], %{{.*}} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK:      "nv_tileaa.reduce"(%{{.*}}) <{dim = 1 : i32
// CHECK:      (tensor<64x64xf32>) -> tensor<64xf32>
// CHECK:      nv_tileaa.expand_dims %{{.*}} {dim = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
// CHECK:      nv_tileaa.broadcast %{{.*}} : tensor<64x1xf32> -> tensor<64x64xf32>
// CHECK:      nv_tileaa.dot %{{.*}}, %[[K]], %{{.*}} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK:      scf.yield %{{.*}}, %{{.*}} : tensor<64x1xf32>, tensor<64x64xf32>
// CHECK:      %[[O:.*]] = nv_tileaa.fp_to_fp {{.*}} -> tensor<64x64xf16>
// CHECK-NEXT: %[[O3:.*]] = nv_tileaa.reshape %[[O]] : tensor<64x64xf16> -> tensor<1x64x64xf16>
// CHECK-NEXT: nv_tileaa.tiled_store %[[O3]]

// -----
// A reduction over the leading (extent-1) axis: not a squeezable program, left alone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !m>
builtin.module {
  nv_tileaa.func @leading_reduce(%q: !nv_tileaa.ptr<f16>, %b: i32, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%b, %s, %n] [%s, %n] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %c0 = arith.constant 0 : i32
    %qt, %t0 = nv_tileaa.tiled_load %vq[%c0, %c0, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %z = arith.constant dense<0.0> : tensor<1x64x64xf32>
    %sc = nv_tileaa.dot %qt, %qt, %z : tensor<1x64x64xf16>, tensor<1x64x64xf16>, tensor<1x64x64xf32> -> tensor<1x64x64xf32>
    %ph = nv_tileaa.fp_to_fp %sc {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x64x64xf32> -> tensor<1x64x64xf16>
    %o = nv_tileaa.dot %ph, %qt, %z : tensor<1x64x64xf16>, tensor<1x64x64xf16>, tensor<1x64x64xf32> -> tensor<1x64x64xf32>
    %r = "nv_tileaa.reduce"(%o) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%x: f32, %y: f32):
      %w = nv_tileaa.addf %x, %y : f32
      "nv_tileaa.yield"(%w) : (f32) -> ()
    }) : (tensor<1x64x64xf32>) -> tensor<64x64xf32>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @leading_reduce
// CHECK-NOT:  nv_tileaa.reshape
// CHECK:      nv_tileaa.dot {{.*}} : tensor<1x64x64xf16>, tensor<1x64x64xf16>, tensor<1x64x64xf32> -> tensor<1x64x64xf32>

// -----
// A position vector given the leading axis by expand_dims (cuTile's reshape of an arange to
// (1, n, 1)): that expand_dims is dropped, the next one takes dim - 1.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !m>
builtin.module {
  nv_tileaa.func @positions(%q: !nv_tileaa.ptr<f16>, %b: i32, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%b, %s, %n] [%s, %n] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %c0 = arith.constant 0 : i32
    %qt, %t0 = nv_tileaa.tiled_load %vq[%c0, %c0, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %z = arith.constant dense<0.0> : tensor<1x64x64xf32>
    %sc = nv_tileaa.dot %qt, %qt, %z : tensor<1x64x64xf16>, tensor<1x64x64xf16>, tensor<1x64x64xf32> -> tensor<1x64x64xf32>
    %x = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %xf = nv_tileaa.sitofp %x : tensor<64xi32> -> tensor<64xf32>
    %x2 = nv_tileaa.expand_dims %xf {dim = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
    %x3 = nv_tileaa.expand_dims %x2 {dim = 2 : i32} : tensor<1x64xf32> -> tensor<1x64x1xf32>
    %xb = nv_tileaa.broadcast %x3 : tensor<1x64x1xf32> -> tensor<1x64x64xf32>
    %sp = nv_tileaa.addf %sc, %xb : tensor<1x64x64xf32>
    %ph = nv_tileaa.fp_to_fp %sp {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x64x64xf32> -> tensor<1x64x64xf16>
    %o = nv_tileaa.dot %ph, %qt, %z : tensor<1x64x64xf16>, tensor<1x64x64xf16>, tensor<1x64x64xf32> -> tensor<1x64x64xf32>
    %oh = nv_tileaa.fp_to_fp %o {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x64x64xf32> -> tensor<1x64x64xf16>
    %t3 = nv_tileaa.tiled_store %oh, %vq[%c0, %c0, %c0] token %tok : tensor<1x64x64xf16>, !v [i32, i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @positions
// CHECK:      %[[XF:.*]] = nv_tileaa.sitofp %{{.*}} : tensor<64xi32> -> tensor<64xf32>
// CHECK-NOT:  {dim = 0 : i32}
// CHECK:      %[[X3:.*]] = nv_tileaa.expand_dims %[[XF]] {dim = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
// CHECK:      nv_tileaa.broadcast %[[X3]] : tensor<64x1xf32> -> tensor<64x64xf32>
// CHECK:      nv_tileaa.dot {{.*}} -> tensor<64x64xf32>
