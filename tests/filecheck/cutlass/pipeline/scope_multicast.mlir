// CTA-scoped pipelines and per-load multicast masks (issue 10, item 5): custom and generic forms
// round-trip, and cutlass-stamp-arrive-counts derives the empty-barrier count from the scope and
// from the union of the pipeline's multicast directions (docs/dialect-conventions.md §5).
// RUN: TILEORCH_CUSTOM_ROUNDTRIP
// RUN: TILEORCH_ROUNDTRIP
// RUN: tileorch-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: tileorch-opt %s --split-input-file -p cutlass-allocate-barrier-ids,cutlass-stamp-arrive-counts | filecheck %s --check-prefix=COUNT

// A CTA-local pipeline (CUTLASS PipelineAsync) in a 2x2 cluster: the empty barrier counts the 128
// local consumer threads (not (2 + 2 - 1) warp-group arrivals), explicit consumer_arv_count is
// allowed, and the release needs no group-sync named barrier (no barrier_id_base is allocated).
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @cta_local() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    %q = cutlass.pipeline.create : !cutlass.pipeline<stages = 3, producers = 1, consumers = 2, elide = full, scope = cta>
    %t = cutlass.pipeline.init %q {numStages = 3 : i32, participants = array<i64: 1>, consumers = array<i64: 2, 12>, consumer_arv_count = array<i32: 1, 3>}
    func.return
  }
}
// CHECK-LABEL: func.func @cta_local
// CHECK:       cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
// CHECK:       cutlass.pipeline.create : !cutlass.pipeline<stages = 3, producers = 1, consumers = 2, elide = full, scope = cta>
// GENERIC:     "cutlass.pipeline.create"() : () -> !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
// COUNT-LABEL: func.func @cta_local
// COUNT:       cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>, arvCount = array<i32: 1, 128>}
// COUNT:       cutlass.pipeline.init %q {{{.*}}consumer_arv_count = array<i32: 1, 3>, arvCount = array<i32: 0, 4>}

// -----

// Explicit scope = cluster is the default (printed without it) and keeps today's counts.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @cluster_default() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cluster>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    func.return
  }
}
// CHECK-LABEL: func.func @cluster_default
// CHECK:       cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
// COUNT-LABEL: func.func @cluster_default
// COUNT:       barrier_id_base = 8 : i32, arvCount = array<i32: 1, 3>}

// -----

// Per-load masks on a 4x2 cluster (cx = 4 along M, cy = 2 along N): the A load is multicast to
// the CTAs of this CTA's row (same x: cy = 2 CTAs), the B load to its column (same y: cx = 4
// CTAs); the empty barrier counts the union: 4 + 2 - 1 = 5 arrivals per consumer warp group.
builtin.module attributes {cutlass.cluster_shape = array<i32: 4, 2, 1>} {
  func.func @row_and_col() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    %ma = cutlass.pipeline.get_producer_mask %r row
    %mb = cutlass.pipeline.get_producer_mask %r col
    %mall = cutlass.pipeline.get_producer_mask %r
    func.return
  }
}
// CHECK-LABEL: func.func @row_and_col
// CHECK:       %ma = cutlass.pipeline.get_producer_mask %r row
// CHECK-NEXT:  %mb = cutlass.pipeline.get_producer_mask %r col
// CHECK-NEXT:  %mall = cutlass.pipeline.get_producer_mask %r
// GENERIC:     "cutlass.pipeline.get_producer_mask"(%{{.*}}) <{direction = #cutlass<multicast_direction row>}> : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1>) -> i16
// GENERIC:     "cutlass.pipeline.get_producer_mask"(%{{.*}}) <{direction = #cutlass<multicast_direction col>}>
// GENERIC:     "cutlass.pipeline.get_producer_mask"(%{{.*}}) : (!cutlass.pipeline<stages = 2, producers = 1, consumers = 1>) -> i16
// COUNT-LABEL: func.func @row_and_col
// COUNT:       arvCount = array<i32: 1, 5>}

// -----

// Only A is multicast (along the row: 2 CTAs of a 4x2 cluster): 2 arrivals per warp group.
builtin.module attributes {cutlass.cluster_shape = array<i32: 4, 2, 1>} {
  func.func @row_only() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>}
    %ma = cutlass.pipeline.get_producer_mask %r row
    func.return
  }
}
// COUNT-LABEL: func.func @row_only
// COUNT:       arvCount = array<i32: 1, 2>}

// -----

// Only B is multicast (along the column: 4 CTAs); two consumer warp groups: 2 x 4 = 8.
builtin.module attributes {cutlass.cluster_shape = array<i32: 4, 2, 1>} {
  func.func @col_only() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 2>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2, 4>}
    %mb = cutlass.pipeline.get_producer_mask %r col
    func.return
  }
}
// COUNT-LABEL: func.func @col_only
// COUNT:       arvCount = array<i32: 1, 8>}

// -----

// A declared multicast set wins over the derivation (here wider than the row-only loads: safe,
// over-synchronised); a plain get_producer_mask then means that set.
builtin.module attributes {cutlass.cluster_shape = array<i32: 4, 2, 1>} {
  func.func @declared() {
    %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %p {numStages = 2 : i32, executor = #cutlass<executor_type warpgroup>, participants = array<i64: 1>, consumers = array<i64: 2>, multicast = #cutlass<multicast_direction col>}
    %m = cutlass.pipeline.get_producer_mask %r
    func.return
  }
}
// CHECK-LABEL: func.func @declared
// CHECK:       multicast = #cutlass<multicast_direction col>
// COUNT-LABEL: func.func @declared
// COUNT:       arvCount = array<i32: 1, 4>}
