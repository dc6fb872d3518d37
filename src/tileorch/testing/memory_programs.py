"""Memory-bound cuTile programs as users write them (no dot: the SIMT path): axpby, row softmax,
a row divided by a shared divisor, layernorm, rmsnorm, row and column sums, argmax, cumsum, transpose, a row gather (embedding
lookup) and a row scatter.

One zoo for the benchmark (``benchmarks/memory_bound.py``), the GPU tests
(``tests/gpu/test_memory_bound_gpu.py``) and the CPU interpreter tests
(``tests/unit/test_simt_layout_interp.py``).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct


@ct.kernel
def axpby(x, y, z, tile: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(z, index=(i,), tile=2.0 * ct.load(x, index=(i,), shape=(tile,)) - 3.0 * ct.load(y, index=(i,), shape=(tile,)))


@ct.kernel
def softmax(x, y, tn: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, tn), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(y, index=(row, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(y.dtype))


@ct.kernel
def row_divide(x, d, y, tn: ct.Constant[int]):
    """``y = x / max(d's row)``: a division by a value the whole row shares (the SIMT path's
    ``uniform_division.py``; ``d`` holds each row's divisor in every column)."""
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, tn), padding_mode=ct.PaddingMode.ZERO)
    s = ct.max(ct.load(d, index=(r, 0), shape=(1, tn), padding_mode=ct.PaddingMode.NEG_INF), axis=1, keepdims=True)
    ct.store(y, index=(r, 0), tile=t / s)


@ct.kernel
def layernorm(x, w, b, y, n: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, n)).astype(ct.float32)
    mean = ct.sum(t, axis=1, keepdims=True) / n
    d = t - mean
    var = ct.sum(d * d, axis=1, keepdims=True) / n
    inv = ct.rsqrt(var + 1e-5)
    ww = ct.load(w, index=(0,), shape=(n,)).astype(ct.float32)
    bb = ct.load(b, index=(0,), shape=(n,)).astype(ct.float32)
    ct.store(y, index=(r, 0), tile=(d * inv * ct.reshape(ww, (1, n)) + ct.reshape(bb, (1, n))).astype(y.dtype))


@ct.kernel
def rmsnorm(x, w, y, n: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, n)).astype(ct.float32)
    inv = ct.rsqrt(ct.sum(t * t, axis=1, keepdims=True) / n + 1e-6)
    ww = ct.load(w, index=(0,), shape=(n,)).astype(ct.float32)
    ct.store(y, index=(r, 0), tile=(t * inv * ct.reshape(ww, (1, n))).astype(y.dtype))


@ct.kernel
def row_sum(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((tm,), dtype=ct.float32)
    for j in range(ct.num_tiles(x, axis=1, shape=(tm, tn))):
        acc = acc + ct.sum(ct.load(x, index=(i, j), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32), axis=1)
    ct.store(y, index=(i,), tile=acc)


@ct.kernel
def col_sum(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    j = ct.bid(0)
    acc = ct.zeros((tn,), dtype=ct.float32)
    for i in range(ct.num_tiles(x, axis=0, shape=(tm, tn))):
        acc = acc + ct.sum(ct.load(x, index=(i, j), shape=(tm, tn), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32), axis=0)
    ct.store(y, index=(j,), tile=acc)


@ct.kernel
def argmax(x, y, n: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, n), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(y, index=(r,), tile=ct.argmax(t, axis=1))


@ct.kernel
def cumsum(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n))
    ct.store(y, index=(ct.bid(0), 0), tile=ct.cumsum(t, axis=1))


@ct.kernel
def transpose(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    ct.store(y, index=(j, i), tile=ct.transpose(ct.load(x, index=(i, j), shape=(tm, tn))))


@ct.kernel
def gather_rows(table, idx, out, tr: ct.Constant[int], tn: ct.Constant[int]):
    """Embedding lookup: ``out[i, :] = table[idx[i], :]`` for ``tr`` rows per program, ``tn`` columns
    (the whole row) through an index tile; rows past ``idx``'s end and out-of-range indices load 0."""
    i = ct.bid(0)
    rows = ct.load(idx, index=(i,), shape=(tr,), padding_mode=ct.PaddingMode.ZERO)
    cols = ct.arange(tn, dtype=ct.int32)
    ct.store(out, index=(i, 0), tile=ct.gather(table, (rows[:, None], cols[None, :])))


@ct.kernel
def scatter_rows(src, idx, out, tr: ct.Constant[int], tn: ct.Constant[int]):
    """Row scatter: ``out[idx[i], :] = src[i, :]`` (``idx`` a permutation) for ``tr`` rows per program;
    rows past ``idx``'s end are masked off."""
    i = ct.bid(0)
    rows = ct.load(idx, index=(i,), shape=(tr,), padding_mode=ct.PaddingMode.ZERO)
    real = i * tr + ct.arange(tr, dtype=ct.int32) < idx.shape[0]
    cols = ct.arange(tn, dtype=ct.int32)
    t = ct.load(src, index=(i, 0), shape=(tr, tn))
    ct.scatter(out, (rows[:, None], cols[None, :]), t, mask=real[:, None])


__all__ = ["argmax", "axpby", "col_sum", "cumsum", "gather_rows", "layernorm", "rmsnorm", "row_divide", "row_sum",
           "scatter_rows", "softmax", "transpose"]
