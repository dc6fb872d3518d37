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

from tileorch.dialects.cutlass.attrs import (PipelineBarrierElideType, PipelineBarrierElideTypeAttr,
                                             PipelineBarrierType, PipelineBarrierTypeAttr, PipelineScope,
                                             PipelineScopeAttr)

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


def _int_view(parameter: str) -> property:
    """A read-only property giving the value of the ``IntAttr`` type parameter ``parameter``."""

    def value(self) -> int:
        return getattr(self, parameter).data

    return property(value)


class _IntParamsType(ParametrizedAttribute, TypeAttribute):
    """A type whose parameters are integers, printed ``<v, ...>`` or ``<keyword = v, ...>``.

    ``PARAMS`` lists each parameter's keyword (None: printed bare) and its ``(what, low, high)``
    range, in parameter order; a value is range-checked while parsing (located at the integer)
    and on construction (``verify``)."""

    PARAMS: ClassVar[tuple[tuple[str | None, tuple[str, int, int]], ...]]

    def __init__(self, *values: int):
        super().__init__(*(IntAttr(v) for v in values))

    @classmethod
    def check(cls, *values: int) -> None:
        for (_, param), value in zip(cls.PARAMS, values, strict=True):
            _check_range(param, value)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr, ...]:
        values = []
        with parser.in_angle_brackets():
            for keyword, param in cls.PARAMS:
                if values:
                    parser.parse_punctuation(",")
                values.append(IntAttr(_parse_int_param(parser, param, keyword)))
        return tuple(values)

    def print_parameters(self, printer: Printer) -> None:
        shown = (
            f"{p.data}" if keyword is None else f"{keyword} = {p.data}"
            for (keyword, _), p in zip(self.PARAMS, self.parameters, strict=True)
        )
        printer.print_string(f"<{', '.join(shown)}>")

    def verify(self) -> None:
        self.check(*(p.data for p in self.parameters))


@irdl_attr_definition
class PipelineStateType(_IntParamsType):
    """``!cutlass.pipeline_state<S>``: a (index, phase, count) cursor over S stages."""

    name = "cutlass.pipeline_state"
    PARAMS = ((None, PIPELINE_STATE_STAGES),)

    num_stages: IntAttr

    stages = _int_view("num_stages")


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

    stages = _int_view("num_stages")
    producers = _int_view("num_producers")
    consumers = _int_view("num_consumers")

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
class SeqBarStateType(_IntParamsType):
    """``!cutlass.seq_bar_state<D>``: the stage cursor of a sequence barrier of depth D."""

    name = "cutlass.seq_bar_state"
    PARAMS = ((None, SEQ_BAR_STATE_DEPTH),)

    seq_depth: IntAttr

    depth = _int_view("seq_depth")


@irdl_attr_definition
class SeqBarType(_IntParamsType):
    """``!cutlass.seq_bar<depth = D, length = L>``: CUTLASS ``OrderedSequenceBarrier<D, L>``."""

    name = "cutlass.seq_bar"
    PARAMS = (("depth", SEQ_BAR_DEPTH), ("length", SEQ_BAR_LENGTH))

    seq_depth: IntAttr
    seq_length: IntAttr

    depth = _int_view("seq_depth")
    length = _int_view("seq_length")

    def state_type(self) -> SeqBarStateType:
        return SeqBarStateType(self.depth)


@irdl_attr_definition
class DynamicParticipantsType(_IntParamsType):
    """``!cutlass.dynamic_participants<P, C>``: a runtime P x C matrix of i32 entries."""

    name = "cutlass.dynamic_participants"
    PARAMS = ((None, PARTICIPANTS_PRODUCERS), (None, PARTICIPANTS_CONSUMERS))

    num_producers: IntAttr
    num_consumers: IntAttr

    producers = _int_view("num_producers")
    consumers = _int_view("num_consumers")


ATTRS: list[type] = [PipelineType, PipelineStateType, SeqBarType, SeqBarStateType, DynamicParticipantsType]
