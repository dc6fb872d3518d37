"""Attributes of the pipeline and barrier side of the ``cutlass`` dialect.

Enums print as ``#cutlass<MNEMONIC value>``; :class:`CgaAttr` prints as
``#cutlass.cga_attr<x, y, z>``.  The named-barrier constants describe the per-CTA pool
that ``cutlass.pipeline.init`` and ``cutlass.seq_bar.init`` claim ids from.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from tileorch.dialects.attr_factory import enum_attr

RESERVED_BARRIER_IDS = 8
"""Named-barrier ids below this are reserved (CUTLASS ``ReservedNamedBarrierCount``)."""
NAMED_BARRIER_POOL = 32
"""Size of the per-CTA named-barrier id pool the verifiers check ``barrier_id_base`` against."""
HARDWARE_NAMED_BARRIERS = 16
"""PTX ``bar.sync`` accepts ids 0..15: the allocator's default pool size."""


class ExecutorType(StrEnum):
    """Unit of an executor mask."""

    THREAD = "thread"
    WARP = "warp"
    WARPGROUP = "warpgroup"
    CTA = "cta"


THREADS_PER_UNIT = {ExecutorType.THREAD: 1, ExecutorType.WARP: 32, ExecutorType.WARPGROUP: 128}
"""Threads per executor unit (a CTA unit's size comes from the op that names it)."""


class PipelineRole(StrEnum):
    """CUTLASS ``ThreadCategory``."""

    PRODUCER = "producer"
    CONSUMER = "consumer"
    PRODUCER_CONSUMER = "producer_consumer"
    NON_PARTICIPANT = "non_participant"


class PipelineUser(StrEnum):
    """The engine that arrives on a pipeline barrier."""

    THREADS = "threads"
    TMA = "tma"
    UMMA = "umma"
    CLC = "clc"


class MakeParticipantsMode(StrEnum):
    CUSTOM = "custom"
    CGA = "cga"


class PipelineBarrierType(StrEnum):
    MBARRIER = "mbarrier"
    NAMED_BARRIER = "named_barrier"


class PipelineBarrierElideType(StrEnum):
    NONE = "none"
    FULL = "full"
    EMPTY = "empty"


class PipelineBarrierResource(StrEnum):
    FULL = "full"
    EMPTY = "empty"


class PipelineScope(StrEnum):
    """Which CTAs a pipeline's barriers serve (``!cutlass.pipeline<..., scope = S>``).

    ``cluster`` (default): CUTLASS ``PipelineTmaAsync`` on a cluster: producers may multicast into
    the stages of their cluster peers, so consumers release to every peer whose producer fills
    their stages.  ``cta``: CUTLASS ``PipelineAsync`` / a ``PipelineTmaAsync`` without multicast:
    producers and consumers live in one CTA, releases arrive on the local barrier only."""

    CTA = "cta"
    CLUSTER = "cluster"


class MulticastDirection(StrEnum):
    """Cluster CTAs a multicast reaches from CTA (x, y) (CUTLASS SM100 ``McastDirection``;
    rank = x + y * cx): ``row`` = the CTAs with the same x (along N: the A operand's peers),
    ``col`` = the CTAs with the same y (along M: the B operand's peers), ``row_col`` = both."""

    ROW = "row"
    COL = "col"
    ROW_COL = "row_col"


class PipelineComputeCapability(StrEnum):
    SM90 = "sm90"
    SM100 = "sm100"


class BarrierId(StrEnum):
    """CUTLASS ``ReservedNamedBarriers`` plus ``dynamic`` (an allocator-assigned id)."""

    SYNC_THREADS = "sync_threads"
    EPILOGUE = "epilogue"
    TRANSPOSE = "transpose"
    TRANSFORM = "transform"
    STREAMK0 = "streamk0"
    STREAMK1 = "streamk1"
    TMEM_ALLOC = "tmem_alloc"
    SM120_MAINLOOP = "sm120_mainloop"
    DYNAMIC = "dynamic"


RESERVED_BARRIER_ID_VALUES = {kind: i for i, kind in enumerate(BarrierId) if kind is not BarrierId.DYNAMIC}
"""Hardware id of each reserved named barrier."""


_SPACED = SpacedOpaqueSyntaxAttribute
ExecutorTypeAttr = enum_attr("cutlass.executor_type", ExecutorType, _SPACED)
PipelineRoleAttr = enum_attr("cutlass.pipeline_role", PipelineRole, _SPACED)
PipelineUserAttr = enum_attr("cutlass.pipeline_user", PipelineUser, _SPACED)
MakeParticipantsModeAttr = enum_attr("cutlass.make_participants_mode", MakeParticipantsMode, _SPACED)
PipelineBarrierTypeAttr = enum_attr("cutlass.pipeline_barrier_type", PipelineBarrierType, _SPACED)
PipelineBarrierElideTypeAttr = enum_attr("cutlass.pipeline_barrier_elide_type", PipelineBarrierElideType, _SPACED)
PipelineBarrierResourceAttr = enum_attr("cutlass.pipeline_barrier_resource", PipelineBarrierResource, _SPACED)
PipelineScopeAttr = enum_attr("cutlass.pipeline_scope", PipelineScope, _SPACED)
MulticastDirectionAttr = enum_attr("cutlass.multicast_direction", MulticastDirection, _SPACED)
PipelineComputeCapabilityAttr = enum_attr("cutlass.pipeline_compute_capability", PipelineComputeCapability, _SPACED)
BarrierIdAttr = enum_attr("cutlass.barrier_id", BarrierId, _SPACED)


MAX_CLUSTER_CTAS = 16
"""The most CTAs any GPU launches in one thread-block cluster (sm_90 / sm_100 with the non-portable
size opt-in); the target-dependent limit is checked where the shape is used
(``scheduler_context.check_cga_shape``)."""


def check_cluster_size(what: str, shape: Sequence[int]) -> None:
    """A cluster shape no GPU can launch (more than 16 CTAs) is rejected wherever it is written,
    before any arithmetic on its (possibly 64-bit-overflowing) extents."""
    ctas = 1
    for v in shape:
        ctas *= v
    if ctas > MAX_CLUSTER_CTAS:
        raise VerifyException(
            f"{what} {list(shape)} has {ctas} CTAs: no GPU launches a thread-block cluster of more than "
            f"{MAX_CLUSTER_CTAS} CTAs (at most 8 portably, 16 with the non-portable opt-in on sm_90 / sm_100)"
        )


@irdl_attr_definition
class CgaAttr(ParametrizedAttribute):
    """A CGA (thread-block cluster) shape ``#cutlass.cga_attr<x, y, z>``, every extent >= 1."""

    name = "cutlass.cga_attr"

    x: IntAttr
    y: IntAttr
    z: IntAttr

    def __init__(self, shape: Sequence[int]):
        x, y, z = shape
        super().__init__(IntAttr(x), IntAttr(y), IntAttr(z))

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.x.data, self.y.data, self.z.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr, IntAttr, IntAttr]:
        with parser.in_angle_brackets():
            values = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_integer)
        if len(values) != 3:
            parser.raise_error(f"cga_attr expects 3 extents (x, y, z), found {len(values)}")
        return (IntAttr(values[0]), IntAttr(values[1]), IntAttr(values[2]))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(", ".join(str(v) for v in self.shape))

    def verify(self) -> None:
        if any(v < 1 for v in self.shape):
            raise VerifyException(f"cga_attr extents must be >= 1, found {list(self.shape)}")
        check_cluster_size("cga_attr", self.shape)


ATTRS: list[type] = [
    ExecutorTypeAttr,
    PipelineRoleAttr,
    PipelineUserAttr,
    MakeParticipantsModeAttr,
    PipelineBarrierTypeAttr,
    PipelineBarrierElideTypeAttr,
    PipelineBarrierResourceAttr,
    PipelineComputeCapabilityAttr,
    BarrierIdAttr,
    CgaAttr,
    PipelineScopeAttr,
    MulticastDirectionAttr,
]
