// RUN: tileorch-opt %s --split-input-file -p convert-tileaa-to-tileas,tileas-assign-dot-layouts,tileas-assign-load-store-layouts 2>/dev/null | filecheck %s
// RUN: tileorch-opt %s --split-input-file -p convert-tileaa-to-tileas,tileas-assign-dot-layouts 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// sm_100 (Blackwell) has no wgmma: a 128x128x64 f16 dot gets the tcgen05 (UMMA) atom, A and B
// in shared memory (TMA loads adopt the layout), the accumulator in tensor memory.  A dot no
// UMMA shape fits (M = 32) falls back to mma.sync, with a remark.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vb = !nv_tileaa.tiled_view<array<i32: 64, 128>, array<i32: 64, 128>, array<i32: 0, 1>, !m>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<100, 2>} {
  nv_tileaa.func @blackwell(%va: !va, %vb: !vb, %i: i32, %x: tensor<128x128xf32>, %s: tensor<32x32xf16>, %sc: tensor<32x32xf32>) {
    %a, %t1 = nv_tileaa.tiled_load %va[%i, %i] : !va [i32, i32] -> tensor<128x64xf16>
    %b, %t2 = nv_tileaa.tiled_load %vb[%i, %i] : !vb [i32, i32] -> tensor<64x128xf16>
    %d = nv_tileaa.dot %a, %b, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %ds = nv_tileaa.dot %s, %s, %sc : tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf32> -> tensor<32x32xf32>
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @blackwell
// CHECK-NOT:  mma.sm90
// CHECK:      %[[A:.*]] = nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.sm_tma_load<[64, 128]>, allow_tma = true} : {{.*}} -> tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
// CHECK:      %[[B:.*]] = nv_tileas.tiled_load {{.*}} -> tensor<64x128xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
// CHECK:      %[[C:.*]] = nv_tileas.convert_layout %{{.*}} -> tensor<128x128xf32, #nv_tileas.layout<tmem>>
// CHECK:      %[[D:.*]] = nv_tileas.dot %[[A]], %[[B]], %[[C]], %{{.*}} {atom = #nv_tileas.mma.sm100<[128, 128, 16]>, matmul_fast_accum = false} : {{.*}} -> tensor<128x128xf32, #nv_tileas.layout<tmem>>
// CHECK-NEXT: nv_tileas.convert_layout %[[D]] : tensor<128x128xf32, #nv_tileas.layout<tmem>> -> tensor<128x128xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
// CHECK-NOT:  mma.sm90
// CHECK:      nv_tileas.dot {{.*}} {atom = #nv_tileas.mma.sm80<[16, 8, 16]>
// CHECK-NOT:  mma.sm90
// CHECK:      nv_tileaa.return
// REMARK: assign_dot_layouts_targets.mlir:15:5: remark: no tcgen05 (UMMA) atom fits this 32x32x32 dot on sm_100: it falls back to mma.sync (#nv_tileas.mma.sm80<[16, 8, 16]>)

// -----

// sm_120 (consumer Blackwell, target given as nv_tileaa.target_spec): neither wgmma nor
// tcgen05, mma.sync with register operands.
builtin.module attributes {nv_tileaa.target_spec = 120 : i64} {
  nv_tileaa.func @sm120(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %x: tensor<128x128xf32>) {
    %d = nv_tileaa.dot %a, %b, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @sm120
// CHECK-NOT:  mma.sm90
// CHECK-NOT:  mma.sm100
// CHECK:      nv_tileas.dot {{.*}} {atom = #nv_tileas.mma.sm80<[16, 8, 16]>, matmul_fast_accum = false} : tensor<128x64xf16, #nv_tileas.layout<reg, atom = mma_a, instr = [16, 8, 16], warps = [4, 1]>>

// -----

// Batched (3-D) dots with a leading batch dimension get the atom of their 2-D form, over the
// last two dimensions; the batch dimension stays whole in the layouts.
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @batched90(%a: tensor<2x128x64xf16>, %b: tensor<2x64x128xf16>, %x: tensor<2x128x128xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %d = nv_tileaa.dot %a, %b, %x : tensor<2x128x64xf16>, tensor<2x64x128xf16>, tensor<2x128x128xf32> -> tensor<2x128x128xf32>
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @batched90
// CHECK:      %[[A:.*]] = nv_tileas.convert_layout %{{.*}} -> tensor<2x128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [2, 1, 0]>>
// CHECK:      %[[B:.*]] = nv_tileas.convert_layout %{{.*}} -> tensor<2x64x128xf16, #nv_tileas.layout<smem, swizzle = 128, order = [2, 1, 0]>>
// CHECK:      %[[C:.*]] = nv_tileas.convert_layout %{{.*}} -> tensor<2x128x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [1, 8, 1]>>
// CHECK:      nv_tileas.dot %[[A]], %[[B]], %[[C]], %{{.*}} {atom = #nv_tileas.mma.sm90<[64, 128, 16]>, matmul_fast_accum = false}

// -----

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<100, 2>} {
  nv_tileaa.func @batched100(%a: tensor<4x128x64xf16>, %b: tensor<4x64x256xf16>, %x: tensor<4x128x256xf32>) {
    %d = nv_tileaa.dot %a, %b, %x : tensor<4x128x64xf16>, tensor<4x64x256xf16>, tensor<4x128x256xf32> -> tensor<4x128x256xf32>
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @batched100
// CHECK:      nv_tileas.dot {{.*}} {atom = #nv_tileas.mma.sm100<[128, 256, 16]>, matmul_fast_accum = false} : {{.*}} -> tensor<4x128x256xf32, #nv_tileas.layout<tmem>>

// -----

builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<80, 0>} {
  nv_tileaa.func @batched80(%a: tensor<2x64x32xf16>, %b: tensor<2x32x64xf16>, %x: tensor<2x64x64xf32>) {
    %d = nv_tileaa.dot %a, %b, %x : tensor<2x64x32xf16>, tensor<2x32x64xf16>, tensor<2x64x64xf32> -> tensor<2x64x64xf32>
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @batched80
// CHECK:      nv_tileas.dot {{.*}} {atom = #nv_tileas.mma.sm80<[16, 8, 16]>, matmul_fast_accum = false} : tensor<2x64x32xf16, #nv_tileas.layout<reg, atom = mma_a, instr = [16, 8, 16], warps = [1, 4, 1]>>

// -----

// sm_100 with a 2-CTA cluster: tileas-plan-cta will give each CTA 64 of the 128 rows, so the
// UMMA atom is M = 64 (a CTA's share must be whole atoms), not M = 128.
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<100, 2>} {
  nv_tileaa.func @cluster100(%a: tensor<128x64xf16>, %b: tensor<64x256xf16>, %x: tensor<128x256xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<2, 4>} {
    %d = nv_tileaa.dot %a, %b, %x : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @cluster100
// CHECK:      nv_tileas.dot {{.*}} {atom = #nv_tileas.mma.sm100<[64, 256, 16]>, matmul_fast_accum = false}

// -----

// sm_90: an int8 dot (cuda_tile.mmai: i8 operands, i32 accumulator) gets the k32 wgmma atom, like
// fp8 (256 bits of K per instruction), and keeps its operands' signedness.
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @int8_sm90(%a: tensor<128x128xi8>, %b: tensor<128x128xi8>, %x: tensor<128x128xi32>) {
    %d = nv_tileaa.dot %a, %b, %x {signedness_a = #nv_tileaa.signedness<unsigned>, signedness_b = #nv_tileaa.signedness<signed>} : tensor<128x128xi8>, tensor<128x128xi8>, tensor<128x128xi32> -> tensor<128x128xi32>
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @int8_sm90
// CHECK: nv_tileas.dot {{.*}} {atom = #nv_tileas.mma.sm90<[64, 128, 32]>, matmul_fast_accum = false, signedness_a = #nv_tileaa.signedness<unsigned>, signedness_b = #nv_tileaa.signedness<signed>} : tensor<128x128xi8, #nv_tileas.layout<smem, {{.*}}>>, tensor<128x128xi8, #nv_tileas.layout<smem, {{.*}}>>, tensor<128x128xi32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 32]
