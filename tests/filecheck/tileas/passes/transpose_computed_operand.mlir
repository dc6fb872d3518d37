// RUN: tileorch-opt %s --split-input-file -p tileas-transpose-computed-operand | filecheck %s

// dV += transpose(p) @ dO with p = exp2(Q K^T - m) (m a per-row vector) computed in the loop: the chain
// is rebuilt transposed: the first dot's operands swapped and transposed (K loaded once is its A now,
// Q^T its B), m broadcast along the other axis, the cast kept, and no transpose left before the dot.
!m3 = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v3 = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m3>
builtin.module {
  nv_tileaa.func @dv(%q: !nv_tileaa.ptr<f16>, %a: i32, %b: i32, %s: i32, %k: tensor<64x64xf16>, %m: tensor<64x1xf32>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%a, %b] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m3
    %vq = nv_tileaa.block_tile %mq : !m3 -> !v3
    %kt = "nv_tileaa.permute"(%k) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %mb = nv_tileaa.broadcast %m : tensor<64x1xf32> -> tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x, %t1 = nv_tileaa.tiled_load %vq[%i, %c0] token %tok : !v3 [i32, i32] -> tensor<64x64xf16>
      %do, %t2 = nv_tileaa.tiled_load %vq[%c0, %i] token %tok : !v3 [i32, i32] -> tensor<64x64xf16>
      %sc = nv_tileaa.dot %x, %kt, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %d = nv_tileaa.subf %sc, %mb : tensor<64x64xf32>
      %p = nv_tileaa.exp2 %d : tensor<64x64xf32>
      %p16 = nv_tileaa.fp_to_fp %p {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %pt = "nv_tileaa.permute"(%p16) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %dv = nv_tileaa.dot %pt, %do, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %dv : tensor<64x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @dv
// CHECK-SAME:  %[[K:[^:]+]]: tensor<64x64xf16>, %[[M:[^:]+]]: tensor<64x1xf32>
// CHECK:       %[[MR:[^ ]+]] = nv_tileaa.reshape %[[M]] : tensor<64x1xf32> -> tensor<1x64xf32>
// CHECK:       arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT:  %[[Z:[^ ]+]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT:  %[[MB:[^ ]+]] = nv_tileaa.broadcast %[[MR]] : tensor<1x64xf32> -> tensor<64x64xf32>
// CHECK:       scf.for
// CHECK:       %[[X:[^ ,]+]], %{{.*}} = nv_tileaa.tiled_load
// CHECK-NEXT:  %[[XT:[^ ]+]] = "nv_tileaa.permute"(%[[X]]) <{permutation = array<i32: 1, 0>}>
// CHECK:       %[[DO:[^ ,]+]], %{{.*}} = nv_tileaa.tiled_load
// CHECK:       %[[ST:[^ ]+]] = nv_tileaa.dot %[[K]], %[[XT]], %[[Z]]
// CHECK-NEXT:  %[[D:[^ ]+]] = nv_tileaa.subf %[[ST]], %[[MB]]
// CHECK-NEXT:  %[[P:[^ ]+]] = nv_tileaa.exp2 %[[D]]
// CHECK-NEXT:  %[[P16:[^ ]+]] = nv_tileaa.fp_to_fp %[[P]]
// CHECK-NEXT:  nv_tileaa.dot %[[P16]], %[[DO]], %{{.*}}
// CHECK-NOT:   permute
// CHECK:       nv_tileaa.return

// -----

// p is read twice (its transpose by the dot, and a row sum): computing it transposed would compute it
// twice, so the program stays as written.
!m3 = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v3 = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m3>
builtin.module {
  nv_tileaa.func @shared(%q: !nv_tileaa.ptr<f16>, %a: i32, %b: i32, %s: i32, %kt: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%a, %b] [%s] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m3
    %vq = nv_tileaa.block_tile %mq : !m3 -> !v3
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %acc2 = %z) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
      %x, %t1 = nv_tileaa.tiled_load %vq[%i, %c0] token %tok : !v3 [i32, i32] -> tensor<64x64xf16>
      %sc = nv_tileaa.dot %x, %kt, %z : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p = nv_tileaa.exp2 %sc : tensor<64x64xf32>
      %p16 = nv_tileaa.fp_to_fp %p {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %pt = "nv_tileaa.permute"(%p16) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %dv = nv_tileaa.dot %pt, %x, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %acc3 = nv_tileaa.addf %acc2, %p : tensor<64x64xf32>
      scf.yield %dv, %acc3 : tensor<64x64xf32>, tensor<64x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @shared
// CHECK:       %[[SC:[^ ]+]] = nv_tileaa.dot %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} :
// CHECK:       "nv_tileaa.permute"
// CHECK:       nv_tileaa.dot

// -----

// A constant tile inside the chain (p = exp2(s) * w, w a splat constant) is rebuilt with the swapped
// shape; a non-square tile: S is 64 x 128 (K^T 128 wide), so P^T is 128 x 64.
builtin.module {
  nv_tileaa.func @const_in_chain(%q: tensor<64x32xf16>, %k: tensor<128x32xf16>, %v: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %z2 = arith.constant dense<0.0> : tensor<128x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z2) -> (tensor<128x64xf32>) : i32 {
      %kt = "nv_tileaa.permute"(%k) <{permutation = array<i32: 1, 0>}> : (tensor<128x32xf16>) -> tensor<32x128xf16>
      %sc = nv_tileaa.dot %q, %kt, %z : tensor<64x32xf16>, tensor<32x128xf16>, tensor<64x128xf32> -> tensor<64x128xf32>
      %w = arith.constant dense<0.5> : tensor<64x128xf32>
      %p = nv_tileaa.mulf %sc, %w : tensor<64x128xf32>
      %p16 = nv_tileaa.fp_to_fp %p {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x128xf32> -> tensor<64x128xf16>
      %pt = "nv_tileaa.permute"(%p16) <{permutation = array<i32: 1, 0>}> : (tensor<64x128xf16>) -> tensor<128x64xf16>
      %o = nv_tileaa.dot %pt, %v, %acc : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      scf.yield %o : tensor<128x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @const_in_chain
// CHECK:       %[[QT:[^ ]+]] = "nv_tileaa.permute"(%q) <{permutation = array<i32: 1, 0>}> : (tensor<64x32xf16>) -> tensor<32x64xf16>
// CHECK:       scf.for
// CHECK:       %[[ST:[^ ]+]] = nv_tileaa.dot %k, %[[QT]], %{{[^ ]+}} : tensor<128x32xf16>, tensor<32x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
// CHECK:       %[[W:[^ ]+]] = arith.constant dense<5.000000e-01> : tensor<128x64xf32>
// CHECK:       %[[P:[^ ]+]] = nv_tileaa.mulf %[[ST]], %[[W]] : tensor<128x64xf32>
// CHECK-NEXT:  %[[P16:[^ ]+]] = nv_tileaa.fp_to_fp %[[P]] {{.*}} -> tensor<128x64xf16>
// CHECK-NEXT:  nv_tileaa.dot %[[P16]], %v, %{{[^ ]+}} : tensor<128x64xf16>, tensor<64x64xf16>
