// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s
// The nv_tileas verifiers, with tileiras' diagnostics where it has one.

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 4>, array<i32: 128, 4>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%va: !va, %i: i32) {
    %t = nv_tileas.tiled_load %va[%i, %i] {atom = #nv_tileas.sm_tma_load<[4, 128]>} : !va [i32, i32] -> tensor<128x4xf16, #nv_tileas.layout<smem, swizzle = 0, order = [1, 0]>>
    nv_tileaa.return
  }
}
// CHECK: error: tma boxDims[0] * elemTypeBitWidth is not a multiple of 16 bytes

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 32>, array<i32: 128, 32>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%va: !va, %i: i32) {
    %t = nv_tileas.tiled_load %va[%i, %i] {atom = #nv_tileas.sm_tma_load<[32, 128]>} : !va [i32, i32] -> tensor<128x32xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
    nv_tileaa.return
  }
}
// CHECK: error: smem layout is not TMA compatible

// -----

!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%va: !va, %i: i32) {
    %t = nv_tileas.tiled_load %va[%i, %i] {atom = #nv_tileas.sm_tma_load<[64, 128]>, padding_value = #nv_tileaa.padding_value<nan>} : !va [i32, i32] -> tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
    nv_tileaa.return
  }
}
// CHECK: error: TmaLoad only support zero padding now

// -----

builtin.module {
  nv_tileaa.func @k(%a: tensor<96x64xf16, #nv_tileas.layout<smem>>, %b: tensor<64x128xf16, #nv_tileas.layout<smem>>, %c: tensor<96x128xf32, #nv_tileas.layout<reg>>) {
    %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : tensor<96x64xf16, #nv_tileas.layout<smem>>, tensor<64x128xf16, #nv_tileas.layout<smem>>, tensor<96x128xf32, #nv_tileas.layout<reg>> -> tensor<96x128xf32, #nv_tileas.layout<reg>>
    nv_tileaa.return
  }
}
// CHECK: error: M block size must be an integer multiple of atom M.

// -----

builtin.module {
  nv_tileaa.func @k(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %c: tensor<128x128xf32>) {
    %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas.mma.sm90<[128, 128, 16]>} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    nv_tileaa.return
  }
}
// CHECK: The SM90 MMA atom is not supported: [128, 128, 16]

// -----

!sa = tensor<128x64xf16, #nv_tileas.layout<smem>>
!pipe = !nv_tileas.async.pipeline<2, tuple<!sa>>
builtin.module {
  nv_tileaa.func @k() {
    %p = nv_tileas.async.pipeline.create_pipeline {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32, num_consumers = 2 : i32} : !pipe
    %it = nv_tileas.async.pipeline.create_iterator %p : !pipe -> !nv_tileas.async.pipeline.iterator<any, 2, tuple<!sa>>
    %t = nv_tileas.async.pipeline.consumer_wait %p, %it {consumer_idx = 2 : i32} : !pipe, !nv_tileas.async.pipeline.iterator<any, 2, tuple<!sa>> -> !nv_tileas.async.pipeline.consumer_token<2>
    nv_tileaa.return
  }
}
// CHECK: error: expected 'consumer_idx' less than the number of consumer 2, got 2

// -----

!sa = tensor<128x64xf16, #nv_tileas.layout<smem>>
!pipe = !nv_tileas.async.pipeline<2, tuple<!sa>>
builtin.module {
  nv_tileaa.func @k() {
    %p = nv_tileas.async.pipeline.create_pipeline {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32, num_consumers = 2 : i32} : !pipe
    %it = nv_tileas.async.pipeline.create_iterator %p : !pipe -> !nv_tileas.async.pipeline.iterator<any, 2, tuple<!sa>>
    %t = nv_tileas.async.pipeline.consumer_wait %p, %it {consumer_idx = 1 : i32} : !pipe, !nv_tileas.async.pipeline.iterator<any, 2, tuple<!sa>> -> !nv_tileas.async.pipeline.consumer_token<0>
    nv_tileaa.return
  }
}
// CHECK: error: expected 'consumer_idx' in token to be the same as 'consumer_idx' attribute of this operation (0 vs 1)

// -----

!sa = tensor<128x64xf16, #nv_tileas.layout<smem>>
!pipe = !nv_tileas.async.pipeline<2, tuple<!sa>>
builtin.module {
  nv_tileaa.func @k() {
    %p = nv_tileas.async.pipeline.create_pipeline {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !pipe
    %it = nv_tileas.async.pipeline.create_iterator %p : !pipe -> !nv_tileas.async.pipeline.iterator<consumer, 2, tuple<!sa>>
    %g = nv_tileas.async.pipeline.producer_acquire %p, %it : !pipe, !nv_tileas.async.pipeline.iterator<consumer, 2, tuple<!sa>>
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileas.async.pipeline.producer_acquire' needs a producer iterator, got a consumer iterator

// -----

builtin.module {
  nv_tileaa.func @k() {
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 1>, max_regs = array<i32: 240, 20>} {
      nv_tileas.async.pipeline.yield
    } {
      nv_tileas.async.pipeline.yield
    }
    nv_tileaa.return
  }
}
// CHECK: error: max_regs must be a multiple of 8 in [24, 256] (setmaxnreg), got 20

// -----

// A huge warp count (fuzz finding: the verifier built the agent's warp list and hung).
builtin.module {
  nv_tileaa.func @k() {
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 2147483647>, warp_id = array<i32: 0, 4>} {
      nv_tileas.async.pipeline.yield
    } {
      nv_tileas.async.pipeline.yield
    }
    nv_tileaa.return
  }
}
// CHECK: error: num_warps [4, 2147483647]: an agent has at most 32 warps (a CTA has at most 32 warps)

// -----

builtin.module {
  nv_tileaa.func @k() {
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 33>} {
      nv_tileas.async.pipeline.yield
    }
    nv_tileaa.return
  }
}
// CHECK: error: num_warps [33]: an agent has at most 32 warps (a CTA has at most 32 warps)

// -----

builtin.module {
  nv_tileaa.func @k() {
    %x = nv_tileas.alloc_tensor : tensor<128x64xf16, #nv_tileas.layout<smem, cta = [3, 1]>>
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileas.alloc_tensor' dimension 0 (128) is not divisible by its CTA split 3

// -----

builtin.module {
  nv_tileaa.func @k() {
    %x = nv_tileas.alloc_tensor : tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 48>>
    nv_tileaa.return
  }
}
// CHECK: swizzle must be one of 0, 32, 64, 128 bytes, got 48
