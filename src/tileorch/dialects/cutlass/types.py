"""Types of the pipeline and sequence-barrier side of the ``cutlass`` dialect.

* ``!cutlass.pipeline<stages = S, producers = P, consumers = C[, barrier = B][, elide = E][, scope = cta]>``
* ``!cutlass.pipeline_state<S>`` (inferred from a pipeline type's stage count)
* ``!cutlass.seq_bar<depth = D, length = L>`` and ``!cutlass.seq_bar_state<D>``
* ``!cutlass.dynamic_participants<P, C>`` (a runtime P x C participants matrix)

See ``docs/dialect-conventions.md`` for the meaning of each parameter.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.cutlass.attrs import (
    PipelineBarrierElideType,
    PipelineBarrierElideTypeAttr,
    PipelineBarrierType,
    PipelineBarrierTypeAttr,
    PipelineScope,
    PipelineScopeAttr,
)

MAX_STAGES = 32
MAX_GROUPS = 16

# (what, low, high) of each integer type parameter
PIPELINE_STATE_STAGES = ("pipeline_state stage count", 1, MAX_STAGES)
PIPELINE_STAGES = ("pipeline stage count", 1, MAX_STAGES)
PIPELINE_PRODUCERS = ("pipeline producer count", 1, MAX_GROUPS)
PIPELINE_CONSUMERS = ("pipeline consumer count", 1, MAX_GROUPS)
SEQ_BAR_STATE_DEPTH = ("seq_bar_state depth", 1, MAX_STAGES)
SEQ_BAR_DEPTH = ("seq_bar depth", 1, MAX_STAGES)
SEQ_BAR_LENGTH = ("seq_bar length", 1, MAX_GROUPS)
PARTICIPANTS_PRODUCERS = ("dynamic_participants producer count", 1, MAX_GROUPS)
PARTICIPANTS_CONSUMERS = ("dynamic_participants consumer count", 1, MAX_GROUPS)


def _check_range(param: tuple[str, int, int], value: int) -> None:
    what, low, high = param
    if not low <= value <= high:
        raise VerifyException(f"{what} must be in [{low}, {high}], found {value}")


def _parse_int_param(parser: AttrParser, param: tuple[str, int, int], keyword: str | None = None) -> int:
    """``[keyword =] INT``, range-checked as soon as it is read: a bad value is a parse error
    located at the integer itself."""
    if keyword is not None:
        parser.parse_keyword(keyword)
        parser.parse_punctuation("=")
    start = parser.pos
    value = parser.parse_integer(allow_boolean=False)
    try:
        _check_range(param, value)
    except VerifyException as exc:
        parser.raise_error(str(exc), start, start + len(str(value)))
    return value


class _CursorType(ParametrizedAttribute, TypeAttribute):
    """A state type with one integer parameter printed as ``<N>`` (its ring size), range-checked
    against the subclass's ``RANGE`` while parsing and on construction."""

    RANGE: ClassVar[tuple[str, int, int]]

    def __init__(self, size: int):
        super().__init__(IntAttr(size))

    @property
    def _size(self) -> int:
        return self.parameters[0].data

    @classmethod
    def check(cls, size: int) -> None:
        _check_range(cls.RANGE, size)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr]:
        with parser.in_angle_brackets():
            size = _parse_int_param(parser, cls.RANGE)
        return (IntAttr(size),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self._size}>")

    def verify(self) -> None:
        self.check(self._size)


@irdl_attr_definition
class PipelineStateType(_CursorType):
    """``!cutlass.pipeline_state<S>``: a (index, phase, count) cursor over S stages."""

    name = "cutlass.pipeline_state"
    RANGE = PIPELINE_STATE_STAGES

    num_stages: IntAttr

    @property
    def stages(self) -> int:
        return self.num_stages.data


@irdl_attr_definition
class PipelineType(ParametrizedAttribute, TypeAttribute):
    """``!cutlass.pipeline<...>``: a staged ring with one full and one empty barrier per stage."""

    name = "cutlass.pipeline"

    num_stages: IntAttr
    num_producers: IntAttr
    num_consumers: IntAttr
    barrier_type: PipelineBarrierTypeAttr
    elide_type: PipelineBarrierElideTypeAttr
    scope_type: PipelineScopeAttr

    def __init__(
        self,
        stages: int,
        producers: int,
        consumers: int,
        barrier: PipelineBarrierType = PipelineBarrierType.MBARRIER,
        elide: PipelineBarrierElideType = PipelineBarrierElideType.NONE,
        scope: PipelineScope = PipelineScope.CLUSTER,
    ):
        super().__init__(
            IntAttr(stages),
            IntAttr(producers),
            IntAttr(consumers),
            PipelineBarrierTypeAttr(barrier),
            PipelineBarrierElideTypeAttr(elide),
            PipelineScopeAttr(PipelineScope(scope)),
        )

    @property
    def stages(self) -> int:
        return self.num_stages.data

    @property
    def producers(self) -> int:
        return self.num_producers.data

    @property
    def consumers(self) -> int:
        return self.num_consumers.data

    @property
    def barrier(self) -> PipelineBarrierType:
        return self.barrier_type.data

    @property
    def elide(self) -> PipelineBarrierElideType:
        return self.elide_type.data

    @property
    def scope(self) -> PipelineScope:
        """``cta`` (CTA-local barriers) or ``cluster`` (the default: multicast-capable)."""
        return self.scope_type.data

    def state_type(self) -> PipelineStateType:
        return PipelineStateType(self.stages)

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        barrier = PipelineBarrierType.MBARRIER
        elide = PipelineBarrierElideType.NONE
        scope = PipelineScope.CLUSTER
        with parser.in_angle_brackets():
            stages = _parse_int_param(parser, PIPELINE_STAGES, "stages")
            parser.parse_punctuation(",")
            producers = _parse_int_param(parser, PIPELINE_PRODUCERS, "producers")
            parser.parse_punctuation(",")
            consumers = _parse_int_param(parser, PIPELINE_CONSUMERS, "consumers")
            while parser.parse_optional_punctuation(",") is not None:
                if parser.parse_optional_keyword("barrier") is not None:
                    parser.parse_punctuation("=")
                    barrier = parser.parse_str_enum(PipelineBarrierType)
                elif parser.parse_optional_keyword("scope") is not None:
                    parser.parse_punctuation("=")
                    scope = parser.parse_str_enum(PipelineScope)
                else:
                    parser.parse_keyword("elide", " (expected `barrier = ...`, `elide = ...` or `scope = ...`)")
                    parser.parse_punctuation("=")
                    elide = parser.parse_str_enum(PipelineBarrierElideType)
        return (
            IntAttr(stages),
            IntAttr(producers),
            IntAttr(consumers),
            PipelineBarrierTypeAttr(barrier),
            PipelineBarrierElideTypeAttr(elide),
            PipelineScopeAttr(scope),
        )

    def print_parameters(self, printer: Printer) -> None:
        text = f"<stages = {self.stages}, producers = {self.producers}, consumers = {self.consumers}"
        if self.barrier is not PipelineBarrierType.MBARRIER:
            text += f", barrier = {self.barrier.value}"
        if self.elide is not PipelineBarrierElideType.NONE:
            text += f", elide = {self.elide.value}"
        if self.scope is not PipelineScope.CLUSTER:
            text += f", scope = {self.scope.value}"
        printer.print_string(text + ">")

    @staticmethod
    def check(stages: int, producers: int, consumers: int) -> None:
        _check_range(PIPELINE_STAGES, stages)
        _check_range(PIPELINE_PRODUCERS, producers)
        _check_range(PIPELINE_CONSUMERS, consumers)

    def verify(self) -> None:
        self.check(self.stages, self.producers, self.consumers)


@irdl_attr_definition
class SeqBarStateType(_CursorType):
    """``!cutlass.seq_bar_state<D>``: the stage cursor of a sequence barrier of depth D."""

    name = "cutlass.seq_bar_state"
    RANGE = SEQ_BAR_STATE_DEPTH

    seq_depth: IntAttr

    @property
    def depth(self) -> int:
        return self.seq_depth.data


@irdl_attr_definition
class SeqBarType(ParametrizedAttribute, TypeAttribute):
    """``!cutlass.seq_bar<depth = D, length = L>``: CUTLASS ``OrderedSequenceBarrier<D, L>``."""

    name = "cutlass.seq_bar"

    seq_depth: IntAttr
    seq_length: IntAttr

    def __init__(self, depth: int, length: int):
        super().__init__(IntAttr(depth), IntAttr(length))

    @property
    def depth(self) -> int:
        return self.seq_depth.data

    @property
    def length(self) -> int:
        return self.seq_length.data

    def state_type(self) -> SeqBarStateType:
        return SeqBarStateType(self.depth)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr, IntAttr]:
        with parser.in_angle_brackets():
            depth = _parse_int_param(parser, SEQ_BAR_DEPTH, "depth")
            parser.parse_punctuation(",")
            length = _parse_int_param(parser, SEQ_BAR_LENGTH, "length")
        return (IntAttr(depth), IntAttr(length))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<depth = {self.depth}, length = {self.length}>")

    @staticmethod
    def check(depth: int, length: int) -> None:
        _check_range(SEQ_BAR_DEPTH, depth)
        _check_range(SEQ_BAR_LENGTH, length)

    def verify(self) -> None:
        self.check(self.depth, self.length)


@irdl_attr_definition
class DynamicParticipantsType(ParametrizedAttribute, TypeAttribute):
    """``!cutlass.dynamic_participants<P, C>``: a runtime P x C matrix of i32 entries."""

    name = "cutlass.dynamic_participants"

    num_producers: IntAttr
    num_consumers: IntAttr

    def __init__(self, producers: int, consumers: int):
        super().__init__(IntAttr(producers), IntAttr(consumers))

    @property
    def producers(self) -> int:
        return self.num_producers.data

    @property
    def consumers(self) -> int:
        return self.num_consumers.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr, IntAttr]:
        with parser.in_angle_brackets():
            producers = _parse_int_param(parser, PARTICIPANTS_PRODUCERS)
            parser.parse_punctuation(",")
            consumers = _parse_int_param(parser, PARTICIPANTS_CONSUMERS)
        return (IntAttr(producers), IntAttr(consumers))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.producers}, {self.consumers}>")

    @staticmethod
    def check(producers: int, consumers: int) -> None:
        _check_range(PARTICIPANTS_PRODUCERS, producers)
        _check_range(PARTICIPANTS_CONSUMERS, consumers)

    def verify(self) -> None:
        self.check(self.producers, self.consumers)


ATTRS: list[type] = [PipelineType, PipelineStateType, SeqBarType, SeqBarStateType, DynamicParticipantsType]
