// NVPTX's rules that LLVM IR does not have: no write through a constant-space pointer (ptxas
// rejected the PTX at line 1), and only the syncscopes NVPTX knows (any other name compiled to the
// default .gpu scope, silently).  The valid forms last.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

llvm.func @store_to_constant(%p: !llvm.ptr<4>, %v: i32) {
  // expected-error @+1 {{llvm.store writes through !llvm.ptr<4>: constant memory is read-only in a kernel}}
  llvm.store %v, %p : i32, !llvm.ptr<4>
  llvm.return
}

// -----

llvm.func @atomic_on_constant(%p: !llvm.ptr<4>, %v: i32) {
  // expected-error @+1 {{llvm.atomicrmw writes through !llvm.ptr<4>: constant memory is read-only in a kernel (write to global memory, !llvm.ptr<1>, instead)}}
  %0 = llvm.atomicrmw add %p, %v monotonic : !llvm.ptr<4>, i32
  llvm.return
}

// -----

llvm.func @unknown_scope(%p: !llvm.ptr<1>, %v: i32) {
  // expected-error @+1 {{llvm.atomicrmw syncscope 'blok' is not one NVPTX knows: use "singlethread", "block", "cluster" or "device", or none for the system scope}}
  %0 = llvm.atomicrmw add %p, %v syncscope("blok") monotonic : !llvm.ptr<1>, i32
  llvm.return
}

// -----

llvm.func @amdgpu_scope(%p: !llvm.ptr<1>, %v: i32) {
  // expected-error @+1 {{llvm.cmpxchg syncscope 'agent' is not one NVPTX knows}}
  %1 = llvm.cmpxchg %p, %v, %v syncscope("agent") acquire acquire : !llvm.ptr<1>, i32
  llvm.return
}

// -----

// An LLVM fence orders memory: a relaxed (monotonic) fence has no meaning LLVM accepts.
llvm.func @relaxed_fence() {
  // expected-error @+1 {{fence ordering must be acquire, release, acq_rel or seq_cst}}
  llvm.fence monotonic
  llvm.return
}

// -----

llvm.func @valid(%p: !llvm.ptr<1>, %c: !llvm.ptr<4>, %v: i32) {
  %x = llvm.load %c : !llvm.ptr<4> -> i32
  %0 = llvm.atomicrmw add %p, %x syncscope("block") monotonic : !llvm.ptr<1>, i32
  %1 = llvm.atomicrmw add %p, %x syncscope("cluster") monotonic : !llvm.ptr<1>, i32
  %2 = llvm.atomicrmw add %p, %x syncscope("device") monotonic : !llvm.ptr<1>, i32
  %3 = llvm.atomicrmw add %p, %x monotonic : !llvm.ptr<1>, i32
  llvm.return
}
