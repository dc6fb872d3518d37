// The fragment ops' dtype rules (atom.store_fragment: bf16/f16/f32/s32/s8; atom.stage_fragment: bf16/f16).
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics

func.func @store_fragment_dtype(%acc: !llvm.struct<(f32, f32, f32, f32)>, %c: !llvm.ptr<1>, %x: i32) {
  // expected-error @+1 {{dtype must be one of bf16, f16, f32, s32, s8, got 'f64'}}
  atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "f64"} : !llvm.struct<(f32, f32, f32, f32)>
  func.return
}

// -----

func.func @store_fragment_s8_of_floats(%acc: !llvm.struct<(f32, f32, f32, f32)>, %c: !llvm.ptr<1>, %x: i32) {
  // expected-error @+1 {{dtype s8 stores the low bytes of i32 values, got f32 fields}}
  atom.store_fragment %acc, %c, %x, %x, %x, %x, %x {dtype = "s8"} : !llvm.struct<(f32, f32, f32, f32)>
  func.return
}

// -----

func.func @stage_fragment_dtype(%acc: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>, %s: !llvm.ptr<3>) {
  // expected-error @+1 {{dtype must be bf16 or f16 (128-byte rows of 64 elements), got 'f32'}}
  atom.stage_fragment %acc, %s {dtype = "f32", first_column = 0 : i64, columns = 64 : i64} : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  func.return
}
