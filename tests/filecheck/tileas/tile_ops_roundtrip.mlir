// RUN: TILEORCH_ROUNDTRIP
// RUN: TILEORCH_CUSTOM_ROUNDTRIP

// Tile-level nv_tileas: layouts, atoms, tile ops and the tile pipeline, inside an agent_switch
// with holes, max_regs and num_agents_per_group.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!sa = tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
!pipe = !nv_tileas.async.pipeline<4, tuple<!sa>>
builtin.module {
  nv_tileaa.func @k(%va: !va, %i: i32, %b: tensor<64x128xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<2, 4>} {
    %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>>
    %true = arith.constant true
    %p = nv_tileas.async.pipeline.create_pipeline {num_stages = 4 : i32, producer_group = 0 : i32, consumer_group = 1 : i32, num_consumers = 1 : i32} : !pipe
    %itp = nv_tileas.async.pipeline.create_iterator %p : !pipe -> !nv_tileas.async.pipeline.iterator<any, 4, tuple<!sa>>
    %itc = nv_tileas.async.pipeline.create_iterator %p : !pipe -> !nv_tileas.async.pipeline.iterator<any, 4, tuple<!sa>>
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 1, 1, 2>, warp_id = array<i32: 0, 4, 5, 6>, agent_strides = array<i32: 0, 0, 0, 0>, max_regs = array<i32: 232, 40, 40, 40>, num_agents_per_group = array<i32: 1, 1, 1, 1>} {
      %tok = nv_tileas.async.pipeline.consumer_wait %p, %itc {consumer_idx = 0 : i32} : !pipe, !nv_tileas.async.pipeline.iterator<any, 4, tuple<!sa>> -> !nv_tileas.async.pipeline.consumer_token<0>
      %r:2 = nv_tileas.async.pipeline.consumer_read %p, %tok attributes {consumer_idx = 0 : i32} : !pipe, !nv_tileas.async.pipeline.consumer_token<0> -> tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>>, !nv_tileas.async.pipeline.consumer_token<0> {
      ^bb0(%a: !sa):
        %d = nv_tileas.dot %a, %b, %acc0, %true {atom = #nv_tileas.mma.sm90<[64, 128, 16]>} : !sa, tensor<64x128xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>, tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>> -> tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>>
        nv_tileas.async.pipeline.yield %d : tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>>
      }
      nv_tileas.async.pipeline.consumer_release %p, %r#1 : !pipe, !nv_tileas.async.pipeline.consumer_token<0>
      %itc1 = nv_tileas.async.pipeline.inc_iter %itc : !nv_tileas.async.pipeline.iterator<any, 4, tuple<!sa>>
      %c = nv_tileas.convert_layout %r#0 : tensor<128x128xf32, #nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>> -> tensor<128x128xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
      %buf = nv_tileas.alloc_tensor : tensor<128x128xf32, #nv_tileas.layout<smem, swizzle = 0, order = [1, 0], cta = [2, 1]>>
      %s = nv_tileas.copy %c into %buf : tensor<128x128xf32, #nv_tileas.layout<smem, swizzle = 0, order = [1, 0], cta = [2, 1]>> {atom = #nv_tileas.stsm<4>} : tensor<128x128xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>> -> tensor<128x128xf32, #nv_tileas.layout<smem, swizzle = 0, order = [1, 0], cta = [2, 1]>>
      %sl = nv_tileas.extract_slice %s {offsets = array<i32: 64, 0>} : tensor<128x128xf32, #nv_tileas.layout<smem, swizzle = 0, order = [1, 0], cta = [2, 1]>> -> tensor<64x128xf32, #nv_tileas.layout<smem>>
      %back = nv_tileas.insert_slice %sl into %s {offsets = array<i32: 0, 0>} : tensor<64x128xf32, #nv_tileas.layout<smem>> into tensor<128x128xf32, #nv_tileas.layout<smem, swizzle = 0, order = [1, 0], cta = [2, 1]>>
      nv_tileas.async.pipeline.yield
    } {
      %g = nv_tileas.async.pipeline.producer_acquire %p, %itp : !pipe, !nv_tileas.async.pipeline.iterator<any, 4, tuple<!sa>>
      %w = nv_tileas.async.pipeline.producer_write %p, %g attributes {producer_value_indices = array<i32: 0>} : !pipe {
      ^bb0(%slot: !sa):
        %t = nv_tileas.tiled_load %va[%i, %i] into %slot : !sa {atom = #nv_tileas.sm_tma_load<[64, 128]>, allow_tma = true} : !va [i32, i32] -> !sa
        nv_tileas.async.pipeline.yield %t : !sa
      }
      nv_tileas.async.pipeline.producer_commit %p, %w : !pipe
      nv_tileas.async.pipeline.yield
    } {
      %pid = nv_tileas.cancel_next_program_id
      %r1 = arith.constant dense<1.0> : tensor<1x64xf32, #nv_tileas.layout<reg>>
      %bc = nv_tileas.broadcast %r1 : tensor<1x64xf32, #nv_tileas.layout<reg>> -> tensor<128x64xf32, #nv_tileas.layout<reg>>
      %ed = nv_tileas.expand_dim %bc {dim = 0 : i32} : tensor<128x64xf32, #nv_tileas.layout<reg>> -> tensor<1x128x64xf32, #nv_tileas.layout<reg>>
      %pr = nv_tileas.pragma %bc {hints = {keep}} : tensor<128x64xf32, #nv_tileas.layout<reg>> -> tensor<128x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [1, 1]>>
      nv_tileas.async.pipeline.yield
    } {
    }
    nv_tileaa.return
  }
}
// CHECK: %{{.*}} = nv_tileas.async.pipeline.create_pipeline {num_stages = 4 : i32, producer_group = 0 : i32, consumer_group = 1 : i32, num_consumers = 1 : i32} : !nv_tileas.async.pipeline<4, tuple<tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>>>
// CHECK: nv_tileas.async.pipeline.create_iterator %{{.*}} : {{.*}} -> !nv_tileas.async.pipeline.iterator<any, 4, tuple<tensor<128x64xf16, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>>>
// CHECK: nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 1, 1, 2>, warp_id = array<i32: 0, 4, 5, 6>, agent_strides = array<i32: 0, 0, 0, 0>, max_regs = array<i32: 232, 40, 40, 40>, num_agents_per_group = array<i32: 1, 1, 1, 1>}
// CHECK: nv_tileas.async.pipeline.consumer_wait {{.*}} {consumer_idx = 0 : i32} : {{.*}} -> !nv_tileas.async.pipeline.consumer_token<0>
// CHECK: nv_tileas.async.pipeline.consumer_read
// CHECK: nv_tileas.dot {{.*}} {atom = #nv_tileas.mma.sm90<[64, 128, 16]>}
// CHECK: nv_tileas.async.pipeline.consumer_release
// CHECK: nv_tileas.async.pipeline.inc_iter
// CHECK: nv_tileas.convert_layout {{.*}} -> tensor<128x128xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
// CHECK: nv_tileas.alloc_tensor : tensor<128x128xf32, #nv_tileas.layout<smem, swizzle = 0, order = [1, 0], cta = [2, 1]>>
// CHECK: nv_tileas.copy {{.*}} into {{.*}} {atom = #nv_tileas.stsm<4>}
// CHECK: nv_tileas.extract_slice {{.*}} {offsets = array<i32: 64, 0>}
// CHECK: nv_tileas.insert_slice
// CHECK: nv_tileas.async.pipeline.producer_acquire
// CHECK: nv_tileas.async.pipeline.producer_write {{.*}} attributes {producer_value_indices = array<i32: 0>}
// CHECK: nv_tileas.tiled_load {{.*}} {atom = #nv_tileas.sm_tma_load<[64, 128]>, allow_tma = true}
// CHECK: nv_tileas.async.pipeline.producer_commit
// CHECK: nv_tileas.cancel_next_program_id
// CHECK: nv_tileas.broadcast
// CHECK: nv_tileas.expand_dim {{.*}} {dim = 0 : i32}
// CHECK: nv_tileas.pragma {{.*}} {hints = {keep}}
// CHECK: } {
// CHECK-NEXT: }
