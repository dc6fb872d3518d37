// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p propagate-execution-unit | filecheck %s

// The two branches need different warp counts.
builtin.module {
  nv_tileaa.func @branches(%c: i1) {
    scf.if %c {
      nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 4>, warp_id = array<i32: 0, 4>} {
        nv_tileas.async.pipeline.yield
      } {
        nv_tileas.async.pipeline.yield
      }
    } else {
      nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4>, warp_id = array<i32: 0>} {
        nv_tileas.async.pipeline.yield
      }
    }
    nv_tileaa.return
  }
}
// CHECK: propagate_execution_unit_errors.mlir:6:5: error: inconsistent numWarps in the agent switch, maybe it is called in different agents with different numWarps (found [4, 8])

// -----

// One helper called from a 4-warp agent and from a 1-warp agent.
builtin.module {
  func.func @helper() {
    func.return
  }
  func.func @k() {
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 1>, warp_id = array<i32: 0, 4>} {
      func.call @helper() : () -> ()
      nv_tileas.async.pipeline.yield
    } {
      func.call @helper() : () -> ()
      nv_tileas.async.pipeline.yield
    }
    func.return
  }
}
// CHECK: propagate_execution_unit_errors.mlir:26:3: error: inconsistent numWarps in the agent switch, maybe it is called in different agents with different numWarps (@helper is called by agents of [1, 4] warps)

// -----

// A nested switch wider than its agent.
builtin.module {
  nv_tileaa.func @nested() {
    nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 4>, warp_id = array<i32: 0, 4>} {
      nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4, 4>, warp_id = array<i32: 0, 4>} {
        nv_tileas.async.pipeline.yield
      } {
        nv_tileas.async.pipeline.yield
      }
      nv_tileas.async.pipeline.yield
    } {
      nv_tileas.async.pipeline.yield
    }
    nv_tileaa.return
  }
}
// CHECK: propagate_execution_unit_errors.mlir:[[# @LINE - 12]]:7: error: expect the number of warps to be less or equal to the number of warps in the pipeline agent switch op (agent 0 has 4 warps, this needs 8)
