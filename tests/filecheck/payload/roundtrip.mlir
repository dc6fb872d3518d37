// Custom and generic forms of the payload ops round-trip (upstream MLIR spellings).
// RUN: TILEORCH_ROUNDTRIP
// RUN: TILEORCH_CUSTOM_ROUNDTRIP

llvm.func @f(%t: !llvm.ptr, %d: !llvm.ptr<7>, %d3: !llvm.ptr<3>, %b: !llvm.ptr<3>, %x: i32, %m: i16, %h: i64, %p: i1, %a: i64, %c: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>, %r: i32) {
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %{{.*}} l2_cache_hint = %{{.*}} predicate = %{{.*}} : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x, %x] multicast_mask = %m l2_cache_hint = %h predicate = %p : !llvm.ptr<7>, !llvm.ptr
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}] cta_only = true : !llvm.ptr<3>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d3, %t, %b, box[%x] cta_only = true : !llvm.ptr<3>, !llvm.ptr
  // CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}] l2_cache_hint = %{{.*}} : !llvm.ptr, !llvm.ptr<3>
  nvvm.cp.async.bulk.tensor.global.shared.cta %t, %b, box[%x, %x, %x] l2_cache_hint = %h : !llvm.ptr, !llvm.ptr<3>
  // CHECK: nvvm.cp.async.bulk.tensor.reduce %{{.*}}, %{{.*}}, box[%{{.*}}], reduction = max : !llvm.ptr, !llvm.ptr<3>
  nvvm.cp.async.bulk.tensor.reduce %t, %b, box[%x], reduction = max : !llvm.ptr, !llvm.ptr<3>
  // CHECK: nvvm.cp.async.bulk.tensor.prefetch %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr
  nvvm.cp.async.bulk.tensor.prefetch %t, box[%x, %x] : !llvm.ptr
  // CHECK: nvvm.prefetch tensormap, %{{.*}} : !llvm.ptr
  nvvm.prefetch tensormap, %t : !llvm.ptr
  // CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 16, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <neg>, <row>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %e = nvvm.wgmma.mma_async %a, %a, %c, <m = 64, n = 16, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <neg>, <row>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  // CHECK: atom.wgmma_mma_async_reg_a %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {n = 16 : i64, typeAB = #nvvm.wgmma_type<bf16>, layoutB = #nvvm.mma_layout<row>} : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %ra = atom.wgmma_mma_async_reg_a %r, %r, %r, %r, %a, %c {n = 16 : i64, typeAB = #nvvm.wgmma_type<bf16>, layoutB = #nvvm.mma_layout<row>} : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  // CHECK: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}} layout = <col>, shape = <m = 8, n = 8>, element_type = <b16> : !llvm.ptr<3>, i32, i32
  nvvm.stmatrix %b, %r, %r layout = <col>, shape = <m = 8, n = 8>, element_type = <b16> : !llvm.ptr<3>, i32, i32
  // CHECK: nvvm.griddepcontrol launch_dependents
  nvvm.griddepcontrol launch_dependents
  llvm.return
}
