// RUN: tileorch-opt %s -p convert-cudatile-to-tileaa | filecheck %s
// RUN: tileorch-opt %s | tileorch-opt | filecheck %s --check-prefix=RT

// RT: fpowi %{{.*}}, %{{.*}} : tile<8xf32>, tile<8xi32>{{$}}
// RT: insert %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tile<2x8xf32>, tile<4x16xf32> -> tile<4x16xf32>
// RT: gdc_wait_tko -> token
// RT: gdc_launch_dependents_tko token=%{{.*}} -> token

// Ops of bytecode 13.4 that cuTile 1.7 emits: fpowi (x ** n) by a constant exponent is square and
// multiply (x ** 3 = (x * x) * x; a negative exponent a reciprocal), by a tile of exponents
// pow(x, float(n)); insert is nv_tileaa.insert_slice (a 0-d value a unit sub-tile); grid
// dependency control passes its token through (no programmatic dependent launch).

// CHECK-LABEL: nv_tileaa.func @powers
cuda_tile.module @m {
  entry @powers(%p: tile<ptr<f32>>) {
    %x = constant <f32: 1.5> : tile<8xf32>
    %three = constant <i32: 3> : tile<8xi32>
    // CHECK: %[[SQ:.*]] = nv_tileaa.mulf %[[X:.*]], %[[X]] : tensor<8xf32>
    // CHECK-NEXT: nv_tileaa.mulf %[[X]], %[[SQ]] : tensor<8xf32>
    %c = fpowi %x, %three : tile<8xf32>, tile<8xi32>
    %m2 = constant <i32: -2> : tile<8xi32>
    // CHECK: %[[SQ2:.*]] = nv_tileaa.mulf %[[X]], %[[X]] : tensor<8xf32>
    // CHECK-NEXT: nv_tileaa.divf %{{.*}}, %[[SQ2]] : tensor<8xf32>
    %r = fpowi %x, %m2 : tile<8xf32>, tile<8xi32>
    %n = iota : tile<8xi32>
    // CHECK: %[[F:.*]] = nv_tileaa.sitofp %{{.*}} : tensor<8xi32> -> tensor<8xf32>
    // CHECK-NEXT: math.powf %[[X]], %[[F]] : tensor<8xf32>
    %d = fpowi %x, %n : tile<8xf32>, tile<8xi32>
    return
  }

// CHECK-LABEL: nv_tileaa.func @inserts
  entry @inserts(%i: tile<i32>) {
    %big = constant <f32: 1.0> : tile<4x16xf32>
    %sub = constant <f32: 2.0> : tile<2x8xf32>
    %c0 = constant <i32: 0> : tile<i32>
    // CHECK: nv_tileaa.insert_slice %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x8xf32>, tensor<4x16xf32>, i32, i32 -> tensor<4x16xf32>
    %a = insert %sub, %big[%i, %c0] : tile<2x8xf32>, tile<4x16xf32> -> tile<4x16xf32>
    %one = constant <f32: 3.0> : tile<f32>
    // CHECK: %[[U:.*]] = nv_tileaa.splat %{{.*}} : f32 -> tensor<1x1xf32>
    // CHECK-NEXT: nv_tileaa.insert_slice %[[U]], %{{.*}} : tensor<1x1xf32>, tensor<4x16xf32>
    %b = insert %one, %a[%c0, %i] : tile<f32>, tile<4x16xf32> -> tile<4x16xf32>
    return
  }

// CHECK-LABEL: nv_tileaa.func @gdc
// CHECK-NOT: gdc
// CHECK: nv_tileaa.return
  entry @gdc() {
    %t = gdc_wait_tko -> token
    %u = gdc_launch_dependents_tko token=%t -> token
    return
  }
}
