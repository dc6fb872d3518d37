"""The ``cutlass.pipeline.*`` family: a CUTLASS producer/consumer ring as IR.

Twenty ops of the seed roster plus ``get_full_barrier`` / ``get_empty_barrier``.  Custom
forms and semantics are documented in ``docs/dialect-conventions.md``; the generic form
always round-trips.  State arithmetic and address getters are ``Pure``; every op that
waits on or arrives at a barrier carries read and write memory effects.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I16, I32, DenseArrayBase, IntAttr, IntegerAttr, IntegerType, i1, i16, i32, i64
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (IRDLOperation, irdl_op_definition, operand_def, opt_operand_def, opt_prop_def, prop_def,
                       region_def, result_def, traits_def, var_operand_def, var_region_def)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect, MemoryWriteEffect, NoTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.cutlass import consumer_index, executors
from tileorch.dialects.cutlass.arrive_counts import derive_arrive_counts, multicast_peers
from tileorch.dialects.cutlass.attrs import (HARDWARE_NAMED_BARRIERS, NAMED_BARRIER_POOL, RESERVED_BARRIER_IDS,
                                             THREADS_PER_UNIT, CgaAttr, ExecutorType, ExecutorTypeAttr,
                                             MakeParticipantsMode, MakeParticipantsModeAttr, MulticastDirection,
                                             MulticastDirectionAttr, PipelineBarrierElideType, PipelineBarrierType,
                                             PipelineComputeCapabilityAttr, PipelineRole, PipelineRoleAttr,
                                             PipelineScope)
from tileorch.dialects.cutlass.bar_scope import enclosing_async_exec
from tileorch.dialects.cutlass.scheduler_context import check_cga_shape, cluster_shape
from tileorch.dialects.cutlass.syntax import (parse_attr_dict, parse_body, parse_defined_operand,
                                              parse_defined_operands, parse_keyword_operand, print_attr_dict,
                                              print_body, print_keyword_operand, print_operands)
from tileorch.dialects.cutlass.types import DynamicParticipantsType, PipelineStateType, PipelineType

MBARRIER_MAX_COUNT = (1 << 20) - 1
"""Largest arrive count and transaction count of an mbarrier (PTX ISA: 20-bit counts)."""

SMEM_PTR = LLVMPointerType(IntAttr(3))
"""Type of a barrier address: a pointer into shared memory (``!llvm.ptr<3>``)."""

FULL = PipelineBarrierElideType.FULL
EMPTY = PipelineBarrierElideType.EMPTY


# --------------------------------------------------------------------------- checks


def expect_pipeline(op: Operation, value: SSAValue, what: str = "pipeline operand") -> PipelineType:
    """The value's pipeline type, or a diagnostic naming the type found."""
    if not isinstance(value.type, PipelineType):
        raise VerifyException(f"{op.name}: expected the {what} to be a !cutlass.pipeline, found {value.type}")
    return value.type


def expect_state(op: Operation, value: SSAValue, stages: int | None = None) -> PipelineStateType:
    """The value's pipeline_state type (with ``stages`` stages if given), or a diagnostic."""
    if not isinstance(value.type, PipelineStateType):
        raise VerifyException(f"{op.name}: expected a !cutlass.pipeline_state operand, found {value.type}")
    if stages is not None and value.type.stages != stages:
        raise VerifyException(
            f"{op.name}: the state has {value.type.stages} stages but the pipeline has {stages}; "
            f"use a state created from this pipeline (!cutlass.pipeline_state<{stages}>)"
        )
    return value.type


def expect_i1(op: Operation, value: SSAValue | None, what: str) -> None:
    if value is not None and value.type != i1:
        raise VerifyException(f"{op.name}: {what} must be i1, found {value.type}")


def check_not_elided(op: Operation, pipe: PipelineType, forbidden_when: Sequence[PipelineBarrierElideType]) -> None:
    if pipe.elide in forbidden_when:
        raise VerifyException(
            f"{op.name}: the pipeline elides its {pipe.elide.value} barrier (elide = {pipe.elide.value}), "
            f"so this op has no barrier to use; remove the op or keep the {pipe.elide.value} barrier"
        )


def is_contiguous(mask: int) -> bool:
    """True for a positive mask whose set bits form one run (e.g. 0b0110)."""
    low = mask & -mask
    return mask > 0 and ((mask + low) & mask) == 0


def executor_threads(executor: ExecutorType, mask: int) -> int:
    """Threads covered by ``mask`` in units of ``executor`` (not for ``cta``)."""
    return mask.bit_count() * THREADS_PER_UNIT[executor]


def _i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _i32_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, list(values))


def _array_values(attr: DenseArrayBase | None) -> list[int] | None:
    return None if attr is None else [int(v) for v in attr.get_values()]


def _mask_values(attr: DenseArrayBase | None) -> list[int] | None:
    """Executor masks of an ``array<i64: ...>``: unsigned bit sets (bit 63 is a unit, not a sign)."""
    values = _array_values(attr)
    return None if values is None else [v & ((1 << 64) - 1) for v in values]


def _i32(value: int) -> IntegerAttr:
    return IntegerAttr(value, i32)


def check_named_barrier_range(name: str, base: int, count: int) -> None:
    """Ids [base, base + count) claimed by ``name`` are hardware barriers outside the reserved ids:
    the lowering emits them as runtime ``bar.sync`` ids, which neither our verifiers nor ptxas see."""
    if count == 0:
        return
    if base < RESERVED_BARRIER_IDS:
        raise VerifyException(
            f"{name}: barrier_id_base {base} overlaps the reserved named barriers [0, {RESERVED_BARRIER_IDS}) "
            f"(id 0 is __syncthreads and the barrier-init sync, 1..7 CUTLASS's reserved barriers); use a "
            f"base >= {RESERVED_BARRIER_IDS} or let cutlass-allocate-barrier-ids choose one"
        )
    if base + count > HARDWARE_NAMED_BARRIERS:
        raise VerifyException(
            f"{name}: needs {count} named barriers from barrier_id_base {base} (ids {base}..{base + count - 1}), "
            f"past the {HARDWARE_NAMED_BARRIERS} hardware barriers (bar.sync ids 0..{HARDWARE_NAMED_BARRIERS - 1}); "
            "use a lower base, fewer stages, or mbarriers"
        )


# --------------------------------------------------------------------------- scope and multicast

ROW, COL, ROW_COL = MulticastDirection.ROW, MulticastDirection.COL, MulticastDirection.ROW_COL

COPY_OPS = (
    "atom.bulk_copy_g2s",
    "nvvm.cp.async.bulk.shared.cluster.global",
    "nvvm.cp.async.bulk.tensor.shared.cluster.global",
)
"""Bulk / TMA loads into shared memory that complete on an mbarrier and may multicast."""


def is_cta_scoped(pipe: Attribute) -> bool:
    """``!cutlass.pipeline<..., scope = cta>``: barriers served by one CTA only."""
    return isinstance(pipe, PipelineType) and pipe.scope is PipelineScope.CTA


def join_directions(a: MulticastDirection, b: MulticastDirection) -> MulticastDirection:
    """The multicast set that covers both ``a`` and ``b``."""
    return a if a is b else ROW_COL


def direction_covers(outer: MulticastDirection, inner: MulticastDirection) -> bool:
    return outer is ROW_COL or outer is inner


def peer_mask(rank: int, cluster: Sequence[int], direction: MulticastDirection) -> int:
    mask = 0
    for d in multicast_peers(rank, cluster, direction):
        mask |= 1 << d
    return mask


def _copy_mbar(copy: Operation) -> SSAValue | None:
    if copy.name == COPY_OPS[0]:
        return copy.operands[2] if len(copy.operands) > 2 else None
    return getattr(copy, "mbar", None)


def _copy_mask(copy: Operation) -> SSAValue | None:
    if copy.name == COPY_OPS[0]:
        return copy.operands[4] if len(copy.operands) > 4 else None
    return getattr(copy, "multicastMask", None)


def _location(op: Operation) -> str:
    from tileorch.diagnostics import location_str

    return location_str(op)


# --------------------------------------------------------------------------- create / init


@irdl_op_definition
class PipelineCreateOp(IRDLOperation):
    """Allocate (or bind ``storage`` as) the per-stage full and empty barriers of a pipeline.

    ``%p = cutlass.pipeline.create (storage(%smem))? {attrs} : !cutlass.pipeline<...>``
    """

    name = "cutlass.pipeline.create"

    storage = opt_operand_def()
    pipeline = result_def(PipelineType)

    traits = traits_def(MemoryAllocEffect())

    def __init__(self, pipeline_type: PipelineType, storage: SSAValue | None = None):
        super().__init__(operands=[[storage] if storage is not None else []], result_types=[pipeline_type])

    def verify_(self) -> None:
        if self.storage is not None and self.storage.type != SMEM_PTR:
            raise VerifyException(
                f"cutlass.pipeline.create: storage must be a shared-memory pointer (!llvm.ptr<3>) to the "
                f"2 x stages i64 mbarrier words, found {self.storage.type}; pass shared memory (e.g. from "
                "atom.dynamic_smem) or omit storage to let the lowering allocate it"
            )

    def print(self, printer: Printer) -> None:
        print_keyword_operand(printer, "storage", self.storage)
        print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.pipeline.type)

    @classmethod
    def parse(cls, parser: Parser) -> PipelineCreateOp:
        storage = parse_keyword_operand(parser, "storage")
        _, attrs = parse_attr_dict(parser, cls)
        parser.parse_punctuation(":")
        pipe_type = parser.parse_type()
        op = cls(pipe_type, storage)
        op.attributes |= attrs
        return op


@irdl_op_definition
class PipelineInitOp(IRDLOperation):
    """Initialize every stage barrier with its arrive count; returns the initialized pipeline.

    ``%r = cutlass.pipeline.init %pipe (dynamic(%participants))? {numStages = S : i32, ...}``
    (result type = type of ``%pipe``).  Masks are in units of ``executor``.
    """

    name = "cutlass.pipeline.init"

    pipeline = operand_def()
    dynamic_participants = opt_operand_def(DynamicParticipantsType)
    initialized = result_def()

    numStages = prop_def(IntegerAttr[I32])
    executor = opt_prop_def(ExecutorTypeAttr)
    participants = prop_def(DenseArrayBase)
    consumers = prop_def(DenseArrayBase)
    producer_arv_count = opt_prop_def(DenseArrayBase)
    consumer_arv_count = opt_prop_def(DenseArrayBase)
    transaction_size = opt_prop_def(DenseArrayBase)
    barrier_id_base = opt_prop_def(IntegerAttr[I32])
    compute_capability = opt_prop_def(PipelineComputeCapabilityAttr)
    multicast = opt_prop_def(MulticastDirectionAttr)
    arvCount = opt_prop_def(DenseArrayBase)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        pipeline: SSAValue,
        participants: Sequence[int],
        consumers: Sequence[int],
        *,
        executor: ExecutorType | str = ExecutorType.WARP,
        num_stages: int | None = None,
        producer_arv_count: Sequence[int] | None = None,
        consumer_arv_count: Sequence[int] | None = None,
        transaction_size: Sequence[int] | None = None,
        barrier_id_base: int | None = None,
        dynamic_participants: SSAValue | None = None,
    ):
        stages = num_stages if num_stages is not None else getattr(pipeline.type, "stages", 0)
        props: dict[str, Attribute] = {
            "numStages": _i32(stages),
            "executor": ExecutorTypeAttr(ExecutorType(executor)),
            "participants": _i64_array(participants),
            "consumers": _i64_array(consumers),
        }
        for key, values in (
            ("producer_arv_count", producer_arv_count),
            ("consumer_arv_count", consumer_arv_count),
            ("transaction_size", transaction_size),
        ):
            if values is not None:
                props[key] = _i32_array(values)
        if barrier_id_base is not None:
            props["barrier_id_base"] = _i32(barrier_id_base)
        super().__init__(
            operands=[pipeline, [dynamic_participants] if dynamic_participants is not None else []],
            result_types=[pipeline.type],
            properties=props,
        )

    # -- accessors used by passes and lowerings
    def pipeline_type(self) -> PipelineType:
        assert isinstance(self.pipeline.type, PipelineType)
        return self.pipeline.type

    def executor_type(self) -> ExecutorType:
        return self.executor.data if self.executor is not None else ExecutorType.WARP

    def producer_masks(self) -> list[int]:
        return _mask_values(self.participants) or []

    def consumer_masks(self) -> list[int]:
        return _mask_values(self.consumers) or []

    def producer_arrive_counts(self) -> list[int] | None:
        return _array_values(self.producer_arv_count)

    def consumer_arrive_counts(self) -> list[int] | None:
        return _array_values(self.consumer_arv_count)

    def transaction_sizes(self) -> list[int] | None:
        return _array_values(self.transaction_size)

    def arrive_counts(self) -> tuple[int, int] | None:
        """The stamped (full, empty) per-stage arrive counts, if the stamping pass ran."""
        values = _array_values(self.arvCount)
        return None if values is None else (values[0], values[1])

    def is_cta_scoped(self) -> bool:
        return is_cta_scoped(self.pipeline.type)

    def cluster_multicast(self) -> bool:
        """Does this pipeline use cluster semantics: scope = cluster on a cluster of more than one
        CTA (releases reach the multicast peers, counts scale with them)?"""
        return not self.is_cta_scoped() and math.prod(cluster_shape(self)) > 1

    def mask_ops(self) -> list[GetProducerMaskOp]:
        """The ``get_producer_mask`` ops of this pipeline in the enclosing module."""
        top = self
        while top.parent_op() is not None:
            top = top.parent_op()
        return [
            op for op in top.walk()
            if isinstance(op, GetProducerMaskOp) and pipeline_init_of(op.pipeline) is self
        ]

    def derived_multicast(self) -> MulticastDirection:
        """Union of the explicit directions of this pipeline's ``get_producer_mask`` ops (the
        CTAs that receive any of this CTA's loads); ``row_col`` when none names one."""
        found: MulticastDirection | None = None
        for op in self.mask_ops():
            if op.direction is not None:
                d = op.direction.data
                found = d if found is None else join_directions(found, d)
        return found or ROW_COL

    def multicast_direction(self) -> MulticastDirection:
        """The pipeline's multicast set: the explicit ``multicast`` property, else derived."""
        return self.multicast.data if self.multicast is not None else self.derived_multicast()

    def release_sync_groups(self) -> list[int]:
        """Consumer groups whose ``consumer_release`` synchronises on a named barrier of their own
        before signalling: on an mbarrier pipeline with an empty barrier, in a cluster of more than
        one CTA, without explicit ``consumer_arv_count`` (the release then arrives from a few
        threads on behalf of the group), every group of more than one warp.  The i-th listed group
        uses id ``barrier_id_base + i``."""
        pipe = self.pipeline.type
        if (
            not isinstance(pipe, PipelineType)
            or pipe.barrier is PipelineBarrierType.NAMED_BARRIER
            or pipe.elide is PipelineBarrierElideType.EMPTY
            or self.consumer_arv_count is not None
            or not self.cluster_multicast()
        ):
            return []
        executor, warp = self.executor_type(), THREADS_PER_UNIT[ExecutorType.WARP]
        return [c for c, mask in enumerate(self.consumer_masks()) if executor_threads(executor, mask) > warp]

    def num_named_barriers(self) -> int:
        """Named-barrier ids this pipeline claims: one per stage per non-elided barrier of a
        named-barrier pipeline; one per ``release_sync_groups()`` entry of an mbarrier pipeline."""
        pipe = self.pipeline.type
        if not isinstance(pipe, PipelineType):
            return 0
        if pipe.barrier is not PipelineBarrierType.NAMED_BARRIER:
            return len(self.release_sync_groups())
        kinds = 2 if pipe.elide is PipelineBarrierElideType.NONE else 1
        return pipe.stages * kinds

    ARRAY_TYPES: ClassVar[dict[str, int]] = {
        "participants": 64, "consumers": 64, "producer_arv_count": 32, "consumer_arv_count": 32,
        "transaction_size": 32, "arvCount": 32,
    }

    def _verify_array_types(self) -> None:
        for key, width in self.ARRAY_TYPES.items():
            attr = self.properties.get(key)
            if attr is None:
                continue
            elt = getattr(attr, "elt_type", None)
            if not isinstance(elt, IntegerType) or elt.width.data != width:
                what = "executor masks" if width == 64 else "counts"
                raise VerifyException(
                    f"cutlass.pipeline.init: {key} holds {what}, so it must be array<i{width}: ...>, found {attr}"
                )

    def verify_(self) -> None:
        self._verify_array_types()
        pipe = expect_pipeline(self, self.pipeline)
        if self.initialized.type != pipe:
            raise VerifyException(
                f"cutlass.pipeline.init: the result type must equal the input pipeline type {pipe}, "
                f"found {self.initialized.type}"
            )
        stages = self.numStages.value.data
        if stages <= 0 or stages != pipe.stages:
            raise VerifyException(
                f"cutlass.pipeline.init: invalid numStages: expected {pipe.stages} (a positive count equal "
                f"to the stage count of {pipe}), found {stages}"
            )
        producers, consumers = self.producer_masks(), self.consumer_masks()
        if len(producers) != pipe.producers:
            raise VerifyException(
                f"cutlass.pipeline.init: participants length mismatch: the pipeline type declares "
                f"{pipe.producers} producer group(s), participants has {len(producers)} mask(s)"
            )
        if len(consumers) != pipe.consumers:
            raise VerifyException(
                f"cutlass.pipeline.init: consumers length mismatch: the pipeline type declares "
                f"{pipe.consumers} consumer group(s), consumers has {len(consumers)} mask(s)"
            )
        executor = self.executor_type()
        if executor is ExecutorType.CTA:
            raise VerifyException(
                "cutlass.pipeline.init: executor must be thread, warp or warpgroup (the unit of the "
                "participant masks), found cta"
            )
        groups = [("producer", i, m) for i, m in enumerate(producers)]
        groups += [("consumer", i, m) for i, m in enumerate(consumers)]
        for role, i, mask in groups:
            if mask <= 0:
                raise VerifyException(
                    f"cutlass.pipeline.init: {role} group {i} has an empty executor mask ({mask}); "
                    f"give it at least one {executor.value}"
                )
        for a, (role_a, i, mask_a) in enumerate(groups):
            for role_b, j, mask_b in groups[a + 1 :]:
                if mask_a & mask_b:
                    raise VerifyException(
                        f"cutlass.pipeline.init: {role_a} group {i} (mask {mask_a:#x}) and {role_b} group {j} "
                        f"(mask {mask_b:#x}) share executor units {mask_a & mask_b:#x}; producer and "
                        "consumer groups must be distinct"
                    )
        self._verify_group_units(executor, groups)
        self._verify_per_group("producer_arv_count", self.producer_arrive_counts(), pipe.producers, "producer", 1)
        self._verify_per_group("consumer_arv_count", self.consumer_arrive_counts(), pipe.consumers, "consumer", 1)
        self._verify_per_group("transaction_size", self.transaction_sizes(), pipe.producers, "producer", 0)
        self._verify_arrive_counts_fit(executor, "producer_arv_count", self.producer_arrive_counts(), producers)
        self._verify_arrive_counts_fit(executor, "consumer_arv_count", self.consumer_arrive_counts(), consumers)
        if self.transaction_size is not None and pipe.elide is FULL:
            raise VerifyException(
                "cutlass.pipeline.init: transaction_size needs the full barrier, but the pipeline elides it"
            )
        if pipe.barrier is PipelineBarrierType.NAMED_BARRIER:
            for role, i, mask in groups:
                threads = executor_threads(executor, mask)
                if threads % 32:
                    raise VerifyException(
                        f"cutlass.pipeline.init: named barriers count whole warps, but {role} group {i} "
                        f"covers {threads} threads; use warp-granular masks"
                    )
        self._verify_barrier_ids()
        self._verify_dynamic_participants(pipe)
        self._verify_scope(pipe)
        self._verify_compute_capability()
        self._verify_single_init()
        if self.arvCount is not None:
            self._verify_arrive_counts()

    def _verify_group_units(self, executor: ExecutorType, groups: list[tuple[str, int, int]]) -> None:
        """Masks name units of a CTA of at most 1024 threads (and of the kernel's declared size)."""
        kind = executor.value
        limit, unit = executors.MAX_UNITS[kind], executors.UNIT_THREADS[kind]
        cta = executors.cta_size(self)
        for role, i, mask in groups:
            top = executors.highest_unit(mask)
            if top >= limit:
                raise VerifyException(
                    f"cutlass.pipeline.init: {role} group {i} mask {mask:#x} names {kind} {top}, but a CTA has at "
                    f"most {limit} {executors.UNIT_NAMES[kind]} ({executors.MAX_CTA_THREADS} threads)"
                )
            if cta is not None and (top + 1) * unit > cta[0]:
                raise VerifyException(
                    f"cutlass.pipeline.init: {role} group {i} mask {mask:#x} names {kind} {top} (threads up to "
                    f"{(top + 1) * unit - 1}), but the CTA has {cta[0]} threads ({cta[1]})"
                )

    def _verify_scope(self, pipe: PipelineType) -> None:
        """A CTA-scoped pipeline neither multicasts nor takes cluster-derived participants."""
        if "scope" in self.attributes:
            raise VerifyException(
                f"cutlass.pipeline.init: scope is a parameter of the pipeline type, not of its init; write "
                f"!cutlass.pipeline<stages = {pipe.stages}, producers = {pipe.producers}, consumers = "
                f"{pipe.consumers}, scope = cta> on the cutlass.pipeline.create"
            )
        if pipe.scope is not PipelineScope.CTA:
            return
        if self.multicast is not None:
            raise VerifyException(
                f"cutlass.pipeline.init: multicast = {self.multicast.data.value} on a CTA-scoped pipeline "
                f"({pipe}): its stages are filled and released inside one CTA; drop multicast or use "
                "scope = cluster"
            )
        dyn = self.dynamic_participants
        owner = dyn.owner if dyn is not None else None
        if isinstance(owner, PipelineMakeParticipantsOp) and owner.mode.data is MakeParticipantsMode.CGA:
            raise VerifyException(
                "cutlass.pipeline.init: CGA-derived participants (cutlass.pipeline.make_participants cga) "
                f"on a CTA-scoped pipeline ({pipe}): a CTA-scoped pipeline has no cluster peers; use "
                "custom participants or scope = cluster"
            )

    def _verify_compute_capability(self) -> None:
        if self.compute_capability is None:
            return
        from tileorch.dialects.cutlass.scheduler_context import target_name, target_sm

        wanted = int(self.compute_capability.data.value.removeprefix("sm"))
        if wanted > target_sm(self):
            raise VerifyException(
                f"cutlass.pipeline.init: compute_capability {self.compute_capability.data.value} needs an "
                f"sm_{wanted} family target, but the module's cutlass.target is {target_name(self)}"
            )

    def _verify_single_init(self) -> None:
        """A pipeline's barriers are initialised once (mbarrier.init of a live barrier is undefined)."""
        source = self.pipeline
        inits = [use.operation for use in source.uses if isinstance(use.operation, PipelineInitOp)]
        owner = source.owner
        if isinstance(owner, PipelineInitOp):
            raise VerifyException(
                "cutlass.pipeline.init: the pipeline is already initialised (its operand is the result of "
                "another cutlass.pipeline.init); initialise the cutlass.pipeline.create result once"
            )
        if len(inits) > 1:
            block = self.parent_block()
            if block is not None and all(i.parent_block() is block for i in inits):
                order = {id(o): n for n, o in enumerate(block.ops)}
                inits.sort(key=lambda o: order[id(o)])
        if len(inits) > 1 and inits[0] is not self:
            first = inits[0]
            from tileorch.diagnostics import location_str

            raise VerifyException(
                f"cutlass.pipeline.init: the pipeline is initialised twice (first at {location_str(first)}); "
                "each cutlass.pipeline.create is initialised by one cutlass.pipeline.init"
            )

    def _verify_arrive_counts(self) -> None:
        """A present ``arvCount`` must be what ``cutlass-stamp-arrive-counts`` derives."""
        values = _array_values(self.arvCount) or []
        if len(values) != 2:
            raise VerifyException(
                f"cutlass.pipeline.init: arvCount holds (full, empty) arrive counts, found {len(values)} entries"
            )
        derived = derive_arrive_counts(self, cluster_shape(self))
        if tuple(values) != derived:
            raise VerifyException(
                f"cutlass.pipeline.init: arvCount = [{values[0]}, {values[1]}] differs from the derived "
                f"(full, empty) arrive counts [{derived[0]}, {derived[1]}]; arvCount is derived by "
                "cutlass-stamp-arrive-counts: remove it (or set producer_arv_count / consumer_arv_count)"
            )

    def _verify_per_group(self, key: str, values: list[int] | None, expected: int, role: str, minimum: int) -> None:
        if values is None:
            return
        if len(values) != expected:
            raise VerifyException(
                f"cutlass.pipeline.init: {key} needs one entry per {role} ({expected}), found {len(values)}"
            )
        for i, value in enumerate(values):
            if value < minimum:
                raise VerifyException(f"cutlass.pipeline.init: {key}[{i}] must be >= {minimum}, found {value}")
            if value > MBARRIER_MAX_COUNT:
                raise VerifyException(
                    f"cutlass.pipeline.init: {key}[{i}] = {value} does not fit an mbarrier's 20-bit "
                    f"{'transaction' if key == 'transaction_size' else 'arrive'} count (at most {MBARRIER_MAX_COUNT})"
                )

    def _verify_arrive_counts_fit(self, executor: ExecutorType, key: str, counts: list[int] | None,
                                  masks: list[int]) -> None:
        """Each selected thread of a group arrives once per phase, so an explicit arrive count above
        the group's thread count never completes its barrier (the lowering's check, made a verifier
        rule so ``tileorch-opt`` rejects it too)."""
        if counts is None or len(counts) != len(masks):
            return
        for i, (count, mask) in enumerate(zip(counts, masks)):
            threads = executor_threads(executor, mask)
            if count > threads:
                raise VerifyException(
                    f"cutlass.pipeline.init: {key}[{i}] = {count} but its group (mask {mask:#x}, "
                    f"{executor.value}) has {threads} threads; each thread arrives once per phase, so the "
                    f"barrier could never complete"
                )

    def _verify_barrier_ids(self) -> None:
        if self.barrier_id_base is None:
            return
        base = self.barrier_id_base.value.data
        if not 0 <= base < NAMED_BARRIER_POOL:
            raise VerifyException(
                f"cutlass.pipeline.init: barrier_id_base must be in [0, {NAMED_BARRIER_POOL}) "
                f"(the per-CTA named-barrier pool), found {base}"
            )
        check_named_barrier_range(self.name, base, self.num_named_barriers())
        from tileorch.dialects.cutlass.barrier_pool import check_claimant

        check_claimant(self)

    def _verify_dynamic_participants(self, pipe: PipelineType) -> None:
        dyn = self.dynamic_participants
        if dyn is None:
            return
        assert isinstance(dyn.type, DynamicParticipantsType)
        if (dyn.type.producers, dyn.type.consumers) != (pipe.producers, pipe.consumers):
            raise VerifyException(
                f"cutlass.pipeline.init: dynamic participants are {dyn.type.producers} x {dyn.type.consumers} "
                f"but the pipeline has {pipe.producers} producer(s) x {pipe.consumers} consumer(s)"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.pipeline)
        print_keyword_operand(printer, "dynamic", self.dynamic_participants)
        print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> PipelineInitOp:
        pipeline = parse_defined_operand(parser)
        dynamic = parse_keyword_operand(parser, "dynamic")
        props, attrs = parse_attr_dict(parser, cls)
        return cls.create(
            operands=[pipeline] + ([dynamic] if dynamic is not None else []),
            result_types=[pipeline.type],
            properties=props,
            attributes=attrs,
        )


@irdl_op_definition
class PipelineMakeParticipantsOp(IRDLOperation):
    """Build a runtime producers x consumers participants matrix.

    ``custom(%e0, ...)``: explicit i32 entries, row-major (producer major);
    ``cga {cgaShape = #cutlass.cga_attr<x, y, z>}``: derived from a CGA shape.
    """

    name = "cutlass.pipeline.make_participants"

    participants = var_operand_def(I32)
    result = result_def(DynamicParticipantsType)

    mode = prop_def(MakeParticipantsModeAttr)
    cgaShape = opt_prop_def(CgaAttr)

    traits = traits_def(Pure())

    def __init__(
        self,
        result_type: DynamicParticipantsType,
        participants: Sequence[SSAValue] = (),
        cga_shape: Sequence[int] | None = None,
    ):
        mode = MakeParticipantsMode.CGA if cga_shape is not None else MakeParticipantsMode.CUSTOM
        props: dict[str, Attribute] = {"mode": MakeParticipantsModeAttr(mode)}
        if cga_shape is not None:
            props["cgaShape"] = CgaAttr(cga_shape)
        super().__init__(operands=[list(participants)], result_types=[result_type], properties=props)

    def verify_(self) -> None:
        res = self.result.type
        assert isinstance(res, DynamicParticipantsType)
        if self.mode.data is MakeParticipantsMode.CUSTOM:
            if self.cgaShape is not None:
                raise VerifyException(
                    "cutlass.pipeline.make_participants: custom mode takes explicit participants, not a "
                    "cgaShape; drop cgaShape or use `cga` mode"
                )
            if len(self.participants) != res.producers * res.consumers:
                raise VerifyException(
                    f"cutlass.pipeline.make_participants: dynamic participants need producers x consumers = "
                    f"{res.producers} x {res.consumers} = {res.producers * res.consumers} entries, "
                    f"found {len(self.participants)}"
                )
        else:
            if self.participants:
                raise VerifyException(
                    f"cutlass.pipeline.make_participants: cga mode derives participants from cgaShape and "
                    f"takes no explicit entries, found {len(self.participants)}; use `custom` mode"
                )
            if self.cgaShape is None:
                raise VerifyException(
                    "cutlass.pipeline.make_participants: cga mode needs a cgaShape "
                    "(e.g. {cgaShape = #cutlass.cga_attr<2, 1, 1>})"
                )
            check_cga_shape(self, self.cgaShape.shape, "cutlass.pipeline.make_participants: cgaShape")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.mode.data.value}")
        if self.participants:
            printer.print_string("(")
            print_operands(printer, self.participants)
            printer.print_string(")")
        print_attr_dict(printer, self, skip=("mode",))
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> PipelineMakeParticipantsOp:
        mode = parser.parse_str_enum(MakeParticipantsMode)
        operands: list[SSAValue] = []
        if parser.parse_optional_punctuation("(") is not None:
            operands = parse_defined_operands(parser)
            parser.parse_punctuation(")")
        props, attrs = parse_attr_dict(parser, cls)
        props["mode"] = MakeParticipantsModeAttr(mode)
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        return cls.create(operands=operands, result_types=[result_type], properties=props, attributes=attrs)


# --------------------------------------------------------------------------- handshake ops


class _PipeStateSyntax(IRDLOperation):
    """Shared verifier and custom form ``%pipe, %state (kw(%v))* {attrs}`` of (pipeline, state) ops.

    Subclasses define ``pipeline`` and ``state`` operands, optional i1 operands named in
    ``KEYWORD_OPERANDS``, and ``FORBIDDEN_WHEN`` (the elided barrier that makes the op illegal).
    """

    KEYWORD_OPERANDS: ClassVar[tuple[str, ...]] = ()
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = ()
    RESULT_TYPE: ClassVar[Attribute | None] = None
    ROLE: ClassVar[str | None] = None
    """``producer`` / ``consumer``: the side of the pipeline whose executors may run this op."""
    TOKEN_FROM: ClassVar[str | None] = None
    """The try-op whose result is this op's ``token`` operand."""
    WAITS: ClassVar[bool] = False
    """The op waits on (or probes) the phase of its state's stage barrier (:func:`check_start_phase`)."""

    def verify_(self) -> None:
        pipe = expect_pipeline(self, self.operands[0])
        expect_state(self, self.operands[1], pipe.stages)
        for keyword in self.KEYWORD_OPERANDS:
            expect_i1(self, getattr(self, keyword), keyword)
        check_not_elided(self, pipe, self.FORBIDDEN_WHEN)
        if self.TOKEN_FROM is not None:
            check_token_source(self, getattr(self, "token", None), self.TOKEN_FROM)
        if self.ROLE is not None:
            check_role(self, self.operands[0], self.ROLE)
            check_state_not_stale(self, self.operands[1], pipe.stages,
                                  self.WAITS or isinstance(self, ProducerTailOp))
        if self.WAITS:
            check_start_phase(self, self.operands[1], self.ROLE)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_operands(printer, self.operands[:2])
        for keyword in self.KEYWORD_OPERANDS:
            print_keyword_operand(printer, keyword, getattr(self, keyword))
        print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> IRDLOperation:
        pipeline = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        state = parse_defined_operand(parser)
        extra = [parse_keyword_operand(parser, keyword) for keyword in cls.KEYWORD_OPERANDS]
        props, attrs = parse_attr_dict(parser, cls)
        return cls.create(
            operands=[pipeline, state] + [v for v in extra if v is not None],
            result_types=[cls.RESULT_TYPE] if cls.RESULT_TYPE is not None else [],
            properties=props,
            attributes=attrs,
        )


def pipeline_init_of(value: SSAValue, depth: int = 0) -> PipelineInitOp | None:
    """The ``cutlass.pipeline.init`` that initialised the pipeline ``value`` (through the block
    arguments of ``switch_by_executor`` arms), or None when it cannot be seen."""
    if depth > 16:
        return None
    owner = value.owner
    if isinstance(owner, PipelineInitOp):
        return owner
    if isinstance(owner, PipelineCreateOp):
        inits = [u.operation for u in value.uses if isinstance(u.operation, PipelineInitOp)]
        return inits[0] if len(inits) == 1 else None
    if isinstance(owner, Block):
        switch = owner.parent_op()
        if isinstance(switch, SwitchByExecutorOp):
            region = owner.parent
            arm = next((i for i, r in enumerate(switch.arms) if r is region), None)
            index = value.index if hasattr(value, "index") else None
            if arm is not None and index is not None:
                group = switch.arm_pipelines(arm)
                if index < len(group):
                    return pipeline_init_of(group[index], depth + 1)
    return None


def group_threads(init: PipelineInitOp, role: str) -> int:
    """Threads of all producer (or consumer) groups of ``init``."""
    unit = THREADS_PER_UNIT.get(init.executor_type())
    if unit is None:
        return 0
    threads = 0
    for mask in init.producer_masks() if role == "producer" else init.consumer_masks():
        threads |= executors.expand(mask, unit)
    return threads


def consumer_group_threads(value: SSAValue) -> list[int] | None:
    """Thread bit set of each consumer group of the pipeline's ``cutlass.pipeline.init``."""
    storage = consumer_index.cutlass_pipeline_of(value)
    init = pipeline_init_of(storage) if storage is not None else None
    if init is None:
        return None
    try:
        unit = THREADS_PER_UNIT.get(init.executor_type())
        masks = init.consumer_masks()
    except Exception:  # noqa: BLE001 - an init that does not verify reports itself
        return None
    if unit is None or not masks:
        return None
    return [executors.expand(m, unit) for m in masks]


def start_state_create(state: SSAValue) -> Operation | None:
    """The ``cutlass.pipeline.state.create`` whose state ``state`` is on its first use: the state itself, or the
    iteration argument of an ``scf.for`` whose initial value it is (read by the first iteration); None otherwise."""
    owner = state.owner
    if isinstance(owner, Block):
        loop = owner.parent_op()
        if loop is None or loop.name != "scf.for" or state.index == 0 or owner is not loop.regions[0].blocks[0]:
            return None
        init_at = 2 + state.index  # (lower, upper, step, inits...) for (iv, iter_args...)
        if init_at >= len(loop.operands):
            return None
        owner = loop.operands[init_at].owner
    return owner if isinstance(owner, StateCreateOp) else None


def check_start_phase(op: Operation, state: SSAValue, role: str | None) -> None:
    """A wait of one side on a state created for the other side is wrong on its first use, whatever the trip counts:
    a consumer's wait on a producer start state (phase 1) passes at once on a fresh full barrier, before the
    stage's data has landed; a producer's acquire on a consumer start state (phase 0) waits for a release of a
    stage no consumer has read yet (a deadlock).  Only the state's first use is decided here (the state as created,
    or an ``scf.for`` iteration argument it starts): ``tileorch check`` reports the same as parity-aliasing."""
    create = start_state_create(state)
    if create is None or role is None or create.role.data.value == role:
        return
    made = create.role.data.value
    what = ("passes at once on a fresh full barrier, before the stage's data has landed (the consumer reads an "
            "empty stage)" if role == "consumer" else
            "waits for a release of a stage no consumer has read yet, which never comes (a deadlock)")
    raise VerifyException(
        f"{op.name} is a {role}-side wait, but its state starts as a {made} state (phase "
        f"{1 if made == 'producer' else 0}, cutlass.pipeline.state.create ... {made} at {_location(create)}): its "
        f"first wait {what}; parity-aliasing: create the {role}'s state with `{role}`"
    )


def state_origin(state: SSAValue) -> Operation | None:
    """The ``cutlass.pipeline.state.create`` a state descends from (through ``state.increment`` and ``scf.for`` /
    ``scf.while`` iteration arguments and results); None where the chain leaves these ops."""
    for _ in range(256):
        owner = state.owner
        if isinstance(owner, StateCreateOp):
            return owner
        if isinstance(owner, StateIncrementOp):
            state = owner.operands[0]
            continue
        if isinstance(owner, Block):
            loop = owner.parent_op()
            if loop is None:
                return None
            if loop.name == "scf.for" and owner is loop.regions[0].blocks[0] and state.index > 0 \
                    and 2 + state.index < len(loop.operands):
                state = loop.operands[2 + state.index]
                continue
            if loop.name == "scf.while" and owner is loop.regions[0].blocks[0] and state.index < len(loop.operands):
                state = loop.operands[state.index]
                continue
            if loop.name == "scf.while" and owner is loop.regions[1].blocks[0]:
                cond = loop.regions[0].blocks[0].last_op
                if cond is not None and 1 + state.index < len(cond.operands):
                    state = cond.operands[1 + state.index]
                    continue
            return None
        if isinstance(owner, Operation) and owner.name == "scf.for" and 3 + state.index < len(owner.operands):
            state = owner.operands[3 + state.index]
            continue
        return None
    return None


def _inside(value: SSAValue, loop: Operation) -> bool:
    owner = value.owner
    op = owner.parent_op() if isinstance(owner, Block) else owner
    while op is not None:
        if op is loop:
            return True
        op = op.parent_op()
    return False


def check_state_not_stale(op: Operation, state: SSAValue, stages: int | None = None,
                          reads_phase: bool = True) -> None:
    """A handshake inside an ``scf.for`` / ``scf.while`` on a state defined before the loop, while the loop carries
    (advances) a state of the same ``state.create``: every iteration waits on / releases / fills that one stage and
    phase while the loop-carried state moves on -- a wait on the completed phase passes at once (a read of a stage
    being refilled), a release / commit arrives on one stage round after round.  Decided by the IR alone, so the
    compile refuses it as ``tileorch check`` does (sweep 35: a ``consume %ready, %start`` in the loop over ``%s`` was
    compiled and "proved").

    An op that does not read the phase (``consumer_release``, ``producer_commit``: they arrive on the barrier of
    the state's stage index) names the same stage through any state of a 1-stage pipeline (the index is always 0),
    so with ``stages`` = 1 it is not refused (``reads_phase`` False)."""
    if not reads_phase and stages == 1:
        return
    origin = state_origin(state)
    if origin is None:
        return
    loop = op.parent_op()
    while loop is not None:
        if loop.name in ("scf.for", "scf.while") and not _inside(state, loop):
            blocks = loop.regions[0].blocks[0].args[1:] if loop.name == "scf.for" else \
                [a for r in loop.regions for a in r.blocks[0].args]
            if any(isinstance(a.type, PipelineStateType) and state_origin(a) is origin for a in blocks):
                name = f"%{state.name_hint}" if state.name_hint else "a state"
                if reads_phase:
                    why = "would use that same stage and phase (a wait on the completed phase passes at once)"
                else:
                    barrier = "full" if op.name.endswith("producer_commit") else "empty"
                    why = (f"would arrive on the {barrier} barrier of that same stage (the stages of the "
                           "loop-carried state never get their arrivals)")
                raise VerifyException(
                    f"{op.name} uses pipeline state {name}, defined before the enclosing {loop.name} that advances "
                    f"its state variable (cutlass.pipeline.state.create at {_location(origin)}): every iteration "
                    f"{why} while the loop-carried state moves on; use the loop-carried state")
        loop = loop.parent_op()


def check_role(op: Operation, pipeline: SSAValue, role: str) -> None:
    """A producer-side op runs on the pipeline's producer threads, a consumer-side op on its
    consumer threads.  Directly in an executor region every thread of the executor runs the op, so
    the executor must lie within the role's threads; under a conditional (``scf.if`` on a thread
    id, an elected leader) some of them may, so the executor must at least overlap the role."""
    init = pipeline_init_of(pipeline)
    enclosing = executors.enclosing_set(op)
    if init is None or enclosing is None:
        return
    try:
        role_threads = group_threads(init, role)
    except Exception:  # noqa: BLE001 - an init that does not verify is reported at the init
        return
    threads, where, container = enclosing
    if not role_threads:
        return
    unconditional = executors.path_is_unconditional(op, container)
    outside = threads & ~role_threads
    if (unconditional and outside) or not threads & role_threads:
        from tileorch.diagnostics import location_str

        raise VerifyException(
            f"{op.name} is a {role}-side op, but {where} runs {executors.thread_range_text(outside or threads)}, "
            f"which are not {role}s of the pipeline (its {role} groups cover "
            f"{executors.thread_range_text(role_threads)}; cutlass.pipeline.init at {location_str(init)})"
        )


def check_token_source(op: Operation, token: SSAValue | None, expected: str) -> None:
    """``token(%t)`` of producer_acquire comes from producer_try_acquire, of consumer_wait from
    consumer_try_wait (a token of the other kind probes the other barrier)."""
    if token is None:
        return
    owner = token.owner
    if isinstance(owner, Operation) and owner.name in (ProducerTryAcquireOp.name, ConsumerTryWaitOp.name):
        if owner.name != expected:
            raise VerifyException(
                f"{op.name}: the token comes from {owner.name}, which probes the other barrier; use the "
                f"result of {expected} on the same pipeline and state"
            )
        if owner.operands[0] is not op.operands[0] and pipeline_init_of(owner.operands[0]) is not pipeline_init_of(op.operands[0]):
            raise VerifyException(f"{op.name}: the token comes from a {expected} on another pipeline")


class _PipeStateOp(_PipeStateSyntax):
    """A handshake on the stage barriers with operands ``pipeline`` and ``state`` only."""

    pipeline = operand_def()
    state = operand_def()
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, pipeline: SSAValue, state: SSAValue):
        super().__init__(operands=[pipeline, state])


class _BlockingWaitOp(_PipeStateSyntax):
    """A blocking wait on a stage barrier that ``token(%t)`` (a result of ``TOKEN_FROM``) skips
    when %t is true."""

    pipeline = operand_def()
    state = operand_def()
    token = opt_operand_def()
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    KEYWORD_OPERANDS: ClassVar[tuple[str, ...]] = ("token",)

    def __init__(self, pipeline: SSAValue, state: SSAValue, token: SSAValue | None = None):
        super().__init__(operands=[pipeline, state, [] if token is None else [token]])


class _ProbeOp(_PipeStateSyntax):
    """A non-blocking probe of a stage barrier: its i1 result (declared by each op) is true when the
    phase completed, or at once when ``skip_wait(%b)`` is true (unprobed)."""

    pipeline = operand_def()
    state = operand_def()
    skip_wait = opt_operand_def()
    traits = traits_def(MemoryReadEffect())
    KEYWORD_OPERANDS: ClassVar[tuple[str, ...]] = ("skip_wait",)
    RESULT_TYPE: ClassVar[Attribute | None] = i1

    def __init__(self, pipeline: SSAValue, state: SSAValue, skip_wait: SSAValue | None = None):
        super().__init__(operands=[pipeline, state, [] if skip_wait is None else [skip_wait]], result_types=[i1])


@irdl_op_definition
class ProducerAcquireOp(_BlockingWaitOp):
    """Wait until stage ``state.index`` is empty (``token(%t)``: skip the wait if %t is true)."""

    name = "cutlass.pipeline.producer_acquire"
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (EMPTY,)
    ROLE: ClassVar[str | None] = "producer"
    WAITS: ClassVar[bool] = True
    TOKEN_FROM: ClassVar[str | None] = "cutlass.pipeline.producer_try_acquire"


@irdl_op_definition
class ProducerTryAcquireOp(_ProbeOp):
    """Probe whether stage ``state.index`` is empty; ``skip_wait(%b)`` true returns true unprobed."""

    name = "cutlass.pipeline.producer_try_acquire"
    acquired = result_def(IntegerType(1))
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (EMPTY,)
    ROLE: ClassVar[str | None] = "producer"
    WAITS: ClassVar[bool] = True


@irdl_op_definition
class ProducerCommitOp(_PipeStateOp):
    """Arrive on full[index]; with ``transaction_bytes`` > 0 as ``arrive.expect_tx``."""

    name = "cutlass.pipeline.producer_commit"
    transaction_bytes = opt_prop_def(IntegerAttr[I32])
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (FULL,)
    ROLE: ClassVar[str | None] = "producer"

    def __init__(self, pipeline: SSAValue, state: SSAValue, transaction_bytes: int | None = None):
        super().__init__(pipeline, state)
        if transaction_bytes is not None:
            self.transaction_bytes = _i32(transaction_bytes)

    def verify_(self) -> None:
        super().verify_()
        check_transaction_bytes(self)


def check_transaction_bytes(op: Operation) -> None:
    """``transaction_bytes`` of a producer commit (or of the commit that ends a ``produce``) is the
    byte count of its ``mbarrier.arrive.expect_tx``: in [0, 2^20 - 1], an mbarrier's tx-count."""
    attr = op.properties.get("transaction_bytes")
    if not isinstance(attr, IntegerAttr):
        return
    value = attr.value.data
    if value > MBARRIER_MAX_COUNT:
        raise VerifyException(
            f"{op.name}: transaction_bytes = {value} does not "
            f"fit an mbarrier's 20-bit transaction count (at most {MBARRIER_MAX_COUNT})"
        )
    if value < 0:
        raise VerifyException(f"{op.name}: transaction_bytes must be >= 0, found {value}")


@irdl_op_definition
class ProducerTailOp(_PipeStateOp):
    """Drain: wait for ``stages`` more empty phases so the CTA cannot exit under pending arrivals."""

    name = "cutlass.pipeline.producer_tail"
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (EMPTY,)
    ROLE: ClassVar[str | None] = "producer"


@irdl_op_definition
class ConsumerWaitOp(_BlockingWaitOp):
    """Wait until stage ``state.index`` is full (``token(%t)``: skip the wait if %t is true);
    ``consumer_idx``: the consumer group waiting (seed 002, see ``consumer_index.py``)."""

    name = "cutlass.pipeline.consumer_wait"
    consumer_idx = opt_prop_def(IntegerAttr[I32])
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (FULL,)
    ROLE: ClassVar[str | None] = "consumer"
    WAITS: ClassVar[bool] = True
    TOKEN_FROM: ClassVar[str | None] = "cutlass.pipeline.consumer_try_wait"

    def verify_(self) -> None:
        super().verify_()
        consumer_index.verify(self, self.pipeline, consumer_group_threads)


@irdl_op_definition
class ConsumerTryWaitOp(_ProbeOp):
    """Probe whether stage ``state.index`` is full; ``skip_wait(%b)`` true returns true unprobed."""

    name = "cutlass.pipeline.consumer_try_wait"
    ready = result_def(IntegerType(1))
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (FULL,)
    ROLE: ClassVar[str | None] = "consumer"
    WAITS: ClassVar[bool] = True


@irdl_op_definition
class ConsumerReleaseOp(_PipeStateOp):
    """Arrive on empty[index]: the stage may be refilled."""

    name = "cutlass.pipeline.consumer_release"
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (EMPTY,)
    ROLE: ClassVar[str | None] = "consumer"


class _BarrierAddressOp(_PipeStateSyntax):
    """A pure getter of a stage barrier's shared-memory address (each op declares its result)."""

    pipeline = operand_def()
    state = operand_def()
    traits = traits_def(Pure())
    RESULT_TYPE: ClassVar[Attribute | None] = SMEM_PTR

    def __init__(self, pipeline: SSAValue, state: SSAValue):
        super().__init__(operands=[pipeline, state], result_types=[SMEM_PTR])

    def verify_(self) -> None:
        super().verify_()
        pipe = self.operands[0].type
        if not is_cta_scoped(pipe):
            return
        for use in self.results[0].uses:
            if use.operation.name == "nvvm.mapa":
                raise VerifyException(
                    f"{self.name}: the barrier of a CTA-scoped pipeline ({pipe}) is mapped into another CTA "
                    f"by nvvm.mapa at {_location(use.operation)}; its arrive counts cover this CTA's "
                    "threads only, so a remote arrive over-completes its phase; use scope = cluster"
                )


class _StageBarrierOp(_BarrierAddressOp):
    """A full-barrier getter: the loads that complete on it may multicast (checked here)."""

    def verify_(self) -> None:
        super().verify_()
        for use in self.results[0].uses:
            copy = use.operation
            if copy.name in COPY_OPS and _copy_mbar(copy) is self.results[0] and _copy_mask(copy) is not None:
                check_copy_mask(self, copy)


def check_copy_mask(getter: Operation, copy: Operation) -> None:
    """Rules for the multicast mask of a load completing on the stage barrier from ``getter``:
    none on a CTA-scoped pipeline; a constant mask is non-zero, names CTAs of the cluster only,
    and lies in the multicast set of some CTA of a cluster-scoped pipeline (the CTAs whose
    releases that CTA's empty barriers count)."""
    from tileorch.dialects.constants import constant_int

    pipe = getter.operands[0].type
    name, where = getter.name, f"{copy.name} at {_location(copy)}"
    if is_cta_scoped(pipe):
        raise VerifyException(
            f"{name}: {where} multicasts into a stage of a CTA-scoped pipeline ({pipe}); its empty "
            "barriers count releases of this CTA only, so peers could overwrite a stage still being read; "
            "drop the multicast mask or use scope = cluster"
        )
    bits = constant_int(_copy_mask(copy))
    if bits is None:
        return
    bits &= 0xFFFF
    cluster = cluster_shape(getter)
    ctas = math.prod(cluster)
    if bits == 0:
        raise VerifyException(
            f"{name}: {where} has multicast mask 0, which names no CTA: the load lands nowhere and the "
            "stage's transaction bytes never arrive"
        )
    if bits >> ctas:
        raise VerifyException(
            f"{name}: {where} has multicast mask {bits:#x}, which names CTA {bits.bit_length() - 1}, but "
            f"the cluster has {ctas} CTA(s) ({'x'.join(map(str, cluster))}, ranks 0..{ctas - 1})"
        )
    init = pipeline_init_of(getter.operands[0])
    if init is None or ctas == 1:
        return
    direction = init.multicast_direction()
    if not any(bits & ~peer_mask(r, cluster, direction) == 0 for r in range(ctas)):
        raise VerifyException(
            f"{name}: {where} has multicast mask {bits:#x}, which no CTA's multicast set contains (the "
            f"pipeline's multicast is {direction.value} on a {'x'.join(map(str, cluster))} cluster): some "
            "receiving CTA's releases would not reach the issuing CTA's empty barrier; use "
            "cutlass.pipeline.get_producer_mask (row / col / row_col) or widen the pipeline's multicast"
        )


@irdl_op_definition
class GetProducerBarrierOp(_StageBarrierOp):
    """Address of full[index], the barrier a TMA producer's copies complete on."""

    name = "cutlass.pipeline.get_producer_barrier"
    producerBarrier = result_def(LLVMPointerType)
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (FULL,)


@irdl_op_definition
class GetFullBarrierOp(_StageBarrierOp):
    """Address of full[index]."""

    name = "cutlass.pipeline.get_full_barrier"
    fullBarrier = result_def(LLVMPointerType)
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (FULL,)


@irdl_op_definition
class GetEmptyBarrierOp(_BarrierAddressOp):
    """Address of empty[index]."""

    name = "cutlass.pipeline.get_empty_barrier"
    emptyBarrier = result_def(LLVMPointerType)
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (EMPTY,)


@irdl_op_definition
class GetProducerMaskOp(IRDLOperation):
    """The i16 multicast mask of the cluster CTAs one of this CTA's loads is multicast to.

    ``%m = cutlass.pipeline.get_producer_mask %pipe (row | col | row_col)?``: with a
    ``direction`` the CTAs sharing this CTA's x (``row``: CUTLASS's A-operand mask), its y
    (``col``: the B-operand mask) or either; without one the pipeline's whole multicast set
    (``cutlass.pipeline.init``'s ``multicast``).  Each load carries its own mask; the
    pipeline's empty-barrier count covers the union of the directions its masks use.
    """

    name = "cutlass.pipeline.get_producer_mask"
    pipeline = operand_def()
    producerMask = result_def(I16)
    direction = opt_prop_def(MulticastDirectionAttr)
    traits = traits_def(Pure())

    def __init__(self, pipeline: SSAValue, direction: MulticastDirection | str | None = None):
        props = {"direction": MulticastDirectionAttr(MulticastDirection(direction))} if direction is not None else {}
        super().__init__(operands=[pipeline], result_types=[i16], properties=props)

    def verify_(self) -> None:
        pipe = expect_pipeline(self, self.pipeline)
        name = self.name
        if pipe.scope is PipelineScope.CTA:
            raise VerifyException(
                f"{name}: the pipeline is CTA-scoped ({pipe}): its stages are filled by this CTA only, so "
                "it has no multicast mask; use scope = cluster to multicast its loads"
            )
        init = pipeline_init_of(self.pipeline)
        if init is None:
            return
        if self.direction is not None and init.multicast is not None:
            outer, inner = init.multicast.data, self.direction.data
            if not direction_covers(outer, inner):
                raise VerifyException(
                    f"{name}: a {inner.value} multicast reaches CTAs outside the pipeline's multicast set "
                    f"(multicast = {outer.value} at {_location(init)}), whose releases its empty barriers do "
                    f"not count; widen the pipeline's multicast (e.g. row_col) or use a {outer.value} mask"
                )
        for use in self.producerMask.uses:
            copy = use.operation
            if copy.name not in COPY_OPS or _copy_mask(copy) is not self.producerMask:
                continue
            mbar = _copy_mbar(copy)
            getter = mbar.owner if mbar is not None else None
            if isinstance(getter, (GetProducerBarrierOp, GetFullBarrierOp)):
                other = pipeline_init_of(getter.pipeline)
                if other is not None and other is not init:
                    raise VerifyException(
                        f"{name}: the mask multicasts {copy.name} at {_location(copy)}, which completes on "
                        f"a stage barrier of another pipeline (initialised at {_location(other)}); a load's "
                        "mask must come from the pipeline whose stage it fills"
                    )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.pipeline)
        if self.direction is not None:
            printer.print_string(f" {self.direction.data.value}")
        print_attr_dict(printer, self, skip=("direction",))

    @classmethod
    def parse(cls, parser: Parser) -> GetProducerMaskOp:
        pipeline = parse_defined_operand(parser)
        direction = next(
            (d for d in (ROW_COL, ROW, COL) if parser.parse_optional_keyword(d.value) is not None), None
        )
        props, attrs = parse_attr_dict(parser, cls)
        if direction is not None:
            props["direction"] = MulticastDirectionAttr(direction)
        return cls.create(operands=[pipeline], result_types=[i16], properties=props, attributes=attrs)


# --------------------------------------------------------------------------- produce / consume


class _StageRegionSyntax(_PipeStateSyntax):
    """``%pipe, %state (attributes {...})? { body }``: a handshake around a single-block body."""

    pipeline = operand_def()
    state = operand_def()
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), MemoryReadEffect(), MemoryWriteEffect())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_operands(printer, self.operands[:2])
        print_attr_dict(printer, self, keyword=True)
        printer.print_string(" ")
        print_body(printer, self.regions[0])

    @classmethod
    def parse(cls, parser: Parser) -> IRDLOperation:
        pipeline = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        state = parse_defined_operand(parser)
        props, attrs = parse_attr_dict(parser, cls, keyword=True)
        region = parse_body(parser)
        return cls.create(operands=[pipeline, state], properties=props, attributes=attrs, regions=[region])


@irdl_op_definition
class ProduceOp(_StageRegionSyntax):
    """producer_acquire; body; producer_commit (with ``transaction_bytes`` if given)."""

    name = "cutlass.pipeline.produce"
    transaction_bytes = opt_prop_def(IntegerAttr[I32])
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (FULL, EMPTY)
    ROLE: ClassVar[str | None] = "producer"
    WAITS: ClassVar[bool] = True

    def __init__(self, pipeline: SSAValue, state: SSAValue, transaction_bytes: int | None = None, body: Region | None = None):
        props = {"transaction_bytes": _i32(transaction_bytes)} if transaction_bytes is not None else {}
        super().__init__(operands=[pipeline, state], properties=props, regions=[body or Region(Block())])

    def verify_(self) -> None:
        super().verify_()
        check_transaction_bytes(self)


@irdl_op_definition
class ConsumeOp(_StageRegionSyntax):
    """consumer_wait; body; consumer_release."""

    name = "cutlass.pipeline.consume"
    FORBIDDEN_WHEN: ClassVar[tuple[PipelineBarrierElideType, ...]] = (FULL, EMPTY)
    ROLE: ClassVar[str | None] = "consumer"
    WAITS: ClassVar[bool] = True

    def __init__(self, pipeline: SSAValue, state: SSAValue, body: Region | None = None):
        super().__init__(operands=[pipeline, state], regions=[body or Region(Block())])


# --------------------------------------------------------------------------- state cursor


def advance_state(state: tuple[int, int, int], n: int, stages: int) -> tuple[int, int, int]:
    """Reference semantics of ``state.increment`` (by ``n``): (index, phase, count) after n steps.

    The index wraps modulo ``stages`` and the phase flips once per wrap.
    """
    index, phase, count = state
    wraps, new_index = divmod(index + n, stages)
    return (new_index, phase ^ (wraps & 1), count + n)


@irdl_op_definition
class StateCreateOp(IRDLOperation):
    """The start state of an agent: producer {0, 1, 0}, consumer {0, 0, 0}.

    ``%s = cutlass.pipeline.state.create %pipe producer`` (type inferred from the pipeline).
    """

    name = "cutlass.pipeline.state.create"
    pipeline = operand_def()
    state = result_def()
    role = prop_def(PipelineRoleAttr)
    traits = traits_def(Pure())

    def __init__(self, pipeline: SSAValue, role: PipelineRole | str):
        pipe = pipeline.type
        result = pipe.state_type() if isinstance(pipe, PipelineType) else pipe
        super().__init__(operands=[pipeline], result_types=[result], properties={"role": PipelineRoleAttr(PipelineRole(role))})

    def start(self) -> tuple[int, int, int]:
        """(index, phase, count) of the created state."""
        return (0, 1 if self.role.data is PipelineRole.PRODUCER else 0, 0)

    def verify_(self) -> None:
        pipe = expect_pipeline(self, self.pipeline)
        if self.state.type != pipe.state_type():
            raise VerifyException(
                f"cutlass.pipeline.state.create: result type must be {pipe.state_type()} (the pipeline's "
                f"stage count), found {self.state.type}"
            )
        if self.role.data not in (PipelineRole.PRODUCER, PipelineRole.CONSUMER):
            raise VerifyException(
                f"cutlass.pipeline.state.create: role must be producer or consumer (it picks the start "
                f"phase), found {self.role.data.value}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.pipeline)
        printer.print_string(f" {self.role.data.value}")
        print_attr_dict(printer, self, skip=("role",))

    @classmethod
    def parse(cls, parser: Parser) -> StateCreateOp:
        pipeline = parse_defined_operand(parser)
        role = parser.parse_str_enum(PipelineRole)
        _, attrs = parse_attr_dict(parser, cls)
        op = cls(pipeline, role)
        op.attributes |= attrs
        return op


class _StateSyntax(IRDLOperation):
    """``%state (by(%n))? {attrs}``: ops reading a pipeline state."""

    RESULT_I32: ClassVar[bool] = True

    def verify_(self) -> None:
        expect_state(self, self.operands[0])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operands[0])
        if len(self.operands) > 1:
            printer.print_string(" by ")
            printer.print_operand(self.operands[1])
        print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> IRDLOperation:
        state = parse_defined_operand(parser)
        operands = [state]
        if not cls.RESULT_I32 and parser.parse_optional_keyword("by") is not None:
            operands.append(parse_defined_operand(parser))
        props, attrs = parse_attr_dict(parser, cls)
        result = i32 if cls.RESULT_I32 else state.type
        return cls.create(operands=operands, result_types=[result], properties=props, attributes=attrs)


@irdl_op_definition
class StateIncrementOp(_StateSyntax):
    """``++state`` (or ``advance(n)`` with ``by %n``): index + n mod stages, phase flips per wrap."""

    name = "cutlass.pipeline.state.increment"
    state = operand_def()
    step = opt_operand_def(I32)
    newState = result_def()
    traits = traits_def(Pure())
    RESULT_I32: ClassVar[bool] = False

    def __init__(self, state: SSAValue, step: SSAValue | None = None):
        super().__init__(operands=[state, [step] if step is not None else []], result_types=[state.type])

    def verify_(self) -> None:
        super().verify_()
        if self.newState.type != self.state.type:
            raise VerifyException(
                f"cutlass.pipeline.state.increment: result type must equal the state type "
                f"{self.state.type}, found {self.newState.type}"
            )


class _StateGetter(_StateSyntax):
    """A pure i32 field of a pipeline state (each op declares its result)."""

    state = operand_def()
    traits = traits_def(Pure())

    def __init__(self, state: SSAValue):
        super().__init__(operands=[state], result_types=[i32])


@irdl_op_definition
class StateGetCountOp(_StateGetter):
    """Number of increments since the start state (never wraps)."""

    name = "cutlass.pipeline.state.get_count"
    stateCount = result_def(I32)


@irdl_op_definition
class StateGetIndexOp(_StateGetter):
    """Stage index in [0, stages)."""

    name = "cutlass.pipeline.state.get_index"
    stateIndex = result_def(I32)


@irdl_op_definition
class StateGetPhaseOp(_StateGetter):
    """Phase parity bit (0 or 1)."""

    name = "cutlass.pipeline.state.get_phase"
    statePhase = result_def(I32)


# --------------------------------------------------------------------------- switch_by_executor


def _created_pipeline(value: SSAValue) -> bool:
    """True if ``value`` is defined by ``pipeline.create`` or by an ``init`` of such a value."""
    owner = value.owner
    if isinstance(owner, PipelineInitOp):
        return _created_pipeline(owner.pipeline)
    return isinstance(owner, PipelineCreateOp)


@irdl_op_definition
class SwitchByExecutorOp(IRDLOperation):
    """Partition the enclosing executor set: each arm (region) runs on the units of its masks.

    ``case masks(m, ...) args(%arg = %pipe, ...) { ... }`` per arm; arm i owns
    ``len(masks) / arms`` masks and ``len(operands) / arms`` pipelines (its block arguments).
    """

    name = "cutlass.pipeline.switch_by_executor"

    pipelines = var_operand_def()
    masks = prop_def(DenseArrayBase)
    arms = var_region_def("single_block")

    traits = traits_def(NoTerminator(), MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, masks: Sequence[int], pipelines: Sequence[SSAValue], arms: Sequence[Region]):
        super().__init__(operands=[list(pipelines)], properties={"masks": _i64_array(masks)}, regions=[list(arms)])

    def mask_list(self) -> list[int]:
        return _mask_values(self.masks) or []

    def arm_masks(self, arm: int) -> list[int]:
        masks = self.mask_list()
        per = len(masks) // len(self.arms)
        return masks[arm * per : (arm + 1) * per]

    def arm_pipelines(self, arm: int) -> list[SSAValue]:
        per = len(self.pipelines) // len(self.arms)
        return list(self.pipelines[arm * per : (arm + 1) * per])

    def verify_(self) -> None:
        name = "cutlass.pipeline.switch_by_executor"
        masks, arms, operands = self.mask_list(), len(self.arms), list(self.pipelines)
        if arms == 0 or not masks:
            raise VerifyException(
                f"{name}: needs at least one mask and one arm, found {len(masks)} mask(s) and {arms} arm(s)"
            )
        if len(masks) % arms:
            raise VerifyException(
                f"{name}: the number of masks ({len(masks)}) must be divisible by the number of arms ({arms})"
            )
        if len(operands) % arms:
            raise VerifyException(
                f"{name}: the number of pipeline operands ({len(operands)}) must be divisible by the number "
                f"of arms ({arms}), one operand group per arm"
            )
        for i, mask in enumerate(masks):
            if mask <= 0:
                raise VerifyException(f"{name}: mask {i} is empty ({mask}); every arm must run on some executor unit")
            if not is_contiguous(mask):
                raise VerifyException(
                    f"{name}: mask {i} ({mask:#x}) is not contiguous; an arm's units must form one run of set bits"
                )
        for i, a in enumerate(masks):
            for j in range(i + 1, len(masks)):
                if a & masks[j]:
                    raise VerifyException(
                        f"{name}: masks {i} ({a:#x}) and {j} ({masks[j]:#x}) overlap in {a & masks[j]:#x}; "
                        "each executor unit belongs to one arm"
                    )
        exec_op = enclosing_async_exec(self)
        if exec_op is None:
            raise VerifyException(f"{name}: must be nested in a cutlass.async.exec (the executor set it partitions)")
        union = 0
        for mask in masks:
            union |= mask
        exec_mask = exec_op.mask_bits()
        kind = exec_op.executor_kind()
        enclosing = executors.enclosing_set(self)
        if enclosing is not None and enclosing[2] is not exec_op and kind in executors.UNIT_THREADS:
            # nested in an arm of another switch: partition exactly that arm's units
            if executors.expand(union, executors.UNIT_THREADS[kind]) != enclosing[0]:
                raise VerifyException(
                    f"{name}: the union of the masks ({union:#x}) must equal the units of {enclosing[1]}; "
                    "a nested switch partitions exactly its enclosing executor set"
                )
        elif union != exec_mask:
            raise VerifyException(
                f"{name}: the union of the masks ({union:#x}) must equal the enclosing cutlass.async.exec "
                f"mask ({exec_mask:#x})"
            )
        for i, value in enumerate(operands):
            expect_pipeline(self, value, f"operand {i}")
            if not _created_pipeline(value):
                raise VerifyException(
                    f"{name}: operand {i} must be a pipeline defined by cutlass.pipeline.create (or its "
                    f"cutlass.pipeline.init), found a value defined by {_defined_by(value)}"
                )
        per = len(operands) // arms
        for j in range(per):
            first = operands[j].type
            for arm in range(1, arms):
                other = operands[arm * per + j].type
                assert isinstance(first, PipelineType) and isinstance(other, PipelineType)
                if (first.producers, first.consumers) != (other.producers, other.consumers):
                    raise VerifyException(
                        f"{name}: arm {arm} operand {j} has {other.producers} producer(s) and {other.consumers} "
                        f"consumer(s) but arm 0 has {first.producers} and {first.consumers}; the counts must "
                        "match across arms"
                    )
        for arm, region in enumerate(self.arms):
            arg_types = [a.type for a in region.block.args]
            want = [v.type for v in self.arm_pipelines(arm)]
            if arg_types != want:
                raise VerifyException(
                    f"{name}: arm {arm} block arguments must match its operand group "
                    f"({', '.join(map(str, want)) or 'none'}), found ({', '.join(map(str, arg_types)) or 'none'})"
                )

    def print(self, printer: Printer) -> None:
        for arm, region in enumerate(self.arms):
            printer.print_string(" case masks(" + ", ".join(hex(m) for m in self.arm_masks(arm)) + ")")
            block_args = region.block.args
            group = self.arm_pipelines(arm)
            if group and len(block_args) == len(group):
                printer.print_string(" args(")
                for k, (arg, value) in enumerate(zip(block_args, group)):
                    if k:
                        printer.print_string(", ")
                    printer.print_ssa_value(arg)
                    printer.print_string(" = ")
                    printer.print_operand(value)
                printer.print_string(")")
            printer.print_string(" ")
            print_body(printer, region)
        print_attr_dict(printer, self, skip=("masks",), keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> SwitchByExecutorOp:
        masks: list[int] = []
        operands: list[SSAValue] = []
        regions: list[Region] = []
        while parser.parse_optional_keyword("case") is not None:
            parser.parse_keyword("masks")
            with parser.in_parens():
                masks += parser.parse_comma_separated_list(
                    parser.Delimiter.NONE, lambda: parser.parse_integer(allow_boolean=False)
                )
            args: list[Parser.Argument] = []
            if parser.parse_optional_keyword("args") is not None:
                with parser.in_parens():
                    for unresolved, value in parser.parse_comma_separated_list(
                        parser.Delimiter.NONE, lambda: _parse_arg_binding(parser)
                    ):
                        args.append(unresolved.resolve(value.type))
                        operands.append(value)
            regions.append(parse_body(parser, args))
        _, attrs = parse_attr_dict(parser, cls, keyword=True)
        op = cls(masks, operands, regions)
        op.attributes |= attrs
        return op


def _parse_arg_binding(parser: Parser):
    arg = parser.parse_argument(expect_type=False)
    parser.parse_punctuation("=")
    return arg, parse_defined_operand(parser)


def _defined_by(value: SSAValue) -> str:
    owner = value.owner
    return owner.name if isinstance(owner, Operation) else "a block argument"


OPS: list[type] = [
    PipelineCreateOp,
    PipelineInitOp,
    PipelineMakeParticipantsOp,
    ProducerAcquireOp,
    ProducerTryAcquireOp,
    ProducerCommitOp,
    ProducerTailOp,
    ConsumerWaitOp,
    ConsumerTryWaitOp,
    ConsumerReleaseOp,
    ProduceOp,
    ConsumeOp,
    GetProducerBarrierOp,
    GetProducerMaskOp,
    StateCreateOp,
    StateIncrementOp,
    StateGetCountOp,
    StateGetIndexOp,
    StateGetPhaseOp,
    SwitchByExecutorOp,
    GetFullBarrierOp,
    GetEmptyBarrierOp,
]
