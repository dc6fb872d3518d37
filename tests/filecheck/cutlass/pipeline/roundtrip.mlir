// Every pipeline op, its types and attributes survive custom -> custom and generic -> custom.
// RUN: TILEORCH_CUSTOM_ROUNDTRIP
// RUN: TILEORCH_ROUNDTRIP
// RUN: tileorch-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @handshake
// CHECK:      %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
// CHECK-NEXT: %ready = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 1>, consumers = array<i64: 240, 3840>, producer_arv_count = array<i32: 1>, consumer_arv_count = array<i32: 128, 128>, transaction_size = array<i32: 4096>, compute_capability = #cutlass<pipeline_compute_capability sm90>}
// CHECK-NEXT: %s = cutlass.pipeline.state.create %ready producer
// CHECK-NEXT: %t = cutlass.pipeline.state.create %ready consumer
// CHECK-NEXT: %ok = cutlass.pipeline.producer_try_acquire %ready, %s
// CHECK-NEXT: %ok2 = cutlass.pipeline.producer_try_acquire %ready, %s skip_wait(%b)
// CHECK-NEXT: cutlass.pipeline.producer_acquire %ready, %s
// CHECK-NEXT: cutlass.pipeline.producer_acquire %ready, %s token(%ok)
// CHECK-NEXT: %bar = cutlass.pipeline.get_producer_barrier %ready, %s
// CHECK-NEXT: %full = cutlass.pipeline.get_full_barrier %ready, %s
// CHECK-NEXT: %empty = cutlass.pipeline.get_empty_barrier %ready, %s
// CHECK-NEXT: %mask = cutlass.pipeline.get_producer_mask %ready
// CHECK-NEXT: cutlass.pipeline.producer_commit %ready, %s {transaction_bytes = 4096 : i32}
// CHECK-NEXT: cutlass.pipeline.producer_commit %ready, %s
// CHECK-NEXT: cutlass.pipeline.producer_tail %ready, %s
// CHECK-NEXT: %ready_now = cutlass.pipeline.consumer_try_wait %ready, %t
// CHECK-NEXT: %ready_now2 = cutlass.pipeline.consumer_try_wait %ready, %t skip_wait(%b)
// CHECK-NEXT: cutlass.pipeline.consumer_wait %ready, %t token(%ready_now)
// CHECK-NEXT: cutlass.pipeline.consumer_wait %ready, %t
// CHECK-NEXT: cutlass.pipeline.consumer_release %ready, %t {note = "kept"}
// CHECK-NEXT: %s1 = cutlass.pipeline.state.increment %s
// CHECK-NEXT: %s2 = cutlass.pipeline.state.increment %s1 by %n
// CHECK-NEXT: %i = cutlass.pipeline.state.get_index %s2
// CHECK-NEXT: %p = cutlass.pipeline.state.get_phase %s2
// CHECK-NEXT: %c = cutlass.pipeline.state.get_count %s2
// GENERIC: "cutlass.pipeline.producer_commit"(%{{.*}}, %{{.*}}) <{transaction_bytes = 4096 : i32}> : (!cutlass.pipeline<stages = 4, producers = 1, consumers = 2>, !cutlass.pipeline_state<4>) -> ()
// GENERIC: "cutlass.pipeline.state.increment"(%{{.*}}, %{{.*}}) : (!cutlass.pipeline_state<4>, i32) -> !cutlass.pipeline_state<4>
builtin.module {
  func.func @handshake(%smem: !llvm.ptr<3>, %n: i32, %b: i1) {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, producer_arv_count = array<i32: 1>, consumer_arv_count = array<i32: 128, 128>, transaction_size = array<i32: 4096>, compute_capability = #cutlass<pipeline_compute_capability sm90>}
    %s = cutlass.pipeline.state.create %ready producer
    %t = cutlass.pipeline.state.create %ready consumer
    %ok = cutlass.pipeline.producer_try_acquire %ready, %s
    %ok2 = cutlass.pipeline.producer_try_acquire %ready, %s skip_wait(%b)
    cutlass.pipeline.producer_acquire %ready, %s
    cutlass.pipeline.producer_acquire %ready, %s token(%ok)
    %bar = cutlass.pipeline.get_producer_barrier %ready, %s
    %full = cutlass.pipeline.get_full_barrier %ready, %s
    %empty = cutlass.pipeline.get_empty_barrier %ready, %s
    %mask = cutlass.pipeline.get_producer_mask %ready
    cutlass.pipeline.producer_commit %ready, %s {transaction_bytes = 4096 : i32}
    cutlass.pipeline.producer_commit %ready, %s
    cutlass.pipeline.producer_tail %ready, %s
    %ready_now = cutlass.pipeline.consumer_try_wait %ready, %t
    %ready_now2 = cutlass.pipeline.consumer_try_wait %ready, %t skip_wait(%b)
    cutlass.pipeline.consumer_wait %ready, %t token(%ready_now)
    cutlass.pipeline.consumer_wait %ready, %t
    cutlass.pipeline.consumer_release %ready, %t {note = "kept"}
    %s1 = cutlass.pipeline.state.increment %s
    %s2 = cutlass.pipeline.state.increment %s1 by %n
    %i = cutlass.pipeline.state.get_index %s2
    %p = cutlass.pipeline.state.get_phase %s2
    %c = cutlass.pipeline.state.get_count %s2
    func.return
  }
}

// -----

// CHECK-LABEL: func.func @regions
// CHECK:      cutlass.async.exec warp mask(0xff1) {
// CHECK-NEXT:   cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
// CHECK-NEXT:     %s = cutlass.pipeline.state.create %p producer
// CHECK-NEXT:     cutlass.pipeline.produce %p, %s attributes {transaction_bytes = 4096 : i32} {
// CHECK-NEXT:       %b = cutlass.pipeline.get_producer_barrier %p, %s
// CHECK-NEXT:     }
// CHECK-NEXT:   } case masks(0xff0) args(%q = %ready) {
// CHECK-NEXT:     %t = cutlass.pipeline.state.create %q consumer
// CHECK-NEXT:     cutlass.pipeline.consume %q, %t {
// CHECK-NEXT:       %i = cutlass.pipeline.state.get_index %t
// CHECK-NEXT:     }
// CHECK-NEXT:     cutlass.pipeline.consume %q, %t {}
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: cutlass.async.exec warpgroup mask(0x6) regs(232) {}
// CHECK-NEXT: cutlass.async.exec cta mask(0x1) threads(384) attributes {tag = 1 : i64} {}
// GENERIC: "cutlass.pipeline.switch_by_executor"(%{{.*}}, %{{.*}}) <{masks = array<i64: 1, 4080>}> ({
// GENERIC: "cutlass.async.exec"() <{executor = #cutlass<executor_type warpgroup>, mask = 6 : i64, max_regs = 232 : i32}> ({
builtin.module {
  func.func @regions() {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, participants = array<i64: 0x1>, consumers = array<i64: 0xff0>}
    cutlass.async.exec warp mask(0xff1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %s = cutlass.pipeline.state.create %p producer
        cutlass.pipeline.produce %p, %s attributes {transaction_bytes = 4096 : i32} {
          %b = cutlass.pipeline.get_producer_barrier %p, %s
        }
      } case masks(0xff0) args(%q = %ready) {
        %t = cutlass.pipeline.state.create %q consumer
        cutlass.pipeline.consume %q, %t {
          %i = cutlass.pipeline.state.get_index %t
        }
        cutlass.pipeline.consume %q, %t {}
      }
    }
    cutlass.async.exec warpgroup mask(0x6) regs(232) {}
    cutlass.async.exec cta mask(0x1) threads(384) attributes {tag = 1} {}
    func.return
  }
}

// -----

// CHECK-LABEL: func.func @participants
// CHECK:      %dp = cutlass.pipeline.make_participants custom(%one, %zero) : !cutlass.dynamic_participants<1, 2>
// CHECK-NEXT: %dq = cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<2, 1, 1>} : !cutlass.dynamic_participants<1, 2>
// CHECK-NEXT: %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 8, producers = 1, consumers = 2, barrier = named_barrier, elide = empty>
// CHECK-NEXT: %ready = cutlass.pipeline.init %pipe dynamic(%dp) {numStages = 8 : i32, participants = array<i64: 1>, consumers = array<i64: 2, 4>, barrier_id_base = 8 : i32, arvCount = array<i32: 96, 0>}
// CHECK-NEXT: "test.op"() {kinds = [#cutlass<pipeline_user tma>, #cutlass<pipeline_role producer_consumer>, #cutlass<pipeline_barrier_resource full>, #cutlass<barrier_id epilogue>, #cutlass<pipeline_barrier_type mbarrier>, #cutlass<pipeline_barrier_elide_type full>, #cutlass<make_participants_mode cga>]} : () -> (!cutlass.seq_bar<depth = 2, length = 3>, !cutlass.seq_bar_state<2>)
builtin.module {
  func.func @participants() {
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %dp = cutlass.pipeline.make_participants custom(%one, %zero) : !cutlass.dynamic_participants<1, 2>
    %dq = cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<2, 1, 1>} : !cutlass.dynamic_participants<1, 2>
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 8, producers = 1, consumers = 2, barrier = named_barrier, elide = empty>
    %ready = cutlass.pipeline.init %pipe dynamic(%dp) {numStages = 8 : i32, participants = array<i64: 1>, consumers = array<i64: 2, 4>, barrier_id_base = 8 : i32, arvCount = array<i32: 96, 0>}
    %sb, %sbs = "test.op"() {kinds = [#cutlass<pipeline_user tma>, #cutlass<pipeline_role producer_consumer>, #cutlass<pipeline_barrier_resource full>, #cutlass<barrier_id epilogue>, #cutlass<pipeline_barrier_type mbarrier>, #cutlass<pipeline_barrier_elide_type full>, #cutlass<make_participants_mode cga>]} : () -> (!cutlass.seq_bar<depth = 2, length = 3>, !cutlass.seq_bar_state<2>)
    func.return
  }
}
