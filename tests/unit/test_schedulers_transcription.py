"""tileorch's scheduler host math against an independent transcription of CUTLASS 4.7's C++.

The oracle (``cutlass_host_transcription``) was written from the CUTLASS sources, not from
``tileorch.schedulers``; hypothesis draws problem shapes from 1 up to tens of thousands of tiles,
tile shapes, clusters 1x1..4x4 plus 8x1/1x8/8x2/2x8, SM counts 1..264 (many not divisible by the
cluster), max_swizzle 0..9, every raster option and decomposition mode, splits beyond the K tile
count, batch counts, ``max_active_clusters`` and the occupancy bypass.  Each test stays a few
seconds (modest ``max_examples``).  Exact-CUTLASS cases recorded from the real headers live in
test_schedulers_cutlass_cases.py; this file covers the ranges in between.
"""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import cutlass_host_transcription as C
from tileorch.schedulers import (linear_idx_from_m_and_n, persistent_grid_shape, raster_params, schedule_arrays,
                                 static_persistent_params, static_persistent_sequence, streamk_params,
                                 work_idx_m_and_n, workspace_sizes)
from tileorch.schedulers.raster import check_domain, swizzle_padded

CLUSTERS = [(a, b) for a in (1, 2, 4) for b in (1, 2, 4)] + [(8, 1), (1, 8), (8, 2), (2, 8)]
RASTERS = ["heuristic", "along_m", "along_n"]
MODES = ["heuristic", "data_parallel", "split_k", "stream_k"]

cluster_st = st.sampled_from(CLUSTERS)
sms_st = st.one_of(st.integers(1, 264), st.sampled_from([1, 2, 17, 18, 19, 33, 114, 132, 148, 263, 264]))
swizzle_st = st.integers(0, 9)
raster_st = st.sampled_from(RASTERS)
extent_st = st.one_of(st.integers(1, 40), st.integers(1, 3000), st.sampled_from([1, 2, 63, 64, 65, 4096, 40000]))


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 5000), st.integers(1, 5000), st.integers(1, 70), cluster_st, sms_st, swizzle_st, raster_st,
       st.booleans(), st.booleans(), st.sampled_from([0, 0, 1, 3, 16, 40, 66, 132]))
def test_grid_shape(bm, bn, l, cluster, sms, swz, raster, truncate, bypass, mac):
    cx, cy = cluster
    blocks = (C.cdiv(bm, cx) * cx, C.cdiv(bn, cy) * cy, l)
    want = C.grid_shape(blocks, cx, cy, sms, swz, raster, truncate, bypass, mac)
    got = persistent_grid_shape(blocks, cluster, sms, swz, raster, truncate=truncate, bypass_occupancy=bypass,
                                max_active_clusters=mac, allow_empty=True)
    assert got == want


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 3000), st.integers(1, 3000), st.integers(1, 9), cluster_st, swizzle_st, raster_st,
       st.data())
def test_tile_mapping_and_its_inverse(bm, bn, l, cluster, swz, raster, data):
    cx, cy = cluster
    blocks = (C.cdiv(bm, cx) * cx, C.cdiv(bn, cy) * cy, l)
    want = C.sm90_params(blocks, cx, cy, swz, raster)
    rp = raster_params(blocks, cluster, swz, raster)
    assert (rp.blocks_m, rp.blocks_n, rp.blocks_l, rp.log_swizzle, rp.along_n) == (
        want.tiles_m * cx, want.tiles_n * cy, want.tiles_l, want.log_swizzle, want.along_n)
    assert rp.blocks_per_problem == want.blocks_per_problem
    for _ in range(20):
        lin = data.draw(st.integers(0, want.batch_div - 1))
        cta_m, cta_n = data.draw(st.integers(0, cx - 1)), data.draw(st.integers(0, cy - 1))
        blk = lin // want.minor
        m, n = C.work_idx_m_and_n(want, blk, cta_m, cta_n)
        assert work_idx_m_and_n(rp, blk, cta_m, cta_n) == (m, n)
        assert linear_idx_from_m_and_n(rp, m, n) == C.linear_idx_from_m_and_n(want, m, n)


@settings(max_examples=150, deadline=None)
@given(extent_st, extent_st, st.sampled_from([1, 1, 2, 3]), st.sampled_from([(128, 128), (64, 256), (256, 64)]),
       cluster_st, sms_st, swizzle_st, raster_st, st.sampled_from([0, 0, 2, 7, 33]))
def test_static_persistent_walk(m, n, l, tile, cluster, sms, swz, raster, mac):
    blocks = C.tiled_blocks(m, n, l, *tile, *cluster)
    assume(blocks[0] * blocks[1] * l <= 20000)
    grid = C.grid_shape(blocks, *cluster, sms, swz, raster, True, False, mac)
    try:
        p = static_persistent_params((m, n, 64, l), (*tile, 64), cluster, sms, max_swizzle=swz, raster=raster,
                                     max_active_clusters=mac)
    except ValueError as exc:  # no whole cluster fits: CUTLASS would launch an empty grid
        assert grid[0] * grid[1] == 0 and "no whole" in str(exc)
        return
    assert p.grid == grid
    want = C.static_walk(C.sm90_params(blocks, *cluster, swz, raster), grid)
    got = [[(t.m, t.n, t.l) for t in seq] for seq in static_persistent_sequence(p)]
    assert got == want


def _sk_case(data):
    d = data.draw
    tile = d(st.sampled_from([(128, 128, 64), (64, 128, 32), (128, 256, 64), (256, 128, 128), (64, 64, 16)]))
    cluster = d(cluster_st)
    mode = d(st.sampled_from(MODES + ["stream_k"] * 3))  # stream-K units are where the K smoothing bites
    splits = 1
    if mode in ("heuristic", "split_k") and d(st.booleans()):
        splits = d(st.one_of(st.integers(2, 9), st.integers(2, 600)))
    kt = d(st.one_of(st.integers(1, 12), st.integers(9, 40), st.integers(1, 300),
                     st.sampled_from([1, 7, 8, 9, 16, 17, 2000])))
    k = kt * tile[2] - d(st.integers(0, tile[2] - 1))
    problem = (d(extent_st), d(extent_st), k, d(st.sampled_from([1, 1, 2, 5])))
    opts = dict(splits=splits, max_swizzle=d(swizzle_st), raster=d(raster_st), decomposition=mode,
                ktile_start_alignment=d(st.sampled_from([1, 1, 2])),
                max_active_clusters=d(st.sampled_from([0, 0, 5, 40])), bypass_occupancy=d(st.booleans()))
    return problem, tile, cluster, d(sms_st), opts


def _oracle_opts(opts):
    o = dict(opts)
    o["align"], o["bypass"] = o.pop("ktile_start_alignment"), o.pop("bypass_occupancy")
    return o


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_streamk_params_and_every_work_item(data):
    problem, tile, cluster, sms, opts = _sk_case(data)
    blocks = C.tiled_blocks(problem[0], problem[1], problem[3], tile[0], tile[1], *cluster)
    assume(blocks[0] * blocks[1] * blocks[2] <= 6000)
    oo = _oracle_opts(opts)
    grid = C.sk_grid(problem, tile, cluster, sms, oo["max_swizzle"], oo["raster"], oo["bypass"],
                     oo["max_active_clusters"])
    try:
        want = C.sk_params(problem, tile, cluster, sms, **oo)
    except ZeroDivisionError:  # CUTLASS divides by zero too (an empty wave, or no unit per group)
        with pytest.raises(ValueError):
            streamk_params(problem, tile, cluster, sms, **opts)
        return
    p = streamk_params(problem, tile, cluster, sms, **opts)
    assert p.grid == grid
    assert p.decomposition.value == want.chosen
    for name in ("k_tiles_per_output_tile", "units_per_problem", "splits", "big_units", "big_groups", "sk_tiles",
                 "sk_units", "k_tiles_per_sk_unit", "k_tiles_per_sk_big_unit", "sk_groups", "sk_units_per_group",
                 "clusters_mnl"):
        assert getattr(p, name) == getattr(want, name), name
    s = schedule_arrays(p)
    rows = s.rows().tolist()
    got = [rows[s.cta_ptr[c]:s.cta_ptr[c + 1]] for c in range(s.num_ctas)]
    assert got == C.sk_kernel_rows(want, grid)


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from([1, 2]), st.sampled_from([16, 32]))
def test_workspace_sizes(data, wgs, acc_bits):
    problem, tile, cluster, sms, opts = _sk_case(data)
    oo = _oracle_opts(opts)
    try:
        want = C.workspace_bytes(problem, tile, cluster, sms, mma_warp_groups=wgs, accumulator_bits=acc_bits, **oo)
    except ZeroDivisionError:
        with pytest.raises(ValueError):
            workspace_sizes(problem, tile, cluster, sms, mma_warp_groups=wgs, accumulator_bits=acc_bits, **opts)
        return
    got = workspace_sizes(problem, tile, cluster, sms, mma_warp_groups=wgs, accumulator_bits=acc_bits, **opts)
    assert (got.reduction, got.barrier) == want


# ------------------------------------------------------------------ FastDivmod


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.integers(1, 64), st.integers(1, 2**31 - 1)), st.integers(0, 2**31 - 1))
def test_fastdivmod_int_is_exact_below_2_31(divisor, dividend):
    # the device lowering divides exactly; CUTLASS's FastDivmod agrees on every int dividend >= 0
    assert C.fastdivmod_int(divisor, dividend) == divmod(dividend, divisor)


@pytest.mark.parametrize("divisor,dividend", [(7, 4228972418), (1001, 3465334872), (12345, 4035592844)])
def test_fastdivmod_int_is_not_exact_from_2_31(divisor, dividend):
    # why the K-iteration counters must stay below 2**31 (check_k_iterations): on a uint32_t counter
    # of 2**31 or more the device quotient can be one too large and the int remainder negative
    q, r = C.fastdivmod_int(divisor, dividend)
    assert (q, r) == (dividend // divisor + 1, dividend % divisor - divisor)


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.integers(1, 300), st.integers(1, 2**63)), st.integers(0, 2**63))
def test_fastdivmod_u64_is_exact(divisor, dividend):
    assert C.fastdivmod_u64(divisor, dividend) == divmod(dividend, divisor)


@pytest.mark.parametrize("divisor", [1, 2, 4, 8, 16])
def test_fastdivmod_pow2_and_divisor_one(divisor):
    for n in (0, 1, 7, 2**31 - 1, 2**40 + 3):
        assert C.fastdivmod_pow2(divisor, n) == divmod(n, divisor)
    assert C.fastdivmod_int(1, 2**31 - 1) == (2**31 - 1, 0)
    assert C.fastdivmod_pow2(3, 7) != divmod(7, 3)  # non-powers of two are wrong: clusters must be 2**k


# ------------------------------------------------------------------ SM100 stream-K grid


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_sm100_streamk_grid(data):
    """PersistentTileSchedulerSm100StreamKParams::get_grid_shape: with stream-K units, waves of
    ``sk_units`` CTAs as ``(sk_units / cluster_n, cluster_n, waves)``; else the cluster-rounded tiles
    with the splits along z.  The SM90 params underneath bypass the GPC occupancy model, and an
    N = 192 tile is forced data-parallel (PersistentTileSchedulerSm100StreamK::to_underlying_arguments)."""
    from tileorch.schedulers.sm100_streamk import sm100_streamk_params

    problem, tile, cluster, sms, opts = _sk_case(data)
    tile = (tile[0], data.draw(st.sampled_from([tile[1], 192])), tile[2])
    opts.pop("bypass_occupancy")
    if tile[1] == 192:
        opts.update(decomposition="data_parallel", splits=1)
    oo = _oracle_opts({**opts, "bypass_occupancy": True})
    try:
        want = C.sk_params(problem, tile, cluster, sms, **oo)
    except ZeroDivisionError:
        with pytest.raises(ValueError):
            sm100_streamk_params(problem, tile, cluster, sms, **opts)
        return
    blocks = C.tiled_blocks(problem[0], problem[1], problem[3], tile[0], tile[1], *cluster)
    if want.sk_units > 0:
        grid = (want.sk_units // cluster[1], cluster[1], C.cdiv(want.units_per_problem, want.sk_units))
    else:
        grid = (blocks[0], blocks[1], blocks[2] * want.splits)
    assume(grid[1] <= 65535 and grid[2] <= 65535)
    assert sm100_streamk_params(problem, tile, cluster, sms, **opts).grid == grid
