"""Tile counts, swizzle, raster order and persistent grid shape of CUTLASS's SM90 schedulers.

Re-implements the arithmetic of ``PersistentTileSchedulerSm90Params`` (tile_scheduler_params.h)
and the tile mapping of ``PersistentTileSchedulerSm90`` / ``StaticPersistentTileScheduler``.
All tile counts are in CTA tiles; ``problem_blocks`` means CTA tiles rounded up to whole
clusters, ``padded`` additionally rounded up to ``2**log_swizzle`` clusters per mode.
The index functions use only integer operators, so they accept Python ints or NumPy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

from .enums import RasterOrder, RasterOrderOptions

# GH100 has 8 GPCs of 9 TPCs (18 SMs); CUTLASS sizes cluster grids assuming this.
MAX_SM_PER_GPC = 18
INT32_MAX = 2**31 - 1
UINT32_MAX = 2**32 - 1
# CUDA's launch-grid extents (x, y, z)
GRID_LIMITS = (INT32_MAX, 65535, 65535)


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def round_up(a: int, b: int) -> int:
    return ceil_div(a, b) * b


def check_cluster(cluster_m: int, cluster_n: int) -> None:
    """CUTLASS divides by cluster extents with power-of-two fast divmods."""
    for name, v in (("M", cluster_m), ("N", cluster_n)):
        if v < 1 or v & (v - 1):
            raise ValueError(f"cluster extent along {name} must be a power of two, got {v}")


def tiled_cta_shape_mnl(problem: tuple[int, int, int, int], tile: tuple[int, int, int],
                        cluster: tuple[int, int]) -> tuple[int, int, int]:
    """CTA tiles per mode, M and N rounded up to whole clusters (``get_tiled_cta_shape_mnl``)."""
    m, n, _k, l = problem
    cx, cy = cluster
    return (round_up(ceil_div(m, tile[0]), cx), round_up(ceil_div(n, tile[1]), cy), l)


def check_domain(problem: tuple[int, int, int, int], tile: tuple[int, int, int], cluster: tuple[int, int],
                 max_swizzle: int) -> None:
    """Refuse (``ValueError``) a request outside the range where CUTLASS's host integers are exact.

    CUTLASS computes ``M + BLK_M - 1`` (and N, K) in ``int`` (``get_tiled_cta_shape_mnl``), the
    padded tile count ``blocks_m * blocks_n * L`` in 32-bit integers (``int problem_blocks_total``
    of ``get_grid_shape``, ``uint32_t`` tile ids of ``update_work_tile_m_n_l``): past ``2**31 - 1``
    they wrap and CUTLASS schedules garbage (e.g. 2**32 tiles give ``units_per_problem_ = 0``).
    The tile count is checked after the swizzle padding and after the second padding the
    workspace sizing applies to the padded counts.
    """
    for name, extent, t in zip("MNK", problem[:3], tile):
        if extent + t - 1 > INT32_MAX:
            raise ValueError(f"problem extent {name} = {extent} with tile {t}: CUTLASS computes {name} + tile - 1 "
                             f"in a 32-bit int, which overflows past {INT32_MAX}")
    if problem[3] > INT32_MAX:
        raise ValueError(f"batch count L = {problem[3]} does not fit CUTLASS's 32-bit batch index")
    blocks = tiled_cta_shape_mnl(problem, tile, cluster)
    _ls, bm, bn = swizzle_padded(blocks, cluster, max_swizzle)
    _ls, bm2, bn2 = swizzle_padded((bm, bn, blocks[2]), cluster, max_swizzle)
    tiles = bm2 * bn2 * blocks[2]
    if tiles > INT32_MAX:
        raise ValueError(f"{bm} x {bn} x {blocks[2]} CTA tiles (swizzle- and cluster-padded): CUTLASS's tile total "
                         f"and the device's tile index are 32-bit integers, exact only up to {INT32_MAX}")


def check_linear_range(valid_indices: int, grid_size: int) -> None:
    """Refuse (``ValueError``) a persistent walk whose linear work index leaves ``int32``.

    CUTLASS keeps the index in ``uint64_t``; the device lowering computes it in ``i32``, and a CTA
    steps one grid past its last valid index before it stops: ``valid_indices - 1 + grid_size``
    must stay at most ``2**31 - 1``.
    """
    if valid_indices - 1 + grid_size > INT32_MAX:
        raise ValueError(f"{valid_indices} work units walked by a grid of {grid_size} CTAs: the device's 32-bit "
                         f"linear work index would pass {INT32_MAX}")


def check_launch_grid(grid: tuple[int, int, int], what: str) -> tuple[int, int, int]:
    """``grid`` if CUDA can launch it, else ``ValueError`` (y and z are limited to 65535)."""
    for axis, extent, limit in zip("xyz", grid, GRID_LIMITS):
        if extent > limit:
            raise ValueError(f"{what} needs a launch grid of {list(grid)}: {axis} = {extent} exceeds CUDA's "
                             f"limit of {limit} along {axis}")
    return grid


def log_swizzle_size(blocks_m: int, blocks_n: int, max_swizzle: int) -> int:
    """log2 of the swizzle band width: 8 needs both modes >= 6 tiles, 4 needs >= 3, 2 needs >= 2."""
    d = min(blocks_m, blocks_n)
    if max_swizzle >= 8 and d >= 6:
        return 3
    if max_swizzle >= 4 and d >= 3:
        return 2
    if max_swizzle >= 2 and d >= 2:
        return 1
    return 0


def rasterization_order(tiles_m: int, tiles_n: int, option: RasterOrderOptions) -> RasterOrder:
    """Heuristic walks along M only when there are more N tiles than M tiles (a tie walks along N)."""
    option = RasterOrderOptions(option)
    if option is RasterOrderOptions.HEURISTIC:
        return RasterOrder.ALONG_M if tiles_n > tiles_m else RasterOrder.ALONG_N
    return RasterOrder.ALONG_N if option is RasterOrderOptions.ALONG_N else RasterOrder.ALONG_M


def swizzle_padded(problem_blocks: tuple[int, int, int], cluster: tuple[int, int],
                   max_swizzle: int) -> tuple[int, int, int]:
    """``(log_swizzle, padded_m, padded_n)``: blocks rounded up to ``2**log_swizzle`` clusters."""
    ls = log_swizzle_size(problem_blocks[0], problem_blocks[1], max_swizzle)
    return (ls, round_up(problem_blocks[0], (1 << ls) * cluster[0]),
            round_up(problem_blocks[1], (1 << ls) * cluster[1]))


def max_cta_occupancy(max_sm_per_gpc: int, cluster: tuple[int, int], sm_count: int) -> int:
    """CTAs of whole clusters that fit when no cluster may straddle a GPC (``get_max_cta_occupancy``)."""
    cs = cluster[0] * cluster[1]
    gpcs = 1 if sm_count < max_sm_per_gpc else sm_count // max_sm_per_gpc
    ctas = gpcs * (max_sm_per_gpc - max_sm_per_gpc % cs)
    residual = 0 if sm_count < max_sm_per_gpc else sm_count % max_sm_per_gpc
    ctas += residual - residual % cs
    return min(sm_count, ctas)


def persistent_grid_shape(problem_blocks: tuple[int, int, int], cluster: tuple[int, int], sm_count: int,
                          max_swizzle: int, raster_option: RasterOrderOptions, *, truncate: bool = True,
                          bypass_occupancy: bool = False, max_active_clusters: int = 0,
                          allow_empty: bool = False) -> tuple[int, int, int]:
    """The persistent launch grid (``PersistentTileSchedulerSm90Params::get_grid_shape``).

    Along N the grid is ``(cluster_m, Y, 1)``, along M ``(X, cluster_n, 1)``; the long side holds
    one wave of CTAs, truncated to the number of (padded) tiles when ``truncate``.  When the SMs
    hold no whole cluster the long side is 0: returned as CUTLASS does with ``allow_empty``,
    refused (``ValueError``) otherwise.
    """
    cx, cy = cluster
    _ls, bm, bn = swizzle_padded(problem_blocks, cluster, max_swizzle)
    total = bm * bn * problem_blocks[2]
    raster = rasterization_order(bm, bn, raster_option)
    along_n = raster is RasterOrder.ALONG_N
    grid = [cx, 1, 1] if along_n else [1, cy, 1]

    def trunc(a: int, b: int) -> int:
        return min(a, b) if truncate else a

    if cx * cy == 1:
        long_side = trunc(sm_count, total)
    elif max_active_clusters != 0 and max_active_clusters * cx * cy <= sm_count:
        long_side = (trunc(max_active_clusters * cy, total // cx) if along_n
                     else trunc(max_active_clusters * cx, total // cy))
    else:
        ctas = sm_count if bypass_occupancy else max_cta_occupancy(MAX_SM_PER_GPC, cluster, sm_count)
        long_side = trunc(ctas // cx, total // cx) if along_n else trunc(ctas // cy, total // cy)
    if long_side < 1 and not allow_empty:
        raise ValueError(f"{sm_count} SMs hold no whole {cx}x{cy} cluster")
    grid[1 if along_n else 0] = long_side
    return (grid[0], grid[1], grid[2])


@dataclass(frozen=True)
class RasterParams:
    """``PersistentTileSchedulerSm90Params``: the swizzled, rasterised tile space.

    ``blocks_m``/``blocks_n`` are the swizzle-padded CTA tile counts; padding tiles are real,
    scheduled work that lies outside the problem.
    """

    blocks_m: int
    blocks_n: int
    blocks_l: int
    cluster_m: int
    cluster_n: int
    log_swizzle: int
    raster: RasterOrder

    @property
    def along_n(self) -> bool:
        return self.raster is RasterOrder.ALONG_N

    @property
    def major(self) -> int:
        """Cluster extent along the raster (walk) direction."""
        return self.cluster_n if self.along_n else self.cluster_m

    @property
    def minor(self) -> int:
        return self.cluster_m if self.along_n else self.cluster_n

    @property
    def cluster_blk_major(self) -> int:
        """Clusters along the walk direction."""
        return self.blocks_n // self.cluster_n if self.along_n else self.blocks_m // self.cluster_m

    @property
    def cluster_size(self) -> int:
        return self.cluster_m * self.cluster_n

    @property
    def blocks_per_batch(self) -> int:
        return self.blocks_m * self.blocks_n

    @property
    def blocks_per_problem(self) -> int:
        return self.blocks_m * self.blocks_n * self.blocks_l


def raster_params(problem_blocks: tuple[int, int, int], cluster: tuple[int, int], max_swizzle: int,
                  raster_option: RasterOrderOptions) -> RasterParams:
    """``PersistentTileSchedulerSm90Params::initialize``; raster is chosen on padded counts."""
    check_cluster(*cluster)
    ls, bm, bn = swizzle_padded(problem_blocks, cluster, max_swizzle)
    return RasterParams(bm, bn, problem_blocks[2], cluster[0], cluster[1], ls,
                        rasterization_order(bm, bn, raster_option))


def work_idx_m_and_n(rp: RasterParams, blk_per_grid_dim, cta_m_in_cluster, cta_n_in_cluster):
    """CTA tile ``(m, n)`` of cluster-walk position ``blk_per_grid_dim`` (SM90: offsets included).

    The minor mode is cut into bands of ``2**log_swizzle`` clusters; consecutive cluster ids
    alternate across a band, then step along the major mode, then move to the next band.
    """
    cluster_id, major_off = blk_per_grid_dim // rp.major, blk_per_grid_dim % rp.major
    minor_off = cta_m_in_cluster if rp.along_n else cta_n_in_cluster
    offset = cluster_id & ((1 << rp.log_swizzle) - 1)
    extra = cluster_id >> rp.log_swizzle
    band, cluster_idx_major = extra // rp.cluster_blk_major, extra % rp.cluster_blk_major
    minor_idx = (band * (1 << rp.log_swizzle) + offset) * rp.minor + minor_off
    major_idx = cluster_idx_major * rp.major + major_off
    return (minor_idx, major_idx) if rp.along_n else (major_idx, minor_idx)


def linear_idx_from_m_and_n(rp: RasterParams, tile_m, tile_n):
    """Inverse of the rasterisation inside one batch (``get_linear_idx_from_m_and_n``)."""
    minor_idx, major_idx = (tile_m, tile_n) if rp.along_n else (tile_n, tile_m)
    minor_off = minor_idx % rp.minor
    cluster_idx_minor = (minor_idx - minor_off) // rp.minor
    cluster_idx_major, major_off = major_idx // rp.major, major_idx % rp.major
    band = cluster_idx_minor >> rp.log_swizzle
    offset = cluster_idx_minor & ((1 << rp.log_swizzle) - 1)
    cluster_id = ((band * rp.cluster_blk_major + cluster_idx_major) << rp.log_swizzle) | offset
    return (cluster_id * rp.major + major_off) * rp.minor + minor_off


def launch_linear_idx(rp_along_n: bool, bx, by, grid: tuple[int, int, int]):
    """First linear work index of CTA ``(bx, by)`` (the persistent schedulers' constructors)."""
    return bx + by * grid[0] if rp_along_n else bx * grid[1] + by


def hardware_cta_in_cluster(bx, by, cluster: tuple[int, int]):
    """``%cluster_ctaid.{x,y}`` of CTA ``(bx, by)``."""
    return bx % cluster[0], by % cluster[1]
