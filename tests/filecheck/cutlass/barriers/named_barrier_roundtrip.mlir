// Custom and generic forms of cutlass.named_barrier.{arrive,arrive_and_wait} round-trip.
// RUN: TILEORCH_ROUNDTRIP
// RUN: TILEORCH_CUSTOM_ROUNDTRIP
// RUN: tileorch-opt %s --split-input-file --print-op-generic | tileorch-opt --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @static_ids() {
  cutlass.async.exec warpgroup mask(6) {
    cutlass.named_barrier.arrive barrier_id = 8 num_threads = 384
    cutlass.named_barrier.arrive_and_wait barrier_id = 9
  }
  func.return
}
// CHECK-LABEL: func.func @static_ids
// CHECK:       cutlass.async.exec warpgroup mask({{(0x)?}}6) {
// CHECK-NEXT:    cutlass.named_barrier.arrive barrier_id = 8 num_threads = 384
// CHECK-NEXT:    cutlass.named_barrier.arrive_and_wait barrier_id = 9{{$}}
// GENERIC-LABEL: "func.func"() <{sym_name = "static_ids"
// GENERIC: "cutlass.named_barrier.arrive"() <{barrier_id = 8 : i32, num_threads = 384 : i32}> : () -> ()
// GENERIC: "cutlass.named_barrier.arrive_and_wait"() <{barrier_id = 9 : i32}> : () -> ()

// -----

func.func @dynamic_id(%id: i32) {
  cutlass.named_barrier.arrive %id num_threads = 256 {tag = "epi"}
  cutlass.named_barrier.arrive_and_wait %id num_threads = 256
  func.return
}
// CHECK-LABEL: func.func @dynamic_id(%id: i32)
// CHECK-NEXT:    cutlass.named_barrier.arrive %id num_threads = 256 {tag = "epi"}
// CHECK-NEXT:    cutlass.named_barrier.arrive_and_wait %id num_threads = 256
// GENERIC: "cutlass.named_barrier.arrive"(%id) <{num_threads = 256 : i32}> {tag = "epi"} : (i32) -> ()
// GENERIC: "cutlass.named_barrier.arrive_and_wait"(%id) <{num_threads = 256 : i32}> : (i32) -> ()

// -----

// The generic form is accepted as input (inside a function: cutlass ops never sit at module scope).
"func.func"() <{sym_name = "generic", function_type = () -> ()}> ({
  "cutlass.async.exec"() <{executor = #cutlass<executor_type warp>, mask = 15 : i64}> ({
    "cutlass.named_barrier.arrive_and_wait"() <{barrier_id = 15 : i32}> : () -> ()
  }) : () -> ()
  "func.return"() : () -> ()
}) : () -> ()
// CHECK: cutlass.async.exec warp mask({{15|0xf}}) {
// CHECK-NEXT: cutlass.named_barrier.arrive_and_wait barrier_id = 15{{$}}
// GENERIC: "cutlass.named_barrier.arrive_and_wait"() <{barrier_id = 15 : i32}> : () -> ()
