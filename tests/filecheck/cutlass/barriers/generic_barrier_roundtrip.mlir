// Custom and generic forms of cutlass.generic_barrier.* round-trip.
// RUN: TILEORCH_ROUNDTRIP
// RUN: TILEORCH_CUSTOM_ROUNDTRIP
// RUN: tileorch-opt %s --split-input-file --print-op-generic | tileorch-opt --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @semaphores(%lock: !llvm.ptr<1>, %flags: memref<64xi32>, %i: i32, %n: i32) {
  cutlass.async.exec cta mask(1) threads(256) {
    cutlass.generic_barrier.arrive_increment %lock[%i] : !llvm.ptr<1>
    cutlass.generic_barrier.arrive_increment %lock[%i] add %n sync = named_barrier barrier_id = 4 num_threads = 128 : !llvm.ptr<1>
    cutlass.generic_barrier.wait_eq %flags[%i] sync = syncwarp : memref<64xi32>
    cutlass.generic_barrier.wait_eq %flags[%i], %n : memref<64xi32>
    cutlass.generic_barrier.wait_less_than %lock[%i], %n sync = named_barrier barrier_id = 5 : !llvm.ptr<1>
  }
  func.return
}
// CHECK-LABEL: func.func @semaphores
// CHECK:      cutlass.generic_barrier.arrive_increment %lock[%i] : !llvm.ptr<1>
// CHECK-NEXT: cutlass.generic_barrier.arrive_increment %lock[%i] add %n sync = named_barrier barrier_id = 4 num_threads = 128 : !llvm.ptr<1>
// CHECK-NEXT: cutlass.generic_barrier.wait_eq %flags[%i] sync = syncwarp : memref<64xi32>
// CHECK-NEXT: cutlass.generic_barrier.wait_eq %flags[%i], %n : memref<64xi32>
// CHECK-NEXT: cutlass.generic_barrier.wait_less_than %lock[%i], %n sync = named_barrier barrier_id = 5 : !llvm.ptr<1>
// GENERIC: "cutlass.generic_barrier.arrive_increment"(%lock, %i) <{sync = #cutlass<generic_barrier_sync syncthreads>}> : (!llvm.ptr<1>, i32) -> ()
// GENERIC: "cutlass.generic_barrier.arrive_increment"(%lock, %i, %n) <{sync = #cutlass<generic_barrier_sync named_barrier>, barrier_id = 4 : i32, num_threads = 128 : i32}> : (!llvm.ptr<1>, i32, i32) -> ()
// GENERIC: "cutlass.generic_barrier.wait_eq"(%flags, %i) <{sync = #cutlass<generic_barrier_sync syncwarp>}> : (memref<64xi32>, i32) -> ()
// GENERIC: "cutlass.generic_barrier.wait_eq"(%flags, %i, %n) <{sync = #cutlass<generic_barrier_sync syncthreads>}> : (memref<64xi32>, i32, i32) -> ()
// GENERIC: "cutlass.generic_barrier.wait_less_than"(%lock, %i, %n) <{sync = #cutlass<generic_barrier_sync named_barrier>, barrier_id = 5 : i32}> : (!llvm.ptr<1>, i32, i32) -> ()

// -----

// Outside an executor, with an explicit count; a generic-address-space lock.
func.func @explicit(%lock: !llvm.ptr, %i: i32) {
  cutlass.generic_barrier.wait_eq %lock[%i] num_threads = 384 : !llvm.ptr
  func.return
}
// CHECK-LABEL: func.func @explicit
// CHECK-NEXT: cutlass.generic_barrier.wait_eq %lock[%i] num_threads = 384 : !llvm.ptr
// GENERIC: "cutlass.generic_barrier.wait_eq"(%lock, %i) <{num_threads = 384 : i32, sync = #cutlass<generic_barrier_sync syncthreads>}> : (!llvm.ptr, i32) -> ()
