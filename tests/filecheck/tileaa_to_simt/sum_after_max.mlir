// RUN: tileorch-opt %s --split-input-file -p tileaa-sum-after-max | filecheck %s

// tileaa-sum-after-max: a loop summing exp(x - m) over the tiles a loop before it took the running max m of marks
// its exp as a sum term (tileorch.sum_term_exp: ex2.approx.ftz of the argument, at most 0).  taken: the row's
// max loop then its sum loop (NEG_INF padding both); zero_padding: the sum loop pads with zeros (a padded 0 may
// exceed the max); shifted: the sum loop reads tile j + 1; sum_not_max: the first loop sums instead (m is no
// max); max_loop_min_reduce: the first loop folds by maxf a reduction by minf.

// CHECK-LABEL: @taken
// CHECK: nv_tileaa.exp %d {tileorch.sum_term_exp}
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @taken(%x: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %minf = arith.constant dense<-3.0e+38> : tensor<1x1xf32>
    %zero = arith.constant dense<0.0> : tensor<1x1xf32>
    %m = scf.for %i = %c0 to %nt step %c1 iter_args(%ma = %minf) -> (tensor<1x1xf32>) : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %af = nv_tileaa.fp_to_fp %a {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %am = "nv_tileaa.reduce"(%af) <{dim = 1 : i32, identities = [0xFF800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.maxf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ae = nv_tileaa.expand_dims %am {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %ma2 = nv_tileaa.maxf %ma, %ae : tensor<1x1xf32>
      scf.yield %ma2 : tensor<1x1xf32>
    }
    %mb = nv_tileaa.broadcast %m : tensor<1x1xf32> -> tensor<1x1024xf32>
    %sum = scf.for %j = %c0 to %nt step %c1 iter_args(%sa = %zero) -> (tensor<1x1xf32>) : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %bf = nv_tileaa.fp_to_fp %b {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %d = nv_tileaa.subf %bf, %mb : tensor<1x1024xf32>
      %e = nv_tileaa.exp %d : tensor<1x1024xf32>
      %es = "nv_tileaa.reduce"(%e) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ee = nv_tileaa.expand_dims %es {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %sa2 = nv_tileaa.addf %sa, %ee : tensor<1x1xf32>
      scf.yield %sa2 : tensor<1x1xf32>
    }
    nv_tileaa.return
  }
}

// -----

// the max over x proves nothing about exp(y - m) over another array y: refused (review, session 32)
// CHECK-LABEL: @another_array
// CHECK: nv_tileaa.exp %d :
// CHECK-NOT: sum_term_exp
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @another_array(%x: !nv_tileaa.ptr<bf16>, %z: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %mz = nv_tileaa.make_memref %z[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx2 = nv_tileaa.block_tile %mz : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %minf = arith.constant dense<-3.0e+38> : tensor<1x1xf32>
    %zero = arith.constant dense<0.0> : tensor<1x1xf32>
    %m = scf.for %i = %c0 to %nt step %c1 iter_args(%ma = %minf) -> (tensor<1x1xf32>) : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %af = nv_tileaa.fp_to_fp %a {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %am = "nv_tileaa.reduce"(%af) <{dim = 1 : i32, identities = [0xFF800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.maxf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ae = nv_tileaa.expand_dims %am {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %ma2 = nv_tileaa.maxf %ma, %ae : tensor<1x1xf32>
      scf.yield %ma2 : tensor<1x1xf32>
    }
    %mb = nv_tileaa.broadcast %m : tensor<1x1xf32> -> tensor<1x1024xf32>
    %sum = scf.for %j = %c0 to %nt step %c1 iter_args(%sa = %zero) -> (tensor<1x1xf32>) : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %bf = nv_tileaa.fp_to_fp %b {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %d = nv_tileaa.subf %bf, %mb : tensor<1x1024xf32>
      %e = nv_tileaa.exp %d : tensor<1x1024xf32>
      %es = "nv_tileaa.reduce"(%e) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ee = nv_tileaa.expand_dims %es {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %sa2 = nv_tileaa.addf %sa, %ee : tensor<1x1xf32>
      scf.yield %sa2 : tensor<1x1xf32>
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @zero_padding
// CHECK: nv_tileaa.exp %d :
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @zero_padding(%x: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %minf = arith.constant dense<-3.0e+38> : tensor<1x1xf32>
    %zero = arith.constant dense<0.0> : tensor<1x1xf32>
    %m = scf.for %i = %c0 to %nt step %c1 iter_args(%ma = %minf) -> (tensor<1x1xf32>) : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %af = nv_tileaa.fp_to_fp %a {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %am = "nv_tileaa.reduce"(%af) <{dim = 1 : i32, identities = [0xFF800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.maxf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ae = nv_tileaa.expand_dims %am {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %ma2 = nv_tileaa.maxf %ma, %ae : tensor<1x1xf32>
      scf.yield %ma2 : tensor<1x1xf32>
    }
    %mb = nv_tileaa.broadcast %m : tensor<1x1xf32> -> tensor<1x1024xf32>
    %sum = scf.for %j = %c0 to %nt step %c1 iter_args(%sa = %zero) -> (tensor<1x1xf32>) : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %bf = nv_tileaa.fp_to_fp %b {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %d = nv_tileaa.subf %bf, %mb : tensor<1x1024xf32>
      %e = nv_tileaa.exp %d : tensor<1x1024xf32>
      %es = "nv_tileaa.reduce"(%e) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ee = nv_tileaa.expand_dims %es {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %sa2 = nv_tileaa.addf %sa, %ee : tensor<1x1xf32>
      scf.yield %sa2 : tensor<1x1xf32>
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @shifted
// CHECK: nv_tileaa.exp %d :
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @shifted(%x: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %minf = arith.constant dense<-3.0e+38> : tensor<1x1xf32>
    %zero = arith.constant dense<0.0> : tensor<1x1xf32>
    %m = scf.for %i = %c0 to %nt step %c1 iter_args(%ma = %minf) -> (tensor<1x1xf32>) : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %af = nv_tileaa.fp_to_fp %a {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %am = "nv_tileaa.reduce"(%af) <{dim = 1 : i32, identities = [0xFF800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.maxf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ae = nv_tileaa.expand_dims %am {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %ma2 = nv_tileaa.maxf %ma, %ae : tensor<1x1xf32>
      scf.yield %ma2 : tensor<1x1xf32>
    }
    %mb = nv_tileaa.broadcast %m : tensor<1x1xf32> -> tensor<1x1024xf32>
    %sum = scf.for %j = %c0 to %nt step %c1 iter_args(%sa = %zero) -> (tensor<1x1xf32>) : i32 {
      %j1 = arith.addi %j, %c1 : i32
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j1] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %bf = nv_tileaa.fp_to_fp %b {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %d = nv_tileaa.subf %bf, %mb : tensor<1x1024xf32>
      %e = nv_tileaa.exp %d : tensor<1x1024xf32>
      %es = "nv_tileaa.reduce"(%e) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ee = nv_tileaa.expand_dims %es {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %sa2 = nv_tileaa.addf %sa, %ee : tensor<1x1xf32>
      scf.yield %sa2 : tensor<1x1xf32>
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @sum_not_max
// CHECK: nv_tileaa.exp %d :
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @sum_not_max(%x: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %minf = arith.constant dense<-3.0e+38> : tensor<1x1xf32>
    %zero = arith.constant dense<0.0> : tensor<1x1xf32>
    %m = scf.for %i = %c0 to %nt step %c1 iter_args(%ma = %minf) -> (tensor<1x1xf32>) : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %af = nv_tileaa.fp_to_fp %a {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %am = "nv_tileaa.reduce"(%af) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ae = nv_tileaa.expand_dims %am {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %ma2 = nv_tileaa.addf %ma, %ae : tensor<1x1xf32>
      scf.yield %ma2 : tensor<1x1xf32>
    }
    %mb = nv_tileaa.broadcast %m : tensor<1x1xf32> -> tensor<1x1024xf32>
    %sum = scf.for %j = %c0 to %nt step %c1 iter_args(%sa = %zero) -> (tensor<1x1xf32>) : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %bf = nv_tileaa.fp_to_fp %b {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %d = nv_tileaa.subf %bf, %mb : tensor<1x1024xf32>
      %e = nv_tileaa.exp %d : tensor<1x1024xf32>
      %es = "nv_tileaa.reduce"(%e) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ee = nv_tileaa.expand_dims %es {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %sa2 = nv_tileaa.addf %sa, %ee : tensor<1x1xf32>
      scf.yield %sa2 : tensor<1x1xf32>
    }
    nv_tileaa.return
  }
}

// -----

// CHECK-LABEL: @max_loop_min_reduce
// CHECK: nv_tileaa.exp %d :
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @max_loop_min_reduce(%x: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %minf = arith.constant dense<-3.0e+38> : tensor<1x1xf32>
    %zero = arith.constant dense<0.0> : tensor<1x1xf32>
    %m = scf.for %i = %c0 to %nt step %c1 iter_args(%ma = %minf) -> (tensor<1x1xf32>) : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %af = nv_tileaa.fp_to_fp %a {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %am = "nv_tileaa.reduce"(%af) <{dim = 1 : i32, identities = [0xFF800000 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.minf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ae = nv_tileaa.expand_dims %am {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %ma2 = nv_tileaa.maxf %ma, %ae : tensor<1x1xf32>
      scf.yield %ma2 : tensor<1x1xf32>
    }
    %mb = nv_tileaa.broadcast %m : tensor<1x1xf32> -> tensor<1x1024xf32>
    %sum = scf.for %j = %c0 to %nt step %c1 iter_args(%sa = %zero) -> (tensor<1x1xf32>) : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %bf = nv_tileaa.fp_to_fp %b {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<1x1024xbf16> -> tensor<1x1024xf32>
      %d = nv_tileaa.subf %bf, %mb : tensor<1x1024xf32>
      %e = nv_tileaa.exp %d : tensor<1x1024xf32>
      %es = "nv_tileaa.reduce"(%e) <{dim = 1 : i32, identities = [0.000000e+00 : f32]}> ({
      ^bb0(%p: f32, %q: f32):
        %y = nv_tileaa.addf %p, %q : f32
        "nv_tileaa.yield"(%y) : (f32) -> ()
      }) : (tensor<1x1024xf32>) -> tensor<1xf32>
      %ee = nv_tileaa.expand_dims %es {dim = 1 : i32} : tensor<1xf32> -> tensor<1x1xf32>
      %sa2 = nv_tileaa.addf %sa, %ee : tensor<1x1xf32>
      scf.yield %sa2 : tensor<1x1xf32>
    }
    nv_tileaa.return
  }
}
