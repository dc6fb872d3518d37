// nv_tileas tile-pipeline and TMA rules that had no negative test (tools/untested_diagnostics.py,
// session 21): producer_write's region arguments and yield, an iterator of another pipeline, a TMA
// box of another rank than the tile, a box that does not tile it.  The region messages print the
// types as IR (they printed Python reprs of xDSL objects before).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!sa = tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
!pipe = !nv_tileas.async.pipeline<4, tuple<!sa>>
nv_tileaa.func @write_args(%va: !va, %i: i32, %p: !pipe, %itp: !nv_tileas.async.pipeline.iterator<any, 4, tuple<!sa>>) {
  %g = nv_tileas.async.pipeline.producer_acquire %p, %itp : !pipe, !nv_tileas.async.pipeline.iterator<any, 4, tuple<!sa>>
  // expected-error @+1 {{producer_write region takes the slot buffers (tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>)}}
  %w = nv_tileas.async.pipeline.producer_write %p, %g attributes {producer_value_indices = array<i32: 0>} : !pipe {
  ^bb0(%slot: tensor<128x64xf32>):
    nv_tileas.async.pipeline.yield %slot : tensor<128x64xf32>
  }
  nv_tileaa.return
}

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!sa = tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
!pipe = !nv_tileas.async.pipeline<4, tuple<!sa>>
nv_tileaa.func @write_yield(%va: !va, %i: i32, %p: !pipe, %itp: !nv_tileas.async.pipeline.iterator<any, 4, tuple<!sa>>) {
  %g = nv_tileas.async.pipeline.producer_acquire %p, %itp : !pipe, !nv_tileas.async.pipeline.iterator<any, 4, tuple<!sa>>
  // expected-error @+1 {{producer_write region must yield the new slot values (tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>)}}
  %w = nv_tileas.async.pipeline.producer_write %p, %g attributes {producer_value_indices = array<i32: 0>} : !pipe {
  ^bb0(%slot: !sa):
    nv_tileas.async.pipeline.yield
  }
  nv_tileaa.return
}

// -----

!sa = tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
!pipe = !nv_tileas.async.pipeline<4, tuple<!sa>>
nv_tileaa.func @foreign_iterator(%p: !pipe, %itp: !nv_tileas.async.pipeline.iterator<any, 2, tuple<!sa>>) {
  // expected-error @+1 {{'nv_tileas.async.pipeline.producer_acquire' iterator !nv_tileas.async.pipeline.iterator<any, 2, tuple<tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>>> does not belong to pipeline !nv_tileas.async.pipeline<4, tuple<tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>>>}}
  %g = nv_tileas.async.pipeline.producer_acquire %p, %itp : !pipe, !nv_tileas.async.pipeline.iterator<any, 2, tuple<!sa>>
  nv_tileaa.return
}

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!sa = tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
nv_tileaa.func @box_rank(%va: !va, %i: i32, %slot: !sa) {
  // expected-error @+1 {{TMA box has 1 dimensions for a rank-2 tile}}
  %t = nv_tileas.tiled_load %va[%i, %i] into %slot : !sa {atom = #nv_tileas.sm_tma_load<[64]>, allow_tma = true} : !va [i32, i32] -> !sa
  nv_tileaa.return
}

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!sa = tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
nv_tileaa.func @box_tiles(%va: !va, %i: i32, %slot: !sa) {
  // expected-error @+1 {{TMA box [64, 96] (innermost first) does not tile the tile shape [128, 64]}}
  %t = nv_tileas.tiled_load %va[%i, %i] into %slot : !sa {atom = #nv_tileas.sm_tma_load<[64, 96]>, allow_tma = true} : !va [i32, i32] -> !sa
  nv_tileaa.return
}
