// RUN: env TILEORCH_SIMT_PREDICATED_TAILS=0 tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt --verify-diagnostics | filecheck %s

// Elementwise math stays in registers: a 256-element f32 tile on 128 threads is one run of two
// contiguous elements per thread (layout.py).  The whole tile in bounds and its origin aligned
// (one uniform test), every run moves as one vector access; else, when the extent left from
// the tile's origin is a multiple of the run (runs wholly inside or wholly outside), each run
// moves as one vector predicated on lying inside (the padding outside); otherwise each run is
// tested: a run in bounds and aligned moves as one vector, else (when some element lies
// inside) its elements are loaded one by one, predicated on the bounds, reading the padding
// value outside.  A vector load is a predicated
// ld.global.v2.b32 (inline PTX) issued before the branch that unpacks it: no branch between
// the vector loads of a tile, none of them waits for another.
// CHECK: llvm.mlir.global internal @__tileorch_simt_scratch() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<{{[0-9]+}} x i8>
// CHECK-LABEL: func.func @axpy
// CHECK-SAME: (%[[X:.*]]: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %[[N:.*]]: i32)
// CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[TID2:.*]] = arith.muli %[[TID]], %{{.*}} : i32
// CHECK: %[[BID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: %[[PAD:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[O:.*]] = arith.muli %[[BID]], %{{.*}} : i32
// CHECK: %[[TEND:.*]] = arith.addi %[[O]], %{{.*}} : i32
// CHECK: arith.cmpi sle, %[[TEND]], %[[N]] : i32
// CHECK: %[[LEFT:.*]] = arith.subi %[[N]], %[[O]] : i32
// CHECK: arith.andi %[[LEFT]], %{{.*}} : i32
// CHECK: llvm.ptrtoint
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq
// CHECK-NEXT: %[[WHOLE:.*]] = arith.andi %{{.*}}, %[[ALIGNED]] : i1
// CHECK-NEXT: %[[ROWS:.*]] = arith.andi %{{.*}}, %[[ALIGNED]] : i1
// CHECK: %[[PT:.*]] = llvm.getelementptr %[[X]]
// CHECK: %[[WP:.*]] = arith.extui %[[WHOLE]] : i1 to i32
// CHECK: %[[AT:.*]] = llvm.ptrtoint %[[PT]] : !llvm.ptr<1> to i64
// CHECK: %[[VT:.*]] = llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, $2, 0; mov.b32 $0, 0; mov.b32 $1, 0; @p ld.global.v2.b32 {$0, $1}, [$3]; }", "=r,=r,r,l" %[[WP]], %[[AT]] : (i32, i64) -> !llvm.struct<(i32, i32)>
// CHECK: %[[W0:.*]] = llvm.extractvalue %[[VT]][0]
// CHECK: %[[W1:.*]] = llvm.extractvalue %[[VT]][1]
// CHECK: %[[X0W:[0-9]+]], %[[X1W:[0-9]+]] = scf.if %[[WHOLE]] -> (i32, i32) {
// CHECK-NEXT: scf.yield %[[W0]], %[[W1]] : i32, i32
// CHECK: } else {
// CHECK: %[[REND:.*]] = arith.addi %[[TID2]], %{{.*}} : i32
// CHECK: %[[IN:.*]] = arith.cmpi sle, %[[REND]], %[[LEFT]] : i32
// CHECK: %[[RP:.*]] = arith.andi %[[ROWS]], %[[IN]] : i1
// CHECK: %[[RPW:.*]] = arith.extui %[[RP]] : i1 to i32
// CHECK: llvm.inline_asm has_side_effects "{{.*}}@p ld.global.v2.b32 {$0, $1}, [$3]; }", "=r,=r,r,l" %[[RPW]]
// CHECK: scf.if %[[ROWS]] -> (i32, i32) {
// CHECK: } else {
// CHECK: %[[G:.*]] = arith.addi %{{.*}}, %[[TID2]] : i32
// CHECK: %[[P:.*]] = llvm.getelementptr %[[X]]
// CHECK: %[[END:.*]] = arith.addi %[[G]], %{{.*}} : i32
// CHECK: arith.cmpi sle, %[[END]], %[[N]] : i32
// CHECK: llvm.ptrtoint %[[P]] : !llvm.ptr<1> to i64
// CHECK: %[[FAST:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: %[[FP:.*]] = arith.extui %[[FAST]] : i1 to i32
// CHECK: %[[V:.*]] = llvm.inline_asm has_side_effects "{{.*}}@p ld.global.v2.b32 {$0, $1}, [$3]; }", "=r,=r,r,l" %[[FP]]
// CHECK: %[[V0:.*]] = llvm.extractvalue %[[V]][0]
// CHECK-NOT: llvm.load
// CHECK: scf.if %[[FAST]] -> (i32, i32) {
// CHECK-NEXT: scf.yield %[[V0]]
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (i32, i32) {
// CHECK: arith.cmpi slt, %[[G]], %[[N]] : i32
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: llvm.load %[[P]] <alignment = 4> : !llvm.ptr<1> -> f32
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[PAD]] : f32
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// the elements are unpacked after the last merge
// CHECK: %[[X0:.*]] = arith.bitcast %[[X0W]] : i32 to f32
// CHECK: %[[X1:.*]] = arith.bitcast %[[X1W]] : i32 to f32
// CHECK-NOT: nvvm.barrier
// CHECK: arith.mulf %[[X0]], %{{.*}} : f32
// CHECK: arith.mulf %[[X1]], %{{.*}} : f32
// CHECK-NOT: nvvm.barrier
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} <alignment = 8> : vector<2xf32>, !llvm.ptr<1>
// CHECK: } else {
// CHECK: scf.if %{{.*}} {
// CHECK: scf.if %{{.*}} {
// CHECK: llvm.store %{{.*}}, %{{.*}} <alignment = 8> : vector<2xf32>, !llvm.ptr<1>
// CHECK: } else {
// CHECK: llvm.store %{{.*}}, %{{.*}} <alignment = 8> : vector<2xf32>, !llvm.ptr<1>
// CHECK: } else {
// CHECK: scf.if %{{.*}} {
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
// CHECK: func.return
builtin.module {
  nv_tileaa.func @axpy(%x: !nv_tileaa.ptr<f32>, %y: !nv_tileaa.ptr<f32>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %mx = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %my = nv_tileaa.make_memref %y[%n] [] : !nv_tileaa.ptr<f32>[i32] [] -> !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>
    %vx = nv_tileaa.block_tile %mx : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %vy = nv_tileaa.block_tile %my : !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %tok = nv_tileaa.tiled_load %vx[%b] : !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<256xf32>
    %two = arith.constant dense<2.0> : tensor<256xf32>
    %r = nv_tileaa.mulf %t, %two : tensor<256xf32>
    %s = nv_tileaa.tiled_store %r, %vy[%b] : tensor<256xf32>, !nv_tileaa.tiled_view<array<i32: 256>, array<i32: 256>, array<i32: 0>, !nv_tileaa.memref<f32, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}

// -----

// A row reduction of a power-of-two tile stays in registers: each thread folds its two slots,
// five butterfly shuffles combine the lanes of a warp (the lower lane's value first), the eight
// warps' partials meet in shared memory (barrier, store, barrier, eight loads folded).  The
// one-element result is held by every thread: broadcasting it back needs no exchange.
// CHECK-LABEL: func.func @rowmax
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK: llvm.call_intrinsic "llvm.maxnum.f32"
// CHECK-COUNT-5: llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"
// CHECK: nvvm.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[B:.*]] = llvm.call_intrinsic "llvm.maxnum.f32"
// CHECK-NOT: nvvm.barrier
// CHECK: arith.subf %{{.*}}, %[[B]] : f32
// CHECK: arith.subf %{{.*}}, %[[B]] : f32
// CHECK: func.return
builtin.module {
  nv_tileaa.func @rowmax(%f: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %x = nv_tileaa.splat %f : f32 -> tensor<1x512xf32>
    %r = "nv_tileaa.reduce"(%x) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      %m = nv_tileaa.maxf %p, %q : f32
      "nv_tileaa.yield"(%m) : (f32) -> ()
    }) : (tensor<1x512xf32>) -> tensor<1xf32>
    %r2 = nv_tileaa.expand_dims %r {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
    %rb = nv_tileaa.broadcast %r2 : tensor<1x1xf32> -> tensor<1x512xf32>
    %d = nv_tileaa.subf %x, %rb : tensor<1x512xf32>
    nv_tileaa.return
  }
}

// -----

// A row reduction of a shape that is not a power of two goes through shared memory: barrier,
// each slot written at its flat index, barrier.  One output on 256 threads: 256 threads share it, each folds every 256th element
// (a loop from its lane), writes its partial, and a tree of 8 halving steps (each under
// `lane < stride`, then a barrier) combines them.  The result is read from partial 0 and
// broadcast through the scratch again.
// CHECK-LABEL: func.func @rowmax384
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: nvvm.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK: %[[STEP:.*]] = arith.constant 256 : i32
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %[[STEP]] : i32
// CHECK: %[[INIT:.*]] = arith.constant 0xff800000 : f32
// CHECK: %[[RED:.*]] = scf.for %[[R:.*]] = %[[LANE]] to %{{.*}} step %[[STEP]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) : i32 {
// CHECK: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[M:.*]] = llvm.call_intrinsic "llvm.maxnum.f32"(%[[ACC]], %[[V]]) : (f32, f32) -> f32
// CHECK: scf.yield %[[M]] : f32
// CHECK: llvm.store %[[RED]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK: %[[S128:.*]] = arith.constant 128 : i32
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[LANE]], %[[S128]] : i32
// CHECK: scf.if %[[IN]] {
// CHECK: llvm.call_intrinsic "llvm.maxnum.f32"
// CHECK: nvvm.barrier
// CHECK-COUNT-7: nvvm.barrier
// CHECK: nvvm.barrier
// CHECK: nvvm.barrier
// CHECK: %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: arith.subf %{{.*}}, %[[B]] : f32
builtin.module {
  nv_tileaa.func @rowmax384(%f: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %x = nv_tileaa.splat %f : f32 -> tensor<1x384xf32>
    %r = "nv_tileaa.reduce"(%x) <{dim = 1 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%p: f32, %q: f32):
      %m = nv_tileaa.maxf %p, %q : f32
      "nv_tileaa.yield"(%m) : (f32) -> ()
    }) : (tensor<1x384xf32>) -> tensor<1xf32>
    %r2 = nv_tileaa.expand_dims %r {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
    %rb = nv_tileaa.broadcast %r2 : tensor<1x1xf32> -> tensor<1x384xf32>
    %d = nv_tileaa.subf %x, %rb : tensor<1x384xf32>
    nv_tileaa.return
  }
}

// -----

// A transpose reads each output element from the source's flat index: out[i, j] = in[j, i],
// at scratch position index + index / 32 (one pad element per 32: fewer bank conflicts).
// CHECK-LABEL: func.func @transpose
// CHECK: nvvm.barrier
// CHECK: %[[C5:.*]] = arith.constant 5 : i32
// CHECK: nvvm.barrier
// CHECK: %[[I:.*]] = arith.divui %{{.*}}, %{{.*}} : i32
// CHECK: %[[J:.*]] = arith.remui %{{.*}}, %{{.*}} : i32
// CHECK: %[[C:.*]] = arith.constant 16 : i32
// CHECK: %[[JS:.*]] = arith.muli %[[J]], %[[C]] : i32
// CHECK: %[[SRC:.*]] = arith.addi %[[JS]], %[[I]] : i32
// CHECK: %[[Q:.*]] = arith.shrui %[[SRC]], %[[C5]] : i32
// CHECK: %[[POS:.*]] = arith.addi %[[SRC]], %[[Q]] : i32
// CHECK: llvm.getelementptr %{{.*}}[%[[POS]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
builtin.module {
  nv_tileaa.func @transpose(%f: f32) {
    %x = nv_tileaa.splat %f : f32 -> tensor<8x16xf32>
    %y = "nv_tileaa.permute"(%x) <{permutation = array<i32: 1, 0>}> : (tensor<8x16xf32>) -> tensor<16x8xf32>
    nv_tileaa.return
  }
}

// -----

// bf16 tiles are held as f32: loads widen the 16 bits, stores round with cvt.rn.bf16.f32.
// CHECK-LABEL: func.func @bf16_copy
// CHECK: %[[BITS:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> i16
// CHECK: %[[W:.*]] = arith.extui %[[BITS]] : i16 to i32
// CHECK: %[[S:.*]] = arith.shli %[[W]], %{{.*}} : i32
// CHECK: arith.bitcast %[[S]] : i32 to f32
// CHECK: llvm.inline_asm "cvt.rn.bf16.f32 $0, $1;", "=h,f" %{{.*}} : (f32) -> i16
// CHECK: llvm.store %{{.*}}, %{{.*}} : i16, !llvm.ptr<1>
builtin.module {
  nv_tileaa.func @bf16_copy(%x: !nv_tileaa.ptr<bf16>, %n: i32) {
    %m = nv_tileaa.make_memref %x[%n] [] : !nv_tileaa.ptr<bf16>[i32] [] -> !nv_tileaa.memref<bf16, array<i64: ?>, array<i64: 1>, i32>
    %v = nv_tileaa.block_tile %m : !nv_tileaa.memref<bf16, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<bf16, array<i64: ?>, array<i64: 1>, i32>>
    %b = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %t, %tok = nv_tileaa.tiled_load %v[%b] : !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<bf16, array<i64: ?>, array<i64: 1>, i32>>[i32] -> tensor<128xbf16>
    %s = nv_tileaa.tiled_store %t, %v[%b] : tensor<128xbf16>, !nv_tileaa.tiled_view<array<i32: 128>, array<i32: 128>, array<i32: 0>, !nv_tileaa.memref<bf16, array<i64: ?>, array<i64: 1>, i32>>[i32]
    nv_tileaa.return
  }
}

// -----

// A loop carries a tile as one value per slot (64 elements on 128 threads: one slot).
// CHECK-LABEL: func.func @loop
// CHECK: %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f32) : i32 {
// CHECK: %[[N:.*]] = arith.addf %[[A]], %[[A]] : f32
// CHECK: scf.yield %[[N]] : f32
builtin.module {
  nv_tileaa.func @loop(%f: f32, %n: i32) {
    %x = nv_tileaa.splat %f : f32 -> tensor<64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<64xf32>) : i32 {
      %b = nv_tileaa.addf %a, %a : tensor<64xf32>
      scf.yield %b : tensor<64xf32>
    }
    nv_tileaa.return
  }
}

// -----

builtin.module {
  nv_tileaa.func @too_big(%f: f32) {
    // CHECK: error: a tile of 131072 elements is too large: 1024 registers per thread on 128 threads (at most 512); use smaller tiles ('nv_tileaa.splat' in convert-nv-tileaa-to-simt)
    // expected-error @+1 {{a tile of 131072 elements is too large: 1024 registers per thread on 128 threads (at most 512); use smaller tiles ('nv_tileaa.splat' in convert-nv-tileaa-to-simt)}}
    %x = nv_tileaa.splat %f : f32 -> tensor<256x512xf32>
    nv_tileaa.return
  }
}

// -----

builtin.module {
  nv_tileaa.func @dynamic_scheduler() {
    // CHECK: error: 'nv_tileaa.cancel_next_program_id' is not supported yet by convert-nv-tileaa-to-simt
    // expected-error @+1 {{'nv_tileaa.cancel_next_program_id' is not supported yet by convert-nv-tileaa-to-simt}}
    %p = "nv_tileaa.cancel_next_program_id"() : () -> !nv_tileaa.program_id
    nv_tileaa.return
  }
}

// -----

// A non-splat tile constant lowers (it was an error when this test was written; the
// expected-error was never checked, see the note on @fma_dot_too_big): each thread selects its
// element by its slot's flat index (1 for thread 0, 2 for thread 1, ...).
// CHECK-LABEL: func.func @iota_constant
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[EQ1:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : i32
// CHECK: arith.select %[[EQ1]], %{{.*}}, %[[ONE]] : i32
builtin.module {
  nv_tileaa.func @iota_constant() {
    %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
    nv_tileaa.return
  }
}

// -----

// Float remainder (C fmod, exact) and absolute value on tiles: f32 operands widened to f64 (exactly); a
// quotient of 2^53 or more first reduced exactly (44 steps, each the remainder by |b| 2^k, k the exponent gap
// less 50); the remainder fma(-trunc(a / b), b, a) stepped back by |b| where its sign is not a's, a itself for
// an infinite b, narrowed back (exactly: a remainder of f32 values is an f32 value).
// CHECK-LABEL: func.func @fmod_abs
// CHECK: %[[A:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: %[[B:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: %[[AA:.*]] = llvm.call_intrinsic "llvm.fabs.f64"(%[[A]])
// CHECK: %[[AB:.*]] = llvm.call_intrinsic "llvm.fabs.f64"(%[[B]])
// CHECK: %[[RATIO:.*]] = arith.divf %[[AA]], %[[AB]] : f64
// CHECK: %[[TWO53:.*]] = arith.constant 0x4340000000000000 : f64
// CHECK: arith.cmpf oge, %[[RATIO]], %[[TWO53]] : f64
// CHECK: %[[RED:.*]] = scf.if %{{.*}} -> (f64) {
// CHECK: %[[STEPS:.*]] = arith.constant 44 : i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[STEPS]] step %{{.*}} iter_args(%[[X:.*]] = %[[AA]]) -> (f64)
// CHECK: llvm.call_intrinsic "llvm.trunc.f64"
// CHECK: llvm.call_intrinsic "llvm.fma.f64"
// CHECK: scf.yield
// CHECK: llvm.call_intrinsic "llvm.copysign.f64"(%{{.*}}, %[[A]])
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[A]] : f64
// CHECK: %[[Q:.*]] = arith.divf %[[RED]], %[[B]] : f64
// CHECK: %[[T:.*]] = llvm.call_intrinsic "llvm.trunc.f64"(%[[Q]]) : (f64) -> f64
// CHECK: %[[NT:.*]] = arith.negf %[[T]] : f64
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.fma.f64"(%[[NT]], %[[B]], %[[RED]])
// CHECK: %[[STEPPED:.*]] = arith.select %{{.*}}, %{{.*}}, %[[R]] : f64
// CHECK: %[[KEEP:.*]] = arith.select %{{.*}}, %[[RED]], %[[STEPPED]] : f64
// CHECK: %[[N:.*]] = arith.truncf %[[KEEP]] : f64 to f32
// CHECK: llvm.call_intrinsic "llvm.fabs.f32"(%[[N]]) : (f32) -> f32
builtin.module {
  nv_tileaa.func @fmod_abs(%f: f32, %g: f32) {
    %x = nv_tileaa.splat %f : f32 -> tensor<128xf32>
    %y = nv_tileaa.splat %g : f32 -> tensor<128xf32>
    %r = nv_tileaa.remf %x, %y : tensor<128xf32>
    %a = math.absf %r : tensor<128xf32>
    nv_tileaa.return
  }
}

// -----

// A dot on scalar FMA loops (no target named: mma.sync needs sm_80) whose 256x256 f32
// accumulator is 512 slots per thread on 128 threads: refused (ptxas ran for minutes past 4 GiB
// on such a kernel); 256 slots (a 128x256 accumulator) still compile.  (--verify-diagnostics
// does not fail on an expected error that never comes: the CHECK lines do.)
// CHECK: simt.mlir:{{[0-9]+}}:5: error: 'nv_tileaa.dot' is not supported yet by convert-nv-tileaa-to-simt: a 256x256x16 dot on scalar FMA loops
// CHECK-NOT: func.func @fma_dot_too_big
builtin.module {
  nv_tileaa.func @fma_dot_too_big(%f: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %a = arith.constant dense<1.0> : tensor<256x16xf32>
    %b = arith.constant dense<1.0> : tensor<16x256xf32>
    %z = arith.constant dense<0.0> : tensor<256x256xf32>
    // expected-error @+1 {{'nv_tileaa.dot' is not supported yet by convert-nv-tileaa-to-simt: a 256x256x16 dot on scalar FMA loops (mma.sync needs sm_80 or newer): its accumulator needs 512 registers per thread on 128 threads (at most 256); use smaller tiles}}
    %d = nv_tileaa.dot %a, %b, %z : tensor<256x16xf32>, tensor<16x256xf32>, tensor<256x256xf32> -> tensor<256x256xf32>
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: func.func @fma_dot_256_slots
builtin.module {
  nv_tileaa.func @fma_dot_256_slots(%f: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %a = arith.constant dense<1.0> : tensor<128x16xf32>
    %b = arith.constant dense<1.0> : tensor<16x256xf32>
    %z = arith.constant dense<0.0> : tensor<128x256xf32>
    %d = nv_tileaa.dot %a, %b, %z : tensor<128x16xf32>, tensor<16x256xf32>, tensor<128x256xf32> -> tensor<128x256xf32>
    nv_tileaa.return
  }
}
