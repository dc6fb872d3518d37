// RUN: tileorch-opt %s --split-input-file -p tileaa-row-smem-cache | filecheck %s

// tileaa-row-smem-cache (TILEORCH_ROW_SMEM_CACHE=1 runs it in the driver): a load of the second loop that reads
// the tile the first loop read at the same index gets tileorch.row_cache_read (its first-loop load
// tileorch.row_cache_fill); a near pair refused names the failing condition.  taken: y = x tile by tile twice;
// in_place: the second loop stores x's tile k after reading it (exact); same_array_store: it stores x's tile
// k - 1 before reading tile k; aliasing_store: the second load's token follows the first loop's stores;
// different_index: tile k + 1; different_trip_range: another upper bound; other_array: the second loop reads y;
// pointer_store_to_the_row / _elsewhere: a pointer-tile store between the loops based on x (refused) / on y;
// bound_computed_twice: both bounds cdiv(n, 1024), computed twice (taken); bound_of_other_values: cdiv(m, 1024).

// CHECK-LABEL: @taken
// CHECK: nv_tileaa.tiled_load %vx[%r, %i] {{.*}}tileorch.row_cache_fill = 0 : i32, tileorch.row_cache_axis = 1 : i32
// CHECK: nv_tileaa.tiled_load %vx2[%r, %j] {{.*}}tileorch.row_cache_read = 0 : i32, tileorch.row_cache_axis = 1 : i32
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @taken(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32, %nt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %nt step %c1 : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %a, %vy[%r, %i] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    scf.for %j = %c0 to %nt step %c1 : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %b, %vy[%r, %j] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @in_place
// CHECK: nv_tileaa.tiled_load %vx2[%r, %j] {{.*}}tileorch.row_cache_read = 0 : i32
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @in_place(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32, %nt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %nt step %c1 : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
    }
    scf.for %j = %c0 to %nt step %c1 : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %b, %vx[%r, %j] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @same_array_store
// CHECK: nv_tileaa.tiled_load %vx2[%r, %j] {{.*}}tileorch.row_cache_refused = "a store to the same array before the second read (not at its tile after it)"
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @same_array_store(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32, %nt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %nt step %c1 : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
    }
    scf.for %j = %c0 to %nt step %c1 : i32 {
      %zero = arith.constant dense<0.0> : tensor<1x1024xbf16>
      %jm = arith.subi %j, %c1 : i32
      %st = nv_tileaa.tiled_store %zero, %vx[%r, %jm] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @aliasing_store
// CHECK: nv_tileaa.tiled_load %vx2[%r, %j] token %t1 {{.*}}tileorch.row_cache_refused = "aliasing store (the second load's memory token follows a store before it)"
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @aliasing_store(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32, %nt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t1 = scf.for %i = %c0 to %nt step %c1 iter_args(%t = %tok) -> (!nv_tileaa.mem_token) : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %a, %vy[%r, %i] token %t : tensor<1x1024xbf16>, !vv[i32, i32]
      scf.yield %st : !nv_tileaa.mem_token
    }
    scf.for %j = %c0 to %nt step %c1 : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %t1 {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %b, %vy[%r, %j] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @different_index
// CHECK: nv_tileaa.tiled_load %vx2[%r, %j1] {{.*}}tileorch.row_cache_refused = "different index (dimension 1: not the loop's induction variable and not one value)"
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @different_index(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32, %nt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %nt step %c1 : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
    }
    scf.for %j = %c0 to %nt step %c1 : i32 {
      %j1 = arith.addi %j, %c1 : i32
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j1] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %b, %vy[%r, %j] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @different_trip_range
// CHECK: nv_tileaa.tiled_load %vx2[%r, %j] {{.*}}tileorch.row_cache_refused = "different trip range (the loops' upper bounds differ)"
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @different_trip_range(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32, %nt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %nt step %c1 : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
    }
    scf.for %j = %c0 to %nt2 step %c1 : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %b, %vy[%r, %j] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @other_array
// CHECK-NOT: tileorch.row_cache
// CHECK: nv_tileaa.return
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @other_array(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32, %nt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %nt step %c1 : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
    }
    scf.for %j = %c0 to %nt step %c1 : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vy[%r, %j] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %b, %vx[%r, %j] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @pointer_store_to_the_row
// CHECK: nv_tileaa.tiled_load %vx2[%r, %j] {{.*}}tileorch.row_cache_refused = "a pointer store or atomic that may write the row's array"
// CHECK-LABEL: @pointer_store_elsewhere
// CHECK: nv_tileaa.tiled_load %vx2[%r, %j] {{.*}}tileorch.row_cache_read = 0 : i32
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @pointer_store_to_the_row(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %nt step %c1 : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok : !vv[i32, i32] -> tensor<1x1024xbf16>
    }
    %p1 = nv_tileaa.splat %x : !nv_tileaa.ptr<bf16> -> tensor<4x!nv_tileaa.ptr<bf16>>
    %off = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
    %p = nv_tileaa.offset %p1, %off : tensor<4x!nv_tileaa.ptr<bf16>>, tensor<4xi32> -> tensor<4x!nv_tileaa.ptr<bf16>>
    %zero = arith.constant dense<0.0> : tensor<4xbf16>
    %t0 = nv_tileaa.store %zero, %p : tensor<4xbf16>, tensor<4x!nv_tileaa.ptr<bf16>>
    scf.for %j = %c0 to %nt step %c1 : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %b, %vy[%r, %j] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    nv_tileaa.return
  }
  nv_tileaa.func @pointer_store_elsewhere(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %nt step %c1 : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok : !vv[i32, i32] -> tensor<1x1024xbf16>
    }
    %p1 = nv_tileaa.splat %y : !nv_tileaa.ptr<bf16> -> tensor<4x!nv_tileaa.ptr<bf16>>
    %off = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
    %p = nv_tileaa.offset %p1, %off : tensor<4x!nv_tileaa.ptr<bf16>>, tensor<4xi32> -> tensor<4x!nv_tileaa.ptr<bf16>>
    %zero = arith.constant dense<0.0> : tensor<4xbf16>
    %t0 = nv_tileaa.store %zero, %p : tensor<4xbf16>, tensor<4x!nv_tileaa.ptr<bf16>>
    scf.for %j = %c0 to %nt step %c1 : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %b, %vy[%r, %j] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @bound_computed_twice
// CHECK: nv_tileaa.tiled_load %vx2[%r, %j] {{.*}}tileorch.row_cache_read = 0 : i32
// CHECK-LABEL: @bound_of_other_values
// CHECK: nv_tileaa.tiled_load %vx2[%r, %j] {{.*}}tileorch.row_cache_refused = "different trip range (the loops' upper bounds differ)"
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @bound_computed_twice(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %m: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1024 = arith.constant 1024 : i32
    %nt1 = arith.ceildivsi %n, %c1024 : i32
    scf.for %i = %c0 to %nt1 step %c1 : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok : !vv[i32, i32] -> tensor<1x1024xbf16>
    }
    %c1024b = arith.constant 1024 : i32
    %nt2 = arith.ceildivsi %n, %c1024b : i32
    scf.for %j = %c0 to %nt2 step %c1 : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %b, %vy[%r, %j] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    nv_tileaa.return
  }
  nv_tileaa.func @bound_of_other_values(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %m: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1024 = arith.constant 1024 : i32
    %nt1 = arith.ceildivsi %n, %c1024 : i32
    scf.for %i = %c0 to %nt1 step %c1 : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok : !vv[i32, i32] -> tensor<1x1024xbf16>
    }
    %c1024b = arith.constant 1024 : i32
    %nt2 = arith.ceildivsi %m, %c1024b : i32
    scf.for %j = %c0 to %nt2 step %c1 : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %b, %vy[%r, %j] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    nv_tileaa.return
  }
}
