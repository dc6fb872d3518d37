// Atomic llvm.load / llvm.store (upstream's verifyAtomicMemOp): an atomic access moves an integer
// of 8 to 64 bits, a 16- to 64-bit float or a pointer; a load does not release, a store does not
// acquire; the ordering is one LLVM has.  An atomic store of a vector aborted LLVM's code generation
// (fuzz finding, session 17).  The valid forms last.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

llvm.func @vector_store(%p: !llvm.ptr<1>, %v: vector<8xf32>) {
  // expected-error @+1 {{unsupported type vector<8xf32> for atomic access: an atomic store moves an integer of 8 to 64 bits, a 16- to 64-bit float or a pointer}}
  "llvm.store"(%v, %p) <{ordering = 1 : i64}> : (vector<8xf32>, !llvm.ptr<1>) -> ()
  llvm.return
}

// -----

llvm.func @i1_load(%p: !llvm.ptr<1>) {
  // expected-error @+1 {{unsupported type i1 for atomic access: an atomic load moves}}
  %v = "llvm.load"(%p) <{ordering = 2 : i64}> : (!llvm.ptr<1>) -> i1
  llvm.return
}

// -----

llvm.func @release_load(%p: !llvm.ptr<1>) {
  // expected-error @+1 {{unsupported ordering 'release' for an atomic load}}
  %v = "llvm.load"(%p) <{ordering = 5 : i64}> : (!llvm.ptr<1>) -> i32
  llvm.return
}

// -----

llvm.func @acquire_store(%p: !llvm.ptr<1>, %v: i32) {
  // expected-error @+1 {{unsupported ordering 'acquire' for an atomic store}}
  "llvm.store"(%v, %p) <{ordering = 4 : i64}> : (i32, !llvm.ptr<1>) -> ()
  llvm.return
}

// -----

llvm.func @ordering_3(%p: !llvm.ptr<1>, %v: i32) {
  // expected-error @+1 {{llvm.store ordering must be one of 0 (not_atomic), 1 (unordered), 2 (monotonic), 4 (acquire), 5 (release), 6 (acq_rel), 7 (seq_cst), got 3}}
  "llvm.store"(%v, %p) <{ordering = 3 : i64}> : (i32, !llvm.ptr<1>) -> ()
  llvm.return
}

// -----

llvm.func @valid(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %v: f32, %w: vector<8xf32>) {
  "llvm.store"(%v, %p) <{ordering = 5 : i64}> : (f32, !llvm.ptr<1>) -> ()
  "llvm.store"(%q, %p) <{ordering = 1 : i64}> : (!llvm.ptr<1>, !llvm.ptr<1>) -> ()
  %a = "llvm.load"(%p) <{ordering = 4 : i64}> : (!llvm.ptr<1>) -> i64
  "llvm.store"(%w, %p) <{ordering = 0 : i64}> : (vector<8xf32>, !llvm.ptr<1>) -> ()
  llvm.return
}
