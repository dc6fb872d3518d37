// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p tileas-slicing | filecheck %s

builtin.module {
  func.func @f(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
    } {sliceCount = "two"}
    func.return
  }
}
// CHECK: slicing_errors.mlir:7:5: error: The sliceCountneed to be aIntegerAttr

// -----

builtin.module {
  func.func @f(%c: i1) {
    scf.while () : () -> () {
      scf.condition(%c)
    } do {
      scf.yield
    } attributes {sliceCount = 2 : i64}
    func.return
  }
}
// CHECK: slicing_errors.mlir:18:5: error: unsupported op in Slicing pass

// -----

builtin.module {
  func.func @f(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %b = nv_tileas.alloc_tensor : tensor<64xf32, #nv_tileas.layout<smem>>
    } {sliceCount = 2 : i64}
    func.return
  }
}
// CHECK: slicing_errors.mlir:35:7: error: 'nv_tileas.alloc_tensor' is not expected inside sliced part in SlicingPass
