"""Enum attributes of the tile-scheduler and MODS families (``#cutlass<mnemonic value>``).

Names follow CUTLASS (``tile_scheduler_detail.hpp``, ``tile_scheduler_params.h``) and the
field names of the shipping ``tileiras`` dialect.  Field enums select one member of a
params / work-tile-info / MODS-instrumentation value for the ``*_get_value`` and
``*_set_value`` accessors; :data:`FIELD_VALUE_KIND` says what each member holds.
"""

from __future__ import annotations

from enum import auto

from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.utils.str_enum import StrEnum

from tileorch.dialects.attr_factory import enum_attr, str_enum


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


# The params of every scheduler start with the CGA grid; the work-tile infos with the tile coordinates.
_GRID_PARAMS = ("n_cga_tiles_m", "n_cga_tiles_n", "n_cga_tiles_l", "cga_shape_m", "cga_shape_n", "n_tiles_mn",
                "raster_option", "swizzle_size", "n_cga_tiles_per_batch", "n_cga_tiles_major")
_TILE_COORDS = ("m_idx", "n_idx", "l_idx", "linearized_id")

DpParamField = str_enum("DpParamField", *_GRID_PARAMS, "n_cga_tiles_per_problem")
StaticPersistentParamField = str_enum("StaticPersistentParamField", *_GRID_PARAMS, "n_cgas_per_sms",
                                      "n_cga_tiles_per_problem")
StreamKParamField = str_enum(
    "StreamKParamField", *_GRID_PARAMS, "n_cga_tiles_per_problem", "workspace", "n_k_tiles_per_tile",
    "n_k_tiles_per_small_unit", "n_units", "n_sk_units", "n_big_units", "n_splits", "n_sk_tiles", "num_groups",
    "reduc_workspace_size", "bar_workspace_size")
DpWorkTileInfoField = str_enum("DpWorkTileInfoField", *_TILE_COORDS, "is_valid_tile")
StaticPersistentWorkTileInfoField = str_enum("StaticPersistentWorkTileInfoField", *_TILE_COORDS, "tile_idx",
                                             "is_valid_tile")
StreamKWorkTileInfoField = str_enum(
    "StreamKWorkTileInfoField", *_TILE_COORDS, "tile_idx", "k_tile_start", "k_tile_count", "k_tile_remaining",
    "is_separate_reduction")
ModsInstrumentationField = str_enum("ModsInstrumentationField", "period_ns", "pulse_ns", "min_sleep",
                                    "mainloop_count", "is_2cta_mma")

_SPACED = SpacedOpaqueSyntaxAttribute
RasterOrderAttr = enum_attr("cutlass.raster_order", RasterOrder, _SPACED)
DecompModeAttr = enum_attr("cutlass.decomp_mode", DecompMode, _SPACED)
TileSchedulerKindAttr = enum_attr("cutlass.tile_scheduler", TileSchedulerKind, _SPACED)
DpParamFieldAttr = enum_attr("cutlass.tile_scheduler_dp_param_field", DpParamField, _SPACED)
StaticPersistentParamFieldAttr = enum_attr("cutlass.tile_scheduler_static_persistent_param_field",
                                           StaticPersistentParamField, _SPACED)
StreamKParamFieldAttr = enum_attr("cutlass.tile_scheduler_streamk_param_field", StreamKParamField, _SPACED)
DpWorkTileInfoFieldAttr = enum_attr("cutlass.dp_work_tile_info_field", DpWorkTileInfoField, _SPACED)
StaticPersistentWorkTileInfoFieldAttr = enum_attr("cutlass.static_persistent_work_tile_info_field",
                                                  StaticPersistentWorkTileInfoField, _SPACED)
StreamKWorkTileInfoFieldAttr = enum_attr("cutlass.streamk_work_tile_info_field", StreamKWorkTileInfoField, _SPACED)
ModsInstrumentationFieldAttr = enum_attr("cutlass.mods_instrumentation_field", ModsInstrumentationField, _SPACED)


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
