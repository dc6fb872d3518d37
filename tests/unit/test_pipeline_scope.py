"""Pipeline scope and multicast sets (issue 10, item 5): the peer sets behind the derived
empty-barrier counts, the lowered release filter and the checker, against CUTLASS's formulas;
CTA-scoped pipelines built from Python."""

from __future__ import annotations

import itertools

import pytest
from xdsl.dialects.builtin import i32

from tileorch.dialects.cutlass.arrive_counts import multicast_peer_count, multicast_peers
from tileorch.dialects.cutlass.attrs import MulticastDirection, PipelineScope
from tileorch.dialects.cutlass.builder import PipelineProgramBuilder
from tileorch.dialects.cutlass.pipeline import (
    GetProducerMaskOp,
    PipelineInitOp,
    join_directions,
)
from tileorch.dialects.cutlass.types import PipelineType
from tileorch.transforms.arrive_counts import StampArriveCounts

ROW, COL, ROW_COL = MulticastDirection.ROW, MulticastDirection.COL, MulticastDirection.ROW_COL
SHAPES = [(x, y, 1) for x, y in itertools.product((1, 2, 4, 8, 16), repeat=2) if x * y <= 16]


@pytest.mark.parametrize("shape", SHAPES)
def test_peer_sets_match_cutlass(shape):
    cx, cy, _ = shape
    for rank in range(cx * cy):
        x, y = rank % cx, rank // cx
        # CUTLASS: mcast_mask_a = ranks (x, n) for all n; mcast_mask_b = ranks (m, y) for all m;
        # is_same_row_or_col(d, b) = d % cx == b.x or d // cx == b.y
        assert multicast_peers(rank, shape, ROW) == tuple(sorted(x + n * cx for n in range(cy)))
        assert multicast_peers(rank, shape, COL) == tuple(sorted(m + y * cx for m in range(cx)))
        assert multicast_peers(rank, shape, ROW_COL) == tuple(
            d for d in range(cx * cy) if d % cx == x or d // cx == y)
        for direction in (ROW, COL, ROW_COL):
            peers = multicast_peers(rank, shape, direction)
            assert rank in peers
            assert all(rank in multicast_peers(d, shape, direction) for d in peers)  # symmetric
    # the PipelineTmaAsync count: (cx + cy - 1) per consumer warp group
    assert multicast_peer_count(shape, ROW_COL) == cx + cy - 1
    assert multicast_peer_count(shape, ROW) == cy and multicast_peer_count(shape, COL) == cx


def test_join_directions():
    assert join_directions(ROW, ROW) is ROW and join_directions(COL, COL) is COL
    assert join_directions(ROW, COL) is ROW_COL and join_directions(ROW_COL, ROW) is ROW_COL


def _stamped(scope: str, cluster, directions=()):
    b = PipelineProgramBuilder(cluster_shape=cluster)
    with b.kernel("k", [i32]):
        ready = b.pipeline(stages=2, participants=[0x1], consumers=[0x6], executor="warpgroup", scope=scope)
        for d in directions:
            b.add(GetProducerMaskOp(ready, d))
    StampArriveCounts().apply(None, b.module)
    init = next(op for op in b.module.walk() if isinstance(op, PipelineInitOp))
    return init


def test_builder_cta_scope_counts_local_threads_on_any_cluster():
    init = _stamped("cta", (2, 2, 1))
    assert init.pipeline_type().scope is PipelineScope.CTA
    assert "scope = cta" in str(init.pipeline_type())
    assert init.arrive_counts() == (1, 256)
    assert init.release_sync_groups() == [] and not init.cluster_multicast()


@pytest.mark.parametrize("directions, peers", [((), 5), ((ROW,), 2), ((COL,), 4), ((ROW, COL), 5)])
def test_builder_cluster_counts_follow_the_union_of_load_directions(directions, peers):
    init = _stamped("cluster", (4, 2, 1), directions)
    assert init.arrive_counts() == (1, peers * 2)   # one consumer group of 2 warp groups
    assert PipelineType(2, 1, 1) == PipelineType(2, 1, 1, scope=PipelineScope.CLUSTER)
