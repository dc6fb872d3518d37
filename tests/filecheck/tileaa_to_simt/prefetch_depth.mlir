// RUN: tileorch-opt %s -p convert-nv-tileaa-to-simt | filecheck %s

// A loop that loads a 64 x 128 f32 tile (16 words a thread on 512 threads) and folds its column
// sums: the tiles of the first three iterations are loaded before the loop (prefetch.py,
// prefetch_depth: 48 words in all), each iteration loads the tile three iterations ahead
// (iv + 3 * step) and carries the queue: 48 words (16 in use, 32 loaded ahead) beside the sum.
// CHECK-LABEL: func.func @colsum
// CHECK: scf.for %[[IV:[0-9]+]] = {{.*}} -> (f32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) : i32 {
// CHECK-NEXT: arith.addi %[[IV]], %{{[0-9]+}} : i32
builtin.module {
  nv_tileaa.func @colsum(%x: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %s: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 16>} {
    %mx = nv_tileaa.make_memref %x[%m, %n] [%s] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %v = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %nt = nv_tileaa.get_dim_size %v {index = 0 : i32} : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>> -> i32
    %acc = scf.for %i = %c0 to %nt step %c1 iter_args(%a = %z) -> (tensor<128xf32>) : i32 {
      %t, %t2 = nv_tileaa.tiled_load %v[%i, %b] token %tok {mem_semantic = #nv_tileaa.mem_semantic<weak>, padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>[i32, i32] -> tensor<64x128xf32>
      %r = "nv_tileaa.reduce"(%t) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<64x128xf32>) -> tensor<128xf32>
      %a2 = nv_tileaa.addf %a, %r : tensor<128xf32>
      scf.yield %a2 : tensor<128xf32>
    }
    nv_tileaa.return
  }
}
