"""Static facts the lowering patterns read: module target and cluster shape, and the shape of
the pipeline behind a handshake op's ``%pipe`` operand (traced back to its ``cutlass.pipeline.init``).

Op fields are read by the property names of ``docs/dialect-conventions.md`` so the patterns only
depend on that contract, not on Python class names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from tileorch.diagnostics import LocatedError

ASYNC_EXEC_NAMES = ("cutlass.async.exec", "nv_tileas.async.exec")
UNIT_THREADS = {"thread": 1, "warp": 32, "warpgroup": 128}
FUNCTION_NAMES = ("func.func", "llvm.func", "nv_tileas.kernel")
SWITCH_NAMES = ("cutlass.pipeline.switch_by_executor", "nv_tileas.async.pipeline.agent_switch")


def module_of(op: Operation) -> ModuleOp | None:
    while op is not None and not isinstance(op, ModuleOp):
        op = op.parent_op()
    return op


def cluster_shape(op: Operation) -> tuple[int, int, int]:
    """``cutlass.cluster_shape`` of the enclosing module (default 1x1x1)."""
    mod = module_of(op)
    attr = mod.attributes.get("cutlass.cluster_shape") if mod is not None else None
    if isinstance(attr, DenseArrayBase):
        vals = list(attr.get_values()) + [1, 1, 1]
        return int(vals[0]), int(vals[1]), int(vals[2])
    return 1, 1, 1


def cluster_size(op: Operation) -> int:
    x, y, z = cluster_shape(op)
    return x * y * z


def target(op: Operation) -> str:
    mod = module_of(op)
    attr = mod.attributes.get("cutlass.target") if mod is not None else None
    return attr.data if attr is not None and hasattr(attr, "data") else "sm_90a"


def prop(op: Operation, name: str) -> Attribute | None:
    found = op.properties.get(name)
    return found if found is not None else op.attributes.get(name)


def int_prop(op: Operation, name: str, default: int | None = None) -> int | None:
    attr = prop(op, name)
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return default


def array_prop(op: Operation, name: str) -> list[int] | None:
    attr = prop(op, name)
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    return None


MASK64 = (1 << 64) - 1
"""Executor masks are ``i64`` attributes read as unsigned bit sets: ``0xffffffff00000000``
(units 32..63) is stored as a negative i64, and bit 63 is a unit, not a sign."""

MAX_MASK_UNITS = 64
"""An executor mask has one bit per unit, at most 64 (a CTA has at most 1024 threads: 32 warps,
8 warp groups; thread masks name threads 0..63)."""


def unsigned_mask(value: int) -> int:
    """``value`` (an i64 mask, possibly negative) as an unsigned 64-bit set."""
    return int(value) & MASK64


def mask_prop(op: Operation, name: str, default: int | None = None) -> int | None:
    """The executor mask ``name`` of ``op`` as an unsigned 64-bit set."""
    value = int_prop(op, name)
    return default if value is None else unsigned_mask(value)


def mask_array_prop(op: Operation, name: str) -> list[int] | None:
    """The executor masks ``name`` of ``op`` (``array<i64: ...>``) as unsigned 64-bit sets."""
    values = array_prop(op, name)
    return None if values is None else [unsigned_mask(v) for v in values]


def enum_prop(op: Operation, name: str, default: str) -> str:
    attr = prop(op, name)
    if attr is None:
        return default
    data = getattr(attr, "data", None)
    return str(getattr(data, "value", data))


def enclosing_exec(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and parent.name not in ASYNC_EXEC_NAMES:
        parent = parent.parent_op()
    return parent


def enclosing_function(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and parent.name not in FUNCTION_NAMES:
        parent = parent.parent_op()
    return parent


def block_dims(op: Operation, attr_name: str) -> tuple[int, ...] | None:
    """The ``nvvm.reqntid`` / ``nvvm.maxntid`` extents declared by the kernel around ``op``."""
    fn = enclosing_function(op)
    attr = fn.attributes.get(attr_name) if fn is not None else None
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    if isinstance(attr, IntegerAttr):
        return (attr.value.data,)
    return None


def is_1d_block(op: Operation) -> bool:
    """The kernel declares a 1-D ``nvvm.reqntid`` (exact extents): ``tid.x`` is the linear id.
    ``maxntid`` bounds only the product of the extents, so it proves nothing about ``tid.y``."""
    dims = block_dims(op, "nvvm.reqntid")
    return dims is not None and all(d == 1 for d in dims[1:])


def cta_thread_bound(op: Operation) -> int | None:
    """Upper bound of the kernel's threads per CTA (product of ``reqntid`` or ``maxntid``)."""
    for name in ("nvvm.reqntid", "nvvm.maxntid"):
        dims = block_dims(op, name)
        if dims:
            return math.prod(dims)
    return None


def covers_whole_cta(op: Operation) -> bool:
    """Every thread of the CTA executes ``op``, as far as executor regions tell: each enclosing
    ``async.exec`` is a ``cta`` executor or has a mask covering every unit below the kernel's
    declared thread bound, and no enclosing executor switch has more than one arm."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name in SWITCH_NAMES and len(parent.regions) > 1:
            return False
        if parent.name in ASYNC_EXEC_NAMES and "cta" not in str(parent.properties.get("executor")):
            bound = cta_thread_bound(op)
            unit = UNIT_THREADS[enum_prop(parent, "executor", "warp")]
            if bound is None:
                return False
            needed = (1 << -(-bound // unit)) - 1
            if mask_prop(parent, "mask", 0) & needed != needed:
                return False
        parent = parent.parent_op()
    return True


def thread_range_of_mask(mask: int, unit_threads: int) -> list[tuple[int, int]]:
    """Contiguous [first, end) thread ranges covered by an executor mask (read as an unsigned
    64-bit set: a negative i64 such as ``0xffffffff00000000`` selects units 32..63)."""
    mask = unsigned_mask(mask)
    ranges: list[tuple[int, int]] = []
    start: int | None = None
    for bit in range(MAX_MASK_UNITS + 1):  # bounded: one more step closes a run ending at bit 63
        if bit < MAX_MASK_UNITS and (mask >> bit) & 1:
            if start is None:
                start = bit
        elif start is not None:
            ranges.append((start * unit_threads, bit * unit_threads))
            start = None
    return ranges


@dataclass
class PipelineInfo:
    """The shape of one ``cutlass.pipeline.init``, with CUTLASS-derived defaults filled in."""

    init: Operation
    stages: int
    producers: int
    consumers: int
    named: bool  # barrier = named_barrier
    elide: str  # none | full | empty
    unit_threads: int
    producer_masks: list[int]
    consumer_masks: list[int]
    full_count: int
    empty_count: int
    producer_arv: list[int]
    consumer_arv: list[int] | None  # explicit per-consumer counts, else derived
    transaction_size: list[int]
    barrier_id_base: int | None
    scope: str = "cluster"  # cta | cluster (the pipeline type's scope)
    multicast: str = "row_col"  # row | col | row_col (the init's multicast set)
    cluster_multicast: bool = False  # scope = cluster on a cluster of more than one CTA

    def group_threads(self, mask: int) -> int:
        return bin(mask).count("1") * self.unit_threads

    def full_id(self, stage_offset: int = 0) -> int:
        return (self.barrier_id_base or 0) + stage_offset

    @property
    def empty_id_base(self) -> int:
        """First named-barrier id of the empty side (after the full side unless it is elided)."""
        return (self.barrier_id_base or 0) + (0 if self.elide == "full" else self.stages)


def _multicast_of(init: Operation) -> str:
    attr = prop(init, "multicast")
    if attr is not None:
        return enum_prop(init, "multicast", "row_col")
    derive = getattr(init, "multicast_direction", None)
    return derive().value if derive is not None else "row_col"


def _pipeline_type_fields(typ: Attribute) -> tuple[int, int, int, str, str]:
    stages = getattr(typ, "stages", None)
    if stages is None:
        stages = typ.stages.data  # nv_tileas.pipeline
        return stages, 1, 1, "mbarrier", "none"
    barrier = getattr(getattr(typ, "barrier", None), "value", "mbarrier")
    elide = getattr(getattr(typ, "elide", None), "value", "none")
    return stages, typ.producers, typ.consumers, barrier, elide


def trace_pipeline_source(value: SSAValue) -> SSAValue:
    """Follow block arguments of executor switches and TileAS bindings back to the defining value."""
    seen = 0
    while seen < 64:
        seen += 1
        if isinstance(value, BlockArgument):
            block: Block = value.block
            owner = block.parent_op()
            if owner is not None and owner.name == "cutlass.pipeline.switch_by_executor":
                region_index = list(owner.regions).index(block.parent)
                per_arm = len(owner.operands) // max(1, len(owner.regions))
                value = owner.operands[region_index * per_arm + value.index]
                continue
            return value
        owner = value.owner
        if owner.name == "nv_tileas.async.pipeline.create_pipeline":
            value = owner.operands[0]
            continue
        if owner.name == "builtin.unrealized_conversion_cast" and len(owner.operands) == 1:
            value = owner.operands[0]
            continue
        return value
    return value


def find_init(op: Operation, pipe: SSAValue) -> Operation:
    """The ``cutlass.pipeline.init`` defining (or consuming the ``create`` of) ``pipe``."""
    source = trace_pipeline_source(pipe)
    owner = source.owner if not isinstance(source, BlockArgument) else None
    if owner is not None and owner.name == "cutlass.pipeline.init":
        return owner
    if owner is not None and owner.name == "cutlass.pipeline.create":
        for use in source.uses:
            if use.operation.name == "cutlass.pipeline.init":
                return use.operation
    raise LocatedError(op, "cannot find the cutlass.pipeline.init of this pipeline (needed for its arrive counts)")


def pipeline_info(op: Operation, pipe: SSAValue) -> PipelineInfo:
    init = find_init(op, pipe)
    stages, producers, consumers, barrier, elide = _pipeline_type_fields(init.results[0].type)
    unit = UNIT_THREADS.get(enum_prop(init, "executor", "warp"), 32)
    producer_masks = mask_array_prop(init, "participants") or [1]
    consumer_masks = mask_array_prop(init, "consumers") or [2]
    arv = array_prop(init, "arvCount")
    if arv is None:
        raise LocatedError(init, "pipeline.init has no derived arvCount; run cutlass-stamp-arrive-counts first")
    scope = getattr(getattr(init.results[0].type, "scope", None), "value", "cluster")
    multicast = scope == "cluster" and cluster_size(init) > 1
    return PipelineInfo(
        init=init,
        stages=stages,
        producers=producers,
        consumers=consumers,
        named=barrier == "named_barrier",
        elide=elide,
        unit_threads=unit,
        producer_masks=producer_masks,
        consumer_masks=consumer_masks,
        full_count=arv[0],
        empty_count=arv[1],
        producer_arv=array_prop(init, "producer_arv_count") or [1] * len(producer_masks),
        consumer_arv=array_prop(init, "consumer_arv_count"),
        transaction_size=array_prop(init, "transaction_size") or [0] * len(producer_masks),
        barrier_id_base=int_prop(init, "barrier_id_base"),
        scope=scope,
        multicast=_multicast_of(init) if multicast else "row_col",
        cluster_multicast=multicast,
    )
