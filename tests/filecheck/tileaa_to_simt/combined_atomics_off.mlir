// RUN: env TILEORCH_COMBINE_ATOMICS=auto tileorch-opt %s --split-input-file -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt | filecheck %s

// Atomics that may not be combined: one instance per CTA, and the reason on the kernel (the driver's remark).
// An address that depends on the program id along x (each instance its own counter):
// CHECK-LABEL: func.func @per_row
// CHECK-SAME: (%{{[0-9]+}}: !llvm.ptr<1>)
// CHECK-SAME: tileorch.combined_atomics_off = "its address or mask differs between instances: it depends on the program id along x"
// CHECK-NOT: scf.for
// CHECK: func.return
builtin.module {
  nv_tileaa.func @per_row(%cnt: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p1 = nv_tileaa.splat %pid : i32 -> tensor<1xi32>
    %c1 = nv_tileaa.splat %cnt : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %pc = nv_tileaa.offset %c1, %p1 : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %o, %t = nv_tileaa.atomic_rmw %pc, %p1 {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1xi32>
    nv_tileaa.return
  }
}

// -----

// An address loaded from memory (a histogram's bins):
// CHECK-LABEL: func.func @loaded_bin
// CHECK-SAME: (%{{[0-9]+}}: !llvm.ptr<1>, %{{[0-9]+}}: !llvm.ptr<1>)
// CHECK-SAME: tileorch.combined_atomics_off = "its address or mask differs between instances: it depends on a value loaded from memory"
// CHECK-NOT: scf.for
// CHECK: func.return
builtin.module {
  nv_tileaa.func @loaded_bin(%bins: !nv_tileaa.ptr<i32>, %cnt: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %z = arith.constant dense<0> : tensor<1xi32>
    %b1 = nv_tileaa.splat %bins : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %pb = nv_tileaa.offset %b1, %z : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %bin, %t0 = nv_tileaa.load %pb : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<1xi32>
    %c1 = nv_tileaa.splat %cnt : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %pc = nv_tileaa.offset %c1, %bin : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %one = arith.constant dense<1> : tensor<1xi32>
    %o, %t = nv_tileaa.atomic_rmw %pc, %one {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1xi32>
    nv_tileaa.return
  }
}

// -----

// The old value used; an exchange (not a fold); another atomic before (an instance could wait for another):
// CHECK-LABEL: func.func @old_used
// CHECK-SAME: tileorch.combined_atomics_off = "its old value is used"
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @swap
// CHECK-SAME: tileorch.combined_atomics_off = "its xchg is not an associative and commutative fold"
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @after_cas
// CHECK-SAME: tileorch.combined_atomics_off = "the program has other atomics (an instance could wait for one the same CTA runs later)"
// CHECK-NOT: scf.for
// CHECK: func.return
builtin.module {
  nv_tileaa.func @old_used(%cnt: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %z = arith.constant dense<0> : tensor<1xi32>
    %c1 = nv_tileaa.splat %cnt : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %pc = nv_tileaa.offset %c1, %z : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %one = arith.constant dense<1> : tensor<1xi32>
    %o, %t = nv_tileaa.atomic_rmw %pc, %one {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1xi32>
    %u = nv_tileaa.addi %o, %one : tensor<1xi32>
    nv_tileaa.return
  }
  nv_tileaa.func @swap(%cnt: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %z = arith.constant dense<0> : tensor<1xi32>
    %c1 = nv_tileaa.splat %cnt : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %pc = nv_tileaa.offset %c1, %z : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %one = arith.constant dense<1> : tensor<1xi32>
    %o, %t = nv_tileaa.atomic_rmw %pc, %one {rmw_mode = #nv_tileaa.rmw_mode<xchg>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1xi32>
    nv_tileaa.return
  }
  nv_tileaa.func @after_cas(%lock: !nv_tileaa.ptr<i32>, %cnt: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %c0 = arith.constant 0 : i32
    %c1i = arith.constant 1 : i32
    %was, %t0 = nv_tileaa.atomic_cas %lock, %c0, %c1i {mem_semantic = #nv_tileaa.mem_semantic<acquire>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<i32>, i32, i32 -> i32
    %z = arith.constant dense<0> : tensor<1xi32>
    %c1 = nv_tileaa.splat %cnt : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %pc = nv_tileaa.offset %c1, %z : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %w = nv_tileaa.splat %was : i32 -> tensor<1xi32>
    %o, %t = nv_tileaa.atomic_rmw %pc, %w {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<acq_rel>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1xi32>
    nv_tileaa.return
  }
}

// -----

// Two combined atomics of one value (the column min and max of a row): each atomic takes its own fold (a value
// shared by two atomics once gave both the last fold).
// CHECK-LABEL: func.func @min_max_same_value
// CHECK-SAME: tileorch.combined_atomics = 2 : i32, tileorch.reassociated_atomics = 0 : i32
// CHECK: %[[MN:.*]], %[[MX:.*]] = scf.for
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: llvm.atomicrmw min %{{.*}}, %[[MN]] syncscope("device") monotonic
// CHECK: llvm.atomicrmw max %{{.*}}, %[[MX]] syncscope("device") monotonic
builtin.module {
  nv_tileaa.func @min_max_same_value(%x: !nv_tileaa.ptr<i32>, %mn: !nv_tileaa.ptr<i32>, %mx: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p1 = nv_tileaa.splat %pid : i32 -> tensor<1xi32>
    %x1 = nv_tileaa.splat %x : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %px = nv_tileaa.offset %x1, %p1 : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %v, %t0 = nv_tileaa.load %px : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<1xi32>
    %z = arith.constant dense<0> : tensor<1xi32>
    %n1 = nv_tileaa.splat %mn : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %pn = nv_tileaa.offset %n1, %z : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %o1, %t1 = nv_tileaa.atomic_rmw %pn, %v {rmw_mode = #nv_tileaa.rmw_mode<min>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1xi32>
    %m1 = nv_tileaa.splat %mx : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %pm = nv_tileaa.offset %m1, %z : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1x!nv_tileaa.ptr<i32>>
    %o2, %t2 = nv_tileaa.atomic_rmw %pm, %v {rmw_mode = #nv_tileaa.rmw_mode<max>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<1x!nv_tileaa.ptr<i32>>, tensor<1xi32> -> tensor<1xi32>
    nv_tileaa.return
  }
}

// -----

// A one-warp program with relaxed tile atomics (no barrier, no shared memory) would also pack one program per warp
// (warp_programs.py), whose rewrite of %ctaid.x / %nctaid.x and trailing parameter would break the instance
// loop's: the combined kernel is not packed (its two parameters only, one warp a CTA).
// CHECK-LABEL: func.func @one_warp_bins
// CHECK-SAME: (%{{[0-9]+}}: !llvm.ptr<1>, %{{[0-9]+}}: !llvm.ptr<1>, %{{[0-9]+}}: i32, %{{[0-9]+}}: i32)
// CHECK-NOT: tileorch.warp_programs
// CHECK-SAME: tileorch.combined_atomics = 1 : i32
// CHECK-NOT: tileorch.warp_programs
// CHECK-SAME: nvvm.maxntid = array<i32: 32, 1, 1>
// CHECK: scf.for
builtin.module {
  nv_tileaa.func @one_warp_bins(%x: !nv_tileaa.ptr<i32>, %bins: !nv_tileaa.ptr<i32>) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 1>} {
    %pid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c64 = arith.constant 64 : i32
    %base = arith.muli %pid, %c64 : i32
    %r = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %b = nv_tileaa.splat %base : i32 -> tensor<64xi32>
    %idx = nv_tileaa.addi %r, %b : tensor<64xi32>
    %x1 = nv_tileaa.splat %x : !nv_tileaa.ptr<i32> -> tensor<64x!nv_tileaa.ptr<i32>>
    %px = nv_tileaa.offset %x1, %idx : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi32> -> tensor<64x!nv_tileaa.ptr<i32>>
    %v, %t0 = nv_tileaa.load %px : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
    %b1 = nv_tileaa.splat %bins : !nv_tileaa.ptr<i32> -> tensor<64x!nv_tileaa.ptr<i32>>
    %pb = nv_tileaa.offset %b1, %r : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi32> -> tensor<64x!nv_tileaa.ptr<i32>>
    %o, %t = nv_tileaa.atomic_rmw %pb, %v {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>} : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi32> -> tensor<64xi32>
    nv_tileaa.return
  }
}
