// RUN: tileorch-opt %s --split-input-file -p tileas-unpeel-k-loop | filecheck %s

// The first K step peeled before the loop (acc = dot(A tile (i, 0), B tile (0, j), zeros), then
// range(1, kt)): the loop starts at 0 from the zeros, the peeled loads and dot are gone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @peeled(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %c0 = arith.constant 0 : i32
    %va0 = nv_tileaa.block_tile %ma : !m -> !va
    %a0, %t0 = nv_tileaa.tiled_load %va0[%i, %c0] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %c0b = arith.constant 0 : i32
    %vb0 = nv_tileaa.block_tile %mb : !m -> !vb
    %b0, %t1 = nv_tileaa.tiled_load %vb0[%c0b, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %d0 = nv_tileaa.dot %a0, %b0, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %c1 = arith.constant 1 : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %r = scf.for %kk = %c1 to %kt step %c1 iter_args(%acc = %d0) -> (tensor<128x128xf32>) : i32 {
      %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
      %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
      %d = nv_tileaa.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @peeled
// CHECK-NOT:  nv_tileaa.dot
// CHECK:      %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
// CHECK-NOT:  nv_tileaa.dot
// CHECK:      %[[S:.*]] = arith.constant 0 : i32
// CHECK-NEXT: scf.for %{{.*}} = %[[S]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[Z]])
// CHECK:      nv_tileaa.dot
// CHECK-NOT:  nv_tileaa.dot

// -----
// The peeled step reads A's K tile 1 while the loop starts at 1 (tile 1 twice, tile 0 never):
// not the loop's first iteration, left alone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @other_tile(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %a0, %t0 = nv_tileaa.tiled_load %va[%i, %c1] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %b0, %t1 = nv_tileaa.tiled_load %vb[%c0, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %d0 = nv_tileaa.dot %a0, %b0, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %r = scf.for %kk = %c1 to %kt step %c1 iter_args(%acc = %d0) -> (tensor<128x128xf32>) : i32 {
      %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
      %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
      %d = nv_tileaa.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @other_tile
// CHECK:      %[[D0:.*]] = nv_tileaa.dot
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[D0]])

// -----
// The loop also stores a tile each step: an extra first iteration would write; left alone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @stores(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %m: i32, %n: i32, %k: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %i = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %j = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %a0, %t0 = nv_tileaa.tiled_load %va[%i, %c0] token %tok : !va [i32, i32] -> tensor<128x64xf16>
    %b0, %t1 = nv_tileaa.tiled_load %vb[%c0, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %d0 = nv_tileaa.dot %a0, %b0, %z : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %r = scf.for %kk = %c1 to %kt step %c1 iter_args(%acc = %d0) -> (tensor<128x128xf32>) : i32 {
      %x, %t2 = nv_tileaa.tiled_load %va[%i, %kk] token %tok : !va [i32, i32] -> tensor<128x64xf16>
      %y, %t3 = nv_tileaa.tiled_load %vb[%kk, %j] token %tok : !vb [i32, i32] -> tensor<64x128xf16>
      %t4 = nv_tileaa.tiled_store %x, %va[%i, %kk] token %tok : tensor<128x64xf16>, !va [i32, i32]
      %d = nv_tileaa.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @stores
// CHECK:      %[[D0:.*]] = nv_tileaa.dot
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[D0]])
