// RUN: tileorch-opt %s -t llvm-ir | filecheck %s --check-prefix=IR
// RUN: tileorch-opt %s -t ptx | filecheck %s --check-prefix=PTX
// A literal struct type of 8 or more members is written as one identified type, defined once at
// the top of the module, wherever it is spelled: inline asm results, insertvalue / extractvalue,
// phi, alloca, undef / zero constants, function signatures and calls, inside other structs and
// arrays.  Identified types are nominal, so a literal and its name must never meet: the PTX run
// has LLVM parse and verify the text.  A struct of 7 members stays literal.
!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
!small = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32)>
!mixed = !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i64)>
builtin.module {
  llvm.func @scale(%a: !acc, %x: f32) -> !acc {
    %e = llvm.extractvalue %a[3] : !acc
    %m = llvm.fmul %e, %x : f32
    %r = llvm.insertvalue %m, %a[3] : !acc
    llvm.return %r : !acc
  }
  llvm.func @k(%p: !llvm.ptr<1>, %n: i32, %x: f32) attributes {nvvm.kernel} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %one = llvm.mlir.constant(1 : i64) : i64
    %z = llvm.mlir.zero : !acc
    %u = llvm.mlir.undef : !llvm.struct<(!acc, i32)>
    %s = llvm.mlir.undef : !small
    %mx = llvm.mlir.undef : !mixed
    %mx1 = llvm.insertvalue %n, %mx[2] : !mixed
    %arr = llvm.mlir.undef : !llvm.array<2 x !acc>
    %slot = llvm.alloca %one x !acc : (i64) -> !llvm.ptr
    llvm.br ^bb1(%c0, %z : i32, !acc)
  ^bb1(%i: i32, %acc: !acc):
    %q = llvm.icmp "slt" %i, %n : i32
    llvm.cond_br %q, ^bb2, ^bb3
  ^bb2:
    %w = llvm.inline_asm has_side_effects "mov.b32 $0, $8;", "=f,=f,=f,=f,=f,=f,=f,=f,f" %x : (f32) -> !acc
    %e = llvm.extractvalue %w[0] : !acc
    %acc2 = llvm.insertvalue %e, %acc[1] : !acc
    %acc3 = llvm.call @scale(%acc2, %x) : (!acc, f32) -> !acc
    %i2 = llvm.add %i, %c1 : i32
    llvm.br ^bb1(%i2, %acc3 : i32, !acc)
  ^bb3:
    %pair = llvm.insertvalue %acc, %u[0] : !llvm.struct<(!acc, i32)>
    %back = llvm.extractvalue %pair[0] : !llvm.struct<(!acc, i32)>
    %arr1 = llvm.insertvalue %back, %arr[1] : !llvm.array<2 x !acc>
    %s1 = llvm.insertvalue %x, %s[6] : !small
    %last = llvm.extractvalue %arr1[1, 7] : !llvm.array<2 x !acc>
    %m2 = llvm.extractvalue %mx1[2] : !mixed
    %f = llvm.extractvalue %s1[6] : !small
    %sum = llvm.fadd %last, %f : f32
    llvm.store %sum, %p : f32, !llvm.ptr<1>
    llvm.store %m2, %p : i32, !llvm.ptr<1>
    llvm.return
  }
}
// IR: %"8xfloat" = type {float, float, float, float, float, float, float, float}
// IR-NEXT: %"struct.1" = type {i32, i32, i32, i32, i32, i32, i32, i64}
// IR-NOT: = type
// IR: define %"8xfloat" @"scale"(%"8xfloat" %".1", float %".2")
// IR: extractvalue %"8xfloat" %".1", 3
// IR: insertvalue %"8xfloat" %".1", float
// IR: ret %"8xfloat"
// IR: define ptx_kernel void @"k"
// IR: insertvalue %"struct.1" undef, i32
// IR: alloca %"8xfloat", i64 1
// IR: phi  %"8xfloat" [zeroinitializer,
// IR: call %"8xfloat" asm sideeffect "mov.b32 $0, $8;"
// IR: extractvalue %"8xfloat"
// IR: insertvalue %"8xfloat"
// IR: call ccc %"8xfloat" @"scale"(%"8xfloat"
// IR: insertvalue {%"8xfloat", i32} undef, %"8xfloat"
// IR: extractvalue {%"8xfloat", i32}
// IR: insertvalue [2 x %"8xfloat"] undef, %"8xfloat"
// IR: insertvalue {float, float, float, float, float, float, float} undef, float
// IR: extractvalue [2 x %"8xfloat"]
// IR-NOT: {float, float, float, float, float, float, float, float}
// PTX: .entry k(
// PTX: st.global.b32
