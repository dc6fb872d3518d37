"""Two-pass row programs for ``TILEORCH_ROW_SMEM_CACHE`` (``transforms/tileaa_to_simt/row_smem_cache.py``): each
loops over a row's column tiles twice (or three times), as users write long rows; the emulator tests
(``test_row_smem_cache_emulated.py``) run them against numpy with the cache on and off.  The log-softmax and the
cross entropy of the benchmarks are :mod:`tileorch.testing.user_programs10`'s."""

from __future__ import annotations

import cuda.tile as ct

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF


@ct.function
def _row_max(X, r, nv, BV):
    """The max of row ``r`` of ``X`` over ``nv`` tiles of ``BV`` (NEG_INF padding), a ``(1, 1)`` f32 tile."""
    m = ct.full((1, 1), -float("inf"), dtype=ct.float32)
    for k in range(nv):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=NEG_INF).astype(ct.float32)
        m = ct.maximum(m, ct.max(x, axis=1, keepdims=True))
    return m


@ct.function
def _row_lse(X, r, nv, BV):
    """The log-sum-exp of row ``r`` of ``X`` by an online max and sum over ``nv`` tiles (NEG_INF padding)."""
    m = ct.full((1, 1), -float("inf"), dtype=ct.float32)
    s = ct.zeros((1, 1), dtype=ct.float32)
    for k in range(nv):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=NEG_INF).astype(ct.float32)
        m_new = ct.maximum(m, ct.max(x, axis=1, keepdims=True))
        s = s * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new), axis=1, keepdims=True)
        m = m_new
    return m + ct.log(s)


@ct.kernel
def softmax_three_loops(X, Y, BV: C[int]):
    """Softmax of one f16 row: a max loop, a sum-of-exp loop (both ``NEG_INF`` padding), a loop writing
    ``exp(x - m) / s`` (ZERO padding): the last two read the tiles the first left in shared memory."""
    r = ct.bid(0)
    nv = ct.num_tiles(X, axis=1, shape=(1, BV))
    m = _row_max(X, r, nv, BV)
    s = ct.zeros((1, 1), dtype=ct.float32)
    for k in range(nv):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=NEG_INF).astype(ct.float32)
        s = s + ct.sum(ct.exp(x - m), axis=1, keepdims=True)
    for k in range(nv):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO).astype(ct.float32)
        ct.store(Y, index=(r, k), tile=(ct.exp(x - m) / s).astype(Y.dtype))


@ct.kernel
def layernorm_column_loop(X, W, B, Y, eps: float, BN: C[int]):
    """Layernorm of one bf16 row of any width: a loop summing ``x`` and ``x * x`` (ZERO padding: the sums
    are exact over the row), then a loop writing ``(x - mean) * rstd * w + b`` (W, B read only there)."""
    r = ct.bid(0)
    n = X.shape[1]
    nt = ct.num_tiles(X, axis=1, shape=(1, BN))
    s1 = ct.zeros((1, 1), dtype=ct.float32)
    s2 = ct.zeros((1, 1), dtype=ct.float32)
    for k in range(nt):
        x = ct.load(X, index=(r, k), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
        s1 = s1 + ct.sum(x, axis=1, keepdims=True)
        s2 = s2 + ct.sum(x * x, axis=1, keepdims=True)
    mean = s1 / n
    rstd = ct.rsqrt(s2 / n - mean * mean + eps)
    for k in range(nt):
        x = ct.load(X, index=(r, k), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
        w = ct.load(W, index=(k,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
        b = ct.load(B, index=(k,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
        ct.store(Y, index=(r, k), tile=((x - mean) * rstd * w[None, :] + b[None, :]).astype(Y.dtype))


@ct.kernel
def log_softmax_in_place(X, BV: C[int]):
    """log-softmax of one bf16 row written over itself (output = input): the second loop stores tile ``k``
    after reading it, and no later iteration reads tile ``k``."""
    r = ct.bid(0)
    nv = ct.num_tiles(X, axis=1, shape=(1, BV))
    lse = _row_lse(X, r, nv, BV)
    for k in range(nv):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO).astype(ct.float32)
        ct.store(X, index=(r, k), tile=(x - lse).astype(X.dtype))


@ct.kernel
def max_then_zero_padded_sum(X, Out, BV: C[int]):
    """``max(x) + sum(x)`` of one f32 row: the max loop pads with ``NEG_INF``, the sum loop with zeros (the
    cached tail tile holds ``-inf`` where the sum must read 0)."""
    r = ct.bid(0)
    nv = ct.num_tiles(X, axis=1, shape=(1, BV))
    m = ct.full((1, 1), -float("inf"), dtype=ct.float32)
    for k in range(nv):
        m = ct.maximum(m, ct.max(ct.load(X, index=(r, k), shape=(1, BV), padding_mode=NEG_INF), axis=1,
                                 keepdims=True))
    s = ct.zeros((1, 1), dtype=ct.float32)
    for k in range(nv):
        s = s + ct.sum(ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO), axis=1, keepdims=True)
    ct.store(Out, index=(r,), tile=ct.reshape(m + s, (1,)))


@ct.kernel
def two_rows_read_twice(X, D, Y, BV: C[int]):
    """``y = x * sum(d) + d * sum(x)`` of one f32 row of each of two arrays (a normalisation backward's shape):
    two fills, one cache per kernel -- X's second read comes from shared memory, D's from global memory."""
    r = ct.bid(0)
    nv = ct.num_tiles(X, axis=1, shape=(1, BV))
    sx = ct.zeros((1, 1), dtype=ct.float32)
    sd = ct.zeros((1, 1), dtype=ct.float32)
    for k in range(nv):
        sx = sx + ct.sum(ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO), axis=1, keepdims=True)
        sd = sd + ct.sum(ct.load(D, index=(r, k), shape=(1, BV), padding_mode=ZERO), axis=1, keepdims=True)
    for k in range(nv):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO)
        d = ct.load(D, index=(r, k), shape=(1, BV), padding_mode=ZERO)
        ct.store(Y, index=(r, k), tile=x * sd + d * sx)


@ct.kernel
def shifted_second_pass(X, Y, BV: C[int]):
    """A second loop reading tile ``k + 1`` of what the first read at ``k`` (a different index: refused; the last
    iteration reads past the row: its padding, stored nowhere)."""
    r = ct.bid(0)
    nv = ct.num_tiles(X, axis=1, shape=(1, BV))
    m = _row_max(X, r, nv, BV)
    for k in range(nv):
        x = ct.load(X, index=(r, k + 1), shape=(1, BV), padding_mode=ZERO).astype(ct.float32)
        ct.store(Y, index=(r, k), tile=(x - m).astype(Y.dtype))


__all__ = ["layernorm_column_loop", "log_softmax_in_place", "max_then_zero_padded_sum",
           "two_rows_read_twice", "shifted_second_pass", "softmax_three_loops"]


@ct.kernel
def log_softmax_rows_loop(X, Y, BV: C[int]):
    """log-softmax of rows ``bid, bid + grid, ...``: the two-pass row inside a loop over rows (the row cache
    serves each row in turn; its bulk fill, one phase per barrier, is not taken)."""
    nv = ct.num_tiles(X, axis=1, shape=(1, BV))
    for r in range(ct.bid(0), X.shape[0], ct.num_blocks(0)):
        lse = _row_lse(X, r, nv, BV)
        for k in range(nv):
            x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO).astype(ct.float32)
            ct.store(Y, index=(r, k), tile=(x - lse).astype(Y.dtype))


@ct.kernel
def log_softmax_rows_below(X, Y, R: int, BV: C[int]):
    """log-softmax of the rows below ``R`` only (``Y``'s other rows left as they are): both loops under a branch
    (the row cache's bulk fill is issued in the branch)."""
    r = ct.bid(0)
    nv = ct.num_tiles(X, axis=1, shape=(1, BV))
    if r < R:
        lse = _row_lse(X, r, nv, BV)
        for k in range(nv):
            x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO).astype(ct.float32)
            ct.store(Y, index=(r, k), tile=(x - lse).astype(Y.dtype))


@ct.kernel
def log_softmax_first_tiles(X, Y, NT: int, BV: C[int]):
    """log-softmax over each row's first ``NT`` tiles only (the rest of ``Y`` left as it is): both loops run fewer
    trips than the row has tiles (a bulk fill copies no tile its loop does not wait for)."""
    r = ct.bid(0)
    lse = _row_lse(X, r, NT, BV)
    for k in range(NT):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO).astype(ct.float32)
        ct.store(Y, index=(r, k), tile=(x - lse).astype(Y.dtype))
