// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa | filecheck %s

// A shift by a constant of the element width or more (the amount is unsigned): PTX clamps it
// to the width, LLVM makes it poison (and drops the stores of the result).  convert-cudatile-
// to-tileaa gives PTX's value: 0 for shli and a logical shri, the sign (a shift by width - 1)
// for an arithmetic shri.  Shifts below the width stay shifts.

// CHECK-LABEL: nv_tileaa.func @shifts
cuda_tile.module @m {
  entry @shifts() {
    %x = constant <i32: 5> : tile<64xi32>
    %y = constant <i8: -3> : tile<64xi8>
    %c31 = constant <i32: 31> : tile<64xi32>
    %c32 = constant <i32: 32> : tile<64xi32>
    %c64 = constant <i32: 64> : tile<64xi32>
    %cm1 = constant <i32: -1> : tile<64xi32>
    %c8 = constant <i8: 8> : tile<64xi8>
    %c7 = constant <i8: 7> : tile<64xi8>
    // CHECK: %[[L31:.*]] = arith.shli %{{.*}}, %{{.*}} : tensor<64xi32>
    %a = shli %x, %c31 : tile<64xi32>
    // CHECK-NOT: arith.shli
    // CHECK: %[[Z:.*]] = arith.constant dense<0> : tensor<64xi32>
    %b = shli %x, %c32 : tile<64xi32>
    // CHECK: arith.constant dense<0> : tensor<64xi32>
    %c = shri %x, %c64 unsigned : tile<64xi32>
    // CHECK: %[[S31:.*]] = arith.constant dense<31> : tensor<64xi32>
    // CHECK: arith.shrsi %{{.*}}, %[[S31]] : tensor<64xi32>
    %d = shri %x, %cm1 signed : tile<64xi32>
    // CHECK: %[[S7:.*]] = arith.constant dense<7> : tensor<64xi8>
    // CHECK: arith.shrsi %{{.*}}, %[[S7]] : tensor<64xi8>
    %e = shri %y, %c8 signed : tile<64xi8>
    // CHECK: arith.shrui %{{.*}}, %{{.*}} : tensor<64xi8>
    %f = shri %y, %c7 unsigned : tile<64xi8>
    // CHECK: nv_tileaa.return
    return
  }
}
