"""CUTLASS's SM100 stream-K scheduler (``PersistentTileSchedulerSm100StreamK``), host side.

SM100 launches every work unit as its own grid position and lets cluster launch control (CLC)
hand not-yet-started positions to running clusters, so which SM runs a unit is decided at run
time; what each grid position computes is fixed and is what this module gives.  The stream-K
params are the SM90 ones computed with the GPC occupancy model bypassed; the grid is
``(sk_units / cluster_n, cluster_n, waves)`` with stream-K units, else the cluster-rounded
tiles ``(m, n, l * splits)``.  A unit that continues its work does not consume a CLC response
(``increment_pipe`` false).  Tile shapes with N == 192 are forced to data-parallel.
"""

from __future__ import annotations

from dataclasses import dataclass

from .enums import DecompositionMode, RasterOrderOptions, ReductionMode
from .raster import check_launch_grid, tiled_cta_shape_mnl
from .streamk_params import StreamKParams, streamk_params
from .streamk_work import continue_work, get_work
from .work_tile import WorkTileInfo
from .workspace import WorkspaceSizes, workspace_sizes


@dataclass(frozen=True)
class Sm100StreamKParams:
    """Stream-K parameters of an sm_100 launch: the sm_90 parameters, problem in blocks, cluster shape."""

    sk: StreamKParams
    problem_blocks: tuple[int, int, int]
    cluster: tuple[int, int]

    @property
    def grid(self) -> tuple[int, int, int]:
        sk = self.sk
        if sk.sk_units > 0:
            waves = -(-sk.units_per_problem // sk.sk_units)
            return (sk.sk_units // self.cluster[1], self.cluster[1], waves)
        pb = self.problem_blocks
        return (pb[0], pb[1], pb[2] * sk.splits)


def sm100_streamk_params(problem: tuple[int, int, int, int], tile: tuple[int, int, int], cluster: tuple[int, int],
                         sms: int, *, splits: int = 1, max_swizzle: int = 1,
                         raster: RasterOrderOptions = RasterOrderOptions.HEURISTIC,
                         reduction: ReductionMode = ReductionMode.DETERMINISTIC,
                         decomposition: DecompositionMode = DecompositionMode.HEURISTIC,
                         ktile_start_alignment: int = 1, max_active_clusters: int = 0) -> Sm100StreamKParams:
    mode = DecompositionMode(decomposition)
    if tile[1] == 192:
        if splits > 1 and mode not in (DecompositionMode.HEURISTIC, DecompositionMode.SPLIT_K):
            raise ValueError(f"splits={splits} needs the heuristic or split_k decomposition (CUTLASS can_implement)")
        # can_implement judged the requested mode; the forced data-parallel mode ignores the split count
        mode, splits = DecompositionMode.DATA_PARALLEL, 1
    sk = streamk_params(problem, tile, cluster, sms, splits=splits, max_swizzle=max_swizzle, raster=raster,
                        reduction=reduction, decomposition=mode, ktile_start_alignment=ktile_start_alignment,
                        bypass_occupancy=True, max_active_clusters=max_active_clusters)
    p = Sm100StreamKParams(sk, tiled_cta_shape_mnl(problem, tile, cluster), cluster)
    check_launch_grid(p.grid, "the SM100 stream-K schedule")
    return p


def sm100_workspace_sizes(problem, tile, cluster, sms: int, **kw) -> WorkspaceSizes:
    """SM90 sizing with the occupancy model bypassed (and N == 192 tiles forced data-parallel)."""
    if tile[1] == 192:
        kw["decomposition"] = DecompositionMode.DATA_PARALLEL
    return workspace_sizes(problem, tile, cluster, sms, bypass_occupancy=True, **kw)


def block_linear_idx(p: Sm100StreamKParams, m: int, n: int, l: int) -> int:
    """Stream-K linear index of the CTA at tile ``(m, n, l)`` (grid coordinates; ``to_linear_idx``)."""
    sk = p.sk
    cx, cy = p.cluster
    m0, n0 = m - m % cx, n - n % cy
    gx, gy, _gz = p.grid
    base = gx * gy * l + gy * m0 + n0
    if sk.raster.along_n:
        return base + sk.raster.minor * (n - n0) + (m - m0)
    return base + sk.raster.minor * (m - m0) + (n - n0)


def block_work(p: Sm100StreamKParams, bx: int, by: int, bz: int) -> list[WorkTileInfo]:
    """Every piece the CTA at grid position ``(bx, by, bz)`` computes (empty when invalid)."""
    sk = p.sk
    kt = sk.k_tiles_per_output_tile
    if sk.sk_units > 0:
        work, start = get_work(sk, block_linear_idx(p, bx, by, bz))
        items = []
        while work is not None and work.is_valid:
            items.append(work)
            work = continue_work(sk, work, start)
        return items
    if sk.splits > 1:
        l, split = divmod(bz, sk.splits)
        k_idx = split * sk.k_tiles_per_sk_unit + min(split, sk.big_units)
        k = sk.k_tiles_per_sk_unit + (split < sk.big_units)
        if sk.ktile_start_alignment == 2 and k_idx % 2:
            k_idx, k = k_idx + 1, k - 1
        if sk.ktile_start_alignment == 2 and (k_idx + k) % 2 and k_idx + k < kt:
            k += 1
        return [WorkTileInfo(bx, by, l, k_idx, k, k, False)]
    return [WorkTileInfo(bx, by, bz, 0, kt, kt, False)]


def sm100_work_sequence(p: Sm100StreamKParams) -> list[list[WorkTileInfo]]:
    """Work of every grid position, z outermost, then y, then x."""
    gx, gy, gz = p.grid
    return [block_work(p, bx, by, bz) for bz in range(gz) for by in range(gy) for bx in range(gx)]
