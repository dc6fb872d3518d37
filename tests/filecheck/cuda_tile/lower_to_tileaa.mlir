// RUN: tileorch-opt %s --split-input-file -p convert-cudatile-to-tileaa --verify-diagnostics | filecheck %s

// A cuTile-style GEMM lowers to the tile tier: views become memrefs and tiled views, the K loop
// an scf.for of tiled loads and a dot, tokens mem_tokens, hints the kernel_spec.

// CHECK: builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>}
// CHECK: nv_tileaa.func @gemm(%[[A:.*]]: !nv_tileaa.ptr<f16>, %{{.*}}: !nv_tileaa.ptr<f16>, %{{.*}}: !nv_tileaa.ptr<f16>, %[[M:.*]]: i32, %[[N:.*]]: i32, %[[K:.*]]: i32)
// CHECK-SAME: attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<2, 8>, nv_tileaa.occupancy = 2 : i32}
cuda_tile.module @m {
  entry @gemm(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f16>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) optimization_hints=<sm_90 = {num_cta_in_cga = 2, num_worker_warps_per_cta = 8, occupancy = 2}, default = {num_cta_in_cga = 1}> {
    // CHECK: %[[TOK:.*]] = nv_tileaa.create_mem_token
    %tok = make_token : token
    // CHECK: %[[A16:.*]] = nv_tileaa.assume %[[A]] {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<f16>
    %a16 = assume div_by<16>, %a : tile<ptr<f16>>
    // CHECK: %[[MA:.*]] = nv_tileaa.make_memref %[[A16]][%[[M]], %[[K]]] [%[[K]]] : !nv_tileaa.ptr<f16>[i32, i32] [i32] -> !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
    %tva = make_tensor_view %a16, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tvb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tvc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    // CHECK: %[[VA:.*]] = nv_tileaa.block_tile %[[MA]] {{.*}} -> !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>,
    %pa = make_partition_view %tva : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tvb : partition_view<tile=(64x128), tensor_view<?x?xf16, strides=[?,1]>>
    %pc = make_partition_view %tvc : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>, dim_map=[1, 0]>
    // CHECK: %[[BX:.*]] = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    // CHECK: %[[BY:.*]] = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    // CHECK: %[[NK:.*]] = nv_tileaa.get_dim_size %[[VA]] {index = 1 : i32}
    %kt:2 = get_index_space_shape %pa : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    // CHECK: arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %zero = constant <f32: 0.0> : tile<128x128xf32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    // CHECK: %[[ACC:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[NK]] step %{{.*}} iter_args(%[[A0:.*]] = %{{.*}}) -> (tensor<128x128xf32>) : i32 {
    %acc = for %i in (%c0 to %kt#1, step %c1) : tile<i32> iter_values(%acc0 = %zero) -> (tile<128x128xf32>) {
      // CHECK: nv_tileaa.tiled_load %[[VA]][%[[BX]], %[[I]]] token %[[TOK]] {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<weak>} {{.*}} -> tensor<128x64xf16>
      %ta, %t1 = load_view_tko weak %pa[%bx, %i] token = %tok : partition_view<tile=(128x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
      %tb, %t2 = load_view_tko weak %pb[%i, %by] token = %tok : partition_view<tile=(64x128), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x128xf16>, token
      // CHECK: %[[D:.*]] = nv_tileaa.dot %{{.*}}, %{{.*}}, %[[A0]] {matmul_fast_accum = false}
      %d = mmaf %ta, %tb, %acc0 : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
      // CHECK: scf.yield %[[D]] : tensor<128x128xf32>
      continue %d : tile<128x128xf32>
    }
    // CHECK: %[[H:.*]] = nv_tileaa.fp_to_fp %[[ACC]] {rounding = #nv_tileaa.rounding_mode<rn>} : tensor<128x128xf32> -> tensor<128x128xf16>
    %h = ftof %acc : tile<128x128xf32> -> tile<128x128xf16>
    // CHECK: nv_tileaa.tiled_store %[[H]], %{{.*}}[%[[BY]], %[[BX]]] {allow_tma = true, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>}
    %t3 = store_view_tko relaxed device %h, %pc[%by, %bx] : tile<128x128xf16>, partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>, dim_map=[1, 0]>, tile<i32> -> token
    // CHECK: nv_tileaa.return
  }
}

// -----

// Row reduction and elementwise math: reduce keeps its combiner region, reshape inserts unit
// dimensions; comparisons and selects of tiles become nv_tileaa.cmpf/select (a tile of i1: xDSL's
// arith.cmpf types its result i1 and arith.select takes an i1 condition).
// CHECK-LABEL: nv_tileaa.func @rowmax
cuda_tile.module @m {
  entry @rowmax() {
    %x = constant <f32: 1.0> : tile<4x8xf32>
    // CHECK: "nv_tileaa.reduce"(%{{.*}}) <{dim = 0 : i32, identities = [0xff800000 : f32]}> ({
    // CHECK-NEXT: ^{{.*}}(%[[P:.*]]: f32, %[[Q:.*]]: f32):
    // CHECK-NEXT: nv_tileaa.maxf %[[P]], %[[Q]] : f32
    // CHECK: }) : (tensor<4x8xf32>) -> tensor<8xf32>
    %r = reduce %x dim=0 identities=[0xff800000 : f32] : tile<4x8xf32> -> tile<8xf32>
    (%p: tile<f32>, %q: tile<f32>) {
      %mx = maxf %p, %q : tile<f32>
      yield %mx : tile<f32>
    }
    // CHECK: nv_tileaa.expand_dims %{{.*}} {dim = 0 : i32} : tensor<8xf32> -> tensor<1x8xf32>
    %r2 = reshape %r : tile<8xf32> -> tile<1x8xf32>
    %rb = broadcast %r2 : tile<1x8xf32> -> tile<4x8xf32>
    // CHECK: %[[GT:.*]] = nv_tileaa.cmpf "ogt", %{{.*}}, %{{.*}} : tensor<4x8xf32> -> tensor<4x8xi1>
    %gt = cmpf greater_than ordered %x, %rb : tile<4x8xf32> -> tile<4x8xi1>
    // CHECK: nv_tileaa.select %[[GT]], %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xf32>
    %s = select %gt, %x, %rb : tile<4x8xi1>, tile<4x8xf32>
  }
}

// -----

// A loop whose body breaks from inside an if becomes an scf.while: the body computes
// (go on?, next iteration values, results); the rest of the body after the if runs in its
// fall-through branch.
// CHECK-LABEL: nv_tileaa.func @count
// CHECK: %{{.*}}, %[[R:.*]] = scf.while (%[[I:.*]] = %{{.*}}) : (i32) -> (i32, i32) {
// CHECK:   %[[DONE:.*]] = arith.cmpi sge, %[[I]], %{{.*}} : i32
// CHECK:   scf.if %[[DONE]] -> (i1, i32, i32) {
// CHECK:     %[[F:.*]] = arith.constant false
// CHECK:     scf.yield %[[F]], %[[I]], %[[I]] : i1, i32, i32
// CHECK:   } else {
// CHECK:     %[[N:.*]] = nv_tileaa.addi %[[I]], %{{.*}} : i32
// CHECK:     %[[T:.*]] = arith.constant true
// CHECK:     scf.yield %[[T]], %[[N]], %{{.*}} : i1, i32, i32
// CHECK:   scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : i32, i32
// CHECK: } do {
// CHECK:   scf.yield %{{.*}} : i32
cuda_tile.module @m {
  entry @count(%n: tile<i32>) {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %r = loop iter_values(%i = %c0) : tile<i32> -> tile<i32> {
      %done = cmpi greater_than_or_equal %i, %n, signed : tile<i32> -> tile<i1>
      if %done {
        break %i : tile<i32>
      }
      %next = addi %i, %c1 : tile<i32>
      continue %next : tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  entry @k() {
    %c = constant <f32: 0.0> : tile<8xf32>
    %f = ftof %c : tile<8xf32> -> tile<8xf4E2M1FN>
    // CHECK: lower_to_tileaa.mlir:[[# @LINE + 1]]:5: error: 'cuda_tile.pack' of f4E2M1FN elements (sub-byte element types) is not supported yet by convert-cudatile-to-tileaa
    %p = pack %f : tile<8xf4E2M1FN> -> tile<4xi8>
  }
}

// -----

// Float remainder lowers to nv_tileaa.remf (C fmod semantics).
// CHECK-LABEL: nv_tileaa.func @fmod
// CHECK: nv_tileaa.remf %{{.*}}, %{{.*}} : tensor<8xf32>
cuda_tile.module @m {
  entry @fmod() {
    %x = constant <f32: 5.5> : tile<8xf32>
    %y = constant <f32: 2.0> : tile<8xf32>
    %r = remf %x, %y : tile<8xf32>
  }
}

// -----

// A reduction of a 1-D tile (layernorm's mean, ct.sum(t)) gives a rank-0 tile, which the tile
// tier holds as a scalar: the reduce gives a rank-0 tensor and nv_tileaa.extract takes its
// element (this used to build a reduce with an f32 result, which does not verify).
// CHECK-LABEL: nv_tileaa.func @mean
// CHECK: %[[S:.*]] = "nv_tileaa.reduce"(%{{.*}}) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
// CHECK: }) : (tensor<256xf32>) -> tensor<f32>
// CHECK: %[[M:.*]] = nv_tileaa.extract %[[S]] {indices = array<i32>} : tensor<f32> -> f32
// CHECK: nv_tileaa.divf %[[M]], %{{.*}} : f32
// CHECK: nv_tileaa.splat %{{.*}} : f32 -> tensor<1xf32>
// CHECK: nv_tileaa.broadcast %{{.*}} : tensor<1xf32> -> tensor<256xf32>
cuda_tile.module @m {
  entry @mean() {
    %x = constant <f32: 1.0> : tile<256xf32>
    %n = constant <f32: 256.0> : tile<f32>
    %s = reduce %x dim=0 identities=[0.000000e+00 : f32] : tile<256xf32> -> tile<f32>
    (%p: tile<f32>, %q: tile<f32>) {
      %t = addf %p, %q : tile<f32>
      yield %t : tile<f32>
    }
    %m = divf %s, %n : tile<f32>
    %mt = reshape %m : tile<f32> -> tile<1xf32>
    %mb = broadcast %mt : tile<1xf32> -> tile<256xf32>
    %d = subf %x, %mb : tile<256xf32>
  }
}

// -----

// Integer and float casts of tiles become nv_tileaa casts (xDSL's arith casts take scalars
// only); of scalars they stay arith.  negi is 0 - x, absi max(x, 0 - x).  ftoi to i8 saturates
// through i32 (clamped to [-128, 127], then truncated: PTX has no saturating cvt to 8 bits).
// CHECK-LABEL: nv_tileaa.func @casts
// CHECK: nv_tileaa.extsi %{{.*}} : tensor<64xi8> -> tensor<64xi32>
// CHECK: nv_tileaa.extui %{{.*}} : tensor<64xi8> -> tensor<64xi64>
// CHECK: nv_tileaa.trunci %{{.*}} : tensor<64xi32> -> tensor<64xi16>
// CHECK: nv_tileaa.sitofp %{{.*}} : tensor<64xi32> -> tensor<64xf16>
// CHECK: nv_tileaa.uitofp %{{.*}} : tensor<64xi8> -> tensor<64xbf16>
// CHECK: %[[W:.*]] = nv_tileaa.fptosi %{{.*}} : tensor<64xf16> -> tensor<64xi32>
// CHECK: %[[LO:.*]] = arith.constant dense<-128> : tensor<64xi32>
// CHECK: %[[A:.*]] = arith.maxsi %[[W]], %[[LO]] : tensor<64xi32>
// CHECK: %[[HI:.*]] = arith.constant dense<127> : tensor<64xi32>
// CHECK: %[[C:.*]] = arith.minsi %[[A]], %[[HI]] : tensor<64xi32>
// CHECK: nv_tileaa.trunci %[[C]] : tensor<64xi32> -> tensor<64xi8>
// CHECK: nv_tileaa.fptoui %{{.*}} : tensor<64xf16> -> tensor<64xi32>
// CHECK: %[[B:.*]] = nv_tileaa.cmpi "slt", %{{.*}}, %{{.*}} : tensor<64xi32> -> tensor<64xi1>
// CHECK: nv_tileaa.extui %[[B]] : tensor<64xi1> -> tensor<64xi32>
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: %[[Z:.*]] = arith.constant dense<0> : tensor<64xi32>
// CHECK: nv_tileaa.subi %[[Z]], %{{.*}} : tensor<64xi32>
// CHECK: %[[N:.*]] = nv_tileaa.subi %{{.*}}, %{{.*}} : tensor<64xi32>
// CHECK: arith.maxsi %{{.*}}, %[[N]] : tensor<64xi32>
cuda_tile.module @m {
  entry @casts() {
    %b = constant <i8: 3> : tile<64xi8>
    %w = exti %b signed : tile<64xi8> -> tile<64xi32>
    %u = exti %b unsigned : tile<64xi8> -> tile<64xi64>
    %t = trunci %w : tile<64xi32> -> tile<64xi16>
    %h = itof %w signed rounding<nearest_even> : tile<64xi32> -> tile<64xf16>
    %bf = itof %b unsigned rounding<nearest_even> : tile<64xi8> -> tile<64xbf16>
    %q = ftoi %h signed rounding<nearest_int_to_zero> : tile<64xf16> -> tile<64xi8>
    %r = ftoi %h unsigned rounding<nearest_int_to_zero> : tile<64xf16> -> tile<64xi32>
    %lt = cmpi less_than %w, %r, signed : tile<64xi32> -> tile<64xi1>
    %li = exti %lt unsigned : tile<64xi1> -> tile<64xi32>
    %s8 = constant <i8: 1> : tile<i8>
    %s32 = exti %s8 signed : tile<i8> -> tile<i32>
    %ng = negi %w : tile<64xi32>
    %ab = absi %w : tile<64xi32>
  }
}

// -----

// cat and extract (a sub-tile at dynamic tile indices) of any rank.
// CHECK-LABEL: nv_tileaa.func @shapes
// CHECK: nv_tileaa.cat %{{.*}}, %{{.*}} {dim = 1 : i32} : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// CHECK: nv_tileaa.extract_slice %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x8x8xf32>, i32, i32, i32 -> tensor<1x8x4xf32>
cuda_tile.module @m {
  entry @shapes(%i: tile<i32>) {
    %x = constant <f32: 1.0> : tile<2x4x8xf32>
    %c = cat %x, %x dim = 1 : tile<2x4x8xf32>, tile<2x4x8xf32> -> tile<2x8x8xf32>
    %c0 = constant <i32: 0> : tile<i32>
    %e = extract %c[%i, %c0, %i] : tile<2x8x8xf32> -> tile<1x8x4xf32>
  }
}

// -----

// mmai (int8/uint8 tiles, i32 accumulator) is the integer dot; each operand's signedness is kept.
// CHECK-LABEL: nv_tileaa.func @int_dot
// CHECK: nv_tileaa.dot %{{.*}}, %{{.*}}, %{{.*}} {matmul_fast_accum = false, signedness_a = #nv_tileaa.signedness<unsigned>, signedness_b = #nv_tileaa.signedness<signed>} : tensor<64x32xi8>, tensor<32x16xi8>, tensor<64x16xi32> -> tensor<64x16xi32>
// CHECK: nv_tileaa.dot %{{.*}}, %{{.*}}, %{{.*}} {matmul_fast_accum = false, signedness_a = #nv_tileaa.signedness<signed>, signedness_b = #nv_tileaa.signedness<signed>}
cuda_tile.module @m {
  entry @int_dot() {
    %a = constant <i8: 3> : tile<64x32xi8>
    %b = constant <i8: -2> : tile<32x16xi8>
    %c = constant <i32: 0> : tile<64x16xi32>
    %d = mmai %a, %b, %c unsigned signed : tile<64x32xi8>, tile<32x16xi8>, tile<64x16xi32>
    %e = mmai %a, %b, %d signed signed : tile<64x32xi8>, tile<32x16xi8>, tile<64x16xi32>
  }
}

// -----

// ftoi saturates (Tile IR spec): to an integer narrower than 16 bits it converts to i32, clamps to
// the narrow type's range (signed [-2^(w-1), 2^(w-1)-1], unsigned [0, 2^w-1]) and truncates, on tiles
// and on scalars; to 16 bits and wider it is one fptosi / fptoui (PTX cvt.rzi saturates there).
// CHECK-LABEL: nv_tileaa.func @narrow_ftoi
// CHECK: %[[U:.*]] = nv_tileaa.fptoui %{{.*}} : tensor<32xf32> -> tensor<32xi32>
// CHECK-NEXT: %[[UH:.*]] = arith.constant dense<255> : tensor<32xi32>
// CHECK-NEXT: %[[UC:.*]] = arith.minui %[[U]], %[[UH]] : tensor<32xi32>
// CHECK-NEXT: nv_tileaa.trunci %[[UC]] : tensor<32xi32> -> tensor<32xi8>
// CHECK-NEXT: nv_tileaa.fptosi %{{.*}} : tensor<32xf32> -> tensor<32xi16>
// CHECK-NEXT: %[[S:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK-NEXT: %[[SL:.*]] = arith.constant -128 : i32
// CHECK-NEXT: %[[SA:.*]] = arith.maxsi %[[S]], %[[SL]] : i32
// CHECK-NEXT: %[[SH:.*]] = arith.constant 127 : i32
// CHECK-NEXT: %[[SC:.*]] = arith.minsi %[[SA]], %[[SH]] : i32
// CHECK-NEXT: arith.trunci %[[SC]] : i32 to i8
cuda_tile.module @m {
  entry @narrow_ftoi(%s: tile<f32>) {
    %x = constant <f32: 300.0> : tile<32xf32>
    %u = ftoi %x unsigned rounding<nearest_int_to_zero> : tile<32xf32> -> tile<32xi8>
    %h = ftoi %x signed rounding<nearest_int_to_zero> : tile<32xf32> -> tile<32xi16>
    %q = ftoi %s signed rounding<nearest_int_to_zero> : tile<f32> -> tile<i8>
  }
}

// -----

// ftoi of NaN is 0 (Tile IR spec), but PTX cvt.rzi gives the sign-bit pattern for a 64-bit result and
// for an f64 source (measured on an H200), so those select 0 where the source is NaN (cmpf uno); f32 to
// i32 stays one fptosi.  An f64 source to i8 selects on the i32 before the clamp.
// CHECK-LABEL: nv_tileaa.func @ftoi_nan_select
// CHECK: %[[D:.*]] = nv_tileaa.fptosi %[[X:.*]] : tensor<16xf64> -> tensor<16xi32>
// CHECK-NEXT: %[[N:.*]] = nv_tileaa.cmpf "uno", %[[X]], %[[X]]
// CHECK: nv_tileaa.select %[[N]], %{{.*}}, %[[D]]
// CHECK: %[[L:.*]] = nv_tileaa.fptosi %[[Y:.*]] : tensor<16xf32> -> tensor<16xi64>
// CHECK-NEXT: %[[M:.*]] = nv_tileaa.cmpf "uno", %[[Y]], %[[Y]]
// CHECK: nv_tileaa.select %[[M]], %{{.*}}, %[[L]]
// CHECK: nv_tileaa.fptosi %[[Y]] : tensor<16xf32> -> tensor<16xi32>
// CHECK-NOT: cmpf
// CHECK: %[[B:.*]] = nv_tileaa.fptosi %[[X]] : tensor<16xf64> -> tensor<16xi32>
// CHECK-NEXT: nv_tileaa.cmpf "uno", %[[X]], %[[X]]
// CHECK: nv_tileaa.select
// CHECK: arith.maxsi
// CHECK: nv_tileaa.trunci %{{.*}} : tensor<16xi32> -> tensor<16xi8>
cuda_tile.module @m {
  entry @ftoi_nan_select() {
    %x = constant <f64: 1.5> : tile<16xf64>
    %y = constant <f32: 2.5> : tile<16xf32>
    %a = ftoi %x signed rounding<nearest_int_to_zero> : tile<16xf64> -> tile<16xi32>
    %b = ftoi %y signed rounding<nearest_int_to_zero> : tile<16xf32> -> tile<16xi64>
    %c = ftoi %y signed rounding<nearest_int_to_zero> : tile<16xf32> -> tile<16xi32>
    %d = ftoi %x signed rounding<nearest_int_to_zero> : tile<16xf64> -> tile<16xi8>
  }
}
