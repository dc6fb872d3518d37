"""An independent Python transcription of CUTLASS 4.7's SM90 tile-scheduler host and work math.

Written for the tests from reading the C++ (github.com/NVIDIA/cutlass at 7107b055,
``include/cutlass/gemm/kernel/tile_scheduler_params.h``, ``sm90_tile_scheduler.hpp``,
``static_tile_scheduler.hpp``, ``sm90_tile_scheduler_stream_k.hpp``, ``include/cutlass/fast_math.h``),
deliberately NOT from ``tileorch.schedulers``: it is the oracle those modules are compared with.
It keeps CUTLASS's structure (a params object with the same field meanings, then the device
functions reading it) rather than tileorch's, so a shared misreading is less likely.

Only the domain where CUTLASS's own integer types do not wrap is modelled (tileorch refuses the
rest: test_schedulers_domain.py); there the C++ integer arithmetic equals Python's.
"""

from __future__ import annotations

from dataclasses import dataclass

GPC_SMS = 18  # GH100: 9 TPCs x 2 SMs per GPC (the constant inside get_grid_shape)
MIN_ITERS = 8  # min_iters_per_sk_unit_
MAX_GROUPS = 8  # max_sk_groups_
L2_LINE = 128


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


# ------------------------------------------------------------------ FastDivmod (fast_math.h)


def _clz32(x: int) -> int:
    for i in range(31, -1, -1):
        if (1 << i) & x:
            return 31 - i
    return 32


def fastdivmod_int(divisor: int, dividend: int) -> tuple[int, int]:
    """``FastDivmod`` (int): device path ``__umulhi(n, mul) >> shr`` with ``p = 31 + ceil(log2 d)``,
    ``mul = ceil(2**p / d)``, ``shr = p - 32``; divisor 1 copies the dividend.  The dividend and
    the remainder are C ``int``: a ``uint32_t`` counter of 2**31 or more arrives negative."""
    if divisor == 1:
        return dividend, 0
    log2_up = (31 - _clz32(divisor)) + (1 if divisor & (divisor - 1) else 0)
    p = 31 + log2_up
    mul = ((1 << p) + divisor - 1) // divisor
    assert mul < 1 << 32
    q = ((dividend & 0xFFFFFFFF) * mul >> 32) >> (p - 32)
    return q, _as_int32(_as_int32(dividend) - q * divisor)


def _as_int32(v: int) -> int:
    """The value of a C ``int`` holding ``v`` modulo 2**32 (the dividend and remainder are ints)."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def fastdivmod_u64(divisor: int, dividend: int) -> tuple[int, int]:
    """``FastDivmodU64`` device path: ``shr = floor(log2 d)``; a power of two shifts; otherwise
    ``mul = floor((2**shr * 2**64 + 2**shr) / d)`` and ``round_up = (floor(2**shr * 2**64 / d) == mul)``,
    quotient ``umul64hi(n + round_up, mul) >> shr``."""
    shr = divisor.bit_length() - 1
    if divisor & (divisor - 1) == 0:
        q = dividend >> shr
    else:
        power = 1 << shr
        mul = ((power << 64) | power) // divisor
        mul_lo = (power << 64) // divisor
        round_up = 1 if mul_lo == mul else 0
        mul &= (1 << 64) - 1
        q = (((dividend + round_up) & ((1 << 64) - 1)) * mul >> 64) >> shr
    return q, dividend - q * divisor


def fastdivmod_pow2(divisor: int, dividend: int) -> tuple[int, int]:
    """``FastDivmodU64Pow2``: shift by floor(log2 d), mask by d - 1 (exact only for powers of two)."""
    return dividend >> (divisor.bit_length() - 1), dividend & (divisor - 1)


# ------------------------------------------------------------------ PersistentTileSchedulerSm90Params


def tiled_blocks(m: int, n: int, l: int, tile_m: int, tile_n: int, cx: int, cy: int) -> tuple[int, int, int]:
    """get_tiled_cta_shape_mnl: CTA tiles per mode, M/N rounded up to whole clusters."""
    return cdiv(cdiv(m, tile_m), cx) * cx, cdiv(cdiv(n, tile_n), cy) * cy, l


def log_swizzle(pm: int, pn: int, max_swizzle: int) -> int:
    smaller = pm if pm < pn else pn
    for need_swz, need_dim, result in ((8, 6, 3), (4, 3, 2), (2, 2, 1)):
        if max_swizzle >= need_swz and smaller >= need_dim:
            return result
    return 0


def raster_along_n(tiles_m: int, tiles_n: int, option: str) -> bool:
    """get_rasterization_order; True means RasterOrder::AlongN."""
    if option == "heuristic":
        return not tiles_n > tiles_m
    return option == "along_n"


def occupancy(cluster_size: int, sms: int) -> int:
    """get_max_cta_occupancy(18, cluster, sms)."""
    gpcs = 1 if sms < GPC_SMS else sms // GPC_SMS
    per_gpc = GPC_SMS - GPC_SMS % cluster_size
    ctas = gpcs * per_gpc
    leftover = 0 if sms < GPC_SMS else sms % GPC_SMS
    ctas += leftover - leftover % cluster_size
    return sms if sms < ctas else ctas


def grid_shape(blocks: tuple[int, int, int], cx: int, cy: int, sms: int, max_swizzle: int, option: str,
               truncate: bool = True, bypass: bool = False, max_active_clusters: int = 0) -> tuple[int, int, int]:
    """PersistentTileSchedulerSm90Params::get_grid_shape (the dim3 overload)."""
    ls = log_swizzle(blocks[0], blocks[1], max_swizzle)
    pm = cdiv(blocks[0], (1 << ls) * cx) * (1 << ls) * cx
    pn = cdiv(blocks[1], (1 << ls) * cy) * (1 << ls) * cy
    total = pm * pn * blocks[2]
    along_n = raster_along_n(pm, pn, option)
    x, y = (cx, 1) if along_n else (1, cy)

    def cut(a, b):
        return min(a, b) if truncate else a

    if cx * cy == 1:
        long_side = cut(sms, total)
    elif max_active_clusters != 0 and max_active_clusters * cx * cy <= sms:
        long_side = (cut(max_active_clusters * cy, total // cx) if along_n
                     else cut(max_active_clusters * cx, total // cy))
    else:
        per_device = sms if bypass else occupancy(cx * cy, sms)
        long_side = cut(per_device // cx, total // cx) if along_n else cut(per_device // cy, total // cy)
    return (x, long_side, 1) if along_n else (long_side, y, 1)


@dataclass
class Sm90Params:
    """The fields of PersistentTileSchedulerSm90Params after initialize()."""

    tiles_m: int  # problem_tiles_m_ (clusters)
    tiles_n: int
    tiles_l: int
    cx: int
    cy: int
    blocks_per_problem: int
    log_swizzle: int
    along_n: bool
    batch_div: int  # divmod_batch_
    major: int  # divmod_cluster_shape_major_
    minor: int
    blk_major: int  # divmod_cluster_blk_major_


def sm90_params(blocks: tuple[int, int, int], cx: int, cy: int, max_swizzle: int, option: str) -> Sm90Params:
    ls = log_swizzle(blocks[0], blocks[1], max_swizzle)
    pm = cdiv(blocks[0], (1 << ls) * cx) * (1 << ls) * cx
    pn = cdiv(blocks[1], (1 << ls) * cy) * (1 << ls) * cy
    along_n = raster_along_n(pm, pn, option)
    if along_n:
        major, minor, blk_major = cy, cx, pn // cy
    else:
        major, minor, blk_major = cx, cy, pm // cx
    return Sm90Params(pm // cx, pn // cy, blocks[2], cx, cy, pm * pn * blocks[2], ls, along_n, pm * pn,
                      major, minor, blk_major)


def work_idx_m_and_n(p: Sm90Params, blk: int, cta_m: int, cta_n: int) -> tuple[int, int]:
    """PersistentTileSchedulerSm90::get_work_idx_m_and_n (the overload taking the in-cluster CTA)."""
    cluster_id, major_off = fastdivmod_pow2(p.major, blk)
    minor_off = cta_m if p.along_n else cta_n
    offset = cluster_id & ((1 << p.log_swizzle) - 1)
    extra = cluster_id >> p.log_swizzle
    minor_band, cluster_major = fastdivmod_u64(p.blk_major, extra)
    cluster_minor = minor_band * (1 << p.log_swizzle) + offset
    minor_idx = cluster_minor * p.minor + minor_off
    major_idx = cluster_major * p.major + major_off
    return (minor_idx, major_idx) if p.along_n else (major_idx, minor_idx)


def linear_idx_from_m_and_n(p: Sm90Params, tile_m: int, tile_n: int) -> int:
    """StaticPersistentTileScheduler::get_linear_idx_from_m_and_n."""
    if p.along_n:
        minor_work, major_work = tile_m, tile_n
    else:
        minor_work, major_work = tile_n, tile_m
    minor_off = minor_work - fastdivmod_pow2(p.minor, minor_work)[0] * p.minor
    cluster_minor = fastdivmod_pow2(p.minor, minor_work - minor_off)[0]
    cluster_major, major_off = fastdivmod_pow2(p.major, major_work)
    band = cluster_minor >> p.log_swizzle
    offset = cluster_minor & ((1 << p.log_swizzle) - 1)
    extra = band * p.blk_major + cluster_major
    cluster_id = (extra << p.log_swizzle) | offset
    return (cluster_id * p.major + major_off) * p.minor + minor_off


def static_tile(p: Sm90Params, linear: int, cta_m: int, cta_n: int) -> tuple[int, int, int] | None:
    """StaticPersistentTileScheduler::get_current_work_for_linear_idx: (m, n, l) or None (invalid)."""
    if linear >= p.blocks_per_problem:
        return None
    l, rem = fastdivmod_u64(p.batch_div, linear)
    m, n = work_idx_m_and_n(p, fastdivmod_pow2(p.minor, rem)[0], cta_m, cta_n)
    return m, n, l


def launch_linear(along_n: bool, bx: int, by: int, grid: tuple[int, int, int]) -> int:
    """The scheduler constructors' first linear index of CTA (bx, by)."""
    return bx + by * grid[0] if along_n else bx * grid[1] + by


def static_walk(p: Sm90Params, grid: tuple[int, int, int]) -> list[list[tuple[int, int, int]]]:
    """Every CTA's tiles (blockIdx.y outer, .x inner); the in-cluster CTA is %cluster_ctaid =
    (bx % cluster_m, by % cluster_n), the stride is the whole grid."""
    stride = grid[0] * grid[1] * grid[2]
    out = []
    for by in range(grid[1]):
        for bx in range(grid[0]):
            lin, tiles = launch_linear(p.along_n, bx, by, grid), []
            while (t := static_tile(p, lin, bx % p.cx, by % p.cy)) is not None:
                tiles.append(t)
                lin += stride
            out.append(tiles)
    return out


# ------------------------------------------------------------------ PersistentTileSchedulerSm90StreamKParams


@dataclass
class SkParams:
    """The stream-K params fields the work functions read (names as in the C++, trailing _ dropped)."""

    base: Sm90Params
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
    align: int
    chosen: str  # which set_params branch ran: data_parallel, split_k or stream_k

    @property
    def cluster_size(self) -> int:
        return self.base.cx * self.base.cy


def adjust_splits(splits: int, sms: int, kt: int, align: int) -> int:
    if splits > sms:
        splits = sms
    if splits > kt:
        splits = kt
    if align > 1 and splits > 1 and kt // splits == 1:
        splits = kt // align
    return splits


def sk_tile_count(output_tiles: int, per_wave: int, cs: int, kt: int, mode: str) -> int:
    """get_num_sk_tiles."""
    if mode in ("data_parallel", "split_k"):
        return 0
    full = output_tiles // per_wave
    total = cdiv(output_tiles, per_wave)
    dp_waves = full - 1 if full > 1 else 0
    sk = output_tiles - dp_waves * per_wave
    if full == total or kt <= MIN_ITERS:
        return 0
    if mode == "heuristic" and 2 * (output_tiles - full * per_wave) >= per_wave:
        return 0
    return sk // cs * cs


def sk_unit_count(cs: int, per_sk_wave: int, sk_tiles: int, kt: int) -> int:
    """get_num_sk_units."""
    by_min_iters = (kt * sk_tiles // MIN_ITERS) // cs * cs
    return min(per_sk_wave, by_min_iters)


def group_count(base: Sm90Params, pm: int, pn: int, cs: int, sk_cluster_tiles: int, sk_units: int, kt: int) -> int:
    """calculate_groups (separate reduction off)."""
    limit = pm // base.cx if not base.along_n else pn // base.cy
    g = min(limit, MAX_GROUPS)
    cluster_units = sk_units // cs

    def too_small(x):
        return (sk_cluster_tiles // x) * cs * kt // (sk_units // x) < MIN_ITERS

    fallback = 0
    while g > 1 and not (cluster_units % g == 0 and sk_cluster_tiles % g == 0 and not too_small(g)):
        if fallback == 0 and cluster_units % g == 0 and not too_small(g):
            fallback = g
        g -= 1
    if g == 1 and fallback > 0:
        g = fallback
    return g


def sk_params(problem, tile, cluster, sms, splits=1, max_swizzle=1, raster="heuristic", decomposition="heuristic",
              align=1, bypass=False, max_active_clusters=0) -> SkParams:
    """PersistentTileSchedulerSm90StreamKParams::initialize (heuristic, then set_params)."""
    m, n, k, l = problem
    cx, cy = cluster
    blocks = tiled_blocks(m, n, l, tile[0], tile[1], cx, cy)
    kt = cdiv(k, tile[2])
    base = sm90_params(blocks, cx, cy, max_swizzle, raster)
    pm, pn = base.tiles_m * cx, base.tiles_n * cy
    cs = cx * cy

    def basic(nsplits, chosen):
        tiles = pm * pn * l
        return SkParams(base, kt, tiles, nsplits, kt % nsplits, 0, 0, 0, kt // nsplits, kt // nsplits + 1, 1, 1,
                        tiles // cs, align, chosen)

    if decomposition == "split_k" or (decomposition == "heuristic" and splits > 1):
        return basic(adjust_splits(splits, sms, kt, align), "split_k")
    output_tiles = pm * pn * l
    grid = grid_shape(blocks, cx, cy, sms, max_swizzle, raster, truncate=False, bypass=bypass,
                      max_active_clusters=max_active_clusters)
    per_wave = grid[0] * grid[1]
    full_cluster_wave = per_wave // cs * cs
    sk_tiles = sk_tile_count(output_tiles, per_wave, cs, kt, decomposition)
    dp_units = output_tiles - sk_tiles
    sk_units = sk_unit_count(cs, full_cluster_wave, sk_tiles, kt)
    if decomposition == "data_parallel" or (decomposition == "heuristic" and sk_tiles == 0) or sk_units == 0:
        return basic(1, "data_parallel")
    sk_cluster_tiles = sk_tiles // cs
    groups = group_count(base, pm, pn, cs, sk_cluster_tiles, sk_units, kt)
    per_group = sk_units // groups
    k_per_group = kt * (sk_cluster_tiles // groups) * cs
    k_per_unit = k_per_group // per_group
    if decomposition == "heuristic" and sk_tiles < sk_units and sk_units % sk_tiles == 0:
        return basic(sk_units // sk_tiles, "split_k")
    return SkParams(base, kt, dp_units + sk_units, 1, (k_per_group % sk_units) // cs, sk_cluster_tiles % groups,
                    sk_tiles, sk_units, k_per_unit, k_per_unit + 1, groups, per_group, sk_units // cs, align,
                    "stream_k")


def sk_grid(problem, tile, cluster, sms, max_swizzle=1, raster="heuristic", bypass=False, max_active_clusters=0):
    blocks = tiled_blocks(problem[0], problem[1], problem[3], tile[0], tile[1], *cluster)
    return grid_shape(blocks, *cluster, sms, max_swizzle, raster, truncate=False, bypass=bypass,
                      max_active_clusters=max_active_clusters)


@dataclass
class Work:
    m: int = -1
    n: int = -1
    l: int = -1
    k_idx: int = -1
    k_tile_count: int = 0
    k_tile_remaining: int = 0

    def row(self) -> list[int]:
        return [self.m, self.n, self.l, self.k_idx, self.k_tile_count, self.k_tile_remaining, 0]


def _cta_in_cluster(p: SkParams, linear: int) -> tuple[int, int]:
    """get_current_work_cta_m_n_in_cluster: re-derived from the linear index."""
    b = p.base
    within = linear - (linear // b.major // b.minor) * p.cluster_size
    hi, lo = fastdivmod_pow2(b.minor, within)
    return (lo, hi) if b.along_n else (hi, lo)


def _iter_start(p: SkParams, linear: int, w: Work) -> int:
    """get_current_work_iter_start_possible_update_work_tile_k_remaining."""
    kt = p.k_tiles_per_output_tile
    cluster_work = linear // p.base.major // p.base.minor
    cluster_work, group = fastdivmod_u64(p.sk_groups, cluster_work)
    cluster_tiles_in_group = (p.sk_tiles // p.base.major // p.base.minor) // p.sk_groups
    if group < p.big_groups:
        cluster_tiles_in_group += 1
    k_in_group = cluster_tiles_in_group * p.cluster_size * kt
    k_per_unit = k_in_group // p.sk_units_per_group
    big_in_group = (k_in_group - k_per_unit * p.sk_units_per_group) // p.base.major // p.base.minor
    split, cluster_work = fastdivmod_u64(p.clusters_mnl, cluster_work)
    split_k = p.splits > 1
    lhs = split if split_k else cluster_work
    rhs = p.big_units if split_k else big_in_group
    mult = kt if split_k else k_per_unit
    per_split = p.k_tiles_per_sk_unit if split_k else k_per_unit
    start = mult * cluster_work + per_split * split
    mine = per_split
    if lhs < rhs:
        start += lhs
        mine += 1
    else:
        start += rhs
    if not split_k:
        s = fastdivmod_int(kt, start)[1]
        if s < MIN_ITERS:
            start, mine = start - s, mine + s
        elif s > kt - MIN_ITERS:
            start, mine = start + (kt - s), mine - (kt - s)
        elif p.align == 2 and s % 2:
            start, mine = start - 1, mine + 1
    if w.k_tile_count == 0:
        if not split_k:
            e = fastdivmod_int(kt, start + mine)[1]
            if e < MIN_ITERS:
                mine -= e
            elif e > kt - MIN_ITERS:
                mine += kt - e
            elif p.align == 2 and e % 2:
                mine -= 1
        w.k_tile_remaining = mine
    return start


def _piece(p: SkParams, w: Work, linear: int, start: int, cta_m: int, cta_n: int) -> int:
    """update_output_tile_id_and_work_tile_k: the piece of the unit's last remaining tile."""
    kt = p.k_tiles_per_output_tile
    group = fastdivmod_u64(p.sk_groups, linear // p.base.major // p.base.minor)[1]
    end = start + w.k_tile_remaining - 1
    tile_in_group = fastdivmod_int(kt, end)[0]
    t_start = tile_in_group * kt
    t_end = t_start + kt
    tile = (tile_in_group * p.sk_groups + group) * p.cluster_size
    tile += (cta_n if p.base.along_n else cta_m) * p.base.minor
    lo, hi = max(t_start, start), min(t_end, end + 1)
    w.k_idx, w.k_tile_count = lo - t_start, hi - lo
    return tile


def _set_mnl(p: SkParams, tile: int, w: Work, cta_m: int, cta_n: int) -> None:
    """update_work_tile_m_n_l."""
    l, rem = fastdivmod_u64(p.base.batch_div, tile)
    w.m, w.n = work_idx_m_and_n(p.base, fastdivmod_pow2(p.base.minor, rem)[0], cta_m, cta_n)
    w.l = l


def sk_current_work(p: SkParams, linear: int) -> tuple[Work, int]:
    """get_current_work_for_linear_idx -> (work, unit_iter_start); invalid work has k_tile_count 0."""
    w = Work()
    if linear >= p.units_per_problem * p.splits:
        return w, 0
    cta_m, cta_n = _cta_in_cluster(p, linear)
    start = 0
    if linear >= p.sk_units and p.splits == 1:
        tile = linear - p.sk_units + p.sk_tiles
        w.k_idx, w.k_tile_count, w.k_tile_remaining = 0, p.k_tiles_per_output_tile, p.k_tiles_per_output_tile
    else:
        start = _iter_start(p, linear, w)
        tile = _piece(p, w, linear, start, cta_m, cta_n)
    _set_mnl(p, tile, w, cta_m, cta_n)
    return w, start


def sk_continue(p: SkParams, linear: int, start: int, w: Work) -> bool:
    """continue_current_work_for_linear_idx (updates ``w`` in place)."""
    w.k_tile_remaining -= w.k_tile_count
    if w.k_tile_remaining == 0:
        return False
    cta_m, cta_n = _cta_in_cluster(p, linear)
    tile = _piece(p, w, linear, start, cta_m, cta_n)
    _set_mnl(p, tile, w, cta_m, cta_n)
    return w.k_tile_count > 0


def sk_kernel_rows(p: SkParams, grid: tuple[int, int, int]) -> list[list[list[int]]]:
    """Every CTA's work rows, driven as the persistent kernels' fetch_next_work loop drives them."""
    stride = grid[0] * grid[1] * grid[2]
    out = []
    for by in range(grid[1]):
        for bx in range(grid[0]):
            linear, rows = launch_linear(p.base.along_n, bx, by, grid), []
            w, start = sk_current_work(p, linear)
            while w.k_tile_count > 0:
                rows.append(w.row())
                if not sk_continue(p, linear, start, w):
                    linear += stride
                    w, start = sk_current_work(p, linear)
            out.append(rows)
    return out


def workspace_bytes(problem, tile, cluster, sms, splits=1, max_swizzle=1, raster="heuristic",
                    decomposition="heuristic", mma_warp_groups=1, accumulator_bits=32, align=1, bypass=False,
                    max_active_clusters=0) -> tuple[int, int]:
    """get_workspace_component_sizes -> (reduction bytes, barrier bytes); int barriers (32 bits)."""
    if decomposition == "data_parallel":
        return 0, 0
    m, n, k, l = problem
    cx, cy = cluster
    blocks = tiled_blocks(m, n, l, tile[0], tile[1], cx, cy)
    kt = cdiv(k, tile[2])
    ls = log_swizzle(blocks[0], blocks[1], max_swizzle)
    padded = (cdiv(blocks[0], (1 << ls) * cx) * (1 << ls) * cx, cdiv(blocks[1], (1 << ls) * cy) * (1 << ls) * cy, l)
    output_tiles = padded[0] * padded[1] * l
    grid = grid_shape(padded, cx, cy, sms, max_swizzle, raster, truncate=False, bypass=bypass,
                      max_active_clusters=max_active_clusters)
    per_wave = grid[0] * grid[1]
    cs = cx * cy
    sk_tiles = sk_tile_count(output_tiles, per_wave, cs, kt, decomposition)
    sk_units = sk_unit_count(cs, per_wave // cs * cs, sk_tiles, kt)
    if decomposition == "split_k" or (decomposition == "heuristic" and splits > 1):
        splits = adjust_splits(splits, sms, kt, align)
    required = splits > 1 and decomposition in ("split_k", "heuristic")
    selected = (not required and decomposition == "heuristic" and sk_units > sk_tiles and sk_tiles != 0
                and sk_units % sk_tiles == 0)
    tiles = output_tiles if required or selected else sk_tiles

    def l2(bits):
        return cdiv(cdiv(bits, 8), L2_LINE) * L2_LINE

    return l2(accumulator_bits * tile[0] * tile[1] * tiles), l2(tiles * mma_warp_groups * 32)
