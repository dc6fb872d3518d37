"""``cutlass-stamp-arrive-counts``: the post-verify arrive-count builder.

Stamps ``arvCount = array<i32: FULL, EMPTY>`` (per-stage arrivals that complete the full and
the empty barrier) on every ``cutlass.pipeline.init``, so lowerings read one attribute
instead of re-walking the participant tables.  The derivation itself is a fact of the dialect
(:func:`tileorch.dialects.cutlass.arrive_counts.derive_arrive_counts`, also read by the
``pipeline.init`` verifier; that module's docstring states the formula, docs/dialect-conventions.md §5).
Named-barrier pipelines also need ``barrier_id_base``.

``consumer_arv_count`` on a cluster-scoped pipeline of a multi-CTA cluster is rejected (at the ``pipeline.init``):
explicit counts make ``consumer_release`` arrive only in its own CTA, while producers of the
other CTAs in its row and column multicast into its stages and must wait for its releases.
It runs after ``cutlass-allocate-barrier-ids`` in the lowering
pipeline.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i32
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tileorch.diagnostics import LocatedError
from tileorch.dialects.cutlass.arrive_counts import derive_arrive_counts
from tileorch.dialects.cutlass.attrs import MulticastDirectionAttr, PipelineBarrierElideType, PipelineBarrierType
from tileorch.dialects.cutlass.pipeline import PipelineInitOp, is_cta_scoped


def module_cluster_shape(module: ModuleOp) -> tuple[int, int, int]:
    """The module's ``cutlass.cluster_shape`` (default 1x1x1)."""
    attr = module.attributes.get("cutlass.cluster_shape")
    if attr is None:
        return (1, 1, 1)
    if not isinstance(attr, DenseArrayBase) or len(attr) != 3:
        raise LocatedError(module, f"cutlass.cluster_shape must be array<i32: X, Y, Z>, found {attr}")
    x, y, z = (int(v) for v in attr.get_values())
    return (x, y, z)


def pin_multicast(module: ModuleOp, ops: Iterable[Operation] | None = None) -> None:
    """Write the derived ``multicast`` set onto every cluster-scoped ``cutlass.pipeline.init`` of
    a multi-CTA cluster that does not declare one, so that a lowering which rewrites the
    ``get_producer_mask`` ops it is derived from still reads the same set.  ``ops``: the
    module's ops in walk order when the caller has them (no walk of its own)."""
    for init in module.walk() if ops is None else ops:
        if isinstance(init, PipelineInitOp) and init.multicast is None and init.cluster_multicast():
            init.multicast = MulticastDirectionAttr(init.derived_multicast())


def check_cluster_consumer_counts(init: PipelineInitOp, cluster: tuple[int, int, int]) -> None:
    """Reject explicit ``consumer_arv_count`` on a cluster-scoped mbarrier pipeline of a
    multi-CTA cluster."""
    pipe = init.pipeline_type()
    if (
        init.consumer_arv_count is None
        or math.prod(cluster) == 1
        or is_cta_scoped(pipe)
        or pipe.barrier is PipelineBarrierType.NAMED_BARRIER
        or pipe.elide is PipelineBarrierElideType.EMPTY
    ):
        return
    shape = "x".join(str(v) for v in cluster)
    raise LocatedError(
        init,
        f"cutlass.pipeline.init: consumer_arv_count on a cluster of {math.prod(cluster)} CTAs ({shape}) "
        "would make consumer_release arrive only in its own CTA, but the producers of the other CTAs in "
        "its cluster row and column multicast into its stages and wait for its releases (a stage could "
        "be overwritten while still being read); remove consumer_arv_count (the derived count is "
        "(cx + cy - 1) arrivals per consumer warp group); or, if no CTA multicasts into its stages, "
        "declare the pipeline CTA-local (!cutlass.pipeline<..., scope = cta>)",
    )


@dataclass(frozen=True)
class StampArriveCounts(ModulePass):
    """Stamp derived ``arvCount`` on every ``cutlass.pipeline.init`` (a present stamp that differs
    from the derivation is already a verifier error)."""

    name = "cutlass-stamp-arrive-counts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cluster = module_cluster_shape(op)
        for init in op.walk():
            if not isinstance(init, PipelineInitOp):
                continue
            pipe = init.pipeline_type()
            if pipe.barrier is PipelineBarrierType.NAMED_BARRIER and init.barrier_id_base is None:
                raise LocatedError(
                    init,
                    "cutlass.pipeline.init: a named-barrier pipeline needs barrier_id_base; set it or run "
                    "cutlass-allocate-barrier-ids first",
                )
            check_cluster_consumer_counts(init, cluster)
            full, empty = derive_arrive_counts(init, cluster)
            init.arvCount = DenseArrayBase.from_list(i32, [full, empty])
