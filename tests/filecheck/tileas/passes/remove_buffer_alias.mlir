// RUN: tileorch-opt %s --split-input-file -p tileas-remove-buffer-alias | filecheck %s

#s = #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>
#r = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>
builtin.module {
  nv_tileaa.func @alias(%c: i1, %v: tensor<64x64xf16, #r>) {
    %a = nv_tileas.alloc_tensor : tensor<64x64xf16, #s>
    %b = nv_tileas.alloc_tensor : tensor<64x64xf16, #s>
    %sel = arith.select %c, %a, %b : tensor<64x64xf16, #s>
    %w = nv_tileas.copy %v into %sel : tensor<64x64xf16, #s> : tensor<64x64xf16, #r> -> tensor<64x64xf16, #s>
    %same = arith.select %c, %w, %w : tensor<64x64xf16, #s>
    %ver = arith.select %c, %w, %sel : tensor<64x64xf16, #s>
    %k:2 = nv_tileas.pragma %same, %ver : tensor<64x64xf16, #s>, tensor<64x64xf16, #s> -> tensor<64x64xf16, #s>, tensor<64x64xf16, #s>
    nv_tileaa.return
  }
}
// Two fresh allocations behind a select are one; a select of a value with itself, or of two
// versions of one buffer, is the buffer's latest version.
// CHECK: %[[A:.*]] = nv_tileas.alloc_tensor
// CHECK-NOT: alloc_tensor
// CHECK-NOT: arith.select
// CHECK: %[[W:.*]] = nv_tileas.copy %{{.*}} into %[[A]]
// CHECK-NEXT: nv_tileas.pragma %[[W]], %[[W]]

// -----

// A while loop carrying one buffer: its arguments and result are that buffer.
#s = #nv_tileas.layout<smem>
#r = #nv_tileas.layout<reg, atom = blocked, warps = [4]>
builtin.module {
  nv_tileaa.func @loop(%c: i1, %v: tensor<64xf32, #r>) {
    %a = nv_tileas.alloc_tensor : tensor<64xf32, #s>
    %res = scf.while (%x = %a) : (tensor<64xf32, #s>) -> tensor<64xf32, #s> {
      scf.condition(%c) %x : tensor<64xf32, #s>
    } do {
    ^bb0(%y: tensor<64xf32, #s>):
      %w = nv_tileas.copy %v into %y : tensor<64xf32, #s> : tensor<64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4]>> -> tensor<64xf32, #s>
      scf.yield %w : tensor<64xf32, #s>
    }
    %k = nv_tileas.pragma %res : tensor<64xf32, #s> -> tensor<64xf32, #s>
    nv_tileaa.return
  }
}
// CHECK-LABEL: @loop
// CHECK: %[[A:.*]] = nv_tileas.alloc_tensor
// CHECK: nv_tileas.copy %{{.*}} into %[[A]]
// CHECK: nv_tileas.pragma %[[A]]
