"""Initialisation cluster: pipeline storage (``pipeline.create``), ``PipelineInitOpLowering``
(per-stage mbarrier init with the stamped arrive counts, ``fence.mbarrier_init``, CTA or cluster
sync), ``BarrierInitOpLowering`` (``seq_bar`` storage and init) and the barrier-address getters."""

from __future__ import annotations

from xdsl.ir import Operation

from tileorch.diagnostics import LocatedError
from tileorch.dialects import nvvm
from tileorch.dialects.cutlass.pipeline_facts import cluster_size, enum_prop, int_prop, pipeline_info
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering
from tileorch.transforms.pipeline_to_nvvm.context import enclosing_exec
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.options import LoweringOptions
from tileorch.transforms.pipeline_to_nvvm.sync import empty_barrier, full_barrier, smem_storage
from tileorch.transforms.pipeline_to_nvvm.types import lowered_type


def check_whole_cta(op: Operation) -> None:
    """Barrier init ends with a CTA-wide sync, so it must run on every thread of the CTA."""
    outer = enclosing_exec(op)
    if outer is not None and "cta" not in str(outer.properties.get("executor")):
        raise LocatedError(op, f"'{op.name}' must run on the whole CTA (it ends with a CTA/cluster sync), not inside an executor region")


def emit_init_sync(e: Emitter, op: Operation, cta_local: bool = False) -> None:
    """Make barrier inits visible: ``fence.mbarrier_init`` then cluster arrive.relaxed + wait
    (cluster > 1) or ``bar.sync 0`` (CUTLASS pipeline_init_arrive_relaxed / pipeline_init_wait).
    ``cta_local`` barriers (a ``scope = cta`` pipeline) are used by this CTA only: ``bar.sync 0``
    whatever the cluster."""
    e.add_op(nvvm.FenceMbarrierInitOp())
    if cluster_size(op) > 1 and not cta_local:
        e.add_op(nvvm.ClusterArriveRelaxedOp(aligned=True))
        e.add_op(nvvm.ClusterWaitOp(aligned=True))
    else:
        e.add_op(nvvm.BarrierOp())


class PipelineCreateLowering(OpLowering):
    """``pipeline.create``: the bound storage, or a fresh shared array of 2 x stages words."""

    OP = "cutlass.pipeline.create"

    def lower(self, op: Operation, e: Emitter):
        if op.operands:
            return [self.operand(e, op.operands[0])]
        return [smem_storage(e, op, "__tileorch_pipeline_", 2 * op.results[0].type.stages)]


class PipelineInitOpLowering(OpLowering):
    """Thread 0 initialises full[s] with the stamped full count and empty[s] with the empty
    count for every stage (an elided barrier, count 0, is not initialised); then every thread
    fences and syncs.  Named-barrier pipelines need no initialisation."""

    OP = "cutlass.pipeline.init"

    def lower(self, op: Operation, e: Emitter):
        base = self.operand(e, op.operands[0])
        info = pipeline_info(op, op.results[0])
        if info.named:
            return [base]
        check_whole_cta(op)

        def init_all(inner: Emitter) -> None:
            for s in range(info.stages):
                idx = inner.const(s)
                if info.full_count:
                    inner.add_op(nvvm.MBarrierInitOp(full_barrier(inner, base, idx), inner.const(info.full_count)))
                if info.empty_count:
                    inner.add_op(nvvm.MBarrierInitOp(empty_barrier(inner, base, info.stages, idx), inner.const(info.empty_count)))

        e.if_(e.icmp("eq", e.thread_id(op), e.const(0)), init_all)
        emit_init_sync(e, op, cta_local=info.scope == "cta")
        return [base]


class SeqBarCreateLowering(OpLowering):
    """``seq_bar.create``: bound storage or a shared array of depth x length barrier words."""

    OP = "cutlass.seq_bar.create"

    def lower(self, op: Operation, e: Emitter):
        if op.operands:
            return [self.operand(e, op.operands[0])]
        typ = op.results[0].type
        return [smem_storage(e, op, "__tileorch_seq_bar_", typ.depth * typ.length)]


class BarrierInitOpLowering(OpLowering):
    """``seq_bar.init``: every barrier[d][g] gets ``group_size`` arrivals (CUTLASS
    OrderedSequenceBarrier: one initialising thread, then fence + sync).  Named-barrier
    sequence barriers need no initialisation."""

    OP = "cutlass.seq_bar.init"

    def lower(self, op: Operation, e: Emitter):
        base = self.operand(e, op.operands[0])
        if enum_prop(op, "barrier", "mbarrier") == "named_barrier":
            return [base]
        check_whole_cta(op)
        typ = op.results[0].type
        group_size = int_prop(op, "group_size", 1)
        leader = e.const(32 * int_prop(op, "initializing_warp", 0))

        def init_all(inner: Emitter) -> None:
            count = inner.const(group_size)
            for slot in range(typ.depth * typ.length):
                inner.add_op(nvvm.MBarrierInitOp(inner.barrier_addr(base, inner.const(slot)), count))

        e.if_(e.icmp("eq", e.thread_id(op), leader), init_all)
        emit_init_sync(e, op)
        return [base]


class MakeParticipantsLowering(OpLowering):
    """The P x C participants matrix as ``!llvm.array<P*C x i32>``: the custom entries, or all
    ones for the CGA-derived form (every consumer signals every producer)."""

    OP = "cutlass.pipeline.make_participants"

    def lower(self, op: Operation, e: Emitter):
        typ = lowered_type(op.results[0].type)
        cells = typ.size.data
        values = list(op.operands) or [e.const(1) for _ in range(cells)]
        return [e.pack(typ, values)]


class _BarrierAddress(OpLowering):
    EMPTY = False

    def lower(self, op: Operation, e: Emitter):
        base = self.operand(e, op.operands[0])
        index = e.extract(self.operand(e, op.operands[1]), 0)
        if self.EMPTY:
            return [empty_barrier(e, base, op.operands[1].type.stages, index)]
        return [full_barrier(e, base, index)]


class GetProducerBarrierLowering(_BarrierAddress):
    OP = "cutlass.pipeline.get_producer_barrier"


class GetFullBarrierLowering(_BarrierAddress):
    OP = "cutlass.pipeline.get_full_barrier"


class GetEmptyBarrierLowering(_BarrierAddress):
    OP = "cutlass.pipeline.get_empty_barrier"
    EMPTY = True


def patterns(options: LoweringOptions) -> list[OpLowering]:
    return [
        PipelineCreateLowering(),
        PipelineInitOpLowering(),
        MakeParticipantsLowering(),
        SeqBarCreateLowering(),
        BarrierInitOpLowering(),
        GetProducerBarrierLowering(),
        GetFullBarrierLowering(),
        GetEmptyBarrierLowering(),
    ]


