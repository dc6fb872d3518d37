"""The output a user's launch grid covers, for a cuTile program the tier compiled as a GEMM.

cuTile runs one program per point of the launch grid, and a program that is not launched stores nothing. The tier's
GEMM kernels walk the output's tile space with their own (persistent) scheduler instead, so the launcher sizes that
walk from the grid: along each output axis whose tiles a launch-grid axis numbers (the map the tier recorded,
:func:`tileorch.transforms.tileas.convert_to_cutlass.launch_grid_record`), the scheduler walks the tiles of the
programs launched, ``min(extent, programs * tiles per program * tile)``; a grid longer than the tile space computes
it all (the extra programs' tiles lie outside the output: cuTile drops their stores).

:func:`covered` is that host math; :func:`kernel_refusal` says when the kernel chosen to run cannot stop exactly
there (its tile or cluster straddles the edge of the covered part), :func:`aligned_config` the same configuration
with overridable fields that can (1-CTA clusters, no swizzle, narrower N tiles); when none can, the launcher runs
the program on a path that launches the user's grid as it is (the SIMT path), the reason in a PerformanceWarning."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from tileorch.transforms.tileas.launch_grid_axes import LINEAR, WHOLE


@dataclass(frozen=True)
class Covered:
    """What the launched programs compute: C's first ``m`` rows and ``n`` columns of its first ``batch``
    matrices (of its ``full`` extents (M, N, L)), and a remark saying so."""

    m: int
    n: int
    batch: int
    full: tuple[int, int, int]
    remark: str = ""

    @property
    def clipped(self) -> bool:
        return (self.m, self.n, self.batch) != self.full


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def linear_refusal(x: int, tiles_m: int, tiles_n: int, tm: int, tn: int) -> str:
    """Why the GEMM kernel cannot run a launch of ``x`` programs along x of a program that numbers its ``tiles_m``
    x ``tiles_n`` output tiles (``tm`` x ``tn``) with one linear program id (:data:`LINEAR`), fewer than the tiles,
    and how to avoid it.

    The programs launched compute the first ``x`` tiles of the program's own order (``pid // tiles_n, pid %
    tiles_n``, the transposed one or a grouped raster).  The GEMM kernel's persistent scheduler cannot be clipped
    to that prefix: it stops only at the edges of its M x N x L tile counts (no bound on the tile count: its
    device record holds those counts, rounded up to whole clusters and swizzle bands), so a prefix ending inside
    a row of tiles is not a block it walks, and the tier's map does not record which of the orders the program
    uses (the prefix of whole rows of one order is a block of columns of another)."""
    return (f"the program numbers its {tiles_m} x {tiles_n} output tiles ({tm}x{tn}) with one linear program id "
            f"split into tile coordinates, and the launch grid's x, {x}, is below their {tiles_m * tiles_n}: the "
            f"programs launched compute the first {x} tile{'s' if x != 1 else ''} of the program's order, which the "
            "GEMM kernel's scheduler cannot stop at (it walks whole rows and columns of tiles in its own order, "
            f"with no tile-count bound); to run the GEMM kernel, launch {tiles_m * tiles_n} programs along x (or "
            "more: each program stores its own tile), or number the tiles with two program ids (bid(0) for the row "
            "tile and bid(1) for the column tile) so that a shorter grid covers a block of C")


def covered(grid_axes: dict | None, grid: tuple[int, int, int], m: int, n: int, batch: int) -> Covered | str:
    """The part of an ``m`` x ``n`` output of ``batch`` matrices that launch ``grid`` computes, for a program whose
    tier record maps the grid as ``grid_axes`` (``{"axes": [[launch axis, tiles per program]] * 3, "tile": [rows,
    columns]}``; None, no record: all of it); a reason (str) when the launched programs compute a part that is not
    a leading block of tiles (a linear program id launched short: :func:`linear_refusal`)."""
    full = (m, n, batch)
    if not grid_axes:
        return Covered(m, n, batch, full)
    tm, tn = grid_axes["tile"]
    extents, tiles, out = (m, n, batch), (tm, tn, 1), []
    for (a, per), extent, tile in zip(grid_axes["axes"], extents, tiles):
        if a == WHOLE:
            out.append(extent)
        elif a == LINEAR:
            total = _cdiv(m, tm) * _cdiv(n, tn)
            if grid[0] < total:
                return linear_refusal(grid[0], _cdiv(m, tm), _cdiv(n, tn), tm, tn)
            out.append(extent)
        else:
            out.append(min(extent, grid[a] * per * tile))
    remark = ""
    if tuple(out) != full:
        what = [f"{_cdiv(c, t)} of the {_cdiv(e, t)} {name}" for c, e, t, name in
                zip(out, full, tiles, ("row tiles", "column tiles", "matrices")) if c != e]
        remark = (f"remark: the launch grid {tuple(grid)} covers {' and '.join(what)} of C ({tm}x{tn} tiles): the GEMM "
                  "kernel computes those only (cuTile's programs not launched store nothing)")
    return Covered(out[0], out[1], out[2], full, remark)


def kernel_refusal(cov: Covered, tile_m: int, tile_n: int, cluster_m: int = 1, max_swizzle: int = 1) -> str | None:
    """Why a kernel of ``tile_m`` x ``tile_n`` tiles in clusters of ``cluster_m`` along M, its scheduler walking
    ``cov.m`` rows and ``cov.n`` columns, would store past the covered part (its stores are masked at C's full
    extents only): the scheduler's tile counts, rounded up to whole clusters and to its swizzle's
    (:func:`tileorch.schedulers.raster.swizzle_padded`, up to ``max_swizzle``), ending past the edge of a covered
    axis; None when they stop exactly there."""
    from tileorch.schedulers.raster import swizzle_padded

    m, n, _ = cov.full
    blocks_m = _cdiv(_cdiv(cov.m, tile_m), cluster_m) * cluster_m
    _, padded_m, padded_n = swizzle_padded((blocks_m, _cdiv(cov.n, tile_n), 1), (cluster_m, 1), max_swizzle)
    how = f" in clusters of {cluster_m}" if cluster_m > 1 else ""
    how += f" (swizzle up to {max_swizzle})" if max_swizzle > 1 else ""
    if cov.m < m and padded_m * tile_m != cov.m:
        return (f"the launch grid covers C's first {cov.m} of {m} rows and the GEMM kernel's row tiles of "
                f"{tile_m}{how} end at row {padded_m * tile_m}")
    if cov.n < n and padded_n * tile_n != cov.n:
        return (f"the launch grid covers C's first {cov.n} of {n} columns and the GEMM kernel's column tiles of "
                f"{tile_n}{how} end at column {padded_n * tile_n}")
    return None


def aligned_config(cfg: Any, cov: Covered) -> Any:
    """``cfg`` (a :class:`~tileorch.kernels.gemm.config.GemmConfig`) with 1-CTA clusters, no swizzle and / or the
    widest N tile of at most its own that ends at the covered columns, when ``cfg``'s tiles straddle the edge of ``cov``
    (:func:`kernel_refusal`) and those do not; None when ``cfg`` fits or no such change does (its row tile is
    the tier's, not an override; a second dot's N tile neither)."""
    from tileorch.kernels.gemm.config import GemmConfigError
    from tileorch.transforms.tileas.convert_to_cutlass import TILE_NS

    if kernel_refusal(cov, cfg.tile_m, cfg.out_tile_n, cfg.cluster_m, cfg.max_swizzle) is None:
        return None
    changes = {}
    if cfg.cluster_m > 1 and cov.m < cov.full[0]:
        changes["cluster_m"] = 1
    if cfg.max_swizzle > 1:
        changes["max_swizzle"] = 1
    if cov.n < cov.full[1] and cov.n % cfg.out_tile_n and not cfg.epi_n:
        tile_n = next((v for v in sorted(TILE_NS, reverse=True) if v <= cfg.tile_n and cov.n % v == 0), None)
        if tile_n is not None:
            changes["tile_n"] = tile_n
    for ask in (changes, {**changes, "cluster_m": 1}):  # (a narrower N-major B tile may not split across a cluster)
        try:
            new = dataclasses.replace(cfg, **ask).check()
        except GemmConfigError:
            continue
        if kernel_refusal(cov, new.tile_m, new.out_tile_n, new.cluster_m, new.max_swizzle) is None:
            return new
    return None
