// RUN: tileorch-opt %s --split-input-file -p tileas-split-chains | filecheck %s
// Two heads a program (head 2p and 2p + 1), each its own Q tile, K / V tiles, accumulator and store, side by side
// in one key loop: the program becomes one chain (head 2p + part) launched twice as many times along axis 0
// (program x -> 2x + part), the other chain's ops, carried value and store gone.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !m>
builtin.module {
  nv_tileaa.func @two_heads(%q: !nv_tileaa.ptr<f16>, %k: !nv_tileaa.ptr<f16>, %v: !nv_tileaa.ptr<f16>, %o: !nv_tileaa.ptr<f16>, %h: i32, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mk = nv_tileaa.make_memref %k[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mv = nv_tileaa.make_memref %v[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mo = nv_tileaa.make_memref %o[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %qt = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %h0 = nv_tileaa.muli %c2, %p : i32
    %h1a = nv_tileaa.muli %c2, %p : i32
    %h1 = nv_tileaa.addi %h1a, %c1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %vk = nv_tileaa.block_tile %mk : !m -> !v
    %vv = nv_tileaa.block_tile %mv : !m -> !v
    %vo = nv_tileaa.block_tile %mo : !m -> !v
    %q0x, %t0 = nv_tileaa.tiled_load %vq[%h0, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q0 = nv_tileaa.reshape %q0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %q1x, %t1 = nv_tileaa.tiled_load %vq[%h1, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q1 = nv_tileaa.reshape %q1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %r0, %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%a0 = %zero, %a1 = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
      %k0x, %t2 = nv_tileaa.tiled_load %vk[%h0, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k0 = nv_tileaa.reshape %k0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %k1x, %t3 = nv_tileaa.tiled_load %vk[%h1, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k1 = nv_tileaa.reshape %k1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %s0 = nv_tileaa.dot %q0, %k0, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %s1 = nv_tileaa.dot %q1, %k1, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p0 = nv_tileaa.fp_to_fp %s0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %p1 = nv_tileaa.fp_to_fp %s1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %v0x, %t4 = nv_tileaa.tiled_load %vv[%h0, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v0 = nv_tileaa.reshape %v0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %v1x, %t5 = nv_tileaa.tiled_load %vv[%h1, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v1 = nv_tileaa.reshape %v1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %d0 = nv_tileaa.dot %p0, %v0, %a0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %d1 = nv_tileaa.dot %p1, %v1, %a1 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d0, %d1 : tensor<64x64xf32>, tensor<64x64xf32>
    }
    %o0 = nv_tileaa.fp_to_fp %r0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o0x = nv_tileaa.reshape %o0 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %st0 = nv_tileaa.tiled_store %o0x, %vo[%h0, %qt, %c0] token %tok : tensor<1x64x64xf16>, !v [i32, i32, i32]
    %o1 = nv_tileaa.fp_to_fp %r1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o1x = nv_tileaa.reshape %o1 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %st1 = nv_tileaa.tiled_store %o1x, %vo[%h1, %qt, %c0] token %st0 : tensor<1x64x64xf16>, !v [i32, i32, i32]
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @two_heads
// CHECK-SAME: tileorch.grid_split = array<i32: 0, 2>
// CHECK:      %[[PID:.*]] = nv_tileaa.get_program_id {axis = 0 : i32} : i32
// CHECK-NEXT: %[[G:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[X:.*]] = arith.floordivsi %[[PID]], %[[G]] : i32
// CHECK-NEXT: %[[GX:.*]] = nv_tileaa.muli %[[X]], %[[G]] : i32
// CHECK-NEXT: %[[PART:.*]] = nv_tileaa.subi %[[PID]], %[[GX]] : i32
// CHECK:      %[[H0:.*]] = nv_tileaa.muli %{{.*}}, %{{.*}} : i32
// CHECK:      %[[STEP:.*]] = nv_tileaa.muli %[[PART]], %{{.*}} : i32
// CHECK-NEXT: %[[H:.*]] = nv_tileaa.addi %[[H0]], %[[STEP]] : i32
// CHECK-NEXT: nv_tileaa.tiled_load %{{.*}}[%[[H]], %[[X]], %{{.*}}]
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<64x64xf32>)
// CHECK-COUNT-2: nv_tileaa.tiled_load
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      scf.yield %{{.*}} : tensor<64x64xf32>
// CHECK:      nv_tileaa.tiled_store %{{.*}}, %{{.*}}[%{{.*}}, %[[X]], %{{.*}}] token
// CHECK-NOT:  nv_tileaa.tiled_store
// CHECK:      nv_tileaa.return

// -----
// The second head's store writes the first head's tile (a program whose last store wins): left as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !m>
builtin.module {
  nv_tileaa.func @same_tile(%q: !nv_tileaa.ptr<f16>, %k: !nv_tileaa.ptr<f16>, %v: !nv_tileaa.ptr<f16>, %o: !nv_tileaa.ptr<f16>, %h: i32, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mk = nv_tileaa.make_memref %k[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mv = nv_tileaa.make_memref %v[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mo = nv_tileaa.make_memref %o[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %qt = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %h0 = nv_tileaa.muli %c2, %p : i32
    %h1a = nv_tileaa.muli %c2, %p : i32
    %h1 = nv_tileaa.addi %h1a, %c1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %vk = nv_tileaa.block_tile %mk : !m -> !v
    %vv = nv_tileaa.block_tile %mv : !m -> !v
    %vo = nv_tileaa.block_tile %mo : !m -> !v
    %q0x, %t0 = nv_tileaa.tiled_load %vq[%h0, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q0 = nv_tileaa.reshape %q0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %q1x, %t1 = nv_tileaa.tiled_load %vq[%h1, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q1 = nv_tileaa.reshape %q1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %r0, %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%a0 = %zero, %a1 = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
      %k0x, %t2 = nv_tileaa.tiled_load %vk[%h0, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k0 = nv_tileaa.reshape %k0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %k1x, %t3 = nv_tileaa.tiled_load %vk[%h1, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k1 = nv_tileaa.reshape %k1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %s0 = nv_tileaa.dot %q0, %k0, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %s1 = nv_tileaa.dot %q1, %k1, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p0 = nv_tileaa.fp_to_fp %s0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %p1 = nv_tileaa.fp_to_fp %s1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %v0x, %t4 = nv_tileaa.tiled_load %vv[%h0, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v0 = nv_tileaa.reshape %v0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %v1x, %t5 = nv_tileaa.tiled_load %vv[%h1, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v1 = nv_tileaa.reshape %v1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %d0 = nv_tileaa.dot %p0, %v0, %a0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %d1 = nv_tileaa.dot %p1, %v1, %a1 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d0, %d1 : tensor<64x64xf32>, tensor<64x64xf32>
    }
    %o0 = nv_tileaa.fp_to_fp %r0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o0x = nv_tileaa.reshape %o0 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %st0 = nv_tileaa.tiled_store %o0x, %vo[%h0, %qt, %c0] token %tok : tensor<1x64x64xf16>, !v [i32, i32, i32]
    %o1 = nv_tileaa.fp_to_fp %r1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o1x = nv_tileaa.reshape %o1 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %st1 = nv_tileaa.tiled_store %o1x, %vo[%h0, %qt, %c0] token %st0 : tensor<1x64x64xf16>, !v [i32, i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @same_tile
// CHECK-NOT:    tileorch.grid_split
// CHECK-COUNT-2: nv_tileaa.tiled_store

// -----
// Each chain loads its V tiles from O, which the chains store (one head's tiles may be another program's): left
// as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !m>
builtin.module {
  nv_tileaa.func @reads_output(%q: !nv_tileaa.ptr<f16>, %k: !nv_tileaa.ptr<f16>, %v: !nv_tileaa.ptr<f16>, %o: !nv_tileaa.ptr<f16>, %h: i32, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mk = nv_tileaa.make_memref %k[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mv = nv_tileaa.make_memref %v[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mo = nv_tileaa.make_memref %o[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %qt = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %h0 = nv_tileaa.muli %c2, %p : i32
    %h1a = nv_tileaa.muli %c2, %p : i32
    %h1 = nv_tileaa.addi %h1a, %c1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %vk = nv_tileaa.block_tile %mk : !m -> !v
    %vv = nv_tileaa.block_tile %mv : !m -> !v
    %vo = nv_tileaa.block_tile %mo : !m -> !v
    %q0x, %t0 = nv_tileaa.tiled_load %vq[%h0, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q0 = nv_tileaa.reshape %q0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %q1x, %t1 = nv_tileaa.tiled_load %vq[%h1, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q1 = nv_tileaa.reshape %q1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %r0, %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%a0 = %zero, %a1 = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
      %k0x, %t2 = nv_tileaa.tiled_load %vk[%h0, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k0 = nv_tileaa.reshape %k0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %k1x, %t3 = nv_tileaa.tiled_load %vk[%h1, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k1 = nv_tileaa.reshape %k1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %s0 = nv_tileaa.dot %q0, %k0, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %s1 = nv_tileaa.dot %q1, %k1, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p0 = nv_tileaa.fp_to_fp %s0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %p1 = nv_tileaa.fp_to_fp %s1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %v0x, %t4 = nv_tileaa.tiled_load %vo[%h0, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v0 = nv_tileaa.reshape %v0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %v1x, %t5 = nv_tileaa.tiled_load %vo[%h1, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v1 = nv_tileaa.reshape %v1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %d0 = nv_tileaa.dot %p0, %v0, %a0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %d1 = nv_tileaa.dot %p1, %v1, %a1 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d0, %d1 : tensor<64x64xf32>, tensor<64x64xf32>
    }
    %o0 = nv_tileaa.fp_to_fp %r0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o0x = nv_tileaa.reshape %o0 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %st0 = nv_tileaa.tiled_store %o0x, %vo[%h0, %qt, %c0] token %tok : tensor<1x64x64xf16>, !v [i32, i32, i32]
    %o1 = nv_tileaa.fp_to_fp %r1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o1x = nv_tileaa.reshape %o1 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %st1 = nv_tileaa.tiled_store %o1x, %vo[%h1, %qt, %c0] token %st0 : tensor<1x64x64xf16>, !v [i32, i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @reads_output
// CHECK-NOT:    tileorch.grid_split
// CHECK-COUNT-2: nv_tileaa.tiled_store

// -----
// The heads' index differs by the query tile (2p + qt), not by a constant: left as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !m>
builtin.module {
  nv_tileaa.func @not_a_progression(%q: !nv_tileaa.ptr<f16>, %k: !nv_tileaa.ptr<f16>, %v: !nv_tileaa.ptr<f16>, %o: !nv_tileaa.ptr<f16>, %h: i32, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mk = nv_tileaa.make_memref %k[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mv = nv_tileaa.make_memref %v[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mo = nv_tileaa.make_memref %o[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %qt = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %h0 = nv_tileaa.muli %c2, %p : i32
    %h1a = nv_tileaa.muli %c2, %p : i32
    %h1 = nv_tileaa.addi %h1a, %qt : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %vk = nv_tileaa.block_tile %mk : !m -> !v
    %vv = nv_tileaa.block_tile %mv : !m -> !v
    %vo = nv_tileaa.block_tile %mo : !m -> !v
    %q0x, %t0 = nv_tileaa.tiled_load %vq[%h0, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q0 = nv_tileaa.reshape %q0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %q1x, %t1 = nv_tileaa.tiled_load %vq[%h1, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q1 = nv_tileaa.reshape %q1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %r0, %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%a0 = %zero, %a1 = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
      %k0x, %t2 = nv_tileaa.tiled_load %vk[%h0, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k0 = nv_tileaa.reshape %k0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %k1x, %t3 = nv_tileaa.tiled_load %vk[%h1, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k1 = nv_tileaa.reshape %k1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %s0 = nv_tileaa.dot %q0, %k0, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %s1 = nv_tileaa.dot %q1, %k1, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p0 = nv_tileaa.fp_to_fp %s0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %p1 = nv_tileaa.fp_to_fp %s1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %v0x, %t4 = nv_tileaa.tiled_load %vv[%h0, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v0 = nv_tileaa.reshape %v0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %v1x, %t5 = nv_tileaa.tiled_load %vv[%h1, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v1 = nv_tileaa.reshape %v1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %d0 = nv_tileaa.dot %p0, %v0, %a0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %d1 = nv_tileaa.dot %p1, %v1, %a1 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d0, %d1 : tensor<64x64xf32>, tensor<64x64xf32>
    }
    %o0 = nv_tileaa.fp_to_fp %r0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o0x = nv_tileaa.reshape %o0 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %st0 = nv_tileaa.tiled_store %o0x, %vo[%h0, %qt, %c0] token %tok : tensor<1x64x64xf16>, !v [i32, i32, i32]
    %o1 = nv_tileaa.fp_to_fp %r1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o1x = nv_tileaa.reshape %o1 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %st1 = nv_tileaa.tiled_store %o1x, %vo[%h1, %qt, %c0] token %st0 : tensor<1x64x64xf16>, !v [i32, i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @not_a_progression
// CHECK-NOT:    tileorch.grid_split
// CHECK-COUNT-2: nv_tileaa.tiled_store

// -----
// The second chain accumulates onto the first chain's carried value: one chain (two stores of it), left as written.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !m>
builtin.module {
  nv_tileaa.func @shared_state(%q: !nv_tileaa.ptr<f16>, %k: !nv_tileaa.ptr<f16>, %v: !nv_tileaa.ptr<f16>, %o: !nv_tileaa.ptr<f16>, %h: i32, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mk = nv_tileaa.make_memref %k[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mv = nv_tileaa.make_memref %v[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mo = nv_tileaa.make_memref %o[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %qt = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %h0 = nv_tileaa.muli %c2, %p : i32
    %h1a = nv_tileaa.muli %c2, %p : i32
    %h1 = nv_tileaa.addi %h1a, %c1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %vk = nv_tileaa.block_tile %mk : !m -> !v
    %vv = nv_tileaa.block_tile %mv : !m -> !v
    %vo = nv_tileaa.block_tile %mo : !m -> !v
    %q0x, %t0 = nv_tileaa.tiled_load %vq[%h0, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q0 = nv_tileaa.reshape %q0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %q1x, %t1 = nv_tileaa.tiled_load %vq[%h1, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q1 = nv_tileaa.reshape %q1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %r0, %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%a0 = %zero, %a1 = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
      %k0x, %t2 = nv_tileaa.tiled_load %vk[%h0, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k0 = nv_tileaa.reshape %k0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %k1x, %t3 = nv_tileaa.tiled_load %vk[%h1, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k1 = nv_tileaa.reshape %k1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %s0 = nv_tileaa.dot %q0, %k0, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %s1 = nv_tileaa.dot %q1, %k1, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p0 = nv_tileaa.fp_to_fp %s0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %p1 = nv_tileaa.fp_to_fp %s1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %v0x, %t4 = nv_tileaa.tiled_load %vv[%h0, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v0 = nv_tileaa.reshape %v0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %v1x, %t5 = nv_tileaa.tiled_load %vv[%h1, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v1 = nv_tileaa.reshape %v1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %d0 = nv_tileaa.dot %p0, %v0, %a0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %d1 = nv_tileaa.dot %p1, %v1, %a0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d0, %d1 : tensor<64x64xf32>, tensor<64x64xf32>
    }
    %o0 = nv_tileaa.fp_to_fp %r0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o0x = nv_tileaa.reshape %o0 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %st0 = nv_tileaa.tiled_store %o0x, %vo[%h0, %qt, %c0] token %tok : tensor<1x64x64xf16>, !v [i32, i32, i32]
    %o1 = nv_tileaa.fp_to_fp %r1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o1x = nv_tileaa.reshape %o1 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %st1 = nv_tileaa.tiled_store %o1x, %vo[%h1, %qt, %c0] token %st0 : tensor<1x64x64xf16>, !v [i32, i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @shared_state
// CHECK-NOT:    tileorch.grid_split
// CHECK-COUNT-2: nv_tileaa.tiled_store

// -----
// Each chain stores two tiles of O, and chain 0's second tile is chain 1's first ([h0, qt, 1]): the program
// keeps chain 1's value there; split, two programs would race on it. Corresponding stores differ, so only the
// rule "a chain stores an array once" keeps it as written (review, session 33).
!m = !nv_tileaa.memref<f16, array<i64: ?, ?, ?>, array<i64: ?, ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 1, 64, 64>, array<i32: 1, 64, 64>, array<i32: 0, 1, 2>, !m>
builtin.module {
  nv_tileaa.func @stores_meet_across_ranks(%q: !nv_tileaa.ptr<f16>, %k: !nv_tileaa.ptr<f16>, %v: !nv_tileaa.ptr<f16>, %o: !nv_tileaa.ptr<f16>, %h: i32, %s: i32, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mq = nv_tileaa.make_memref %q[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mk = nv_tileaa.make_memref %k[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mv = nv_tileaa.make_memref %v[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %mo = nv_tileaa.make_memref %o[%h, %s, %s] [%s, %s] : !nv_tileaa.ptr<f16> [i32, i32, i32] [i32, i32] -> !m
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %qt = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %h0 = nv_tileaa.muli %c2, %p : i32
    %h1a = nv_tileaa.muli %c2, %p : i32
    %h1 = nv_tileaa.addi %h1a, %c1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %vq = nv_tileaa.block_tile %mq : !m -> !v
    %vk = nv_tileaa.block_tile %mk : !m -> !v
    %vv = nv_tileaa.block_tile %mv : !m -> !v
    %vo = nv_tileaa.block_tile %mo : !m -> !v
    %q0x, %t0 = nv_tileaa.tiled_load %vq[%h0, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q0 = nv_tileaa.reshape %q0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %q1x, %t1 = nv_tileaa.tiled_load %vq[%h1, %qt, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
    %q1 = nv_tileaa.reshape %q1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %r0, %r1 = scf.for %j = %c0 to %n step %c1 iter_args(%a0 = %zero, %a1 = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
      %k0x, %t2 = nv_tileaa.tiled_load %vk[%h0, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k0 = nv_tileaa.reshape %k0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %k1x, %t3 = nv_tileaa.tiled_load %vk[%h1, %c0, %j] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %k1 = nv_tileaa.reshape %k1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %s0 = nv_tileaa.dot %q0, %k0, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %s1 = nv_tileaa.dot %q1, %k1, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %p0 = nv_tileaa.fp_to_fp %s0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %p1 = nv_tileaa.fp_to_fp %s1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
      %v0x, %t4 = nv_tileaa.tiled_load %vv[%h0, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v0 = nv_tileaa.reshape %v0x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %v1x, %t5 = nv_tileaa.tiled_load %vv[%h1, %j, %c0] token %tok : !v [i32, i32, i32] -> tensor<1x64x64xf16>
      %v1 = nv_tileaa.reshape %v1x : tensor<1x64x64xf16> -> tensor<64x64xf16>
      %d0 = nv_tileaa.dot %p0, %v0, %a0 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %d1 = nv_tileaa.dot %p1, %v1, %a1 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d0, %d1 : tensor<64x64xf32>, tensor<64x64xf32>
    }
    %o0 = nv_tileaa.fp_to_fp %r0 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o0x = nv_tileaa.reshape %o0 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %c3 = arith.constant 2 : i32
    %st0 = nv_tileaa.tiled_store %o0x, %vo[%h0, %qt, %c0] token %tok : tensor<1x64x64xf16>, !v [i32, i32, i32]
    %st0b = nv_tileaa.tiled_store %o0x, %vo[%h0, %qt, %c1] token %st0 : tensor<1x64x64xf16>, !v [i32, i32, i32]
    %o1 = nv_tileaa.fp_to_fp %r1 {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<64x64xf32> -> tensor<64x64xf16>
    %o1x = nv_tileaa.reshape %o1 : tensor<64x64xf16> -> tensor<1x64x64xf16>
    %st1 = nv_tileaa.tiled_store %o1x, %vo[%h0, %qt, %c1] token %st0b : tensor<1x64x64xf16>, !v [i32, i32, i32]
    %st1b = nv_tileaa.tiled_store %o1x, %vo[%h0, %qt, %c3] token %st1 : tensor<1x64x64xf16>, !v [i32, i32, i32]
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @stores_meet_across_ranks
// CHECK-NOT:    tileorch.grid_split
// CHECK-COUNT-4: nv_tileaa.tiled_store
