// RUN: sed -e "s/ROWS_EXTENT/%m/;s/START/%col0/g" %s | tileorch-opt -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: sed -e "s/ROWS_EXTENT/%n/;s/START/%col0/g;s/WHY/a slice along rows (axis 0) or a view of another shape/" %s | tileorch-opt -p tileas-tier,convert-nv-tileas-to-cutlass --verify-diagnostics
// RUN: sed -e "s/ROWS_EXTENT/%m/;s/START/%%pn/g;s/WHY/a column slice whose start or width is computed from values the launcher does not know/" %s | tileorch-opt -p tileas-tier,convert-nv-tileas-to-cutlass --verify-diagnostics
// C stored into a column slice of a wider array (Out.slice(axis=1, start=%col0, stop=%col0 + %n)): its
// base pointer is Out's offset by %col0 elements, its rows Out's own (extent %m, row stride %ldo), its
// width %col0 + %n - %col0 (a cuTile entry's parameters: Out's pointer, extents, strides in a row).  The GEMM tier records the slice (c_view: start = entry parameter 9, width =
// entry parameter 4) and builds the kernel that stores rows ldc apart (c_ld: the builder's ldc parameter
// after params; the fragment store's leading dimension).  A view whose rows are not Out's own (a slice
// along axis 0, here its extent swapped for another parameter) stays refused at the store, and so does a
// slice starting at a column computed from the program id (the launcher cannot evaluate it).
// CHECK: func.func @gemm_f16_f32_bn_128x128x64{{.*}}_ld(%tmap_a{{.*}}, %params{{.*}}, %ldc: i32)
// CHECK-SAME: tileorch.gemm_config = {{{.*}}c_ld = true{{.*}}c_view = {arg = 2 : i64, extent = {{\[\["const", 0 : i64\], \["arg", 7 : i64, 1 : i64\]\]}}, start = {{\[\["const", 0 : i64\], \["arg", 9 : i64, 1 : i64\]\]}}}
// CHECK: atom.store_fragment {{.*}}, %m, %n, %ldc
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!o = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !o>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @slice_gemm(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f32>, %m: i32, %no: i32, %ldo: i32, %one: i32, %n: i32, %k: i32, %col0: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%k, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vb
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%pm, %i] : !va [i32, i32] -> tensor<128x64xf16>
      %tb, %t1 = nv_tileaa.tiled_load %vb[%i, %pn] : !vb [i32, i32] -> tensor<64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %stop = nv_tileaa.addi START, %n : i32
    %first = nv_tileaa.muli START, %c1 : i32
    %first64 = arith.extsi %first : i32 to i64
    %base = nv_tileaa.offset %c, %first64 : !nv_tileaa.ptr<f32>, i64 -> !nv_tileaa.ptr<f32>
    %width = nv_tileaa.subi %stop, START : i32
    %mc = nv_tileaa.make_memref %base[ROWS_EXTENT, %width] [%ldo] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !o
    %vc = nv_tileaa.block_tile %mc : !o -> !vc
    // expected-error@+1 {{C's view: it is WHY}}
    %t2 = nv_tileaa.tiled_store %acc, %vc[%pm, %pn] : tensor<128x128xf32>, !vc [i32, i32]
    nv_tileaa.return
  }
}
