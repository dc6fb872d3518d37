// RUN: tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s

// A loop that folds a tile into its accumulator (here: adds a splat each iteration) and writes
// no memory is split over the CTAs of a cluster (cluster_split.py): the program id is the
// cluster's, rank r runs iterations lb + r * step, lb + (r + n) * step, ... (a first iteration that wraps past the
// largest value is ub: none; a step of 2^27 or more is not split, rank 0 runs it all); ranks other than
// 0 start from the fold's identity (0.0 for addf); after the loop each CTA writes its slots to
// shared memory between two cluster barriers rank 0 reads the other ranks' (mapa) and adds
// them; the store after the loop runs on rank 0 only.
// CHECK-LABEL: func.func @colsum
// CHECK-SAME: attributes {nvvm.kernel, tileorch.cluster_split = 8 : i32
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[NRANKS:.*]] = nvvm.read.ptx.sreg.cluster.nctarank : i32
// CHECK: %[[RANK0:.*]] = arith.cmpi eq, %[[RANK]], %{{.*}} : i32
// CHECK: nvvm.read.ptx.sreg.clusterid.x : i32
// CHECK: %[[INIT:.*]] = arith.select %[[RANK0]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[BIG:.*]] = arith.cmpi uge, %[[STEP:[0-9]+]], %{{.*}} : i32
// CHECK: %[[SKIP:.*]] = arith.muli %[[RANK]], %[[STEP]] : i32
// CHECK: %[[FIRST:.*]] = arith.addi %[[LB0:[0-9]+]], %[[SKIP]] : i32
// CHECK: %[[WRAP:.*]] = arith.cmpi slt, %[[FIRST]], %[[LB0]] : i32
// CHECK: %[[OTHER:.*]] = arith.cmpi ne, %[[RANK]], %{{.*}} : i32
// CHECK: %[[NOTR0:.*]] = arith.andi %[[BIG]], %[[OTHER]] : i1
// CHECK: %[[IDLE:.*]] = arith.ori %[[WRAP]], %[[NOTR0]] : i1
// CHECK: %[[LB:.*]] = arith.select %[[IDLE]], %[[UB:[0-9]+]], %[[FIRST]] : i32
// CHECK: %[[SPLITST:.*]] = arith.muli %[[STEP]], %[[NRANKS]] : i32
// CHECK: %[[ST:.*]] = arith.select %[[BIG]], %[[STEP]], %[[SPLITST]] : i32
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %[[LB]] to %[[UB]] step %[[ST]] iter_args(%{{.*}} = %[[INIT]]) -> (f32) : i32 {
// CHECK: nvvm.barrier
// CHECK: llvm.store %[[ACC]], %[[MINE:[0-9]+]] : f32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.cluster.arrive aligned
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK: %[[SUM:.*]] = scf.if %[[RANK0]] -> (f32) {
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[NRANKS]] step %{{.*}} iter_args(%[[PART:.*]] = %[[ACC]]) -> (f32) : i32 {
// CHECK: %[[REMOTE:.*]] = nvvm.mapa %{{.*}}, %[[R]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: %[[GEN:.*]] = llvm.addrspacecast %[[REMOTE]] : !llvm.ptr<7> to !llvm.ptr
// CHECK: %[[X:.*]] = llvm.load %[[GEN]] : !llvm.ptr -> f32
// CHECK: arith.addf %[[PART]], %[[X]] : f32
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[ACC]] : f32
// CHECK: nvvm.cluster.arrive aligned
// CHECK-NEXT: nvvm.cluster.wait aligned
// CHECK-NEXT: scf.if %[[RANK0]] {
// CHECK: llvm.store %[[SUM]]
// CHECK: func.return
builtin.module {
  nv_tileaa.func @colsum(%y: !nv_tileaa.ptr<f32>, %f: f32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<128xf32>) : i32 {
      %t = nv_tileaa.splat %f : f32 -> tensor<128xf32>
      %a2 = nv_tileaa.addf %a, %t : tensor<128xf32>
      scf.yield %a2 : tensor<128xf32>
    }
    %s = nv_tileaa.tiled_store %acc, %vy[%b] : tensor<128xf32>, !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}

// -----

// A loop that stores inside, or whose carried value is not folded by one op (here it is also
// multiplied), is lowered as written: no cluster.
// CHECK-LABEL: func.func @not_a_fold
// CHECK-NOT: tileorch.cluster_split
// CHECK-NOT: cluster.ctarank
// CHECK: nvvm.read.ptx.sreg.ctaid.x
builtin.module {
  nv_tileaa.func @not_a_fold(%y: !nv_tileaa.ptr<f32>, %f: f32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<128xf32>) : i32 {
      %t = nv_tileaa.splat %f : f32 -> tensor<128xf32>
      %a2 = nv_tileaa.addf %a, %t : tensor<128xf32>
      %a3 = nv_tileaa.mulf %a2, %a : tensor<128xf32>
      scf.yield %a3 : tensor<128xf32>
    }
    %s = nv_tileaa.tiled_store %acc, %vy[%b] : tensor<128xf32>, !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}

// -----

// A fold rounded toward -inf (ct.add(..., rounding_mode=RM)) is not split: the cluster's partial
// sums would change the order of the roundings the program wrote (review, session 32).
// CHECK-LABEL: func.func @directed_fold
// CHECK-NOT: tileorch.cluster_split
// CHECK-NOT: cluster.ctarank
// CHECK: nvvm.read.ptx.sreg.ctaid.x
builtin.module {
  nv_tileaa.func @directed_fold(%y: !nv_tileaa.ptr<f32>, %f: f32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %z = arith.constant dense<0.0> : tensor<128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<128xf32>) : i32 {
      %t = nv_tileaa.splat %f : f32 -> tensor<128xf32>
      %a2 = nv_tileaa.addf %a, %t {rounding = "rm"} : tensor<128xf32>
      scf.yield %a2 : tensor<128xf32>
    }
    %s = nv_tileaa.tiled_store %acc, %vy[%b] : tensor<128xf32>, !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}
