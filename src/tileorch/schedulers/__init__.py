"""Host-side tile-scheduler math reproducing CUTLASS 4.x's SM90 (and SM100 stream-K) schedulers.

Pure Python plus NumPy; shared by the host API, ``tileorch schedule`` and the device lowering.
The stream-K work functions (NumPy) load on first use: the device lowering reads the
parameter records alone and a compile does not import NumPy.
"""

from .enums import DecompositionMode, RasterOrder, RasterOrderOptions, ReductionMode
from .persistent import (AdvanceResult, StaticPersistentParams, data_parallel_params, data_parallel_tile,
                         persistent_advance, static_persistent_params, static_persistent_sequence)
from .raster import (RasterParams, linear_idx_from_m_and_n, log_swizzle_size, max_cta_occupancy, persistent_grid_shape,
                     raster_params, rasterization_order, tiled_cta_shape_mnl, work_idx_m_and_n)
from .streamk_params import StreamKParams, streamk_params
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

_LAZY = {name: "streamk_work" for name in ("Schedule", "continue_work", "get_work", "schedule_arrays", "work_sequence")}


def __getattr__(name: str):
    """Names of :data:`_LAZY`: their submodule (which imports NumPy) is imported on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value
