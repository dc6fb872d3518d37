"""Host-side parameters of CUTLASS's SM90 stream-K scheduler (``PersistentTileSchedulerSm90StreamKParams``).

``streamk_params`` runs CUTLASS's decomposition heuristic (``select_decomposition_mode``) and
then its ``set_params_basic`` (data-parallel, split-K) or ``set_params_stream_k`` step.  Stream-K
units are the lowest linear indices and cover the first ``sk_tiles`` tiles of the raster order;
data-parallel units follow, one per remaining tile.  All quantities are exact integers.
"""

from __future__ import annotations

from dataclasses import dataclass

from .enums import DecompositionMode, RasterOrderOptions, ReductionMode
from .raster import (INT32_MAX, UINT32_MAX, RasterParams, ceil_div, check_domain, check_linear_range,
                     persistent_grid_shape, raster_params, tiled_cta_shape_mnl)

MIN_ITERS_PER_SK_UNIT = 8
MAX_SK_GROUPS = 8


@dataclass(frozen=True)
class StreamKParams:
    """Everything the per-CTA work functions read, plus the request that produced it."""

    raster: RasterParams
    grid: tuple[int, int, int]
    decomposition: DecompositionMode  # the mode actually chosen (never HEURISTIC)
    reduction_mode: ReductionMode
    k_tiles_per_output_tile: int
    units_per_problem: int
    splits: int
    big_units: int
    big_groups: int
    sk_tiles: int
    sk_units: int
    k_tiles_per_sk_unit: int
    k_tiles_per_sk_big_unit: int
    sk_groups: int
    sk_units_per_group: int
    clusters_mnl: int
    separate_reduction_units: int = 0
    epilogue_subtile: int = 1
    ktile_start_alignment: int = 1

    @property
    def cluster_size(self) -> int:
        return self.raster.cluster_size

    @property
    def total_units(self) -> int:
        """Valid linear work indices: ``units_per_problem * splits + separate_reduction_units``."""
        return self.units_per_problem * self.splits + self.separate_reduction_units

    @property
    def reduction_tiles(self) -> int:
        """Output tiles with a partial-accumulator slot (addresses the lock region)."""
        if self.splits > 1:
            return self.units_per_problem
        if self.separate_reduction_units > 0:
            return self.sk_tiles * max_peers_per_tile(self.sk_units, self.sk_tiles)
        return self.sk_tiles

    def as_json_dict(self) -> dict:
        """The ``params`` object of ``tileorch schedule --json`` (fixed key order)."""
        return {
            "units_per_problem": self.units_per_problem,
            "log_swizzle": self.raster.log_swizzle,
            "raster_along_n": self.raster.along_n,
            "splits": self.splits,
            "big_units": self.big_units,
            "big_groups": self.big_groups,
            "sk_tiles": self.sk_tiles,
            "sk_units": self.sk_units,
            "k_tiles_per_sk_unit": self.k_tiles_per_sk_unit,
            "k_tiles_per_sk_big_unit": self.k_tiles_per_sk_big_unit,
            "sk_groups": self.sk_groups,
            "separate_reduction_units": self.separate_reduction_units,
            "k_tiles_per_output_tile": self.k_tiles_per_output_tile,
        }


def max_peers_per_tile(sk_units: int, sk_tiles: int) -> int:
    """Most stream-K units that can share one tile (separate reduction sizing)."""
    return sk_units // sk_tiles + 2


def adjust_split_count(splits: int, sm_count: int, k_tiles: int, align: int = 1) -> int:
    """Clamp a requested split count to the SM count and the K tiles (``adjust_split_count``)."""
    splits = min(splits, sm_count, k_tiles)
    if align > 1 and splits > 1 and k_tiles // splits == 1:
        splits = k_tiles // align
    return splits


def num_sk_tiles(output_tiles: int, ctas_per_wave: int, cluster_size: int, k_tiles: int,
                 mode: DecompositionMode) -> int:
    """Tiles given to stream-K: the partial wave plus one full wave (``get_num_sk_tiles``).

    Raises ``ValueError`` for an empty wave outside data-parallel and split-K (CUTLASS divides by
    zero there; those two modes never use the quotient).
    """
    if mode in (DecompositionMode.DATA_PARALLEL, DecompositionMode.SPLIT_K):
        return 0
    if ctas_per_wave == 0:
        raise ValueError("the SMs hold no whole cluster, so a wave has no CTAs (CUTLASS divides by zero)")
    full_waves = output_tiles // ctas_per_wave
    total_waves = ceil_div(output_tiles, ctas_per_wave)
    dp_waves = full_waves - 1 if full_waves > 1 else 0
    sk_tiles = output_tiles - dp_waves * ctas_per_wave
    if full_waves == total_waves or k_tiles <= MIN_ITERS_PER_SK_UNIT:
        return 0
    if mode is DecompositionMode.HEURISTIC:
        tail = output_tiles - full_waves * ctas_per_wave
        if 2 * tail >= ctas_per_wave:
            return 0
    return sk_tiles // cluster_size * cluster_size


def num_sk_units(cluster_size: int, ctas_per_sk_wave: int, sk_tiles: int, k_tiles: int) -> int:
    """One wave of units, or fewer so that each unit gets >= 8 K tiles (``get_num_sk_units``).

    CUTLASS multiplies ``k_tiles * sk_tiles`` in ``uint32_t``; where the wrapped product would
    give a different unit count, ``ValueError`` (nothing CUTLASS computes there is meaningful).
    """
    def units(k_iterations: int) -> int:
        return min(ctas_per_sk_wave, k_iterations // MIN_ITERS_PER_SK_UNIT // cluster_size * cluster_size)

    exact = units(k_tiles * sk_tiles)
    if exact != units(k_tiles * sk_tiles & UINT32_MAX):
        raise ValueError(f"{sk_tiles} stream-K tiles x {k_tiles} K tiles = {k_tiles * sk_tiles} K iterations: "
                         f"CUTLASS's get_num_sk_units multiplies them in 32 bits and would get a different unit count")
    return exact


def calculate_groups(rp: RasterParams, sk_cluster_tiles: int, sk_units: int, k_tiles: int,
                     separate_reduction: bool) -> int:
    """Largest group count <= 8 (and <= clusters along the walk) dividing units and tiles evenly."""
    cs = rp.cluster_size
    max_groups = rp.blocks_m // rp.cluster_m if not rp.along_n else rp.blocks_n // rp.cluster_n
    groups = 1 if separate_reduction else min(max_groups, MAX_SK_GROUPS)
    cluster_units = sk_units // cs

    def too_small(g: int) -> bool:
        units = sk_units // g
        if units == 0:
            raise ValueError(f"CUTLASS divides by zero here: {sk_units} stream-K units over {g} groups")
        return (sk_cluster_tiles // g) * cs * k_tiles // units < MIN_ITERS_PER_SK_UNIT

    def ideal(g: int) -> bool:
        return cluster_units % g == 0 and sk_cluster_tiles % g == 0 and not too_small(g)

    def valid(g: int) -> bool:
        return cluster_units % g == 0 and not too_small(g)

    fallback = 0
    while groups > 1 and not ideal(groups):
        if fallback == 0 and valid(groups):
            fallback = groups
        groups -= 1
    if groups == 1 and fallback > 0:
        groups = fallback
    return groups


def check_k_iterations(kt: int, *, sk_tiles_per_group: int = 0, splits: int = 1, clusters_mnl: int = 0) -> None:
    """Refuse (``ValueError``) a decomposition whose K-iteration indices leave CUTLASS's exact range.

    A stream-K unit's K iterations run up to ``kt * sk_tiles_per_group`` (its group's tiles,
    rounded up) and a split-K unit's up to ``kt * clusters_mnl`` (units start at
    ``kt * cluster_tile``); the work functions divide them by ``kt`` with the ``int``
    ``FastDivmod``, exact only for dividends below ``2**31`` (the device lowering computes them in
    ``i32`` too).
    """
    if kt * sk_tiles_per_group > INT32_MAX:
        raise ValueError(f"{sk_tiles_per_group} stream-K tiles per group x {kt} K tiles: CUTLASS divides "
                         f"K-iteration indices up to {kt * sk_tiles_per_group} with its int FastDivmod, exact only "
                         f"up to {INT32_MAX}")
    if splits > 1 and kt * clusters_mnl > INT32_MAX + 1:
        raise ValueError(f"split-K over {clusters_mnl} cluster tiles x {kt} K tiles: CUTLASS's K-iteration index "
                         f"reaches {kt * clusters_mnl - 1}, exact only up to {INT32_MAX}")


def streamk_grid_shape(problem_blocks: tuple[int, int, int], cluster: tuple[int, int], sms: int,
                       max_swizzle: int, raster: RasterOrderOptions, *, bypass_occupancy: bool = False,
                       max_active_clusters: int = 0) -> tuple[int, int, int]:
    """The stream-K launch grid: one untruncated persistent wave (empty when no cluster fits)."""
    return persistent_grid_shape(problem_blocks, cluster, sms, max_swizzle, raster, truncate=False,
                                 bypass_occupancy=bypass_occupancy, max_active_clusters=max_active_clusters,
                                 allow_empty=True)


def _basic(rp: RasterParams, grid, reduction: ReductionMode, kt: int, splits: int, chosen: DecompositionMode,
           align: int) -> StreamKParams:
    tiles = rp.blocks_per_problem
    return StreamKParams(
        raster=rp, grid=grid, decomposition=chosen, reduction_mode=reduction, k_tiles_per_output_tile=kt,
        units_per_problem=tiles, splits=splits, big_units=kt % splits, big_groups=0, sk_tiles=0, sk_units=0,
        k_tiles_per_sk_unit=kt // splits, k_tiles_per_sk_big_unit=kt // splits + 1, sk_groups=1,
        sk_units_per_group=1, clusters_mnl=tiles // rp.cluster_size, ktile_start_alignment=align)


def streamk_params(problem: tuple[int, int, int, int], tile: tuple[int, int, int], cluster: tuple[int, int],
                   sms: int, *, splits: int = 1, max_swizzle: int = 1,
                   raster: RasterOrderOptions = RasterOrderOptions.HEURISTIC,
                   reduction: ReductionMode = ReductionMode.DETERMINISTIC,
                   decomposition: DecompositionMode = DecompositionMode.HEURISTIC,
                   ktile_start_alignment: int = 1, bypass_occupancy: bool = False,
                   max_active_clusters: int = 0) -> StreamKParams:
    """``PersistentTileSchedulerSm90StreamKParams::initialize`` for an ``M x N x K x L`` problem.

    Raises ``ValueError`` where CUTLASS's ``can_implement`` would refuse the arguments.
    """
    raster, reduction, decomposition = (RasterOrderOptions(raster), ReductionMode(reduction),
                                        DecompositionMode(decomposition))
    _check_request(problem, tile, sms, splits, max_swizzle, decomposition)
    check_domain(problem, tile, cluster, max_swizzle)
    blocks = tiled_cta_shape_mnl(problem, tile, cluster)
    kt = ceil_div(problem[2], tile[2])
    rp = raster_params(blocks, cluster, max_swizzle, raster)
    grid = streamk_grid_shape(blocks, cluster, sms, max_swizzle, raster, bypass_occupancy=bypass_occupancy,
                              max_active_clusters=max_active_clusters)
    check_linear_range(rp.blocks_per_problem, grid[0] * grid[1] * grid[2])

    if decomposition is DecompositionMode.SPLIT_K or (decomposition is DecompositionMode.HEURISTIC and splits > 1):
        splits = adjust_split_count(splits, sms, kt, ktile_start_alignment)
        check_k_iterations(kt, splits=splits, clusters_mnl=rp.blocks_per_problem // rp.cluster_size)
        return _basic(rp, grid, reduction, kt, splits, DecompositionMode.SPLIT_K, ktile_start_alignment)

    output_tiles = rp.blocks_per_problem
    cs = rp.cluster_size
    ctas_per_wave = grid[0] * grid[1]
    sk_tiles = num_sk_tiles(output_tiles, ctas_per_wave, cs, kt, decomposition)
    dp_tiles = output_tiles - sk_tiles
    sk_units = num_sk_units(cs, ctas_per_wave // cs * cs, sk_tiles, kt)
    if (decomposition is DecompositionMode.DATA_PARALLEL
            or (decomposition is DecompositionMode.HEURISTIC and sk_tiles == 0) or sk_units == 0):
        return _basic(rp, grid, reduction, kt, 1, DecompositionMode.DATA_PARALLEL, ktile_start_alignment)

    sk_cluster_tiles = sk_tiles // cs
    groups = calculate_groups(rp, sk_cluster_tiles, sk_units, kt, separate_reduction=False)
    units_per_group = sk_units // groups
    k_tiles_per_group = kt * (sk_cluster_tiles // groups) * cs
    k_tiles_per_sk_unit = k_tiles_per_group // units_per_group
    if decomposition is DecompositionMode.HEURISTIC and sk_tiles < sk_units and sk_units % sk_tiles == 0:
        check_k_iterations(kt, splits=sk_units // sk_tiles, clusters_mnl=rp.blocks_per_problem // cs)
        return _basic(rp, grid, reduction, kt, sk_units // sk_tiles, DecompositionMode.SPLIT_K,
                      ktile_start_alignment)
    check_k_iterations(kt, sk_tiles_per_group=ceil_div(sk_cluster_tiles, groups) * cs)

    return StreamKParams(
        raster=rp, grid=grid, decomposition=DecompositionMode.STREAM_K, reduction_mode=reduction,
        k_tiles_per_output_tile=kt, units_per_problem=dp_tiles + sk_units, splits=1,
        big_units=(k_tiles_per_group % sk_units) // cs, big_groups=sk_cluster_tiles % groups,
        sk_tiles=sk_tiles, sk_units=sk_units, k_tiles_per_sk_unit=k_tiles_per_sk_unit,
        k_tiles_per_sk_big_unit=k_tiles_per_sk_unit + 1, sk_groups=groups, sk_units_per_group=units_per_group,
        clusters_mnl=sk_units // cs, ktile_start_alignment=ktile_start_alignment)


def _check_request(problem, tile, sms: int, splits: int, max_swizzle: int, mode: DecompositionMode) -> None:
    if len(problem) != 4 or min(problem) < 1:
        raise ValueError(f"problem must be four positive extents M N K L, got {problem}")
    if len(tile) != 3 or min(tile) < 1:
        raise ValueError(f"tile must be three positive extents, got {tile}")
    if sms < 1:
        raise ValueError(f"SM count must be positive, got {sms}")
    if max_swizzle < 0:
        raise ValueError(f"max swizzle must be >= 0, got {max_swizzle}")
    if splits < 1 or (splits > 1 and mode not in (DecompositionMode.HEURISTIC, DecompositionMode.SPLIT_K)):
        raise ValueError(f"splits={splits} needs splits >= 1, and splits > 1 needs the heuristic or split_k "
                         "decomposition (CUTLASS can_implement)")

