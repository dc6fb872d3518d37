// Programs the orchestration rules accept: an elected producer thread under scf.if inside a
// whole-CTA executor, a 64-bit upper-half thread mask, tokens from the matching try-ops.
// RUN: tileorch-opt %s | filecheck %s

func.func @f(%leader: i1) attributes {nvvm.maxntid = array<i32: 384, 1, 1>} {
  %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
  %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type thread>, participants = array<i64: 0xffffffff00000000>, consumers = array<i64: 0xffffffff>}
  cutlass.async.exec warp mask(0x3) {
    scf.if %leader {
      %s = cutlass.pipeline.state.create %r producer
      %t = cutlass.pipeline.producer_try_acquire %r, %s
      cutlass.pipeline.producer_acquire %r, %s token(%t)
    }
  }
  cutlass.async.exec warp mask(0x1) {
    %s = cutlass.pipeline.state.create %r consumer
    %t = cutlass.pipeline.consumer_try_wait %r, %s
    cutlass.pipeline.consumer_wait %r, %s token(%t)
    cutlass.pipeline.consumer_release %r, %s
  }
  cutlass.async.exec thread mask(0xffffffff00000000) {
    %s = cutlass.pipeline.state.create %r producer
    cutlass.pipeline.producer_commit %r, %s {transaction_bytes = 1048575 : i32}
  }
  func.return
}
// CHECK: participants = array<i64: -4294967296>
// CHECK: cutlass.pipeline.producer_acquire %r, %s token(%t)
// CHECK: cutlass.async.exec thread mask(0xffffffff00000000)
