"""Stream-K / split-K fix-up protocol executed on the CPU against an unsplit GEMM."""

import numpy as np
import pytest

from tileorch.schedulers import streamk_params, workspace_sizes
from tileorch.schedulers.fixup import gmma_fragment_coords, simulate_fixup

TILE = (128, 64, 32)


def gemm_inputs(m, n, k, seed, integer=False):
    rng = np.random.default_rng(seed)
    if integer:  # small integers: every partial sum is exact in float32
        return (rng.integers(-3, 4, (1, m, k)).astype(np.float32), rng.integers(-3, 4, (1, k, n)).astype(np.float32))
    return rng.standard_normal((1, m, k)).astype(np.float32), rng.standard_normal((1, k, n)).astype(np.float32)


CASES = [  # (problem, sms, decomposition, splits): stream-K with fix-ups, split-K with 3 and 5 splits
    ((500, 300, 32 * 23, 1), 6, "stream_k", 1),
    ((700, 200, 32 * 40, 1), 9, "stream_k", 1),
    ((300, 190, 32 * 17, 1), 132, "split_k", 3),
    ((256, 128, 32 * 20, 1), 4, "heuristic", 5),
]


def test_gmma_fragment_layout_is_a_partition():
    rows, cols = gmma_fragment_coords(128, 64, 2)
    assert rows.shape == (2, 128, 32)
    flat = rows * 64 + cols
    assert sorted(flat.ravel().tolist()) == list(range(128 * 64))
    # thread 5 (warp 0, lane 5): value 0 at row 5//4 = 1, col 2*(5%4) = 2; value 2 (v1=1) 8 rows down
    assert (rows[0, 5, 0], cols[0, 5, 0], rows[0, 5, 2], cols[0, 5, 4]) == (1, 2, 9, 10)
    with pytest.raises(ValueError):
        gmma_fragment_coords(64, 64, 2)


@pytest.mark.parametrize("problem,sms,decomposition,splits", CASES)
@pytest.mark.parametrize("reduction", ["deterministic", "nondeterministic"])
def test_fixup_reproduces_unsplit_gemm(problem, sms, decomposition, splits, reduction):
    p = streamk_params(problem, TILE, (1, 1), sms, splits=splits, decomposition=decomposition, reduction=reduction)
    assert p.sk_units > 0 or p.splits > 1
    m, n, k, _ = problem
    a, b = gemm_inputs(m, n, k, seed=sum(problem))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    run = simulate_fixup(p, TILE, a, b, mma_warp_groups=2, seed=7)
    # float32 accumulation of k products of unit normals: error ~ sqrt(k) * eps * |terms|
    np.testing.assert_allclose(run.output, ref, rtol=0, atol=np.sqrt(k) * 4e-6 * 8)
    assert any(s[2] == "load_add" for s in run.steps) and any(s[2] == "store" for s in run.steps)
    ws = workspace_sizes(problem, TILE, (1, 1), sms, splits=splits, decomposition=decomposition, mma_warp_groups=2)
    assert len(run.workspace) <= ws.total
    # every lock ends at the K_idx its final split waited for (the K tiles folded before it)
    finals = {(s[0], s[1], s[3]) for s in run.steps if s[2] == "load_add"}
    assert len(finals) == len({(w, t) for _c, w, t in finals})
    assert np.count_nonzero(run.locks) == len(finals)


@pytest.mark.parametrize("problem,sms,decomposition,splits", CASES[:3])
def test_integer_data_is_exact_and_deterministic_mode_is_order_independent(problem, sms, decomposition, splits):
    m, n, k, _ = problem
    a, b = gemm_inputs(m, n, k, seed=1, integer=True)
    p = streamk_params(problem, TILE, (1, 1), sms, splits=splits, decomposition=decomposition)
    exact = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float32)
    first = simulate_fixup(p, TILE, a, b, seed=0)
    np.testing.assert_array_equal(first.output, exact)
    fa, fb = gemm_inputs(m, n, k, seed=2)
    outs = [simulate_fixup(p, TILE, fa, fb, seed=s).output for s in range(3)]
    assert all(np.array_equal(outs[0], o) for o in outs[1:])


def test_deterministic_order_is_increasing_k():
    p = streamk_params(*CASES[2][:1], TILE, (1, 1), 132, splits=3, decomposition="split_k")
    m, n, k, _ = CASES[2][0]
    a, b = gemm_inputs(m, n, k, seed=3)
    run = simulate_fixup(p, TILE, a, b, seed=11)
    # per tile: store (split 0), reduce (split 1), load_add (split 2) in exactly this order
    per_tile = {}
    for _cta, _wg, action, tile in run.steps:
        if action in ("store", "reduce", "load_add"):
            per_tile.setdefault(tile, []).append(action)
    assert set(map(tuple, per_tile.values())) == {("store", "reduce", "load_add")}
    assert run.locks.tolist()[:len(per_tile)] == [6 + 6] * len(per_tile)  # kt 17: splits of 6, 6, 5 -> final K_idx 12
