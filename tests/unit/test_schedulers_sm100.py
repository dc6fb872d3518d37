"""SM100 stream-K scheduler: grid, CLC-position -> unit mapping, coverage, split-K, forced DP."""

import numpy as np
import pytest

from tileorch.schedulers import streamk_params, work_sequence
from tileorch.schedulers.enums import DecompositionMode
from tileorch.schedulers.sm100_streamk import (block_linear_idx, block_work, sm100_streamk_params,
                                               sm100_work_sequence, sm100_workspace_sizes)

TILE = (128, 128, 64)


def test_grid_uses_sm_count_without_gpc_model():
    # 3456^2, cluster 2x2: blocks 28x28 = 784.  SM90 sizes the wave by GPC occupancy (116 CTAs);
    # SM100 bypasses it: 132 CTAs.  Forced stream-K: sk = 784 - 4*132 = 256 tiles, 132 units,
    # units_per_problem 528 + 132 = 660 -> grid (132 / 2, 2, cdiv(660, 132) = 5).
    p = sm100_streamk_params((3456, 3456, 8192, 1), TILE, (2, 2), 132, decomposition="stream_k")
    assert (p.sk.sk_units, p.sk.units_per_problem, p.grid) == (132, 660, (66, 2, 5))
    assert streamk_params((3456, 3456, 8192, 1), TILE, (2, 2), 132, decomposition="stream_k").grid == (2, 58, 1)


def test_positions_map_to_sm90_units():
    # 8x20 tiles, kt 32, cluster 1x1: grid (132, 1, 1); along M, minor = cluster N = 1, so
    # to_linear_idx(bx, 0, 0) = 1*bx + 0 = bx: position 4 runs stream-K unit 4.
    p = sm100_streamk_params((8 * 128, 20 * 128, 32 * 64, 1), TILE, (1, 1), 132)
    assert p.grid == (132, 1, 1) and block_linear_idx(p, 4, 0, 0) == 4
    assert block_work(p, 4, 0, 0) == work_sequence(p.sk)[4]


@pytest.mark.parametrize("cluster", [(1, 1), (2, 1), (1, 2), (2, 2)])
@pytest.mark.parametrize("decomposition,splits", [("stream_k", 1), ("split_k", 3), ("data_parallel", 1)])
def test_every_k_tile_once(cluster, decomposition, splits):
    p = sm100_streamk_params((1500, 1700, 64 * 37, 2), TILE, cluster, 20, decomposition=decomposition,
                             splits=splits)
    rp, kt = p.sk.raster, p.sk.k_tiles_per_output_tile
    count = np.zeros((2, rp.blocks_m, rp.blocks_n, kt), int)
    for items in sm100_work_sequence(p):
        for w in items:
            count[w.l, w.m, w.n, w.k_tile_start:w.k_tile_start + w.k_tile_count] += 1
    real = count[:, :p.problem_blocks[0], :p.problem_blocks[1]]
    assert (real == 1).all()


def test_split_k_positions():
    # 2x2 tiles, kt 16, splits 3: grid (2, 2, 1*3); z = split; split 1: K_idx = 5 + min(1, 1) = 6, 5 tiles
    p = sm100_streamk_params((256, 256, 1024, 1), TILE, (1, 1), 132, splits=3)
    assert p.grid == (2, 2, 3)
    assert [w.row() for w in block_work(p, 1, 0, 1)] == [[1, 0, 0, 6, 5, 5, 0]]


def test_n192_tiles_are_forced_data_parallel():
    p = sm100_streamk_params((3456, 3456, 8192, 1), (128, 192, 64), (1, 1), 132, decomposition="stream_k")
    assert p.sk.decomposition is DecompositionMode.DATA_PARALLEL and p.grid == (27, 18, 1)
    assert sm100_workspace_sizes((3456, 3456, 8192, 1), (128, 192, 64), (1, 1), 132,
                                 decomposition="stream_k").total == 0
