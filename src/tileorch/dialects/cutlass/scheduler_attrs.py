"""Enum attributes of the tile-scheduler and MODS families (``#cutlass<mnemonic value>``).

Names follow CUTLASS (``tile_scheduler_detail.hpp``, ``tile_scheduler_params.h``) and the
field names of the shipping ``tileiras`` dialect.  Field enums select one member of a
params / work-tile-info / MODS-instrumentation value for the ``*_get_value`` and
``*_set_value`` accessors; :data:`FIELD_VALUE_KIND` says what each member holds.
"""

from __future__ import annotations

from enum import auto

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum


class RasterOrder(StrEnum):
    """CUTLASS ``RasterOrderOptions``: walk tiles along M or N, or let the host decide."""

    HEURISTIC = auto()
    ALONG_M = auto()
    ALONG_N = auto()


class DecompMode(StrEnum):
    """CUTLASS ``DecompositionMode`` of the Stream-K scheduler."""

    HEURISTIC = auto()
    DATA_PARALLEL = auto()
    SPLIT_K = auto()
    STREAM_K = auto()


class TileSchedulerKind(StrEnum):
    """Which scheduler a ``!cutlass.tile_scheduler<kind>`` handle runs.

    ``dp``: one tile per CTA/CGA (optionally pulling WorkIDs at run time);
    ``static_persistent``: resident CTAs walk a closed-form iterator;
    ``dynamic_persistent``: resident CTAs pull WorkIDs (SM100 cluster launch control);
    ``streamk``: K-split work with fix-up through a workspace.
    """

    DP = auto()
    STATIC_PERSISTENT = auto()
    DYNAMIC_PERSISTENT = auto()
    STREAMK = auto()


class DpParamField(StrEnum):
    N_CGA_TILES_M = auto()
    N_CGA_TILES_N = auto()
    N_CGA_TILES_L = auto()
    CGA_SHAPE_M = auto()
    CGA_SHAPE_N = auto()
    N_TILES_MN = auto()
    RASTER_OPTION = auto()
    SWIZZLE_SIZE = auto()
    N_CGA_TILES_PER_BATCH = auto()
    N_CGA_TILES_MAJOR = auto()
    N_CGA_TILES_PER_PROBLEM = auto()


class StaticPersistentParamField(StrEnum):
    N_CGA_TILES_M = auto()
    N_CGA_TILES_N = auto()
    N_CGA_TILES_L = auto()
    CGA_SHAPE_M = auto()
    CGA_SHAPE_N = auto()
    N_TILES_MN = auto()
    RASTER_OPTION = auto()
    SWIZZLE_SIZE = auto()
    N_CGA_TILES_PER_BATCH = auto()
    N_CGA_TILES_MAJOR = auto()
    N_CGAS_PER_SMS = auto()
    N_CGA_TILES_PER_PROBLEM = auto()


class StreamKParamField(StrEnum):
    N_CGA_TILES_M = auto()
    N_CGA_TILES_N = auto()
    N_CGA_TILES_L = auto()
    CGA_SHAPE_M = auto()
    CGA_SHAPE_N = auto()
    N_TILES_MN = auto()
    RASTER_OPTION = auto()
    SWIZZLE_SIZE = auto()
    N_CGA_TILES_PER_BATCH = auto()
    N_CGA_TILES_MAJOR = auto()
    N_CGA_TILES_PER_PROBLEM = auto()
    WORKSPACE = auto()
    N_K_TILES_PER_TILE = auto()
    N_K_TILES_PER_SMALL_UNIT = auto()
    N_UNITS = auto()
    N_SK_UNITS = auto()
    N_BIG_UNITS = auto()
    N_SPLITS = auto()
    N_SK_TILES = auto()
    NUM_GROUPS = auto()
    REDUC_WORKSPACE_SIZE = auto()
    BAR_WORKSPACE_SIZE = auto()


class DpWorkTileInfoField(StrEnum):
    M_IDX = auto()
    N_IDX = auto()
    L_IDX = auto()
    LINEARIZED_ID = auto()
    IS_VALID_TILE = auto()


class StaticPersistentWorkTileInfoField(StrEnum):
    M_IDX = auto()
    N_IDX = auto()
    L_IDX = auto()
    LINEARIZED_ID = auto()
    TILE_IDX = auto()
    IS_VALID_TILE = auto()


class StreamKWorkTileInfoField(StrEnum):
    M_IDX = auto()
    N_IDX = auto()
    L_IDX = auto()
    LINEARIZED_ID = auto()
    TILE_IDX = auto()
    K_TILE_START = auto()
    K_TILE_COUNT = auto()
    K_TILE_REMAINING = auto()
    IS_SEPARATE_REDUCTION = auto()


class ModsInstrumentationField(StrEnum):
    PERIOD_NS = auto()
    PULSE_NS = auto()
    MIN_SLEEP = auto()
    MAINLOOP_COUNT = auto()
    IS_2CTA_MMA = auto()


@irdl_attr_definition
class RasterOrderAttr(EnumAttribute[RasterOrder], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.raster_order"


@irdl_attr_definition
class DecompModeAttr(EnumAttribute[DecompMode], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.decomp_mode"


@irdl_attr_definition
class TileSchedulerKindAttr(EnumAttribute[TileSchedulerKind], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.tile_scheduler"


@irdl_attr_definition
class DpParamFieldAttr(EnumAttribute[DpParamField], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.tile_scheduler_dp_param_field"


@irdl_attr_definition
class StaticPersistentParamFieldAttr(EnumAttribute[StaticPersistentParamField], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.tile_scheduler_static_persistent_param_field"


@irdl_attr_definition
class StreamKParamFieldAttr(EnumAttribute[StreamKParamField], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.tile_scheduler_streamk_param_field"


@irdl_attr_definition
class DpWorkTileInfoFieldAttr(EnumAttribute[DpWorkTileInfoField], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.dp_work_tile_info_field"


@irdl_attr_definition
class StaticPersistentWorkTileInfoFieldAttr(EnumAttribute[StaticPersistentWorkTileInfoField], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.static_persistent_work_tile_info_field"


@irdl_attr_definition
class StreamKWorkTileInfoFieldAttr(EnumAttribute[StreamKWorkTileInfoField], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.streamk_work_tile_info_field"


@irdl_attr_definition
class ModsInstrumentationFieldAttr(EnumAttribute[ModsInstrumentationField], SpacedOpaqueSyntaxAttribute):
    name = "cutlass.mods_instrumentation_field"


# What a field holds: "i1" (a flag), "i32" (a count, index or shape), "size" (a byte size:
# any integer or index type), "ptr" (a global-memory pointer).
_FLAGS = {"is_valid_tile", "is_separate_reduction", "is_2cta_mma"}
_SIZES = {"reduc_workspace_size", "bar_workspace_size", "period_ns", "pulse_ns", "min_sleep"}
_POINTERS = {"workspace"}


def field_value_kind(field: str) -> str:
    """``"i1"``, ``"i32"``, ``"size"`` or ``"ptr"``: the value kind of a field member."""
    if field in _FLAGS:
        return "i1"
    if field in _SIZES:
        return "size"
    if field in _POINTERS:
        return "ptr"
    return "i32"


FIELD_ATTRS = (
    DpParamFieldAttr,
    StaticPersistentParamFieldAttr,
    StreamKParamFieldAttr,
    DpWorkTileInfoFieldAttr,
    StaticPersistentWorkTileInfoFieldAttr,
    StreamKWorkTileInfoFieldAttr,
    ModsInstrumentationFieldAttr,
)

ATTRS: list[type] = [RasterOrderAttr, DecompModeAttr, TileSchedulerKindAttr, *FIELD_ATTRS]
