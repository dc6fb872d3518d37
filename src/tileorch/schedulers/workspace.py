"""Stream-K / split-K workspace sizes (``get_workspace_component_sizes``) and byte layout.

Layout: ``[reduction region][barrier region]``, each rounded up to a 128-byte L2 line.  The
reduction region holds one ``BLK_M x BLK_N`` accumulator tile per reduction tile; the barrier
region one 32-bit lock per (reduction tile, MMA warp group).  The host zeroes only the barrier
region.  Like CUTLASS, the sizing re-derives its own decomposition, so it over-allocates in two
corner cases (see ``workspace_sizes``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .enums import DecompositionMode, RasterOrderOptions
from .raster import ceil_div, check_domain, swizzle_padded, tiled_cta_shape_mnl
from .streamk_params import StreamKParams, adjust_split_count, num_sk_tiles, num_sk_units, streamk_grid_shape

L2_LINE_BYTES = 128
BARRIER_BITS = 32


@dataclass(frozen=True)
class WorkspaceSizes:
    """Bytes of a scheduler's global workspace: the reduction buffer and the barrier flags."""

    reduction: int
    barrier: int

    @property
    def total(self) -> int:
        return self.reduction + self.barrier


def round_up_to_l2(nbytes: int) -> int:
    return ceil_div(nbytes, L2_LINE_BYTES) * L2_LINE_BYTES


def barrier_workspace_size(num_tiles: int, mma_warp_groups: int, barrier_bits: int = BARRIER_BITS) -> int:
    return round_up_to_l2(ceil_div(num_tiles * mma_warp_groups * barrier_bits, 8))


def reduction_workspace_size(num_tiles: int, tile: tuple[int, int, int], accumulator_bits: int,
                             num_accumulator_mtxs: int = 1) -> int:
    return round_up_to_l2(ceil_div(accumulator_bits * tile[0] * tile[1] * num_tiles * num_accumulator_mtxs, 8))


def workspace_sizes(problem: tuple[int, int, int, int], tile: tuple[int, int, int], cluster: tuple[int, int],
                    sms: int, *, splits: int = 1, max_swizzle: int = 1,
                    raster: RasterOrderOptions = RasterOrderOptions.HEURISTIC,
                    decomposition: DecompositionMode = DecompositionMode.HEURISTIC,
                    mma_warp_groups: int = 1, accumulator_bits: int = 32, num_accumulator_mtxs: int = 1,
                    ktile_start_alignment: int = 1, bypass_occupancy: bool = False,
                    max_active_clusters: int = 0) -> WorkspaceSizes:
    """Reduction and barrier bytes CUTLASS's stream-K scheduler asks the host for.

    Zero for an explicit data-parallel request.  Split-K (requested or chosen by the heuristic)
    covers every output tile; stream-K covers ``sk_tiles``.  CUTLASS sizes stream-K tiles even
    when params later fall back to data-parallel because no stream-K unit fits, and sizes from the
    swizzle-padded blocks, whose raster/grid it re-pads once more.
    """
    decomposition = DecompositionMode(decomposition)
    raster = RasterOrderOptions(raster)
    if decomposition is DecompositionMode.DATA_PARALLEL:
        return WorkspaceSizes(0, 0)
    check_domain(problem, tile, cluster, max_swizzle)
    blocks = tiled_cta_shape_mnl(problem, tile, cluster)
    kt = ceil_div(problem[2], tile[2])
    _ls, bm, bn = swizzle_padded(blocks, cluster, max_swizzle)
    padded = (bm, bn, blocks[2])
    output_tiles = bm * bn * blocks[2]
    grid = streamk_grid_shape(padded, cluster, sms, max_swizzle, raster, bypass_occupancy=bypass_occupancy,
                              max_active_clusters=max_active_clusters)
    ctas_per_wave = grid[0] * grid[1]
    cs = cluster[0] * cluster[1]
    sk_tiles = num_sk_tiles(output_tiles, ctas_per_wave, cs, kt, decomposition)
    sk_units = num_sk_units(cs, ctas_per_wave // cs * cs, sk_tiles, kt)
    split_mode = decomposition in (DecompositionMode.SPLIT_K, DecompositionMode.HEURISTIC)
    if decomposition is DecompositionMode.SPLIT_K or (decomposition is DecompositionMode.HEURISTIC and splits > 1):
        splits = adjust_split_count(splits, sms, kt, ktile_start_alignment)
    split_k_required = splits > 1 and split_mode
    split_k_selected = (not split_k_required and decomposition is DecompositionMode.HEURISTIC
                        and sk_units > sk_tiles and sk_tiles != 0 and sk_units % sk_tiles == 0)
    tiles = output_tiles if (split_k_required or split_k_selected) else sk_tiles
    return WorkspaceSizes(reduction_workspace_size(tiles, tile, accumulator_bits, num_accumulator_mtxs),
                          barrier_workspace_size(tiles, mma_warp_groups))


def params_workspace_sizes(p: StreamKParams, tile: tuple[int, int, int], *, mma_warp_groups: int = 1,
                           accumulator_bits: int = 32, num_accumulator_mtxs: int = 1) -> WorkspaceSizes:
    """The workspace a kernel built from ``p`` addresses: ``p.reduction_tiles`` accumulator tiles
    (CUTLASS's ``fixup_helper``), then their locks; zero without stream-K or split-K units."""
    if p.sk_units == 0 and p.splits == 1:
        return WorkspaceSizes(0, 0)
    return WorkspaceSizes(reduction_workspace_size(p.reduction_tiles, tile, accumulator_bits, num_accumulator_mtxs),
                          barrier_workspace_size(p.reduction_tiles, mma_warp_groups))


def sufficient_workspace_sizes(p: StreamKParams, cutlass: WorkspaceSizes, tile: tuple[int, int, int],
                               **layout) -> WorkspaceSizes:
    """Per region, the larger of CUTLASS's ``get_workspace_size`` answer and what ``p`` addresses.

    CUTLASS sizes the workspace from a decomposition it re-derives on the swizzle-padded blocks,
    which it pads a second time; when that flips the raster order (the heuristic on re-padded
    counts) and the one-wave CTA count is not a multiple of the larger cluster extent, the
    re-derived wave, hence ``sk_tiles``, differs from the params' and CUTLASS under-allocates
    (e.g. 128x640x2368, 128x128x64 tiles, 2x1 cluster, 7 SMs, max swizzle 4, stream-K: params
    with 10 stream-K tiles and 8 partial pieces, ``get_workspace_size`` 0).  Allocate this instead
    (the device reads the lock offset from the allocated reduction size, so the locks stay in the
    zeroed region); :func:`workspace_sizes` stays CUTLASS's answer.
    """
    need = params_workspace_sizes(p, tile, **layout)
    return WorkspaceSizes(max(cutlass.reduction, need.reduction), max(cutlass.barrier, need.barrier))


__all__ = ["WorkspaceSizes", "workspace_sizes", "barrier_workspace_size", "reduction_workspace_size",
           "round_up_to_l2", "params_workspace_sizes", "sufficient_workspace_sizes"]
