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
