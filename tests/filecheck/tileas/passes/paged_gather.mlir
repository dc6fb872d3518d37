// RUN: tileorch-opt %s --split-input-file -p tileas-paged-gather | filecheck %s

// (Arguments as the launcher passes an array: its pointer, its extents, its strides.)
// A flat [slots, 64] cache gathered at row Table[t // 16] * 16 + t % 16, t = 64 j + arange(64): four
// 16-row tile loads of the cache (a memref and a [16, 64] view made before the loop), each at the page the
// table holds for row 16 p (a scalar gather of the table at (64 j + 16 p) // 16), joined by cat; the gather and
// the table's 64-row gather (read by nothing else) are gone.
builtin.module {
  nv_tileaa.func @flat(%tab: !nv_tileaa.ptr<i32>, %kf: !nv_tileaa.ptr<f16>, %ns: i32, %nc: i32, %sk: i32, %sk1: i32, %nt: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %s = nv_tileaa.addi %s0, %c0 : i32
      %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c16v = arith.constant dense<16> : tensor<64xi32>
      %zv = arith.constant dense<0> : tensor<64xi32>
      %fv = arith.constant dense<false> : tensor<64xi1>
      %pg = arith.floordivsi %t, %c16v : tensor<64xi32>
      %pg64 = nv_tileaa.extsi %pg : tensor<64xi32> -> tensor<64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1xi64> -> tensor<64xi64>
      %pok = nv_tileaa.cmpi "ult", %pg64, %ntb : tensor<64xi64> -> tensor<64xi1>
      %one = arith.constant dense<1> : tensor<64xi64>
      %poff = nv_tileaa.muli %pg64, %one : tensor<64xi64>
      %tps = nv_tileaa.splat %tab : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
      %tpb = nv_tileaa.broadcast %tps : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
      %pp = nv_tileaa.offset %tpb, %poff : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
      %page, %ptok = nv_tileaa.load %pp mask %pok : tensor<64xi1> other %zv : tensor<64xi32> token %tok : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
      %rem = arith.remsi %t, %c16v : tensor<64xi32>
      %neg = nv_tileaa.cmpi "slt", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %x = arith.xori %neg, %fv : tensor<64xi1>
      %nz = nv_tileaa.cmpi "ne", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %fix = arith.andi %x, %nz : tensor<64xi1>
      %radd = nv_tileaa.addi %rem, %c16v : tensor<64xi32>
      %slot = nv_tileaa.select %fix, %radd, %rem : tensor<64xi1>, tensor<64xi32>
      %pbase = nv_tileaa.muli %page, %c16v : tensor<64xi32>
      %row = nv_tileaa.addi %pbase, %slot : tensor<64xi32>
      %rowe = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %rowe : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %ns64 = arith.extsi %ns : i32 to i64
      %nss = nv_tileaa.splat %ns64 : i64 -> tensor<1x1xi64>
      %nsb = nv_tileaa.broadcast %nss : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %nsb : tensor<64x64xi64> -> tensor<64x64xi1>
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
      %c64v = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %c64v : tensor<64x64xi64> -> tensor<64x64xi1>
      %one2 = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one2 : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %poke = nv_tileaa.expand_dims %pok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %rowm = nv_tileaa.broadcast %poke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %mk0, %mk1 : tensor<64x64xi1>
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
// CHECK:      nv_tileaa.func @flat
// CHECK:      %[[MM:.*]] = nv_tileaa.make_memref %kf[%ns, %nc] [%sk]
// CHECK:      %[[VIEW:.*]] = nv_tileaa.block_tile %[[MM]] {{.*}} -> !nv_tileaa.tiled_view<array<i32: 16, 64>
// CHECK:      scf.for
// CHECK-NOT:  : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
// CHECK:      %[[P0:.*]] = arith.floordivsi %{{.*}}, %{{.*}} : i32
// CHECK:      nv_tileaa.load %{{.*}} mask %{{.*}} : i1 other %{{.*}} : i32 token %tok : !nv_tileaa.ptr<i32> -> i32
// CHECK:      nv_tileaa.tiled_load %[[VIEW]]
// CHECK-COUNT-3: nv_tileaa.tiled_load %[[VIEW]]
// CHECK:      nv_tileaa.cat
// CHECK:      nv_tileaa.cat
// CHECK:      %[[K:.*]] = nv_tileaa.cat %{{.*}}, %{{.*}} {dim = 0 : i32} : tensor<32x64xf16>, tensor<32x64xf16> -> tensor<64x64xf16>
// CHECK-NOT:  nv_tileaa.load %kp
// CHECK:      "nv_tileaa.permute"(%[[K]])

// -----

// The tile's first key 64 j + 8: a page's slots straddle two 16-row blocks of the tile: left alone.
builtin.module {
  nv_tileaa.func @unaligned(%tab: !nv_tileaa.ptr<i32>, %kf: !nv_tileaa.ptr<f16>, %ns: i32, %nc: i32, %sk: i32, %sk1: i32, %nt: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %s = nv_tileaa.addi %s0, %c8 : i32
      %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c16v = arith.constant dense<16> : tensor<64xi32>
      %zv = arith.constant dense<0> : tensor<64xi32>
      %fv = arith.constant dense<false> : tensor<64xi1>
      %pg = arith.floordivsi %t, %c16v : tensor<64xi32>
      %pg64 = nv_tileaa.extsi %pg : tensor<64xi32> -> tensor<64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1xi64> -> tensor<64xi64>
      %pok = nv_tileaa.cmpi "ult", %pg64, %ntb : tensor<64xi64> -> tensor<64xi1>
      %one = arith.constant dense<1> : tensor<64xi64>
      %poff = nv_tileaa.muli %pg64, %one : tensor<64xi64>
      %tps = nv_tileaa.splat %tab : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
      %tpb = nv_tileaa.broadcast %tps : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
      %pp = nv_tileaa.offset %tpb, %poff : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
      %page, %ptok = nv_tileaa.load %pp mask %pok : tensor<64xi1> other %zv : tensor<64xi32> token %tok : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
      %rem = arith.remsi %t, %c16v : tensor<64xi32>
      %neg = nv_tileaa.cmpi "slt", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %x = arith.xori %neg, %fv : tensor<64xi1>
      %nz = nv_tileaa.cmpi "ne", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %fix = arith.andi %x, %nz : tensor<64xi1>
      %radd = nv_tileaa.addi %rem, %c16v : tensor<64xi32>
      %slot = nv_tileaa.select %fix, %radd, %rem : tensor<64xi1>, tensor<64xi32>
      %pbase = nv_tileaa.muli %page, %c16v : tensor<64xi32>
      %row = nv_tileaa.addi %pbase, %slot : tensor<64xi32>
      %rowe = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %rowe : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %ns64 = arith.extsi %ns : i32 to i64
      %nss = nv_tileaa.splat %ns64 : i64 -> tensor<1x1xi64>
      %nsb = nv_tileaa.broadcast %nss : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %nsb : tensor<64x64xi64> -> tensor<64x64xi1>
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
      %c64v = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %c64v : tensor<64x64xi64> -> tensor<64x64xi1>
      %one2 = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one2 : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %poke = nv_tileaa.expand_dims %pok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %rowm = nv_tileaa.broadcast %poke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %mk0, %mk1 : tensor<64x64xi1>
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
// CHECK:      nv_tileaa.func @unaligned
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp

// -----

// A mask beyond the bounds checks (the gather's own mask=): the page loads' zero fill would not
// say it: left alone.
builtin.module {
  nv_tileaa.func @masked(%tab: !nv_tileaa.ptr<i32>, %kf: !nv_tileaa.ptr<f16>, %ns: i32, %nc: i32, %sk: i32, %sk1: i32, %nt: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %s = nv_tileaa.addi %s0, %c0 : i32
      %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c16v = arith.constant dense<16> : tensor<64xi32>
      %zv = arith.constant dense<0> : tensor<64xi32>
      %fv = arith.constant dense<false> : tensor<64xi1>
      %pg = arith.floordivsi %t, %c16v : tensor<64xi32>
      %pg64 = nv_tileaa.extsi %pg : tensor<64xi32> -> tensor<64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1xi64> -> tensor<64xi64>
      %pok = nv_tileaa.cmpi "ult", %pg64, %ntb : tensor<64xi64> -> tensor<64xi1>
      %one = arith.constant dense<1> : tensor<64xi64>
      %poff = nv_tileaa.muli %pg64, %one : tensor<64xi64>
      %tps = nv_tileaa.splat %tab : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
      %tpb = nv_tileaa.broadcast %tps : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
      %pp = nv_tileaa.offset %tpb, %poff : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
      %page, %ptok = nv_tileaa.load %pp mask %pok : tensor<64xi1> other %zv : tensor<64xi32> token %tok : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
      %rem = arith.remsi %t, %c16v : tensor<64xi32>
      %neg = nv_tileaa.cmpi "slt", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %x = arith.xori %neg, %fv : tensor<64xi1>
      %nz = nv_tileaa.cmpi "ne", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %fix = arith.andi %x, %nz : tensor<64xi1>
      %radd = nv_tileaa.addi %rem, %c16v : tensor<64xi32>
      %slot = nv_tileaa.select %fix, %radd, %rem : tensor<64xi1>, tensor<64xi32>
      %pbase = nv_tileaa.muli %page, %c16v : tensor<64xi32>
      %row = nv_tileaa.addi %pbase, %slot : tensor<64xi32>
      %rowe = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %rowe : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %ns64 = arith.extsi %ns : i32 to i64
      %nss = nv_tileaa.splat %ns64 : i64 -> tensor<1x1xi64>
      %nsb = nv_tileaa.broadcast %nss : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %nsb : tensor<64x64xi64> -> tensor<64x64xi1>
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
      %c64v = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %c64v : tensor<64x64xi64> -> tensor<64x64xi1>
      %one2 = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one2 : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %poke = nv_tileaa.expand_dims %pok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %rowm = nv_tileaa.broadcast %poke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m2 = arith.andi %mk0, %mk1 : tensor<64x64xi1>
      %m = arith.andi %m2, %rowm : tensor<64x64xi1>
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
// CHECK:      nv_tileaa.func @masked
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp

// -----

// The slot chosen by a test other than the floor modulo's sign fix (rem + 16 where the page read is in bounds):
// not t % 16: left alone.
builtin.module {
  nv_tileaa.func @notmod(%tab: !nv_tileaa.ptr<i32>, %kf: !nv_tileaa.ptr<f16>, %ns: i32, %nc: i32, %sk: i32, %sk1: i32, %nt: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %s = nv_tileaa.addi %s0, %c0 : i32
      %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c16v = arith.constant dense<16> : tensor<64xi32>
      %zv = arith.constant dense<0> : tensor<64xi32>
      %fv = arith.constant dense<false> : tensor<64xi1>
      %pg = arith.floordivsi %t, %c16v : tensor<64xi32>
      %pg64 = nv_tileaa.extsi %pg : tensor<64xi32> -> tensor<64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1xi64> -> tensor<64xi64>
      %pok = nv_tileaa.cmpi "ult", %pg64, %ntb : tensor<64xi64> -> tensor<64xi1>
      %one = arith.constant dense<1> : tensor<64xi64>
      %poff = nv_tileaa.muli %pg64, %one : tensor<64xi64>
      %tps = nv_tileaa.splat %tab : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
      %tpb = nv_tileaa.broadcast %tps : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
      %pp = nv_tileaa.offset %tpb, %poff : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
      %page, %ptok = nv_tileaa.load %pp mask %pok : tensor<64xi1> other %zv : tensor<64xi32> token %tok : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
      %rem = arith.remsi %t, %c16v : tensor<64xi32>
      %neg = nv_tileaa.cmpi "slt", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %x = arith.xori %neg, %fv : tensor<64xi1>
      %nz = nv_tileaa.cmpi "ne", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %fix = arith.andi %pok, %nz : tensor<64xi1>
      %radd = nv_tileaa.addi %rem, %c16v : tensor<64xi32>
      %slot = nv_tileaa.select %fix, %radd, %rem : tensor<64xi1>, tensor<64xi32>
      %pbase = nv_tileaa.muli %page, %c16v : tensor<64xi32>
      %row = nv_tileaa.addi %pbase, %slot : tensor<64xi32>
      %rowe = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %rowe : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %ns64 = arith.extsi %ns : i32 to i64
      %nss = nv_tileaa.splat %ns64 : i64 -> tensor<1x1xi64>
      %nsb = nv_tileaa.broadcast %nss : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %nsb : tensor<64x64xi64> -> tensor<64x64xi1>
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
      %c64v = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %c64v : tensor<64x64xi64> -> tensor<64x64xi1>
      %one2 = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one2 : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %poke = nv_tileaa.expand_dims %pok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %rowm = nv_tileaa.broadcast %poke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %mk0, %mk1 : tensor<64x64xi1>
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
// CHECK:      nv_tileaa.func @notmod
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp

// -----

// The bounds read the extents in another order than the array argument's (extent 1 bounds the rows): the page
// loads would read a memref of another shape than the gather: left alone.
builtin.module {
  nv_tileaa.func @other_extents(%tab: !nv_tileaa.ptr<i32>, %kf: !nv_tileaa.ptr<f16>, %ns: i32, %nc: i32, %sk: i32, %sk1: i32, %nt: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %s = nv_tileaa.addi %s0, %c0 : i32
      %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c16v = arith.constant dense<16> : tensor<64xi32>
      %zv = arith.constant dense<0> : tensor<64xi32>
      %fv = arith.constant dense<false> : tensor<64xi1>
      %pg = arith.floordivsi %t, %c16v : tensor<64xi32>
      %pg64 = nv_tileaa.extsi %pg : tensor<64xi32> -> tensor<64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1xi64> -> tensor<64xi64>
      %pok = nv_tileaa.cmpi "ult", %pg64, %ntb : tensor<64xi64> -> tensor<64xi1>
      %one = arith.constant dense<1> : tensor<64xi64>
      %poff = nv_tileaa.muli %pg64, %one : tensor<64xi64>
      %tps = nv_tileaa.splat %tab : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
      %tpb = nv_tileaa.broadcast %tps : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
      %pp = nv_tileaa.offset %tpb, %poff : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
      %page, %ptok = nv_tileaa.load %pp mask %pok : tensor<64xi1> other %zv : tensor<64xi32> token %tok : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
      %rem = arith.remsi %t, %c16v : tensor<64xi32>
      %neg = nv_tileaa.cmpi "slt", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %x = arith.xori %neg, %fv : tensor<64xi1>
      %nz = nv_tileaa.cmpi "ne", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %fix = arith.andi %x, %nz : tensor<64xi1>
      %radd = nv_tileaa.addi %rem, %c16v : tensor<64xi32>
      %slot = nv_tileaa.select %fix, %radd, %rem : tensor<64xi1>, tensor<64xi32>
      %pbase = nv_tileaa.muli %page, %c16v : tensor<64xi32>
      %row = nv_tileaa.addi %pbase, %slot : tensor<64xi32>
      %rowe = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %rowe : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %ns64 = arith.extsi %nc : i32 to i64
      %nss = nv_tileaa.splat %ns64 : i64 -> tensor<1x1xi64>
      %nsb = nv_tileaa.broadcast %nss : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %nsb : tensor<64x64xi64> -> tensor<64x64xi1>
      %sk64 = arith.extsi %sk : i32 to i64
      %sks = nv_tileaa.splat %sk64 : i64 -> tensor<1x1xi64>
      %skb = nv_tileaa.broadcast %sks : tensor<1x1xi64> -> tensor<64x64xi64>
      %t0 = nv_tileaa.muli %i0, %skb : tensor<64x64xi64>
      %cr = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %cre = nv_tileaa.expand_dims %cr {dim = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %crx = nv_tileaa.extsi %cre : tensor<1x64xi32> -> tensor<1x64xi64>
      %i1 = nv_tileaa.broadcast %crx : tensor<1x64xi64> -> tensor<64x64xi64>
      %nc64 = arith.extsi %ns : i32 to i64
      %ncs = nv_tileaa.splat %nc64 : i64 -> tensor<1x1xi64>
      %c64v = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %c64v : tensor<64x64xi64> -> tensor<64x64xi1>
      %one2 = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one2 : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %poke = nv_tileaa.expand_dims %pok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %rowm = nv_tileaa.broadcast %poke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %mk0, %mk1 : tensor<64x64xi1>
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
// CHECK:      nv_tileaa.func @other_extents
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp

// -----

// check_bounds=False (no mask, no padding: out of bounds undefined): rewritten, the memref's extents the array
// argument's own (the arguments after its pointer).
builtin.module {
  nv_tileaa.func @unchecked(%tab: !nv_tileaa.ptr<i32>, %kf: !nv_tileaa.ptr<f16>, %ns: i32, %nc: i32, %sk: i32, %sk1: i32, %nt: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %s = nv_tileaa.addi %s0, %c0 : i32
      %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c16v = arith.constant dense<16> : tensor<64xi32>
      %zv = arith.constant dense<0> : tensor<64xi32>
      %fv = arith.constant dense<false> : tensor<64xi1>
      %pg = arith.floordivsi %t, %c16v : tensor<64xi32>
      %pg64 = nv_tileaa.extsi %pg : tensor<64xi32> -> tensor<64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1xi64> -> tensor<64xi64>
      %pok = nv_tileaa.cmpi "ult", %pg64, %ntb : tensor<64xi64> -> tensor<64xi1>
      %one = arith.constant dense<1> : tensor<64xi64>
      %poff = nv_tileaa.muli %pg64, %one : tensor<64xi64>
      %tps = nv_tileaa.splat %tab : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
      %tpb = nv_tileaa.broadcast %tps : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
      %pp = nv_tileaa.offset %tpb, %poff : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
      %page, %ptok = nv_tileaa.load %pp mask %pok : tensor<64xi1> other %zv : tensor<64xi32> token %tok : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
      %rem = arith.remsi %t, %c16v : tensor<64xi32>
      %neg = nv_tileaa.cmpi "slt", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %x = arith.xori %neg, %fv : tensor<64xi1>
      %nz = nv_tileaa.cmpi "ne", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %fix = arith.andi %x, %nz : tensor<64xi1>
      %radd = nv_tileaa.addi %rem, %c16v : tensor<64xi32>
      %slot = nv_tileaa.select %fix, %radd, %rem : tensor<64xi1>, tensor<64xi32>
      %pbase = nv_tileaa.muli %page, %c16v : tensor<64xi32>
      %row = nv_tileaa.addi %pbase, %slot : tensor<64xi32>
      %rowe = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %rowe : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %ns64 = arith.extsi %ns : i32 to i64
      %nss = nv_tileaa.splat %ns64 : i64 -> tensor<1x1xi64>
      %nsb = nv_tileaa.broadcast %nss : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %nsb : tensor<64x64xi64> -> tensor<64x64xi1>
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
      %c64v = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %c64v : tensor<64x64xi64> -> tensor<64x64xi1>
      %one2 = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one2 : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %poke = nv_tileaa.expand_dims %pok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %rowm = nv_tileaa.broadcast %poke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %mk0, %mk1 : tensor<64x64xi1>
      %kps = nv_tileaa.splat %kf : !nv_tileaa.ptr<f16> -> tensor<1x1x!nv_tileaa.ptr<f16>>
      %kpb = nv_tileaa.broadcast %kps : tensor<1x1x!nv_tileaa.ptr<f16>> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %kp = nv_tileaa.offset %kpb, %lin : tensor<64x64x!nv_tileaa.ptr<f16>>, tensor<64x64xi64> -> tensor<64x64x!nv_tileaa.ptr<f16>>
      %zh = arith.constant 0.0 : f16
      %zhs = nv_tileaa.splat %zh : f16 -> tensor<1x1xf16>
      %zhb = nv_tileaa.broadcast %zhs : tensor<1x1xf16> -> tensor<64x64xf16>
      %k, %ktok = nv_tileaa.load %kp token %tok : tensor<64x64x!nv_tileaa.ptr<f16>> -> tensor<64x64xf16>
      %kt = "nv_tileaa.permute"(%k) <{permutation = array<i32: 1, 0>}> : (tensor<64x64xf16>) -> tensor<64x64xf16>
      %d = nv_tileaa.dot %q, %kt, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    nv_tileaa.return
  }
}
// CHECK:      nv_tileaa.func @unchecked
// CHECK:      nv_tileaa.make_memref %kf[%ns, %nc] [%sk]
// CHECK:      scf.for
// CHECK-COUNT-4: nv_tileaa.tiled_load
// CHECK-NOT:  nv_tileaa.load %kp

// -----

// Pages of 4 slots (not a multiple of TMA's 8-row swizzle atom): left alone.
builtin.module {
  nv_tileaa.func @bs4(%tab: !nv_tileaa.ptr<i32>, %kf: !nv_tileaa.ptr<f16>, %ns: i32, %nc: i32, %sk: i32, %sk1: i32, %nt: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %s = nv_tileaa.addi %s0, %c0 : i32
      %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c16v = arith.constant dense<4> : tensor<64xi32>
      %zv = arith.constant dense<0> : tensor<64xi32>
      %fv = arith.constant dense<false> : tensor<64xi1>
      %pg = arith.floordivsi %t, %c16v : tensor<64xi32>
      %pg64 = nv_tileaa.extsi %pg : tensor<64xi32> -> tensor<64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1xi64> -> tensor<64xi64>
      %pok = nv_tileaa.cmpi "ult", %pg64, %ntb : tensor<64xi64> -> tensor<64xi1>
      %one = arith.constant dense<1> : tensor<64xi64>
      %poff = nv_tileaa.muli %pg64, %one : tensor<64xi64>
      %tps = nv_tileaa.splat %tab : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
      %tpb = nv_tileaa.broadcast %tps : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
      %pp = nv_tileaa.offset %tpb, %poff : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
      %page, %ptok = nv_tileaa.load %pp mask %pok : tensor<64xi1> other %zv : tensor<64xi32> token %tok : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
      %rem = arith.remsi %t, %c16v : tensor<64xi32>
      %neg = nv_tileaa.cmpi "slt", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %x = arith.xori %neg, %fv : tensor<64xi1>
      %nz = nv_tileaa.cmpi "ne", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %fix = arith.andi %x, %nz : tensor<64xi1>
      %radd = nv_tileaa.addi %rem, %c16v : tensor<64xi32>
      %slot = nv_tileaa.select %fix, %radd, %rem : tensor<64xi1>, tensor<64xi32>
      %pbase = nv_tileaa.muli %page, %c16v : tensor<64xi32>
      %row = nv_tileaa.addi %pbase, %slot : tensor<64xi32>
      %rowe = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %rowe : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %ns64 = arith.extsi %ns : i32 to i64
      %nss = nv_tileaa.splat %ns64 : i64 -> tensor<1x1xi64>
      %nsb = nv_tileaa.broadcast %nss : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %nsb : tensor<64x64xi64> -> tensor<64x64xi1>
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
      %c64v = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %c64v : tensor<64x64xi64> -> tensor<64x64xi1>
      %one2 = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one2 : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %poke = nv_tileaa.expand_dims %pok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %rowm = nv_tileaa.broadcast %poke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %mk0, %mk1 : tensor<64x64xi1>
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
// CHECK:      nv_tileaa.func @bs4
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp

// -----

// Pages of 24 slots, the tile's first key 48 j (a multiple of 24), but 64 rows are no whole number of
// pages: left alone.
builtin.module {
  nv_tileaa.func @rows_not_pages(%tab: !nv_tileaa.ptr<i32>, %kf: !nv_tileaa.ptr<f16>, %ns: i32, %nc: i32, %sk: i32, %sk1: i32, %nt: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 48 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %s = nv_tileaa.addi %s0, %c0 : i32
      %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c16v = arith.constant dense<24> : tensor<64xi32>
      %zv = arith.constant dense<0> : tensor<64xi32>
      %fv = arith.constant dense<false> : tensor<64xi1>
      %pg = arith.floordivsi %t, %c16v : tensor<64xi32>
      %pg64 = nv_tileaa.extsi %pg : tensor<64xi32> -> tensor<64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1xi64> -> tensor<64xi64>
      %pok = nv_tileaa.cmpi "ult", %pg64, %ntb : tensor<64xi64> -> tensor<64xi1>
      %one = arith.constant dense<1> : tensor<64xi64>
      %poff = nv_tileaa.muli %pg64, %one : tensor<64xi64>
      %tps = nv_tileaa.splat %tab : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
      %tpb = nv_tileaa.broadcast %tps : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
      %pp = nv_tileaa.offset %tpb, %poff : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
      %page, %ptok = nv_tileaa.load %pp mask %pok : tensor<64xi1> other %zv : tensor<64xi32> token %tok : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
      %rem = arith.remsi %t, %c16v : tensor<64xi32>
      %neg = nv_tileaa.cmpi "slt", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %x = arith.xori %neg, %fv : tensor<64xi1>
      %nz = nv_tileaa.cmpi "ne", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %fix = arith.andi %x, %nz : tensor<64xi1>
      %radd = nv_tileaa.addi %rem, %c16v : tensor<64xi32>
      %slot = nv_tileaa.select %fix, %radd, %rem : tensor<64xi1>, tensor<64xi32>
      %pbase = nv_tileaa.muli %page, %c16v : tensor<64xi32>
      %row = nv_tileaa.addi %pbase, %slot : tensor<64xi32>
      %rowe = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %rowe : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %ns64 = arith.extsi %ns : i32 to i64
      %nss = nv_tileaa.splat %ns64 : i64 -> tensor<1x1xi64>
      %nsb = nv_tileaa.broadcast %nss : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %nsb : tensor<64x64xi64> -> tensor<64x64xi1>
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
      %c64v = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %c64v : tensor<64x64xi64> -> tensor<64x64xi1>
      %one2 = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one2 : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %poke = nv_tileaa.expand_dims %pok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %rowm = nv_tileaa.broadcast %poke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %mk0, %mk1 : tensor<64x64xi1>
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
// CHECK:      nv_tileaa.func @rows_not_pages
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp

// -----

// The page of row t read at t / 16 truncated (arith.divsi), not floored: left alone.
builtin.module {
  nv_tileaa.func @trunc_page(%tab: !nv_tileaa.ptr<i32>, %kf: !nv_tileaa.ptr<f16>, %ns: i32, %nc: i32, %sk: i32, %sk1: i32, %nt: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %s = nv_tileaa.addi %s0, %c0 : i32
      %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c16v = arith.constant dense<16> : tensor<64xi32>
      %zv = arith.constant dense<0> : tensor<64xi32>
      %fv = arith.constant dense<false> : tensor<64xi1>
      %pg = arith.divsi %t, %c16v : tensor<64xi32>
      %pg64 = nv_tileaa.extsi %pg : tensor<64xi32> -> tensor<64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1xi64> -> tensor<64xi64>
      %pok = nv_tileaa.cmpi "ult", %pg64, %ntb : tensor<64xi64> -> tensor<64xi1>
      %one = arith.constant dense<1> : tensor<64xi64>
      %poff = nv_tileaa.muli %pg64, %one : tensor<64xi64>
      %tps = nv_tileaa.splat %tab : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
      %tpb = nv_tileaa.broadcast %tps : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
      %pp = nv_tileaa.offset %tpb, %poff : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
      %page, %ptok = nv_tileaa.load %pp mask %pok : tensor<64xi1> other %zv : tensor<64xi32> token %tok : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
      %rem = arith.remsi %t, %c16v : tensor<64xi32>
      %neg = nv_tileaa.cmpi "slt", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %x = arith.xori %neg, %fv : tensor<64xi1>
      %nz = nv_tileaa.cmpi "ne", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %fix = arith.andi %x, %nz : tensor<64xi1>
      %radd = nv_tileaa.addi %rem, %c16v : tensor<64xi32>
      %slot = nv_tileaa.select %fix, %radd, %rem : tensor<64xi1>, tensor<64xi32>
      %pbase = nv_tileaa.muli %page, %c16v : tensor<64xi32>
      %row = nv_tileaa.addi %pbase, %slot : tensor<64xi32>
      %rowe = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %rowe : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %ns64 = arith.extsi %ns : i32 to i64
      %nss = nv_tileaa.splat %ns64 : i64 -> tensor<1x1xi64>
      %nsb = nv_tileaa.broadcast %nss : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %nsb : tensor<64x64xi64> -> tensor<64x64xi1>
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
      %c64v = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %c64v : tensor<64x64xi64> -> tensor<64x64xi1>
      %one2 = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one2 : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %poke = nv_tileaa.expand_dims %pok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %rowm = nv_tileaa.broadcast %poke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %mk0, %mk1 : tensor<64x64xi1>
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
// CHECK:      nv_tileaa.func @trunc_page
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp

// -----

// The slot taken from another key vector (t2 = 128 j + arange(64)) than the page (t): left alone.
builtin.module {
  nv_tileaa.func @two_keys(%tab: !nv_tileaa.ptr<i32>, %kf: !nv_tileaa.ptr<f16>, %ns: i32, %nc: i32, %sk: i32, %sk1: i32, %nt: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %s = nv_tileaa.addi %s0, %c0 : i32
      %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c16v = arith.constant dense<16> : tensor<64xi32>
      %zv = arith.constant dense<0> : tensor<64xi32>
      %fv = arith.constant dense<false> : tensor<64xi1>
      %pg = arith.floordivsi %t, %c16v : tensor<64xi32>
      %pg64 = nv_tileaa.extsi %pg : tensor<64xi32> -> tensor<64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1xi64> -> tensor<64xi64>
      %pok = nv_tileaa.cmpi "ult", %pg64, %ntb : tensor<64xi64> -> tensor<64xi1>
      %one = arith.constant dense<1> : tensor<64xi64>
      %poff = nv_tileaa.muli %pg64, %one : tensor<64xi64>
      %tps = nv_tileaa.splat %tab : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
      %tpb = nv_tileaa.broadcast %tps : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
      %pp = nv_tileaa.offset %tpb, %poff : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
      %page, %ptok = nv_tileaa.load %pp mask %pok : tensor<64xi1> other %zv : tensor<64xi32> token %tok : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
      %c128 = arith.constant 128 : i32
      %s2 = nv_tileaa.muli %j, %c128 : i32
      %ss2 = nv_tileaa.splat %s2 : i32 -> tensor<1xi32>
      %sb2 = nv_tileaa.broadcast %ss2 : tensor<1xi32> -> tensor<64xi32>
      %t2 = nv_tileaa.addi %sb2, %rng : tensor<64xi32>
      %rem = arith.remsi %t2, %c16v : tensor<64xi32>
      %neg = nv_tileaa.cmpi "slt", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %x = arith.xori %neg, %fv : tensor<64xi1>
      %nz = nv_tileaa.cmpi "ne", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %fix = arith.andi %x, %nz : tensor<64xi1>
      %radd = nv_tileaa.addi %rem, %c16v : tensor<64xi32>
      %slot = nv_tileaa.select %fix, %radd, %rem : tensor<64xi1>, tensor<64xi32>
      %pbase = nv_tileaa.muli %page, %c16v : tensor<64xi32>
      %row = nv_tileaa.addi %pbase, %slot : tensor<64xi32>
      %rowe = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %rowe : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %ns64 = arith.extsi %ns : i32 to i64
      %nss = nv_tileaa.splat %ns64 : i64 -> tensor<1x1xi64>
      %nsb = nv_tileaa.broadcast %nss : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %nsb : tensor<64x64xi64> -> tensor<64x64xi1>
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
      %c64v = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %c64v : tensor<64x64xi64> -> tensor<64x64xi1>
      %one2 = arith.constant dense<1> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one2 : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %poke = nv_tileaa.expand_dims %pok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %rowm = nv_tileaa.broadcast %poke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %mk0, %mk1 : tensor<64x64xi1>
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
// CHECK:      nv_tileaa.func @two_keys
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp

// -----

// The last dimension read with stride 2 (every other column): no tile of the array: left alone.
builtin.module {
  nv_tileaa.func @col_stride2(%tab: !nv_tileaa.ptr<i32>, %kf: !nv_tileaa.ptr<f16>, %ns: i32, %nc: i32, %sk: i32, %sk1: i32, %nt: i32, %q: tensor<64x64xf16>, %n: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %s0 = nv_tileaa.muli %j, %c64 : i32
      %s = nv_tileaa.addi %s0, %c0 : i32
      %ss = nv_tileaa.splat %s : i32 -> tensor<1xi32>
      %sb = nv_tileaa.broadcast %ss : tensor<1xi32> -> tensor<64xi32>
      %rng = nv_tileaa.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %t = nv_tileaa.addi %sb, %rng : tensor<64xi32>
      %c16v = arith.constant dense<16> : tensor<64xi32>
      %zv = arith.constant dense<0> : tensor<64xi32>
      %fv = arith.constant dense<false> : tensor<64xi1>
      %pg = arith.floordivsi %t, %c16v : tensor<64xi32>
      %pg64 = nv_tileaa.extsi %pg : tensor<64xi32> -> tensor<64xi64>
      %nt64 = arith.extsi %nt : i32 to i64
      %nts = nv_tileaa.splat %nt64 : i64 -> tensor<1xi64>
      %ntb = nv_tileaa.broadcast %nts : tensor<1xi64> -> tensor<64xi64>
      %pok = nv_tileaa.cmpi "ult", %pg64, %ntb : tensor<64xi64> -> tensor<64xi1>
      %one = arith.constant dense<1> : tensor<64xi64>
      %poff = nv_tileaa.muli %pg64, %one : tensor<64xi64>
      %tps = nv_tileaa.splat %tab : !nv_tileaa.ptr<i32> -> tensor<1x!nv_tileaa.ptr<i32>>
      %tpb = nv_tileaa.broadcast %tps : tensor<1x!nv_tileaa.ptr<i32>> -> tensor<64x!nv_tileaa.ptr<i32>>
      %pp = nv_tileaa.offset %tpb, %poff : tensor<64x!nv_tileaa.ptr<i32>>, tensor<64xi64> -> tensor<64x!nv_tileaa.ptr<i32>>
      %page, %ptok = nv_tileaa.load %pp mask %pok : tensor<64xi1> other %zv : tensor<64xi32> token %tok : tensor<64x!nv_tileaa.ptr<i32>> -> tensor<64xi32>
      %rem = arith.remsi %t, %c16v : tensor<64xi32>
      %neg = nv_tileaa.cmpi "slt", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %x = arith.xori %neg, %fv : tensor<64xi1>
      %nz = nv_tileaa.cmpi "ne", %rem, %zv : tensor<64xi32> -> tensor<64xi1>
      %fix = arith.andi %x, %nz : tensor<64xi1>
      %radd = nv_tileaa.addi %rem, %c16v : tensor<64xi32>
      %slot = nv_tileaa.select %fix, %radd, %rem : tensor<64xi1>, tensor<64xi32>
      %pbase = nv_tileaa.muli %page, %c16v : tensor<64xi32>
      %row = nv_tileaa.addi %pbase, %slot : tensor<64xi32>
      %rowe = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %rowx = nv_tileaa.extsi %rowe : tensor<64x1xi32> -> tensor<64x1xi64>
      %i0 = nv_tileaa.broadcast %rowx : tensor<64x1xi64> -> tensor<64x64xi64>
      %ns64 = arith.extsi %ns : i32 to i64
      %nss = nv_tileaa.splat %ns64 : i64 -> tensor<1x1xi64>
      %nsb = nv_tileaa.broadcast %nss : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk0 = nv_tileaa.cmpi "ult", %i0, %nsb : tensor<64x64xi64> -> tensor<64x64xi1>
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
      %c64v = nv_tileaa.broadcast %ncs : tensor<1x1xi64> -> tensor<64x64xi64>
      %mk1 = nv_tileaa.cmpi "ult", %i1, %c64v : tensor<64x64xi64> -> tensor<64x64xi1>
      %one2 = arith.constant dense<2> : tensor<64x64xi64>
      %t1 = nv_tileaa.muli %i1, %one2 : tensor<64x64xi64>
      %lin = nv_tileaa.addi %t0, %t1 : tensor<64x64xi64>
      %poke = nv_tileaa.expand_dims %pok {dim = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
      %rowm = nv_tileaa.broadcast %poke : tensor<64x1xi1> -> tensor<64x64xi1>
      %m = arith.andi %mk0, %mk1 : tensor<64x64xi1>
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
// CHECK:      nv_tileaa.func @col_stride2
// CHECK-NOT:  nv_tileaa.tiled_load
// CHECK:      nv_tileaa.load %kp
