"""Raster order, swizzle, grid shape and the static persistent / data-parallel schedulers.

Expected values are derived by hand from CUTLASS's formulas (tile_scheduler_params.h,
sm90_tile_scheduler.hpp); each derivation is written next to its assertion.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.schedulers import (data_parallel_params, data_parallel_tile, linear_idx_from_m_and_n,
                                 log_swizzle_size, max_cta_occupancy, persistent_advance,
                                 persistent_grid_shape, raster_params, rasterization_order,
                                 static_persistent_params, static_persistent_sequence, tiled_cta_shape_mnl)
from tileorch.schedulers.enums import RasterOrder
from tileorch.schedulers.persistent import first_work, tile_of_linear_idx


def test_log_swizzle_thresholds():
    # 8 needs min(m, n) >= 6, 4 needs >= 3, 2 needs >= 2; max_swizzle 3 behaves like 2
    assert log_swizzle_size(6, 9, 8) == 3
    assert log_swizzle_size(5, 9, 8) == 2
    assert log_swizzle_size(2, 9, 8) == 1
    assert log_swizzle_size(9, 9, 3) == 1
    assert log_swizzle_size(1, 9, 8) == 0
    assert log_swizzle_size(9, 9, 1) == 0


def test_raster_heuristic_ties_walk_along_n():
    assert rasterization_order(4, 4, "heuristic") is RasterOrder.ALONG_N
    assert rasterization_order(4, 5, "heuristic") is RasterOrder.ALONG_M
    assert rasterization_order(9, 5, "along_m") is RasterOrder.ALONG_M


def test_cluster_rounding_and_swizzle_padding():
    # 4x6 tiles, max swizzle 4: ls = 2 (min 4 >= 3); M 4 -> 4, N 6 -> round_up(6, 4) = 8;
    # heuristic on padded counts: 8 > 4 -> along M.  32 work tiles, 8 of them padding.
    rp = raster_params((4, 6, 1), (1, 1), 4, "heuristic")
    assert (rp.blocks_m, rp.blocks_n, rp.log_swizzle, rp.raster) == (4, 8, 2, RasterOrder.ALONG_M)
    # 300x200 with 128x64 tiles: ceil -> 3x4, cluster 2x1 rounds M up to 4
    assert tiled_cta_shape_mnl((300, 200, 64, 2), (128, 64, 64), (2, 1)) == (4, 4, 2)


def test_swizzled_walk_4x4_swizzle_2():
    # AlongN (tie), ls = 1, cluster_blk_major = 4: lin -> cluster_id = lin, offset = lin & 1,
    # extra = lin >> 1, band = extra // 4, n = extra % 4, m = 2*band + offset
    rp = raster_params((4, 4, 1), (1, 1), 2, "heuristic")
    got = [tile_of_linear_idx(rp, lin, 0, 0)[:2] for lin in range(12)]
    assert got == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 0), (3, 0), (2, 1), (3, 1)]


def test_gpc_occupancy():
    # 132 SMs = 7 GPCs of 18 + 6.  cluster 4: 7*(18-2) + (6-2) = 116; cluster 8: 7*16 + 0 = 112;
    # cluster 2: 7*18 + 6 = 132.  114 SMs, cluster 4: 6*16 + (6-2) = 100
    assert max_cta_occupancy(18, (2, 2), 132) == 116
    assert max_cta_occupancy(18, (4, 2), 132) == 112
    assert max_cta_occupancy(18, (2, 1), 132) == 132
    assert max_cta_occupancy(18, (2, 2), 114) == 100


def test_persistent_grid_shapes():
    # 27x27 tiles: along N (tie) -> (1, min(132, 729), 1)
    assert persistent_grid_shape((27, 27, 1), (1, 1), 132, 1, "heuristic") == (1, 132, 1)
    # cluster 2x2 -> blocks 28x28, along N, occupancy 116 -> (2, 116 // 2 = 58, 1)
    assert persistent_grid_shape((28, 28, 1), (2, 2), 132, 1, "heuristic") == (2, 58, 1)
    # along M with cluster 1x2: (min(132 // 2, 40 // 2) = 20, 2, 1) when truncating to 5x8 = 40 tiles
    assert persistent_grid_shape((5, 8, 1), (1, 2), 132, 1, "along_m") == (20, 2, 1)
    assert persistent_grid_shape((5, 8, 1), (1, 2), 132, 1, "along_m", truncate=False) == (66, 2, 1)
    with pytest.raises(ValueError):
        persistent_grid_shape((4, 4, 1), (2, 2), 1, 1, "heuristic")


def test_static_persistent_cluster_walk():
    # 4x4 tiles, cluster (2,1), along N: total = 16, occupancy 132 -> 132 // 2 = 66 CTA rows,
    # truncated to 16 // 2 = 8 -> grid (2, 8, 1).
    # lin = bx + 2*by; blk = lin // 2 = by; n = by % 4, m band = by // 4: by 0..3 -> m in {0,1}, n = by
    p = static_persistent_params((512, 512, 128, 1), (128, 128, 64), (2, 1), 132)
    assert p.grid == (2, 8, 1)
    seqs = static_persistent_sequence(p)
    assert [(s[0].m, s[0].n) for s in seqs[:8]] == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (0, 3), (1, 3)]
    assert [(s[0].m, s[0].n) for s in seqs[8:10]] == [(2, 0), (3, 0)]
    assert all(len(s) == 1 for s in seqs)


def test_persistent_advance_increment_pipe():
    p = static_persistent_params((1024, 1024, 128, 1), (128, 128, 64), (1, 1), 4, tiles_per_pipeline_round=3)
    t = first_work(p, 0, 1)
    bits = []
    for _ in range(5):
        r = persistent_advance(p, t)
        bits.append(r.increment_pipe)
        assert r.tile.linearized_id == t.linearized_id + 4
        t = r.tile
    assert bits == [False, False, True, False, False]
    # 64 tiles, 4 CTAs: CTA 1 has linear ids 1, 5, ..., 61 -> 16 tiles, then invalid
    p1 = static_persistent_params((1024, 1024, 128, 1), (128, 128, 64), (1, 1), 4)
    t, n = first_work(p1, 0, 1), 0
    while t.is_valid_tile:
        n += 1
        r = persistent_advance(p1, t)
        assert r.increment_pipe
        t = r.tile
    assert n == 16


shapes = st.tuples(st.integers(1, 700), st.integers(1, 700), st.integers(1, 3))
clusters = st.sampled_from([(1, 1), (2, 1), (1, 2), (2, 2), (4, 1), (1, 4), (4, 2)])


@settings(max_examples=60, deadline=None)
@given(shapes, clusters, st.sampled_from([0, 1, 2, 3, 4, 8]), st.sampled_from(["heuristic", "along_m", "along_n"]))
def test_data_parallel_is_bijection_onto_padded_tiles(mnl, cluster, swz, raster):
    m, n, l = mnl
    p = data_parallel_params((m, n, 64, l), (64, 64, 64), cluster, max_swizzle=swz, raster=raster)
    rp = p.raster
    seen = set()
    for by in range(p.grid[1]):
        for bx in range(p.grid[0]):
            lin = bx + by * p.grid[0] if rp.along_n else bx * p.grid[1] + by
            t = data_parallel_tile(p, lin, (bx % cluster[0], by % cluster[1]))
            assert 0 <= t.m < rp.blocks_m and 0 <= t.n < rp.blocks_n and 0 <= t.l < l
            assert linear_idx_from_m_and_n(rp, t.m, t.n) == lin % rp.blocks_per_batch
            seen.add((t.m, t.n, t.l))
    assert len(seen) == rp.blocks_per_problem
    real = {(i, j, k) for i in range(-(-m // 64)) for j in range(-(-n // 64)) for k in range(l)}
    assert real <= seen
