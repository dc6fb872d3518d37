// RUN: tileorch-opt %s --split-input-file -p tileas-row-window-gather | filecheck %s

// (Arguments as the launcher passes an array: its pointer, its extents, its strides; then the window's start, the
// sequence's length n, Q and the trip count.)
// K rows gathered at start + 64 j + arange(64) under the row mask (64 j + arange(64) < n), bounds-checked, zero
// padding, read by a dot: before the loop a memref of the array from row start (offset start * stride), its rows
// max(0, min(n, extent - start)), its columns and stride the argument's; a [64, 64] block view; in the loop one
// tile load at tile index (j, 0), the gather gone.  (The loop holds two dots: a chain.)
builtin.module {
  nv_tileaa.func @window(%kf: !nv_tileaa.ptr<f16>, %nt: i32, %nc: i32, %sk: i32, %start: i32, %n: i32, %q: tensor<64x64xf16>, %nj: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %nj step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %ss = nv_tileaa.splat %s0 : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c2v = arith.constant dense<2> : tensor<64xi32>
      %t2 = nv_tileaa.muli %t, %c2v : tensor<64xi32>
      %ns = nv_tileaa.splat %n : i32 -> tensor<1xi32>
      %nb = nv_tileaa.broadcast %ns : tensor<1xi32> -> tensor<64xi32>
      %ok = nv_tileaa.cmpi "slt", %t, %nb : tensor<64xi32> -> tensor<64xi1>
      %oke = nv_tileaa.expand_dims %ok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %te = nv_tileaa.expand_dims %t {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %sts = nv_tileaa.splat %start : i32 -> tensor<1x1xi32>
      %stb = nv_tileaa.broadcast %sts : tensor<1x1xi32> -> tensor<64x1xi32>
      %row = nv_tileaa.addi %stb, %te : tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %row : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1x1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %ntb : tensor<64x64xi64> -> tensor<64x64xi1>
      %sk64 = arith.extsi %sk : i32 to i64
      %sks = nv_tileaa.splat %sk64 : i64 -> tensor<1x1xi64>
      %skb = nv_tileaa.broadcast %sks : tensor<1x1xi64> -> tensor<64x64xi64>
      %t0 = nv_tileaa.muli %i0, %skb : tensor<64x64xi64>
      %cr = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %cre = nv_tileaa.expand_dims %cr {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %crx = nv_tileaa.extsi %cre : tensor<1x64xi32> -> tensor<1x64xi64>
      %i1 = nv_tileaa.broadcast %crx : tensor<1x64xi64> -> tensor<64x64xi64>
      %nc64 = arith.extsi %nc : i32 to i64
      %ncs = nv_tileaa.splat %nc64 : i64 -> tensor<1x1xi64>
      %ncb = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %ncb : tensor<64x64xi64> -> tensor<64x64xi1>
      %one = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %m0 = arith.andi %mk0, %mk1 : tensor<64x64xi1>
      %rowm = nv_tileaa.broadcast %oke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %m0, %rowm : tensor<64x64xi1>
      %kps = nv_tileaa.splat %kf : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
      %kpb = nv_tileaa.broadcast %kps : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %kp = nv_tileaa.offset %kpb, %lin : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %zh = arith.constant 0.0 : f16
      %zhs = nv_tileaa.splat %zh : f16 -> tensor<1x1xf16>
      %zhb = nv_tileaa.broadcast %zhs : tensor<1x1xf16> -> tensor<64x64xf16>
      %k, %ktok = nv_tileaa.load %kp mask %m : tensor<64x64xi1> other %zhb : tensor<64x64xf16> token %tok : tensor<64x64x!nv_tileaa.ptr<f16>> -> tensor<64x64xf16>
      %kt = "nv_tileaa.permute"(%k) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %d = nv_tileaa.dot %q, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %d2 = nv_tileaa.dot %q, %q, %d : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d2 : tensor<64x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @window
// CHECK:      %[[LIM0:.*]] = arith.subi %nt, %start : i32
// CHECK:      %[[LIM1:.*]] = arith.minsi %n, %[[LIM0]] : i32
// CHECK:      %[[LIM:.*]] = arith.maxsi %[[LIM1]], %{{.*}} : i32
// CHECK:      %[[S64:.*]] = arith.extsi %start : i32 to i64
// CHECK:      %[[SK64:.*]] = arith.extsi %sk : i32 to i64
// CHECK:      %[[OFF:.*]] = arith.muli %[[S64]], %[[SK64]] : i64
// CHECK:      %[[PTR:.*]] = nv_tileaa.offset %kf, %[[OFF]] : !nv_tileaa.ptr<f16>, i64 -> !nv_tileaa.ptr<f16>
// CHECK:      %[[MM:.*]] = nv_tileaa.make_memref %[[PTR]][%[[LIM]], %nc] [%sk]
// CHECK:      %[[VIEW:.*]] = nv_tileaa.block_tile %[[MM]] {{.*}} -> !nv_tileaa.tiled_view<array<i32: 64, 64>
// CHECK:      scf.for %[[J:[a-z0-9_]+]] = 
// CHECK-NOT:  nv_tileaa.cmpi
// CHECK:      %[[T:[0-9]+]], %{{[0-9]+}} = nv_tileaa.tiled_load %[[VIEW]][%[[J]], %{{.*}}] token %tok
// CHECK:      %[[K:.*]] = nv_tileaa.reshape %[[T]] : tensor<64x64xf16> -> tensor<64x64xf16>
// CHECK-NOT:  nv_tileaa.load %kp
// CHECK:      "nv_tileaa.permute"(%[[K]])

// -----

// Rows start + 2 (64 j + arange(64)): not consecutive (no box): left alone.
builtin.module {
  nv_tileaa.func @strided(%kf: !nv_tileaa.ptr<f16>, %nt: i32, %nc: i32, %sk: i32, %start: i32, %n: i32, %q: tensor<64x64xf16>, %nj: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %nj step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %ss = nv_tileaa.splat %s0 : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c2v = arith.constant dense<2> : tensor<64xi32>
      %t2 = nv_tileaa.muli %t, %c2v : tensor<64xi32>
      %ns = nv_tileaa.splat %n : i32 -> tensor<1xi32>
      %nb = nv_tileaa.broadcast %ns : tensor<1xi32> -> tensor<64xi32>
      %ok = nv_tileaa.cmpi "slt", %t, %nb : tensor<64xi32> -> tensor<64xi1>
      %oke = nv_tileaa.expand_dims %ok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %te = nv_tileaa.expand_dims %t2 {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %sts = nv_tileaa.splat %start : i32 -> tensor<1x1xi32>
      %stb = nv_tileaa.broadcast %sts : tensor<1x1xi32> -> tensor<64x1xi32>
      %row = nv_tileaa.addi %stb, %te : tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %row : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1x1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %ntb : tensor<64x64xi64> -> tensor<64x64xi1>
      %sk64 = arith.extsi %sk : i32 to i64
      %sks = nv_tileaa.splat %sk64 : i64 -> tensor<1x1xi64>
      %skb = nv_tileaa.broadcast %sks : tensor<1x1xi64> -> tensor<64x64xi64>
      %t0 = nv_tileaa.muli %i0, %skb : tensor<64x64xi64>
      %cr = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %cre = nv_tileaa.expand_dims %cr {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %crx = nv_tileaa.extsi %cre : tensor<1x64xi32> -> tensor<1x64xi64>
      %i1 = nv_tileaa.broadcast %crx : tensor<1x64xi64> -> tensor<64x64xi64>
      %nc64 = arith.extsi %nc : i32 to i64
      %ncs = nv_tileaa.splat %nc64 : i64 -> tensor<1x1xi64>
      %ncb = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %ncb : tensor<64x64xi64> -> tensor<64x64xi1>
      %one = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %m0 = arith.andi %mk0, %mk1 : tensor<64x64xi1>
      %rowm = nv_tileaa.broadcast %oke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %m0, %rowm : tensor<64x64xi1>
      %kps = nv_tileaa.splat %kf : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
      %kpb = nv_tileaa.broadcast %kps : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %kp = nv_tileaa.offset %kpb, %lin : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %zh = arith.constant 0.0 : f16
      %zhs = nv_tileaa.splat %zh : f16 -> tensor<1x1xf16>
      %zhb = nv_tileaa.broadcast %zhs : tensor<1x1xf16> -> tensor<64x64xf16>
      %k, %ktok = nv_tileaa.load %kp mask %m : tensor<64x64xi1> other %zhb : tensor<64x64xf16> token %tok : tensor<64x64x!nv_tileaa.ptr<f16>> -> tensor<64x64xf16>
      %kt = "nv_tileaa.permute"(%k) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %d = nv_tileaa.dot %q, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %d2 = nv_tileaa.dot %q, %q, %d : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d2 : tensor<64x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @strided
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp

// -----

// The tile's first row 64 j + 8 (no tile index of the window's 64-row view): left alone.
builtin.module {
  nv_tileaa.func @unaligned(%kf: !nv_tileaa.ptr<f16>, %nt: i32, %nc: i32, %sk: i32, %start: i32, %n: i32, %q: tensor<64x64xf16>, %nj: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %nj step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s1 = nv_tileaa.muli %j, %c64 : i32
      %s0 = nv_tileaa.addi %s1, %c8 : i32
      %ss = nv_tileaa.splat %s0 : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c2v = arith.constant dense<2> : tensor<64xi32>
      %t2 = nv_tileaa.muli %t, %c2v : tensor<64xi32>
      %ns = nv_tileaa.splat %n : i32 -> tensor<1xi32>
      %nb = nv_tileaa.broadcast %ns : tensor<1xi32> -> tensor<64xi32>
      %ok = nv_tileaa.cmpi "slt", %t, %nb : tensor<64xi32> -> tensor<64xi1>
      %oke = nv_tileaa.expand_dims %ok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %te = nv_tileaa.expand_dims %t {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %sts = nv_tileaa.splat %start : i32 -> tensor<1x1xi32>
      %stb = nv_tileaa.broadcast %sts : tensor<1x1xi32> -> tensor<64x1xi32>
      %row = nv_tileaa.addi %stb, %te : tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %row : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1x1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %ntb : tensor<64x64xi64> -> tensor<64x64xi1>
      %sk64 = arith.extsi %sk : i32 to i64
      %sks = nv_tileaa.splat %sk64 : i64 -> tensor<1x1xi64>
      %skb = nv_tileaa.broadcast %sks : tensor<1x1xi64> -> tensor<64x64xi64>
      %t0 = nv_tileaa.muli %i0, %skb : tensor<64x64xi64>
      %cr = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %cre = nv_tileaa.expand_dims %cr {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %crx = nv_tileaa.extsi %cre : tensor<1x64xi32> -> tensor<1x64xi64>
      %i1 = nv_tileaa.broadcast %crx : tensor<1x64xi64> -> tensor<64x64xi64>
      %nc64 = arith.extsi %nc : i32 to i64
      %ncs = nv_tileaa.splat %nc64 : i64 -> tensor<1x1xi64>
      %ncb = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %ncb : tensor<64x64xi64> -> tensor<64x64xi1>
      %one = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %m0 = arith.andi %mk0, %mk1 : tensor<64x64xi1>
      %rowm = nv_tileaa.broadcast %oke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %m0, %rowm : tensor<64x64xi1>
      %kps = nv_tileaa.splat %kf : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
      %kpb = nv_tileaa.broadcast %kps : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %kp = nv_tileaa.offset %kpb, %lin : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %zh = arith.constant 0.0 : f16
      %zhs = nv_tileaa.splat %zh : f16 -> tensor<1x1xf16>
      %zhb = nv_tileaa.broadcast %zhs : tensor<1x1xf16> -> tensor<64x64xf16>
      %k, %ktok = nv_tileaa.load %kp mask %m : tensor<64x64xi1> other %zhb : tensor<64x64xf16> token %tok : tensor<64x64x!nv_tileaa.ptr<f16>> -> tensor<64x64xf16>
      %kt = "nv_tileaa.permute"(%k) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %d = nv_tileaa.dot %q, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %d2 = nv_tileaa.dot %q, %q, %d : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d2 : tensor<64x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @unaligned
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp

// -----

// A mask beyond the row mask and the bounds (t >= n too): left alone.
builtin.module {
  nv_tileaa.func @other_mask(%kf: !nv_tileaa.ptr<f16>, %nt: i32, %nc: i32, %sk: i32, %start: i32, %n: i32, %q: tensor<64x64xf16>, %nj: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %nj step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %ss = nv_tileaa.splat %s0 : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c2v = arith.constant dense<2> : tensor<64xi32>
      %t2 = nv_tileaa.muli %t, %c2v : tensor<64xi32>
      %ns = nv_tileaa.splat %n : i32 -> tensor<1xi32>
      %nb = nv_tileaa.broadcast %ns : tensor<1xi32> -> tensor<64xi32>
      %ok = nv_tileaa.cmpi "slt", %t, %nb : tensor<64xi32> -> tensor<64xi1>
      %oke = nv_tileaa.expand_dims %ok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %te = nv_tileaa.expand_dims %t {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %sts = nv_tileaa.splat %start : i32 -> tensor<1x1xi32>
      %stb = nv_tileaa.broadcast %sts : tensor<1x1xi32> -> tensor<64x1xi32>
      %row = nv_tileaa.addi %stb, %te : tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %row : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1x1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %ntb : tensor<64x64xi64> -> tensor<64x64xi1>
      %sk64 = arith.extsi %sk : i32 to i64
      %sks = nv_tileaa.splat %sk64 : i64 -> tensor<1x1xi64>
      %skb = nv_tileaa.broadcast %sks : tensor<1x1xi64> -> tensor<64x64xi64>
      %t0 = nv_tileaa.muli %i0, %skb : tensor<64x64xi64>
      %cr = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %cre = nv_tileaa.expand_dims %cr {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %crx = nv_tileaa.extsi %cre : tensor<1x64xi32> -> tensor<1x64xi64>
      %i1 = nv_tileaa.broadcast %crx : tensor<1x64xi64> -> tensor<64x64xi64>
      %nc64 = arith.extsi %nc : i32 to i64
      %ncs = nv_tileaa.splat %nc64 : i64 -> tensor<1x1xi64>
      %ncb = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %ncb : tensor<64x64xi64> -> tensor<64x64xi1>
      %one = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %m0 = arith.andi %mk0, %mk1 : tensor<64x64xi1>
      %rowm = nv_tileaa.broadcast %oke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %m0, %rowm : tensor<64x64xi1>
      %fv = nv_tileaa.cmpi "sge", %t, %nb : tensor<64xi32> -> tensor<64xi1>
      %fve = nv_tileaa.expand_dims %fv {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %fvb = nv_tileaa.broadcast %fve : tensor<64x1xi1> -> tensor<64x64xi1>
      %m2 = arith.andi %m, %fvb : tensor<64x64xi1>
      %kps = nv_tileaa.splat %kf : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
      %kpb = nv_tileaa.broadcast %kps : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %kp = nv_tileaa.offset %kpb, %lin : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %zh = arith.constant 0.0 : f16
      %zhs = nv_tileaa.splat %zh : f16 -> tensor<1x1xf16>
      %zhb = nv_tileaa.broadcast %zhs : tensor<1x1xf16> -> tensor<64x64xf16>
      %k, %ktok = nv_tileaa.load %kp mask %m2 : tensor<64x64xi1> other %zhb : tensor<64x64xf16> token %tok : tensor<64x64x!nv_tileaa.ptr<f16>> -> tensor<64x64xf16>
      %kt = "nv_tileaa.permute"(%k) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %d = nv_tileaa.dot %q, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      %d2 = nv_tileaa.dot %q, %q, %d : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d2 : tensor<64x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @other_mask
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp

// -----

// The loop's one dot (a GEMM, not a chain: its gathered operand is the GEMM tier's): left alone.
builtin.module {
  nv_tileaa.func @one_dot(%kf: !nv_tileaa.ptr<f16>, %nt: i32, %nc: i32, %sk: i32, %start: i32, %n: i32, %q: tensor<64x64xf16>, %nj: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %nj step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %ss = nv_tileaa.splat %s0 : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c2v = arith.constant dense<2> : tensor<64xi32>
      %t2 = nv_tileaa.muli %t, %c2v : tensor<64xi32>
      %ns = nv_tileaa.splat %n : i32 -> tensor<1xi32>
      %nb = nv_tileaa.broadcast %ns : tensor<1xi32> -> tensor<64xi32>
      %ok = nv_tileaa.cmpi "slt", %t, %nb : tensor<64xi32> -> tensor<64xi1>
      %oke = nv_tileaa.expand_dims %ok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %te = nv_tileaa.expand_dims %t {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %sts = nv_tileaa.splat %start : i32 -> tensor<1x1xi32>
      %stb = nv_tileaa.broadcast %sts : tensor<1x1xi32> -> tensor<64x1xi32>
      %row = nv_tileaa.addi %stb, %te : tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %row : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1x1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %ntb : tensor<64x64xi64> -> tensor<64x64xi1>
      %sk64 = arith.extsi %sk : i32 to i64
      %sks = nv_tileaa.splat %sk64 : i64 -> tensor<1x1xi64>
      %skb = nv_tileaa.broadcast %sks : tensor<1x1xi64> -> tensor<64x64xi64>
      %t0 = nv_tileaa.muli %i0, %skb : tensor<64x64xi64>
      %cr = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %cre = nv_tileaa.expand_dims %cr {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %crx = nv_tileaa.extsi %cre : tensor<1x64xi32> -> tensor<1x64xi64>
      %i1 = nv_tileaa.broadcast %crx : tensor<1x64xi64> -> tensor<64x64xi64>
      %nc64 = arith.extsi %nc : i32 to i64
      %ncs = nv_tileaa.splat %nc64 : i64 -> tensor<1x1xi64>
      %ncb = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %ncb : tensor<64x64xi64> -> tensor<64x64xi1>
      %one = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %m0 = arith.andi %mk0, %mk1 : tensor<64x64xi1>
      %rowm = nv_tileaa.broadcast %oke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %m0, %rowm : tensor<64x64xi1>
      %kps = nv_tileaa.splat %kf : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
      %kpb = nv_tileaa.broadcast %kps : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %kp = nv_tileaa.offset %kpb, %lin : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %zh = arith.constant 0.0 : f16
      %zhs = nv_tileaa.splat %zh : f16 -> tensor<1x1xf16>
      %zhb = nv_tileaa.broadcast %zhs : tensor<1x1xf16> -> tensor<64x64xf16>
      %k, %ktok = nv_tileaa.load %kp mask %m : tensor<64x64xi1> other %zhb : tensor<64x64xf16> token %tok : tensor<64x64x!nv_tileaa.ptr<f16>> -> tensor<64x64xf16>
      %kt = "nv_tileaa.permute"(%k) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %d = nv_tileaa.dot %q, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @one_dot
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp
