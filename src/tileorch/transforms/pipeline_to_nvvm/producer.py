"""Producer side: acquire (four phases), try_acquire, commit (the only expect_tx site) and tail.

``PipelineProducerAcquireOpLowering`` follows the seed's phase structure:

A. operand unpack: state (index, phase, count), barrier base, the optional ``token`` and the
   ``unacquired_state`` first-entry flag (``count < stages``: the producer's first pass over the
   ring, whose empty barriers have never been released);
B. the signal-source mask of the empty barrier, built by one of five strategies chosen from the
   pipeline shape (see :func:`select_mode`); the wait is skipped only for an empty mask;
C. the per-stage barrier operation: the parity wait on ``empty[index]`` (mbarrier pipelines);
D. the named-barrier tail: ``bar.sync`` on the stage's empty named barrier, whose id is
   ``barrier_id_base + stages + index`` (one ``arith.addi`` per id base); skipped on first entry.
"""

from __future__ import annotations

from enum import IntEnum

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects import nvvm
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering
from tileorch.transforms.pipeline_to_nvvm.context import PipelineInfo, cluster_shape, pipeline_info
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.groups import group_range, producer_arrivers
from tileorch.transforms.pipeline_to_nvvm.options import LoweringOptions
from tileorch.transforms.pipeline_to_nvvm.timeout import pipeline_site
from tileorch.transforms.pipeline_to_nvvm.sync import (
    empty_barrier,
    full_barrier,
    in_thread_range,
    local_arrive,
    parity_wait,
    same_row_or_col,
)

MASK_WIDTH = 16  # mask buffers are sized for the worst case (16 stages / consumer groups / CTAs)


class AcquireMode(IntEnum):
    COOPERATIVE_ARRIVAL = 0
    WARP_SPECIALIZED_1X1 = 1
    STRIDED_UREM = 2
    STRIDED_UDIV = 3
    CLUSTER = 4


def select_mode(op: Operation, info: PipelineInfo) -> AcquireMode:
    """cluster > 1 CTA -> CLUSTER; a runtime participants matrix -> COOPERATIVE_ARRIVAL;
    one producer and one consumer -> WARP_SPECIALIZED_1X1; one producer and several consumer
    groups -> STRIDED_UREM; several producers -> STRIDED_UDIV."""
    cx, cy, cz = cluster_shape(op)
    if cx * cy * cz > 1:
        return AcquireMode.CLUSTER
    if len(info.init.operands) > 1:
        return AcquireMode.COOPERATIVE_ARRIVAL
    if info.producers == 1 and info.consumers == 1:
        return AcquireMode.WARP_SPECIALIZED_1X1
    if info.producers == 1:
        return AcquireMode.STRIDED_UREM
    return AcquireMode.STRIDED_UDIV


def emit_signal_mask(e: Emitter, op: Operation, info: PipelineInfo, mode: AcquireMode, index: SSAValue,
                     participants: SSAValue | None) -> SSAValue:
    """Phase B: i32 mask of what signals this stage's empty barrier."""
    zero = e.const(0)
    if mode is AcquireMode.COOPERATIVE_ARRIVAL:
        # bit c: some producer row of the runtime P x C matrix lists consumer group c
        mask = zero
        for p in range(info.producers):
            for c in range(info.consumers):
                cell = e.extract(participants, p * info.consumers + c)
                live = e.icmp("ne", e.and_(cell, e.const(-1)), zero)
                mask = e.or_(mask, e.select(live, e.const(1 << (c % MASK_WIDTH)), zero))
        return mask
    if mode is AcquireMode.WARP_SPECIALIZED_1X1:
        # one-hot of the stage in the 16 mask slots (stage s -> slot s % 16, so a deeper ring
        # never yields an empty mask): an unrolled select/or chain over the stages
        mask = zero
        for s in range(info.stages):
            hit = e.icmp("eq", index, e.const(s))
            mask = e.or_(mask, e.select(hit, e.const(1 << (s % MASK_WIDTH)), zero))
        return mask
    if mode in (AcquireMode.STRIDED_UREM, AcquireMode.STRIDED_UDIV):
        # bit c for each consumer group, walking the P x C cells with a stride
        cells = info.producers * info.consumers

        def body(inner: Emitter, i: SSAValue, carried):
            if mode is AcquireMode.STRIDED_UREM:
                group = inner.urem(i, inner.const(info.consumers))
            else:
                group = inner.udiv(i, inner.const(info.producers))
            bit = inner.shl(inner.const(1), inner.urem(group, inner.const(MASK_WIDTH)))
            return [inner.or_(carried[0], bit)]

        return e.for_(e.const(0), e.const(cells), e.const(1), [zero], body)[0]
    # CLUSTER: the CTAs whose consumers arrive (remotely) on this CTA's empty barrier
    cx, cy, cz = cluster_shape(op)
    rank = e.sreg("cluster.ctarank")
    mask = zero
    for d in range(min(cx * cy * cz, MASK_WIDTH)):
        same = same_row_or_col(e, e.const(d), rank, cx)
        mask = e.or_(mask, e.select(same, e.const(1 << d), zero))
    return mask


def named_barrier_id(e: Emitter, base_id: int, index: SSAValue) -> SSAValue:
    """``base_id + index`` as the seed's trailing ``arith.addi``."""
    return e.emit(arith.AddiOp(e.const(base_id), index))


class PipelineProducerAcquireOpLowering(OpLowering):
    OP = "cutlass.pipeline.producer_acquire"

    def __init__(self, options: LoweringOptions):
        super().__init__()
        self.options = options

    def lower(self, op: Operation, e: Emitter):
        info = pipeline_info(op, op.operands[0])
        # Phase A
        base = self.operand(e, op.operands[0])
        index, phase, count = e.unpack_state(self.operand(e, op.operands[1]))
        token = op.operands[2] if len(op.operands) > 2 else None
        unacquired_state = e.icmp("ult", count, e.const(info.stages))
        participants = self.operand(e, info.init.operands[1]) if len(info.init.operands) > 1 else None
        # Phase B
        mode = select_mode(op, info)
        mask = emit_signal_mask(e, op, info, mode, index, participants)
        must_wait = e.icmp("ne", mask, e.const(0))
        if token is not None:
            must_wait = e.and_(must_wait, e.xor(token, e.true()))
        if not info.named:
            # Phase C
            addr = empty_barrier(e, base, info.stages, index)
            e.if_(must_wait, lambda inner: parity_wait(inner, addr, phase, self.options, pipeline_site(info, "empty", index, phase)))
            return None
        # Phase D
        barrier = named_barrier_id(e, info.empty_id_base, index)
        threads = e.const(info.empty_count)
        must_wait = e.and_(must_wait, e.xor(unacquired_state, e.true()))
        e.if_(must_wait, lambda inner: inner.add_op(nvvm.BarrierOp(barrier, threads)))
        return None


class PipelineProducerTryAcquireLowering(OpLowering):
    """One non-blocking probe of ``empty[index]`` (true when ``skip_wait`` is set); a
    named-barrier pipeline can only promise the first pass (``count < stages``)."""

    OP = "cutlass.pipeline.producer_try_acquire"

    def lower(self, op: Operation, e: Emitter):
        info = pipeline_info(op, op.operands[0])
        base = self.operand(e, op.operands[0])
        index, phase, count = e.unpack_state(self.operand(e, op.operands[1]))
        if info.named:
            ready = e.icmp("ult", count, e.const(info.stages))
        else:
            addr = empty_barrier(e, base, info.stages, index)
            ready = e.emit(nvvm.MBarrierTryWaitOp(addr, e.and_(phase, e.const(1))))
        if len(op.operands) > 2:
            ready = e.or_(ready, op.operands[2])
        return [ready]


class PipelineProducerCommitOpLowering(OpLowering):
    """Arrive on ``full[index]``: the first ``producer_arv_count[p]`` threads of each producer
    group p arrive once (the stamped full count); the leader (first thread) of a group that
    expects transaction bytes (the op's ``transaction_bytes``, verbatim, else the init's
    ``transaction_size[p]``) arrives with ``mbarrier.arrive.expect_tx``.  Named-barrier
    pipelines ``bar.arrive`` on the stage's full named barrier."""

    OP = "cutlass.pipeline.producer_commit"

    def lower(self, op: Operation, e: Emitter):
        info = pipeline_info(op, op.operands[0])
        if info.elide == "full":
            raise LocatedError(op, "producer_commit on a pipeline whose full barrier is elided")
        base = self.operand(e, op.operands[0])
        index = e.extract(self.operand(e, op.operands[1]), 0)
        if info.named:
            barrier = named_barrier_id(e, info.full_id(), index)
            e.add_op(nvvm.BarrierArriveOp(barrier, e.const(info.full_count)))
            return None
        explicit = op.properties.get("transaction_bytes")
        sizes = [explicit.value.data] * info.producers if explicit is not None else info.transaction_size
        expecting = [(mask, size) for mask, size in zip(info.producer_masks, sizes, strict=True) if size > 0]
        addr = full_barrier(e, base, index)
        tid = e.thread_id()
        arrives = producer_arrivers(e, op, info, tid)

        def arrive(inner: Emitter, groups: list[tuple[int, int]]) -> None:
            if not groups:
                local_arrive(inner, addr)
                return
            (mask, size), rest = groups[0], groups[1:]
            leader = in_thread_range(inner, tid, group_range(op, info, mask)[0], 1)
            inner.if_(
                leader,
                lambda lead: lead.add_op(nvvm.MBarrierArriveExpectTxOp(addr, lead.const(size))),
                lambda other: arrive(other, rest),
            )

        e.if_(arrives, lambda inner: arrive(inner, expecting))
        return None


class PipelineProducerTailOpLowering(OpLowering):
    """Keep the CTA alive until nothing can still arrive on its barriers.

    Fast path (cluster of one CTA, static depth): every consumer lives in this CTA, so only the
    producer's outstanding bulk-async groups need draining: ``cp.async.bulk.wait_group 0``.
    Slow path (cluster > 1, remote consumers; or named barriers): an ``scf.for`` over the stages
    waiting on each empty barrier in turn from the producer's state (CUTLASS producer_tail).
    """

    OP = "cutlass.pipeline.producer_tail"

    def __init__(self, options: LoweringOptions):
        super().__init__()
        self.options = options

    def lower(self, op: Operation, e: Emitter):
        info = pipeline_info(op, op.operands[0])
        cx, cy, cz = cluster_shape(op)
        if cx * cy * cz == 1 and not info.named:
            e.add_op(nvvm.CpAsyncBulkWaitGroupOp(0))
            return None
        base = self.operand(e, op.operands[0])
        index, phase, count = e.unpack_state(self.operand(e, op.operands[1]))
        n_stages = e.const(info.stages)

        def stage(inner: Emitter, i: SSAValue, carried):
            idx, ph = carried
            if info.named:
                used = inner.icmp("uge", inner.add(count, i), n_stages)
                barrier = named_barrier_id(inner, info.empty_id_base, idx)
                inner.if_(used, lambda b: b.add_op(nvvm.BarrierOp(barrier, b.const(info.empty_count))))
            else:
                parity_wait(inner, empty_barrier(inner, base, info.stages, idx), ph, self.options,
                            pipeline_site(info, "empty", idx, ph))
            bumped = inner.add(idx, inner.const(1))
            wrapped = inner.icmp("eq", bumped, n_stages)
            return [inner.select(wrapped, inner.const(0), bumped), inner.xor(ph, inner.zext(wrapped, ph.type))]

        e.for_(e.const(0), n_stages, e.const(1), [index, phase], stage)
        return None


class GetProducerMaskLowering(OpLowering):
    """i16 multicast mask of the CTAs fed by this CTA's producer: the CTAs in its cluster row or
    column (CUTLASS mcast masks), just this CTA for a cluster of one."""

    OP = "cutlass.pipeline.get_producer_mask"

    def lower(self, op: Operation, e: Emitter):
        cx, cy, cz = cluster_shape(op)
        info = pipeline_info(op, op.operands[0])
        mask = emit_signal_mask(e, op, info, AcquireMode.CLUSTER, e.const(0), None) if cx * cy * cz > 1 else e.const(1)
        return [e.trunc(mask, op.results[0].type)]


def patterns(options: LoweringOptions) -> list[OpLowering]:
    return [
        PipelineProducerAcquireOpLowering(options),
        PipelineProducerTryAcquireLowering(),
        PipelineProducerCommitOpLowering(),
        PipelineProducerTailOpLowering(options),
        GetProducerMaskLowering(),
    ]
