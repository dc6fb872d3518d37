// The nvvm.tcgen05 ops print in upstream MLIR's custom syntax (what upstream `iree-opt`, LLVM 24git,
// prints for these ops) and survive custom -> generic -> custom.
// RUN: TILEORCH_ROUNDTRIP
// RUN: tileorch-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @f(%s: !llvm.ptr<3>, %g: !llvm.ptr, %t: !llvm.ptr<6>, %n: i32, %d: i64, %m: i16, %i: i32, %p: i1, %mask: vector<8xi32>, %mask4: vector<4xi32>, %off: i64, %sc: i64) {
  // CHECK:      nvvm.tcgen05.alloc %s, %n, group = <cta_2> : !llvm.ptr<3>, i32
  // CHECK-NEXT: nvvm.tcgen05.alloc %g, %n : !llvm.ptr, i32
  // CHECK-NEXT: nvvm.tcgen05.dealloc %t, %n, group = <cta_2> : !llvm.ptr<6>, i32
  // CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit group = <cta_2>
  // CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit{{$}}
  // CHECK-NEXT: nvvm.tcgen05.fence <before>
  // CHECK-NEXT: nvvm.tcgen05.wait <store>
  // CHECK-NEXT: nvvm.tcgen05.commit %s : !llvm.ptr<3>
  // CHECK-NEXT: nvvm.tcgen05.commit %s, multicast_mask = %m group = <cta_2> : !llvm.ptr<3>, i16
  // CHECK-NEXT: nvvm.tcgen05.shift %t, group = <cta_2> : !llvm.ptr<6>
  // CHECK-NEXT: nvvm.tcgen05.cp %t, %d, shape = shape_128x256b{{$}}
  // CHECK-NEXT: nvvm.tcgen05.cp %t, %d, shape = shape_64x128b group = <cta_2> multicast = warpx2_01_23 source_format = <b6x16_p32>
  // CHECK-NEXT: %v = nvvm.tcgen05.ld %t shape = shape_32x32b : vector<4xi32>
  // CHECK-NEXT: %w = nvvm.tcgen05.ld %t, %off pack shape = shape_16x32bx2 : vector<2xi32>
  // CHECK-NEXT: nvvm.tcgen05.st %t, %v unpack shape = shape_32x32b : vector<4xi32>
  // CHECK-NEXT: nvvm.tcgen05.st %t, %w, %off shape = shape_16x32bx2 : vector<2xi32>
  // CHECK-NEXT: nvvm.tcgen05.mma %t, %d, %d, %i, %p, kind = f16, cta_group = <cta_1> : (!llvm.ptr<6>, i64, i64, i32, i1)
  // CHECK-NEXT: nvvm.tcgen05.mma %t, %d, %d, %i, %p scale = %sc, kind = f16, cta_group = <cta_1> collector_a = fill : (!llvm.ptr<6>, i64, i64, i32, i1, i64)
  // CHECK-NEXT: nvvm.tcgen05.mma %t, %d, %d, %i, %p mask = %mask4, kind = i8, cta_group = <cta_1> {foo = 1 : i32} : (!llvm.ptr<6>, i64, i64, i32, i1, vector<4xi32>)
  // CHECK-NEXT: nvvm.tcgen05.mma %t, %t, %d, %i, %p mask = %mask, kind = tf32, cta_group = <cta_2> a_shift : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1, vector<8xi32>)
  // GENERIC: "nvvm.tcgen05.alloc"(%s, %n) <{group = #nvvm.cta_group<cta_2>}> : (!llvm.ptr<3>, i32) -> ()
  // GENERIC: "nvvm.tcgen05.cp"(%t, %d) <{group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>}> : (!llvm.ptr<6>, i64) -> ()
  // GENERIC: "nvvm.tcgen05.mma"(%t, %t, %d, %i, %p, %mask) <{collectorOp = #nvvm.tcgen05_mma_collectorop<discard>, kind = #nvvm.tcgen05_mma_kind<tf32>, ctaGroup = #nvvm.cta_group<cta_2>, aShift, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1>}>
  nvvm.tcgen05.alloc %s, %n, group = <cta_2> : !llvm.ptr<3>, i32
  nvvm.tcgen05.alloc %g, %n : !llvm.ptr, i32
  nvvm.tcgen05.dealloc %t, %n, group = <cta_2> : !llvm.ptr<6>, i32
  nvvm.tcgen05.relinquish_alloc_permit group = <cta_2>
  nvvm.tcgen05.relinquish_alloc_permit
  nvvm.tcgen05.fence <before>
  nvvm.tcgen05.wait <store>
  nvvm.tcgen05.commit %s : !llvm.ptr<3>
  nvvm.tcgen05.commit %s, multicast_mask = %m group = <cta_2> : !llvm.ptr<3>, i16
  nvvm.tcgen05.shift %t, group = <cta_2> : !llvm.ptr<6>
  nvvm.tcgen05.cp %t, %d, shape = shape_128x256b
  nvvm.tcgen05.cp %t, %d, shape = shape_64x128b group = <cta_2> multicast = warpx2_01_23 source_format = <b6x16_p32>
  %v = nvvm.tcgen05.ld %t shape = shape_32x32b : vector<4xi32>
  %w = nvvm.tcgen05.ld %t, %off pack shape = shape_16x32bx2 : vector<2xi32>
  nvvm.tcgen05.st %t, %v unpack shape = shape_32x32b : vector<4xi32>
  nvvm.tcgen05.st %t, %w, %off shape = shape_16x32bx2 : vector<2xi32>
  nvvm.tcgen05.mma %t, %d, %d, %i, %p, kind = f16, cta_group = <cta_1> : (!llvm.ptr<6>, i64, i64, i32, i1)
  nvvm.tcgen05.mma %t, %d, %d, %i, %p scale = %sc, kind = f16, cta_group = <cta_1> collector_a = fill : (!llvm.ptr<6>, i64, i64, i32, i1, i64)
  nvvm.tcgen05.mma %t, %d, %d, %i, %p mask = %mask4, kind = i8, cta_group = <cta_1> {foo = 1 : i32} : (!llvm.ptr<6>, i64, i64, i32, i1, vector<4xi32>)
  nvvm.tcgen05.mma %t, %t, %d, %i, %p mask = %mask, kind = tf32, cta_group = <cta_2> a_shift : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1, vector<8xi32>)
  llvm.return
}

// -----
// The older attribute-dictionary spelling of the properties (upstream before its strict
// prop syntax) still parses, to the same ops.
llvm.func @older(%s: !llvm.ptr<3>, %t: !llvm.ptr<6>, %n: i32, %d: i64, %i: i32, %p: i1) {
  // CHECK-LABEL: llvm.func @older
  // CHECK-NEXT: nvvm.tcgen05.alloc %s, %n, group = <cta_2> : !llvm.ptr<3>, i32
  // CHECK-NEXT: nvvm.tcgen05.fence <after>
  // CHECK-NEXT: nvvm.tcgen05.cp %t, %d, shape = shape_32x128b multicast = warpx4
  // CHECK-NEXT: nvvm.tcgen05.mma %t, %d, %d, %i, %p, kind = f16, cta_group = <cta_2> : (!llvm.ptr<6>, i64, i64, i32, i1)
  nvvm.tcgen05.alloc %s, %n {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
  nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
  nvvm.tcgen05.cp %t, %d {shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>}
  nvvm.tcgen05.mma %t, %d, %d, %i, %p {kind = #nvvm.tcgen05_mma_kind<f16>, ctaGroup = #nvvm.cta_group<cta_2>} : (!llvm.ptr<6>, i64, i64, i32, i1)
  llvm.return
}
