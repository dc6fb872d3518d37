// Orchestration rules of cutlass.pipeline.*: array element types, masks that name units of the
// CTA, 20-bit mbarrier counts, compute capability vs target, one init per pipeline, producer-side
// ops on producers and consumer-side ops on consumers, tokens from the matching try-op.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<f32: 1.0>, consumers = array<i64: 2>}
  func.return
}
// CHECK: verify_rules.mlir:8:3: error: cutlass.pipeline.init: participants holds executor masks, so it must be array<i64: ...>, found array<f32: 1.000000e+00>

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i32: 2>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: consumers holds executor masks, so it must be array<i64: ...>, found array<i32: 2>

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, producer_arv_count = array<f32: 1.0>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: producer_arv_count holds counts, so it must be array<i32: ...>, found array<f32: 1.000000e+00>

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, transaction_size = array<i64: 4096>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: transaction_size holds counts, so it must be array<i32: ...>, found array<i64: 4096>

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x100000000>, consumers = array<i64: 2>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: producer group 0 mask 0x100000000 names warp 32, but a CTA has at most 32 warps (1024 threads)

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 0x8000000000000000>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: consumer group 0 mask 0x8000000000000000 names warpgroup 63, but a CTA has at most 8 warp groups (1024 threads)

// -----

func.func @f() attributes {nvvm.maxntid = array<i32: 256, 1, 1>} {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 6>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: consumer group 0 mask 0x6 names warpgroup 2 (threads up to 383), but the CTA has 256 threads (the kernel's nvvm.maxntid)

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, consumer_arv_count = array<i32: 1048576>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: consumer_arv_count[0] = 1048576 does not fit an mbarrier's 20-bit arrive count (at most 1048575)

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, transaction_size = array<i32: 2147483647>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: transaction_size[0] = 2147483647 does not fit an mbarrier's 20-bit transaction count (at most 1048575)

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, transaction_size = array<i32: 4294967295>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: transaction_size[0] must be >= 0, found -1

// -----

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @f() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>, compute_capability = #cutlass<pipeline_compute_capability sm100>}
    func.return
  }
}
// CHECK: error: cutlass.pipeline.init: compute_capability sm100 needs an sm_100 family target, but the module's cutlass.target is sm_90a

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  %r2 = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  func.return
}
// CHECK: verify_rules.mlir:[[# @LINE - 3]]:3: error: cutlass.pipeline.init: the pipeline is initialised twice (first at {{.*}}verify_rules.mlir:[[# @LINE - 4]]:3); each cutlass.pipeline.create is initialised by one cutlass.pipeline.init

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  %r2 = cutlass.pipeline.init %r {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  func.return
}
// CHECK: error: cutlass.pipeline.init: the pipeline is already initialised (its operand is the result of another cutlass.pipeline.init)

// -----

// A consumer warp runs a producer-side op.
func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  cutlass.async.exec warp mask(0x2) {
    %s = cutlass.pipeline.state.create %r producer
    cutlass.pipeline.producer_acquire %r, %s
  }
  func.return
}
// CHECK: verify_rules.mlir:[[# @LINE - 4]]:5: error: cutlass.pipeline.producer_acquire is a producer-side op, but the enclosing warp executor (mask 0x2) runs threads 32..63, which are not producers of the pipeline (its producer groups cover threads 0..31; cutlass.pipeline.init at {{.*}}verify_rules.mlir:[[# @LINE - 7]]:3)

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  cutlass.async.exec warp mask(0x1) {
    %s = cutlass.pipeline.state.create %r consumer
    cutlass.pipeline.consumer_release %r, %s
  }
  func.return
}
// CHECK: error: cutlass.pipeline.consumer_release is a consumer-side op, but the enclosing warp executor (mask 0x1) runs threads 0..31, which are not consumers of the pipeline

// -----

// Both roles' warps run the wait: the producer warp would wait on a full barrier it fills.
func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  cutlass.async.exec warp mask(0x3) {
    %s = cutlass.pipeline.state.create %r consumer
    cutlass.pipeline.consumer_wait %r, %s
  }
  func.return
}
// CHECK: error: cutlass.pipeline.consumer_wait is a consumer-side op, but the enclosing warp executor (mask 0x3) runs threads 0..31, which are not consumers of the pipeline

// -----

// Through a switch arm: arm 1 (warp 1) is a consumer.
func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  cutlass.async.exec warp mask(0x3) {
    cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %r) {
    } case masks(0x2) args(%q = %r) {
      %s = cutlass.pipeline.state.create %q producer
      cutlass.pipeline.produce %q, %s {}
    }
  }
  func.return
}
// CHECK: error: cutlass.pipeline.produce is a producer-side op, but arm 1 of the enclosing switch_by_executor (warp mask 0x2) runs threads 32..63, which are not producers of the pipeline

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
  cutlass.async.exec warpgroup mask(0x2) {
    %s = cutlass.pipeline.state.create %r producer
    %t = cutlass.pipeline.producer_try_acquire %r, %s
  }
  func.return
}
// CHECK: error: cutlass.pipeline.producer_try_acquire is a producer-side op, but the enclosing warpgroup executor (mask 0x2) runs threads 128..255, which are not producers of the pipeline (its producer groups cover threads 0..127

// -----

// A token from the other kind of try-op.
func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  cutlass.async.exec warp mask(0x2) {
    %s = cutlass.pipeline.state.create %r consumer
    %t = cutlass.pipeline.consumer_try_wait %r, %s
    cutlass.pipeline.consumer_wait %r, %s token(%t)
    %u = "test.op"() : () -> i1
    cutlass.pipeline.consumer_release %r, %s
  }
  cutlass.async.exec warp mask(0x1) {
    %s = cutlass.pipeline.state.create %r producer
    %t = cutlass.pipeline.producer_try_acquire %r, %s
    cutlass.pipeline.producer_acquire %r, %s token(%t)
  }
  %s0 = cutlass.pipeline.state.create %r consumer
  %t0 = cutlass.pipeline.consumer_try_wait %r, %s0
  cutlass.pipeline.producer_acquire %r, %s0 token(%t0)
  func.return
}
// CHECK: error: cutlass.pipeline.producer_acquire: the token comes from cutlass.pipeline.consumer_try_wait, which probes the other barrier; use the result of cutlass.pipeline.producer_try_acquire on the same pipeline and state

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  %s0 = cutlass.pipeline.state.create %r producer
  %t0 = cutlass.pipeline.producer_try_acquire %r, %s0
  cutlass.pipeline.consumer_wait %r, %s0 token(%t0)
  func.return
}
// CHECK: error: cutlass.pipeline.consumer_wait: the token comes from cutlass.pipeline.producer_try_acquire, which probes the other barrier

// -----

func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  %s0 = cutlass.pipeline.state.create %r producer
  cutlass.pipeline.producer_commit %r, %s0 {transaction_bytes = 1048576 : i32}
  func.return
}
// CHECK: error: cutlass.pipeline.producer_commit: transaction_bytes = 1048576 does not fit an mbarrier's 20-bit transaction count (at most 1048575)

// -----

// A token from the matching try-op of another pipeline probes that pipeline's barrier.
func.func @f() {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  %pipe2 = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r2 = cutlass.pipeline.init %pipe2 {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  %s0 = cutlass.pipeline.state.create %r producer
  %t0 = cutlass.pipeline.producer_try_acquire %r2, %s0
  cutlass.pipeline.producer_acquire %r, %s0 token(%t0)
  func.return
}
// CHECK: error: cutlass.pipeline.producer_acquire: the token comes from a cutlass.pipeline.producer_try_acquire on another pipeline
