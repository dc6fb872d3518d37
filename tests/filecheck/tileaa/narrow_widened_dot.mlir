// RUN: tileorch-opt %s --split-input-file -p tileaa-narrow-widened-dot-operands | filecheck %s

// An f32 dot of two f16 tiles widened to f32 (``a.astype(ct.float32) @ b.astype(ct.float32)``) multiplies the f16
// tiles into its f32 accumulator (each f16 x f16 product is exact in f32); the dead widenings are erased.

// CHECK-LABEL: nv_tileaa.func @f16_widened
// CHECK-NOT:  nv_tileaa.fp_to_fp
// CHECK:      nv_tileaa.dot %a, %b, %acc{{.*}} : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
builtin.module {
  nv_tileaa.func @f16_widened(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>, %acc: tensor<64x64xf32>) {
    %a32 = nv_tileaa.fp_to_fp %a {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf16> -> tensor<64x64xf32>
    %b32 = nv_tileaa.fp_to_fp %b {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf16> -> tensor<64x64xf32>
    %d = nv_tileaa.dot %a32, %b32, %acc {matmul_fast_accum = false} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    nv_tileaa.return
  }
}

// -----

// bf16 x bf16 the same way; a widening with another use (the widened A also added to the result) stays for it.

// CHECK-LABEL: nv_tileaa.func @bf16_widened_kept_for_its_other_use
// CHECK:      %[[A32:.*]] = nv_tileaa.fp_to_fp %a
// CHECK-NEXT: nv_tileaa.dot %a, %b, %acc{{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK-NEXT: nv_tileaa.addf {{.*}}%[[A32]]
builtin.module {
  nv_tileaa.func @bf16_widened_kept_for_its_other_use(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %acc: tensor<64x64xf32>) {
    %a32 = nv_tileaa.fp_to_fp %a : tensor<64x64xbf16> -> tensor<64x64xf32>
    %b32 = nv_tileaa.fp_to_fp %b : tensor<64x64xbf16> -> tensor<64x64xf32>
    %d = nv_tileaa.dot %a32, %b32, %acc : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    %s = nv_tileaa.addf %d, %a32 : tensor<64x64xf32>
    nv_tileaa.return
  }
}

// -----

// Left alone: f16 x bf16 (no tensor-core product of two types), one operand a genuine f32 tile, and an f16 dot
// (nothing widened).

// CHECK-LABEL: nv_tileaa.func @left_alone
// CHECK-COUNT-3: nv_tileaa.fp_to_fp
// CHECK:      nv_tileaa.dot %a32, %c32, %acc
// CHECK:      nv_tileaa.dot %a32, %f, %acc
// CHECK:      nv_tileaa.dot %a, %a, %acc16
builtin.module {
  nv_tileaa.func @left_alone(%a: tensor<64x64xf16>, %c: tensor<64x64xbf16>, %f: tensor<64x64xf32>, %acc: tensor<64x64xf32>, %acc16: tensor<64x64xf16>) {
    %a32 = nv_tileaa.fp_to_fp %a : tensor<64x64xf16> -> tensor<64x64xf32>
    %c32 = nv_tileaa.fp_to_fp %c : tensor<64x64xbf16> -> tensor<64x64xf32>
    %unused = nv_tileaa.fp_to_fp %c : tensor<64x64xbf16> -> tensor<64x64xf32>
    %d1 = nv_tileaa.dot %a32, %c32, %acc : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    %d2 = nv_tileaa.dot %a32, %f, %acc : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    %d3 = nv_tileaa.dot %a, %a, %acc16 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
    nv_tileaa.return
  }
}
