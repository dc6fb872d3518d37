"""Pipeline facts read off the IR: the shape of the pipeline behind a handshake op's ``%pipe``
operand (traced back to its ``cutlass.pipeline.init``, through executor switches and TileAS
bindings), with CUTLASS-derived defaults filled in, and the module's cluster shape.

Pure reads of the IR, shared by ``convert-pipeline-to-nvvm`` (:mod:`tileorch.transforms.pipeline_to_nvvm`),
``lower-cutlass-pipeline-to-tileas`` and the model checker (:mod:`tileorch.analysis.extract`),
so that the checker models what the lowering emits without importing the lowering.

Op fields are read by the property names of ``docs/dialect-conventions.md``, so readers only
depend on that contract, not on Python class names.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from tileorch.diagnostics import LocatedError

UNIT_THREADS = {"thread": 1, "warp": 32, "warpgroup": 128}


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


RETIRED_ATTR = "cutlass.reads_retired"
"""Discardable unit attribute on ``consumer_release``: every thread of the releasing group has
already retired its reads of the stage (e.g. ``wgmma.wait_group``, which completes the warp
group's whole MMA), so the cluster release needs no group sync before its few signalling
threads arrive (CUTLASS's collective MMA releases exactly like this)."""


def release_sync_id(op: Operation, info: PipelineInfo, group: int) -> int:
    """Named-barrier id of consumer group ``group``'s release sync: ``barrier_id_base`` plus the
    group's position in ``release_sync_groups()`` (ids claimed through ``num_named_barriers()``)."""
    if info.barrier_id_base is None:
        raise LocatedError(
            info.init,
            "cutlass.pipeline.init: the cluster release of a consumer group of several warps needs a "
            "named barrier; set barrier_id_base or run cutlass-allocate-barrier-ids first",
        )
    return info.barrier_id_base + info.init.release_sync_groups().index(group)
