"""Data-parallel and static persistent schedulers over the SM90 rasterised tile space.

Static persistent is CUTLASS's ``PersistentTileSchedulerSm90``: a one-wave grid whose CTAs
start at their launch linear index and stride by the grid size.  Data-parallel is the same
mapping with a grid of one CTA per (padded) tile, so every CTA owns exactly one tile.
``persistent_advance`` is the seed's closed-form iterator, including the pipeline-round
``increment_pipe`` bit (CUTLASS's SM90 scheduler clocks its pipeline on every fetch, i.e.
``tiles_per_pipeline_round == 1``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .enums import RasterOrderOptions
from .raster import (RasterParams, ceil_div, check_domain, check_launch_grid, check_linear_range,
                     hardware_cta_in_cluster, launch_linear_idx, persistent_grid_shape, raster_params,
                     tiled_cta_shape_mnl, work_idx_m_and_n)
from .work_tile import DataParallelWorkTileInfo, StaticPersistentWorkTileInfo


@dataclass(frozen=True)
class StaticPersistentParams:
    """Static persistent scheduler state shared by all CTAs."""

    raster: RasterParams
    grid: tuple[int, int, int]
    k_tiles_per_output_tile: int
    tiles_per_pipeline_round: int = 1

    @property
    def grid_width(self) -> int:
        """Linear-index stride between a CTA's consecutive tiles (the whole grid)."""
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def total_cga_tiles(self) -> int:
        """Valid linear indices (CTA tiles of the padded problem)."""
        return self.raster.blocks_per_problem


def static_persistent_params(problem: tuple[int, int, int, int], tile: tuple[int, int, int],
                             cluster: tuple[int, int], sms: int, *, max_swizzle: int = 1,
                             raster: RasterOrderOptions = RasterOrderOptions.HEURISTIC,
                             tiles_per_pipeline_round: int = 1,
                             max_active_clusters: int = 0) -> StaticPersistentParams:
    """Params and (truncated) one-wave grid of ``PersistentTileSchedulerSm90``."""
    if max_swizzle < 0:
        raise ValueError("max_swizzle must be >= 0")
    if tiles_per_pipeline_round < 1:
        raise ValueError("tiles_per_pipeline_round must be >= 1")
    check_domain(problem, tile, cluster, max_swizzle)
    blocks = tiled_cta_shape_mnl(problem, tile, cluster)
    rp = raster_params(blocks, cluster, max_swizzle, raster)
    grid = persistent_grid_shape(blocks, cluster, sms, max_swizzle, raster,
                                 max_active_clusters=max_active_clusters)
    check_linear_range(rp.blocks_per_problem, grid[0] * grid[1] * grid[2])
    return StaticPersistentParams(rp, grid, ceil_div(problem[2], tile[2]), tiles_per_pipeline_round)


def data_parallel_params(problem: tuple[int, int, int, int], tile: tuple[int, int, int],
                         cluster: tuple[int, int], *, max_swizzle: int = 1,
                         raster: RasterOrderOptions = RasterOrderOptions.HEURISTIC) -> StaticPersistentParams:
    """The persistent mapping with one CTA per padded tile (grid = every tile, one wave).

    Raises ``ValueError`` when that grid exceeds CUDA's launch limits (along N its long side is
    ``y``, at most 65535: walk along M, or use the persistent schedule, for more tiles).
    """
    check_domain(problem, tile, cluster, max_swizzle)
    blocks = tiled_cta_shape_mnl(problem, tile, cluster)
    rp = raster_params(blocks, cluster, max_swizzle, raster)
    grid = check_launch_grid(persistent_grid_shape(blocks, cluster, rp.blocks_per_problem, max_swizzle, raster,
                                                   bypass_occupancy=True), "the data-parallel schedule")
    return StaticPersistentParams(rp, grid, ceil_div(problem[2], tile[2]))


def tile_of_linear_idx(rp: RasterParams, linear_idx, cta_m_in_cluster, cta_n_in_cluster):
    """``(m, n, l)`` of linear work index ``linear_idx`` (valid when < blocks_per_problem)."""
    l, rem = linear_idx // rp.blocks_per_batch, linear_idx % rp.blocks_per_batch
    m, n = work_idx_m_and_n(rp, rem // rp.minor, cta_m_in_cluster, cta_n_in_cluster)
    return m, n, l


def first_work(p: StaticPersistentParams, bx: int, by: int) -> StaticPersistentWorkTileInfo:
    """The work CTA ``(bx, by)`` starts with (``initial_work_tile_info``)."""
    lin = launch_linear_idx(p.raster.along_n, bx, by, p.grid)
    return _work_at(p, lin, 0, hardware_cta_in_cluster(bx, by, (p.raster.cluster_m, p.raster.cluster_n)))


def _work_at(p: StaticPersistentParams, lin: int, tile_idx: int,
             cta_in_cluster: tuple[int, int]) -> StaticPersistentWorkTileInfo:
    if lin >= p.total_cga_tiles:
        return StaticPersistentWorkTileInfo(-1, -1, -1, lin, tile_idx, False)
    m, n, l = tile_of_linear_idx(p.raster, lin, *cta_in_cluster)
    return StaticPersistentWorkTileInfo(m, n, l, lin, tile_idx, True)


@dataclass(frozen=True)
class AdvanceResult:
    """:func:`persistent_advance`'s answer: the next work tile, whether it is valid, whether the pipe advances."""

    tile: StaticPersistentWorkTileInfo
    is_valid_tile: bool
    increment_pipe: bool


def persistent_advance(p: StaticPersistentParams, t: StaticPersistentWorkTileInfo,
                       cta_in_cluster: tuple[int, int] = (0, 0)) -> AdvanceResult:
    """Advance by the grid width; ``increment_pipe`` when a pipeline round of tiles completes."""
    increment_pipe = t.tile_idx + 1 == p.tiles_per_pipeline_round
    nxt = _work_at(p, t.linearized_id + p.grid_width, 0 if increment_pipe else t.tile_idx + 1,
                   cta_in_cluster)
    return AdvanceResult(nxt, nxt.is_valid_tile, increment_pipe)


def static_persistent_sequence(p: StaticPersistentParams) -> list[list[StaticPersistentWorkTileInfo]]:
    """Every CTA's valid tiles in launch order (blockIdx.y outer, blockIdx.x inner)."""
    out = []
    for by in range(p.grid[1]):
        for bx in range(p.grid[0]):
            cic = hardware_cta_in_cluster(bx, by, (p.raster.cluster_m, p.raster.cluster_n))
            t, seq = first_work(p, bx, by), []
            while t.is_valid_tile:
                seq.append(t)
                t = persistent_advance(p, t, cic).tile
            out.append(seq)
    return out


def data_parallel_tile(p: StaticPersistentParams, linear_id: int,
                       cta_in_cluster: tuple[int, int] = (0, 0)) -> DataParallelWorkTileInfo:
    """The one tile of data-parallel CTA ``linear_id`` (requires ``0 <= linear_id < total``)."""
    if not 0 <= linear_id < p.total_cga_tiles:
        raise ValueError(f"linear id {linear_id} outside [0, {p.total_cga_tiles})")
    m, n, l = tile_of_linear_idx(p.raster, linear_id, *cta_in_cluster)
    return DataParallelWorkTileInfo(m, n, l, linear_id)
