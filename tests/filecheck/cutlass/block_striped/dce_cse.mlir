// store and reduce write memory: dce and cse keep duplicates. load/load_add only read,
// so an unused one is removable (as in MLIR); a used one stays.
// RUN: tileorch-opt %s -p dce,cse | filecheck %s

func.func @kept(%tile: memref<1024xf32>, %t: i32, %v: vector<8xf32>) -> vector<8xf32> {
  cutlass.block_striped.store %v, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<1024xf32>
  cutlass.block_striped.store %v, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<1024xf32>
  cutlass.block_striped.reduce add %v, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<1024xf32>
  cutlass.block_striped.reduce add %v, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<1024xf32>
  cutlass.block_striped.reduce max %v, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<1024xf32>
  cutlass.block_striped.reduce max %v, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<1024xf32>
  %dead = cutlass.block_striped.load %tile, %t n_threads_in_block = 128 : memref<1024xf32> -> vector<8xf32>
  %dead2 = cutlass.block_striped.load_add %tile, %t, %v n_threads_in_block = 128 : memref<1024xf32>, vector<8xf32> -> vector<8xf32>
  %live = cutlass.block_striped.load_add %tile, %t, %v n_threads_in_block = 128 : memref<1024xf32>, vector<8xf32> -> vector<8xf32>
  func.return %live : vector<8xf32>
}
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: cutlass.block_striped.store %v, %tile, %t
// CHECK-COUNT-2: cutlass.block_striped.reduce add %v, %tile, %t
// CHECK-COUNT-2: cutlass.block_striped.reduce max %v, %tile, %t
// CHECK-NOT:  cutlass.block_striped.load %tile
// CHECK-NEXT: %live = cutlass.block_striped.load_add %tile, %t, %v
// CHECK-NEXT: func.return %live
