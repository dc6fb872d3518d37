// REQUIRES: ptxas
// RUN: env TILEORCH_ATOMIC_FENCES=holders tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx > %t.ptx
// RUN: filecheck %s --check-prefix=HOLD < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: env TILEORCH_ATOMIC_FENCES=each tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=EACH

// Ordered (acq_rel) atomics of a tile on the SIMT path (TILEORCH_ATOMIC_FENCES).  A one-element
// tile's atomic (a cross entropy's loss sum and count) is done by the thread holding the element.
// Under holders the CTA passes a barrier (the stores of every thread precede the release), the release
// fence, the atomic and the acquire fence are each under that thread's test (the other warps pass
// no fence: on sm_90 each fence is a MEMBAR.GPU and the acquire a CCTL.IVALL of the SM's L1), and
// a barrier after (the CTA's later accesses follow the acquire) unless no access follows but
// atomics of the same one-element shape (the kernel's final atomics, held by the same thread:
// the other warps end after the first barrier, no barrier between them).  Under each (the old form) every
// thread fences, no barrier.  A 256-element tile's atomic (every thread holds elements): fences
// in every thread, after the barrier.

// HOLD-LABEL: .entry sum_count(
// HOLD: st.global
// HOLD: setp.ne.b32 [[NOT0:%p[0-9]+]], %r{{[0-9]+}}, 0;
// HOLD-NEXT: bar.sync 0;
// HOLD-NEXT: @[[NOT0]] bra [[A:\$L__BB[0-9_]+]];
// HOLD-NEXT: fence.release.gpu;
// HOLD-NEXT: [[A]]:
// HOLD-NEXT: @[[NOT0]] bra [[B:\$L__BB[0-9_]+]];
// HOLD-NOT: {{fence|bar.sync}}
// HOLD: atom.global.add.f32
// HOLD-NEXT: [[B]]:
// HOLD-NEXT: @[[NOT0]] bra [[C:\$L__BB[0-9_]+]];
// HOLD-NEXT: fence.acquire.gpu;
// HOLD-NEXT: [[C]]:
// HOLD-NEXT: @[[NOT0]] bra
// HOLD-NEXT: fence.release.gpu;
// HOLD-NOT: {{fence|bar.sync}}
// HOLD: atom.global.add.u32
// HOLD: fence.acquire.gpu;
// HOLD-NEXT: $L__BB
// HOLD-NEXT: ret;

// EACH-LABEL: .entry sum_count(
// EACH-NOT: bar.sync
// EACH: fence.release.gpu;
// EACH-NEXT: @%p{{[0-9]+}} bra
// EACH: atom.global.add.f32
// EACH-NOT: bar.sync
// EACH: ret;
builtin.module {
  nv_tileaa.func @sum_count(%x: !nv_tileaa.ptr<f32>, %sum: !nv_tileaa.ptr<f32>, %cnt: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %r = nv_tileaa.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
    %x1 = nv_tileaa.splat %x : !nv_tileaa.ptr<f32> -> tensor<256x!nv_tileaa.ptr<f32>>
    %px = nv_tileaa.offset %x1, %r : tensor<256x!nv_tileaa.ptr<f32>>, tensor<256xi32> -> tensor<256x!nv_tileaa.ptr<f32>>
    %w = arith.constant dense<0.5> : tensor<256xf32>
    %t0 = nv_tileaa.store %w, %px : tensor<256xf32>, tensor<256x!nv_tileaa.ptr<f32>>
    %z = arith.constant dense<0> : tensor<1xi32>
    %s1 = nv_tileaa.splat %sum : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %ps = nv_tileaa.offset %s1, %z : tensor<1x!nv_tileaa.ptr<f32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %v = arith.constant dense<1.5> : tensor<1xf32>
    %o, %t1 = nv_tileaa.atomic_rmw %ps, %v {rmw_mode = #nv_tileaa.rmw_mode<addf>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<f32>>, tensor<1xf32> -> tensor<1xf32>
    %c1 = nv_tileaa.splat %cnt : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %pc = nv_tileaa.offset %c1, %z : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %one = arith.constant dense<1> : tensor<1xi32>
    %o2, %t2 = nv_tileaa.atomic_rmw %pc, %one {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1xi32>
    nv_tileaa.return
  }

  // HOLD-LABEL: .entry spread(
  // HOLD: bar.sync 0;
  // HOLD-NEXT: fence.release.gpu;
  // HOLD-NEXT: atom.global.add.u32
  // HOLD-NEXT: atom.global.add.u32
  // HOLD-NEXT: fence.acquire.gpu;
  // HOLD-NEXT: ret;
  // EACH-LABEL: .entry spread(
  // EACH-NOT: bar.sync
  // EACH: fence.release.gpu;
  // EACH-NEXT: atom.global.add.u32
  nv_tileaa.func @spread(%bins: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %r = nv_tileaa.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
    %b1 = nv_tileaa.splat %bins : !nv_tileaa.ptr<i32> -> tensor<256x!nv_tileaa.ptr<i32>>
    %pb = nv_tileaa.offset %b1, %r : tensor<256x!nv_tileaa.ptr<i32>>, tensor<256xi32> -> tensor<256x!nv_tileaa.ptr<i32>>
    %ones = arith.constant dense<1> : tensor<256xi32>
    %o, %t = nv_tileaa.atomic_rmw %pb, %ones {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<256x!nv_tileaa.ptr<i32>>, tensor<256xi32> -> tensor<256xi32>
    nv_tileaa.return
  }

  // An ordered atomic followed by a load: the barrier after the acquire stays (the other threads'
  // load follows it).
  // HOLD-LABEL: .entry then_load(
  // HOLD: bar.sync 0;
  // HOLD: fence.release.gpu;
  // HOLD: atom.global.add.u32
  // HOLD: fence.acquire.gpu;
  // HOLD: bar.sync 0;
  // HOLD: ld.global
  // HOLD: ret;
  nv_tileaa.func @then_load(%cnt: !nv_tileaa.ptr<i32>, %x: !nv_tileaa.ptr<i32>, %y: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %z = arith.constant dense<0> : tensor<1xi32>
    %c1 = nv_tileaa.splat %cnt : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %pc = nv_tileaa.offset %c1, %z : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %one = arith.constant dense<1> : tensor<1xi32>
    %o, %t = nv_tileaa.atomic_rmw %pc, %one {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1xi32>
    %r = nv_tileaa.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
    %x1 = nv_tileaa.splat %x : !nv_tileaa.ptr<i32> -> tensor<256x!nv_tileaa.ptr<i32>>
    %px = nv_tileaa.offset %x1, %r : tensor<256x!nv_tileaa.ptr<i32>>, tensor<256xi32> -> tensor<256x!nv_tileaa.ptr<i32>>
    %v, %t1 = nv_tileaa.load %px : tensor<256x!nv_tileaa.ptr<i32>> -> tensor<256xi32>
    %y1 = nv_tileaa.splat %y : !nv_tileaa.ptr<i32> -> tensor<256x!nv_tileaa.ptr<i32>>
    %py = nv_tileaa.offset %y1, %r : tensor<256x!nv_tileaa.ptr<i32>>, tensor<256xi32> -> tensor<256x!nv_tileaa.ptr<i32>>
    %t2 = nv_tileaa.store %v, %py : tensor<256xi32>, tensor<256x!nv_tileaa.ptr<i32>>
    nv_tileaa.return
  }
}
