// RUN: tileorch-opt %s --split-input-file --verify-diagnostics -p convert-cudatile-to-tileaa | filecheck %s

// ct.pack_to_bytes / ct.unpack_from_bytes are written with tile ops (little-endian bytes):
// pack: bitcast to integers, [n] -> [n, k] broadcast, shift right by 8 * column, truncate, reshape;
// unpack: reshape [n k] -> [n, k], zero-extend, shift left by 8 * column, OR the columns, bitcast.

// CHECK-LABEL: nv_tileaa.func @pack
cuda_tile.module @m {
  entry @pack() {
    %x = constant <f32: 1.5> : tile<4xf32>
    // CHECK:      %[[BITS:.*]] = arith.bitcast %{{.*}} : tensor<4xf32> to tensor<4xi32>
    // CHECK-NEXT: %[[COL:.*]] = nv_tileaa.expand_dims %[[BITS]] {dim = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
    // CHECK-NEXT: %[[WIDE:.*]] = nv_tileaa.broadcast %[[COL]] : tensor<4x1xi32> -> tensor<4x4xi32>
    // CHECK:      nv_tileaa.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
    // CHECK:      %[[EIGHT:.*]] = arith.constant 8 : i32
    // CHECK:      %[[SH:.*]] = nv_tileaa.muli %{{.*}}, %{{.*}} : tensor<4x4xi32>
    // CHECK-NEXT: %[[S:.*]] = arith.shrui %[[WIDE]], %[[SH]] : tensor<4x4xi32>
    // CHECK-NEXT: %[[B:.*]] = nv_tileaa.trunci %[[S]] : tensor<4x4xi32> -> tensor<4x4xi8>
    // CHECK-NEXT: nv_tileaa.reshape %[[B]] : tensor<4x4xi8> -> tensor<16xi8>
    %p = pack %x : tile<4xf32> -> tile<16xi8>
    return
  }
}

// -----

// CHECK-LABEL: nv_tileaa.func @unpack
cuda_tile.module @m {
  entry @unpack() {
    %b = constant <i8: 3> : tile<8xi8>
    // CHECK:      %[[R:.*]] = nv_tileaa.reshape %{{.*}} : tensor<8xi8> -> tensor<4x2xi8>
    // CHECK-NEXT: %[[W:.*]] = nv_tileaa.extui %[[R]] : tensor<4x2xi8> -> tensor<4x2xi16>
    // CHECK:      %[[S:.*]] = arith.shli %[[W]], %{{.*}} : tensor<4x2xi16>
    // CHECK:      nv_tileaa.extract_slice %[[S]][%{{.*}}, %{{.*}}] : tensor<4x2xi16>{{.*}} -> tensor<4x1xi16>
    // CHECK:      nv_tileaa.extract_slice %[[S]][%{{.*}}, %{{.*}}] : tensor<4x2xi16>{{.*}} -> tensor<4x1xi16>
    // CHECK:      %[[OR:.*]] = arith.ori %{{.*}}, %{{.*}} : tensor<4xi16>
    // CHECK-NEXT: arith.bitcast %[[OR]] : tensor<4xi16> to tensor<4xf16>
    %e = unpack %b : tile<8xi8> -> tile<4xf16>
    return
  }
}

// -----

cuda_tile.module @m {
  entry @sub_byte() {
    %f = constant <f32: 1.0> : tile<8xf32>
    %x = ftof %f : tile<8xf32> -> tile<8xf4E2M1FN>
    // expected-error @+1 {{'cuda_tile.pack' of f4E2M1FN elements (sub-byte element types) is not supported yet by convert-cudatile-to-tileaa}}
    %p = pack %x : tile<8xf4E2M1FN> -> tile<4xi8>
    return
  }
}
