// Hand-written warp-specialized TMA mainloops (examples/ws_pipeline.mlir) with one protocol mistake each that
// a CUTLASS user makes and no verifier rule sees (invalid sweep 24): `tileorch check` rejects each with a
// `file:line:col: error:` at the waiting or violating op and exits non-zero.
// RUN: not tileorch check %s --kernel bad_commit_bytes_short --jobs 1 2>&1 | filecheck %s --check-prefix=BYTES
// RUN: not tileorch check %s --kernel bad_init_tx_too_large --jobs 1 2>&1 | filecheck %s --check-prefix=TXSIZE
// RUN: not tileorch check %s --kernel bad_release_twice --jobs 1 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not tileorch check %s --kernel bad_no_commit --jobs 1 2>&1 | filecheck %s --check-prefix=NOCOMMIT

builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>} {
  // bad_commit_bytes_short: the producer commits 2048 transaction bytes for a stage its bulk copy fills with 4096: the full barrier's tx-count goes negative and the phase never completes (the checker reports the landing that overflows it, at the commit).
  func.func @bad_commit_bytes_short(%k_tiles: i32, %smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, transaction_size = array<i32: 4096>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0xff1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          %full = cutlass.pipeline.get_producer_barrier %p, %s
          %leader = nvvm.elect.sync -> i1
          scf.if %leader {
            %bytes = arith.constant 4096 : i32
            %idx = cutlass.pipeline.state.get_index %s
            %data = arith.constant 1024 : i32
            %sidx = arith.muli %idx, %bytes : i32
            %soff = arith.addi %sidx, %data : i32
            %dst = llvm.getelementptr %smem[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %goff = arith.muli %k, %bytes : i32
            %from = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %dst, %from, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          // BYTES-NOT: {{^}}bad_commit_bytes_short: OK
          // BYTES: hand_written_tma_broken.mlir:[[# @LINE + 1]]:11: error: bad_commit_bytes_short: over-arrival [tma->cta0]: ready.full[0]: the copies landed 2048 bytes more than the phase's arrivals expect (tx-count -2048 with no arrival left: the phase never completes); the commit's transaction_bytes (or the init's transaction_size) is smaller than the bytes the stage's copies deliver
          cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 2048 : i32}
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xff0) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          %stage = cutlass.pipeline.state.get_index %s
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
      }
    }
    func.return
  }
  // bad_init_tx_too_large: the init declares 8192 transaction bytes a stage, the commit and its bulk copy 4096: consumers may read a stage before the bytes the init declared have landed.
  func.func @bad_init_tx_too_large(%k_tiles: i32, %smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, transaction_size = array<i32: 8192>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0xff1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          %full = cutlass.pipeline.get_producer_barrier %p, %s
          %leader = nvvm.elect.sync -> i1
          scf.if %leader {
            %bytes = arith.constant 4096 : i32
            %idx = cutlass.pipeline.state.get_index %s
            %data = arith.constant 1024 : i32
            %sidx = arith.muli %idx, %bytes : i32
            %soff = arith.addi %sidx, %data : i32
            %dst = llvm.getelementptr %smem[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %goff = arith.muli %k, %bytes : i32
            %from = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %dst, %from, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 4096 : i32}
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xff0) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          // TXSIZE-NOT: {{^}}bad_init_tx_too_large: OK
          // TXSIZE: hand_written_tma_broken.mlir:[[# @LINE + 1]]:11: error: bad_init_tx_too_large: read-before-commit [consumer1.g0]: acquires ready stage 0 round 0 for reading with 4096 of 8192 bytes landed
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          %stage = cutlass.pipeline.state.get_index %s
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
      }
    }
    func.return
  }
  // bad_release_twice: each consumer releases its stage twice (a copy-pasted release): the second arrival lands in the next phase of the empty barrier.
  func.func @bad_release_twice(%k_tiles: i32, %smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, transaction_size = array<i32: 4096>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0xff1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          %full = cutlass.pipeline.get_producer_barrier %p, %s
          %leader = nvvm.elect.sync -> i1
          scf.if %leader {
            %bytes = arith.constant 4096 : i32
            %idx = cutlass.pipeline.state.get_index %s
            %data = arith.constant 1024 : i32
            %sidx = arith.muli %idx, %bytes : i32
            %soff = arith.addi %sidx, %data : i32
            %dst = llvm.getelementptr %smem[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %goff = arith.muli %k, %bytes : i32
            %from = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %dst, %from, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          cutlass.pipeline.producer_commit %p, %s {transaction_bytes = 4096 : i32}
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xff0) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          %stage = cutlass.pipeline.state.get_index %s
          cutlass.pipeline.consumer_release %q, %s
          // TWICE-NOT: {{^}}bad_release_twice: OK
          // TWICE: hand_written_tma_broken.mlir:[[# @LINE + 1]]:11: error: bad_release_twice: over-arrival [consumer1.g0]: ready.empty[0]: arrival meant for phase 1 landed early in phase 0
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
      }
    }
    func.return
  }
  // bad_no_commit: the producer issues the bulk copy but never commits the stage: consumers wait on a full barrier nothing arms.
  func.func @bad_no_commit(%k_tiles: i32, %smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>
    %ready = cutlass.pipeline.init %pipe {numStages = 4 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0xf0, 0xf00>, transaction_size = array<i32: 4096>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0xff1) {
      cutlass.pipeline.switch_by_executor case masks(0x1) args(%p = %ready) {
        %start = cutlass.pipeline.state.create %p producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          cutlass.pipeline.producer_acquire %p, %s
          %full = cutlass.pipeline.get_producer_barrier %p, %s
          %leader = nvvm.elect.sync -> i1
          scf.if %leader {
            %bytes = arith.constant 4096 : i32
            %idx = cutlass.pipeline.state.get_index %s
            %data = arith.constant 1024 : i32
            %sidx = arith.muli %idx, %bytes : i32
            %soff = arith.addi %sidx, %data : i32
            %dst = llvm.getelementptr %smem[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %goff = arith.muli %k, %bytes : i32
            %from = llvm.getelementptr %src[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            // NOCOMMIT-NOT: {{^}}bad_no_commit: OK
            // NOCOMMIT: hand_written_tma_broken.mlir:[[# @LINE + 1]]:13: error: the checker models a bulk copy issued between the stage's producer_acquire and its producer_commit; no later producer_commit of this state arms the barrier it completes on
            atom.bulk_copy_g2s %dst, %from, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
        cutlass.pipeline.producer_tail %p, %last
      } case masks(0xff0) args(%q = %ready) {
        %start = cutlass.pipeline.state.create %q consumer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<4>) : i32 {
          %ready_now = cutlass.pipeline.consumer_try_wait %q, %s
          cutlass.pipeline.consumer_wait %q, %s token(%ready_now)
          %stage = cutlass.pipeline.state.get_index %s
          cutlass.pipeline.consumer_release %q, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<4>
        }
      }
    }
    func.return
  }
}
