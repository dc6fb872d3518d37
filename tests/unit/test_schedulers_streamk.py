"""SM90 stream-K scheduler: params heuristic, per-CTA work, workspace sizes.

Worked examples are derived by hand from CUTLASS 4.x's formulas (tile_scheduler_params.h,
sm90_tile_scheduler_stream_k.hpp); the derivations are in the comments.  The property tests use
an independent oracle: a scalar re-run of CUTLASS's kernel loop through ``get_work`` /
``continue_work`` one CTA at a time.
"""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tileorch.schedulers import (continue_work, get_work, schedule_arrays, streamk_params, work_sequence,
                                 workspace_sizes)
from tileorch.schedulers.enums import DecompositionMode
from tileorch.schedulers.workspace import params_workspace_sizes, sufficient_workspace_sizes

TILE = (128, 128, 64)


def rows(seq):
    return [w.row() for w in seq]


def kernel_loop(p):
    """CUTLASS's loop: get_current_work, continue_current_work until done, then advance by grid size."""
    grid = p.grid[0] * p.grid[1] * p.grid[2]
    out = []
    for by in range(p.grid[1]):
        for bx in range(p.grid[0]):
            lin = bx + by * p.grid[0] if p.raster.along_n else bx * p.grid[1] + by
            items = []
            work, start = get_work(p, lin)
            while work.is_valid:
                items.append(work)
                nxt = continue_work(p, work, start)
                if nxt is None:
                    lin += grid
                    work, start = get_work(p, lin)
                else:
                    work = nxt
            out.append(items)
    return out


def test_streamk_8x20_tiles_kt32():
    # blocks 8x20 (along M: 20 > 8), grid (132, 1, 1).  output 160, full_waves 1, total 2,
    # dp_waves 0 -> sk 160; tail 28, 2*28 < 132 -> sk_tiles 160.  sk_units = min(132, 32*160//8) = 132.
    # groups (along M, max 8): 8, 7 fail 132 % g; 6 divides 132 but not 160 -> fallback;
    # 5 fails; 4: 132 % 4 == 160 % 4 == 0 and (40*32)//33 = 38 >= 8 -> 4 groups of 33 units.
    # k_tiles_per_group = 32*40 = 1280, per unit 1280 // 33 = 38, big_units = (1280 % 132) // 1 = 92.
    p = streamk_params((8 * 128, 20 * 128, 32 * 64, 1), TILE, (1, 1), 132)
    assert p.decomposition is DecompositionMode.STREAM_K
    assert p.as_json_dict() == {
        "units_per_problem": 132, "log_swizzle": 0, "raster_along_n": False, "splits": 1, "big_units": 92,
        "big_groups": 0, "sk_tiles": 160, "sk_units": 132, "k_tiles_per_sk_unit": 38,
        "k_tiles_per_sk_big_unit": 39, "sk_groups": 4, "separate_reduction_units": 0,
        "k_tiles_per_output_tile": 32}
    assert p.grid == (132, 1, 1)
    seq = work_sequence(p)
    # unit 0: group 0, c 0; 40 tiles*32 = 1280 iters over 33 units: 38 each, 26 big.  start 0,
    # 39 iters; end 39 % 32 = 7 < 8 -> 32 iters: tile 0 = (0, 0), K [0, 32).
    assert rows(seq[0]) == [[0, 0, 0, 0, 32, 32, 0]]
    # unit 4: group 0, c 1: start 38+1 = 39, s = 7 < 8 -> start 32, 46 iters; end 78 % 32 = 14 stays.
    # backwards: end 77 -> group tile 2 -> tile 2*4+0 = 8 = (m 0, n 1) K [0, 14); then tile 4 = (4, 0).
    assert rows(seq[4]) == [[0, 1, 0, 0, 14, 46, 0], [4, 0, 0, 0, 32, 32, 0]]
    # unit 8: group 0, c 2: start 2*38+2 = 78 (s = 14 kept), 39 iters, end 117 % 32 = 21 kept.
    # last piece: group tile 3 -> tile 12 = (4, 1) K [0, 21); then group tile 2 -> tile 8 K [14, 32).
    assert rows(seq[8]) == [[4, 1, 0, 0, 21, 39, 0], [0, 1, 0, 14, 18, 18, 0]]


def test_streamk_12x25_two_waves():
    # 300 tiles, full_waves 2 -> dp_waves 1, sk_tiles = 300 - 132 = 168, dp 132; tail 36 < 66.
    # sk_units = 132.  Groups (along M, max 8): 8 no (132 % 8), 7 no, 6: 132 % 6 == 0 == 168 % 6 -> 6.
    p = streamk_params((12 * 128, 25 * 128, 64 * 64, 1), TILE, (1, 1), 132)
    assert (p.sk_tiles, p.sk_units, p.units_per_problem, p.sk_groups) == (168, 132, 264, 6)
    # DP unit 132 (CTA 0's second unit) -> tile 132 - 132 + 168 = 168: along M, blk_major 12,
    # extra 168 -> band 14, m 0 -> (0, 14), full K.
    assert rows(work_sequence(p)[0])[-1] == [0, 14, 0, 0, 64, 64, 0]


def test_heuristic_prefers_split_k_for_one_tile():
    # 1 tile, kt 32: sk_tiles 1, sk_units = min(132, 32//8) = 4, 4 % 1 == 0 -> split-K with 4 splits
    p = streamk_params((128, 128, 32 * 64, 1), TILE, (1, 1), 132)
    assert (p.decomposition, p.splits, p.k_tiles_per_sk_unit, p.big_units, p.units_per_problem) == (
        DecompositionMode.SPLIT_K, 4, 8, 0, 1)
    seq = work_sequence(p)
    assert [rows(s) for s in seq[:5]] == [[[0, 0, 0, 8 * i, 8, 8, 0]] for i in range(4)] + [[]]
    # workspace: split-K "selected" -> all 1 tile: reduction 128*128*4 B, barrier 4 B -> 128 B
    assert workspace_sizes((128, 128, 32 * 64, 1), TILE, (1, 1), 132).total == 65536 + 128


def test_split_k_three_splits():
    # 2x2 tiles, kt 16, splits 3: big_units 16 % 3 = 1, 5 per split (6 for split 0).  Units are
    # split-major: lin = split*4 + tile.  Along N (tie), tile 1 -> (0, 1), tile 2 -> (1, 0).
    p = streamk_params((256, 256, 1024, 1), TILE, (1, 1), 132, splits=3)
    assert (p.splits, p.big_units, p.k_tiles_per_sk_unit, p.units_per_problem) == (3, 1, 5, 4)
    seq = work_sequence(p)
    assert rows(seq[0]) == [[0, 0, 0, 0, 6, 6, 0]]
    assert rows(seq[4]) == [[0, 0, 0, 6, 5, 5, 0]]
    assert rows(seq[8]) == [[0, 0, 0, 11, 5, 5, 0]]
    assert rows(seq[1]) == [[0, 1, 0, 0, 6, 6, 0]] and rows(seq[2]) == [[1, 0, 0, 0, 6, 6, 0]]
    assert all(s == [] for s in seq[12:])
    # split-K required: every output tile: barrier R(4*32 bits) = 128, reduction 4*128*128*4 = 262144
    ws = workspace_sizes((256, 256, 1024, 1), TILE, (1, 1), 132, splits=3)
    assert (ws.reduction, ws.barrier) == (262144, 128)
    ws2 = workspace_sizes((256, 256, 1024, 1), TILE, (1, 1), 132, splits=3, mma_warp_groups=2, accumulator_bits=16)
    assert (ws2.reduction, ws2.barrier) == (131072, 128)


def test_split_count_adjusted_and_refused():
    # splits 40 > kt 16 -> 16; splits capped by SM count 8
    assert streamk_params((256, 256, 1024, 1), TILE, (1, 1), 132, splits=40).splits == 16
    assert streamk_params((256, 256, 1024, 1), TILE, (1, 1), 8, splits=12).splits == 8
    with pytest.raises(ValueError):
        streamk_params((256, 256, 1024, 1), TILE, (1, 1), 132, splits=2, decomposition="stream_k")


def test_heuristic_data_parallel_when_tail_half_full():
    # 3456^2: 27x27 = 729 tiles, 5 full waves + 69 (2*69 >= 132) -> data-parallel, no workspace
    prob = (3456, 3456, 8192, 1)
    p = streamk_params(prob, TILE, (1, 1), 132)
    assert p.decomposition is DecompositionMode.DATA_PARALLEL and p.units_per_problem == 729
    assert workspace_sizes(prob, TILE, (1, 1), 132).total == 0
    # forced stream-K: dp_waves 4 -> sk_tiles 729 - 528 = 201, sk_units 132; along N, max groups
    # 27 -> 8: 132 % 8, 132 % 7 fail; 6: 201 % 6 != 0 -> fallback 6; 5 fails; 4: 201 % 4 fails;
    # 3: 132 % 3 == 201 % 3 == 0 and (67*128)//44 = 194 >= 8 -> 3 groups of 44.
    # k_tiles_per_group 67*128 = 8576, per unit 8576 // 44 = 194; big = (8576 % 132) // 1 = 128.
    sk = streamk_params(prob, TILE, (1, 1), 132, decomposition="stream_k")
    assert (sk.sk_tiles, sk.sk_units, sk.sk_groups, sk.k_tiles_per_sk_unit, sk.big_units,
            sk.units_per_problem) == (201, 132, 3, 194, 128, 660)
    # workspace: 201 tiles * 64 KiB; barrier 201*4 = 804 -> 896
    ws = workspace_sizes(prob, TILE, (1, 1), 132, decomposition="stream_k")
    assert (ws.reduction, ws.barrier) == (201 * 65536, 896)


def test_cluster_2x1_streamk():
    # 3456 with cluster 2x1: blocks 28x27, along N (27 < 28).  cs = 2, occupancy 132 -> grid (2, 66).
    # 756 tiles, 5 full waves, tail 96 >= 66 -> heuristic DP; forced stream-K: sk = 756 - 4*132 = 228.
    # sk_units = min(132, 228*128//8 //2*2) = 132; cluster units 66; sk cluster tiles 114;
    # along N max groups 27 -> 8: 66 % 8 no; 7 no; 6: 66 % 6 == 0, 114 % 6 == 0 -> 6 groups, 22 units each.
    p = streamk_params((3456, 3456, 8192, 1), TILE, (2, 1), 132, decomposition="stream_k")
    assert p.grid == (2, 66, 1)
    assert (p.sk_tiles, p.sk_units, p.sk_groups, p.units_per_problem) == (228, 132, 6, 528 + 132)
    seq = work_sequence(p)
    # the two CTAs of a cluster get the same K ranges of vertically adjacent tiles (m differs by 1)
    a, b = rows(seq[0]), rows(seq[1])
    assert [r[2:] for r in a] == [r[2:] for r in b]
    assert all(x[0] + 1 == y[0] and x[1] == y[1] for x, y in zip(a, b))


def check_coverage(p, seq):
    """Every (tile, k) of the padded problem exactly once; split tiles' pieces tile [0, kt)."""
    rp, kt = p.raster, p.k_tiles_per_output_tile
    count = np.zeros((rp.blocks_l, rp.blocks_m, rp.blocks_n, kt), np.int64)
    for items in seq:
        for w in items:
            assert 0 <= w.m < rp.blocks_m and 0 <= w.n < rp.blocks_n and 0 <= w.l < rp.blocks_l
            assert w.k_tile_count >= 1 and w.k_tile_start + w.k_tile_count <= kt
            count[w.l, w.m, w.n, w.k_tile_start:w.k_tile_start + w.k_tile_count] += 1
    assert (count == 1).all()


problems = st.tuples(st.integers(1, 2000), st.integers(1, 2000), st.integers(1, 12000), st.integers(1, 2))
options = st.fixed_dictionaries({
    "cluster": st.sampled_from([(1, 1), (2, 1), (1, 2), (2, 2)]),
    "sms": st.sampled_from([4, 7, 16, 20, 33, 66, 114, 132]),
    "max_swizzle": st.sampled_from([1, 2, 4, 8]),
    "raster": st.sampled_from(["heuristic", "along_m", "along_n"]),
    "decomposition": st.sampled_from(["heuristic", "data_parallel", "split_k", "stream_k"]),
    "splits": st.integers(1, 6),
    "tile": st.sampled_from([(128, 128, 64), (64, 128, 32), (128, 256, 64)]),
})


def build(prob, o):
    splits = o["splits"] if o["decomposition"] in ("heuristic", "split_k") else 1
    return streamk_params(prob, o["tile"], o["cluster"], o["sms"], splits=splits, max_swizzle=o["max_swizzle"],
                          raster=o["raster"], decomposition=o["decomposition"]), splits


@settings(max_examples=80, deadline=None)
@given(problems, options)
def test_every_k_tile_covered_once_and_arrays_match_kernel_loop(prob, o):
    try:
        p, _ = build(prob, o)
    except ValueError as exc:  # CUTLASS itself divides by zero in calculate_groups there
        assert "divides by zero" in str(exc)
        return
    seq = work_sequence(p)
    assert seq == kernel_loop(p)
    check_coverage(p, seq)
    # a unit's pieces run backwards over K and add up to the unit's first k_tile_remaining
    for items in seq:
        for a, b in zip(items, items[1:]):
            if a.linearized_id == b.linearized_id:
                assert b.k_tile_remaining == a.k_tile_remaining - a.k_tile_count
                assert (b.l, b.m, b.n) != (a.l, a.m, a.n)


@settings(max_examples=80, deadline=None)
@given(problems, options, st.sampled_from([1, 2]))
@example((257, 1, 513, 1), {"cluster": (1, 2), "sms": 7, "max_swizzle": 4, "raster": "heuristic",
                            "decomposition": "heuristic", "splits": 1, "tile": (128, 128, 64)}, 1)
def test_workspace_zero_exactly_without_reduction(prob, o, wgs):
    try:
        p, splits = build(prob, o)
    except ValueError:
        return
    ws = workspace_sizes(prob, o["tile"], o["cluster"], o["sms"], splits=splits, max_swizzle=o["max_swizzle"],
                         raster=o["raster"], decomposition=o["decomposition"], mma_warp_groups=wgs)
    reduces = p.sk_units > 0 or p.splits > 1
    # CUTLASS's answer (``ws``) may be 0 although the params reduce: it re-derives the decomposition on re-padded
    # blocks (workspace.sufficient_workspace_sizes' docstring; hypothesis found 257x1x513, 1x2 cluster, 7 SMs): the
    # host allocates the larger of it and what the params address, which is 0 exactly without reduction
    alloc = sufficient_workspace_sizes(p, ws, o["tile"], mma_warp_groups=wgs)
    assert (params_workspace_sizes(p, o["tile"], mma_warp_groups=wgs).total == 0) == (not reduces)
    assert (alloc.total == 0) == (not reduces and ws.total == 0)
    s = schedule_arrays(p)
    if ((s.k_tile_count != p.k_tiles_per_output_tile) & (s.k_tile_count > 0)).any():
        assert reduces
    if reduces:
        # the kernel's layout (reduction tiles + their locks) fits in what the host allocates
        bm, bn = o["tile"][:2]
        assert alloc.reduction >= p.reduction_tiles * bm * bn * 4 and alloc.barrier >= p.reduction_tiles * wgs * 4
        assert int(s.tile_idx[s.k_tile_count != p.k_tiles_per_output_tile].max(initial=-1)) < p.reduction_tiles
