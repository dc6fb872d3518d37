// Verifier rules of the llvm atomics, address-space casts, nvvm mbarrier arrives and cute_nvgpu ops
// that had no negative test: one per split, each reported at its op.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

llvm.func @rmw_unknown_op(%p: !llvm.ptr<1>, %v: i32) {
  // expected-error @+1 {{unknown atomicrmw operation 99}}
  %0 = "llvm.atomicrmw"(%p, %v) <{bin_op = 99 : i64, ordering = 2 : i64}> : (!llvm.ptr<1>, i32) -> i32
  llvm.return
}

// -----

llvm.func @rmw_not_atomic(%p: !llvm.ptr<1>, %v: i32) {
  // expected-error @+1 {{atomicrmw needs an ordering of at least monotonic}}
  %0 = "llvm.atomicrmw"(%p, %v) <{bin_op = 1 : i64, ordering = 0 : i64}> : (!llvm.ptr<1>, i32) -> i32
  llvm.return
}

// -----

llvm.func @rmw_result_type(%p: !llvm.ptr<1>, %v: i32) {
  // expected-error @+1 {{atomicrmw result type must equal the value type}}
  %0 = "llvm.atomicrmw"(%p, %v) <{bin_op = 1 : i64, ordering = 2 : i64}> : (!llvm.ptr<1>, i32) -> i64
  llvm.return
}

// -----

llvm.func @cmpxchg_types(%p: !llvm.ptr<1>, %v: i32, %w: i64) {
  // expected-error @+1 {{cmpxchg compare and new values must have the same type}}
  %1 = "llvm.cmpxchg"(%p, %v, %w) <{success_ordering = 4 : i64, failure_ordering = 4 : i64}> : (!llvm.ptr<1>, i32, i64) -> !llvm.struct<(i64, i1)>
  llvm.return
}

// -----

llvm.func @cmpxchg_success_unordered(%p: !llvm.ptr<1>, %v: i32) {
  // expected-error @+1 {{cmpxchg success ordering must be at least monotonic}}
  %1 = "llvm.cmpxchg"(%p, %v, %v) <{success_ordering = 1 : i64, failure_ordering = 4 : i64}> : (!llvm.ptr<1>, i32, i32) -> !llvm.struct<(i32, i1)>
  llvm.return
}

// -----

llvm.func @cmpxchg_failure_release(%p: !llvm.ptr<1>, %v: i32) {
  // expected-error @+1 {{cmpxchg failure ordering must be monotonic, acquire or seq_cst}}
  %1 = "llvm.cmpxchg"(%p, %v, %v) <{success_ordering = 4 : i64, failure_ordering = 5 : i64}> : (!llvm.ptr<1>, i32, i32) -> !llvm.struct<(i32, i1)>
  llvm.return
}

// -----

llvm.func @addrspacecast_int(%v: i64) {
  // expected-error @+1 {{llvm.addrspacecast casts a pointer to a pointer}}
  %2 = "llvm.addrspacecast"(%v) : (i64) -> !llvm.ptr<3>
  llvm.return
}

// -----

llvm.func @arrive_generic_count(%g: !llvm.ptr, %n: i32) {
  // expected-error @+1 {{count, scope and relaxed need a !llvm.ptr<3> or !llvm.ptr<7> address}}
  %3 = "nvvm.mbarrier.arrive"(%g, %n) : (!llvm.ptr, i32) -> i64
  llvm.return
}

// -----

llvm.func @expect_tx_cluster_state(%r: !llvm.ptr<7>, %v: i32) {
  // expected-error @+1 {{only a shared::cta arrive.expect_tx returns a state}}
  %3 = "nvvm.mbarrier.arrive.expect_tx"(%r, %v) : (!llvm.ptr<7>, i32) -> i64
  llvm.return
}

// -----

llvm.func @expect_tx_predicated_state(%s: !llvm.ptr<3>, %v: i32, %b: i1) {
  // expected-error @+1 {{a predicated arrive.expect_tx has no result and no relaxed form}}
  %3 = "nvvm.mbarrier.arrive.expect_tx"(%s, %v, %b) : (!llvm.ptr<3>, i32, i1) -> i64
  llvm.return
}

// -----

llvm.func @warp_uniform_type(%v: i32) {
  // expected-error @+1 {{result 'result' at position 0 does not verify: attribute i32 expected from variable 'T', but got i1}}
  %4 = "cute_nvgpu.arch.make_warp_uniform"(%v) : (i32) -> i1
  llvm.return
}

// -----

builtin.module attributes {cutlass.target = "sm_100a"} {
  llvm.func @mbarrier_init_group(%s: !llvm.ptr<3>) {
    // expected-error @+1 {{mbarrier_init cta_group must be 1 or 2, got 3}}
    "cute_nvgpu.arch.mbarrier_init"(%s) <{cta_group = 3 : i32, count = 1 : i32}> : (!llvm.ptr<3>) -> ()
    llvm.return
  }
}
