// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa | filecheck %s

// Pointer tiles (cuTile's gather/scatter/atomics) lower to the tile tier's pointer ops: tile<ptr>
// becomes a tensor of !nv_tileaa.ptr, a rank-0 one a scalar pointer; orderings and scopes
// (device -> gpu, tl_blk -> cta) are kept, a weak access carries none.

// CHECK: nv_tileaa.func @ptrs(%[[P:[0-9]+]]: !nv_tileaa.ptr<i32>, %[[Q:[0-9]+]]: !nv_tileaa.ptr<f32>)
cuda_tile.module @m {
  entry @ptrs(%p: tile<ptr<i32>>, %q: tile<ptr<f32>>) {
    %tok = make_token : token
    %idx = iota : tile<64xi32>
    %wide = exti %idx signed : tile<64xi32> -> tile<64xi64>
    %p1 = reshape %p : tile<ptr<i32>> -> tile<1xptr<i32>>
    // CHECK: %[[PS:.*]] = nv_tileaa.broadcast %{{.*}} : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
    %ps = broadcast %p1 : tile<1xptr<i32>> -> tile<64xptr<i32>>
    // CHECK: %[[PT:.*]] = nv_tileaa.offset %[[PS]], %{{.*}} : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
    %pt = offset %ps, %wide : tile<64xptr<i32>>, tile<64xi64> -> tile<64xptr<i32>>
    %m = constant <i1: true> : tile<64xi1>
    %z = constant <i32: 7> : tile<64xi32>
    // CHECK: %[[V:.*]], %{{.*}} = nv_tileaa.load %[[PT]] mask %{{.*}} : tensor<64xi1> other %{{.*}} : tensor<64xi32> token %{{.*}} : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
    %v, %t1 = load_ptr_tko weak %pt, %m, %z token=%tok : tile<64xptr<i32>>, tile<64xi1>, tile<64xi32> -> tile<64xi32>, token
    // CHECK: nv_tileaa.store %[[V]], %[[PT]] token %{{.*}} {mem_semantic = #nv_tileaa.mem_semantic<release>, mem_scope = #nv_tileaa.mem_scope<cta>} : tensor<64xi32>, tensor<64x!nv_tileaa.ptr<i32>>
    %t2 = store_ptr_tko release tl_blk %pt, %v token=%t1 : tile<64xptr<i32>>, tile<64xi32> -> token
    // CHECK: nv_tileaa.atomic_rmw %[[PT]], %[[V]] {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi32> -> tensor<64xi32>
    %old, %t3 = atomic_rmw_tko acq_rel device %pt, add, %v : tile<64xptr<i32>>, tile<64xi32> -> tile<64xi32>, token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    // CHECK: nv_tileaa.atomic_cas %[[P]], %{{.*}}, %{{.*}} {mem_semantic = #nv_tileaa.mem_semantic<acquire>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<i32>, i32, i32 -> i32
    %was, %t4 = atomic_cas_tko acquire device %p, %c0, %c1 : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %f = constant <f32: 1.0> : tile<f32>
    // CHECK: nv_tileaa.atomic_rmw %[[Q]], %{{.*}} {rmw_mode = #nv_tileaa.rmw_mode<addf>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<sys>} : !nv_tileaa.ptr<f32>, f32 -> f32
    %fo, %t5 = atomic_rmw_tko relaxed sys %q, addf, %f : tile<ptr<f32>>, tile<f32> -> tile<f32>, token
    return
  }
}
