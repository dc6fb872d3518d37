// RUN: tileorch-opt %s -p convert-pipeline-to-nvvm | filecheck %s
// Block-striped movement (cutlass-semantics.md §2.6, dialect layout contract): with T threads and
// access width A, access s of thread t is tile elements [(s*T + t)*A, (s*T + t)*A + A).
builtin.module {
  func.func @bs(%p: !llvm.ptr<1>, %t: i32, %f: vector<4xf32>, %h: vector<2xi32>) -> vector<4xf32> {
    %v = cutlass.block_striped.load %p, %t n_threads_in_block = 128 access_width = 2 : !llvm.ptr<1> -> vector<4xf32>
    cutlass.block_striped.store %f, %p, %t n_threads_in_block = 128 access_width = 2 : vector<4xf32>, !llvm.ptr<1>
    %w = cutlass.block_striped.load_add %p, %t, %h n_threads_in_block = 64 : !llvm.ptr<1>, vector<2xi32> -> vector<2xi32>
    cutlass.block_striped.store %w, %p, %t n_threads_in_block = 64 : vector<2xi32>, !llvm.ptr<1>
    cutlass.block_striped.reduce max %f, %p, %t n_threads_in_block = 128 : vector<4xf32>, !llvm.ptr<1>
    func.return %v : vector<4xf32>
  }
}
// load, T = 128, A = 2: accesses at elements 2t and 2t + 256, each one 8-byte vector load; the
// fragment is [access0[0], access0[1], access1[0], access1[1]].
// CHECK:      %[[A:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[TA:.*]] = llvm.mul %t, %[[A]] : i32
// CHECK-NEXT: %[[O0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[E0:.*]] = llvm.add %[[TA]], %[[O0]] : i32
// CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %p[%[[E0]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK-NEXT: %[[V0:.*]] = llvm.load %[[P0]] <alignment = 8> : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NEXT: %[[W0:.*]] = llvm.shufflevector %[[V0]], %[[V0]] [0, 1, 0, 1] : vector<2xf32>
// CHECK-NEXT: %[[O1:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: %[[E1:.*]] = llvm.add %[[TA]], %[[O1]] : i32
// CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %p[%[[E1]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK-NEXT: %[[V1:.*]] = llvm.load %[[P1]] <alignment = 8> : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NEXT: %[[W1:.*]] = llvm.shufflevector %[[V1]], %[[V1]] [0, 1, 0, 1] : vector<2xf32>
// CHECK-NEXT: %[[FRAG:.*]] = llvm.shufflevector %[[W0]], %[[W1]] [0, 1, 6, 7] : vector<4xf32>
// store, same layout: fragment elements [0, 1] -> 2t, [2, 3] -> 2t + 256.
// CHECK-NEXT: %[[SA:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[STA:.*]] = llvm.mul %t, %[[SA]] : i32
// CHECK-NEXT: %[[S0:.*]] = llvm.shufflevector %f, %f [0, 1] : vector<4xf32>
// CHECK-NEXT: %[[SO0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[SE0:.*]] = llvm.add %[[STA]], %[[SO0]] : i32
// CHECK-NEXT: %[[SP0:.*]] = llvm.getelementptr %p[%[[SE0]]]
// CHECK-NEXT: llvm.store %[[S0]], %[[SP0]] <alignment = 8> : vector<2xf32>, !llvm.ptr<1>
// CHECK-NEXT: %[[S1:.*]] = llvm.shufflevector %f, %f [2, 3] : vector<4xf32>
// CHECK-NEXT: %[[SO1:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT: %[[SE1:.*]] = llvm.add %[[STA]], %[[SO1]] : i32
// CHECK-NEXT: %[[SP1:.*]] = llvm.getelementptr %p[%[[SE1]]]
// CHECK-NEXT: llvm.store %[[S1]], %[[SP1]] <alignment = 8> : vector<2xf32>, !llvm.ptr<1>
// load_add, T = 64, A = 1: elements t and t + 64, then fragment + tile (integer add).
// CHECK:      llvm.getelementptr %p[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
// CHECK-NEXT: llvm.load %{{.*}} <alignment = 4> : !llvm.ptr<1> -> vector<1xi32>
// CHECK:      llvm.mlir.constant(64 : i32)
// CHECK:      %[[TILE:.*]] = llvm.shufflevector %{{.*}}, %{{.*}} [0, 3] : vector<2xi32>
// CHECK-NEXT: %[[SUM:.*]] = llvm.add %h, %[[TILE]] : vector<2xi32>
// CHECK:      llvm.shufflevector %[[SUM]], %[[SUM]] [0] : vector<2xi32>
// CHECK:      llvm.shufflevector %[[SUM]], %[[SUM]] [1] : vector<2xi32>
// reduce max over f32, T = 128: one relaxed (monotonic) device-scope atomic fmax per element at
// t + 128 i.
// CHECK:      %[[R0:.*]] = llvm.shufflevector %f, %f [0] : vector<4xf32>
// CHECK-NEXT: %[[X0:.*]] = llvm.bitcast %[[R0]] : vector<1xf32> to f32
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK-NEXT: llvm.add
// CHECK-NEXT: %[[RP0:.*]] = llvm.getelementptr %p
// CHECK-NEXT: llvm.atomicrmw fmax %[[RP0]], %[[X0]] syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK:      llvm.mlir.constant(128 : i32)
// CHECK:      llvm.atomicrmw fmax
// CHECK:      llvm.mlir.constant(256 : i32)
// CHECK:      llvm.atomicrmw fmax
// CHECK:      %[[R3:.*]] = llvm.shufflevector %f, %f [3] : vector<4xf32>
// CHECK-NEXT: %[[X3:.*]] = llvm.bitcast %[[R3]] : vector<1xf32> to f32
// CHECK-NEXT: %[[O3:.*]] = llvm.mlir.constant(384 : i32) : i32
// CHECK:      llvm.atomicrmw fmax %{{.*}}, %[[X3]]
// CHECK:      func.return %[[FRAG]] : vector<4xf32>
