// RUN: tileorch-opt %s -t llvm-ir | filecheck %s --check-prefix=IR
// RUN: tileorch-opt %s -t ptx | filecheck %s --check-prefix=PTX
// A float -> integer conversion is never LLVM's fptosi / fptoui (poison outside the integer's range: LLVM folded
// an out-of-range constant's conversion to poison and dropped its store, review 26): f32 / f64 to 32 / 64 bits as
// NVVM's cvt.rzi intrinsics (saturating, folded as the hardware computes), a 16-bit result or an f16 source the
// cvt.rzi instruction itself: the PTX fptosi gave.
builtin.module {
  llvm.func @k(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %r: !llvm.ptr<1>, %s: !llvm.ptr<1>, %t: !llvm.ptr<1>,
              %u: !llvm.ptr<1>, %x: f32, %d: f64, %h: f16) {
    %inf = llvm.mlir.constant(0x7F800000 : f32) : f32
    %a = llvm.fptosi %x : f32 to i32
    %b = llvm.fptoui %x : f32 to i64
    %c = llvm.fptosi %d : f64 to i64
    %e = llvm.fptoui %d : f64 to i32
    %f = llvm.fptosi %h : f16 to i16
    %g = llvm.fptosi %inf : f32 to i64
    %hi = llvm.fptosi %h : f16 to i32
    llvm.store %a, %p : i32, !llvm.ptr<1>
    llvm.store %b, %q : i64, !llvm.ptr<1>
    llvm.store %c, %r : i64, !llvm.ptr<1>
    llvm.store %e, %s : i32, !llvm.ptr<1>
    llvm.store %f, %t : i16, !llvm.ptr<1>
    llvm.store %g, %u : i64, !llvm.ptr<1>
    llvm.store %hi, %p : i32, !llvm.ptr<1>
    llvm.return
  }
}
// IR-NOT: fptosi {{float|double|half}}
// IR-NOT: fptoui {{float|double|half}}
// IR-DAG: call i32 @"llvm.nvvm.f2i.rz"(float
// IR-DAG: call i64 @"llvm.nvvm.f2ull.rz"(float
// IR-DAG: call i64 @"llvm.nvvm.d2ll.rz"(double
// IR-DAG: call i32 @"llvm.nvvm.d2ui.rz"(double
// IR-DAG: call i16 asm "cvt.rzi.s16.f16 $0, $1;", "=h,h"(half
// IR-DAG: call i32 asm "cvt.rzi.s32.f16 $0, $1;", "=r,h"(half
// PTX-DAG: cvt.rzi.s32.f32
// PTX-DAG: cvt.rzi.u64.f32
// PTX-DAG: cvt.rzi.s64.f64
// PTX-DAG: cvt.rzi.u32.f64
// PTX: st.global.b32 [%rd{{[0-9]+}}+4], 2147483647;
// PTX-NEXT: st.global.b32 [%rd{{[0-9]+}}], 4294967295;
