// RUN: tileorch-opt %s --allow-unregistered-dialect --split-input-file -p optimize-execution-unit-mapping | filecheck %s
// RUN: tileorch-opt %s --allow-unregistered-dialect --split-input-file -p optimize-execution-unit-mapping,optimize-execution-unit-mapping | filecheck %s

// Consumer warpgroup + producer warp: warp ids 0 and 4, padded to 8 warps by a 3-warp hole
// (an empty region) that inherits the smallest max_regs.
builtin.module {
  nv_tileaa.func @ws() {
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 1>, max_regs = array<i32: 232, 40>, num_agents_per_group = array<i32: 1, 1>} {
      "test.consumer"() : () -> ()
      nv_tileas.async.pipeline.yield
    } {
      "test.producer"() : () -> ()
      nv_tileas.async.pipeline.yield
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @ws() attributes {nv_tileas.num_warps = 8 : i32}
// CHECK: agent_switch attributes {num_warps = array<i32: 4, 1, 3>, warp_id = array<i32: 0, 4, 5>, agent_strides = array<i32: 0, 0, 0>, max_regs = array<i32: 232, 40, 40>, num_agents_per_group = array<i32: 1, 1, 1>}
// CHECK-NEXT: "test.consumer"
// CHECK: } {
// CHECK-NEXT: "test.producer"
// CHECK: } {
// CHECK-NEXT: }

// -----

// A 1-warp agent then a warpgroup: the warpgroup's start rounds up from warp 1 to warp 4, and a
// hole record (1 warp at the old cursor, stride = the gap) marks the skipped warps.
builtin.module {
  nv_tileaa.func @holes() {
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 1, 4>} {
      "test.a"() : () -> ()
      nv_tileas.async.pipeline.yield
    } {
      "test.b"() : () -> ()
      nv_tileas.async.pipeline.yield
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: @holes
// CHECK: agent_switch attributes {num_warps = array<i32: 1, 1, 4>, warp_id = array<i32: 0, 1, 4>, agent_strides = array<i32: 0, 3, 0>}
// CHECK-NEXT: "test.a"
// CHECK: } {
// CHECK-NEXT: } {
// CHECK-NEXT: "test.b"

// -----

// tileiras' sm_90 GEMM shape (4, 1, 1, 2 warps) needs no hole; an interleaved agent (stride 1)
// moves behind the normal ones.
builtin.module {
  nv_tileaa.func @order() {
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 2, 1, 1>, agent_strides = array<i32: 0, 1, 0, 0>} {
      "test.mma"() : () -> ()
      nv_tileas.async.pipeline.yield
    } {
      "test.interleaved"() : () -> ()
      nv_tileas.async.pipeline.yield
    } {
      "test.tma"() : () -> ()
      nv_tileas.async.pipeline.yield
    } {
      "test.store"() : () -> ()
      nv_tileas.async.pipeline.yield
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: @order
// CHECK: agent_switch attributes {num_warps = array<i32: 4, 1, 1, 2>, warp_id = array<i32: 0, 4, 5, 6>, agent_strides = array<i32: 0, 0, 0, 1>}
// CHECK-NEXT: "test.mma"
// CHECK: "test.tma"
// CHECK: "test.store"
// CHECK: "test.interleaved"

// -----

// Two 2-CTA UMMA pairs (groups of 8) after a producer warp: the pair starts at warp 8.
builtin.module {
  nv_tileaa.func @pairs() {
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 1, 8>} {
      nv_tileas.async.pipeline.yield
    } {
      nv_tileas.async.pipeline.yield
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: @pairs() attributes {nv_tileas.num_warps = 16 : i32}
// CHECK: num_warps = array<i32: 1, 1, 8>, warp_id = array<i32: 0, 1, 8>, agent_strides = array<i32: 0, 7, 0>

// -----

// numWarps folds up through scf.for / scf.if into the function.
builtin.module {
  nv_tileaa.func @fold(%c: i1, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.if %c {
        nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 8, 1>} {
          nv_tileas.async.pipeline.yield
        } {
          nv_tileas.async.pipeline.yield
        }
      } else {
        nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 4, 2, 2>} {
          nv_tileas.async.pipeline.yield
        } {
          nv_tileas.async.pipeline.yield
        } {
          nv_tileas.async.pipeline.yield
        } {
          nv_tileas.async.pipeline.yield
        }
      }
    }
    nv_tileaa.return
  }
}
// CHECK-LABEL: @fold(%{{.*}}: i1, %{{.*}}: index) attributes {nv_tileas.num_warps = 12 : i32}
// CHECK: scf.for
// CHECK: scf.if
// CHECK: agent_switch attributes {num_warps = array<i32: 8, 1, 3>, warp_id = array<i32: 0, 8, 9>
// CHECK: agent_switch attributes {num_warps = array<i32: 4, 4, 2, 2>, warp_id = array<i32: 0, 4, 8, 10>
// CHECK: }{nv_tileas.num_warps = 12 : i32}
// CHECK-NEXT: } {nv_tileas.num_warps = 12 : i32}
