// REQUIRES: ptxas
// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A bf16 tile atomic add (cuTile's ct.atomic_add on a bf16 array): the f32-held value rounded to
// bf16 and added by atom.global.add.noftz.bf16 under each element's mask (relaxed, no fences),
// the old value widened back (bits << 16).  Before sweep 10: "atomic_rmw on bf16 elements" was
// refused.  bf16_atomic_errors.mlir: the other bf16 atomics, and sm_80.

// CHECK: .entry bf16_add(
// CHECK: cvt.rn.bf16.f32
// CHECK: atom.global.add.noftz.bf16
// CHECK-NOT: fence
// CHECK: ret;
builtin.module {
  nv_tileaa.func @bf16_add(%x: !nv_tileaa.ptr<i32>, %fb: !nv_tileaa.ptr<bf16>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %r = nv_tileaa.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
    %x1 = nv_tileaa.splat %x : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %xb = nv_tileaa.broadcast %x1 : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<256x!nv_tileaa.ptr<i32>>
    %px = nv_tileaa.offset %xb, %r : tensor<256x!nv_tileaa.ptr<i32>>, tensor<256xi32> -> tensor<256x!nv_tileaa.ptr<i32>>
    %v, %t = nv_tileaa.load %px : tensor<256x!nv_tileaa.ptr<i32>> -> tensor<256xi32>
    %zero = arith.constant dense<0> : tensor<256xi32>
    %m = nv_tileaa.cmpi "sge", %v, %zero : tensor<256xi32> -> tensor<256xi1>
    %f1 = nv_tileaa.splat %fb : !nv_tileaa.ptr<bf16> -> tensor<1x!nv_tileaa.ptr<bf16>>
    %fbb = nv_tileaa.broadcast %f1 : tensor<1x!nv_tileaa.ptr<bf16>> -> tensor<256x!nv_tileaa.ptr<bf16>>
    %pf = nv_tileaa.offset %fbb, %v : tensor<256x!nv_tileaa.ptr<bf16>>, tensor<256xi32> -> tensor<256x!nv_tileaa.ptr<bf16>>
    %w = arith.constant dense<0.5> : tensor<256xbf16>
    %fo, %t3 = nv_tileaa.atomic_rmw %pf, %w mask %m : tensor<256xi1> {rmw_mode = #nv_tileaa.rmw_mode<addf>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<256x!nv_tileaa.ptr<bf16>>, tensor<256xbf16> -> tensor<256xbf16>
    nv_tileaa.return
  }
}
