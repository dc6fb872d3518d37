// RUN: tileorch-opt %s --split-input-file -p tileaa-hoist-loop-reductions | filecheck %s

// A column sum folding the sum of each loaded tile into its accumulator folds the tiles into a
// tile-shaped accumulator (starting at the reduction's identity) and reduces once after the
// loop; the old accumulator is carried unchanged and gets the reduction added after the loop.
// CHECK-LABEL: nv_tileaa.func @colsum
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128xf32>
// CHECK: %[[ID:.*]] = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
// CHECK: %[[R0:.*]], %[[R1:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[Z]], %[[T:.*]] = %[[ID]]) -> (tensor<128xf32>, tensor<64x128xf32>) : i32 {
// CHECK: %[[X:.*]], %{{.*}} = nv_tileaa.tiled_load
// CHECK-NOT: nv_tileaa.reduce
// CHECK: %[[T2:.*]] = nv_tileaa.addf %[[T]], %[[X]] : tensor<64x128xf32>
// CHECK-NEXT: scf.yield %[[A]], %[[T2]] : tensor<128xf32>, tensor<64x128xf32>
// CHECK: %[[S:.*]] = "nv_tileaa.reduce"(%[[R1]]) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}>
// CHECK: nv_tileaa.addf %[[R0]], %[[S]] : tensor<128xf32>
builtin.module {
  nv_tileaa.func @colsum(%x: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %s: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 16>} {
    %mx = nv_tileaa.make_memref %x[%m, %n] [%s] : !nv_tileaa.ptr<f32>[i32, i32] [i32] -> !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %v = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %m step %c1 iter_args(%a = %z) -> (tensor<128xf32>) : i32 {
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

// -----

// A fold that differs from the reduction's combiner (a max of sums), or a reduction used twice,
// stays as written.
// CHECK-LABEL: nv_tileaa.func @max_of_sums
// CHECK: scf.for
// CHECK: "nv_tileaa.reduce"
// CHECK: nv_tileaa.maxf
builtin.module {
  nv_tileaa.func @max_of_sums(%f: f32, %m: i32) {
    %z = arith.constant dense<0.0> : tensor<128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %m step %c1 iter_args(%a = %z) -> (tensor<128xf32>) : i32 {
      %t = nv_tileaa.splat %f : f32 -> tensor<64x128xf32>
      %r = "nv_tileaa.reduce"(%t) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<64x128xf32>) -> tensor<128xf32>
      %a2 = nv_tileaa.maxf %a, %r : tensor<128xf32>
      scf.yield %a2 : tensor<128xf32>
    }
    nv_tileaa.return
  }
}

// -----

// keepdims=True: the reduction reaches the fold through expand_dims (and a reshape): the tiles are
// folded in the loop and the chain is applied to the one reduction after it.
// CHECK-LABEL: nv_tileaa.func @row_max_keepdims
// CHECK: %[[ID:.*]] = arith.constant dense<0x{{[fF]}}{{[fF]}}800000> : tensor<1x128xf32>
// CHECK: %[[R0:.*]], %[[R1:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[T:.*]] = %[[ID]]) -> (tensor<1x1xf32>, tensor<1x128xf32>) : i32 {
// CHECK-NOT: nv_tileaa.reduce
// CHECK-NOT: nv_tileaa.expand_dims
// CHECK: %[[T2:.*]] = nv_tileaa.maxf %[[T]], %{{.*}} : tensor<1x128xf32>
// CHECK-NEXT: scf.yield %[[A]], %[[T2]] : tensor<1x1xf32>, tensor<1x128xf32>
// CHECK: %[[S:.*]] = "nv_tileaa.reduce"(%[[R1]]) <{dim = 1 : i32, identities = [0x{{[fF]}}{{[fF]}}800000 : f32]}>
// CHECK: %[[E:.*]] = nv_tileaa.expand_dims %[[S]] {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
// CHECK: nv_tileaa.maxf %[[R0]], %[[E]] : tensor<1x1xf32>
// CHECK-LABEL: nv_tileaa.func @row_sum_reshaped
// CHECK: scf.for {{.*}} -> (tensor<1x1xf32>, tensor<1x128xf32>) : i32 {
// CHECK-NOT: nv_tileaa.reduce
// CHECK: scf.yield
// CHECK: %[[S2:.*]] = "nv_tileaa.reduce"
// CHECK: %[[E2:.*]] = nv_tileaa.reshape %[[S2]] : tensor<1xf32> -> tensor<1x1xf32>
// CHECK: nv_tileaa.addf %{{.*}}, %[[E2]] : tensor<1x1xf32>
builtin.module {
  nv_tileaa.func @row_max_keepdims(%f: f32, %m: i32) {
    %z = arith.constant dense<-3.0e+38> : tensor<1x1xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %m step %c1 iter_args(%a = %z) -> (tensor<1x1xf32>) : i32 {
      %t = nv_tileaa.splat %f : f32 -> tensor<1x128xf32>
      %r = "nv_tileaa.reduce"(%t) <{dim = 1 : i32, identities = [0xFF800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.maxf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x128xf32>) -> tensor<1xf32>
      %e = nv_tileaa.expand_dims %r {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %a2 = nv_tileaa.maxf %a, %e : tensor<1x1xf32>
      scf.yield %a2 : tensor<1x1xf32>
    }
    nv_tileaa.return
  }
  nv_tileaa.func @row_sum_reshaped(%f: f32, %m: i32) {
    %z = arith.constant dense<0.0> : tensor<1x1xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %m step %c1 iter_args(%a = %z) -> (tensor<1x1xf32>) : i32 {
      %t = nv_tileaa.splat %f : f32 -> tensor<1x128xf32>
      %r = "nv_tileaa.reduce"(%t) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x128xf32>) -> tensor<1xf32>
      %e = nv_tileaa.reshape %r : tensor<1xf32> -> tensor<1x1xf32>
      %a2 = nv_tileaa.addf %a, %e : tensor<1x1xf32>
      scf.yield %a2 : tensor<1x1xf32>
    }
    nv_tileaa.return
  }
}

// -----

// A reshaped reduction whose reshape is used twice stays as written (the reshape is needed per tile).
// CHECK-LABEL: nv_tileaa.func @keepdims_used_twice
// CHECK: scf.for
// CHECK: "nv_tileaa.reduce"
// CHECK: nv_tileaa.expand_dims
// CHECK: nv_tileaa.maxf
builtin.module {
  nv_tileaa.func @keepdims_used_twice(%f: f32, %m: i32) {
    %z = arith.constant dense<-3.0e+38> : tensor<1x1xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc:2 = scf.for %i = %c0 to %m step %c1 iter_args(%a = %z, %b = %z) -> (tensor<1x1xf32>, tensor<1x1xf32>) : i32 {
      %t = nv_tileaa.splat %f : f32 -> tensor<1x128xf32>
      %r = "nv_tileaa.reduce"(%t) <{dim = 1 : i32, identities = [0xFF800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.maxf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x128xf32>) -> tensor<1xf32>
      %e = nv_tileaa.expand_dims %r {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %a2 = nv_tileaa.maxf %a, %e : tensor<1x1xf32>
      scf.yield %a2, %e : tensor<1x1xf32>, tensor<1x1xf32>
    }
    nv_tileaa.return
  }
}
