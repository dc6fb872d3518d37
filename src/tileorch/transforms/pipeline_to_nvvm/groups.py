"""Which threads of a pipeline's producer / consumer groups arrive on its barriers.

The stamped arrive counts (``arvCount``) are sums of per-group counts; every selected thread
arrives once, so a group must have at least as many threads as its count (else the barrier
could never complete: a located error, not a hang).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects.cutlass.pipeline_facts import PipelineInfo
from tileorch.transforms.pipeline_to_nvvm.context import thread_range_of_mask
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.sync import any_of, in_thread_range


def group_range(op: Operation, info: PipelineInfo, mask: int) -> tuple[int, int]:
    """[first, end) threads of one group; groups are contiguous runs of executor units."""
    ranges = thread_range_of_mask(mask, info.unit_threads)
    if len(ranges) != 1:
        raise LocatedError(op, f"pipeline group mask {mask:#x} is not one contiguous run of executor units")
    return ranges[0]


def arriving_threads(op: Operation, role: str, group: int, count: int, first: int, end: int) -> int:
    """``count`` (the group's per-phase arrivals), checked against the group's thread count."""
    if count > end - first:
        raise LocatedError(
            op,
            f"{role} group {group} has {end - first} threads but its arrive count is {count}: each "
            f"thread arrives once per phase, so the barrier could never complete",
        )
    return count


def producer_arrivers(e: Emitter, op: Operation, info: PipelineInfo, tid: SSAValue) -> SSAValue:
    """i1: this thread is one of the first ``producer_arv_count[p]`` threads of its producer group
    (default 1: the group's first thread is the elected leader)."""
    preds = []
    for p, (mask, count) in enumerate(zip(info.producer_masks, info.producer_arv, strict=True)):
        first, end = group_range(op, info, mask)
        preds.append(in_thread_range(e, tid, first, arriving_threads(op, "producer", p, count, first, end)))
    return any_of(e, preds)


def consumer_arrivers_local(e: Emitter, op: Operation, info: PipelineInfo, tid: SSAValue) -> SSAValue:
    """i1 (cluster of one CTA): the first ``consumer_arv_count[c]`` threads of consumer group c,
    all of its threads by default (CUTLASS: every consumer thread arrives on empty[idx])."""
    preds = []
    for c, mask in enumerate(info.consumer_masks):
        first, end = group_range(op, info, mask)
        count = info.consumer_arv[c] if info.consumer_arv else end - first
        preds.append(in_thread_range(e, tid, first, arriving_threads(op, "consumer", c, count, first, end)))
    return any_of(e, preds)
