// RUN: tileorch-opt %s --split-input-file -p tileas-insert-OCG-knobs | filecheck %s
// RUN: tileorch-opt %s --split-input-file -p tileas-insert-OCG-knobs,tileas-insert-OCG-knobs | filecheck %s

// sm_100 with an MMA: the U64-busy knob at entry; FenceCode before each fence/arrive/barrier.
#sm = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
#acc = #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>
builtin.module attributes {nv_tileaa.target_spec = 100 : i32} {
  nv_tileaa.func @mma(%a: tensor<128x64xf16, #sm>, %b: tensor<64x128xf16, #sm>, %c: tensor<128x128xf32, #acc>, %bar: !llvm.ptr<3>) {
    %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<128x64xf16, #sm>, tensor<64x128xf16, #sm>, tensor<128x128xf32, #acc> -> tensor<128x128xf32, #acc>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    %t = nvvm.mbarrier.arrive %bar : !llvm.ptr<3> -> i64
    nvvm.cluster.arrive
    nvvm.cluster.wait
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @mma
// CHECK-NEXT: llvm.inline_asm has_side_effects ".pragma \22global knob SchedResBusyXU64=1\22;\0A", "" : () -> ()
// CHECK-NEXT: nv_tileas.dot
// CHECK-NEXT: llvm.inline_asm has_side_effects ".pragma \22next knob FenceCode\22;\0A", "" : () -> ()
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: llvm.inline_asm has_side_effects ".pragma \22next knob FenceCode\22;\0A"
// CHECK-NEXT: nvvm.mbarrier.arrive
// CHECK-NEXT: llvm.inline_asm has_side_effects ".pragma \22next knob FenceCode\22;\0A"
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: llvm.inline_asm has_side_effects ".pragma \22next knob FenceCode\22;\0A"
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: nv_tileaa.return

// -----

// sm_90: no U64 knob even with an MMA (the gate is sm_100..103 and sm_110); sm_110 with an
// inline-asm tcgen05.mma gets it; sm_104 does not.
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  func.func @hopper() {
    "llvm.inline_asm"() <{asm_string = "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 ...;", constraints = "", has_side_effects}> : () -> ()
    func.return
  }
}
// CHECK-LABEL: func.func @hopper
// CHECK-NOT: SchedResBusyXU64
// CHECK: func.return

// -----

builtin.module attributes {nv_tileaa.target_spec = 110 : i32} {
  func.func @thor() {
    "llvm.inline_asm"() <{asm_string = "tcgen05.mma.cta_group::1.kind::f16 ...;", constraints = "", has_side_effects}> : () -> ()
    func.return
  }
  func.func @no_mma() {
    func.return
  }
}
// CHECK-LABEL: func.func @thor
// CHECK-NEXT: SchedResBusyXU64
// CHECK-LABEL: func.func @no_mma
// CHECK-NOT: SchedResBusyXU64

// -----

builtin.module attributes {nv_tileaa.target_spec = 104 : i32} {
  func.func @sm104() {
    "llvm.inline_asm"() <{asm_string = "tcgen05.mma.cta_group::1.kind::f16 ...;", constraints = "", has_side_effects}> : () -> ()
    func.return
  }
}
// CHECK-LABEL: func.func @sm104
// CHECK-NOT: SchedResBusyXU64
