"""Stream-K fix-up trio on the device (seed 000 "Fixup Protocol", CUTLASS's deterministic
reduction as modelled by :mod:`tileorch.schedulers.fixup`).

Workspace (``workspace_ptr`` of the params record): the reduction region, ``reduction_bytes``
long, then one ``i32`` lock per (output tile, consumer warp group) at ``tile_idx * W + w``
(``W = num_barriers``, ``w = barrier_idx``).  A thread's partial accumulator lives at
``tile_idx * W*128*B + (w*128 + t) * B`` (``B`` bytes per thread, ``t = tid.x % 128``).

* ``fixup_wait``: poll the lock until it equals the piece's ``k_tile_start`` (every earlier K
  tile of the tile has been folded in), then ``fence.acq_rel.gpu``;
* ``fixup_increment``: the warp group syncs on named barrier ``StreamK0 + w`` (``bar.sync``, 128
  threads), then its first thread fences and adds ``k_tile_count`` with a release atomic;
* ``fixup`` on an accumulator: a piece covering the whole K extent passes through; otherwise a
  non-final piece stores (``k_tile_start == 0``) or waits and adds its partial, then increments;
  the final piece waits and adds the stored partial into its accumulator.
"""

from __future__ import annotations

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import IntegerType, VectorType, i8, i64
from xdsl.ir import Attribute, Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects import llvm_ext, nvvm
from tileorch.dialects.cutlass.attrs import RESERVED_BARRIER_ID_VALUES, BarrierId
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering
from tileorch.transforms.pipeline_to_nvvm.context import int_prop
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.scheduler_bodies import GLOBAL_PTR, WTI_FIELDS, load_field, lowered

GPU_SCOPE = "device"
WARP_GROUP = 128
STREAMK_BARRIER = RESERVED_BARRIER_ID_VALUES[BarrierId.STREAMK0]
STREAMK_BARRIERS = 2  # CUTLASS reserves StreamkBarrier0 and StreamkBarrier1


class FixupSite:
    """Operands and derived addresses shared by the three ops."""

    def __init__(self, op: Operation, e: Emitter, params: SSAValue, wti: SSAValue):
        self.op = op
        self.groups = int_prop(op, "num_barriers", 1)
        self.group = int_prop(op, "barrier_idx", 0)
        if self.groups > STREAMK_BARRIERS:
            raise LocatedError(op, f"num_barriers = {self.groups}: CUTLASS reserves {STREAMK_BARRIERS} Stream-K named barriers")
        field = WTI_FIELDS["streamk"].index
        self.start = e.extract(wti, field("k_tile_start"))
        self.count = e.extract(wti, field("k_tile_count"))
        self.tile = e.extract(wti, field("tile_idx"))
        self.kt = load_field(e, params, "k_tiles_per_output_tile", True)
        self.workspace = e.emit(llvm.IntToPtrOp.create(operands=[load_field(e, params, "workspace_ptr", True)],
                                                       result_types=[GLOBAL_PTR]))
        reduction = e.zext(load_field(e, params, "reduction_bytes", True), i64)
        slot = e.add(e.mul(self.tile, e.const(self.groups)), e.const(self.group))
        lock_offset = e.add(reduction, e.zext(e.mul(slot, e.const(4)), i64))
        self.lock = self.byte_address(e, lock_offset)

    def byte_address(self, e: Emitter, offset: SSAValue) -> SSAValue:
        return e.emit(llvm.GEPOp.from_mixed_indices(self.workspace, [offset], i8, result_type=GLOBAL_PTR))

    def wait(self, e: Emitter) -> None:
        """Spin until lock == k_tile_start, then ``fence.acq_rel.gpu`` (acquire).

        The poll is an idempotent ``atomicrmw add 0``: a plain load only reads memory, so the
        greedy rewriter would delete a loop made of it as dead code."""

        def probe(inner: Emitter) -> SSAValue:
            poll = llvm_ext.AtomicRMWOp("add", self.lock, inner.const(0), "acquire", GPU_SCOPE)
            return inner.icmp("eq", inner.emit(poll), self.start)

        e.spin_until(probe)
        e.add_op(llvm_ext.FenceOp("acq_rel", GPU_SCOPE))

    def increment(self, e: Emitter) -> None:
        """Warp-group barrier, then the first thread fences (``fence.acq_rel.gpu``) and adds
        ``k_tile_count`` to the lock (CUTLASS GenericBarrier's release arrive)."""
        e.add_op(nvvm.BarrierOp(e.const(STREAMK_BARRIER + self.group), e.const(WARP_GROUP)))
        lane = e.urem(e.thread_id(self.op), e.const(WARP_GROUP))

        def release(inner: Emitter) -> None:
            inner.add_op(llvm_ext.FenceOp("acq_rel", GPU_SCOPE))
            inner.add_op(llvm_ext.AtomicRMWOp("add", self.lock, self.count, "release", GPU_SCOPE))

        e.if_(e.icmp("eq", lane, e.const(0)), release)

    def partial_address(self, e: Emitter, nbytes: int) -> SSAValue:
        t = e.urem(e.thread_id(self.op), e.const(WARP_GROUP))
        tile_bytes = e.const(self.groups * WARP_GROUP * nbytes)
        thread = e.add(e.mul(e.const(self.group * WARP_GROUP), e.const(nbytes)), e.mul(t, e.const(nbytes)))
        offset = e.add(e.mul(self.tile, tile_bytes), thread)
        return self.byte_address(e, e.zext(offset, i64))


def value_bytes(typ: Attribute) -> int | None:
    """Bytes of a float/integer scalar or vector accumulator."""
    shape, elem = ([*typ.get_shape()], typ.element_type) if isinstance(typ, VectorType) else ([], typ)
    width = getattr(elem, "width", None)
    bits = width.data if width is not None else getattr(elem, "bitwidth", None)
    if bits is None:
        return None
    count = 1
    for extent in shape:
        count *= extent
    return count * bits // 8


def add_values(e: Emitter, a: SSAValue, b: SSAValue) -> SSAValue:
    elem = a.type.element_type if isinstance(a.type, VectorType) else a.type
    return e.emit(arith.AddiOp(a, b) if isinstance(elem, IntegerType) else arith.AddfOp(a, b))


def _site(op: Operation, e: Emitter) -> FixupSite:
    return FixupSite(op, e, lowered(e, op.operands[0]), lowered(e, op.operands[1]))


class FixupWaitLowering(OpLowering):
    OP = "cutlass.tile_scheduler.fixup_wait"

    def lower(self, op: Operation, e: Emitter):
        _site(op, e).wait(e)
        return None


class FixupIncrementLowering(OpLowering):
    OP = "cutlass.tile_scheduler.fixup_increment"

    def lower(self, op: Operation, e: Emitter):
        _site(op, e).increment(e)
        return None


class FixupLowering(OpLowering):
    OP = "cutlass.tile_scheduler.fixup"

    def lower(self, op: Operation, e: Emitter):
        site = _site(op, e)
        acc = op.operands[2]
        nbytes = value_bytes(acc.type)
        if nbytes is None:
            raise LocatedError(op, f"cannot fix up an accumulator of type {acc.type} (expected numbers or a vector of them)")
        typ = acc.type
        whole = e.icmp("eq", site.count, site.kt)
        final = e.icmp("eq", e.add(site.start, site.count), site.kt)

        def load(inner: Emitter) -> SSAValue:
            return inner.emit(llvm.LoadOp(site.partial_address(inner, nbytes), typ))

        def store(inner: Emitter, value: SSAValue) -> None:
            inner.add_op(llvm.StoreOp(value, site.partial_address(inner, nbytes)))

        def final_piece(inner: Emitter):
            site.wait(inner)
            return [add_values(inner, acc, load(inner))]

        def first_piece(inner: Emitter) -> None:
            store(inner, acc)

        def later_piece(inner: Emitter) -> None:
            site.wait(inner)
            store(inner, add_values(inner, load(inner), acc))

        def partial_piece(inner: Emitter):
            inner.if_(inner.icmp("eq", site.start, inner.const(0)), first_piece, later_piece)
            site.increment(inner)
            return [acc]

        def split(inner: Emitter):
            return inner.if_(final, final_piece, partial_piece, result_types=[typ])

        return list(e.if_(whole, lambda inner: [acc], split, result_types=[typ]))


PATTERNS = [FixupWaitLowering(), FixupIncrementLowering(), FixupLowering()]
