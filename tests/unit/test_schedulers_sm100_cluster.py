"""Cluster-coordinated SM100 Stream-K (schedulers/sm100_cluster_streamk.py) against a brute-force
model: every (l, m, n, k) tile is computed by exactly one CTA, each output tile is reduced and
written exactly once, by the leader of the split that ends its K range, and every CTA of a
cluster passes the same number of cluster barriers."""

from collections import Counter, defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tileorch.schedulers.sm100_cluster_streamk import (
    cluster_positions, cluster_streamk_params, cluster_workspace_sizes, cta_work, rank_share)
from tileorch.schedulers.sm100_streamk import sm100_streamk_params

CLUSTERS = [(1, 2), (2, 1), (2, 2), (4, 1), (1, 4), (4, 2), (2, 4), (4, 4)]


def _params(draw_args):
    problem, tile, cluster, sms, decomposition, splits = draw_args
    try:
        return cluster_streamk_params(problem, tile, cluster, sms, decomposition=decomposition, splits=splits)
    except ValueError:
        assume(False)


configs = st.tuples(
    st.tuples(st.integers(1, 1100), st.integers(1, 1100), st.integers(1, 64 * 40), st.integers(1, 2)),
    st.sampled_from([(128, 128, 64), (64, 128, 64), (128, 64, 32)]),
    st.sampled_from(CLUSTERS),
    st.integers(2, 148),
    st.sampled_from(["heuristic", "stream_k", "split_k", "data_parallel"]),
    st.integers(1, 4),
)


def simulate(p):
    """Brute force: each CTA's K tiles as sets; in-cluster reduction (leader unions the ranks'
    partials, which must be disjoint); across clusters the pieces of a tile meet in a
    workspace slot, the final split's leader adds it and writes the tile."""
    kt = p.unit.sk.k_tiles_per_output_tile
    computed = Counter()
    workspace = defaultdict(frozenset)
    epilogues = defaultdict(list)
    barriers = {}
    for pos in cluster_positions(p):
        per_rank = [cta_work(p, *pos, r) for r in range(p.size)]
        barriers[pos] = {2 * len(items) for items in per_rank}  # two cluster barriers per piece
        for i, piece_views in enumerate(zip(*per_rank)):
            piece = piece_views[0].piece
            assert all(v.piece == piece for v in piece_views), "the work tile is cluster-uniform"
            acc = frozenset()
            for v in piece_views:
                mine = frozenset((piece.l, piece.m, piece.n, k)
                                 for k in range(v.k_tile_start, v.k_tile_start + v.k_tile_count))
                for t in mine:
                    computed[t] += 1
                assert not (acc & mine)
                acc |= mine
            key = (piece.l, piece.m, piece.n)
            final = piece.k_tile_start + piece.k_tile_count == kt
            if not final:
                assert not (workspace[key] & acc)
                workspace[key] |= acc
            for v in piece_views:
                if v.epilogue:
                    epilogues[key].append((v.rank, final, acc | workspace[key] if final else acc))
    return kt, computed, epilogues, barriers


def check(p, problem):
    kt, computed, epilogues, barriers = simulate(p)
    pb = p.unit.problem_blocks
    real = {(l, m, n, k) for l in range(problem[3]) for m in range(pb[0]) for n in range(pb[1]) for k in range(kt)}
    assert all(computed[t] == 1 for t in real), "every (l, m, n, k) tile exactly once"
    assert all(c == 1 for c in computed.values())
    for l in range(problem[3]):
        for m in range(pb[0]):
            for n in range(pb[1]):
                runs = epilogues[(l, m, n)]
                assert len(runs) == 1, f"tile {(l, m, n)} reduced {len(runs)} times"
                rank, final, acc = runs[0]
                assert rank == 0 and final
                assert acc == frozenset((l, m, n, k) for k in range(kt))
    assert all(len(counts) == 1 for counts in barriers.values()), "cluster-uniform barrier count"
    gx, gy, gz = p.grid
    assert gx % p.cluster[0] == 0 and gy % p.cluster[1] == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(configs)
def test_cluster_decomposition_matches_brute_force(args):
    p = _params(args)
    check(p, args[0][:3] + (args[0][3],))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 500), st.integers(0, 200), st.integers(1, 16))
def test_rank_shares_partition_the_piece(start, count, size):
    shares = [rank_share(start, count, r, size) for r in range(size)]
    expected = np.array_split(np.arange(start, start + count), size)
    assert [list(range(s, s + c)) for s, c in shares] == [list(e) for e in expected]


def test_small_piece_leaves_ranks_idle():
    # 3 K tiles over a 4-CTA cluster: ranks 0..2 one tile each, rank 3 none
    assert [rank_share(5, 3, r, 4) for r in range(4)] == [(5, 1), (6, 1), (7, 1), (8, 0)]


@pytest.mark.parametrize("cluster", [(2, 1), (2, 2)])
def test_clusters_are_the_stream_k_workers(cluster):
    # 8x20 tiles of 128x128, kt 32 on 132 SMs: the one-CTA-cluster decomposition of 132 // size
    # workers, each a whole cluster; the CTA grid is the cluster grid times the cluster shape
    problem, tile = (8 * 128, 20 * 128, 32 * 64, 1), (128, 128, 64)
    p = cluster_streamk_params(problem, tile, cluster, 132, decomposition="stream_k")
    ref = sm100_streamk_params(problem, tile, (1, 1), 132 // (cluster[0] * cluster[1]), decomposition="stream_k")
    assert p.unit == ref
    gx, gy, gz = ref.grid
    assert p.grid == (gx * cluster[0], gy * cluster[1], gz)
    ws = cluster_workspace_sizes(problem, tile, cluster, 132, decomposition="stream_k")
    assert ws.barrier > 0 and ws.reduction > 0  # cross-cluster splits still use the workspace


def test_cluster_size_limit():
    with pytest.raises(ValueError, match="1 to 16 CTAs"):
        cluster_streamk_params((512, 512, 512, 1), (128, 128, 64), (4, 8), 132)
