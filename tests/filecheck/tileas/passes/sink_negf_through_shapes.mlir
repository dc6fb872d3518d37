// RUN: tileorch-opt %s --split-input-file -p sink-negf-through-shapes | filecheck %s
// RUN: tileorch-opt %s --split-input-file -p 'sink-negf-through-shapes{report-misses=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=NOTE

#r = #nv_tileas.layout<reg>
builtin.module {
  nv_tileaa.func @chain(%x: tensor<64xf32, #r>) {
    %e = nv_tileas.expand_dim %x {dim = 0 : i32} : tensor<64xf32, #r> -> tensor<1x64xf32, #r>
    %b = nv_tileas.broadcast %e : tensor<1x64xf32, #r> -> tensor<128x64xf32, #r>
    %n = arith.negf %b : tensor<128x64xf32, #r>
    %k = nv_tileas.pragma %n : tensor<128x64xf32, #r> -> tensor<128x64xf32, #r>
    nv_tileaa.return
  }
}
// The negation now runs on the 64-element vector, before both shape ops.
// CHECK: @chain(%[[X:.*]]: tensor<64xf32, #nv_tileas.layout<reg>>)
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[X]] {{.*}}: tensor<64xf32, #nv_tileas.layout<reg>>
// CHECK-NEXT: %[[E:.*]] = nv_tileas.expand_dim %[[N]] {dim = 0 : i32}
// CHECK-NEXT: %[[B:.*]] = nv_tileas.broadcast %[[E]]
// CHECK-NEXT: nv_tileas.pragma %[[B]]
// A sunk negf on a block argument has nowhere further to go.
// NOTE: sink_negf_through_shapes.mlir:9:5: note: no broadcast/expand_dim op

// -----

// The broadcast has another user: it stays, and the negf gets its own broadcast. A negf on a
// non-shape op stays (with the note under report-misses); nv_tileaa.negf sinks too.
builtin.module {
  nv_tileaa.func @shared(%x: tensor<1x8xf32>, %y: tensor<4x8xf32>) {
    %b = nv_tileaa.broadcast %x : tensor<1x8xf32> -> tensor<4x8xf32>
    %n = nv_tileaa.negf %b : tensor<4x8xf32>
    %s = nv_tileaa.addf %b, %n : tensor<4x8xf32>
    %m = arith.negf %y : tensor<4x8xf32>
    nv_tileaa.return
  }
}
// CHECK: @shared(%[[X:.*]]: tensor<1x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[B:.*]] = nv_tileaa.broadcast %[[X]]
// CHECK-NEXT: %[[N:.*]] = nv_tileaa.negf %[[X]] : tensor<1x8xf32>
// CHECK-NEXT: %[[NB:.*]] = nv_tileaa.broadcast %[[N]] : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: nv_tileaa.addf %[[B]], %[[NB]]
// CHECK-NEXT: arith.negf %[[Y]]
// NOTE: sink_negf_through_shapes.mlir:30:5: note: no broadcast/expand_dim op
// NOTE: sink_negf_through_shapes.mlir:32:5: note: no broadcast/expand_dim op
