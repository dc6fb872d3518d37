// RUN: env TILEORCH_COMBINE_ATOMICS=auto tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s
// RUN: env TILEORCH_COMBINE_ATOMICS=exact tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=EXACT
// RUN: env -u TILEORCH_COMBINE_ATOMICS tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s
// RUN: env TILEORCH_COMBINE_ATOMICS=0 tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s --check-prefix=OFF
// RUN: env TILEORCH_COMBINE_ATOMICS=auto tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx > %t.ptx
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Several program instances per CTA, their final atomics combined (tileaa_to_simt/combined_atomics.py).  A row
// program stores its row's sum at its program id, then adds the sum into one f32 (acq_rel addf) and its program id
// into one i32 (acq_rel max): both addresses are the same for every instance.  The kernel takes two more i32
// parameters (the programs along x, R); CTA c of G runs instances c + k*G, k < R, those below the programs (the
// CTAs sweep the rows together); the instance's ops see that id; the values are folded in loop-carried registers from the operations' identities
// (-0.0 for the add, INT_MIN for the max); the atomics, with their fences, follow the loop, once per CTA.  ptxas is
// asked for 16 resident CTAs of 128 threads (the instance loop's registers would cut them; the launch's one wave
// counts them).
// CHECK-LABEL: func.func @row_sums
// CHECK-SAME: %[[PROGS:[0-9a-z_]+]]: i32, %[[R:[0-9a-z_]+]]: i32)
// CHECK-SAME: tileorch.combined_atomics = 2 : i32, tileorch.reassociated_atomics = 1 : i32
// CHECK-SAME: nvvm.minctasm = 16 : i32
// CHECK-SAME: tileorch.combined_min_ctas = 16 : i32
// CHECK-DAG: %[[NEG0:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-DAG: %[[IMIN:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[CTA:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: %[[NCTA:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK: %[[SUM:.*]], %[[MAX:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[R]] step %{{.*}} iter_args(%[[ACCF:.*]] = %[[NEG0]], %[[ACCI:.*]] = %[[IMIN]]) -> (f32, i32)
// CHECK: %[[STRIDE:.*]] = arith.muli %[[K]], %[[NCTA]] : i32
// CHECK: %[[ID:.*]] = arith.addi %[[CTA]], %[[STRIDE]] : i32
// CHECK: %[[LIVE:.*]] = arith.cmpi ult, %[[ID]], %[[PROGS]] : i32
// CHECK: scf.if %[[LIVE]] -> (f32, i32)
// CHECK-NOT: nvvm.read.ptx.sreg.ctaid
// CHECK-NOT: llvm.atomicrmw
// CHECK: arith.muli %[[ID]]
// CHECK-NOT: llvm.atomicrmw
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<1>
// CHECK: nvvm.barrier
// CHECK-NEXT: %[[F:.*]] = arith.addf %[[ACCF]], %{{.*}} : f32
// CHECK-NEXT: %[[I:.*]] = arith.maxsi %[[ACCI]], %[[ID]] : i32
// CHECK-NEXT: scf.yield %[[F]], %[[I]] : f32, i32
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[ACCF]], %[[ACCI]] : f32, i32
// CHECK: nvvm.barrier
// CHECK: llvm.fence syncscope("device") release
// CHECK: llvm.atomicrmw fadd %{{.*}}, %[[SUM]] syncscope("device") monotonic
// CHECK: llvm.fence syncscope("device") acquire
// CHECK: llvm.fence syncscope("device") release
// CHECK: llvm.atomicrmw max %{{.*}}, %[[MAX]] syncscope("device") monotonic
// CHECK: llvm.fence syncscope("device") acquire
// CHECK-NEXT: } else {
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// TILEORCH_COMBINE_ATOMICS=exact: a float add is not folded, so neither atomic is (they stay in program order).
// EXACT-LABEL: func.func @row_sums
// EXACT-SAME: (%{{[0-9]+}}: !llvm.ptr<1>, %{{[0-9]+}}: !llvm.ptr<1>, %{{[0-9]+}}: !llvm.ptr<1>, %{{[0-9]+}}: !llvm.ptr<1>)
// EXACT-SAME: tileorch.combined_atomics_off = "a float addf would be reassociated (TILEORCH_COMBINE_ATOMICS=exact folds integer operations only)"
// EXACT-NOT: scf.for
// EXACT: func.return
// Off by default (session 33: not yet measured on a GPU), and under TILEORCH_COMBINE_ATOMICS=0.
// OFF-LABEL: func.func @row_sums
// OFF-NOT: tileorch.combined_atomics
// OFF-NOT: scf.for
// OFF: func.return

// In the PTX the instance loop's bound is the last parameter, the live test the one before; one release fence, one
// atom.global.add.f32 and one atom.global.max.s32 after the loop.
// PTX-LABEL: .entry row_sums(
// PTX: .minnctapersm 16
// PTX: ld.param.b32 %r{{[0-9]+}}, [row_sums_param_5];
// PTX: ld.param.b32 %r{{[0-9]+}}, [row_sums_param_4];
// PTX: mov.u32 %r{{[0-9]+}}, %ctaid.x;
// PTX: fence.release.gpu;
// PTX-NEXT: $L__BB
// PTX-NEXT: @%p{{[0-9]+}} bra
// PTX-NEXT: atom.global.add.f32
// PTX: fence.acquire.gpu;
// PTX: fence.release.gpu;
// PTX: atom.global.max.s32
// PTX: fence.acquire.gpu;
// PTX-NOT: {{atom|bar.sync}}
// PTX: ret;
builtin.module {
  nv_tileaa.func @row_sums(%x: !nv_tileaa.ptr<f32>, %out: !nv_tileaa.ptr<f32>, %sum: !nv_tileaa.ptr<f32>, %cnt: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c256 = arith.constant 256 : i32
    %base = arith.muli %pid, %c256 : i32
    %r = nv_tileaa.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
    %b = nv_tileaa.splat %base : i32 -> tensor<256xi32>
    %idx = nv_tileaa.addi %r, %b : tensor<256xi32>
    %x1 = nv_tileaa.splat %x : !nv_tileaa.ptr<f32> -> tensor<256x!nv_tileaa.ptr<f32>>
    %px = nv_tileaa.offset %x1, %idx : tensor<256x!nv_tileaa.ptr<f32>>, tensor<256xi32> -> tensor<256x!nv_tileaa.ptr<f32>>
    %v, %t0 = nv_tileaa.load %px : tensor<256x!nv_tileaa.ptr<f32>> -> tensor<256xf32>
    %s = "nv_tileaa.reduce"(%v) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%a: f32, %c: f32):
      %d = nv_tileaa.addf %a, %c : f32
      "nv_tileaa.yield"(%d) : (f32) -> ()
    }) : (tensor<256xf32>) -> tensor<f32>
    %s0 = nv_tileaa.extract %s {indices = array<i32>} : tensor<f32> -> f32
    %o1 = nv_tileaa.splat %out : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %pid1 = nv_tileaa.splat %pid : i32 -> tensor<1xi32>
    %po = nv_tileaa.offset %o1, %pid1 : tensor<1x!nv_tileaa.ptr<f32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %sv = nv_tileaa.splat %s0 : f32 -> tensor<1xf32>
    %t1 = nv_tileaa.store %sv, %po : tensor<1xf32>, tensor<1x!nv_tileaa.ptr<f32>>
    %z = arith.constant dense<0> : tensor<1xi32>
    %s1 = nv_tileaa.splat %sum : !nv_tileaa.ptr<f32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %ps = nv_tileaa.offset %s1, %z : tensor<1x!nv_tileaa.ptr<f32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<f32>>
    %o, %t2 = nv_tileaa.atomic_rmw %ps, %sv {rmw_mode = #nv_tileaa.rmw_mode<addf>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<f32>>, tensor<1xf32> -> tensor<1xf32>
    %c1 = nv_tileaa.splat %cnt : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %pc = nv_tileaa.offset %c1, %z : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %o2, %t3 = nv_tileaa.atomic_rmw %pc, %pid1 {rmw_mode = #nv_tileaa.rmw_mode<max>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1xi32>
    nv_tileaa.return
  }
}
