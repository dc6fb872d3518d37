"""The ``nv_tileas`` dialect: the subset of TileAS the cutlass lowering targets.

TileAS states a software pipeline as explicit regions instead of loose handshake ops:

* ``nv_tileas.async.pipeline.create_pipeline`` binds one cutlass pipeline object (its barrier
  storage, stage count and producer/consumer groups) to one TileAS pipeline value;
* ``nv_tileas.async.pipeline.producer`` / ``.consumer`` are single-stage regions of that
  pipeline: the producer region acquires the stage on entry and commits it on exit, the consumer
  region waits for it on entry and releases it on exit, so the handshake ops of one stage stay
  tied to one pipeline object and one state value;
* ``nv_tileas.async.pipeline.agent_switch`` splits the warps of a CTA into agents (one region
  each) by ``num_warps`` / ``warp_id`` / ``agent_strides``;
* ``nv_tileas.async.exec`` is an executor region (a mask over threads, warps, warpgroups or CTAs);
* ``nv_tileas.kernel`` is a kernel entry function;
* the async-value family: ``!nv_tileas.token<flavor>`` (completion of one async operation) and
  ``!nv_tileas.async<flavor>`` (a future), waited on by ``nv_tileas.async.wait`` /
  ``nv_tileas.async.future_wait``, bridged by ``async.to_async``, ``async.token_to_async`` and
  ``create_none``.  The flavour is ``mbarrier`` (a barrier address and phase parity), ``tma``
  (a bulk-async group) or ``gmma`` (a WGMMA group).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (DenseArrayBase, FunctionType, IntAttr, IntegerAttr, IntegerType, StringAttr,
                                   SymbolNameConstraint, i32, i64)
from xdsl.dialects.llvm import LLVMPointerType, LLVMStructType
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (IRDLOperation, ParsePropInAttrDict, irdl_attr_definition, irdl_op_definition, operand_def,
                       opt_operand_def, opt_prop_def, prop_def, region_def, result_def, traits_def, var_operand_def,
                       var_region_def, var_result_def)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, MemoryReadEffect, MemoryWriteEffect, Pure, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.int_param import IntParam

FLAVORS = ("mbarrier", "tma", "gmma")
EXECUTOR_UNIT_THREADS = {"thread": 1, "warp": 32, "warpgroup": 128}


def lowered_async_type(flavor: str) -> Attribute:
    """What a token or future of ``flavor`` becomes in the llvm dialect.

    An mbarrier completion is a (shared barrier address, phase parity) pair; a group completion
    (bulk async, WGMMA) has no per-op data, so it is an i32 placeholder.
    """
    if flavor == "mbarrier":
        return LLVMStructType.from_type_list([LLVMPointerType(IntAttr(3)), i32])
    return i32


class _FlavoredType(ParametrizedAttribute, TypeAttribute):
    flavor: StringAttr

    def __init__(self, flavor: str | StringAttr):
        super().__init__(StringAttr(flavor) if isinstance(flavor, str) else flavor)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            name = parser.parse_identifier()
        if name not in FLAVORS:
            parser.raise_error(f"unknown async flavor '{name}', expected one of {', '.join(FLAVORS)}")
        return (StringAttr(name),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.flavor.data)

    def verify(self) -> None:
        if self.flavor.data not in FLAVORS:
            raise VerifyException(f"unknown async flavor '{self.flavor.data}'")


@irdl_attr_definition
class TokenType(_FlavoredType):
    """``!nv_tileas.token<flavor>``: completion of one asynchronous operation."""

    name = "nv_tileas.token"


@irdl_attr_definition
class AsyncType(_FlavoredType):
    """``!nv_tileas.async<flavor>``: a future that becomes ready when its async work completes."""

    name = "nv_tileas.async"


@irdl_attr_definition
class PipelineType(IntParam, TypeAttribute):
    """``!nv_tileas.pipeline<stages>``: a TileAS pipeline bound to one cutlass pipeline object."""

    name = "nv_tileas.pipeline"
    stages: IntAttr
    ALLOW_NEGATIVE = False

    def verify(self) -> None:
        if self.stages.data <= 0:
            raise VerifyException(f"pipeline stage count must be positive, got {self.stages.data}")


_CREATE_PIPELINE_PROPS = ("num_stages", "producer_group", "consumer_group", "num_consumers")


class _SideEffects:
    """Trait set for ops that synchronise with other agents (never dead-code eliminated)."""

    traits = (MemoryReadEffect(), MemoryWriteEffect())


@irdl_op_definition
class CreatePipelineOp(IRDLOperation):
    """Bind a cutlass pipeline object (barrier storage + groups) to a TileAS pipeline value."""

    name = "nv_tileas.async.pipeline.create_pipeline"
    storage = opt_operand_def()
    num_stages = prop_def(IntegerAttr[IntegerType])
    producer_group = prop_def(IntegerAttr[IntegerType])
    consumer_group = prop_def(IntegerAttr[IntegerType])
    # tile-level form (no storage, result !nv_tileas.async.pipeline, see nv_tileas_tile.py)
    num_consumers = opt_prop_def(IntegerAttr[IntegerType])
    pipeline = result_def()
    traits = traits_def(*_SideEffects.traits)
    irdl_options = (ParsePropInAttrDict(),)

    @classmethod
    def parse(cls, parser: Parser) -> CreatePipelineOp:
        """``%storage {props} : T -> !nv_tileas.pipeline<n>`` or ``{props} : !nv_tileas.async.pipeline<...>``."""
        storage = parser.parse_optional_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        if storage is not None:
            storage_type = parser.parse_type()
            parser.parse_punctuation("->")
            storage = parser.resolve_operand(storage, storage_type)
        result = parser.parse_type()
        props = {k: v for k, v in attrs.items() if k in _CREATE_PIPELINE_PROPS}
        others = {k: v for k, v in attrs.items() if k not in _CREATE_PIPELINE_PROPS}
        return cls.create(operands=[storage] if storage is not None else [], properties=props,
                          attributes=others, result_types=[result])

    def print(self, printer: Printer) -> None:
        if self.storage is not None:
            printer.print_string(" ")
            printer.print_operand(self.storage)
        printer.print_op_attributes({**self.properties, **self.attributes})
        printer.print_string(" : ")
        if self.storage is not None:
            printer.print_attribute(self.storage.type)
            printer.print_string(" -> ")
        printer.print_attribute(self.pipeline.type)

    def __init__(self, storage: SSAValue, stages: int, producer_group: int = 0, consumer_group: int = 1):
        super().__init__(
            operands=[storage],
            properties={
                "num_stages": IntegerAttr(stages, i32),
                "producer_group": IntegerAttr(producer_group, i32),
                "consumer_group": IntegerAttr(consumer_group, i32),
            },
            result_types=[PipelineType(stages)],
        )

    def verify_(self) -> None:
        stages = self.num_stages.value.data
        if stages <= 0:
            raise VerifyException(f"num_stages must be positive, got {stages}")
        if self.storage is None:  # tile-level pipeline: stages are the type's depth
            depth = getattr(self.pipeline.type, "depth", None)
            if self.pipeline.type.name != "nv_tileas.async.pipeline" or depth is None:
                raise VerifyException("a create_pipeline without storage returns an !nv_tileas.async.pipeline")
            if depth.data != stages:
                raise VerifyException(f"result type has depth {depth.data} but num_stages is {stages}")
            if self.num_consumers is not None and self.num_consumers.value.data < 1:
                raise VerifyException("num_consumers must be positive")
            return
        if not isinstance(self.pipeline.type, PipelineType):
            raise VerifyException("a create_pipeline bound to storage returns an !nv_tileas.pipeline")
        if self.pipeline.type.stages.data != stages:
            raise VerifyException(
                f"result type has {self.pipeline.type.stages.data} stages but num_stages is {stages}"
            )
        if self.producer_group.value.data == self.consumer_group.value.data:
            raise VerifyException("producer_group and consumer_group must differ")


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminator of the TileAS pipeline regions; forwards values out of a stage region."""

    name = "nv_tileas.async.pipeline.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[values])


class _StageRegionOp(IRDLOperation):
    """A single-stage pipeline region (producer or consumer) of one TileAS pipeline."""

    pipeline = operand_def(PipelineType)
    stage = operand_def()
    res = var_result_def()
    body = region_def("single_block")
    traits = traits_def(*_SideEffects.traits)
    assembly_format = (
        "$pipeline `[` $stage `]` `:` type($pipeline) `,` type($stage) (`->` type($res)^)?"
        " attr-dict-with-keyword $body"
    )

    def verify_(self) -> None:
        block = self.body.block
        last = block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException(f"'{self.name}' region must end with nv_tileas.async.pipeline.yield")
        got = [v.type for v in last.values]
        want = [r.type for r in self.res]
        if got != want:
            raise VerifyException(f"region yields {len(got)} value(s) of type(s) ({', '.join(map(str, got))}) but "
                                  f"the op returns ({', '.join(map(str, want))})")


@irdl_op_definition
class ProducerOp(_StageRegionOp):
    """Producer stage region: acquire the stage on entry, run the body, commit on exit.

    The acquire/commit themselves stay as the cutlass handshake ops inside the body (the first
    and last op before the terminator), so their attributes survive the restructuring.
    """

    name = "nv_tileas.async.pipeline.producer"


@irdl_op_definition
class ConsumerOp(_StageRegionOp):
    """Consumer stage region: wait for the stage on entry, run the body, release on exit."""

    name = "nv_tileas.async.pipeline.consumer"
    consumer_idx = opt_prop_def(IntegerAttr[IntegerType])  # the consumer group (seed 002)
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        super().verify_()
        from tileorch.dialects.cutlass import consumer_index
        from tileorch.dialects.cutlass.pipeline import consumer_group_threads

        consumer_index.verify(self, self.pipeline, consumer_group_threads)


def agent_warps(warp_id: int, num_warps: int, stride: int) -> list[int]:
    """Warp indices of one agent: contiguous when ``stride`` is 0, else every ``stride``-th warp."""
    step = stride if stride > 0 else 1
    return [warp_id + k * step for k in range(num_warps)]


@irdl_op_definition
class AgentSwitchOp(IRDLOperation):
    """Run region ``i`` on the warps of agent ``i`` (``num_warps[i]`` warps from ``warp_id[i]``,
    ``agent_strides[i]`` apart, 0 = contiguous).  Agents must not share a warp."""

    name = "nv_tileas.async.pipeline.agent_switch"
    num_warps = prop_def(DenseArrayBase)
    # warp_id / agent_strides are absent until optimize-execution-unit-mapping places the agents
    warp_id = opt_prop_def(DenseArrayBase)
    agent_strides = opt_prop_def(DenseArrayBase)
    max_regs = opt_prop_def(DenseArrayBase)  # per agent, lowered to setmaxnreg
    num_agents_per_group = opt_prop_def(DenseArrayBase)
    agents = var_region_def()  # a region without a block is a hole (warps nobody runs)
    traits = traits_def(*_SideEffects.traits)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict-with-keyword $agents"

    def __init__(self, num_warps: Sequence[int], warp_id: Sequence[int], strides: Sequence[int],
                 agents: Sequence[Region]):
        super().__init__(
            properties={
                "num_warps": DenseArrayBase.from_list(i32, list(num_warps)),
                "warp_id": DenseArrayBase.from_list(i32, list(warp_id)),
                "agent_strides": DenseArrayBase.from_list(i32, list(strides)),
            },
            regions=[list(agents)],
        )

    def agent_warp_lists(self) -> list[list[int]]:
        if self.warp_id is None:
            raise VerifyException("agent_switch has no warp_id yet: run optimize-execution-unit-mapping")
        nw = self.num_warps.get_values()
        wid = self.warp_id.get_values()
        st = self.agent_strides.get_values() if self.agent_strides is not None else [0] * len(nw)
        return [agent_warps(w, n, s) for n, w, s in zip(nw, wid, st)]

    @staticmethod
    def is_hole(region: Region) -> bool:
        return not region.blocks

    def verify_(self) -> None:
        n = len(self.agents)
        if n == 0:
            raise VerifyException("agent_switch needs at least one agent region")
        arrays = {"num_warps": self.num_warps, "warp_id": self.warp_id, "agent_strides": self.agent_strides,
                  "max_regs": self.max_regs}
        for key, arr in arrays.items():
            if arr is not None and len(arr.get_values()) != n:
                raise VerifyException(f"{key} has {len(arr.get_values())} entries for {n} agent regions")
        if any(v <= 0 for v in self.num_warps.get_values()):
            raise VerifyException("every agent needs num_warps > 0")
        if any(v > 32 for v in self.num_warps.get_values()):  # checked before any warp list is built
            raise VerifyException(f"num_warps {list(self.num_warps.get_values())}: an agent has at most 32 warps "
                                  "(a CTA has at most 32 warps)")
        if self.max_regs is not None:
            for r in self.max_regs.get_values():
                if not 24 <= r <= 256 or r % 8:
                    raise VerifyException(f"max_regs must be a multiple of 8 in [24, 256] (setmaxnreg), got {r}")
        if self.num_agents_per_group is not None:
            groups = self.num_agents_per_group.get_values()
            if any(g < 1 for g in groups) or sum(groups) != n:
                raise VerifyException(f"num_agents_per_group {list(groups)} must be positive and cover the {n} agents")
        for region in self.agents:
            if len(region.blocks) > 1:
                raise VerifyException("each agent region has at most one block")
            if self.is_hole(region):
                continue
            if not isinstance(region.block.last_op, YieldOp) or region.block.last_op.values:
                raise VerifyException("each agent region must end with an empty nv_tileas.async.pipeline.yield")
        if self.warp_id is None:
            return
        if any(v < 0 for v in [*self.warp_id.get_values(), *(self.agent_strides.get_values() if self.agent_strides is not None else [])]):
            raise VerifyException("warp_id and agent_strides must be non-negative")
        owner: dict[int, int] = {}
        for i, warps in enumerate(self.agent_warp_lists()):
            for w in warps:
                if w >= 32:
                    raise VerifyException(f"agent {i} reaches warp {w}; a CTA has at most 32 warps")
                if w in owner:
                    raise VerifyException(f"agents {owner[w]} and {i} both own warp {w}")
                owner[w] = i


@irdl_op_definition
class AsyncExecOp(IRDLOperation):
    """Executor region: the body runs on the executor units whose bit is set in ``mask``."""

    name = "nv_tileas.async.exec"
    executor = prop_def(StringAttr)
    mask = prop_def(IntegerAttr[IntegerType])
    body = region_def("single_block")
    traits = traits_def(*_SideEffects.traits)
    assembly_format = "$executor `mask` `=` $mask attr-dict-with-keyword $body"

    def __init__(self, executor: str, mask: int, body: Region):
        super().__init__(
            properties={"executor": StringAttr(executor), "mask": IntegerAttr(mask, i64)},
            regions=[body],
        )

    def executor_kind(self) -> str:
        return self.executor.data

    def mask_bits(self) -> int:
        return self.mask.value.data & ((1 << 64) - 1)  # an unsigned bit set

    def unit_threads(self) -> int:
        return EXECUTOR_UNIT_THREADS.get(self.executor.data, 0)

    def num_threads(self) -> int:
        return bin(self.mask_bits()).count("1") * self.unit_threads()

    def first_thread(self) -> int:
        bits = self.mask_bits()
        return ((bits & -bits).bit_length() - 1) * self.unit_threads()

    def verify_(self) -> None:
        if self.executor.data not in (*EXECUTOR_UNIT_THREADS, "cta"):
            raise VerifyException(f"unknown executor kind '{self.executor.data}'")
        if self.mask_bits() <= 0:
            raise VerifyException("executor mask must be non-empty")
        if self.unit_threads() and self.mask_bits().bit_length() * self.unit_threads() > 1024:
            raise VerifyException("executor mask reaches past 1024 threads")
        last = self.body.block.last_op
        if not isinstance(last, YieldOp) or last.values:
            raise VerifyException("nv_tileas.async.exec region must end with an empty yield")


@irdl_op_definition
class KernelOp(IRDLOperation):
    """A kernel entry point (becomes a ``.entry`` with ``.maxntid`` when lowered)."""

    name = "nv_tileas.kernel"
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    max_threads = opt_prop_def(IntegerAttr[IntegerType])
    body = region_def()
    traits = traits_def(SymbolOpInterface(), *_SideEffects.traits)

    def verify_(self) -> None:
        if self.function_type.outputs.data:
            raise VerifyException("a kernel returns nothing")
        if self.body.blocks:
            got = [a.type for a in self.body.block.args]
            if got != list(self.function_type.inputs.data):
                raise VerifyException("kernel entry block arguments do not match its function type")


class _PendingWait(IRDLOperation):
    """A wait with an optional ``pending`` group count (tma/gmma flavours only, 0..7); each op
    declares its operand and ``flavor()``."""

    pending = opt_prop_def(IntegerAttr[IntegerType])
    traits = traits_def(*_SideEffects.traits)
    irdl_options = (ParsePropInAttrDict(),)

    def pending_groups(self) -> int:
        return 0 if self.pending is None else self.pending.value.data

    def _verify_pending(self, what: str) -> None:
        if self.pending is not None:
            if self.flavor() == "mbarrier":
                raise VerifyException(f"'pending' applies to {what} only")
            if not 0 <= self.pending_groups() <= 7:
                raise VerifyException(f"pending must be in [0, 7], got {self.pending_groups()}")


@irdl_op_definition
class WaitOp(_PendingWait):
    """Wait until the async operations behind ``tokens`` completed.

    mbarrier tokens spin on their barrier's phase; tma/gmma tokens commit the open group and
    wait until at most ``pending`` groups of that kind are outstanding."""

    name = "nv_tileas.async.wait"
    tokens = var_operand_def(TokenType)
    assembly_format = "$tokens attr-dict `:` type($tokens)"

    def __init__(self, tokens: Sequence[SSAValue], pending: int | None = None):
        props = {} if pending is None else {"pending": IntegerAttr(pending, i32)}
        super().__init__(operands=[tokens], properties=props)

    def flavor(self) -> str:
        t = self.tokens[0].type
        assert isinstance(t, TokenType)
        return t.flavor.data

    def verify_(self) -> None:
        if not self.tokens:
            raise VerifyException("nv_tileas.async.wait needs at least one token")
        flavors = {t.type.flavor.data for t in self.tokens if isinstance(t.type, TokenType)}
        if len(flavors) != 1:
            raise VerifyException(f"all tokens of one wait must share a flavor, got {sorted(flavors)}")
        self._verify_pending("tma/gmma group waits")


@irdl_op_definition
class FutureWaitOp(_PendingWait):
    """Wait for a future: mbarrier futures spin on (barrier, phase) carried by the future, group
    futures wait until at most ``pending`` groups of their kind are outstanding."""

    name = "nv_tileas.async.future_wait"
    future = operand_def(AsyncType)
    assembly_format = "$future attr-dict `:` type($future)"

    def flavor(self) -> str:
        assert isinstance(self.future.type, AsyncType)
        return self.future.type.flavor.data

    def verify_(self) -> None:
        self._verify_pending("group futures")


@irdl_op_definition
class ToAsyncOp(IRDLOperation):
    """Wrap a raw completion record (its lowered form) as a future of the given flavour."""

    name = "nv_tileas.async.to_async"
    source = operand_def()
    result = result_def(AsyncType)
    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def verify_(self) -> None:
        assert isinstance(self.result.type, AsyncType)
        want = lowered_async_type(self.result.type.flavor.data)
        if self.source.type != want:
            raise VerifyException(
                f"a {self.result.type.flavor.data} future is made from {want}, got {self.source.type}"
            )


@irdl_op_definition
class TokenToAsyncOp(IRDLOperation):
    """View a completion token as a future of the same flavour."""

    name = "nv_tileas.async.token_to_async"
    token = operand_def(TokenType)
    result = result_def(AsyncType)
    traits = traits_def(Pure())
    assembly_format = "$token attr-dict `:` type($token) `->` type($result)"

    def verify_(self) -> None:
        assert isinstance(self.token.type, TokenType) and isinstance(self.result.type, AsyncType)
        if self.token.type.flavor != self.result.type.flavor:
            raise VerifyException(
                f"token flavor {self.token.type.flavor.data} differs from future flavor {self.result.type.flavor.data}"
            )


@irdl_op_definition
class CreateNoneOp(IRDLOperation):
    """A placeholder token or future, only consumed by ops that are erased once lowered."""

    name = "nv_tileas.create_none"
    result = result_def(TokenType | AsyncType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($result)"


NvTileas = Dialect(
    "nv_tileas",
    [
        CreatePipelineOp,
        ProducerOp,
        ConsumerOp,
        YieldOp,
        AgentSwitchOp,
        AsyncExecOp,
        KernelOp,
        WaitOp,
        FutureWaitOp,
        ToAsyncOp,
        TokenToAsyncOp,
        CreateNoneOp,
    ],
    [TokenType, AsyncType, PipelineType],
)
