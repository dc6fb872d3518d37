// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p tileas-remove-buffer-alias | filecheck %s

#s = #nv_tileas.layout<smem>
#r = #nv_tileas.layout<reg, atom = blocked, warps = [4]>
builtin.module {
  nv_tileaa.func @live(%c: i1, %v: tensor<64xf32, #r>) {
    %a = nv_tileas.alloc_tensor : tensor<64xf32, #s>
    %b = nv_tileas.alloc_tensor : tensor<64xf32, #s>
    %wa = nv_tileas.copy %v into %a : tensor<64xf32, #s> : tensor<64xf32, #r> -> tensor<64xf32, #s>
    %wb = nv_tileas.copy %v into %b : tensor<64xf32, #s> : tensor<64xf32, #r> -> tensor<64xf32, #s>
    %sel = arith.select %c, %wa, %wb : tensor<64xf32, #s>
    nv_tileaa.return
  }
}
// CHECK: remove_buffer_alias_errors.mlir:11:5: error: RemoveBufferAlias: not supported operation type (select between buffers rooted at different allocations)

// -----

#s = #nv_tileas.layout<smem>
builtin.module {
  nv_tileaa.func @swap(%c: i1) {
    %a = nv_tileas.alloc_tensor : tensor<64xf32, #s>
    %b = nv_tileas.alloc_tensor : tensor<64xf32, #s>
    %res = scf.while (%x = %a) : (tensor<64xf32, #s>) -> tensor<64xf32, #s> {
      scf.condition(%c) %x : tensor<64xf32, #s>
    } do {
    ^bb0(%y: tensor<64xf32, #s>):
      scf.yield %b : tensor<64xf32, #s>
    }
    nv_tileaa.return
  }
}
// CHECK: remove_buffer_alias_errors.mlir:24:5: error: Yielded alias not implemented yet
