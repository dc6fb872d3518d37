// nv_tileas verifier rules that had no negative test (tools/untested_diagnostics.py, session 21):
// create_pipeline's result type with and without storage, 'pending' on an mbarrier wait, a future's
// source type and flavour, an agent region of two blocks, a stage region yielding other than it returns.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

nv_tileaa.func @a() {
  // expected-error @+1 {{a create_pipeline without storage returns an !nv_tileas.async.pipeline}}
  %p = nv_tileas.async.pipeline.create_pipeline {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileas.pipeline<2>
  nv_tileaa.return
}

// -----

nv_tileaa.func @b(%ready: !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>) {
  // expected-error @+1 {{a create_pipeline bound to storage returns an !nv_tileas.pipeline}}
  %t = nv_tileas.async.pipeline.create_pipeline %ready {num_stages = 2 : i32, producer_group = 1 : i32, consumer_group = 1 : i32} : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2> -> !nv_tileas.async.pipeline<2, tuple<tensor<16xf32>>>
  nv_tileaa.return
}

// -----

nv_tileaa.func @c() {
  %t = nv_tileas.create_none : !nv_tileas.token<mbarrier>
  // expected-error @+1 {{'pending' applies to tma/gmma group waits only}}
  nv_tileas.async.wait %t {pending = 1 : i32} : !nv_tileas.token<mbarrier>
  nv_tileaa.return
}

// -----

nv_tileaa.func @d(%x: i64) {
  // expected-error @+1 {{a tma future is made from i32, got i64}}
  %f = nv_tileas.async.to_async %x : i64 -> !nv_tileas.async<tma>
  nv_tileaa.return
}

// -----

nv_tileaa.func @e() {
  %t = nv_tileas.create_none : !nv_tileas.token<tma>
  // expected-error @+1 {{token flavor tma differs from future flavor gmma}}
  %f = nv_tileas.async.token_to_async %t : !nv_tileas.token<tma> -> !nv_tileas.async<gmma>
  nv_tileaa.return
}

// -----

nv_tileaa.func @f() {
  // expected-error @+1 {{each agent region has at most one block}}
  nv_tileas.async.pipeline.agent_switch attributes {num_warps = array<i32: 4>, warp_id = array<i32: 0>, agent_strides = array<i32: 0>} {
    cf.br ^bb1
  ^bb1:
    nv_tileas.async.pipeline.yield
  }
  nv_tileaa.return
}

// -----

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @regions(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>}
    %t = nv_tileas.async.pipeline.create_pipeline %ready {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2> -> !nv_tileas.pipeline<2>
    cutlass.async.exec warp mask(0x1) {
      %s = cutlass.pipeline.state.create %ready producer
      // expected-error @+1 {{region yields 0 value(s) of type(s) () but the op returns (i32)}}
      %r = nv_tileas.async.pipeline.producer %t[%s] : !nv_tileas.pipeline<2>, !cutlass.pipeline_state<2> -> i32 {
        nv_tileas.async.pipeline.yield
      }
    }
    func.return
  }
}
