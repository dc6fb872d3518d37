// nv_tileas verifier rules that had no negative test (layout attributes: memory kind, keys, atoms,
// instr, list values; encodings; MMA shapes; pipeline types and create_pipeline; agent_switch
// warps; alloc_tensor, convert_layout, inc_iter): one per split, each reported at its op.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{unknown memory kind 'hbm', expected one of reg, smem, tmem}}
nv_tileaa.func @memory_kind(%b: tensor<64x128xf16, #nv_tileas.layout<hbm>>) {
  nv_tileaa.return
}

// -----

// expected-error @+1 {{layout key 'atom' does not apply to smem layouts}}
nv_tileaa.func @layout_key(%b: tensor<64x128xf16, #nv_tileas.layout<smem, atom = blocked>>) {
  nv_tileaa.return
}

// -----

// expected-error @+1 {{unknown register layout atom 'bogus'}}
nv_tileaa.func @register_atom(%b: tensor<64x128xf16, #nv_tileas.layout<reg, atom = bogus>>) {
  nv_tileaa.return
}

// -----

// expected-error @+1 {{a mma_acc layout needs instr = [M, N, K]}}
nv_tileaa.func @mma_acc_instr(%b: tensor<64x128xf32, #nv_tileas.layout<reg, atom = mma_acc, warps = [4, 1]>>) {
  nv_tileaa.return
}

// -----

// expected-error @+1 {{layout key 'order' takes a list of integers}}
nv_tileaa.func @list_key(%b: tensor<64x128xf16, #nv_tileas.layout<smem, swizzle = 128, order = 1>>) {
  nv_tileaa.return
}

// -----

nv_tileaa.func @encoding(%b: tensor<64x128xf16, "x">) {
  // expected-error @+1 {{'nv_tileas.convert_layout' encoding must be a #nv_tileas.layout, got "x"}}
  %c = nv_tileas.convert_layout %b : tensor<64x128xf16, "x"> -> tensor<64x128xf16, #nv_tileas.layout<reg>>
  nv_tileaa.return
}

// -----

// expected-error @+1 {{nv_tileas.mma.sm90 needs a positive [M, N, K] shape}}
nv_tileaa.func @mma_shape(%b: tensor<64x128xf16, #nv_tileas.layout<reg>>) attributes {a = #nv_tileas.mma.sm90<[0, 128, 16]>} {
  nv_tileaa.return
}

// -----

// expected-error @+1 {{pipeline depth must be positive, got 0}}
nv_tileaa.func @pipeline_depth(%p: !nv_tileas.async.pipeline<0, tuple<tensor<64x128xf16, #nv_tileas.layout<smem>>>>) {
  nv_tileaa.return
}

// -----

// expected-error @+1 {{a pipeline carries at least one element type}}
nv_tileaa.func @pipeline_elements(%p: !nv_tileas.async.pipeline<2, tuple<>>) {
  nv_tileaa.return
}

// -----

nv_tileaa.func @create_pipeline_stages() {
  // expected-error @+1 {{num_stages must be positive, got 0}}
  %p = nv_tileas.async.pipeline.create_pipeline {num_stages = 0 : i32, producer_group = 0 : i32, consumer_group = 1 : i32, num_consumers = 1 : i32} : !nv_tileas.async.pipeline<4, tuple<tensor<64x128xf16, #nv_tileas.layout<smem>>>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @create_pipeline_depth() {
  // expected-error @+1 {{result type has depth 4 but num_stages is 2}}
  %p = nv_tileas.async.pipeline.create_pipeline {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32, num_consumers = 1 : i32} : !nv_tileas.async.pipeline<4, tuple<tensor<64x128xf16, #nv_tileas.layout<smem>>>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @create_pipeline_consumers() {
  // expected-error @+1 {{num_consumers must be positive}}
  %p = nv_tileas.async.pipeline.create_pipeline {num_stages = 4 : i32, producer_group = 0 : i32, consumer_group = 1 : i32, num_consumers = 0 : i32} : !nv_tileas.async.pipeline<4, tuple<tensor<64x128xf16, #nv_tileas.layout<smem>>>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @agent_switch_no_agent() {
  // expected-error @+1 {{num_warps has 0 entries for 1 agent regions}}
  nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32>, warp_id = array<i32>, agent_strides = array<i32>, max_regs = array<i32>, num_agents_per_group = array<i32>} {
  }
  nv_tileaa.return
}

// -----

nv_tileaa.func @agent_switch_zero_warps() {
  // expected-error @+1 {{every agent needs num_warps > 0}}
  nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 0>, warp_id = array<i32: 0>, agent_strides = array<i32: 0>, max_regs = array<i32: 40>, num_agents_per_group = array<i32: 1>} {
    nv_tileas.async.pipeline.yield
  }
  nv_tileaa.return
}

// -----

nv_tileaa.func @agent_switch_negative_warp(%x: i32) {
  // expected-error @+1 {{warp_id and agent_strides must be non-negative}}
  nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4>, warp_id = array<i32: -1>, agent_strides = array<i32: 0>, max_regs = array<i32: 40>, num_agents_per_group = array<i32: 1>} {
    nv_tileas.async.pipeline.yield
  }
  nv_tileaa.return
}

// -----

nv_tileaa.func @alloc_tensor_reg() {
  // expected-error @+1 {{alloc_tensor allocates shared or tensor memory: give the result an smem/tmem layout}}
  %buf = nv_tileas.alloc_tensor : tensor<128x128xf32, #nv_tileas.layout<reg>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @convert_layout_shape(%b: tensor<64x128xf16, #nv_tileas.layout<reg>>) {
  // expected-error @+1 {{convert_layout keeps shape and element type: tensor<64x128xf16, #nv_tileas.layout<reg>> vs tensor<128x64xf16,}}
  %c = nv_tileas.convert_layout %b : tensor<64x128xf16, #nv_tileas.layout<reg>> -> tensor<128x64xf16, #nv_tileas.layout<reg>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @inc_iter_type(%x: i32) {
  // expected-error @+1 {{inc_iter takes a pipeline iterator}}
  %i = nv_tileas.async.pipeline.inc_iter %x : i32
  nv_tileaa.return
}
