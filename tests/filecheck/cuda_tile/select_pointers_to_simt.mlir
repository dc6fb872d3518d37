// REQUIRES: ptxas
// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa | filecheck %s --check-prefix=AA
// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa,tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=SIMT
// RUN: tileorch compile %s -o %t.ptx
// RUN: filecheck %s --check-prefix=PTX < %t.ptx

// `select` (cuTile's `ct.where`) of two pointer tiles, chosen per element by a loaded value (issue 21's
// op audit, session 20): a select of pointers per slot, then a scalar load through each chosen pointer
// (the select's result has no known contiguity, so no vector access), stored through a contiguous
// pointer tile (vector store under its alignment test).

// AA: nv_tileaa.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<64xi1>, tensor<64x!nv_tileaa.ptr<f32>>
// SIMT: arith.select %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<1>
// SIMT: arith.select %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<1>
// PTX: setp.gt.f32
// PTX: selp.b64 [[P0:%rd[0-9]+]], %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p{{[0-9]+}};
// PTX: selp.b64 [[P1:%rd[0-9]+]], %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p{{[0-9]+}};
// PTX: ld.global.b32 %r{{[0-9]+}}, [[[P0]]];
// PTX: ld.global.b32 %r{{[0-9]+}}, [[[P1]]+4];
// PTX: st.global.v2.b32
cuda_tile.module @m {
  entry @select_ptrs(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %out: tile<ptr<f32>>) {
    %tok = make_token : token
    %idx = iota : tile<64xi32>
    %a1 = reshape %a : tile<ptr<f32>> -> tile<1xptr<f32>>
    %b1 = reshape %b : tile<ptr<f32>> -> tile<1xptr<f32>>
    %c1 = reshape %c : tile<ptr<f32>> -> tile<1xptr<f32>>
    %o1 = reshape %out : tile<ptr<f32>> -> tile<1xptr<f32>>
    %as = broadcast %a1 : tile<1xptr<f32>> -> tile<64xptr<f32>>
    %bs = broadcast %b1 : tile<1xptr<f32>> -> tile<64xptr<f32>>
    %cs = broadcast %c1 : tile<1xptr<f32>> -> tile<64xptr<f32>>
    %os = broadcast %o1 : tile<1xptr<f32>> -> tile<64xptr<f32>>
    %pa = offset %as, %idx : tile<64xptr<f32>>, tile<64xi32> -> tile<64xptr<f32>>
    %pb = offset %bs, %idx : tile<64xptr<f32>>, tile<64xi32> -> tile<64xptr<f32>>
    %pc = offset %cs, %idx : tile<64xptr<f32>>, tile<64xi32> -> tile<64xptr<f32>>
    %po = offset %os, %idx : tile<64xptr<f32>>, tile<64xi32> -> tile<64xptr<f32>>
    %w, %t0 = load_ptr_tko weak %pc token=%tok : tile<64xptr<f32>> -> tile<64xf32>, token
    %zero = constant <f32: 0.0> : tile<64xf32>
    %pos = cmpf greater_than ordered %w, %zero : tile<64xf32> -> tile<64xi1>
    %p = select %pos, %pa, %pb : tile<64xi1>, tile<64xptr<f32>>
    %v, %t1 = load_ptr_tko weak %p token=%t0 : tile<64xptr<f32>> -> tile<64xf32>, token
    %t2 = store_ptr_tko weak %po, %v token=%t1 : tile<64xptr<f32>>, tile<64xf32> -> token
    return
  }
}
