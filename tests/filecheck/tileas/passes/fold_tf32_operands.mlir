// RUN: tileorch-opt %s --split-input-file -p tileas-fold-tf32-operands | filecheck %s
// f32 tiles converted to tf32 only to feed a dot: the dot reads the f32 tiles (its tf32 WGMMA reads
// tf32 from the f32 bits), the conversions are gone.
builtin.module {
  nv_tileaa.func @tf32_dot(%a: tensor<128x32xf32>, %b: tensor<32x128xf32>, %acc: tensor<128x128xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ta = nv_tileaa.fp_to_fp %a : tensor<128x32xf32> -> tensor<128x32xtf32>
    %tb = nv_tileaa.fp_to_fp %b : tensor<32x128xf32> -> tensor<32x128xtf32>
    %d = nv_tileaa.dot %ta, %tb, %acc : tensor<128x32xtf32>, tensor<32x128xtf32>, tensor<128x128xf32> -> tensor<128x128xf32>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @tf32_dot(%[[A:.*]]: tensor<128x32xf32>, %[[B:.*]]: tensor<32x128xf32>, %[[C:.*]]: tensor<128x128xf32>)
// CHECK-NOT:  nv_tileaa.fp_to_fp
// CHECK:      nv_tileaa.dot %[[A]], %[[B]], %[[C]] : tensor<128x32xf32>, tensor<32x128xf32>, tensor<128x128xf32>

// -----
// A tf32 tile with another use than a dot operand keeps its conversion for that use (its rounding is
// observable there); the dot still reads the f32 tiles.
builtin.module {
  nv_tileaa.func @tf32_other_use(%a: tensor<128x32xf32>, %b: tensor<32x128xf32>, %acc: tensor<128x128xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ta = nv_tileaa.fp_to_fp %a : tensor<128x32xf32> -> tensor<128x32xtf32>
    %tb = nv_tileaa.fp_to_fp %b : tensor<32x128xf32> -> tensor<32x128xtf32>
    %d = nv_tileaa.dot %ta, %tb, %acc : tensor<128x32xtf32>, tensor<32x128xtf32>, tensor<128x128xf32> -> tensor<128x128xf32>
    %back = nv_tileaa.fp_to_fp %ta : tensor<128x32xtf32> -> tensor<128x32xf32>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @tf32_other_use
// CHECK:      %[[TA:.*]] = nv_tileaa.fp_to_fp %{{.*}} : tensor<128x32xf32> -> tensor<128x32xtf32>
// CHECK-NOT:  nv_tileaa.fp_to_fp %{{.*}} : tensor<32x128xf32> -> tensor<32x128xtf32>
// CHECK:      nv_tileaa.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x32xf32>, tensor<32x128xf32>
// CHECK:      nv_tileaa.fp_to_fp %[[TA]] : tensor<128x32xtf32> -> tensor<128x32xf32>

// -----
// One operand converted, the other already tf32: nothing to fold (the operand types must agree).
builtin.module {
  nv_tileaa.func @tf32_one_side(%a: tensor<128x32xf32>, %b: tensor<32x128xtf32>, %acc: tensor<128x128xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ta = nv_tileaa.fp_to_fp %a : tensor<128x32xf32> -> tensor<128x32xtf32>
    %d = nv_tileaa.dot %ta, %b, %acc : tensor<128x32xtf32>, tensor<32x128xtf32>, tensor<128x128xf32> -> tensor<128x128xf32>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @tf32_one_side
// CHECK:      nv_tileaa.fp_to_fp
// CHECK:      nv_tileaa.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x32xtf32>, tensor<32x128xtf32>

// -----
// ``ct.transpose(w.astype(ct.tfloat32))`` (F.linear's W^T): the permute of the converted tile becomes
// a permute of the f32 tile before the dot; the conversion and the old permute are gone.
builtin.module {
  nv_tileaa.func @tf32_permuted(%a: tensor<128x32xf32>, %w: tensor<128x32xf32>, %acc: tensor<128x128xf32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %ta = nv_tileaa.fp_to_fp %a : tensor<128x32xf32> -> tensor<128x32xtf32>
    %tw = nv_tileaa.fp_to_fp %w : tensor<128x32xf32> -> tensor<128x32xtf32>
    %tb = "nv_tileaa.permute"(%tw) <{permutation = array<i32: 1, 0>}> : (tensor<128x32xtf32>) -> tensor<32x128xtf32>
    %d = nv_tileaa.dot %ta, %tb, %acc : tensor<128x32xtf32>, tensor<32x128xtf32>, tensor<128x128xf32> -> tensor<128x128xf32>
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @tf32_permuted(%[[A:.*]]: tensor<128x32xf32>, %[[W:.*]]: tensor<128x32xf32>, %[[C:.*]]: tensor<128x128xf32>)
// CHECK-NOT:  nv_tileaa.fp_to_fp
// CHECK:      %[[P:.*]] = "nv_tileaa.permute"(%[[W]]) <{permutation = array<i32: 1, 0>}> : (tensor<128x32xf32>) -> tensor<32x128xf32>
// CHECK-NOT:  tf32
// CHECK:      nv_tileaa.dot %[[A]], %[[P]], %[[C]] : tensor<128x32xf32>, tensor<32x128xf32>, tensor<128x128xf32>
