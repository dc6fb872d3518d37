"""The arrive counts of a ``cutlass.pipeline.init``: pure facts of the IR, read by the
``pipeline.init`` verifier (a present ``arvCount`` must equal the derivation), by the
``cutlass-stamp-arrive-counts`` pass that stamps them, by ``convert-pipeline-to-nvvm`` and by
the model checker (:mod:`tileorch.analysis.extract`).

The formula (docs/dialect-conventions.md §5):

* mbarrier pipelines: FULL = sum(producer_arv_count), default 1 per producer (an elected
  leader).  EMPTY = sum(consumer_arv_count) if given; otherwise per consumer group c with
  T(c) threads: T(c) on a 1-CTA cluster or for a ``scope = cta`` pipeline (every consumer
  thread arrives, locally), else N * ceil(T(c) / 128) with N the CTAs of the pipeline's
  multicast set (``row``: cy, ``col``: cx, ``row_col``: cx + cy - 1 for cz = 1; CUTLASS
  ``PipelineTmaAsync``: one arrival per consumer warp group from every CTA that receives this
  CTA's loads).
* named-barrier pipelines: FULL = EMPTY = all producer plus consumer threads (the thread
  count of ``bar.sync`` / ``bar.arrive``).
* An elided barrier's count is 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.ir import Operation

from tileorch.dialects.cutlass.attrs import (THREADS_PER_UNIT, MulticastDirection, PipelineBarrierElideType,
                                             PipelineBarrierType)

WARPGROUP_THREADS = 128


def multicast_peers(rank: int, cluster: Sequence[int], direction: MulticastDirection) -> tuple[int, ...]:
    """Ranks of the cluster CTAs that a multicast of CTA ``rank`` in ``direction`` reaches (itself
    included): ``row`` = the same x (``rank % cx``), ``col`` = the same ``rank // cx`` (y; and z),
    ``row_col`` = either (CUTLASS ``is_same_row_or_col``; rank = x + y * cx).  The relation is
    symmetric, so these are also the CTAs whose multicasts reach ``rank``."""
    cx = cluster[0]
    size = math.prod(cluster)
    row = {d for d in range(size) if d % cx == rank % cx}
    col = {d for d in range(size) if d // cx == rank // cx}
    peers = row if direction is MulticastDirection.ROW else col if direction is MulticastDirection.COL else row | col
    return tuple(sorted(peers))


def multicast_peer_count(cluster: Sequence[int], direction: MulticastDirection) -> int:
    """CTAs in every CTA's multicast set (the same for every rank)."""
    return len(multicast_peers(0, cluster, direction))


def cluster_release_arrivals(threads: int) -> int:
    """Arrivals one consumer group of ``threads`` threads sends to the empty barrier of each CTA
    in its cluster row and column per release (one per warp group)."""
    return -(-threads // WARPGROUP_THREADS)


def derive_arrive_counts(init: Operation, cluster: tuple[int, int, int]) -> tuple[int, int]:
    """(FULL, EMPTY) per-stage arrive counts of a verified ``cutlass.pipeline.init`` (read through
    its accessors: ``pipeline.py`` imports this module, so it names no class of it)."""
    pipe = init.pipeline_type()
    unit = THREADS_PER_UNIT[init.executor_type()]
    producer_threads = [m.bit_count() * unit for m in init.producer_masks()]
    consumer_threads = [m.bit_count() * unit for m in init.consumer_masks()]
    if pipe.barrier is PipelineBarrierType.NAMED_BARRIER:
        full = empty = sum(producer_threads) + sum(consumer_threads)
    else:
        full = sum(init.producer_arrive_counts() or [1] * pipe.producers)
        given = init.consumer_arrive_counts()
        if given is not None:
            empty = sum(given)
        elif math.prod(cluster) == 1 or init.is_cta_scoped():
            empty = sum(consumer_threads)
        else:
            peers = multicast_peer_count(cluster, init.multicast_direction())
            empty = sum(peers * cluster_release_arrivals(t) for t in consumer_threads)
    if pipe.elide is PipelineBarrierElideType.FULL:
        full = 0
    if pipe.elide is PipelineBarrierElideType.EMPTY:
        empty = 0
    return full, empty
