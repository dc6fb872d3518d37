// Verifier negatives for the nvvm dialect (ranges from the PTX ISA and upstream NVVMOps.td).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// mbarrier on global memory
llvm.func @f(%c1: i32, %g: !llvm.ptr<1>) {
  nvvm.mbarrier.init %g, %c1 : !llvm.ptr<1>, i32
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mbarrier address must be !llvm.ptr (generic) or !llvm.ptr<3> (shared::cta), got !llvm.ptr<1>

// -----

// arrival count 0 (PTX: count must be in [1, 2^20-1])
llvm.func @f(%c1: i32, %b: !llvm.ptr<3>) {
  %z = llvm.mlir.constant(0 : i32) : i32
  nvvm.mbarrier.init %b, %z : !llvm.ptr<3>, i32
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mbarrier arrival count must be in [1, 1048575], got 0

// -----

// arrival count 2^20
llvm.func @f(%c1: i32, %b: !llvm.ptr<3>) {
  %z = arith.constant 1048576 : i32
  nvvm.mbarrier.init.shared %b, %z : !llvm.ptr<3>, i32
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mbarrier arrival count must be in [1, 1048575], got 1048576

// -----

// the .shared spelling needs ptr<3>
llvm.func @f(%c1: i32, %g: !llvm.ptr) {
  nvvm.mbarrier.init.shared %g, %c1 : !llvm.ptr, i32
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mbarrier address must be !llvm.ptr<3> (shared::cta), got !llvm.ptr

// -----

// remote (shared::cluster) arrive has no state
llvm.func @f(%c1: i32, %r: !llvm.ptr<7>) {
  %s = nvvm.mbarrier.arrive %r : !llvm.ptr<7> -> i64
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: an arrive on a shared::cluster barrier returns no state

// -----

// mbarrier scope gpu
llvm.func @f(%c1: i32, %b: !llvm.ptr<3>) {
  %s = nvvm.mbarrier.arrive %b {scope = #nvvm.mem_scope<gpu>} : !llvm.ptr<3> -> i64
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mbarrier scope must be cta or cluster

// -----

// phase parity 2
llvm.func @f(%c1: i32, %b: !llvm.ptr<3>) {
  %two = llvm.mlir.constant(2 : i32) : i32
  nvvm.mbarrier.try_wait.parity %b, %two, %c1 : !llvm.ptr<3>, i32, i32
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: phase parity must be in [0, 1], got 2

// -----

// try_wait wait operand of the wrong width
llvm.func @f(%c1: i32, %b: !llvm.ptr<3>, %x: i16) {
  %d = nvvm.mbarrier.try_wait %b, %x : !llvm.ptr<3>, i16 -> i1
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the wait operand is an i32 phase parity or an i64 state

// -----

// async.shared fence needs a space
llvm.func @f(%c1: i32) {
  nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>}
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: async.shared fence requires a space attribute

// -----

// tensormap proxy is not a fence.proxy kind
llvm.func @f(%c1: i32) {
  nvvm.fence.proxy {kind = #nvvm.proxy_kind<tensormap>}
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tensormap proxy is not supported by nvvm.fence.proxy (use fence.proxy.acquire/release)

// -----

// space only on async.shared
llvm.func @f(%c1: i32) {
  nvvm.fence.proxy {kind = #nvvm.proxy_kind<alias>, space = #nvvm.shared_space<cta>}
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: only the async.shared fence can have a space attribute

// -----

// thread count not a multiple of 32
llvm.func @f(%c1: i32) {
  %id = llvm.mlir.constant(1 : i32) : i32
  %n = llvm.mlir.constant(100 : i32) : i32
  nvvm.barrier id = %id number_of_threads = %n
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: number of threads must be a positive multiple of 32 (warp size), got 100

// -----

// named barrier id 16 (16 hardware barriers 0..15)
llvm.func @f(%c1: i32) {
  %id = llvm.mlir.constant(16 : i32) : i32
  %n = llvm.mlir.constant(128 : i32) : i32
  nvvm.barrier.arrive id = %id number_of_threads = %n
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: barrier id must be in [0, 15], got 16

// -----

// thread count without an id
llvm.func @f(%c1: i32) {
  %n = llvm.mlir.constant(128 : i32) : i32
  nvvm.barrier number_of_threads = %n
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: barrier id is missing, it should be set between 0 to 15

// -----

// mapa shared::cta -> generic
llvm.func @f(%c1: i32, %b: !llvm.ptr<3>) {
  %m = nvvm.mapa %b, %c1 : !llvm.ptr<3> -> !llvm.ptr
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mapa maps !llvm.ptr<3> to !llvm.ptr<7> and !llvm.ptr to !llvm.ptr, got !llvm.ptr<3> -> !llvm.ptr

// -----

// bulk copy size not a multiple of 16
llvm.func @f(%c1: i32, %r: !llvm.ptr<7>, %s: !llvm.ptr<1>, %b: !llvm.ptr<3>) {
  %sz = llvm.mlir.constant(100 : i32) : i32
  nvvm.cp.async.bulk.shared.cluster.global %r, %s, %b, %sz : !llvm.ptr<7>, !llvm.ptr<1>
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: bulk copy size must be a positive multiple of 16 bytes, got 100

// -----

// setmaxregister above 256
llvm.func @f(%c1: i32) {
  nvvm.setmaxregister increase 264
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: setmaxregister count must be a multiple of 8 in [24, 256], got 264

// -----

// setmaxregister not a multiple of 8
llvm.func @f(%c1: i32) {
  nvvm.setmaxregister decrease 44
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: setmaxregister count must be a multiple of 8 in [24, 256], got 44

// -----

// nanosleep above 1 ms
llvm.func @f(%c1: i32) {
  %ns = llvm.mlir.constant(2000000 : i32) : i32
  nvvm.nanosleep %ns
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: nanosleep duration (ns) must be in [0, 1000000], got 2000000

// -----

// wgmma wait group above 7
llvm.func @f(%c1: i32) {
  nvvm.wgmma.wait.group.sync.aligned 8
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: wgmma group count must be in [0, 7], got 8

// -----

// special register of the wrong width
llvm.func @f(%c1: i32) {
  %t = nvvm.read.ptx.sreg.globaltimer : i32
  llvm.return
}
// CHECK: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: nvvm.read.ptx.sreg.globaltimer returns i64, got i32
