// REQUIRES: ptxas
// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=SIMT
// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Pointer tiles on the SIMT path: a spin lock taken with an acquire compare-and-swap by thread 0
// (a scalar atomic: between barriers, its old value broadcast through shared memory), a counter
// read and written under it, the lock released with a release exchange, and a histogram-like
// tile atomic add (each thread its own elements, predicated on the mask), a gather with a padding
// value where the mask is off.

// SIMT: func.func @lock
// SIMT: scf.while
// SIMT: nvvm.barrier
// SIMT: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// SIMT: scf.if
// SIMT: llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("device") acquire acquire : !llvm.ptr<1>, i32
// SIMT: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// SIMT: nvvm.barrier
// SIMT: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// SIMT: scf.condition
// SIMT: llvm.fence syncscope("device") release
// SIMT: llvm.atomicrmw xchg %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32

// CHECK: .entry lock(
// CHECK: atom.acquire.gpu.global.cas.b32
// CHECK: ld.global.b32
// CHECK: st.global.b32
// CHECK: fence.release.gpu;
// CHECK: atom.global.exch.b32
builtin.module {
  nv_tileaa.func @lock(%locks: !nv_tileaa.ptr<i32>, %counts: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %bid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pl = nv_tileaa.offset %locks, %bid : !nv_tileaa.ptr<i32>, i32 -> !nv_tileaa.ptr<i32>
    %pc = nv_tileaa.offset %counts, %bid : !nv_tileaa.ptr<i32>, i32 -> !nv_tileaa.ptr<i32>
    %n = scf.while (%i = %c0) : (i32) -> i32 {
      %was, %t = nv_tileaa.atomic_cas %pl, %c0, %c1 {mem_semantic = #nv_tileaa.mem_semantic<acquire>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<i32>, i32, i32 -> i32
      %held = arith.cmpi eq, %was, %c1 : i32
      scf.condition(%held) %i : i32
    } do {
    ^bb0(%j: i32):
      %k = arith.addi %j, %c1 : i32
      scf.yield %k : i32
    }
    %v, %t1 = nv_tileaa.load %pc : !nv_tileaa.ptr<i32> -> i32
    %v1 = arith.addi %v, %c1 : i32
    %t2 = nv_tileaa.store %v1, %pc : i32, !nv_tileaa.ptr<i32>
    %o, %t3 = nv_tileaa.atomic_rmw %pl, %c0 {rmw_mode = #nv_tileaa.rmw_mode<xchg>, mem_semantic = #nv_tileaa.mem_semantic<release>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<i32>, i32 -> i32
    nv_tileaa.return
  }

  // SIMT: func.func @hist
  // SIMT: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
  // SIMT: scf.if
  // SIMT: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("block") monotonic : !llvm.ptr<1>, i32

  // CHECK: .entry hist(
  // CHECK: ld.global.b32
  // CHECK: atom.global.add.u32
  // CHECK: atom.global.add.f32
  // CHECK-NOT: fence
  // CHECK: ret;
  nv_tileaa.func @hist(%x: !nv_tileaa.ptr<i32>, %bins: !nv_tileaa.ptr<i32>, %fb: !nv_tileaa.ptr<f32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %r = nv_tileaa.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
    %x1 = nv_tileaa.splat %x : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %xs = nv_tileaa.reshape %x1 : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<1x!nv_tileaa.ptr<i32>>
    %xb = nv_tileaa.broadcast %xs : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<256x!nv_tileaa.ptr<i32>>
    %px = nv_tileaa.offset %xb, %r : tensor<256x!nv_tileaa.ptr<i32>>, tensor<256xi32> -> tensor<256x!nv_tileaa.ptr<i32>>
    %zero = arith.constant dense<0> : tensor<256xi32>
    %m = nv_tileaa.cmpi "sge", %r, %zero : tensor<256xi32> -> tensor<256xi1>
    %pad = arith.constant dense<0> : tensor<256xi32>
    %v, %t = nv_tileaa.load %px mask %m : tensor<256xi1> other %pad : tensor<256xi32> : tensor<256x!nv_tileaa.ptr<i32>> -> tensor<256xi32>
    %b1 = nv_tileaa.splat %bins : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %bb = nv_tileaa.broadcast %b1 : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<256x!nv_tileaa.ptr<i32>>
    %pb = nv_tileaa.offset %bb, %v : tensor<256x!nv_tileaa.ptr<i32>>, tensor<256xi32> -> tensor<256x!nv_tileaa.ptr<i32>>
    %ones = arith.constant dense<1> : tensor<256xi32>
    %o, %t2 = nv_tileaa.atomic_rmw %pb, %ones mask %m : tensor<256xi1> {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<cta>} : tensor<256x!nv_tileaa.ptr<i32>>, tensor<256xi32> -> tensor<256xi32>
    %f1 = nv_tileaa.splat %fb : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %fbb = nv_tileaa.broadcast %f1 : tensor<1x!nv_tileaa.ptr<f32>> -> tensor<256x!nv_tileaa.ptr<f32>>
    %pf = nv_tileaa.offset %fbb, %v : tensor<256x!nv_tileaa.ptr<f32>>, tensor<256xi32> -> tensor<256x!nv_tileaa.ptr<f32>>
    %w = arith.constant dense<0.5> : tensor<256xf32>
    %fo, %t3 = nv_tileaa.atomic_rmw %pf, %w {rmw_mode = #nv_tileaa.rmw_mode<addf>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<256x!nv_tileaa.ptr<f32>>, tensor<256xf32> -> tensor<256xf32>
    nv_tileaa.return
  }
}
