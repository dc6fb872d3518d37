"""``BarOpLowering`` family: named barriers (``bar.arrive`` / ``bar.sync``), global-memory
generic barriers (CUTLASS GenericBarrier: sync, leader ``fence.acq_rel.gpu`` + relaxed atomic add;
leader acquire-load spin, then sync) and the ordered sequence barrier (``seq_bar``: mbarriers,
or named barriers ``base + d*L + g`` with ``2 * group_size`` threads, group 0 skipping its
first-lap waits).

Arrive counts come from the ops' own warp-cooperative rule (``arrive_count()``), which fails when
the count is not a multiple of 32 or no enclosing executor gives one: that diagnostic is re-raised
at the op.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import i32
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from tileorch.diagnostics import LocatedError, location_str
from tileorch.dialects import llvm_ext, nvvm
from tileorch.dialects.cutlass.pipeline_facts import enum_prop, int_prop
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering, OptionsLowering
from tileorch.transforms.pipeline_to_nvvm.context import covers_whole_cta, enclosing_exec
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.options import LoweringOptions
from tileorch.transforms.pipeline_to_nvvm.state import emit_increment
from tileorch.transforms.pipeline_to_nvvm.sync import local_arrive, parity_wait
from tileorch.transforms.pipeline_to_nvvm.timeout import WaitSite, report_and_trap

GPU_SCOPE = "device"  # LLVM NVPTX syncscope for .gpu
ACQUIRE_LOAD = "ld.global.acquire.gpu.b32 $0, [$1];"  # CUTLASS GenericBarrier ld_acquire


def arrive_count(op: Operation) -> int:
    try:
        return op.arrive_count()
    except VerifyException as exc:
        raise LocatedError(op, str(exc)) from exc


def barrier_id(e: Emitter, op: Operation) -> SSAValue:
    static = int_prop(op, "barrier_id")
    return e.const(static) if static is not None else op.operands[0]


class BarOpLowering(OpLowering):
    """Named barrier: ``bar.arrive id, n`` or ``bar.sync id, n``."""

    WAIT = False

    def lower(self, op: Operation, e: Emitter):
        threads = e.const(arrive_count(op))
        bid = barrier_id(e, op)
        e.add_op(nvvm.BarrierOp(bid, threads) if self.WAIT else nvvm.BarrierArriveOp(bid, threads))
        return None


class NamedBarrierArriveLowering(BarOpLowering):
    OP = "cutlass.named_barrier.arrive"


class NamedBarrierArriveAndWaitLowering(BarOpLowering):
    OP = "cutlass.named_barrier.arrive_and_wait"
    WAIT = True


class _GenericBarrier(OptionsLowering):
    """Shared parts of the three semaphore ops."""

    def sync(self, op: Operation, e: Emitter) -> None:
        """``syncwarp``: ``bar.warp.sync -1``; ``named_barrier``: ``bar.sync id, n``;
        ``syncthreads``: ``__syncthreads`` = ``bar.sync 0`` over the whole CTA, so only where every
        thread of the CTA runs the op (id 0 is also the barrier-init sync, and PTX needs every
        use of an id at one time to give the same thread count)."""
        kind = enum_prop(op, "sync", "syncthreads")
        count = arrive_count(op)
        if kind == "syncwarp":
            e.add_op(nvvm.BarWarpSyncOp(e.const(-1)))
        elif kind == "named_barrier":
            e.add_op(nvvm.BarrierOp(e.const(int_prop(op, "barrier_id", 0)), e.const(count)))
        elif covers_whole_cta(op):
            e.add_op(nvvm.BarrierOp())
        else:
            raise LocatedError(
                op,
                f"sync = syncthreads is bar.sync 0 over the whole CTA, but this op runs in an executor "
                f"region that may not cover the whole CTA ({count} threads); use sync = named_barrier "
                "with a barrier_id of its own (e.g. 8..15, not claimed by a pipeline), or declare the "
                "kernel's nvvm.reqntid / nvvm.maxntid if the region does cover the CTA",
            )

    def leader(self, op: Operation, e: Emitter) -> SSAValue:
        """The thread that touches the flag: lane 0 of each warp for syncwarp, else the first
        thread of the enclosing executor."""
        if enum_prop(op, "sync", "syncthreads") == "syncwarp":
            return e.icmp("eq", e.sreg("laneid"), e.const(0))
        outer = enclosing_exec(op)
        first = outer.first_thread() if outer is not None and hasattr(outer, "first_thread") else 0
        return e.icmp("eq", e.thread_id(op), e.const(first))

    def flag(self, op: Operation, e: Emitter) -> SSAValue:
        lock = op.operands[0]
        if not isinstance(lock.type, llvm.LLVMPointerType):
            raise LocatedError(op, "a memref semaphore must be converted to !llvm.ptr<1> before convert-pipeline-to-nvvm")
        return e.emit(llvm.GEPOp.from_mixed_indices(lock, [op.operands[1]], i32, result_type=lock.type))

    def value(self, op: Operation, e: Emitter) -> SSAValue:
        return op.operands[2] if len(op.operands) > 2 else e.const(1)

    def spin_while(self, op: Operation, e: Emitter, flag: SSAValue, pred: str, target: SSAValue) -> None:
        """Leader loop: acquire-load the flag until ``flag <pred> target`` is false (bounded by
        ``debug-timeout``: the report names the semaphore op, flag index and target).

        The load is CUTLASS's ``ld.global.acquire.gpu.b32`` as side-effecting inline asm: an
        ordinary read-only load would let dead-code elimination delete the whole spin loop."""

        def probe(inner: Emitter) -> SSAValue:
            current = inner.emit(llvm.InlineAsmOp(ACQUIRE_LOAD, "=r,l", [flag], [i32], has_side_effects=True))
            return inner.xor(inner.icmp(pred, current, target), inner.true())

        limit = self.options.debug_timeout
        site = WaitSite(op, f"semaphore of {op.name} {location_str(op)}", (("flag", op.operands[1]), ("target", target)))
        e.spin_until(probe, (lambda inner: report_and_trap(inner, site, limit)) if limit else None, limit)


class GenericBarrierArriveIncrementLowering(_GenericBarrier):
    OP = "cutlass.generic_barrier.arrive_increment"

    def lower(self, op: Operation, e: Emitter):
        self.sync(op, e)
        flag, value = self.flag(op, e), self.value(op, e)

        def signal(inner: Emitter) -> None:
            inner.add_op(llvm_ext.FenceOp("acq_rel", GPU_SCOPE))
            inner.add_op(llvm_ext.AtomicRMWOp("add", flag, value, "monotonic", GPU_SCOPE))

        e.if_(self.leader(op, e), signal)
        return None


class GenericBarrierWaitEqLowering(_GenericBarrier):
    OP = "cutlass.generic_barrier.wait_eq"

    def lower(self, op: Operation, e: Emitter):
        flag, value = self.flag(op, e), self.value(op, e)
        e.if_(self.leader(op, e), lambda inner: self.spin_while(op, inner, flag, "ne", value))
        self.sync(op, e)
        return None


class GenericBarrierWaitLessThanLowering(_GenericBarrier):
    OP = "cutlass.generic_barrier.wait_less_than"

    def lower(self, op: Operation, e: Emitter):
        flag, count = self.flag(op, e), op.operands[2]
        e.if_(self.leader(op, e), lambda inner: self.spin_while(op, inner, flag, "slt", count))
        self.sync(op, e)
        return None


# ------------------------------------------------------------------ ordered sequence barrier


def seq_bar_length(value: SSAValue) -> int:
    return value.type.length


class SeqBarStateCreateLowering(OpLowering):
    """Group 0 starts at phase 1 (its first wait passes), every other group at phase 0."""

    OP = "cutlass.seq_bar.state.create"

    def lower(self, op: Operation, e: Emitter):
        first = e.icmp("eq", op.operands[1], e.const(0))
        return [e.state(e.const(0), e.zext(first, i32), e.const(0))]


def seq_slot(e: Emitter, state: SSAValue, group: SSAValue, length: int) -> tuple[SSAValue, SSAValue]:
    index, phase, _ = e.unpack_state(state)
    return e.mul(index, e.const(length)), phase


def seq_bar_init(op: Operation) -> Operation:
    """The ``cutlass.seq_bar.init`` defining the op's sequence-barrier operand."""
    owner = op.operands[0].owner
    if not isinstance(owner, Operation) or owner.name != "cutlass.seq_bar.init":
        raise LocatedError(op, "cannot find the cutlass.seq_bar.init of this sequence barrier (needed for its barrier kind)")
    return owner


def named_seq_bar(op: Operation) -> tuple[int, int] | None:
    """(barrier_id_base, 2 * group_size) of a named-barrier sequence barrier, else None."""
    init = seq_bar_init(op)
    if enum_prop(init, "barrier", "mbarrier") != "named_barrier":
        return None
    base = int_prop(init, "barrier_id_base")
    if base is None:
        raise LocatedError(init, "a named-barrier seq_bar needs barrier_id_base; run cutlass-allocate-barrier-ids first")
    return base, 2 * int_prop(init, "group_size", 1)


class SeqBarWaitLowering(OptionsLowering):
    """Wait on barrier[index][group] with the state's phase; named barriers: ``bar.sync`` on id
    ``base + index*L + group`` with ``2 * group_size`` threads (the arriving group and this
    one), skipped by group 0 on its first lap (``count < depth``: its start phase 1)."""

    OP = "cutlass.seq_bar.wait"

    def lower(self, op: Operation, e: Emitter):
        group = op.operands[2]
        state = self.operand(e, op.operands[1])
        row, phase = seq_slot(e, state, group, seq_bar_length(op.operands[0]))
        slot = e.add(row, group)
        named = named_seq_bar(op)
        if named is not None:
            base_id, threads = named
            count = e.extract(state, 2)
            first_lap = e.and_(e.icmp("eq", group, e.const(0)), e.icmp("ult", count, e.const(op.operands[1].type.depth)))
            barrier = e.add(slot, e.const(base_id))
            e.if_(e.xor(first_lap, e.true()), lambda inner: inner.add_op(nvvm.BarrierOp(barrier, inner.const(threads))))
            return None
        base = self.operand(e, op.operands[0])
        index = e.extract(state, 0)
        site = WaitSite(seq_bar_init(op), f"seq_bar {location_str(seq_bar_init(op))} barrier",
                        (("stage", index), ("group", group), ("phase", phase)))
        parity_wait(e, e.barrier_addr(base, slot), phase, self.options, site)
        return None


class SeqBarArriveLowering(OpLowering):
    """Every thread of the group arrives on barrier[index][(group + 1) % length] (named:
    ``bar.arrive`` on that id with ``2 * group_size`` threads); ++state."""

    OP = "cutlass.seq_bar.arrive"

    def lower(self, op: Operation, e: Emitter):
        length = seq_bar_length(op.operands[0])
        state = self.operand(e, op.operands[1])
        row, _ = seq_slot(e, state, op.operands[2], length)
        nxt = e.urem(e.add(op.operands[2], e.const(1)), e.const(length))
        slot = e.add(row, nxt)
        named = named_seq_bar(op)
        if named is not None:
            base_id, threads = named
            e.add_op(nvvm.BarrierArriveOp(e.add(slot, e.const(base_id)), e.const(threads)))
        else:
            local_arrive(e, e.barrier_addr(self.operand(e, op.operands[0]), slot))
        return [emit_increment(e, state, op.operands[1].type.depth, None, flip=True)]


def patterns(options: LoweringOptions) -> list[OpLowering]:
    return [
        NamedBarrierArriveLowering(),
        NamedBarrierArriveAndWaitLowering(),
        GenericBarrierArriveIncrementLowering(options),
        GenericBarrierWaitEqLowering(options),
        GenericBarrierWaitLessThanLowering(options),
        SeqBarStateCreateLowering(),
        SeqBarWaitLowering(options),
        SeqBarArriveLowering(),
    ]
