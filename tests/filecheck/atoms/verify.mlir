// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @odd_size(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>) {
  %n = arith.constant 100 : i32
  atom.bulk_copy_g2s %dst, %src, %dst, %n : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
  func.return
}
// CHECK: bulk copy size must be a positive multiple of 16 bytes, got 100

// -----

func.func @global_destination(%dst: !llvm.ptr<1>, %src: !llvm.ptr<1>, %bar: !llvm.ptr<3>) {
  %n = arith.constant 128 : i32
  atom.bulk_copy_g2s %dst, %src, %bar, %n : !llvm.ptr<1>, !llvm.ptr<1>, !llvm.ptr<3>
  func.return
}
// CHECK: error: Expected attribute !llvm.ptr<3> but got !llvm.ptr<1>

// -----

func.func @s32_needs_i32(%acc: !llvm.struct<(f32, f32, f32, f32)>, %c: !llvm.ptr<1>, %x: i32) {
  atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "s32"} : !llvm.struct<(f32, f32, f32, f32)>
  func.return
}
// CHECK: error: dtype s32 stores an i32 accumulator (an s8/u8 WGMMA fragment), got f32 fields

// -----

func.func @mixed_fields(%acc: !llvm.struct<(f32, i32, f32, i32)>, %c: !llvm.ptr<1>, %x: i32) {
  atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "f32"} : !llvm.struct<(f32, i32, f32, i32)>
  func.return
}
// CHECK: error: accumulator must be a struct of 4*k f32 or i32 (an m64nN fragment, N <= 256), got !llvm.struct<(f32, i32, f32, i32)>

// -----

func.func @round_inside_fragment(%acc: !llvm.struct<(f32, f32, f32, f32)>, %c: !llvm.ptr<1>, %x: i32) {
  atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "f32", first_column = 0 : i64, columns = 16 : i64} : !llvm.struct<(f32, f32, f32, f32)>
  func.return
}
// CHECK: error: first_column and columns must both be given, whole 8-column groups inside the fragment's 8 columns, got [0, 16)

// -----

func.func @round_needs_both(%acc: !llvm.struct<(f32, f32, f32, f32)>, %c: !llvm.ptr<1>, %x: i32) {
  atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "f32", first_column = 0 : i64} : !llvm.struct<(f32, f32, f32, f32)>
  func.return
}
// CHECK: error: first_column and columns must both be given, whole 8-column groups inside the fragment's 8 columns, got [0, 8)
