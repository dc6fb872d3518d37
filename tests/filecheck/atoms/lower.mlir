// RUN: tileorch-opt %s --split-input-file -p convert-atoms-to-nvvm | filecheck %s
// RUN: tileorch-opt %s --split-input-file --print-op-generic | tileorch-opt --split-input-file | filecheck %s --check-prefix=ROUNDTRIP

builtin.module {
  func.func @k(%src: !llvm.ptr<1>, %n: i32) {
    %smem = atom.dynamic_smem : !llvm.ptr<3>
    %bytes = arith.constant 4096 : i32
    atom.bulk_copy_g2s %smem, %src, %smem, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
    func.return
  }
}

// CHECK:      llvm.mlir.global external @__tileorch_dynamic_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK:      func.func @k(%src: !llvm.ptr<1>, %n: i32) {
// CHECK-NEXT:   %smem = llvm.mlir.addressof @__tileorch_dynamic_smem : !llvm.ptr<3>
// CHECK-NEXT:   %bytes = arith.constant 4096 : i32
// CHECK-NEXT:   %0 = llvm.addrspacecast %smem : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:   nvvm.cp.async.bulk.shared.cluster.global %0, %src, %smem, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
// CHECK-NOT:    atom.

// ROUNDTRIP:      %smem = atom.dynamic_smem : !llvm.ptr<3>
// ROUNDTRIP-NEXT: %bytes = arith.constant 4096 : i32
// ROUNDTRIP-NEXT: atom.bulk_copy_g2s %smem, %src, %smem, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>

// -----

func.func @multicast(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %bar: !llvm.ptr<3>, %mask: i16) {
  %bytes = arith.constant 512 : i32
  atom.bulk_copy_g2s %dst, %src, %bar, %bytes multicast %mask : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
  func.return
}
// CHECK-LABEL: func.func @multicast
// CHECK:       %0 = llvm.addrspacecast %dst : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:  nvvm.cp.async.bulk.shared.cluster.global %0, %src, %bar, %bytes multicast_mask = %mask : !llvm.ptr<7>, !llvm.ptr<1>
// ROUNDTRIP:   atom.bulk_copy_g2s %dst, %src, %bar, %bytes multicast %mask : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>

// -----

// An i32 fragment (s8/u8 WGMMA): s32 stores the registers as they are (two 4-byte stores per
// pair); a float dtype converts them (signed) first.
func.func @int_fragment(%acc: !llvm.struct<(i32, i32, i32, i32)>, %c: !llvm.ptr<1>, %x: i32) {
  atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "s32"} : !llvm.struct<(i32, i32, i32, i32)>
  atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "bf16"} : !llvm.struct<(i32, i32, i32, i32)>
  func.return
}
// CHECK-LABEL: func.func @int_fragment
// CHECK-NOT:   arith.sitofp
// CHECK:       %[[V:.*]] = llvm.extractvalue %acc[0] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT:   arith.sitofp
// CHECK:       %[[V1:.*]] = llvm.extractvalue %acc[1] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK:       llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, $0, 0; @p st.global.v2.b32 [$1], {$2, $3}; }", "r,l,r,r" %{{.*}}, %{{.*}}, %[[V]], %[[V1]]
// CHECK:       %[[W:.*]] = llvm.extractvalue %acc[0] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT:  arith.sitofp %[[W]] : i32 to f32
// CHECK:       %[[P:.*]] = llvm.inline_asm "cvt.rn.bf16x2.f32
// CHECK:       llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, $0, 0; @p st.global.b32 [$1], $2; }", "r,l,r" %{{.*}}, %{{.*}}, %[[P]]
// ROUNDTRIP:   atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "s32"} : !llvm.struct<(i32, i32, i32, i32)>

// -----

// s8: an i32 fragment's values (the epilogue's requantised math) stored as their low bytes, two per
// pair: (v0 & 255) | (v1 << 8) truncated to 16 bits, one predicated 2-byte store at the pair's column.
func.func @s8_fragment(%acc: !llvm.struct<(i32, i32, i32, i32)>, %c: !llvm.ptr<1>, %x: i32) {
  atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "s8"} : !llvm.struct<(i32, i32, i32, i32)>
  func.return
}
// CHECK-LABEL: func.func @s8_fragment
// CHECK-NOT:   arith.sitofp
// CHECK:       %[[V:.*]] = llvm.extractvalue %acc[0] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK:       %[[V1:.*]] = llvm.extractvalue %acc[1] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK:       %[[PTR:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
// CHECK:       %[[LO:.*]] = arith.andi %[[V]], %{{.*}} : i32
// CHECK:       %[[HI:.*]] = arith.shli %[[V1]], %{{.*}} : i32
// CHECK:       %[[W:.*]] = arith.ori %[[LO]], %[[HI]] : i32
// CHECK:       %[[H:.*]] = arith.trunci %[[W]] : i32 to i16
// CHECK:       llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, $0, 0; @p st.global.b16 [$1], $2; }", "r,l,h" %{{.*}}, %{{.*}}, %[[H]]
// CHECK-NOT:   arith.sitofp
// CHECK:       func.return
// ROUNDTRIP:   atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "s8"} : !llvm.struct<(i32, i32, i32, i32)>

// -----

// One round of a round-by-round epilogue: columns 8..15 of an m64n16 fragment (group 1: fields
// 4-7) stored; fields 0-3 (group 0) are not read.
func.func @store_round(%acc: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>, %c: !llvm.ptr<1>, %x: i32) {
  atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "f32", first_column = 8 : i64, columns = 8 : i64} : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  func.return
}
// CHECK-LABEL: func.func @store_round
// CHECK-NOT:   llvm.extractvalue %acc[{{[0-3]}}]
// CHECK:       arith.constant 8 : i32
// CHECK:       llvm.extractvalue %acc[4]
// CHECK:       llvm.extractvalue %acc[5]
// CHECK:       llvm.extractvalue %acc[6]
// CHECK:       llvm.extractvalue %acc[7]
// CHECK-NOT:   llvm.extractvalue
// CHECK:       func.return
// ROUNDTRIP:   atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "f32", first_column = 8 : i64, columns = 8 : i64}
