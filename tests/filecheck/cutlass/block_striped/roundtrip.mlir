// Custom and generic forms of cutlass.block_striped.{load,load_add,store,reduce} round-trip.
// RUN: TILEORCH_ROUNDTRIP
// RUN: TILEORCH_CUSTOM_ROUNDTRIP
// RUN: tileorch-opt %s --split-input-file --print-op-generic | tileorch-opt --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// 128 threads x vector<8xf32>: tile of 1024 elements; access_width 4 -> 2 stripes of 512.
func.func @fixup(%tile: memref<1024xf32>, %rows: memref<2x512xf32>, %gp: !llvm.ptr<1>, %t: i32, %acc: vector<8xf32>) {
  %a = cutlass.block_striped.load %tile, %t n_threads_in_block = 128 : memref<1024xf32> -> vector<8xf32>
  %b = cutlass.block_striped.load %rows, %t n_threads_in_block = 128 access_width = 4 : memref<2x512xf32> -> vector<8xf32>
  %c = cutlass.block_striped.load_add %tile, %t, %acc n_threads_in_block = 128 : memref<1024xf32>, vector<8xf32> -> vector<8xf32>
  cutlass.block_striped.store %acc, %gp, %t n_threads_in_block = 128 access_width = 4 : vector<8xf32>, !llvm.ptr<1>
  cutlass.block_striped.reduce add %acc, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<1024xf32>
  cutlass.block_striped.reduce max %acc, %gp, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<1>
  func.return
}
// CHECK-LABEL: func.func @fixup
// CHECK-NEXT: %a = cutlass.block_striped.load %tile, %t n_threads_in_block = 128 : memref<1024xf32> -> vector<8xf32>
// CHECK-NEXT: %b = cutlass.block_striped.load %rows, %t n_threads_in_block = 128 access_width = 4 : memref<2x512xf32> -> vector<8xf32>
// CHECK-NEXT: %c = cutlass.block_striped.load_add %tile, %t, %acc n_threads_in_block = 128 : memref<1024xf32>, vector<8xf32> -> vector<8xf32>
// CHECK-NEXT: cutlass.block_striped.store %acc, %gp, %t n_threads_in_block = 128 access_width = 4 : vector<8xf32>, !llvm.ptr<1>
// CHECK-NEXT: cutlass.block_striped.reduce add %acc, %tile, %t n_threads_in_block = 128 : vector<8xf32>, memref<1024xf32>
// CHECK-NEXT: cutlass.block_striped.reduce max %acc, %gp, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<1>
// GENERIC: %a = "cutlass.block_striped.load"(%tile, %t) <{n_threads_in_block = 128 : i32, access_width = 1 : i32}> : (memref<1024xf32>, i32) -> vector<8xf32>
// GENERIC: %b = "cutlass.block_striped.load"(%rows, %t) <{n_threads_in_block = 128 : i32, access_width = 4 : i32}> : (memref<2x512xf32>, i32) -> vector<8xf32>
// GENERIC: %c = "cutlass.block_striped.load_add"(%tile, %t, %acc) <{n_threads_in_block = 128 : i32}> : (memref<1024xf32>, i32, vector<8xf32>) -> vector<8xf32>
// GENERIC: "cutlass.block_striped.store"(%gp, %t, %acc) <{n_threads_in_block = 128 : i32, access_width = 4 : i32}> : (!llvm.ptr<1>, i32, vector<8xf32>) -> ()
// GENERIC: "cutlass.block_striped.reduce"(%tile, %t, %acc) <{block_striped_kind = #cutlass<block_striped_kind add>, n_threads_in_block = 128 : i32}> : (memref<1024xf32>, i32, vector<8xf32>) -> ()
// GENERIC: "cutlass.block_striped.reduce"(%gp, %t, %acc) <{block_striped_kind = #cutlass<block_striped_kind max>, n_threads_in_block = 128 : i32}> : (!llvm.ptr<1>, i32, vector<8xf32>) -> ()

// -----

// 16-bit elements and an element-wise 2-D stripe shape: 256 threads x vector<4xf16> -> [4, 256].
func.func @half(%tile: memref<4x256xf16>, %t: i32, %v: vector<4xf16>) {
  cutlass.block_striped.reduce add %v, %tile, %t n_threads_in_block = 256 : vector<4xf16>, memref<4x256xf16>
  func.return
}
// CHECK-LABEL: func.func @half
// CHECK-NEXT: cutlass.block_striped.reduce add %v, %tile, %t n_threads_in_block = 256 : vector<4xf16>, memref<4x256xf16>
// GENERIC: "cutlass.block_striped.reduce"(%tile, %t, %v) <{block_striped_kind = #cutlass<block_striped_kind add>, n_threads_in_block = 256 : i32}> : (memref<4x256xf16>, i32, vector<4xf16>) -> ()
