"""Named-barrier id allocation: deterministic, first fit from the reserved boundary, located exhaustion."""

from __future__ import annotations

import pytest

from tileorch.diagnostics import LocatedError, parse_module
from tileorch.dialects.cutlass.attrs import RESERVED_BARRIER_IDS
from tileorch.registry import make_context
from tileorch.transforms.barrier_ids import AllocateBarrierIds


def _named(name: str, stages: int, base: int | None = None, elide: str = "") -> str:
    extra = f", elide = {elide}" if elide else ""
    base_attr = f", barrier_id_base = {base} : i32" if base is not None else ""
    return (
        f"  %{name} = cutlass.pipeline.create : !cutlass.pipeline<stages = {stages}, producers = 1, consumers = 1, "
        f"barrier = named_barrier{extra}>\n"
        f"  %r{name} = cutlass.pipeline.init %{name} {{numStages = {stages} : i32, participants = array<i64: 1>, "
        f"consumers = array<i64: 2>{base_attr}}}\n"
    )


def _kernel(body: str) -> str:
    return "func.func @k() {\n" + body + "  func.return\n}\n"


def _bases(text: str, pool_size: int = 16) -> list[int | None]:
    module = parse_module(make_context(), text, "ids.mlir")
    AllocateBarrierIds(pool_size=pool_size).apply(make_context(), module)
    inits = [op for op in module.walk() if op.name == "cutlass.pipeline.init"]
    return [op.barrier_id_base.value.data if op.barrier_id_base is not None else None for op in inits]


def test_first_fit_in_declaration_order_skips_explicit_claims():
    # a: 1 stage x 2 barriers; b: explicit 10..11; c: 2 stages x 1 barrier (empty elided); d: 1 stage x 2
    text = _kernel(_named("a", 1) + _named("b", 1, base=10) + _named("c", 2, elide="empty") + _named("d", 1))
    assert RESERVED_BARRIER_IDS == 8
    assert _bases(text) == [8, 10, 12, 14]


def test_allocation_is_deterministic():
    text = _kernel(_named("a", 2) + _named("b", 1) + _named("c", 1, elide="full"))
    first, second = _bases(text), _bases(text)
    assert first == second == [8, 12, 14]


def test_each_kernel_has_its_own_pool():
    text = _kernel(_named("a", 2)) + _kernel(_named("b", 2)).replace("@k", "@k2")
    assert _bases(text) == [8, 8]


def test_exhaustion_is_a_located_error():
    text = _kernel(_named("a", 3) + _named("b", 1))  # 6 ids (8..13), then 2 more fit exactly (14..15)
    assert _bases(text) == [8, 14]
    text = _kernel(_named("a", 3) + _named("b", 2))  # b (line 5) needs 4 but only 14, 15 are free
    with pytest.raises(LocatedError) as info:
        _bases(text)
    assert str(info.value).startswith("ids.mlir:5:3: error: cutlass.pipeline.init: named-barrier pool exhausted")
    assert "needs 4 consecutive ids in [8, 16), free ids: 14, 15" in str(info.value)


def test_bad_pool_size_is_reported():
    # PTX bar.sync has 16 hardware ids: a pool past them would hand out ids no one rejects
    for size in (17, 32, 8):
        with pytest.raises(LocatedError, match=f"pool_size must be in \\(8, 16\\] .*found {size}"):
            _bases(_kernel(_named("a", 1)), pool_size=size)
    assert _bases(_kernel(_named("a", 1)), pool_size=12) == [8]


def test_lowering_pipeline_allocates_ids_before_stamping_counts():
    from tileorch.backend.pipeline import PIPELINE, make_passes, run_passes

    text = _kernel(_named("a", 2))
    module = parse_module(make_context(), text, "ids.mlir")
    cutlass_passes = PIPELINE[: PIPELINE.index("cutlass-stamp-arrive-counts") + 1]
    run_passes(make_context(), module, make_passes(cutlass_passes))
    (init,) = [op for op in module.walk() if op.name == "cutlass.pipeline.init"]
    assert init.barrier_id_base.value.data == RESERVED_BARRIER_IDS
    assert init.arrive_counts() == (64, 64)  # named barrier: 32 producer + 32 consumer threads


def _cluster_mbarrier(name: str, consumers: str, extra: str = "", elide: str = "") -> str:
    elide_param = f", elide = {elide}" if elide else ""
    groups = len(consumers.split(","))
    return (
        f"  %{name} = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = {groups}"
        f"{elide_param}>\n"
        f"  %r{name} = cutlass.pipeline.init %{name} {{numStages = 4 : i32, participants = array<i64: 1>, "
        f"consumers = array<i64: {consumers}>{extra}}}\n"
    )


def _in_cluster(body: str, cluster: str = "1, 2, 1") -> str:
    return f"builtin.module attributes {{cutlass.cluster_shape = array<i32: {cluster}>}} {{\n{_kernel(body)}}}\n"


def _claims(text: str) -> list[int]:
    module = parse_module(make_context(), text, "ids.mlir")
    return [op.num_named_barriers() for op in module.walk() if op.name == "cutlass.pipeline.init"]


def test_cluster_release_claims_one_id_per_multi_warp_consumer_group():
    # warps 1-4 and 5-8 (128 threads each) sync on their own ids at release; warp 9 uses bar.warp.sync
    groups = "0x1e, 0x1e0, 0x200"
    assert _claims(_in_cluster(_cluster_mbarrier("a", groups))) == [2]
    # first fit: the cluster pipeline takes 8..9, the named pipeline after it 10..11
    assert _bases(_in_cluster(_cluster_mbarrier("a", groups) + _named("b", 1))) == [8, 10]


def test_release_without_proxy_arrivals_claims_no_id():
    groups = "0x1e"
    assert _claims(_in_cluster(_cluster_mbarrier("a", groups), "1, 1, 1")) == [0]  # every thread arrives
    assert _claims(_kernel(_cluster_mbarrier("a", groups))) == [0]  # no cluster_shape: one CTA
    explicit = ", consumer_arv_count = array<i32: 3>"  # the program says who arrives
    assert _claims(_in_cluster(_cluster_mbarrier("a", groups, explicit))) == [0]
    assert _claims(_in_cluster(_cluster_mbarrier("a", groups, elide="empty"))) == [0]  # no release
    assert _claims(_in_cluster(_cluster_mbarrier("a", "0x2"))) == [0]  # one warp: bar.warp.sync


def _named_sync(barrier_id: int, op: str = "arrive_and_wait") -> str:
    return f"  cutlass.named_barrier.{op} barrier_id = {barrier_id} num_threads = 256\n"


def _kernel_with_lock(body: str, name: str = "k") -> str:
    return f"func.func @{name}(%lock : !llvm.ptr<1>, %dyn : i32) {{\n" + body + "  func.return\n}\n"


# ids that user code names directly: a static named barrier, a constant operand, a generic barrier
_USER_IDS_8_9_10 = (
    _named_sync(8)
    + "  %c10 = arith.constant 10 : i32\n"
    + "  cutlass.named_barrier.arrive %c10 num_threads = 64\n"
    + "  %flag = arith.constant 0 : i32\n"
    + "  cutlass.generic_barrier.arrive_increment %lock[%flag] sync = named_barrier barrier_id = 9 "
    "num_threads = 128 : !llvm.ptr<1>\n"
)


def test_allocator_skips_ids_used_directly_in_the_same_kernel():
    # a needs 2 consecutive ids: 8, 9 and 10 are bar.sync/bar.arrive ids of the kernel -> 11..12;
    # the second kernel is another CTA's id space: 8 is free there
    text = _kernel_with_lock(_named("a", 1) + _USER_IDS_8_9_10) + _kernel_with_lock(_named("b", 1), "k2")
    assert _bases(text) == [11, 8]


def test_non_constant_ids_are_not_seen():
    # a runtime id cannot be checked statically: the pool stays as if it were absent
    text = _kernel_with_lock("  cutlass.named_barrier.arrive_and_wait %dyn num_threads = 64\n" + _named("a", 1))
    assert _bases(text) == [8]


def test_direct_use_inside_an_explicit_range_is_a_located_error():
    # b holds 10..11 (1 stage x full + empty); bar.sync 11 on line 6 would alias b's empty barrier
    text = _kernel(_named("a", 1) + _named("b", 1, base=10) + _named_sync(11))
    with pytest.raises(LocatedError) as info:
        _bases(text)
    assert str(info.value) == (
        "ids.mlir:6:3: error: cutlass.named_barrier.arrive_and_wait: named barrier 11 is claimed by "
        "cutlass.pipeline.init of %b (ids 10..11, at ids.mlir:5:3); use an id that no pipeline or "
        "seq_bar claims, or move that op's barrier_id_base"
    )


def test_generic_barrier_inside_an_explicit_seq_bar_range_is_a_located_error():
    body = (
        "  %s = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 1>\n"
        "  %rs = cutlass.seq_bar.init %s group_size(128) barrier(named_barrier) barrier_id_base(12)\n"
        "  %flag = arith.constant 0 : i32\n"
        "  cutlass.generic_barrier.wait_eq %lock[%flag] sync = named_barrier barrier_id = 13 "
        "num_threads = 128 : !llvm.ptr<1>\n"
    )
    with pytest.raises(LocatedError) as info:
        _bases(_kernel_with_lock(body))
    assert str(info.value).startswith(
        "ids.mlir:5:3: error: cutlass.generic_barrier.wait_eq: named barrier 13 is claimed by "
        "cutlass.seq_bar.init of %s (ids 12..13, at ids.mlir:3:3)"
    )


def test_overlapping_explicit_ranges_are_a_located_error():
    text = _kernel(_named("a", 2, base=8) + _named("b", 1, base=10))  # a: 8..11, b: 10..11
    with pytest.raises(LocatedError, match=r"^ids\.mlir:5:3: error: cutlass\.pipeline\.init: barrier_id_base = 10 "
                       r"claims named barrier 10, which cutlass\.pipeline\.init of %a \(ids 8\.\.11, at ids\.mlir:3:3\)"):
        _bases(text)


def test_allocation_around_direct_uses_is_deterministic_and_order_independent():
    # the direct use after the pipelines claims its id as much as one before them
    after = _kernel(_named("a", 1) + _named("b", 1) + _named_sync(10))
    before = _kernel(_named_sync(10) + _named("a", 1) + _named("b", 1))
    assert _bases(after) == _bases(after) == _bases(before) == [8, 11]


def test_exhaustion_names_the_directly_used_ids():
    # a: 2 stages x 2 = 8..11; 12 is bar.sync'd directly; b needs 4 consecutive, only 13..15 are free
    text = _kernel(_named_sync(12) + _named("a", 2) + _named("b", 2))
    with pytest.raises(LocatedError) as info:
        _bases(text)
    assert str(info.value).startswith(
        "ids.mlir:6:3: error: cutlass.pipeline.init: named-barrier pool exhausted: needs 4 consecutive ids "
        "in [8, 16), free ids: 13, 14, 15 (used directly by barrier ops: 12); use fewer stages"
    )
