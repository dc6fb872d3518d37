"""Per-unit work of CUTLASS's SM90 stream-K scheduler (``PersistentTileSchedulerSm90StreamK``).

A *unit* is one linear work index.  Units ``[0, sk_units)`` are stream-K (or split-K) units,
then one data-parallel unit per remaining tile, then separate-reduction units.  A stream-K unit
owns a contiguous range of K iterations of its group's tiles and walks it backwards, one piece
per output tile: ``get_work`` returns the first piece, ``continue_work`` the next ones.

``get_work``/``continue_work`` are the scalar contract (one CTA, as the device lowering needs
it).  ``schedule_arrays`` evaluates the same formulas with NumPy for every CTA of the grid.
"""

from __future__ import annotations

from dataclasses import dataclass

from .raster import launch_linear_idx, linear_idx_from_m_and_n, work_idx_m_and_n
from .streamk_params import MIN_ITERS_PER_SK_UNIT, StreamKParams
from .work_tile import WorkTileInfo

INVALID_WORK = WorkTileInfo(-1, -1, -1, -1, 0, 0, False)


class _NumPyOnFirstUse:
    """Stands for ``numpy`` until a function here first uses it, then puts the real module in its
    place: the device lowering imports this module for every compile, and most kernels (no
    stream-K scheduler) never evaluate these formulas, so a compile need not import NumPy."""

    def __getattr__(self, name: str):
        global np
        import numpy

        np = numpy
        return getattr(numpy, name)


np = _NumPyOnFirstUse()


def cta_in_cluster(p: StreamKParams, linear_idx):
    """``(cta_m, cta_n)`` inside the cluster, re-derived from the linear index (not the hardware)."""
    r = linear_idx % p.cluster_size
    major_off, minor_off = r // p.raster.minor, r % p.raster.minor
    return (minor_off, major_off) if p.raster.along_n else (major_off, minor_off)


def _boundary_shift(pos, kt: int, align: int):
    """How far a unit boundary at iteration ``pos`` of its tile moves: to the tile start when it
    is within 8 of it (negative), to the tile end when within 8 of that, else to even alignment."""
    near_end = (pos > kt - MIN_ITERS_PER_SK_UNIT) if kt >= MIN_ITERS_PER_SK_UNIT else np.zeros_like(pos, bool)
    odd = (pos % 2 != 0) if align == 2 else np.zeros_like(pos, bool)
    return np.where(pos < MIN_ITERS_PER_SK_UNIT, -pos, np.where(near_end, kt - pos, np.where(odd, -1, 0)))


def unit_iter_start(p: StreamKParams, linear_idx):
    """``(first K iteration of the unit in its group's iteration space, K tiles of the unit)``.

    Big units (one extra iteration) come first; groups interleave (cluster unit ``c`` belongs to
    group ``c % sk_groups``).  Stream-K (not split-K) boundaries are smoothed: the start by the
    8-iteration rule, then the end by the same rule applied to the shifted start.
    """
    lin = np.asarray(linear_idx, dtype=np.int64)
    kt = p.k_tiles_per_output_tile
    c = lin // p.cluster_size
    c, group = c // p.sk_groups, c % p.sk_groups
    cluster_tiles_in_group = p.sk_tiles // p.cluster_size // p.sk_groups + (group < p.big_groups)
    k_in_group = cluster_tiles_in_group * p.cluster_size * kt
    kpu = k_in_group // p.sk_units_per_group
    big_in_group = (k_in_group - kpu * p.sk_units_per_group) // p.cluster_size
    split, c = c // p.clusters_mnl, c % p.clusters_mnl
    if p.splits > 1:
        lhs, rhs, mult, per_split = split, p.big_units, kt, p.k_tiles_per_sk_unit
    else:
        lhs, rhs, mult, per_split = c, big_in_group, kpu, kpu
    start = mult * c + per_split * split + np.minimum(lhs, rhs)
    k = per_split + (lhs < rhs)
    if p.splits == 1:
        shift = _boundary_shift(start % kt, kt, p.ktile_start_alignment)
        start, k = start + shift, k - shift
        k = k + _boundary_shift((start + k) % kt, kt, p.ktile_start_alignment)
    return start, k


def output_tile_piece(p: StreamKParams, linear_idx, start, remaining):
    """``(output tile id, K_idx, k_tile_count)`` of the last tile the unit still has to do."""
    kt = p.k_tiles_per_output_tile
    cta_m, cta_n = cta_in_cluster(p, linear_idx)
    group = (linear_idx // p.cluster_size) % p.sk_groups
    end = start + remaining - 1
    tile_in_group = end // kt
    tile_start = tile_in_group * kt
    tile_id = ((tile_in_group * p.sk_groups + group) * p.cluster_size
               + (cta_n if p.raster.along_n else cta_m) * p.raster.minor)
    lo = np.maximum(tile_start, start)
    hi = np.minimum(tile_start + kt, end + 1)
    return tile_id, lo - tile_start, hi - lo


def tile_coords(p: StreamKParams, tile_id, linear_idx):
    """``(m, n, l)`` of a CTA-linear output tile id (``update_work_tile_m_n_l``)."""
    rp = p.raster
    cta_m, cta_n = cta_in_cluster(p, linear_idx)
    l, rem = tile_id // rp.blocks_per_batch, tile_id % rp.blocks_per_batch
    m, n = work_idx_m_and_n(rp, rem // rp.minor, cta_m, cta_n)
    return m, n, l


def output_tile_index(p: StreamKParams, m, n, l):
    """Index of the tile's accumulator slot and locks in the fix-up workspace."""
    return p.raster.blocks_per_batch * l + linear_idx_from_m_and_n(p.raster, m, n)


def _make(p: StreamKParams, lin: int, tile_id: int, k_idx: int, count: int, remaining: int,
          is_sep: bool) -> WorkTileInfo:
    m, n, l = (int(v) for v in tile_coords(p, tile_id, lin))
    return WorkTileInfo(m, n, l, int(k_idx), int(count), int(remaining), is_sep, lin,
                        int(output_tile_index(p, m, n, l)))


def get_work(p: StreamKParams, linear_idx: int) -> tuple[WorkTileInfo, int]:
    """``(work, unit_iter_start)`` for a linear work index (``get_current_work_for_linear_idx``)."""
    lin = int(linear_idx)
    if lin >= p.total_units:
        return INVALID_WORK, 0
    if lin >= p.units_per_problem * p.splits:
        cluster_unit = (lin - p.units_per_problem) // p.cluster_size
        tile_id = cluster_unit // p.epilogue_subtile * p.cluster_size
        return _make(p, lin, tile_id, cluster_unit % p.epilogue_subtile, 0, 0, True), 0
    if lin >= p.sk_units and p.splits == 1:
        kt = p.k_tiles_per_output_tile
        return _make(p, lin, lin - p.sk_units + p.sk_tiles, 0, kt, kt, False), 0
    start, k = (int(v) for v in unit_iter_start(p, lin))
    tile_id, k_idx, count = output_tile_piece(p, lin, start, k)
    return _make(p, lin, int(tile_id), k_idx, count, k, False), start


def continue_work(p: StreamKParams, work: WorkTileInfo, iter_start: int) -> WorkTileInfo | None:
    """The unit's next (earlier) piece, or ``None`` when it has no K tiles left."""
    remaining = work.k_tile_remaining - work.k_tile_count
    if remaining == 0:
        return None
    tile_id, k_idx, count = output_tile_piece(p, work.linearized_id, iter_start, remaining)
    nxt = _make(p, work.linearized_id, int(tile_id), k_idx, count, remaining, False)
    return nxt if nxt.is_valid else None


def launch_order_linear_idx(p: StreamKParams) -> np.ndarray:
    """First linear index of each CTA, CTAs in launch order (blockIdx.y outer, blockIdx.x inner)."""
    gx, gy, _gz = p.grid
    by, bx = np.divmod(np.arange(gx * gy, dtype=np.int64), gx)
    return launch_linear_idx(p.raster.along_n, bx, by, p.grid)


@dataclass(frozen=True)
class Schedule:
    """Every work item of every CTA, flattened; CTA ``c`` owns rows ``cta_ptr[c]:cta_ptr[c+1]``."""

    params: StreamKParams
    cta_ptr: np.ndarray
    linear_idx: np.ndarray
    m: np.ndarray
    n: np.ndarray
    l: np.ndarray
    k_idx: np.ndarray
    k_tile_count: np.ndarray
    k_tile_remaining: np.ndarray
    is_separate_reduction: np.ndarray
    tile_idx: np.ndarray

    @property
    def num_ctas(self) -> int:
        return len(self.cta_ptr) - 1

    def cta_of_item(self) -> np.ndarray:
        return np.repeat(np.arange(self.num_ctas), np.diff(self.cta_ptr))

    def rows(self) -> np.ndarray:
        """``(items, 7)`` int64: m, n, l, k_idx, k_tile_count, k_tile_remaining, is_reduction_unit."""
        return np.stack([self.m, self.n, self.l, self.k_idx, self.k_tile_count, self.k_tile_remaining,
                         self.is_separate_reduction.astype(np.int64)], axis=1)

    def items(self, cta: int) -> list[WorkTileInfo]:
        lo, hi = self.cta_ptr[cta], self.cta_ptr[cta + 1]
        return [WorkTileInfo(int(self.m[i]), int(self.n[i]), int(self.l[i]), int(self.k_idx[i]),
                             int(self.k_tile_count[i]), int(self.k_tile_remaining[i]),
                             bool(self.is_separate_reduction[i]), int(self.linear_idx[i]),
                             int(self.tile_idx[i])) for i in range(lo, hi)]


def schedule_arrays(p: StreamKParams) -> Schedule:
    """All CTAs' work in execution order: each unit's pieces, then the CTA's next unit.

    A CTA stops at its first invalid unit, like CUTLASS's ``while (work.is_valid())`` loop.
    """
    grid_size = p.grid[0] * p.grid[1] * p.grid[2]
    lin0 = launch_order_linear_idx(p)
    waves = max(1, -(-p.total_units // grid_size)) if grid_size else 0
    lin = lin0[:, None] + grid_size * np.arange(waves, dtype=np.int64)[None, :]
    valid_unit = lin < p.total_units
    cta = np.broadcast_to(np.arange(len(lin0))[:, None], lin.shape)[valid_unit]
    lin = lin[valid_unit]
    kt = p.k_tiles_per_output_tile

    sep = lin >= p.units_per_problem * p.splits
    dp = ~sep & (lin >= p.sk_units) & (p.splits == 1)
    sk = ~sep & ~dp
    start, rem = unit_iter_start(p, np.where(sk, lin, 0))
    tile_sk, kidx_sk, cnt_sk = output_tile_piece(p, lin, start, rem)
    red_unit = (lin - p.units_per_problem) // p.cluster_size
    tile_id = np.where(sep, red_unit // p.epilogue_subtile * p.cluster_size,
                       np.where(dp, lin - p.sk_units + p.sk_tiles, tile_sk))
    k_idx = np.where(sep, red_unit % p.epilogue_subtile, np.where(dp, 0, kidx_sk))
    count = np.where(sep, 0, np.where(dp, kt, cnt_sk))
    rem = np.where(sep, 0, np.where(dp, kt, rem))

    # a CTA whose unit starts with no K tiles (and is no reduction unit) ends its loop there
    invalid = (count <= 0) & ~sep
    if invalid.any():
        wave = (lin - lin0[cta]) // grid_size
        first_bad = np.full(len(lin0), waves)
        np.minimum.at(first_bad, cta[invalid], wave[invalid])
        keep = wave < first_bad[cta]
        lin, cta, start, tile_id, k_idx, count, rem, sep = (
            a[keep] for a in (lin, cta, start, tile_id, k_idx, count, rem, sep))

    pieces = [(np.arange(len(lin)), lin, tile_id, k_idx, count, rem, sep)]
    unit, cur_rem, cur_cnt = np.arange(len(lin)), rem, count
    while True:
        more = cur_rem - cur_cnt > 0
        if not more.any():
            break
        unit, cur_rem = unit[more], (cur_rem - cur_cnt)[more]
        t, ki, cur_cnt = output_tile_piece(p, lin[unit], start[unit], cur_rem)
        ok = cur_cnt > 0
        unit, cur_rem, t, ki, cur_cnt = unit[ok], cur_rem[ok], t[ok], ki[ok], cur_cnt[ok]
        pieces.append((unit, lin[unit], t, ki, cur_cnt, cur_rem, np.zeros(len(unit), bool)))

    cols = [np.concatenate(c) for c in zip(*pieces)]
    order = np.argsort(cols[0], kind="stable")
    u, lin_i, tile_i, kidx_i, cnt_i, rem_i, sep_i = (c[order] for c in cols)
    m, n, l = tile_coords(p, tile_i, lin_i)
    cta_ptr = np.searchsorted(cta[u], np.arange(len(lin0) + 1))
    return Schedule(p, cta_ptr, lin_i, m, n, l, kidx_i, cnt_i, rem_i, sep_i, output_tile_index(p, m, n, l))


def work_sequence(p: StreamKParams) -> list[list[WorkTileInfo]]:
    """Each CTA's work items in launch order and execution order."""
    s = schedule_arrays(p)
    return [s.items(c) for c in range(s.num_ctas)]
