"""Host-side tile-scheduler math reproducing CUTLASS 4.x's SM90 (and SM100 stream-K) schedulers.

Pure Python plus NumPy; shared by the host API, ``tileorch schedule`` and the device lowering.
"""

from .enums import DecompositionMode, RasterOrder, RasterOrderOptions, ReductionMode
from .persistent import (AdvanceResult, StaticPersistentParams, data_parallel_params, data_parallel_tile,
                         persistent_advance, static_persistent_params, static_persistent_sequence)
from .raster import (RasterParams, linear_idx_from_m_and_n, log_swizzle_size, max_cta_occupancy,
                     persistent_grid_shape, raster_params, rasterization_order, tiled_cta_shape_mnl,
                     work_idx_m_and_n)
from .streamk_params import StreamKParams, streamk_params
from .streamk_work import Schedule, continue_work, get_work, schedule_arrays, work_sequence
from .work_tile import DataParallelWorkTileInfo, StaticPersistentWorkTileInfo, WorkTileInfo
from .workspace import WorkspaceSizes, workspace_sizes

__all__ = [
    "AdvanceResult", "DataParallelWorkTileInfo", "DecompositionMode", "RasterOrder", "RasterOrderOptions",
    "RasterParams", "ReductionMode", "Schedule", "StaticPersistentParams", "StaticPersistentWorkTileInfo",
    "StreamKParams", "WorkTileInfo", "WorkspaceSizes", "continue_work", "data_parallel_params",
    "data_parallel_tile", "get_work", "linear_idx_from_m_and_n", "log_swizzle_size", "max_cta_occupancy",
    "persistent_advance", "persistent_grid_shape", "raster_params", "rasterization_order", "schedule_arrays",
    "static_persistent_params", "static_persistent_sequence", "streamk_params", "tiled_cta_shape_mnl",
    "work_idx_m_and_n", "work_sequence", "workspace_sizes",
]
