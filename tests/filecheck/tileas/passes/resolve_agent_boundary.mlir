// RUN: tileorch-opt %s --split-input-file -p tileas-resolve-agent-boundary | filecheck %s

// A register tile computed by 8 warps enters a 4-warp agent starting at warp 0 and a 4-warp
// agent starting at warp 4: both get it through one shared-memory buffer, in a layout over their
// own 4 warps.  A tile made by the first agent's warps (4 warps from warp 0) enters in place;
// scalars and shared-memory tiles always do.
#r8 = #nv_tileas.layout<reg, atom = blocked, warps = [8, 1]>
#r4 = #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>
builtin.module {
  nv_tileaa.func @k(%x: tensor<128x64xf32, #r8>, %y: tensor<128x64xf32, #r4>, %s: f32, %b: tensor<128x64xf32, #nv_tileas.layout<smem>>) {
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 4>, warp_id = array<i32: 0, 4>, agent_strides = array<i32: 0, 0>} {
      %u:3 = nv_tileas.pragma %x, %y, %b : tensor<128x64xf32, #r8>, tensor<128x64xf32, #r4>, tensor<128x64xf32, #nv_tileas.layout<smem>> -> tensor<128x64xf32, #r4>, tensor<128x64xf32, #r4>, tensor<128x64xf32, #nv_tileas.layout<smem>>
      nv_tileas.async.pipeline.yield
    } {
      %e = nv_tileaa.exp %x : tensor<128x64xf32, #r8>
      %f = arith.addf %s, %s : f32
      nv_tileas.async.pipeline.yield
    }
    nv_tileaa.return
  }
}
// CHECK: %[[BUF:.*]] = nv_tileas.alloc_tensor : tensor<128x64xf32, #nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>>
// CHECK-NEXT: %[[S:.*]] = nv_tileas.copy %{{.*}} into %[[BUF]] {{.*}} {atom = #nv_tileas.sts<1>}
// CHECK-NEXT: agent_switch
// CHECK-NEXT: %[[A0:.*]] = nv_tileas.convert_layout %[[S]] : {{.*}} -> tensor<128x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
// CHECK-NEXT: nv_tileas.pragma %[[A0]], %{{.*}}, %{{.*}} :
// CHECK: } {
// CHECK-NEXT: %[[A1:.*]] = nv_tileas.convert_layout %[[S]] : {{.*}} -> tensor<128x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
// CHECK-NEXT: %[[BACK:.*]] = nv_tileas.convert_layout %[[A1]] : {{.*}} -> tensor<128x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [8, 1]>>
// CHECK-NEXT: nv_tileaa.exp %[[BACK]]
// CHECK-NEXT: arith.addf

