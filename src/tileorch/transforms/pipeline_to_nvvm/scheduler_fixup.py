"""Stream-K fix-up trio on the device (seed 000 "Fixup Protocol", CUTLASS's deterministic and
nondeterministic reductions as modelled by :mod:`tileorch.schedulers.fixup`).

Workspace (``workspace_ptr`` of the params record), CUTLASS's byte layout (:class:`PartialLayout`):
the reduction region, ``reduction_bytes`` long, holds one reduction tile of ``W*128*V`` elements
per tile (``W = num_barriers`` warp groups, ``V`` accumulator elements per thread); warp group
``w = barrier_idx`` owns the slice at element ``V*128*w`` and thread ``t = tid.x % 128`` keeps
fragment element ``i`` at ``128*i + t`` of it (``BlockStripedReduce``: one element per striped
access, so every element is a coalesced 512-byte row of the warp group).  Then one ``i32`` lock
per (tile, warp group) at ``tile_idx * W + w``.

* ``fixup_wait``: the warp group's first thread polls the lock with an acquire load until it
  equals the piece's ``k_tile_start`` (every earlier K tile of the tile has been folded in), then
  the group syncs on its named barrier ``StreamK0 + w`` (``bar.sync``, 128 threads);
* ``fixup_increment``: the warp group syncs on named barrier ``StreamK0 + w`` (``bar.sync``, 128
  threads), then its first thread fences and adds ``k_tile_count`` with a release atomic;
* ``fixup`` on an accumulator: a piece covering the whole K extent passes through; otherwise a
  non-final piece stores (``k_tile_start == 0``) or folds its partial in, then increments; the
  final piece waits (``lock == k_tile_start``) and adds the stored partial into its accumulator.
  A later non-final piece follows the params' run-time ``reduction_mode`` word (CUTLASS's
  ``ReductionMode``, :data:`~tileorch.schedulers.device_params.REDUCTION_MODE_CODES`):
  deterministic (0) waits for ``lock == k_tile_start`` and does a plain load, add, store, so the
  partials are summed in increasing K order; nondeterministic (otherwise) waits only for the first
  partial (``lock >= 1``) and adds each element with a relaxed device-scope ``atomicrmw``
  (``fadd`` / ``add``), in whatever order the pieces arrive.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import DenseArrayBase, Float16Type, IntegerType, StringAttr, VectorType, i8, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue

from tileorch.diagnostics import LocatedError, location_str
from tileorch.dialects import llvm_ext, nvvm
from tileorch.dialects.cutlass.attrs import RESERVED_BARRIER_ID_VALUES, BarrierId
from tileorch.dialects.cutlass.pipeline_facts import int_prop
from tileorch.dialects.cutlass.scheduler_context import cta_cluster_of
from tileorch.schedulers.workspace import BARRIER_BITS
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering
from tileorch.transforms.pipeline_to_nvvm.emit import GLOBAL_PTR, Emitter
from tileorch.transforms.pipeline_to_nvvm.scheduler_bodies import WTI_FIELDS, load_field, lowered

GPU_SCOPE = "device"
WARP_GROUP = 128
STREAMK_BARRIER = RESERVED_BARRIER_ID_VALUES[BarrierId.STREAMK0]
STREAMK_BARRIERS = 2  # CUTLASS reserves StreamkBarrier0 and StreamkBarrier1
LOCK_BYTES = BARRIER_BITS // 8


@dataclass(frozen=True)
class PartialLayout:
    """Byte offsets of the partial accumulators in the reduction region (CUTLASS ``fixup_helper``
    with ``BlockStripedReduce<128, ...>``), for ``groups`` warp groups of ``values`` elements of
    ``elem_bytes`` bytes per thread.  ``access`` elements form one striped access unit: 1, but 2
    for ``f16`` (CUTLASS's ``half2`` specialisation).  ``tiles * tile_bytes`` is the region that
    ``schedulers.workspace.reduction_workspace_size`` sizes when the fragments cover the tile
    (``groups*128*values = BLK_M*BLK_N``); its 128-byte rounding never adds bytes then."""

    groups: int
    values: int
    elem_bytes: int
    access: int = 1

    @property
    def tile_bytes(self) -> int:
        return self.groups * WARP_GROUP * self.values * self.elem_bytes

    def slice_bytes(self, group: int) -> int:
        """Start of warp group ``group``'s slice in its tile."""
        return self.values * WARP_GROUP * group * self.elem_bytes

    @property
    def thread_stride(self) -> int:
        """Bytes between the first elements of neighbouring threads."""
        return self.access * self.elem_bytes

    def element_bytes(self, i: int) -> int:
        """Offset of fragment element ``i`` from the thread's element 0."""
        unit, lane = divmod(i, self.access)
        return (self.access * WARP_GROUP * unit + lane) * self.elem_bytes

    def offset(self, tile: int, group: int, thread: int, i: int) -> int:
        """Byte offset of element ``i`` of thread ``thread`` of warp group ``group`` in ``tile``."""
        return tile * self.tile_bytes + self.slice_bytes(group) + thread * self.thread_stride + self.element_bytes(i)


def lock_offset(reduction_bytes: int, tile: int, group: int, groups: int) -> int:
    """Byte offset of the (tile, warp group) lock: the barrier region follows the reduction region."""
    return reduction_bytes + (tile * groups + group) * LOCK_BYTES


class FixupSite:
    """Operands and derived addresses shared by the three ops."""

    def __init__(self, op: Operation, e: Emitter, params: SSAValue, wti: SSAValue):
        self.op = op
        self.params = params
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
        lock = e.add(reduction, e.mul(e.zext(slot, i64), e.const(LOCK_BYTES, i64)))
        self.lock = self.byte_address(e, lock)

    def byte_address(self, e: Emitter, offset: SSAValue) -> SSAValue:
        return e.emit(llvm.GEPOp.from_mixed_indices(self.workspace, [offset], i8, result_type=GLOBAL_PTR))

    def wait(self, e: Emitter) -> None:
        """Spin until lock == k_tile_start (every earlier K tile folded in), then acquire."""
        self.wait_until(e, "eq", self.start)

    def wait_published(self, e: Emitter) -> None:
        """Spin until lock >= 1 (the first piece stored its partial; CUTLASS ``wait_lt(lock, 1)``),
        then acquire."""
        self.wait_until(e, "sge", e.const(1))

    def wait_until(self, e: Emitter, pred: str, bound: SSAValue) -> None:
        """The warp group's first thread spins on an acquire load of the lock
        (``ld.acquire.gpu``) until ``lock <pred> bound`` (signed); then the whole group syncs on
        its own Stream-K named barrier (``bar.sync StreamK0 + barrier_idx, 128``), which orders
        every thread's later workspace loads after that acquire (CUTLASS ``GenericBarrier::
        wait_eq``: one thread polls, a barrier releases the rest).  Only one thread touches the
        lock, with no read-modify-write and no fence.  The ordered load counts as a memory
        write for DCE, so the spin loop survives the greedy rewriter."""
        lane = e.urem(e.thread_id(self.op), e.const(WARP_GROUP))

        def probe(inner: Emitter) -> SSAValue:
            load = llvm_ext.LoadOp(self.lock, i32, alignment=LOCK_BYTES, ordering=llvm_ext.ORDERINGS["acquire"])
            load.syncscope = StringAttr(GPU_SCOPE)
            return inner.icmp(pred, inner.emit(load), bound)

        site = f"Stream-K fix-up lock of {self.op.name} {location_str(self.op)} (until lock {pred} its bound)"
        e.if_(e.icmp("eq", lane, e.const(0)), lambda inner: inner.spin_until(probe, site=site))
        self.group_sync(e)

    def group_sync(self, e: Emitter) -> None:
        """``bar.sync StreamK0 + barrier_idx, 128``: this warp group's own fix-up barrier."""
        e.add_op(nvvm.BarrierOp(e.const(STREAMK_BARRIER + self.group), e.const(WARP_GROUP)))

    def nondeterministic(self, e: Emitter) -> SSAValue:
        """i1: the params' ``reduction_mode`` word is not CUTLASS's ``Deterministic`` (0)."""
        return e.icmp("ne", load_field(e, self.params, "reduction_mode", True), e.const(0))

    def increment(self, e: Emitter) -> None:
        """Warp-group barrier, then the first thread fences (``fence.acq_rel.gpu``) and adds
        ``k_tile_count`` to the lock (CUTLASS GenericBarrier's release arrive)."""
        self.group_sync(e)
        lane = e.urem(e.thread_id(self.op), e.const(WARP_GROUP))

        def release(inner: Emitter) -> None:
            inner.add_op(llvm_ext.FenceOp("acq_rel", GPU_SCOPE))
            inner.add_op(llvm_ext.AtomicRMWOp("add", self.lock, self.count, "release", GPU_SCOPE))

        e.if_(e.icmp("eq", lane, e.const(0)), release)

    def partial_base(self, e: Emitter, layout: PartialLayout) -> SSAValue:
        """Address of this thread's fragment element 0 (i64 math: tiles of 64 KiB overflow i32)."""
        t = e.urem(e.thread_id(self.op), e.const(WARP_GROUP))
        tile = e.mul(e.zext(self.tile, i64), e.const(layout.tile_bytes, i64))
        thread = e.mul(e.zext(t, i64), e.const(layout.thread_stride, i64))
        return self.byte_address(e, e.add(tile, e.add(e.const(layout.slice_bytes(self.group), i64), thread)))

    def load_partial(self, e: Emitter, layout: PartialLayout, typ: Attribute) -> SSAValue:
        """The stored partial, one striped element load each."""
        base = self.partial_base(e, layout)
        if not isinstance(typ, VectorType | llvm.LLVMStructType):
            return e.emit(llvm.LoadOp(base, typ))
        value = e.undef(typ)
        for i in range(layout.values):
            x = e.emit(llvm.LoadOp(_element(e, base, layout, i), element_type(typ)))
            value = insert_one(e, value, x, i)
        return value

    def store_partial(self, e: Emitter, layout: PartialLayout, value: SSAValue) -> None:
        base = self.partial_base(e, layout)
        if not isinstance(value.type, VectorType | llvm.LLVMStructType):
            e.add_op(llvm.StoreOp(value, base))
            return
        for i in range(layout.values):
            e.add_op(llvm.StoreOp(extract_one(e, value, i), _element(e, base, layout, i)))

    def reduce_partial(self, e: Emitter, layout: PartialLayout, value: SSAValue) -> None:
        """Add ``value`` into the stored partial, one relaxed device-scope ``atomicrmw`` per
        element (``fadd`` for floats, ``add`` for integers; CUTLASS ``BlockStripedReduce::reduce``)."""
        base = self.partial_base(e, layout)
        elem = element_type(value.type)
        bin_op = "add" if isinstance(elem, IntegerType) else "fadd"
        if not isinstance(value.type, VectorType | llvm.LLVMStructType):
            e.add_op(llvm_ext.AtomicRMWOp(bin_op, base, value, "monotonic", GPU_SCOPE))
            return
        for i in range(layout.values):
            x = extract_one(e, value, i)
            e.add_op(llvm_ext.AtomicRMWOp(bin_op, _element(e, base, layout, i), x, "monotonic", GPU_SCOPE))


def _element(e: Emitter, base: SSAValue, layout: PartialLayout, i: int) -> SSAValue:
    return e.emit(llvm.GEPOp.from_mixed_indices(base, [layout.element_bytes(i)], i8, result_type=GLOBAL_PTR))


def element_type(typ: Attribute) -> Attribute:
    """The element type of a vector or homogeneous ``!llvm.struct`` accumulator (else ``typ``)."""
    if isinstance(typ, VectorType):
        return typ.element_type
    if isinstance(typ, llvm.LLVMStructType) and typ.types.data:
        return typ.types.data[0]
    return typ


def extract_one(e: Emitter, value: SSAValue, i: int) -> SSAValue:
    """Element ``i`` of a vector or struct accumulator."""
    typ = value.type
    if isinstance(typ, llvm.LLVMStructType):
        return e.emit(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [i]), value, typ.types.data[i]))
    return e.emit(llvm_ext.ExtractElementOp(value, e.const(i)))


def insert_one(e: Emitter, value: SSAValue, x: SSAValue, i: int) -> SSAValue:
    if isinstance(value.type, llvm.LLVMStructType):
        return e.emit(llvm.InsertValueOp(DenseArrayBase.from_list(i64, [i]), value, x))
    return e.emit(llvm.InsertElementOp(value, x, e.const(i)))


def elements(e: Emitter, value: SSAValue) -> list[SSAValue]:
    """The scalars of a vector or struct accumulator, in fragment order."""
    typ = value.type
    if isinstance(typ, llvm.LLVMStructType):
        return [e.emit(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [i]), value, t))
                for i, t in enumerate(typ.types.data)]
    return [e.emit(llvm_ext.ExtractElementOp(value, e.const(i))) for i in range(typ.get_shape()[0])]


def assemble(e: Emitter, typ: Attribute, xs: list[SSAValue]) -> SSAValue:
    value = e.undef(typ)
    for i, x in enumerate(xs):
        if isinstance(typ, llvm.LLVMStructType):
            value = e.emit(llvm.InsertValueOp(DenseArrayBase.from_list(i64, [i]), value, x))
        else:
            value = e.emit(llvm.InsertElementOp(value, x, e.const(i)))
    return value


def partial_layout(op: Operation, typ: Attribute, groups: int) -> PartialLayout:
    """Layout of accumulator type ``typ`` (numbers, a 1-D vector of them, or a struct of equal
    number fields: a WGMMA fragment); located errors else."""
    elem = element_type(typ)
    width = getattr(elem, "width", None)
    bits = width.data if width is not None else getattr(elem, "bitwidth", None)
    if isinstance(typ, llvm.LLVMStructType) and any(t != elem for t in typ.types.data):
        raise LocatedError(op, f"cannot fix up a struct accumulator with mixed field types: {typ}")
    if bits is None or bits % 8 or (isinstance(typ, VectorType) and typ.get_num_dims() != 1):
        raise LocatedError(op, f"cannot fix up an accumulator of type {typ} (expected bytes-wide numbers, a 1-D vector or a struct of them)")
    values = (typ.get_shape()[0] if isinstance(typ, VectorType)
              else len(typ.types.data) if isinstance(typ, llvm.LLVMStructType) else 1)
    access = 2 if isinstance(elem, Float16Type) else 1
    if values % access:
        raise LocatedError(op, f"an f16 accumulator needs an even element count (CUTLASS stripes half2), found {typ}")
    return PartialLayout(groups, values, bits // 8, access)


def add_values(e: Emitter, a: SSAValue, b: SSAValue) -> SSAValue:
    elem = element_type(a.type)
    add = arith.AddiOp if isinstance(elem, IntegerType) else arith.AddfOp
    if isinstance(a.type, llvm.LLVMStructType):
        return assemble(e, a.type, [e.emit(add(x, y)) for x, y in zip(elements(e, a), elements(e, b))])
    return e.emit(add(a, b))


def _site(op: Operation, e: Emitter) -> FixupSite:
    return FixupSite(op, e, lowered(e, op.operands[0]), lowered(e, op.operands[1]))


class _FixupSiteLowering(OpLowering):
    """A per-CTA fix-up lock op: ``STEP`` (``wait`` or ``increment``) of its :class:`FixupSite`."""

    STEP = ""

    def lower(self, op: Operation, e: Emitter):
        _not_cluster_coordinated(op)
        getattr(_site(op, e), self.STEP)(e)
        return None


class FixupWaitLowering(_FixupSiteLowering):
    OP = "cutlass.tile_scheduler.fixup_wait"
    STEP = "wait"


class FixupIncrementLowering(_FixupSiteLowering):
    OP = "cutlass.tile_scheduler.fixup_increment"
    STEP = "increment"


def _not_cluster_coordinated(op: Operation) -> None:
    """The lock trio is the per-CTA protocol; an SM100 cluster reduces its pieces together."""
    shape = cta_cluster_of(op.operands[0])
    if shape is not None:
        raise LocatedError(op, f"'{op.name}' is the per-CTA fix-up protocol; the SM100 Stream-K scheduler on a "
                               f"{shape[0]}x{shape[1]} cluster reduces each piece inside the cluster first: use "
                               "cutlass.tile_scheduler.fixup with smem(...)")


def emit_fixup(op: Operation, e: Emitter, acc: SSAValue) -> SSAValue:
    """The generic fix-up of ``acc`` (the lowered accumulator) for ``op``'s work tile."""
    site = _site(op, e)
    typ = acc.type
    layout = partial_layout(op, typ, site.groups)
    whole = e.icmp("eq", site.count, site.kt)
    final = e.icmp("eq", e.add(site.start, site.count), site.kt)

    def load(inner: Emitter) -> SSAValue:
        return site.load_partial(inner, layout, typ)

    def store(inner: Emitter, value: SSAValue) -> None:
        site.store_partial(inner, layout, value)

    def final_piece(inner: Emitter):
        site.wait(inner)
        return [add_values(inner, acc, load(inner))]

    def first_piece(inner: Emitter) -> None:
        store(inner, acc)

    def ordered_add(inner: Emitter) -> None:
        site.wait(inner)
        store(inner, add_values(inner, load(inner), acc))

    def atomic_add(inner: Emitter) -> None:
        site.wait_published(inner)
        site.reduce_partial(inner, layout, acc)

    def later_piece(inner: Emitter) -> None:
        inner.if_(site.nondeterministic(inner), atomic_add, ordered_add)

    def partial_piece(inner: Emitter):
        inner.if_(inner.icmp("eq", site.start, inner.const(0)), first_piece, later_piece)
        site.increment(inner)
        return [acc]

    def split(inner: Emitter):
        return inner.if_(final, final_piece, partial_piece, result_types=[typ])

    return e.if_(whole, lambda inner: [acc], split, result_types=[typ])[0]


PATTERNS = [FixupWaitLowering(), FixupIncrementLowering()]
"""The per-CTA lock protocol's ops; ``cutlass.tile_scheduler.fixup`` itself is lowered by
:class:`.scheduler_cluster.FixupLowering` (per CTA here, or inside an SM100 cluster there)."""
