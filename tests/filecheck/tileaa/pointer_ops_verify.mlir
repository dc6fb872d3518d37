// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The verifier rules of nv_tileaa's pointer-tile ops (offset, load, store, atomic_rmw, atomic_cas).

builtin.module {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<f32>, %o: f32) {
    %q = nv_tileaa.offset %p, %o : !nv_tileaa.ptr<f32>, f32 -> !nv_tileaa.ptr<f32>
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:7:5: error: offset takes integer offsets, got f32

// -----

builtin.module {
  nv_tileaa.func @k(%p: tensor<4x!nv_tileaa.ptr<f32>>, %o: tensor<8xi32>) {
    %q = nv_tileaa.offset %p, %o : tensor<4x!nv_tileaa.ptr<f32>>, tensor<8xi32> -> tensor<4x!nv_tileaa.ptr<f32>>
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.offset': offset must have the shape of the pointers ([4]), got tensor<8xi32>

// -----

builtin.module {
  nv_tileaa.func @k(%p: i64, %o: i32) {
    %q = nv_tileaa.offset %p, %o : i64, i32 -> i64
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.offset' expects a pointer or a tile of pointers, got i64

// -----

builtin.module {
  nv_tileaa.func @k(%p: tensor<4x!nv_tileaa.ptr<f32>>) {
    %v, %t = nv_tileaa.load %p : tensor<4x!nv_tileaa.ptr<f32>> -> tensor<4xf16>
    nv_tileaa.return
  }
}
// CHECK: error: load of tensor<4x!nv_tileaa.ptr<f32>> gives elements of type f32 in the pointers' shape, got tensor<4xf16>

// -----

builtin.module {
  nv_tileaa.func @k(%p: tensor<4x!nv_tileaa.ptr<f32>>, %m: tensor<4xi32>) {
    %v, %t = nv_tileaa.load %p mask %m : tensor<4xi32> : tensor<4x!nv_tileaa.ptr<f32>> -> tensor<4xf32>
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.load': mask must be i1, got tensor<4xi32>

// -----

builtin.module {
  nv_tileaa.func @k(%p: tensor<4x!nv_tileaa.ptr<f32>>, %o: tensor<4xf32>) {
    %v, %t = nv_tileaa.load %p other %o : tensor<4xf32> : tensor<4x!nv_tileaa.ptr<f32>> -> tensor<4xf32>
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.load': other (the masked-off value) needs a mask

// -----

builtin.module {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<f32>) {
    %v, %t = nv_tileaa.load %p {mem_semantic = #nv_tileaa.mem_semantic<release>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<f32> -> f32
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.load' does not take memory ordering 'release' (one of weak, relaxed, acquire)

// -----

builtin.module {
  nv_tileaa.func @k(%p: tensor<4x!nv_tileaa.ptr<f32>>, %v: tensor<8xf32>) {
    %t = nv_tileaa.store %v, %p : tensor<8xf32>, tensor<4x!nv_tileaa.ptr<f32>>
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.store': value must have the shape of the pointers ([4]), got tensor<8xf32>

// -----

builtin.module {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<f32>, %v: f32) {
    %t = nv_tileaa.store %v, %p {mem_semantic = #nv_tileaa.mem_semantic<weak>, mem_scope = #nv_tileaa.mem_scope<gpu>} : f32, !nv_tileaa.ptr<f32>
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.store': a weak access takes no memory scope

// -----

builtin.module {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<f32>, %v: f32) {
    %o, %t = nv_tileaa.atomic_rmw %p, %v {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<f32>, f32 -> f32
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.atomic_rmw' add takes elements of i32 or i64, got f32

// -----

builtin.module {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<i32>, %v: i32) {
    %o, %t = nv_tileaa.atomic_rmw %p, %v {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<weak>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<i32>, i32 -> i32
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.atomic_rmw' does not take memory ordering 'weak' (one of relaxed, acquire, release, acq_rel)

// -----

builtin.module {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<i32>, %v: i32) {
    %o, %t = nv_tileaa.atomic_rmw %p, %v {rmw_mode = #nv_tileaa.rmw_mode<nand>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<i32>, i32 -> i32
    nv_tileaa.return
  }
}
// CHECK: error: expected one of add, addf, max, min, umax, umin, and, or, xor, xchg, got 'nand'

// -----

builtin.module {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<i16>, %c: i16) {
    %o, %t = nv_tileaa.atomic_cas %p, %c, %c {mem_semantic = #nv_tileaa.mem_semantic<acquire>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<i16>, i16, i16 -> i16
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.atomic_cas' cas takes elements of a 32- or 64-bit integer or float, got i16

// -----

builtin.module {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<i32>, %c: i64, %v: i32) {
    %o, %t = nv_tileaa.atomic_cas %p, %c, %v {mem_semantic = #nv_tileaa.mem_semantic<acquire>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<i32>, i64, i32 -> i32
    nv_tileaa.return
  }
}
// CHECK: error: 'nv_tileaa.atomic_cas' through !nv_tileaa.ptr<i32> compares, stores and returns elements of type i32, got i64, i32 -> i32

// -----

// nv_tileaa.assert (ct.assert_) takes a condition of i1 elements.
builtin.module {
  nv_tileaa.func @k(%c: tensor<4xi32>) {
    nv_tileaa.assert %c, "not a condition" : tensor<4xi32>
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:[[# @LINE - 4]]:5: error: assert takes a condition of i1 elements, got tensor<4xi32>

// -----

// nv_tileaa.print (ct.printf): one conversion per argument.
builtin.module {
  nv_tileaa.func @k(%c: tensor<4xi32>) {
    nv_tileaa.print "a %d b %d\0A", %c : tensor<4xi32>
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:[[# @LINE - 4]]:5: error: the print format has 2 conversions but 1 tile argument was given

// -----

// nv_tileaa.print: an integer conversion takes integer elements.
builtin.module {
  nv_tileaa.func @k(%c: tensor<4xf16>) {
    nv_tileaa.print "a %x\0A", %c : tensor<4xf16>
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:[[# @LINE - 4]]:5: error: '%x' (argument 0) is an integer conversion, but the tile's elements are f16

// -----

// nv_tileaa.print: a float conversion takes float elements.
builtin.module {
  nv_tileaa.func @k(%c: tensor<4xi1>) {
    nv_tileaa.print "a %g\0A", %c : tensor<4xi1>
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:[[# @LINE - 4]]:5: error: '%g' (argument 0) is a float conversion, but the tile's elements are i1

// -----

// nv_tileaa.print: no %s / %c / %p / %n, no '*' width, only the lengths hh, h, l, ll.
builtin.module {
  nv_tileaa.func @k(%c: i32) {
    nv_tileaa.print "a %*d\0A", %c : i32
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:[[# @LINE - 4]]:5: error: '%*d' in the print format: a '*' width or precision is not supported

// -----

builtin.module {
  nv_tileaa.func @k(%c: i32) {
    nv_tileaa.print "a %n\0A", %c : i32
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:[[# @LINE - 4]]:5: error: '%n' in the print format is not supported

// -----

builtin.module {
  nv_tileaa.func @k(%c: f64) {
    nv_tileaa.print "a %Lf\0A", %c : f64
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:[[# @LINE - 4]]:5: error: '%Lf' in the print format: the length 'L' is not supported

// -----

builtin.module {
  nv_tileaa.func @k(%c: i32) {
    nv_tileaa.print "a %d %", %c : i32
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:[[# @LINE - 4]]:5: error: unterminated conversion '%' at the end of the print format

// -----

builtin.module {
  nv_tileaa.func @k(%p: tensor<4x!nv_tileaa.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf16>) {
    %v, %t = nv_tileaa.load %p mask %m : tensor<4xi1> other %o : tensor<4xf16> : tensor<4x!nv_tileaa.ptr<f32>> -> tensor<4xf32>
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:[[# @LINE - 4]]:5: error: 'nv_tileaa.load': other must have the result's type tensor<4xf32>, got tensor<4xf16>

// -----

builtin.module {
  nv_tileaa.func @k(%p: tensor<4x!nv_tileaa.ptr<f32>>, %v: tensor<4xf16>) {
    %t = nv_tileaa.store %v, %p : tensor<4xf16>, tensor<4x!nv_tileaa.ptr<f32>>
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:[[# @LINE - 4]]:5: error: store through tensor<4x!nv_tileaa.ptr<f32>> takes elements of type f32, got tensor<4xf16>

// -----

builtin.module {
  nv_tileaa.func @k(%p: !nv_tileaa.ptr<i32>, %v: i64) {
    %o, %t = nv_tileaa.atomic_rmw %p, %v {rmw_mode = #nv_tileaa.rmw_mode<add>, mem_semantic = #nv_tileaa.mem_semantic<relaxed>, mem_scope = #nv_tileaa.mem_scope<gpu>} : !nv_tileaa.ptr<i32>, i64 -> i64
    nv_tileaa.return
  }
}
// CHECK: pointer_ops_verify.mlir:[[# @LINE - 4]]:5: error: 'nv_tileaa.atomic_rmw' through !nv_tileaa.ptr<i32> takes and returns elements of type i32
