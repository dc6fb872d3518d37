// nv_tileas rules that had no negative test (tools/untested_diagnostics.py, session 22): a dot
// tile the sm90 atom does not tile along N or K, a wgmma operand in a layout it cannot read,
// consumer_read / consume_one / produce_one regions that take or yield other than the slot values.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

nv_tileaa.func @dot_n_not_tiled(%a: tensor<128x64xf16, #nv_tileas.layout<smem>>, %b: tensor<64x96xf16, #nv_tileas.layout<smem>>, %c: tensor<128x96xf32, #nv_tileas.layout<reg>>) {
  // expected-error @+1 {{dot tile 128x96 is not tiled by the atom [64, 128, 16]}}
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<128x64xf16, #nv_tileas.layout<smem>>, tensor<64x96xf16, #nv_tileas.layout<smem>>, tensor<128x96xf32, #nv_tileas.layout<reg>> -> tensor<128x96xf32, #nv_tileas.layout<reg>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @dot_k_not_tiled(%a: tensor<128x24xf16, #nv_tileas.layout<smem>>, %b: tensor<24x128xf16, #nv_tileas.layout<smem>>, %c: tensor<128x128xf32, #nv_tileas.layout<reg>>) {
  // expected-error @+1 {{dot tile 128x128 is not tiled by the atom [64, 128, 16]}}
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<128x24xf16, #nv_tileas.layout<smem>>, tensor<24x128xf16, #nv_tileas.layout<smem>>, tensor<128x128xf32, #nv_tileas.layout<reg>> -> tensor<128x128xf32, #nv_tileas.layout<reg>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @wgmma_b_in_registers(%a: tensor<128x64xf16, #nv_tileas.layout<smem>>, %b: tensor<64x128xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>, %c: tensor<128x128xf32, #nv_tileas.layout<reg>>) {
  // expected-error @+1 {{wgmma reads this operand from smem, not reg}}
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<128x64xf16, #nv_tileas.layout<smem>>, tensor<64x128xf16, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>, tensor<128x128xf32, #nv_tileas.layout<reg>> -> tensor<128x128xf32, #nv_tileas.layout<reg>>
  nv_tileaa.return
}

// -----

!sa = tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
!pipe = !nv_tileas.async.pipeline<4, tuple<!sa>>
nv_tileaa.func @read_args(%p: !pipe, %tok: !nv_tileas.async.pipeline.consumer_token<0>) {
  // expected-error @+1 {{consumer_read region takes the slot values (tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>)}}
  %r:2 = nv_tileas.async.pipeline.consumer_read %p, %tok attributes {consumer_idx = 0 : i32} : !pipe, !nv_tileas.async.pipeline.consumer_token<0> -> f32, !nv_tileas.async.pipeline.consumer_token<0> {
  ^bb0(%a: f32):
    nv_tileas.async.pipeline.yield %a : f32
  }
  nv_tileaa.return
}

// -----

!sa = tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
!pipe = !nv_tileas.async.pipeline<4, tuple<!sa>>
nv_tileaa.func @read_results(%p: !pipe, %tok: !nv_tileas.async.pipeline.consumer_token<0>, %x: f32) {
  // expected-error @+1 {{consumer_read returns the yielded values and the token: (f32, !nv_tileas.async.pipeline.consumer_token<0>)}}
  %r = nv_tileas.async.pipeline.consumer_read %p, %tok attributes {consumer_idx = 0 : i32} : !pipe, !nv_tileas.async.pipeline.consumer_token<0> -> !nv_tileas.async.pipeline.consumer_token<0> {
  ^bb0(%a: !sa):
    nv_tileas.async.pipeline.yield %x : f32
  }
  nv_tileaa.return
}

// -----

!sa = tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
!pipe = !nv_tileas.async.pipeline<4, tuple<!sa>>
!it = !nv_tileas.async.pipeline.iterator<any, 4, tuple<!sa>>
nv_tileaa.func @consume_one_results(%p: !pipe, %it: !it) {
  // expected-error @+1 {{consume_one returns the yielded values and the next iterator: (!nv_tileas.async.pipeline.iterator<any, 4, tuple<tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>>>)}}
  %r:2 = nv_tileas.async.pipeline.consume_one %p, %it attributes {consumer_idx = 0 : i32} : !pipe, !it -> f32, !it {
  ^bb0(%a: !sa):
    nv_tileas.async.pipeline.yield
  }
  nv_tileaa.return
}

// -----

!sa = tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
!pipe = !nv_tileas.async.pipeline<4, tuple<!sa>>
!it = !nv_tileas.async.pipeline.iterator<any, 4, tuple<!sa>>
nv_tileaa.func @produce_one_yield(%p: !pipe, %it: !it) {
  // expected-error @+1 {{produce_one region takes and yields the slot values (tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>)}}
  %n = nv_tileas.async.pipeline.produce_one %p, %it : !pipe, !it {
  ^bb0(%a: !sa):
    nv_tileas.async.pipeline.yield
  }
  nv_tileaa.return
}
