"""``consumer_idx``: which consumer group of a pipeline a consumer-side op or region serves.

Seed 002 ("Pipeline Lowering") hands ``op.consumer_idx`` of a cutlass consumer wait to the TileAS
consumer it becomes (``replace_with_consumer_wait(as_pipeline, op.stage, op.consumer_idx)``).  In
tileorch the index is

* optional on ``cutlass.pipeline.consumer_wait`` (explicit, as in the seed's op),
* optional on ``nv_tileas.async.pipeline.consumer`` (the consumer stage region), where
  ``lower-cutlass-pipeline-to-tileas`` sets it from the wait's ``consumer_idx`` or, without one,
  from the only consumer group whose threads the region's executor runs.

Verifier rules (both ops):

1. ``0 <= consumer_idx < number of consumers`` of the pipeline (the ``!cutlass.pipeline`` type's
   consumer count, or ``num_consumers`` of a tile-level ``create_pipeline``), with tileiras's
   diagnostic "expected 'consumer_idx' less than the number of consumer N, got I";
2. when the enclosing executor set is known (``cutlass.async.exec`` / ``switch_by_executor`` arm),
   it must overlap the threads of consumer group ``consumer_idx`` of the pipeline's
   ``cutlass.pipeline.init``;
3. a consumer region and a ``consumer_wait`` inside it that both carry ``consumer_idx`` agree
   (tileiras's token rule: "expected 'consumer_idx' in ... to be the same as 'consumer_idx'
   attribute of this operation").
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.cutlass import executors

CONSUMER_WAIT = "cutlass.pipeline.consumer_wait"


def index_of(op: Operation) -> int | None:
    attr = op.properties.get("consumer_idx")
    if attr is None:
        attr = op.attributes.get("consumer_idx")
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def cutlass_pipeline_of(value: SSAValue) -> SSAValue | None:
    """The ``!cutlass.pipeline`` value behind ``value`` (itself, or the storage of the TileAS
    ``create_pipeline`` that produced it)."""
    if getattr(value.type, "name", None) == "cutlass.pipeline":
        return value
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "nv_tileas.async.pipeline.create_pipeline" and owner.operands:
        storage = owner.operands[0]
        if getattr(storage.type, "name", None) == "cutlass.pipeline":
            return storage
    return None


def num_consumers(value: SSAValue) -> int | None:
    """Consumer count of the pipeline behind ``value``, when it can be seen."""
    storage = cutlass_pipeline_of(value)
    if storage is not None:
        return storage.type.consumers  # type: ignore[attr-defined]
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "nv_tileas.async.pipeline.create_pipeline":
        n = owner.properties.get("num_consumers")
        return n.value.data if isinstance(n, IntegerAttr) else 1
    return None


GroupThreads = Callable[[SSAValue], "list[int] | None"]
"""The thread bit set of each consumer group of a pipeline value, when it can be seen
(:func:`tileorch.dialects.cutlass.pipeline.consumer_group_threads`: the caller passes it in, so
this module, which the pipeline ops' verifiers call, imports none of them)."""


def derive(op: Operation, pipeline: SSAValue, group_threads: GroupThreads) -> int | None:
    """The consumer group of ``pipeline`` that ``op`` serves: 0 for a single consumer group, else
    the only group whose threads overlap ``op``'s enclosing executor set; None when ambiguous."""
    if num_consumers(pipeline) == 1:
        return 0
    groups = group_threads(pipeline)
    enclosing = executors.enclosing_set(op)
    if groups is None or enclosing is None:
        return None
    hits = [c for c, threads in enumerate(groups) if threads & enclosing[0]]
    return hits[0] if len(hits) == 1 else None


def verify(op: Operation, pipeline: SSAValue, group_threads: GroupThreads) -> None:
    """Rules 1-3 of the module docstring for ``op`` (a consumer wait or consumer region)."""
    idx = index_of(op)
    if idx is None:
        return
    if idx < 0:
        raise VerifyException(f"expected 'consumer_idx' to be non-negative, got {idx}")
    n = num_consumers(pipeline)
    if n is not None and idx >= n:
        raise VerifyException(f"expected 'consumer_idx' less than the number of consumer {n}, got {idx}")
    groups = group_threads(pipeline)
    enclosing = executors.enclosing_set(op)
    if groups is not None and enclosing is not None and idx < len(groups):
        threads, where, _ = enclosing
        if not threads & groups[idx]:
            raise VerifyException(
                f"consumer_idx = {idx} names consumer group {idx} of the pipeline "
                f"({executors.thread_range_text(groups[idx])}), but {where} runs "
                f"{executors.thread_range_text(threads)}"
            )
    if op.name != CONSUMER_WAIT and op.regions and op.regions[0].blocks:
        for inner in op.regions[0].block.ops:
            inner_idx = index_of(inner) if inner.name == CONSUMER_WAIT else None
            if inner_idx is not None and inner_idx != idx:
                raise VerifyException(
                    f"expected 'consumer_idx' in {CONSUMER_WAIT} to be the same as 'consumer_idx' "
                    f"attribute of this operation ({inner_idx} vs {idx})"
                )
