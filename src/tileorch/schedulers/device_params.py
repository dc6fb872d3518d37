"""The params record a device scheduler body reads: the seed's 48-byte header
(:mod:`.record`) followed by a tail of 32-bit words holding the derived quantities CUTLASS keeps
in its device ``Params`` (stream-K units, swizzle, raster, grid, reduction mode).  The host packs it with
:func:`pack_device_params`; the device lowering reads the same field names back, so host and
device agree on one layout table.

The cluster shape and, when the params type fixes it, the raster order are compile-time facts of
the kernel; everything else is read at run time.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .enums import RasterOrder, ReductionMode
from .persistent import StaticPersistentParams
from .raster import RasterParams
from .record import RECORD_BYTES, record_for
from .streamk_params import StreamKParams

STREAMK_TAIL = ("units_per_problem", "big_units", "big_groups", "sk_tiles", "sk_units", "k_tiles_per_sk_unit",
                "k_tiles_per_sk_big_unit", "sk_groups", "sk_units_per_group", "clusters_mnl", "blocks_l",
                "log_swizzle", "along_n", "grid_x", "grid_y", "grid_z", "reduction_bytes", "barrier_bytes",
                "reduction_mode")
# CUTLASS's ``ReductionMode`` enumerator values, the ``reduction_mode`` word of the stream-K tail
REDUCTION_MODE_CODES = {ReductionMode.DETERMINISTIC: 0, ReductionMode.NONDETERMINISTIC: 1}
PERSISTENT_TAIL = ("blocks_l", "log_swizzle", "along_n", "grid_x", "grid_y", "grid_z")
HEADER_FIELDS = {"blocks_m": 0x00, "blocks_n": 0x04, "k_tiles_per_output_tile": 0x08, "total_ctas": 0x1C,
                 "workspace_ptr": 0x20, "splits": 0x28}


def tail_fields(streamk: bool) -> tuple[str, ...]:
    return STREAMK_TAIL if streamk else PERSISTENT_TAIL


def field_offset(name: str, streamk: bool) -> int:
    """Byte offset of ``name`` in the record (header fields first, then 4-byte tail words)."""
    if name in HEADER_FIELDS:
        return HEADER_FIELDS[name]
    return RECORD_BYTES + 4 * tail_fields(streamk).index(name)


def record_bytes(streamk: bool) -> int:
    return RECORD_BYTES + 4 * len(tail_fields(streamk))


def _tail_values(p: StreamKParams | StaticPersistentParams, reduction_bytes: int, barrier_bytes: int) -> dict[str, int]:
    rp = p.raster
    values = {"blocks_l": rp.blocks_l, "log_swizzle": rp.log_swizzle, "along_n": int(rp.along_n),
              "grid_x": p.grid[0], "grid_y": p.grid[1], "grid_z": p.grid[2], "reduction_bytes": reduction_bytes,
              "barrier_bytes": barrier_bytes}
    if isinstance(p, StreamKParams):
        values.update({name: getattr(p, name) for name in STREAMK_TAIL if hasattr(p, name)})
        values["reduction_mode"] = REDUCTION_MODE_CODES[p.reduction_mode]
    return values


def pack_device_params(p: StreamKParams | StaticPersistentParams, workspace_ptr: int = 0,
                       reduction_bytes: int = 0, barrier_bytes: int = 0) -> bytes:
    """Header (:func:`.record.record_for`) + tail words, little-endian; the workspace region
    sizes are those the host allocated (:func:`.workspace.workspace_sizes`)."""
    streamk = isinstance(p, StreamKParams)
    values = _tail_values(p, reduction_bytes, barrier_bytes)
    tail = [values[name] for name in tail_fields(streamk)]
    return record_for(p, workspace_ptr).pack() + struct.pack(f"<{len(tail)}I", *tail)


@dataclass(frozen=True)
class RuntimeRasterParams(RasterParams):
    """:class:`RasterParams` whose raster direction may be a run-time value (``along_n_value``)."""

    along_n_value: Any = False

    @property
    def along_n(self) -> Any:  # type: ignore[override]
        return self.along_n_value


def raster_from_fields(get: Callable[[str], Any], cluster: tuple[int, int], along_n: Any) -> RuntimeRasterParams:
    order = RasterOrder.ALONG_N if along_n is True else RasterOrder.ALONG_M
    return RuntimeRasterParams(get("blocks_m"), get("blocks_n"), get("blocks_l"), cluster[0], cluster[1],
                               get("log_swizzle"), order, along_n)


def streamk_from_fields(get: Callable[[str], Any], cluster: tuple[int, int], along_n: Any) -> StreamKParams:
    """Stream-K params whose run-time fields are ``get(name)`` (loads or symbolic values).

    Fields CUTLASS never sets on the device path are the host defaults: no separate reduction,
    epilogue subtile 1, K-tile start alignment 1.
    """
    from .enums import DecompositionMode, ReductionMode

    return StreamKParams(
        raster=raster_from_fields(get, cluster, along_n), grid=(get("grid_x"), get("grid_y"), get("grid_z")),
        decomposition=DecompositionMode.STREAM_K, reduction_mode=ReductionMode.DETERMINISTIC,
        k_tiles_per_output_tile=get("k_tiles_per_output_tile"), units_per_problem=get("units_per_problem"),
        splits=get("splits"), big_units=get("big_units"), big_groups=get("big_groups"), sk_tiles=get("sk_tiles"),
        sk_units=get("sk_units"), k_tiles_per_sk_unit=get("k_tiles_per_sk_unit"),
        k_tiles_per_sk_big_unit=get("k_tiles_per_sk_big_unit"), sk_groups=get("sk_groups"),
        sk_units_per_group=get("sk_units_per_group"), clusters_mnl=get("clusters_mnl"))


def persistent_from_fields(get: Callable[[str], Any], cluster: tuple[int, int], along_n: Any) -> StaticPersistentParams:
    return StaticPersistentParams(raster_from_fields(get, cluster, along_n),
                                  (get("grid_x"), get("grid_y"), get("grid_z")), get("k_tiles_per_output_tile"))
