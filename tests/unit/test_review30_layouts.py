"""Review 30: array layouts a ported model hands a cuTile kernel -- every row of a strided view (``x[::2]``), a
column slice of a wider matrix written into a column slice of another (the columns beside it must keep their
sentinels), a column-major (Fortran-order) matrix, a (seq, batch, dim) view of a (batch, seq, dim) array (the batch
in the middle), a 1-D array viewed as 2-D by the kernel's reshape, and tile windows at a negative tile index
(a causal depthwise convolution reading the tile before its own).  SIMT-path programs run on the PTX emulator
through the launcher's own argument description (``test_review30_blocks.run``), outputs NaN / sentinel-prefilled.
Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from test_review30_blocks import BF16, NEG_INF, ZERO, C, close, nans, randn, run  # noqa: E402


@ct.kernel
def row_logsumexp(X, Y, BM: C[int], BN: C[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, BN), padding_mode=NEG_INF).astype(ct.float32)
    m = ct.max(x, axis=1, keepdims=True)
    ct.store(Y, index=(i,), tile=ct.reshape(m + ct.log(ct.sum(ct.exp(x - m), axis=1, keepdims=True)), (BM,)))


def _lse(x):
    x = np.asarray(x, np.float64)
    m = x.max(1)
    return m + np.log(np.exp(x - m[:, None]).sum(1))


def test_every_other_row_of_a_matrix():
    base = randn(22, 40, dtype=np.float16)
    y = nans(11)
    run(row_logsumexp, [base[::2], y, 4, 64], (3,))
    close(y, _lse(base[::2]), 1e-5, 1e-5)


def test_a_column_major_matrix():
    x = np.asfortranarray(randn(9, 37))
    y = nans(9)
    run(row_logsumexp, [x, y, 4, 64], (3,), name="rv30_row_logsumexp_f_order")
    close(y, _lse(x), 1e-5, 1e-5)


@ct.kernel
def layernorm_slice(X, W, B, Y, eps: float, BM: C[int], BN: C[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, BN), padding_mode=ZERO).astype(ct.float32)
    n = X.shape[1]
    mean = ct.sum(x, axis=1, keepdims=True) / n
    valid = ct.arange(BN, dtype=ct.int32)[None, :] < n
    d = ct.where(valid, x - mean, 0.0)
    var = ct.sum(d * d, axis=1, keepdims=True) / n
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO)[None, :]
    b = ct.load(B, index=(0,), shape=(BN,), padding_mode=ZERO)[None, :]
    ct.store(Y, index=(i, 0), tile=(d * ct.rsqrt(var + eps) * w + b).astype(Y.dtype))


def test_a_column_slice_into_a_column_slice():
    """LayerNorm of columns 24:64 of a 96-wide matrix into columns 8:48 of a 56-wide output."""
    x = randn(13, 96, dtype=BF16)
    w, b = randn(40), randn(40)
    out = np.full((13, 56), 77.0, BF16)
    run(layernorm_slice, [x[:, 24:64], w, b, out[:, 8:48], 1e-5, 4, 64], (4,))
    xs = x[:, 24:64].astype(np.float64)
    want = (xs - xs.mean(1, keepdims=True)) / np.sqrt(xs.var(1, keepdims=True) + 1e-5) * w + b
    close(out[:, 8:48], want, 2e-2, 2e-2)
    assert (out[:, :8] == 77).all() and (out[:, 48:] == 77).all(), "columns beside the slice written"


@ct.kernel
def mean_over_seq(X, Y, BS: C[int], D: C[int]):
    """X: (seq, batch, dim) with the batch in the middle; y[b] = mean over seq of x[:, b, :]."""
    b = ct.bid(0)
    acc = ct.zeros((1, D), dtype=ct.float32)
    for s in range(ct.cdiv(X.shape[0], BS)):
        t = ct.load(X, index=(s, b, 0), shape=(BS, 1, D), padding_mode=ZERO).astype(ct.float32)
        acc = acc + ct.sum(ct.reshape(t, (BS, D)), axis=0, keepdims=True)
    ct.store(Y, index=(b, 0), tile=acc / X.shape[0])


def test_the_batch_in_the_middle_of_a_transposed_view():
    bsd = randn(3, 19, 24, dtype=np.float16)
    sbd = bsd.transpose(1, 0, 2)  # (seq, batch, dim): strides (24, 19*24, 1)
    y = nans((3, 24))
    run(mean_over_seq, [sbd, y, 8, 32], (3,))
    close(y, bsd.astype(np.float64).mean(1), 1e-5, 1e-5)


@ct.kernel
def column_stats_of_flat(X, Mx, Sm, R: C[int], N: C[int]):
    """A 1-D array of R*N values read as one tile and reshaped to (R, N): per-column max and sum."""
    x = ct.reshape(ct.load(X, index=(0,), shape=(R * N,)), (R, N))
    ct.store(Mx, index=(0,), tile=ct.max(x, axis=0))
    ct.store(Sm, index=(0,), tile=ct.sum(x, axis=0))


def test_a_flat_array_reshaped_by_the_kernel():
    x = randn(8 * 16)
    mx, sm = nans(16), nans(16)
    run(column_stats_of_flat, [x, mx, sm, 8, 16], (1,))
    close(mx, x.reshape(8, 16).max(0), 0, 0)
    close(sm, x.reshape(8, 16).astype(np.float64).sum(0), 1e-5, 1e-6)


@ct.kernel
def causal_depthwise_conv(X, W, Y, BT: C[int], D: C[int]):
    """Mamba's causal conv1d, width 4: y[t, d] = sum_j w[j, d] x[t - j, d]; the rows before the first read
    through a gather at negative row indices (padding 0)."""
    t = ct.bid(0)
    rows = t * BT + ct.arange(BT, dtype=ct.int32)
    cols = ct.arange(D, dtype=ct.int32)
    acc = ct.zeros((BT, D), dtype=ct.float32)
    for j in range(W.shape[0]):
        x = ct.gather(X, ((rows - j)[:, None], cols[None, :]), padding_value=0).astype(ct.float32)
        acc = acc + ct.load(W, index=(j, 0), shape=(1, D)) * x
    ct.store(Y, index=(t, 0), tile=acc.astype(Y.dtype))


def test_a_causal_convolution_reading_before_row_0():
    x, w = randn(21, 16, dtype=np.float16), randn(4, 16)
    y = nans((21, 16), np.float16)
    run(causal_depthwise_conv, [x, w, y, 8, 16], (3,))
    xp = np.concatenate([np.zeros((3, 16)), x.astype(np.float64)])
    want = sum(w[j] * xp[3 - j:3 - j + 21] for j in range(4))
    close(y, want, 3e-3, 3e-3)


@ct.kernel
def tile_delta(X, Y, BT: C[int], D: C[int]):
    """y = x[tile t] - x[tile t - 1]: the first program reads tile index -1 (all padding: 0)."""
    t = ct.bid(0)
    prev = ct.load(X, index=(t - 1, 0), shape=(BT, D), padding_mode=ZERO)
    ct.store(Y, index=(t, 0), tile=ct.load(X, index=(t, 0), shape=(BT, D), padding_mode=ZERO) - prev)


def test_a_tile_at_index_minus_one():
    x = randn(20, 8)
    y = nans((20, 8))
    run(tile_delta, [x, y, 8, 8], (3,))
    xp = np.concatenate([np.zeros((8, 8), np.float32), x, np.zeros((4, 8), np.float32)])
    want = np.concatenate([xp[8 * (t + 1):8 * (t + 2)] - xp[8 * t:8 * (t + 1)] for t in range(3)])[:20]
    close(y, want, 0, 0)


@ct.kernel
def rows_from_tile(X, Y, start: int, BM: C[int], BN: C[int]):
    """y[r] = the sum of row start * BM + r of X and its double (f16 in, f32 out); X's row tile ``start``."""
    x = ct.load(X, index=(start, 0), shape=(BM, BN)).astype(ct.float32)
    ct.store(Y, index=(0, 0), tile=ct.sum(x, axis=1, keepdims=True) + x * 2.0)


def test_rows_past_4_gib_of_an_array():
    """X: (2^22 + 8, 1024) f16, 8 GiB + 16 KiB -- element offsets past 2^31 (int32 indices, 64-bit addresses);
    only the 4 rows at tile 2^20 are real memory."""
    rows, n, bm = (1 << 22) + 8, 1024, 4
    real = np.zeros(bm * n, np.float16)
    huge = np.lib.stride_tricks.as_strided(real, shape=(rows, n), strides=(2 * n, 2), writeable=False)
    tile = 1 << 20
    vals = randn(bm, n, dtype=np.float16)
    y = nans((bm, n))
    run(rows_from_tile, [huge, y, tile, bm, n], (1,), windows=[(0, tile * bm * n * 2, vals.view(np.uint8).reshape(-1))])
    v = vals.astype(np.float64)
    close(y, v.sum(1, keepdims=True) + 2 * v, 1e-5, 1e-4)
