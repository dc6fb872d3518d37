"""Review 30: loops with carried tiles and reductions a ported model writes -- an online argmax over the column
tiles of long rows (value and index carried), a prefix sum carried across tiles, a while loop whose trip count
depends on the data (Newton's square root until every lane converged, and a walk along a linked list), every
reduction kind along axis 0 and axis 1 with ``keepdims`` on a ragged 7 x 13 array under a mask, and small / odd
sizes (one row, one column, 257 columns in tiles of 256).  SIMT-path programs on the PTX emulator through the
launcher's argument description (``test_review30_blocks.run``), outputs NaN / sentinel-prefilled.  Needs cuda-tile
and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from test_review30_blocks import NEG_INF, RNG, ZERO, C, close, nans, randn, run, sent  # noqa: E402


# ----------------------------------------------------------------------------------------------- carried tiles

@ct.kernel
def online_argmax(X, V, I, BM: C[int], BN: C[int]):
    """Per row: the maximum and its first column, over column tiles (value and index tiles carried)."""
    i = ct.bid(0)
    best = ct.full((BM, 1), -float("inf"), dtype=ct.float32)
    where = ct.zeros((BM, 1), dtype=ct.int32)
    for j in range(ct.num_tiles(X, axis=1, shape=(BM, BN))):
        x = ct.load(X, index=(i, j), shape=(BM, BN), padding_mode=NEG_INF)
        m = ct.max(x, axis=1, keepdims=True)
        a = ct.argmax(x, axis=1, keepdims=True).astype(ct.int32) + j * BN
        better = m > best
        where = ct.where(better, a, where)
        best = ct.where(better, m, best)
    ct.store(V, index=(i, 0), tile=best)
    ct.store(I, index=(i, 0), tile=where)


def test_online_argmax_over_column_tiles():
    m, n = 10, 300
    x = randn(m, n)
    x[3, 100] = x[3, 250] = 9.0  # a tie across tiles: the first wins
    v, idx = nans((m, 1)), sent((m, 1))
    run(online_argmax, [x, v, idx, 4, 64], (3,))
    np.testing.assert_array_equal(idx[:, 0], x.argmax(1))
    np.testing.assert_array_equal(v[:, 0], x.max(1))


@ct.kernel
def carried_prefix_sum(X, Y, BN: C[int]):
    """One long row per program: cumsum in tiles, the running total carried."""
    i = ct.bid(0)
    total = ct.zeros((1, 1), dtype=ct.float32)
    for j in range(ct.num_tiles(X, axis=1, shape=(1, BN))):
        x = ct.load(X, index=(i, j), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
        c = ct.cumsum(x, axis=1) + total
        ct.store(Y, index=(i, j), tile=c)
        total = ct.extract(c, index=(0, BN - 1), shape=(1, 1))


def test_a_prefix_sum_carried_across_tiles():
    x = RNG.integers(-8, 8, (3, 203)).astype(np.float16)
    y = nans((3, 203))
    run(carried_prefix_sum, [x, y, 64], (3,))
    close(y, np.cumsum(x.astype(np.float64), 1), 0, 0)


@ct.kernel
def newton_sqrt_until_converged(X, Y, It, BN: C[int]):
    """y = sqrt(x) by Newton's iteration until every lane moved less than 1e-6 relative (at most 50 steps);
    the trip count stored."""
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(BN,), padding_mode=ZERO) + 1.0
    y = x
    delta = 1.0
    n = 0
    while delta > 1e-6 and n < 50:
        nxt = 0.5 * (y + x / y)
        delta = ct.max(ct.abs(nxt - y) / nxt)
        y = nxt
        n += 1
    ct.store(Y, index=(b,), tile=y)
    ct.store(It, index=(b,), tile=ct.full((1,), n, dtype=ct.int32))


def test_a_while_loop_whose_trip_count_depends_on_the_data():
    x = np.concatenate([np.full(16, 3.0), np.full(16, 1e6)]).astype(np.float32)
    y, it = nans(32), sent(2)
    run(newton_sqrt_until_converged, [x, y, it, 16], (2,))
    close(y, np.sqrt(x.astype(np.float64) + 1), 2e-7)
    want = []
    for part in (x[:16], x[16:]):  # the same iteration in f32 on the host
        xx = part.astype(np.float32) + np.float32(1)
        yy, d, n = xx.copy(), 1.0, 0
        while d > 1e-6 and n < 50:
            nxt = np.float32(0.5) * (yy + xx / yy)
            d, yy, n = float(np.max(np.abs(nxt - yy) / nxt)), nxt, n + 1
        want.append(n)
    assert it.tolist() == want and want[0] < want[1], (it, want)


@ct.kernel
def list_walk(Next, Val, Out, start: int):
    """Sum the values along a linked list from ``start`` until the index -1."""
    node = start
    acc = ct.zeros((1,), dtype=ct.float32)
    while node >= 0:
        acc = acc + ct.load(Val, index=(node,), shape=(1,))
        node = ct.load(Next, index=(node,), shape=(1,)).item()
    ct.store(Out, index=(0,), tile=acc)


def test_a_while_loop_walking_a_linked_list():
    nxt = np.array([3, -1, 1, 5, 0, 2], np.int32)
    val = np.arange(1, 7, dtype=np.float32) * 1.5
    out = nans(1)
    run(list_walk, [nxt, val, out, 4], (1,))
    node, want = 4, 0.0
    while node >= 0:
        want, node = want + val[node], nxt[node]
    close(out, [want], 0, 0)


# ----------------------------------------------------------------------------------------------- reductions

@ct.kernel
def masked_reductions(X, S0, S1, Mx0, Mn1, P1, A0, A1, BM: C[int], BN: C[int]):
    """Sum / max / min / prod / argmax / argmin over both axes, keepdims, of the values above a threshold (the
    others and the ragged padding masked with each kind's identity)."""
    x = ct.load(X, index=(0, 0), shape=(BM, BN), padding_mode=ZERO)
    r = ct.arange(BM, dtype=ct.int32)[:, None]
    c = ct.arange(BN, dtype=ct.int32)[None, :]
    ok = (r < X.shape[0]) & (c < X.shape[1]) & (x > -1.0)
    ct.store(S0, index=(0, 0), tile=ct.sum(ct.where(ok, x, 0.0), axis=0, keepdims=True))
    ct.store(S1, index=(0, 0), tile=ct.sum(ct.where(ok, x, 0.0), axis=1, keepdims=True))
    ct.store(Mx0, index=(0, 0), tile=ct.max(ct.where(ok, x, -float("inf")), axis=0, keepdims=True))
    ct.store(Mn1, index=(0, 0), tile=ct.min(ct.where(ok, x, float("inf")), axis=1, keepdims=True))
    ct.store(P1, index=(0, 0), tile=ct.prod(ct.where(ok, x, 1.0), axis=1, keepdims=True))
    ct.store(A0, index=(0, 0), tile=ct.argmax(ct.where(ok, x, -float("inf")), axis=0, keepdims=True).astype(ct.int32))
    ct.store(A1, index=(0, 0), tile=ct.argmin(ct.where(ok, x, float("inf")), axis=1, keepdims=True).astype(ct.int32))


def test_every_reduction_on_both_axes_of_a_ragged_masked_7x13():
    x = RNG.uniform(-2, 2, (7, 13)).astype(np.float32)
    x[:, 5] = -3  # a column masked entirely: max -inf, argmax 0
    out = [nans((1, 13)), nans((7, 1)), nans((1, 13)), nans((7, 1)), nans((7, 1)), sent((1, 13)), sent((7, 1))]
    run(masked_reductions, [x, *out, 8, 16], (1,))
    ok = x > -1
    x64 = x.astype(np.float64)
    close(out[0], np.where(ok, x64, 0).sum(0, keepdims=True), 1e-6)
    close(out[1], np.where(ok, x64, 0).sum(1, keepdims=True), 1e-6)
    close(out[2], np.where(ok, x64, -np.inf).max(0, keepdims=True), 0, 0)
    close(out[3], np.where(ok, x64, np.inf).min(1, keepdims=True), 0, 0)
    close(out[4], np.where(ok, x64, 1).prod(1, keepdims=True), 1e-5)
    np.testing.assert_array_equal(out[5], np.where(ok, x, -np.inf).argmax(0)[None, :])
    np.testing.assert_array_equal(out[6], np.where(ok, x, np.inf).argmin(1)[:, None])


@ct.kernel
def int_reductions_axis0(X, S, Mx, BM: C[int], BN: C[int]):
    """int8 columns summed in int32 and their maximum, over row tiles (a 3-row tail: the padded rows masked)."""
    j = ct.bid(0)
    s = ct.zeros((1, BN), dtype=ct.int32)
    m = ct.full((1, BN), -128, dtype=ct.int8)
    for i in range(ct.num_tiles(X, axis=0, shape=(BM, BN))):
        x = ct.load(X, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
        s = s + ct.sum(x.astype(ct.int32), axis=0, keepdims=True)
        real = (i * BM + ct.arange(BM, dtype=ct.int32) < X.shape[0])[:, None]
        m = ct.maximum(m, ct.max(ct.where(real, x, ct.full((BM, BN), -128, dtype=ct.int8)), axis=0, keepdims=True))
    ct.store(S, index=(0, j), tile=s)
    ct.store(Mx, index=(0, j), tile=m)


def test_int8_column_sums_and_maxima():
    x = RNG.integers(-128, 0, (35, 20)).astype(np.int8)  # every value negative: a padded 0 would win the max
    s, mx = sent((1, 20)), sent((1, 20), np.int8)
    run(int_reductions_axis0, [x, s, mx, 16, 8], (3,))
    np.testing.assert_array_equal(s[0], x.astype(np.int32).sum(0))
    np.testing.assert_array_equal(mx[0], x.max(0))


# ----------------------------------------------------------------------------------------------- small and odd sizes

@ct.kernel
def scale_rows_by_norm(X, Y, BM: C[int], BN: C[int]):
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(i, j), tile=x / (1.0 + ct.sqrt(ct.sum(x * x, axis=1, keepdims=True))))


@pytest.mark.parametrize("shape,tile,grid", [((1, 9), (1, 16), (1, 1)), ((9, 1), (16, 1), (1, 1)),
                                             ((1, 1), (1, 1), (1, 1)), ((7, 13), (8, 16), (1, 1))])
def test_one_row_one_column_and_7x13(shape, tile, grid):
    x = randn(*shape)
    y = nans(shape)
    run(scale_rows_by_norm, [x, y, *tile], grid, name=f"rv30_scale_rows_{tile[0]}x{tile[1]}")
    x64 = x.astype(np.float64)
    close(y, x64 / (1 + np.sqrt((x64 * x64).sum(1, keepdims=True))), 2e-6)


@ct.kernel
def row_max_257(X, Y, BN: C[int]):
    """Each row's maximum in tiles of BN (257 columns: one whole tile and a tile of 1)."""
    i = ct.bid(0)
    m = ct.full((1,), -float("inf"), dtype=ct.float32)
    for j in range(ct.num_tiles(X, axis=1, shape=(1, BN))):
        x = ct.load(X, index=(i, j), shape=(1, BN), padding_mode=NEG_INF)
        m = ct.maximum(m, ct.max(ct.reshape(x, (BN,)), axis=0, keepdims=True))
    ct.store(Y, index=(i,), tile=m)


def test_257_columns_in_tiles_of_256():
    x = randn(3, 257)
    x[1, 256] = 50.0  # the lone last column holds the maximum
    y = nans(3)
    run(row_max_257, [x, y, 256], (3,))
    close(y, x.max(1), 0, 0)
