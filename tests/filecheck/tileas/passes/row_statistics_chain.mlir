// RUN: tileorch-opt %s --split-input-file -p tileas-row-statistics-chain | filecheck %s
// The LSE of the scores alone: one dot a key tile from zeros, only reduced by rows.  The loop gets a second dot over
// the same K tile (the loaded [tn, d] tile the first dot transposes) on the scores cast to K's type, accumulated into
// a new carried [tm, d] value from zeros that nothing reads; the program's ops and store are unchanged.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!mo = !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vo = !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !mo>
builtin.module {
  nv_tileaa.func @lse(%q: !nv_tileaa.ptr<f16>, %k: !nv_tileaa.ptr<f16>, %o: !nv_tileaa.ptr<f32>, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mk = nv_tileaa.make_memref %k[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mo = nv_tileaa.make_memref %o[%s] [] : !nv_tileaa.ptr<f32> [i32] [] -> !mo
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %qt = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %ninf = arith.constant dense<-1.0e+30> : tensor<64xf32>
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %vk = nv_tileaa.block_tile %mk : !m -> !v
    %vo = nv_tileaa.block_tile %mo : !mo -> !vo
    %qq, %t0 = nv_tileaa.tiled_load %vq[%qt, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %m = scf.for %j = %c0 to %n step %c1 iter_args(%mi = %ninf) -> (tensor<64xf32>) : i32 {
      %kk, %t1 = nv_tileaa.tiled_load %vk[%j, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
      %kt = "nv_tileaa.permute"(%kk) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %sc = nv_tileaa.dot %qq, %kt, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %r = "nv_tileaa.reduce"(%sc) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%a: f32, %b: f32):
        %x = nv_tileaa.maxf %a, %b : f32
        "nv_tileaa.yield"(%x) : (f32) -> ()
      }) : (tensor<64x64xf32>) -> tensor<64xf32>
      %mn = nv_tileaa.maxf %mi, %r : tensor<64xf32>
      scf.yield %mn : tensor<64xf32>
    }
    %st = nv_tileaa.tiled_store %m, %vo[%qt] token %tok : tensor<64xf32>, !vo [i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @lse
// CHECK-SAME:  tileorch.unread_second_dot
// CHECK:       nv_tileaa.tiled_load %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK-NEXT:  %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT:  %[[M:.*]], %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[U:.*]] = %[[Z]]) -> (tensor<64xf32>, tensor<64x64xf32>)
// CHECK:       %[[K:.*]], %{{.*}} = nv_tileaa.tiled_load
// CHECK:       %[[S:.*]] = nv_tileaa.dot
// CHECK:       %[[MN:.*]] = nv_tileaa.maxf %{{.*}}, %{{.*}} : tensor<64xf32>
// CHECK-NEXT:  %[[P:.*]] = nv_tileaa.fp_to_fp %[[S]] {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
// CHECK-NEXT:  %[[U2:.*]] = nv_tileaa.dot %[[P]], %[[K]], %[[U]]
// CHECK-NEXT:  scf.yield %[[MN]], %[[U2]] : tensor<64xf32>, tensor<64x64xf32>
// CHECK:       nv_tileaa.tiled_store %[[M]], %{{.*}}[%{{.*}}]

// -----
// The dot accumulates over the loop (a GEMM's K loop): left as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!mo = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vo = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !mo>
builtin.module {
  nv_tileaa.func @gemm(%q: !nv_tileaa.ptr<f16>, %k: !nv_tileaa.ptr<f16>, %o: !nv_tileaa.ptr<f32>, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mk = nv_tileaa.make_memref %k[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mo = nv_tileaa.make_memref %o[%s, %s] [%s] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mo
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %qt = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %vk = nv_tileaa.block_tile %mk : !m -> !v
    %vo = nv_tileaa.block_tile %mo : !mo -> !vo
    %acc = scf.for %j = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
      %qq, %t0 = nv_tileaa.tiled_load %vq[%qt, %j] token %tok : !v [i32, i32] -> tensor<64x64xf16>
      %kk, %t1 = nv_tileaa.tiled_load %vk[%j, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
      %kt = "nv_tileaa.permute"(%kk) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %d = nv_tileaa.dot %qq, %kt, %a : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %st = nv_tileaa.tiled_store %acc, %vo[%qt, %c0] token %tok : tensor<64x64xf32>, !vo [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @gemm
// CHECK-NOT:   tileorch.unread_second_dot
// CHECK-COUNT-1: nv_tileaa.dot
// CHECK-NOT:   nv_tileaa.dot

// -----
// A fresh product added to a carried tile (acc = acc + dot(q, k^T, zeros): a GEMM written that way, folded by
// tileas-fold-dot-accumulate): the product itself is carried, not only reduced: left as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!mo = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vo = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !mo>
builtin.module {
  nv_tileaa.func @added(%q: !nv_tileaa.ptr<f16>, %k: !nv_tileaa.ptr<f16>, %o: !nv_tileaa.ptr<f32>, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mk = nv_tileaa.make_memref %k[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mo = nv_tileaa.make_memref %o[%s, %s] [%s] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mo
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %qt = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %vk = nv_tileaa.block_tile %mk : !m -> !v
    %vo = nv_tileaa.block_tile %mo : !mo -> !vo
    %acc = scf.for %j = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
      %qq, %t0 = nv_tileaa.tiled_load %vq[%qt, %j] token %tok : !v [i32, i32] -> tensor<64x64xf16>
      %kk, %t1 = nv_tileaa.tiled_load %vk[%j, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
      %kt = "nv_tileaa.permute"(%kk) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %d = nv_tileaa.dot %qq, %kt, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %sum = nv_tileaa.addf %a, %d : tensor<64x64xf32>
      scf.yield %sum : tensor<64x64xf32>
    }
    %st = nv_tileaa.tiled_store %acc, %vo[%qt, %c0] token %tok : tensor<64x64xf32>, !vo [i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @added
// CHECK-NOT:   tileorch.unread_second_dot
// CHECK-COUNT-1: nv_tileaa.dot
// CHECK-NOT:   nv_tileaa.dot

// -----
// The loop stores (a value per key tile): not row statistics of the loop, left as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!mo = !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
!vo = !nv_tileaa.tiled_view<array<i32: 64>, array<i32: 64>, array<i32: 0>, !mo>
builtin.module {
  nv_tileaa.func @stores_scores(%q: !nv_tileaa.ptr<f16>, %k: !nv_tileaa.ptr<f16>, %o: !nv_tileaa.ptr<f32>, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mk = nv_tileaa.make_memref %k[%s, %s] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mo = nv_tileaa.make_memref %o[%s] [] : !nv_tileaa.ptr<f32> [i32] [] -> !mo
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %qt = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %ninf = arith.constant dense<-1.0e+30> : tensor<64xf32>
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %vk = nv_tileaa.block_tile %mk : !m -> !v
    %vo = nv_tileaa.block_tile %mo : !mo -> !vo
    %qq, %t0 = nv_tileaa.tiled_load %vq[%qt, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
    %m = scf.for %j = %c0 to %n step %c1 iter_args(%mi = %ninf) -> (tensor<64xf32>) : i32 {
      %kk, %t1 = nv_tileaa.tiled_load %vk[%j, %c0] token %tok : !v [i32, i32] -> tensor<64x64xf16>
      %kt = "nv_tileaa.permute"(%kk) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %sc = nv_tileaa.dot %qq, %kt, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %r = "nv_tileaa.reduce"(%sc) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
      ^bb0(%a: f32, %b: f32):
        %x = nv_tileaa.maxf %a, %b : f32
        "nv_tileaa.yield"(%x) : (f32) -> ()
      }) : (tensor<64x64xf32>) -> tensor<64xf32>
      %mn = nv_tileaa.maxf %mi, %r : tensor<64xf32>
      %ss = nv_tileaa.tiled_store %mn, %vo[%j] token %tok : tensor<64xf32>, !vo [i32]
      scf.yield %mn : tensor<64xf32>
    }
    %st = nv_tileaa.tiled_store %m, %vo[%qt] token %tok : tensor<64xf32>, !vo [i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @stores_scores
// CHECK-NOT:   tileorch.unread_second_dot
// CHECK-COUNT-1: nv_tileaa.dot
// CHECK-NOT:   nv_tileaa.dot
