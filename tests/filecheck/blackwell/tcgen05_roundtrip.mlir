// The nvvm.tcgen05 ops print in upstream MLIR's custom syntax and survive custom -> generic -> custom.
// RUN: TILEORCH_ROUNDTRIP
// RUN: tileorch-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @f(%s: !llvm.ptr<3>, %t: !llvm.ptr<6>, %n: i32, %d: i64, %m: i16, %i: i32, %p: i1, %mask: vector<8xi32>, %off: i64) {
  // CHECK: nvvm.tcgen05.alloc %s, %n : !llvm.ptr<3>, i32
  // GENERIC: "nvvm.tcgen05.alloc"(%s, %n) <{group = #nvvm.cta_group<cta_1>}> : (!llvm.ptr<3>, i32) -> ()
  nvvm.tcgen05.alloc %s, %n : !llvm.ptr<3>, i32
  // CHECK-NEXT: nvvm.tcgen05.alloc %s, %n {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
  nvvm.tcgen05.alloc %s, %n {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
  // CHECK-NEXT: nvvm.tcgen05.dealloc %t, %n {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
  nvvm.tcgen05.dealloc %t, %n {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
  // CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
  nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
  // CHECK-NEXT: nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
  nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
  // CHECK-NEXT: nvvm.tcgen05.wait #nvvm.tcgen05_wait<store>
  nvvm.tcgen05.wait #nvvm.tcgen05_wait<store>
  // CHECK-NEXT: nvvm.tcgen05.commit %s, multicast_mask = %m {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
  nvvm.tcgen05.commit %s, multicast_mask = %m {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
  // CHECK-NEXT: nvvm.tcgen05.shift %t : !llvm.ptr<6>
  nvvm.tcgen05.shift %t : !llvm.ptr<6>
  // CHECK-NEXT: nvvm.tcgen05.cp %t, %d {group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>}
  // GENERIC: "nvvm.tcgen05.cp"(%t, %d) <{group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>}> : (!llvm.ptr<6>, i64) -> ()
  nvvm.tcgen05.cp %t, %d {group = #nvvm.cta_group<cta_2>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>}
  // CHECK-NEXT: %v = nvvm.tcgen05.ld %t {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<4xi32>
  %v = nvvm.tcgen05.ld %t {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<4xi32>
  // CHECK-NEXT: %w = nvvm.tcgen05.ld %t, %off pack {shape = #nvvm.tcgen05_ldst_shape<shape_16x32bx2>} : vector<2xi32>
  %w = nvvm.tcgen05.ld %t, %off pack {shape = #nvvm.tcgen05_ldst_shape<shape_16x32bx2>} : vector<2xi32>
  // CHECK-NEXT: nvvm.tcgen05.st %t, %v unpack {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<4xi32>
  nvvm.tcgen05.st %t, %v unpack {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<4xi32>
  // CHECK-NEXT: nvvm.tcgen05.mma %t, %d, %d, %i, %p {kind = #nvvm.tcgen05_mma_kind<f16>, ctaGroup = #nvvm.cta_group<cta_1>} : (!llvm.ptr<6>, i64, i64, i32, i1)
  nvvm.tcgen05.mma %t, %d, %d, %i, %p {kind = #nvvm.tcgen05_mma_kind<f16>, ctaGroup = #nvvm.cta_group<cta_1>} : (!llvm.ptr<6>, i64, i64, i32, i1)
  // CHECK-NEXT: nvvm.tcgen05.mma %t, %t, %d, %i, %p mask = %mask {kind = #nvvm.tcgen05_mma_kind<tf32>, ctaGroup = #nvvm.cta_group<cta_2>, aShift} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1, vector<8xi32>)
  // GENERIC: "nvvm.tcgen05.mma"(%t, %t, %d, %i, %p, %mask) <{collectorOp = #nvvm.tcgen05_mma_collectorop<discard>, kind = #nvvm.tcgen05_mma_kind<tf32>, ctaGroup = #nvvm.cta_group<cta_2>, aShift, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1>}>
  nvvm.tcgen05.mma %t, %t, %d, %i, %p mask = %mask {kind = #nvvm.tcgen05_mma_kind<tf32>, ctaGroup = #nvvm.cta_group<cta_2>, aShift} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1, vector<8xi32>)
  llvm.return
}
