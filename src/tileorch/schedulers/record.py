"""The seed's 48-byte ``CutlassTileSchedulerParams`` record (little-endian, packed byte-exactly).

Offsets: eight ``uint32`` counts at 0x00..0x1C, ``uint64 workspace_ptr`` at 0x20 (8-aligned),
``uint32 k_split_count`` at 0x28 and a zero ``reserved`` word at 0x2C.
"""

from __future__ import annotations

import struct
from dataclasses import astuple, dataclass

from .persistent import StaticPersistentParams
from .streamk_params import StreamKParams

_LAYOUT = struct.Struct("<8IQII")
RECORD_BYTES = _LAYOUT.size
FIELD_OFFSETS = {
    "num_tiles_m": 0x00, "num_tiles_n": 0x04, "num_tiles_k": 0x08, "cluster_shape_x": 0x0C,
    "cluster_shape_y": 0x10, "cluster_shape_z": 0x14, "num_ctas_per_cluster": 0x18, "total_ctas": 0x1C,
    "workspace_ptr": 0x20, "k_split_count": 0x28, "reserved": 0x2C,
}


@dataclass(frozen=True)
class CutlassTileSchedulerParams:
    """Field order and meaning as in the seed; ``k_split_count`` is 0 for non-stream-K kinds."""

    num_tiles_m: int
    num_tiles_n: int
    num_tiles_k: int
    cluster_shape_x: int
    cluster_shape_y: int
    cluster_shape_z: int
    num_ctas_per_cluster: int
    total_ctas: int
    workspace_ptr: int = 0
    k_split_count: int = 0
    reserved: int = 0

    def pack(self) -> bytes:
        if self.workspace_ptr % 8:
            raise ValueError(f"workspace_ptr {self.workspace_ptr:#x} is not 8-byte aligned")
        if self.reserved:
            raise ValueError("the reserved word must be zero")
        return _LAYOUT.pack(*astuple(self))

    @classmethod
    def unpack(cls, data: bytes) -> CutlassTileSchedulerParams:
        if len(data) != RECORD_BYTES:
            raise ValueError(f"expected {RECORD_BYTES} bytes, got {len(data)}")
        rec = cls(*_LAYOUT.unpack(data))
        if rec.workspace_ptr % 8:
            raise ValueError(f"workspace_ptr {rec.workspace_ptr:#x} is not 8-byte aligned")
        return rec


def record_for(params: StreamKParams | StaticPersistentParams, workspace_ptr: int = 0) -> CutlassTileSchedulerParams:
    """The record the params factory builds: padded CTA tile counts, cluster, grid size, splits."""
    rp = params.raster
    g = params.grid
    splits = params.splits if isinstance(params, StreamKParams) else 0
    return CutlassTileSchedulerParams(rp.blocks_m, rp.blocks_n, params.k_tiles_per_output_tile, rp.cluster_m,
                                      rp.cluster_n, 1, rp.cluster_size, g[0] * g[1] * g[2], workspace_ptr, splits)
