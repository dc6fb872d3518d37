"""Consumer side: wait (parity spin on ``full[index]``), try_wait and release (arrive on
``empty[index]``, remote arrives to the same-row/column CTAs of a cluster)."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects import nvvm
from tileorch.dialects.cutlass.pipeline_facts import (RETIRED_ATTR, PipelineInfo, cluster_shape, pipeline_info,
                                                      release_sync_id)
from tileorch.transforms.arrive_counts import check_cluster_consumer_counts
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering, OptionsLowering
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.groups import consumer_arrivers_local, group_range
from tileorch.transforms.pipeline_to_nvvm.options import LoweringOptions
from tileorch.transforms.pipeline_to_nvvm.producer import StageSignalLowering, named_barrier_id
from tileorch.transforms.pipeline_to_nvvm.sync import (empty_barrier, full_barrier, in_thread_range, local_arrive,
                                                       parity_wait, remote_arrive, same_row_or_col)
from tileorch.transforms.pipeline_to_nvvm.timeout import pipeline_site


class PipelineConsumerWaitOpLowering(OptionsLowering):
    """Spin until ``full[index]`` completed the phase of parity ``state.phase`` (skipped when
    the ``token`` says a preceding try_wait succeeded); named barriers ``bar.sync``."""

    OP = "cutlass.pipeline.consumer_wait"

    def lower(self, op: Operation, e: Emitter):
        info = pipeline_info(op, op.operands[0])  # an elided full barrier: the verifier's error (check_not_elided)
        base = self.operand(e, op.operands[0])
        index, phase, _ = e.unpack_state(self.operand(e, op.operands[1]))
        token = op.operands[2] if len(op.operands) > 2 else None

        def wait(inner: Emitter) -> None:
            if info.named:
                barrier = named_barrier_id(inner, info.full_id(), index)
                inner.add_op(nvvm.BarrierOp(barrier, inner.const(info.full_count)))
            else:
                parity_wait(inner, full_barrier(inner, base, index), phase, self.options,
                            pipeline_site(info, "full", index, phase))

        if token is None:
            wait(e)
        else:
            e.if_(e.xor(token, e.true()), wait)
        return None


class PipelineConsumerTryWaitLowering(OpLowering):
    """One non-blocking probe of ``full[index]`` (true when ``skip_wait`` is set)."""

    OP = "cutlass.pipeline.consumer_try_wait"

    def lower(self, op: Operation, e: Emitter):
        info = pipeline_info(op, op.operands[0])
        if info.named:
            raise LocatedError(op, "consumer_try_wait cannot probe a named-barrier pipeline")
        base = self.operand(e, op.operands[0])
        index, phase, _ = e.unpack_state(self.operand(e, op.operands[1]))
        ready = e.emit(nvvm.MBarrierTryWaitOp(full_barrier(e, base, index), e.and_(phase, e.const(1))))
        if len(op.operands) > 2:
            ready = e.or_(ready, op.operands[2])
        return [ready]


WARP = 32
ALL_LANES = 0xFFFFFFFF
def emit_group_sync(e: Emitter, op: Operation, info: PipelineInfo, group: int, first: int, threads: int,
                    in_group: SSAValue) -> None:
    """Every thread of consumer group ``group`` finishes its reads of the stage before any of its
    signalling threads arrives: ``bar.warp.sync`` for a one-warp group, else ``bar.sync id,
    threads`` on the group's own named barrier (the group's warps take the branch uniformly)."""
    if first % WARP:
        raise LocatedError(op, f"consumer group {group} starts at thread {first}, not on a warp boundary: "
                               "the cluster release synchronises whole warps")
    if threads == WARP:
        e.if_(in_group, lambda inner: inner.add_op(nvvm.BarWarpSyncOp(inner.const(ALL_LANES))))
        return
    barrier = release_sync_id(op, info, group)
    e.if_(in_group, lambda inner: inner.add_op(nvvm.BarrierOp(inner.const(barrier), inner.const(threads))))


def emit_cluster_release(e: Emitter, op: Operation, info: PipelineInfo, addr: SSAValue, tid: SSAValue) -> None:
    """CUTLASS PipelineTmaAsync consumer_release for cluster > 1: each consumer warpgroup sends
    exactly one arrive to every CTA of the pipeline's multicast set (``row_col``: the CTAs
    sharing its cluster row or column, so empty count = (cx + cy - 1) per warpgroup; ``row`` /
    ``col``: only those sharing its x / its y).  Signalling threads: lanes 0, 8, 16, 24 of each warp, target
    rank ((warp ^ col) << 2) | col with col = (tid_in_wg / 8) % 4; a single-warp group uses its
    even lanes with target lane / 2.  Those few threads arrive for the whole group, so the group
    is synchronised first (:func:`emit_group_sync`)."""
    cx, cy, cz = cluster_shape(op)
    size = cx * cy * cz
    rank = e.sreg("cluster.ctarank")
    for c, mask in enumerate(info.consumer_masks):
        first, end = group_range(op, info, mask)
        threads = end - first
        in_group = in_thread_range(e, tid, first, threads)
        local = e.sub(tid, e.const(first))
        if threads % 128 == 0:
            in_wg = e.urem(local, e.const(128))
            warp = e.urem(e.udiv(in_wg, e.const(32)), e.const(4))
            col = e.urem(e.udiv(in_wg, e.const(8)), e.const(4))
            dst = e.or_(e.shl(e.xor(warp, col), e.const(2)), col)
            signals = e.icmp("eq", e.urem(in_wg, e.const(8)), e.const(0))
        elif threads == WARP:
            dst = e.udiv(local, e.const(2))
            signals = e.icmp("eq", e.urem(local, e.const(2)), e.const(0))
        else:
            raise LocatedError(op, f"a consumer group of {threads} threads cannot release a cluster pipeline (needs 32 or a multiple of 128)")
        if RETIRED_ATTR not in op.attributes:
            emit_group_sync(e, op, info, c, first, threads, in_group)
        signals = e.and_(e.and_(in_group, signals), e.icmp("ult", dst, e.const(size)))
        signals = e.and_(signals, same_row_or_col(e, dst, rank, cx, info.multicast))
        e.if_(signals, lambda inner, d=dst: remote_arrive(inner, addr, d))


def async_refilled(op: Operation, info: PipelineInfo) -> bool:
    """Does the producer refill this pipeline's stages through the async proxy (bulk / TMA
    copies), i.e. does some commit expect transaction bytes?"""
    if any(info.transaction_size):
        return True
    func = op.parent_op()
    while func is not None and func.name != "func.func":
        func = func.parent_op()
    for other in (func.walk() if func is not None else ()):
        if other.name in ("cutlass.pipeline.producer_commit", "cutlass.pipeline.produce"):
            nbytes = other.properties.get("transaction_bytes")
            if nbytes is not None and nbytes.value.data > 0 and \
                    pipeline_info(other, other.operands[0]).init is info.init:
                return True
    return False


def emit_proxy_fence(e: Emitter, op: Operation, info: PipelineInfo) -> None:
    """``fence.proxy.async.shared::cta`` before a release of a stage the producer refills with
    async-proxy writes (TMA / bulk copies): the consumer's generic-proxy accesses of the stage
    must be ordered before those writes, and the mbarrier handshake alone does not order
    accesses of different proxies.  Skipped for ``cutlass.reads_retired`` releases: their reads
    were WGMMA operand fetches (async proxy), already retired by ``wgmma.wait_group``."""
    if RETIRED_ATTR in op.attributes or not async_refilled(op, info):
        return
    e.add_op(nvvm.FenceProxyOp(nvvm.ProxyKind.ASYNC_SHARED, nvvm.SharedSpace.CTA))


class PipelineConsumerReleaseOpLowering(StageSignalLowering):
    """Arrive on ``empty[index]``: every consumer thread (or the first ``consumer_arv_count``)
    for a single-CTA cluster or a ``scope = cta`` pipeline (local arrivals only); for larger
    clusters (where ``consumer_arv_count`` is an error: the
    releases must reach the peer CTAs) a sync of each consumer group, then the CUTLASS row/column
    spread of remote arrives; ``bar.arrive`` on the stage's empty named
    barrier for named-barrier pipelines."""

    OP = "cutlass.pipeline.consumer_release"
    SIDE = "empty"

    def signal(self, op: Operation, e: Emitter, info: PipelineInfo, base: SSAValue, index: SSAValue) -> None:
        emit_proxy_fence(e, op, info)
        addr = empty_barrier(e, base, info.stages, index)
        tid = e.thread_id(op)
        cluster = cluster_shape(op)
        if info.cluster_multicast:
            check_cluster_consumer_counts(info.init, cluster)
            emit_cluster_release(e, op, info, addr, tid)
        else:
            e.if_(consumer_arrivers_local(e, op, info, tid), lambda inner: local_arrive(inner, addr))


def patterns(options: LoweringOptions) -> list[OpLowering]:
    return [
        PipelineConsumerWaitOpLowering(options),
        PipelineConsumerTryWaitLowering(),
        PipelineConsumerReleaseOpLowering(),
    ]
