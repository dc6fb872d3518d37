// cutlass-stamp-arrive-counts: expected counts are CUTLASS's (cutlass-semantics.md §3.1, §3.3, §3.6)
// computed by hand: full = producer arrivals, empty = consumer threads on one CTA, otherwise
// (cx + cy - 1) * consumer warp groups; named barriers count all participating threads.
// RUN: tileorch-opt %s --split-input-file -p cutlass-stamp-arrive-counts | filecheck %s

// PipelineTmaAsync, 1 CTA: 1 leader arrive; 2 consumer WGs = 256 threads each arrive once.
// CHECK-LABEL: @tma_1cta
// CHECK: arvCount = array<i32: 1, 256>
builtin.module {
  func.func @tma_1cta() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
    %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, transaction_size = array<i32: 4096>}
    func.return
  }
}

// -----

// 2x2 cluster: each of the 2 consumer WGs arrives from the 2 + 2 - 1 = 3 CTAs in its row/column.
// CHECK-LABEL: @tma_2x2
// CHECK: arvCount = array<i32: 1, 6>
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @tma_2x2() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
    %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>}
    func.return
  }
}

// -----

// 2x1 cluster, one consumer group of 2 WGs (warpgroup units): (2 + 1 - 1) * 2 = 4.
// CHECK-LABEL: @coop_2x1
// CHECK: arvCount = array<i32: 1, 4>
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @coop_2x1() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 3, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %pipe {numStages = 3 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 0x1>, consumers = array<i64: 0x6>}
    func.return
  }
}

// -----

// 4x1 cluster, one consumer warp (32 threads = ceil(32/128) = 1 WG unit): (4 + 1 - 1) * 1 = 4.
// CHECK-LABEL: @warp_consumer_4x1
// CHECK: arvCount = array<i32: 1, 4>
builtin.module attributes {cutlass.cluster_shape = array<i32: 4, 1, 1>} {
  func.func @warp_consumer_4x1() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x2>}
    func.return
  }
}

// -----

// PipelineAsync docs example (media/docs/cpp/pipeline.md): producer_arv_count 2, consumer_arv_count 1;
// thread units: producer threads 0 and 1, consumer thread 2.
// CHECK-LABEL: @async_threads
// CHECK: arvCount = array<i32: 2, 1>
builtin.module {
  func.func @async_threads() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type thread>, participants = array<i64: 0x3>, consumers = array<i64: 0x4>, producer_arv_count = array<i32: 2>, consumer_arv_count = array<i32: 1>}
    func.return
  }
}

// -----

// Epilogue C-load pipeline (PipelineTransactionAsync, §3.6): all 32 lanes of the load warp commit;
// explicit counts win over the thread-count default. (On a cluster of several CTAs an explicit
// consumer_arv_count is rejected: arrive_counts_errors.mlir.)
// CHECK-LABEL: @epilogue_load
// CHECK: arvCount = array<i32: 32, 256>
builtin.module {
  func.func @epilogue_load() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0xff0>, producer_arv_count = array<i32: 32>, consumer_arv_count = array<i32: 256>}
    func.return
  }
}

// -----

// Two producers with their own leaders; one 4-warp consumer: full 1 + 1, empty 128.
// CHECK-LABEL: @two_producers
// CHECK: arvCount = array<i32: 2, 128>
builtin.module {
  func.func @two_producers() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 2, consumers = 1>
    %r = cutlass.pipeline.init %pipe {numStages = 4 : i32, participants = array<i64: 0x1, 0x2>, consumers = array<i64: 0xf0>}
    func.return
  }
}

// -----

// Named barriers: bar.sync/bar.arrive count every participating thread: 32 + 256 = 288.
// An elided empty barrier stamps 0.
// CHECK-LABEL: @named
// CHECK: arvCount = array<i32: 288, 288>
// CHECK: arvCount = array<i32: 288, 0>
// CHECK: arvCount = array<i32: 0, 256>
builtin.module {
  func.func @named() {
    %a = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2, barrier = named_barrier>
    %ra = cutlass.pipeline.init %a {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, barrier_id_base = 8 : i32}
    %b = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2, barrier = named_barrier, elide = empty>
    %rb = cutlass.pipeline.init %b {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, barrier_id_base = 12 : i32}
    %c = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2, elide = full>
    %rc = cutlass.pipeline.init %c {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>}
    func.return
  }
}
