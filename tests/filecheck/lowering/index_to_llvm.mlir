// RUN: tileorch-opt %s -p convert-index-to-llvm | filecheck %s
// RUN: tileorch-opt %s -p convert-cf-to-llvm | filecheck %s --check-prefix=ALONE
// RUN: tileorch-opt %s -p 'convert-cf-to-llvm{index-types=false}' | filecheck %s --check-prefix=KEEP
// RUN: tileorch-opt %s -p 'convert-index-to-llvm,convert-arith-to-llvm{index-types=false},convert-cf-to-llvm{index-types=false},convert-func-to-llvm{index-types=false}' | filecheck %s --check-prefix=STD

// convert-index-to-llvm turns every index type into i64: function signatures, block arguments, op
// results and index constants; the ops stay.  convert-cf-to-llvm alone does the same first (a
// standalone run type-checks); with index-types=false (the standard lowering, where
// convert-index-to-llvm ran once before it) it lowers the branches and leaves the types.

builtin.module {
  func.func @f(%a: index, %p: i1) -> index {
    %c = arith.constant 3 : index
    cf.cond_br %p, ^b(%a : index), ^b(%c : index)
  ^b(%v: index):
    %s = arith.addi %v, %c : index
    func.return %s : index
  }
}

// CHECK:      func.func @f(%{{.*}}: i64, %{{.*}}: i1) -> i64
// CHECK-NEXT:   %{{.*}} = arith.constant 3 : i64
// CHECK-NEXT:   cf.cond_br %{{.*}}, ^{{.*}}(%{{.*}} : i64), ^{{.*}}(%{{.*}} : i64)
// CHECK:      ^{{.*}}(%{{.*}}: i64):
// CHECK-NEXT:   %{{.*}} = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:   func.return %{{.*}} : i64
// CHECK-NOT:  index

// ALONE:      func.func @f(%{{.*}}: i64, %{{.*}}: i1) -> i64
// ALONE-NEXT:   %{{.*}} = arith.constant 3 : i64
// ALONE-NEXT:   llvm.cond_br %{{.*}}, ^{{.*}}(%{{.*}} : i64), ^{{.*}}(%{{.*}} : i64)
// ALONE-NEXT: ^{{.*}}(%{{.*}}: i64):
// ALONE-NEXT:   %{{.*}} = arith.addi %{{.*}}, %{{.*}} : i64

// KEEP:       func.func @f(%{{.*}}: index, %{{.*}}: i1) -> index
// KEEP-NEXT:    %{{.*}} = arith.constant 3 : index
// KEEP-NEXT:    llvm.cond_br %{{.*}}, ^{{.*}}(%{{.*}} : index), ^{{.*}}(%{{.*}} : index)
// KEEP-NEXT:  ^{{.*}}(%{{.*}}: index):
// KEEP-NEXT:    %{{.*}} = arith.addi %{{.*}}, %{{.*}} : index

// STD:        llvm.func @f(%{{.*}}: i64, %{{.*}}: i1) -> i64
// STD-NEXT:     %{{.*}} = llvm.mlir.constant(3) : i64
// STD-NEXT:     llvm.cond_br %{{.*}}, ^{{.*}}(%{{.*}} : i64), ^{{.*}}(%{{.*}} : i64)
// STD-NEXT:   ^{{.*}}(%{{.*}}: i64):
// STD-NEXT:     %{{.*}} = llvm.add %{{.*}}, %{{.*}} : i64
// STD-NEXT:     llvm.return %{{.*}} : i64
