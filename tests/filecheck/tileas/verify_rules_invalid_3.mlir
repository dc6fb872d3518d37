// More nv_tileas verifier rules that had no negative test (tools/untested_diagnostics.py, session 19):
// token and pipeline types, async.wait tokens and pending, async.exec executors, masks and yields,
// the kernel's signature, agent_switch regions and warps, create_pipeline groups.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{unknown async flavor 'dma'}}
nv_tileaa.func @flavor(%t: !nv_tileas.token<dma>) {
  nv_tileaa.return
}

// -----

// expected-error @+1 {{pipeline stage count must be positive, got 0}}
nv_tileaa.func @stages(%p: !nv_tileas.pipeline<0>) {
  nv_tileaa.return
}

// -----

nv_tileaa.func @wait_pending() {
  %t = nv_tileas.create_none : !nv_tileas.token<tma>
  // expected-error @+1 {{pending must be in [0, 7], got 9}}
  nv_tileas.async.wait %t {pending = 9 : i32} : !nv_tileas.token<tma>
  nv_tileaa.return
}

// -----

nv_tileaa.func @wait_flavors() {
  %t = nv_tileas.create_none : !nv_tileas.token<tma>
  %g = nv_tileas.create_none : !nv_tileas.token<gmma>
  // expected-error @+1 {{all tokens of one wait must share a flavor, got ['gmma', 'tma']}}
  nv_tileas.async.wait %t, %g : !nv_tileas.token<tma>, !nv_tileas.token<gmma>
  nv_tileaa.return
}

// -----

nv_tileaa.func @wait_none() {
  // expected-error @+1 {{nv_tileas.async.wait needs at least one token}}
  "nv_tileas.async.wait"() : () -> ()
  nv_tileaa.return
}

// -----

nv_tileaa.func @exec_kind() {
  // expected-error @+1 {{unknown executor kind 'grid'}}
  nv_tileas.async.exec "grid" mask = 1 : i64 {
    nv_tileas.async.pipeline.yield
  }
  nv_tileaa.return
}

// -----

nv_tileaa.func @exec_mask() {
  // expected-error @+1 {{executor mask must be non-empty}}
  nv_tileas.async.exec "warpgroup" mask = 0 : i64 {
    nv_tileas.async.pipeline.yield
  }
  nv_tileaa.return
}

// -----

nv_tileaa.func @exec_mask_far() {
  // expected-error @+1 {{executor mask reaches past 1024 threads}}
  nv_tileas.async.exec "warpgroup" mask = 256 : i64 {
    nv_tileas.async.pipeline.yield
  }
  nv_tileaa.return
}

// -----

nv_tileaa.func @exec_yield() {
  %c = arith.constant 0 : i32
  // expected-error @+1 {{nv_tileas.async.exec region must end with an empty yield}}
  nv_tileas.async.exec "warpgroup" mask = 1 : i64 {
    nv_tileas.async.pipeline.yield %c : i32
  }
  nv_tileaa.return
}

// -----

// expected-error @+1 {{a kernel returns nothing}}
"nv_tileas.kernel"() <{sym_name = "k", function_type = () -> i32}> ({
}) : () -> ()

// -----

// expected-error @+1 {{kernel entry block arguments do not match its function type}}
"nv_tileas.kernel"() <{sym_name = "k", function_type = (i32) -> ()}> ({
^bb0(%x: i64):
}) : () -> ()

// -----

nv_tileaa.func @agent_switch_none() {
  // expected-error @+1 {{agent_switch needs at least one agent region}}
  "nv_tileas.async.pipeline.agent_switch"() {num_warps = array<i32>, warp_id = array<i32>, agent_strides = array<i32>, max_regs = array<i32>, num_agents_per_group = array<i32>} : () -> ()
  nv_tileaa.return
}

// -----

nv_tileaa.func @agent_switch_warp_40() {
  // expected-error @+1 {{agent 0 reaches warp 32; a CTA has at most 32 warps}}
  nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4>, warp_id = array<i32: 32>, agent_strides = array<i32: 1>, max_regs = array<i32: 40>, num_agents_per_group = array<i32: 1>} {
    nv_tileas.async.pipeline.yield
  }
  nv_tileaa.return
}

// -----

nv_tileaa.func @agent_switch_overlap() {
  // expected-error @+1 {{agents 0 and 1 both own warp 2}}
  "nv_tileas.async.pipeline.agent_switch"() ({
    "nv_tileas.async.pipeline.yield"() : () -> ()
  }, {
    "nv_tileas.async.pipeline.yield"() : () -> ()
  }) {num_warps = array<i32: 4, 4>, warp_id = array<i32: 0, 2>, agent_strides = array<i32: 1, 1>, max_regs = array<i32: 40, 40>, num_agents_per_group = array<i32: 1, 1>} : () -> ()
  nv_tileaa.return
}

// -----

nv_tileaa.func @create_pipeline_groups(%ready: !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>) {
  // expected-error @+1 {{producer_group and consumer_group must differ}}
  %t = nv_tileas.async.pipeline.create_pipeline %ready {num_stages = 2 : i32, producer_group = 1 : i32, consumer_group = 1 : i32} : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2> -> !nv_tileas.pipeline<2>
  nv_tileaa.return
}
