"""Producer side: acquire (four phases), try_acquire, commit (the only expect_tx site) and tail.

``PipelineProducerAcquireOpLowering`` follows the seed's phase structure:

A. operand unpack: state (index, phase, count), barrier base and the optional ``token``;
B. the wait gate from the signal sources of the stage's empty barrier.  Only a runtime
   participants matrix (``dynamic(...)``, the seed's cooperative-arrival mode) can leave a stage
   without sources: its mask (bit c = some producer row lists consumer group c) gates the wait.
   Every other mode (warp-specialized 1x1, strided urem/udiv, cluster) has a statically
   non-empty mask, so the wait is unconditional and phase B emits nothing;
C. the per-stage barrier operation: the parity wait on ``empty[index]`` (mbarrier pipelines);
D. the named-barrier tail: ``bar.sync`` on the stage's empty named barrier, whose id is
   ``barrier_id_base + stages + index`` (one ``arith.addi`` per id base), skipped on the
   producer's first pass over the ring (``unacquired_state``: ``count < stages``, those
   barriers have never been released).
"""

from __future__ import annotations

from abc import abstractmethod

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from tileorch.dialects import nvvm
from tileorch.dialects.cutlass.pipeline_facts import PipelineInfo, cluster_shape, pipeline_info
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering, OptionsLowering
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.groups import group_range, producer_arrivers
from tileorch.transforms.pipeline_to_nvvm.options import LoweringOptions
from tileorch.transforms.pipeline_to_nvvm.sync import (empty_barrier, full_barrier, in_thread_range, local_arrive,
                                                       parity_wait, same_row_or_col)
from tileorch.transforms.pipeline_to_nvvm.timeout import pipeline_site

MASK_WIDTH = 16  # multicast masks are 16-bit (at most 16 CTAs per cluster)


def emit_dynamic_signal_gate(e: Emitter, info: PipelineInfo, participants: SSAValue) -> SSAValue:
    """Phase B (runtime participants matrix): i1, some cell of the P x C matrix is non-zero, i.e.
    some consumer group signals this stage's empty barrier (i32 mask, bit c per consumer group)."""
    zero = e.const(0)
    mask = zero
    for p in range(info.producers):
        for c in range(info.consumers):
            live = e.icmp("ne", e.extract(participants, p * info.consumers + c), zero)
            mask = e.or_(mask, e.select(live, e.const(1 << (c % MASK_WIDTH)), zero))
    return e.icmp("ne", mask, zero)


def emit_cluster_mask(e: Emitter, op: Operation, direction: str = "row_col") -> SSAValue:
    """i32 mask of the CTAs sharing this CTA's cluster row or column (CUTLASS mcast masks);
    ``row``: those sharing its x only (A operand), ``col``: its y only (B operand)."""
    cx, cy, cz = cluster_shape(op)
    zero = e.const(0)
    rank = e.sreg("cluster.ctarank")
    mask = zero
    for d in range(min(cx * cy * cz, MASK_WIDTH)):
        same = same_row_or_col(e, e.const(d), rank, cx, direction)
        mask = e.or_(mask, e.select(same, e.const(1 << d), zero))
    return mask


def named_barrier_id(e: Emitter, base_id: int, index: SSAValue) -> SSAValue:
    """``base_id + index`` as the seed's trailing ``arith.addi``."""
    return e.emit(arith.AddiOp(e.const(base_id), index))


class StageSignalLowering(OpLowering):
    """What ``producer_commit`` (``SIDE = "full"``) and ``consumer_release`` (``"empty"``) share:
    on a named-barrier pipeline emit the ``bar.arrive`` on the stage's ``SIDE`` barrier, else
    :meth:`signal` its mbarrier.  (A pipeline whose ``SIDE`` barrier is elided is the ops'
    verifier's error: :func:`tileorch.dialects.cutlass.pipeline.check_not_elided`.)"""

    SIDE = ""

    def lower(self, op: Operation, e: Emitter):
        info = pipeline_info(op, op.operands[0])
        base = self.operand(e, op.operands[0])
        index = e.extract(self.operand(e, op.operands[1]), 0)
        if info.named:
            full = self.SIDE == "full"
            barrier = named_barrier_id(e, info.full_id() if full else info.empty_id_base, index)
            e.add_op(nvvm.BarrierArriveOp(barrier, e.const(info.full_count if full else info.empty_count)))
        else:
            self.signal(op, e, info, base, index)
        return None

    @abstractmethod
    def signal(self, op: Operation, e: Emitter, info: PipelineInfo, base: SSAValue, index: SSAValue) -> None:
        """Arrive on the ``SIDE`` mbarrier of stage ``index`` (``base``: the pipeline's barrier words)."""


class PipelineProducerAcquireOpLowering(OptionsLowering):
    OP = "cutlass.pipeline.producer_acquire"

    def lower(self, op: Operation, e: Emitter):
        info = pipeline_info(op, op.operands[0])
        # Phase A
        base = self.operand(e, op.operands[0])
        index, phase, count = e.unpack_state(self.operand(e, op.operands[1]))
        token = op.operands[2] if len(op.operands) > 2 else None
        # Phase B
        gates: list[SSAValue] = []
        if len(info.init.operands) > 1:
            gates.append(emit_dynamic_signal_gate(e, info, self.operand(e, info.init.operands[1])))
        if token is not None:
            gates.append(e.xor(token, e.true()))
        if not info.named:
            # Phase C
            addr = empty_barrier(e, base, info.stages, index)
            site = pipeline_site(info, "empty", index, phase)
            guarded(e, gates, lambda inner: parity_wait(inner, addr, phase, self.options, site))
            return None
        # Phase D
        barrier = named_barrier_id(e, info.empty_id_base, index)
        threads = e.const(info.empty_count)
        unacquired_state = e.icmp("ult", count, e.const(info.stages))
        gates.append(e.xor(unacquired_state, e.true()))
        guarded(e, gates, lambda inner: inner.add_op(nvvm.BarrierOp(barrier, threads)))
        return None


def guarded(e: Emitter, gates: list[SSAValue], body) -> None:
    """``body`` under the conjunction of ``gates`` (unconditionally when there are none)."""
    if not gates:
        body(e)
        return
    cond = gates[0]
    for gate in gates[1:]:
        cond = e.and_(cond, gate)
    e.if_(cond, body)


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


class PipelineProducerCommitOpLowering(StageSignalLowering):
    """Arrive on ``full[index]``: the first ``producer_arv_count[p]`` threads of each producer
    group p arrive once (the stamped full count); the leader (first thread) of a group that
    expects transaction bytes (the op's ``transaction_bytes``, verbatim, else the init's
    ``transaction_size[p]``) arrives with ``mbarrier.arrive.expect_tx``.  Named-barrier
    pipelines ``bar.arrive`` on the stage's full named barrier."""

    OP = "cutlass.pipeline.producer_commit"
    SIDE = "full"

    def signal(self, op: Operation, e: Emitter, info: PipelineInfo, base: SSAValue, index: SSAValue) -> None:
        explicit = op.properties.get("transaction_bytes")
        sizes = [explicit.value.data] * info.producers if explicit is not None else info.transaction_size
        expecting = [(mask, size) for mask, size in zip(info.producer_masks, sizes, strict=True) if size > 0]
        addr = full_barrier(e, base, index)
        tid = e.thread_id(op)
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


class PipelineProducerTailOpLowering(OptionsLowering):
    """Keep the CTA alive until nothing can still arrive on its barriers.

    Fast path (cluster of one CTA or a ``scope = cta`` pipeline, static depth): every consumer
    lives in this CTA, so only the
    producer's outstanding bulk-async groups need draining: ``cp.async.bulk.wait_group 0``.
    Slow path (cluster > 1, remote consumers; or named barriers): an ``scf.for`` over the stages
    waiting on each empty barrier in turn from the producer's state (CUTLASS producer_tail).
    """

    OP = "cutlass.pipeline.producer_tail"

    def lower(self, op: Operation, e: Emitter):
        info = pipeline_info(op, op.operands[0])
        if not info.cluster_multicast and not info.named:
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
    """i16 multicast mask of the CTAs one load of this CTA's producer feeds: the CTAs of the op's
    ``direction`` (else the pipeline's ``multicast`` set) around this CTA (CUTLASS mcast masks),
    just this CTA for a cluster of one."""

    OP = "cutlass.pipeline.get_producer_mask"

    def lower(self, op: Operation, e: Emitter):
        cx, cy, cz = cluster_shape(op)
        if cx * cy * cz == 1:
            mask = e.const(1)
        else:
            direction = op.properties.get("direction")
            if direction is not None:
                direction = direction.data.value
            else:
                direction = pipeline_info(op, op.operands[0]).multicast
            mask = emit_cluster_mask(e, op, direction)
        return [e.trunc(mask, op.results[0].type)]


def patterns(options: LoweringOptions) -> list[OpLowering]:
    return [
        PipelineProducerAcquireOpLowering(options),
        PipelineProducerTryAcquireLowering(),
        PipelineProducerCommitOpLowering(),
        PipelineProducerTailOpLowering(options),
        GetProducerMaskLowering(),
    ]
