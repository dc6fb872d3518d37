"""The tenth user sweep (session 17, issue 21's coverage): cuTile 1.7 programs without a dot, as users
write them for the memory-bound layers of a model, each public ``ct.*`` function of cuTile 1.7 at
least once (the dots ``ct.mma`` / ``ct.matmul`` / ``ct.mma_scaled`` excepted: the GEMM sweeps have
them).

Normalisations forward and backward: layernorm with saved mean / rstd, its ``dx`` with per-group
``dgamma`` / ``dbeta`` partials and the column reduction of the partials, RMSNorm backward with
``dgamma`` by ``ct.atomic_add``, RMSNorm of a 3-D ``[B, S, D]`` array beside the same program on a
2-D ``[B*S, D]`` one (the two must compile to the same accesses), a layernorm over 4-D tiles.
Softmax backward of two rows per program, log-softmax and cross-entropy forward / backward over a
vocabulary loop (online max and sum, int64 labels, ``ignore_index``), an online top-1 over a loop,
a column argmin over row chunks.  Scans: ``ct.cumprod`` down columns with a carry, a reversed int64
``ct.cumsum`` across rows, a custom ``ct.scan`` / ``ct.reduce``.  Histograms with ``ct.atomic_add``
(out-of-range bins skipped by the bounds check), embedding gather with int64 ids and a non-power-of-
two width, its backward by scatter-add, RoPE interleaved (reshape / permute / extract / cat) and
half-split, dropout with an integer hash, per-row absmax quantisation to fp8 e4m3 / e5m2 and int8
and back.  Bits and integers: shifts, rotates, ``bitwise_*`` functions, float fields by
``ct.bitcast``, ``pack_to_bytes`` / ``unpack_from_bytes``, ``ct.divmod`` / ``ct.floordiv`` /
``ct.mod`` of negatives in int16 / int64, NaN and infinity cleanup by ``ct.where`` / ``ct.isnan``.
Shapes: pixel shuffle (reshape to rank 5 is not allowed: rank 4 + permute), ``ct.transpose`` of a
3-D tile, outer sums broadcast in rank 4, ``ct.extract`` / ``ct.insert`` of rank 3, one-element
tiles, reductions to one scalar accumulated by an atomic, ragged odd shapes with each padding mode.
API corners: ``ct.printf`` / ``ct.print`` / ``ct.assert_``, a 3-axis grid with ``ct.num_blocks``,
grid-stride loops, ``ct.kernel`` options (``occupancy``, ``opt_level``, ``num_ctas`` through
``ct.ByTarget``), ``ct.function`` helpers, ``static_eval`` / ``static_iter`` / ``static_assert`` /
``ensure_constant``, ``assume_divisible_by``, ``ct.astile``, ``Array.slice``, ``load`` /
``store_advanced_indexing``, ``TiledView`` atomics, every atomic (``xchg`` / ``and`` / ``or`` /
``xor`` / ``min`` / ``max`` / ``cas``), an acquire load, grid dependency control.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep10_*.py (CPU compile, the SIMT interpreter, the PTX emulator) and
tests/gpu/test_user_sweep10_gpu.py (the H200 against torch).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import ZERO, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

NEG_INF = ct.PaddingMode.NEG_INF
POS_INF = ct.PaddingMode.POS_INF
NAN = ct.PaddingMode.NAN


# ----------------------------------------------------------------------------------------------- normalisations


@ct.kernel
def layernorm_fwd_stats(X, W, B, Y, Mean, Rstd, n: int, eps: float, BN: ct.Constant[int]):
    """Layernorm of one f16 row of ``n`` (< BN, ragged) columns per program, affine, f32 statistics
    saved for the backward; padded lanes masked out of the variance by ``arange < n``."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    valid = ct.arange(BN, dtype=ct.int32)[None, :] < n
    mean = ct.sum(x, axis=1, keepdims=True) / n
    xc = ct.where(valid, x - mean, 0.0)
    rstd = ct.rsqrt(ct.sum(xc * xc, axis=1, keepdims=True) / n + eps)
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    b = ct.load(B, index=(0,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(r, 0), tile=(xc * rstd * w[None, :] + b[None, :]).astype(Y.dtype))
    ct.store(Mean, index=(r,), tile=ct.reshape(mean, (1,)))
    ct.store(Rstd, index=(r,), tile=ct.reshape(rstd, (1,)))


@ct.kernel
def layernorm_bwd_dx_group_partials(X, DY, W, Mean, Rstd, DX, DWp, DBp, rows_per_group: int,
                                    BN: ct.Constant[int]):
    """Layernorm backward: ``dx`` of each row of the program's group of rows (a loop), and the
    group's partial ``dgamma`` / ``dbeta`` sums (f32 rows of ``[G, N]``) for a second pass."""
    g = ct.bid(0)
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    dw = ct.zeros((BN,), dtype=ct.float32)
    db = ct.zeros((BN,), dtype=ct.float32)
    n = X.shape[1]
    for i in range(rows_per_group):
        r = g * rows_per_group + i
        x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).reshape((BN,)).astype(ct.float32)
        dy = ct.load(DY, index=(r, 0), shape=(1, BN), padding_mode=ZERO).reshape((BN,)).astype(ct.float32)
        mean = ct.load(Mean, index=(r,), shape=(1,)).item()
        rstd = ct.load(Rstd, index=(r,), shape=(1,)).item()
        valid = ct.arange(BN, dtype=ct.int32) < n
        xhat = ct.where(valid, (x - mean) * rstd, 0.0)
        wdy = w * dy
        c1 = ct.sum(xhat * wdy) / n
        c2 = ct.sum(wdy) / n
        ct.store(DX, index=(r, 0), tile=((wdy - (xhat * c1 + c2)) * rstd).reshape((1, BN)).astype(DX.dtype))
        dw = dw + dy * xhat
        db = db + dy
    ct.store(DWp, index=(g, 0), tile=dw.reshape((1, BN)))
    ct.store(DBp, index=(g, 0), tile=db.reshape((1, BN)))


@ct.kernel
def column_sums_of_partials(P, Out, BG: ct.Constant[int], BN: ct.Constant[int]):
    """The second pass: column sums of ``[G, N]`` f32 partials, a column block per program, the rows
    in BG chunks (ragged G and N)."""
    c = ct.bid(0)
    acc = ct.zeros((BN,), dtype=ct.float32)
    for k in range(ct.num_tiles(P, axis=0, shape=(BG, BN))):
        acc = acc + ct.sum(ct.load(P, index=(k, c), shape=(BG, BN), padding_mode=ZERO), axis=0)
    ct.store(Out, index=(c,), tile=acc.astype(Out.dtype))


@ct.kernel
def rmsnorm_bwd_atomic_dgamma(X, DY, W, DX, DW, eps: float, BN: ct.Constant[int]):
    """RMSNorm backward of one bf16 row: ``dx = rstd * (dy*w - x * rstd^2 * mean(dy*w*x))`` and
    ``dgamma += dy * x * rstd`` accumulated into an f32 ``[N]`` by ``ct.atomic_add`` (ragged N)."""
    r = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    dy = ct.load(DY, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)[None, :]
    rstd = ct.rsqrt(ct.sum(x * x) / n + eps)
    dyw = dy * w
    dx = rstd * (dyw - x * (rstd * rstd * ct.sum(dyw * x) / n))
    ct.store(DX, index=(r, 0), tile=dx.astype(DX.dtype))
    cols = ct.arange(BN, dtype=ct.int32)
    ct.atomic_add(DW, cols, (dy * x * rstd).reshape((BN,)))


@ct.kernel
def rmsnorm_rows_2d(X, W, Y, eps: float, BD: ct.Constant[int]):
    """RMSNorm of a ``[B*S, D]`` f16 array, a row per program (the 2-D form of
    :func:`rmsnorm_rows_3d`)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BD)).astype(ct.float32)
    w = ct.load(W, index=(0,), shape=(BD,)).astype(ct.float32)
    rstd = ct.rsqrt(ct.sum(x * x, axis=1, keepdims=True) / BD + eps)
    ct.store(Y, index=(r, 0), tile=(x * rstd * w[None, :]).astype(Y.dtype))


@ct.kernel
def rmsnorm_rows_3d(X, W, Y, eps: float, BD: ct.Constant[int]):
    """The same RMSNorm written on the ``[B, S, D]`` array: a ``(1, 1, D)`` tile at ``(b, s, 0)``
    from a 2-axis grid (must compile to the accesses of :func:`rmsnorm_rows_2d`)."""
    b, s = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(b, s, 0), shape=(1, 1, BD)).astype(ct.float32)
    w = ct.load(W, index=(0,), shape=(BD,)).astype(ct.float32)
    rstd = ct.rsqrt(ct.sum(x * x, axis=2, keepdims=True) / BD + eps)
    ct.store(Y, index=(b, s, 0), tile=(x * rstd * w[None, None, :]).astype(Y.dtype))


@ct.kernel
def layernorm_4d_heads(X, Y, eps: float, BS: ct.Constant[int], BD: ct.Constant[int]):
    """Per-head layernorm (no affine) of ``[B, H, S, D]`` f32 over D, a ``(1, 1, BS, D)`` tile per
    program on a 3-axis grid (b, h, s-block); ragged S."""
    b, h, s = ct.bid(0), ct.bid(1), ct.bid(2)
    x = ct.load(X, index=(b, h, s, 0), shape=(1, 1, BS, BD), padding_mode=ZERO)
    mean = ct.sum(x, axis=3, keepdims=True) * (1.0 / BD)
    xc = x - mean
    var = ct.sum(xc * xc, axis=3, keepdims=True) * (1.0 / BD)
    ct.store(Y, index=(b, h, s, 0), tile=xc * ct.rsqrt(var + eps))


# ----------------------------------------------------------------------------------------------- softmax, cross-entropy


@ct.kernel
def softmax_bwd_two_rows(Yp, DY, DX, BN: ct.Constant[int]):
    """``dx = y * (dy - sum(dy * y))`` of f16 rows, two rows per program (a ``(2, BN)`` tile), a
    ragged last row pair and ragged columns."""
    r = ct.bid(0)
    y = ct.load(Yp, index=(r, 0), shape=(2, BN), padding_mode=ZERO).astype(ct.float32)
    dy = ct.load(DY, index=(r, 0), shape=(2, BN), padding_mode=ZERO).astype(ct.float32)
    dot = ct.sum(dy * y, axis=1, keepdims=True)
    ct.store(DX, index=(r, 0), tile=(y * (dy - dot)).astype(DX.dtype))


@ct.kernel
def log_softmax_vocab_loop(X, Y, BV: ct.Constant[int]):
    """log-softmax of one bf16 row of a large vocabulary: an online max / sum-of-exp pass over BV
    chunks (NEG_INF padding), then a second pass writing ``x - lse``."""
    r = ct.bid(0)
    m = ct.full((1, 1), -float("inf"), dtype=ct.float32)
    s = ct.zeros((1, 1), dtype=ct.float32)
    nv = ct.num_tiles(X, axis=1, shape=(1, BV))
    for k in range(nv):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=NEG_INF).astype(ct.float32)
        m_new = ct.maximum(m, ct.max(x, axis=1, keepdims=True))
        s = s * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new), axis=1, keepdims=True)
        m = m_new
    lse = m + ct.log(s)
    for k in range(nv):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=ZERO).astype(ct.float32)
        ct.store(Y, index=(r, k), tile=(x - lse).astype(Y.dtype))


@ct.kernel
def cross_entropy_fwd_bwd_vocab(Logits, Labels, Loss, DLogits, ignore_index: int, inv_count: float,
                                BV: ct.Constant[int]):
    """Cross-entropy forward and backward of one row: online log-sum-exp over vocabulary chunks,
    the label's logit gathered by its int64 id, ``loss = lse - x[label]`` (0 for ``ignore_index``),
    ``dlogits = (softmax - onehot) * inv_count`` (0 for ignored rows) written in a second loop."""
    r = ct.bid(0)
    label = ct.load(Labels, index=(r,), shape=(1,)).item()
    m = ct.full((1, 1), -float("inf"), dtype=ct.float32)
    s = ct.zeros((1, 1), dtype=ct.float32)
    nv = ct.num_tiles(Logits, axis=1, shape=(1, BV))
    for k in range(nv):
        x = ct.load(Logits, index=(r, k), shape=(1, BV), padding_mode=NEG_INF).astype(ct.float32)
        m_new = ct.maximum(m, ct.max(x, axis=1, keepdims=True))
        s = s * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new), axis=1, keepdims=True)
        m = m_new
    lse = m + ct.log(s)
    ignored = label == ignore_index
    safe = ct.where(ignored, 0, label)
    picked = ct.gather(Logits, (r, safe)).astype(ct.float32)
    loss = ct.where(ignored, 0.0, lse.reshape(()) - picked)
    ct.store(Loss, index=(r,), tile=loss.reshape((1,)))
    scale = ct.where(ignored, 0.0, inv_count)
    for k in range(nv):
        x = ct.load(Logits, index=(r, k), shape=(1, BV), padding_mode=ZERO).astype(ct.float32)
        cols = ct.arange(BV, dtype=ct.int64)[None, :] + k * BV
        p = ct.exp(x - lse) - ct.where(cols == label, 1.0, 0.0)
        ct.store(DLogits, index=(r, k), tile=(p * scale).astype(DLogits.dtype))


@ct.kernel
def online_top1_vocab(X, Val, Idx, BV: ct.Constant[int]):
    """Greedy decoding's top-1 over a vocabulary loop: per chunk ``ct.max`` and ``ct.argmax``
    (first index of the maximum), the running best replaced only by a strictly larger value (so
    ties keep the first index); int64 index out, f32 value out."""
    r = ct.bid(0)
    best = -float("inf")
    best_i = ct.astile(0, dtype=ct.int64)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BV))):
        x = ct.load(X, index=(r, k), shape=(1, BV), padding_mode=NEG_INF).astype(ct.float32)
        v = ct.max(x)
        i = ct.argmax(x).astype(ct.int64) + k * BV
        better = v > best
        best_i = ct.where(better, i, best_i)
        best = ct.where(better, v, best)
    ct.store(Val, index=(r,), tile=ct.reshape(best, (1,)))
    ct.store(Idx, index=(r,), tile=ct.reshape(best_i, (1,)))


@ct.kernel
def column_argmin_row_chunks(X, Out, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Column-wise argmin of an f32 ``[M, N]`` over row chunks (axis 0), POS_INF padding for the
    ragged rows, ties to the first row; int32 indices of a column block."""
    c = ct.bid(0)
    best = ct.full((1, BN), float("inf"), dtype=ct.float32)
    best_i = ct.zeros((1, BN), dtype=ct.int32)
    for k in range(ct.num_tiles(X, axis=0, shape=(BM, BN))):
        x = ct.load(X, index=(k, c), shape=(BM, BN), padding_mode=POS_INF)
        v = ct.min(x, axis=0, keepdims=True)
        i = ct.argmin(x, axis=0, keepdims=True) + k * BM
        better = v < best
        best_i = ct.where(better, i, best_i)
        best = ct.minimum(v, best)
    ct.store(Out, index=(0, c), tile=best_i)


# ----------------------------------------------------------------------------------------------- scans


@ct.kernel
def cumprod_cols_carry(X, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Cumulative product down the columns of an f32 ``[M, N]`` (axis 0), the rows in BM chunks
    with the last row of each chunk carried to the next (padding 1 not available: ragged rows are
    past the stored ones)."""
    c = ct.bid(0)
    carry = ct.ones((1, BN), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=0, shape=(BM, BN))):
        x = ct.load(X, index=(k, c), shape=(BM, BN), padding_mode=ZERO)
        p = ct.cumprod(x, axis=0) * carry
        ct.store(Y, index=(k, c), tile=p)
        carry = ct.extract(p, index=(BM - 1, 0), shape=(1, BN))


@ct.kernel
def cumsum_int64_reverse_rows(X, Y, BN: ct.Constant[int]):
    """Reversed (suffix) int64 cumulative sum along axis 1 of int32 input, widened before the scan,
    four rows per program."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(4, BN), padding_mode=ZERO).astype(ct.int64)
    ct.store(Y, index=(r, 0), tile=ct.cumsum(x, axis=1, reverse=True))


def _mul_add(a, b):
    return a * b


def _absmax(a, b):
    return ct.maximum(ct.abs(a), ct.abs(b))


@ct.kernel
def custom_scan_reduce(X, P, M, BN: ct.Constant[int]):
    """``ct.scan`` with a user multiplication (a running product from the right, ``reverse=True``)
    and ``ct.reduce`` with a user absolute maximum, per row of f32."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(P, index=(r, 0), tile=ct.scan(x, 1, _mul_add, 1.0, reverse=True))
    ct.store(M, index=(r, 0), tile=ct.reduce(x, 1, _absmax, 0.0, keepdims=True))


# ----------------------------------------------------------------------------------------------- atomics: histograms, scatter-add


@ct.kernel
def histogram_float_bins_atomic(X, Hist, lo: float, inv_width: float, BN: ct.Constant[int]):
    """Histogram of f32 values into ``nbins`` int32 bins by ``ct.atomic_add``: the bin
    ``floor((x - lo) * inv_width)``; values below ``lo`` or past the last bin, and the ragged tail's
    lanes, get the bin -1 or ``nbins`` which the atomic's bounds check skips."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=NAN)
    b = ct.floor((x - lo) * inv_width)
    b = ct.where(ct.isnan(b), -1.0, b)
    nb = Hist.shape[0]
    idx = ct.where(b < 0.0, -1, ct.where(b >= nb, nb, b.astype(ct.int32)))
    ct.atomic_add(Hist, idx, ct.ones((BN,), dtype=ct.int32))


@ct.kernel
def row_histogram_2d_indices(X, Hist, BN: ct.Constant[int]):
    """Per-row histogram of uint8 values into a ``[M, 16]`` int32 table by ``ct.atomic_add`` with
    2-D indices ``(row, x >> 4)``, the ragged columns masked by index -1."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.int32)
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    bins = ct.where(cols < X.shape[1], x >> 4, -1)
    ct.atomic_add(Hist, (ct.full((1, BN), r, dtype=ct.int32), bins), ct.ones((1, BN), dtype=ct.int32))


@ct.kernel
def embedding_gather_int64_ids(Ids, Table, Out, BT: ct.Constant[int], BD: ct.Constant[int]):
    """Embedding lookup: int64 token ids, a bf16 ``[V, D]`` table with D = 96 (not a power of two:
    a 128-wide tile masked by ``arange < D``), ``ct.gather`` of ``(ids[:, None], arange[None, :])``
    into ``[T, D]``, ragged T."""
    t = ct.bid(0)
    ids = ct.load(Ids, index=(t,), shape=(BT,), padding_mode=ZERO)
    cols = ct.arange(BD, dtype=ct.int64)
    rows = ct.arange(BT, dtype=ct.int64) + t * BT
    rows_ok = rows[:, None] < Ids.shape[0]
    mask = rows_ok & (cols[None, :] < Table.shape[1])
    v = ct.gather(Table, (ids[:, None], cols[None, :]), mask=mask)
    ct.scatter(Out, (rows[:, None], cols[None, :]), v, mask=mask)


@ct.kernel
def embedding_bwd_scatter_add_2d(Ids, DY, DW, BT: ct.Constant[int], BD: ct.Constant[int]):
    """Embedding backward: ``dW[ids[t], :] += dY[t, :]`` in f32 by ``ct.atomic_add`` with 2-D indices
    (repeated ids collide), int32 ids, ragged T (past rows: index -1, skipped)."""
    t = ct.bid(0)
    rows = ct.arange(BT, dtype=ct.int32) + t * BT
    ids = ct.load(Ids, index=(t,), shape=(BT,), padding_mode=ZERO)
    ids = ct.where(rows < Ids.shape[0], ids, -1)
    dy = ct.load(DY, index=(t, 0), shape=(BT, BD), padding_mode=ZERO)
    ct.atomic_add(DW, (ids[:, None], ct.arange(BD, dtype=ct.int32)[None, :]), dy)


# ----------------------------------------------------------------------------------------------- RoPE


@ct.kernel
def rope_interleaved_reshape_permute(X, Cos, Sin, Y, BT: ct.Constant[int], D: ct.Constant[int]):
    """RoPE on interleaved pairs ``(x[2i], x[2i+1])``: the ``[BT, D]`` tile reshaped to
    ``[BT, D/2, 2]`` and permuted to ``[2, BT, D/2]``, the even / odd planes taken by
    ``ct.extract``, rotated by the ``[T, D/2]`` tables and put back by ``ct.cat`` on a new leading
    axis and the inverse permute / reshape."""
    t = ct.bid(0)
    x = ct.load(X, index=(t, 0), shape=(BT, D)).astype(ct.float32)
    c = ct.load(Cos, index=(t, 0), shape=(BT, D // 2))
    s = ct.load(Sin, index=(t, 0), shape=(BT, D // 2))
    planes = ct.permute(ct.reshape(x, (BT, D // 2, 2)), (2, 0, 1))
    ev = ct.extract(planes, index=(0, 0, 0), shape=(1, BT, D // 2)).reshape((BT, D // 2))
    od = ct.extract(planes, index=(1, 0, 0), shape=(1, BT, D // 2)).reshape((BT, D // 2))
    re = (ev * c - od * s).reshape((1, BT, D // 2))
    ro = (ev * s + od * c).reshape((1, BT, D // 2))
    out = ct.reshape(ct.permute(ct.cat((re, ro), axis=0), (1, 2, 0)), (BT, D))
    ct.store(Y, index=(t, 0), tile=out.astype(Y.dtype))


@ct.kernel
def rope_half_split_positions(X, Pos, Y, theta: float, BT: ct.Constant[int], D: ct.Constant[int]):
    """RoPE on halves (``x[:D/2]``, ``x[D/2:]``, the Llama form) of ``[T, H, D]`` bf16 with angles
    computed in the kernel from int32 positions: ``pos * theta^(-2i/D)`` by ``ct.exp2`` /
    ``ct.log2``, ``ct.cos`` / ``ct.sin``; the halves by ``ct.extract`` and rejoined by ``ct.cat``;
    a 2-axis grid (token block, head)."""
    t, h = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(t, h, 0), shape=(BT, 1, D), padding_mode=ZERO).reshape((BT, D)).astype(ct.float32)
    pos = ct.load(Pos, index=(t,), shape=(BT,), padding_mode=ZERO).astype(ct.float32)
    i = ct.arange(D // 2, dtype=ct.float32)
    inv_freq = ct.exp2(i * (-2.0 / D) * ct.log2(ct.full((D // 2,), theta, dtype=ct.float32)))
    ang = pos[:, None] * inv_freq[None, :]
    c, s = ct.cos(ang), ct.sin(ang)
    x1 = ct.extract(x, index=(0, 0), shape=(BT, D // 2))
    x2 = ct.extract(x, index=(0, 1), shape=(BT, D // 2))
    y = ct.cat((x1 * c - x2 * s, x2 * c + x1 * s), axis=1)
    ct.store(Y, index=(t, h, 0), tile=y.reshape((BT, 1, D)).astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- dropout, quantisation


@ct.kernel
def dropout_hash_uint32(X, Y, Keep, seed: int, p: float, BN: ct.Constant[int]):
    """Dropout with a counter hash in uint32 (a murmur3 finaliser of ``index ^ seed``: wrapping
    multiplies, xor-shifts): kept where the top 24 bits fall at or above ``p * 2^24``, scaled by
    ``1 / (1 - p)``; the keep mask stored as uint8; a ragged length."""
    i = ct.bid(0)
    idx = (ct.arange(BN, dtype=ct.int32) + i * BN).astype(ct.uint32)
    h = idx ^ ct.astype(seed, ct.uint32)
    h = h ^ (h >> 16)
    h = h * 0x85EBCA6B
    h = h ^ (h >> 13)
    h = h * 0xC2B2AE35
    h = h ^ (h >> 16)
    keep = (h >> 8).astype(ct.float32) >= p * 16777216.0
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.where(keep, x * (1.0 / (1.0 - p)), 0.0).astype(Y.dtype))
    ct.store(Keep, index=(i,), tile=keep.astype(ct.uint8))


@ct.kernel
def quant_rows_absmax_fp8(X, Q4, Q5, S, BN: ct.Constant[int]):
    """Per-row absmax quantisation of f16 rows to fp8 e4m3 (scale ``amax / 448``) and e5m2 (scale
    ``amax / 57344``), the e4m3 scale stored; a zero row keeps scale 1; ragged columns."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    amax = ct.max(ct.abs(x), axis=1, keepdims=True)
    s4 = ct.where(amax > 0.0, amax / 448.0, 1.0)
    s5 = ct.where(amax > 0.0, amax / 57344.0, 1.0)
    ct.store(Q4, index=(r, 0), tile=(x / s4).astype(ct.float8_e4m3fn))
    ct.store(Q5, index=(r, 0), tile=(x / s5).astype(ct.float8_e5m2))
    ct.store(S, index=(r,), tile=s4.reshape((1,)))


@ct.kernel
def dequant_fp8_rows(Q, S, Y, BN: ct.Constant[int]):
    """fp8 e4m3 rows times their f32 scale back to bf16, two rows per program."""
    r = ct.bid(0)
    q = ct.load(Q, index=(r, 0), shape=(2, BN), padding_mode=ZERO).astype(ct.float32)
    s = ct.load(S, index=(r,), shape=(2,), padding_mode=ZERO)
    ct.store(Y, index=(r, 0), tile=(q * s[:, None]).astype(Y.dtype))


@ct.kernel
def quant_int8_round_half_away(X, Q, S, BN: ct.Constant[int]):
    """Symmetric int8 quantisation per row: scale ``amax / 127``, ``q = trunc(x/s + copysign(0.5))``
    (round half away from zero, written with ``ct.where``), clamped to [-127, 127]."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    amax = ct.max(ct.abs(x))
    s = ct.where(amax > 0.0, amax / 127.0, 1.0)
    v = x / s
    v = v + ct.where(v < 0.0, -0.5, 0.5)
    q = ct.minimum(ct.maximum(v, -127.0), 127.0).astype(ct.int8)
    ct.store(Q, index=(r, 0), tile=q)
    ct.store(S, index=(r,), tile=ct.reshape(s, (1,)))


@ct.kernel
def dequant_int8_to_f16(Q, S, Y, BN: ct.Constant[int]):
    """int8 rows times their f32 scales to f16, one row per program."""
    r = ct.bid(0)
    q = ct.load(Q, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    s = ct.load(S, index=(r,), shape=(1,)).item()
    ct.store(Y, index=(r, 0), tile=(q.astype(ct.float32) * s).astype(ct.float16))



# ----------------------------------------------------------------------------------------------- bits and integers


@ct.kernel
def bit_ops_rotate_popcount(X, R, Pc, Nb, rot: int, BN: ct.Constant[int]):
    """uint32 bit manipulation by the ``ct.bitwise_*`` functions: rotate left by a runtime amount
    (``lshift | rshift``, ``rot`` in 1..31), a SWAR population count, and ``bitwise_not`` masked by
    ``bitwise_and`` / ``bitwise_xor``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    r = ct.astype(rot, ct.uint32)
    ct.store(R, index=(i,), tile=ct.bitwise_or(ct.bitwise_lshift(x, r), ct.bitwise_rshift(x, 32 - r)))
    c = x - ct.bitwise_and(ct.bitwise_rshift(x, 1), 0x55555555)
    c = ct.bitwise_and(c, 0x33333333) + ct.bitwise_and(ct.bitwise_rshift(c, 2), 0x33333333)
    c = ct.bitwise_and(c + ct.bitwise_rshift(c, 4), 0x0F0F0F0F)
    ct.store(Pc, index=(i,), tile=ct.bitwise_rshift(c * 0x01010101, 24).astype(ct.int32))
    ct.store(Nb, index=(i,), tile=ct.bitwise_xor(ct.bitwise_and(ct.bitwise_not(x), 0xFFFF0000), 0x0000FFFF))


@ct.kernel
def float_fields_by_bitcast(X, E, M, Y, k: int, BN: ct.Constant[int]):
    """The exponent and mantissa fields of f32 values read through ``ct.bitcast`` to int32 (an
    arithmetic shift of negative bit patterns masked to 8 bits), and ``ldexp(x, k)`` for normal
    results written as ``k << 23`` added to the bits."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.bitcast(x, ct.int32)
    ct.store(E, index=(i,), tile=((b >> 23) & 0xFF) - 127)
    ct.store(M, index=(i,), tile=b & 0x7FFFFF)
    ct.store(Y, index=(i,), tile=ct.bitcast(b + (k << 23), ct.float32))


@ct.kernel
def signed_shifts_by_tiles(X, S, Ar, Lr, BN: ct.Constant[int]):
    """Shifts of int32 by per-element amounts (a tile): ``x << s``, the arithmetic ``x >> s`` of
    negatives (sign kept) and the logical one through uint32."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    s = ct.load(S, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Ar, index=(i,), tile=(x >> s) + (x << s))
    ct.store(Lr, index=(i,), tile=(x.astype(ct.uint32) >> s.astype(ct.uint32)).astype(ct.int32))


@ct.kernel
def pack_unpack_bytes(X, Bytes, Back, BN: ct.Constant[int]):
    """``ct.pack_to_bytes`` of an f16 tile (little-endian bytes, uint8 out) and
    ``ct.unpack_from_bytes`` of those bytes back to int16 (the f16 bits)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    b = ct.pack_to_bytes(x)
    ct.store(Bytes, index=(i,), tile=b)
    ct.store(Back, index=(i,), tile=ct.unpack_from_bytes(b, ct.int16))


@ct.kernel
def int16_divmod_negatives(X, Y, Q, R, Fq, Fr, T, BN: ct.Constant[int]):
    """int16 Python division of tiles with both signs: ``ct.divmod`` (quotient toward minus
    infinity, remainder with the divisor's sign), ``ct.floordiv`` / ``ct.mod`` by a negative scalar,
    ``ct.truediv`` of the integers (a float quotient)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = ct.load(Y, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = ct.where(y == 0, 1, y)
    q, r = ct.divmod(x, y)
    ct.store(Q, index=(i,), tile=q)
    ct.store(R, index=(i,), tile=r)
    ct.store(Fq, index=(i,), tile=ct.floordiv(x, -5))
    ct.store(Fr, index=(i,), tile=ct.mod(x, -5))
    ct.store(T, index=(i,), tile=ct.truediv(x.astype(ct.float32), y.astype(ct.float32)))


@ct.kernel
def int64_flat_index_gather(X, Rows, Cols, Out, BN: ct.Constant[int]):
    """A flat element index computed in int64 (``row * ncols + col`` with int32 inputs widened) and
    gathered from the 1-D view of a matrix; ``ct.greater_equal`` / ``ct.less`` build the mask."""
    i = ct.bid(0)
    r = ct.load(Rows, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.int64)
    c = ct.load(Cols, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.int64)
    flat = r * 333 + c
    ok = ct.greater_equal(flat, 0) & ct.less(flat, X.shape[0])
    ct.store(Out, index=(i,), tile=ct.gather(X, flat, mask=ok, padding_value=-1.0))


@ct.kernel
def nan_inf_cleanup(X, Y, Flags, big: float, BN: ct.Constant[int]):
    """``nan_to_num``: NaN -> 0, +-inf -> +-big (infinity tested as ``abs(x) == inf`` through
    ``ct.equal``), others kept; a per-element flag (1 NaN, 2 inf, 0 finite) as int8; ragged."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    nan = ct.isnan(x)
    inf = ct.equal(ct.abs(x), float("inf"))
    y = ct.where(nan, 0.0, ct.where(inf, ct.where(ct.greater(x, 0.0), big, -big), x))
    ct.store(Y, index=(i,), tile=y)
    ct.store(Flags, index=(i,), tile=ct.where(nan, 1, ct.where(inf, 2, 0)).astype(ct.int8))


@ct.kernel
def bool_mask_masked_mean(X, Mask, Mean, Cnt, BN: ct.Constant[int]):
    """A bool mask array (from torch) selecting elements of each row: the masked mean (0 where none)
    and the count, ``ct.where`` on the bool tile, ragged columns padded False."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    m = ct.load(Mask, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    n = ct.sum(m.astype(ct.int32))
    s = ct.sum(ct.where(m, x, 0.0))
    ct.store(Mean, index=(r,), tile=ct.reshape(ct.where(n > 0, s / ct.maximum(n, 1).astype(ct.float32), 0.0), (1,)))
    ct.store(Cnt, index=(r,), tile=ct.reshape(n, (1,)))


# ----------------------------------------------------------------------------------------------- shapes


@ct.kernel
def transpose_3d_axes(X, Y, Z, BM: ct.Constant[int], BN: ct.Constant[int]):
    """``ct.transpose(x, 0, 2)`` of a ``(2, BM, BN)`` tile stored into ``[BN, BM, 2]``, and
    ``Tile.transpose()`` (the last two axes by default) of a 2-D slice into ``[BN, BM]``."""
    b = ct.bid(0)
    x = ct.load(X, index=(0, b, 0), shape=(2, BM, BN))
    ct.store(Y, index=(0, b, 0), tile=ct.transpose(x, 0, 2))
    ct.store(Z, index=(0, b), tile=x.extract(index=(1, 0, 0), shape=(1, BM, BN)).reshape((BM, BN)).transpose())


@ct.kernel
def pixel_shuffle_rank4(X, Y, R: ct.Constant[int], BH: ct.Constant[int], W: ct.Constant[int]):
    """Pixel shuffle ``[C*r*r, H, W] -> [C, H*r, W*r]`` of one channel and row block: the
    ``(r*r, BH, W)`` tile reshaped to ``(r, r, BH, W)``, permuted to ``(BH, r, W, r)`` and reshaped
    to ``(BH*r, W*r)``."""
    c, hb = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(c, hb, 0), shape=(R * R, BH, W))
    y = ct.reshape(ct.permute(ct.reshape(x, (R, R, BH, W)), (2, 0, 3, 1)), (1, BH * R, W * R))
    ct.store(Y, index=(c, hb, 0), tile=y)


@ct.kernel
def outer_sum_rank4(A, B, C, D, Out, BS: ct.Constant[int], BD: ct.Constant[int]):
    """``out[b, h, s, d] = a[b] + b[h] * 10 + c[s] * 100 + d[d]`` by ``ct.expand_dims`` /
    ``ct.broadcast_to`` of 1-D tiles to rank 4, one ``(1, 1, BS, BD)`` block per program on a
    3-axis grid; ragged S."""
    bi, hi, si = ct.bid(0), ct.bid(1), ct.bid(2)
    a = ct.load(A, index=(bi,), shape=(1,))
    b = ct.load(B, index=(hi,), shape=(1,))
    c = ct.load(C, index=(si,), shape=(BS,), padding_mode=ZERO)
    d = ct.load(D, index=(0,), shape=(BD,))
    a4 = ct.reshape(a, (1, 1, 1, 1))
    b4 = ct.expand_dims(ct.expand_dims(ct.expand_dims(b, 0), 2), 3)
    c4 = ct.expand_dims(ct.expand_dims(ct.expand_dims(c, 0), 0), 3)
    d4 = ct.broadcast_to(ct.reshape(d, (1, 1, 1, BD)), (1, 1, BS, BD))
    ct.store(Out, index=(bi, hi, si, 0), tile=a4 + b4 * 10.0 + c4 * 100.0 + d4)


@ct.kernel
def extract_insert_rank3(X, Y):
    """A ``(4, 8, 16)`` tile: the ``(2, 4, 16)`` block at block index ``(1, 1, 0)`` taken by
    ``ct.extract``, doubled and put back by ``ct.insert`` at the same block index; the block's sum
    over axis 1 written over row ``bid + 7`` of axis 1 by ``Tile.insert`` (a dynamic block index)."""
    x = ct.load(X, index=(0, 0, 0), shape=(4, 8, 16))
    blk = ct.extract(x, index=(1, 1, 0), shape=(2, 4, 16))
    y = ct.insert(x, (1, 1, 0), blk * 2.0)
    row = ct.sum(blk, axis=1, keepdims=True)
    ct.store(Y, index=(0, 0, 0), tile=y.insert((0, ct.bid(0) + 7, 0), row))


@ct.kernel
def one_element_tiles(X, Y, Z):
    """One element per program: a ``(1,)`` tile loaded, squared through a 0-d tile (``.item()`` then
    ``ct.full(())``), stored as ``(1,)`` and as ``(1, 1)``."""
    i = ct.bid(0)
    v = ct.load(X, index=(i,), shape=(1,)).item()
    t = ct.full((), v, dtype=ct.float32)
    ct.store(Y, index=(i,), tile=ct.reshape(t * t, (1,)))
    ct.store(Z, index=(i, 0), tile=ct.reshape(t + 1.0, (1, 1)))


@ct.kernel
def sum_to_scalar_atomic(X, Total, Count, BN: ct.Constant[int]):
    """A global reduction: each program sums its ragged chunk to one scalar (``ct.sum`` of the
    whole tile) and adds it to ``Total[0]`` by ``ct.atomic_add``; the count of positives to
    ``Count[0]`` (int32)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.atomic_add(Total, 0, ct.sum(x))
    ct.atomic_add(Count, 0, ct.sum((x > 0.0).astype(ct.int32)))


@ct.kernel
def ragged_3d_padding_modes(X, Mx, Mn, Nn, BA: ct.Constant[int], BB: ct.Constant[int], BC: ct.Constant[int]):
    """A ``[5, 7, 9]`` f32 array read in ``(BA, BB, BC)`` tiles past every edge: the max with
    NEG_INF padding, the min with POS_INF padding and the count of padded lanes with NAN padding
    (``ct.isnan``; the inputs are finite), all over axis 2."""
    a, b = ct.bid(0), ct.bid(1)
    mx = ct.max(ct.load(X, index=(a, b, 0), shape=(BA, BB, BC), padding_mode=NEG_INF), axis=2)
    mn = ct.min(ct.load(X, index=(a, b, 0), shape=(BA, BB, BC), padding_mode=POS_INF), axis=2)
    nn = ct.sum(ct.isnan(ct.load(X, index=(a, b, 0), shape=(BA, BB, BC), padding_mode=NAN)).astype(ct.int32), axis=2)
    ct.store(Mx, index=(a, b), tile=mx)
    ct.store(Mn, index=(a, b), tile=mn)
    ct.store(Nn, index=(a, b), tile=nn)


@ct.kernel
def cat_rank1_broadcast(A, B, Out, BN: ct.Constant[int]):
    """``ct.cat`` of two 1-D tiles, the result broadcast by ``ct.broadcast_to`` to four rows, each
    row scaled by its index (``ct.arange`` of f32)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,))
    b = ct.load(B, index=(i,), shape=(BN,))
    row = ct.cat((a, b), axis=0)
    t = ct.broadcast_to(row[None, :], (4, 2 * BN)) * ct.arange(4, dtype=ct.float32)[:, None]
    ct.store(Out, index=(0, i), tile=t)


@ct.kernel
def nhwc_to_nchw_normalize(X, Mean, Std, Y, BW: ct.Constant[int]):
    """A uint8 image ``[H, W, 3]`` to normalised f32 ``[3, H, W]``: a ``(1, BW, 4)`` tile (the
    channel padded to 4) permuted to ``(4, 1, BW)``, per-channel mean / std (a zero std read as 1),
    the 3 channels stored as a ``(2, 1, BW)`` and a ``(1, 1, BW)`` extract; ragged W."""
    h, wb = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(h, wb, 0), shape=(1, BW, 4), padding_mode=ZERO).astype(ct.float32)
    mean = ct.load(Mean, index=(0,), shape=(4,), padding_mode=ZERO)
    std = ct.load(Std, index=(0,), shape=(4,), padding_mode=ZERO)
    std = ct.where(std == 0.0, 1.0, std)
    c = ct.permute(x, (2, 0, 1))
    y = (c * (1.0 / 255.0) - mean[:, None, None]) / std[:, None, None]
    ct.store(Y, index=(0, h, wb), tile=y.extract(index=(0, 0, 0), shape=(2, 1, BW)))
    ct.store(Y, index=(2, h, wb), tile=y.extract(index=(1, 0, 0), shape=(2, 1, BW)).extract(index=(0, 0, 0), shape=(1, 1, BW)))



# ----------------------------------------------------------------------------------------------- API corners


@ct.kernel
def printf_first_row_stats(X, Y, BN: ct.Constant[int]):
    """A row sum stored by every program; program 0 prints its row's sum and max with ``ct.printf``
    and the element count with ``ct.print`` (an f-string)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    s = ct.sum(x)
    if r == 0:
        ct.printf("row 0: sum %.3f max %.3f\n", s, ct.max(x))
        ct.print(f"n = {X.shape[1]}")
    ct.store(Y, index=(r,), tile=ct.reshape(s, (1,)))


@ct.kernel
def assert_nonnegative_sqrt(X, Y, BN: ct.Constant[int]):
    """``ct.assert_`` that every element is non-negative before a ``ct.sqrt``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.assert_(x >= 0.0, "sqrt of a negative value")
    ct.store(Y, index=(i,), tile=ct.sqrt(x))


@ct.kernel
def grid3_num_blocks_stride(X, Y, BS: ct.Constant[int], D: ct.Constant[int]):
    """A 3-axis grid over ``[B, H, S, D]`` (b, h, s-block) whose s-blocks stride by
    ``ct.num_blocks(2)`` (a grid smaller than the S tiles); each element plus the head's linear index
    ``b * num_blocks(1) + h``; ragged S."""
    b, h = ct.bid(0), ct.bid(1)
    for s in range(ct.bid(2), ct.num_tiles(X, axis=2, shape=(1, 1, BS, D)), ct.num_blocks(2)):
        x = ct.load(X, index=(b, h, s, 0), shape=(1, 1, BS, D), padding_mode=ZERO)
        ct.store(Y, index=(b, h, s, 0), tile=x + (b * ct.num_blocks(1) + h))


@ct.kernel(occupancy=2, opt_level=2)
def axpy_kernel_options(X, Y, Out, a: float, BN: ct.Constant[int]):
    """``out = a*x + y`` of bf16 with ``@ct.kernel(occupancy=2, opt_level=2)``; ragged length."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    y = ct.load(Y, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    ct.store(Out, index=(i,), tile=(a * x + y).astype(Out.dtype))


@ct.kernel(num_ctas=ct.ByTarget(sm_90=2, default=1), occupancy=ct.ByTarget(sm_90=4))
def softmax_rows_by_target(X, Y, BN: ct.Constant[int]):
    """A row softmax of f32 with ``num_ctas`` / ``occupancy`` given per architecture by
    ``ct.ByTarget`` (sm_90: clusters of 2, 4 CTAs per SM)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(r, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.function
def _silu(x):
    return x / (1.0 + ct.exp(-x))


@ct.kernel
def stencil_static_helpers(X, Y, BN: ct.Constant[int], TAPS: ct.Constant[int]):
    """A causal ``TAPS``-tap moving average followed by ``ct.function`` SiLU: the taps unrolled by
    ``ct.static_iter``, their weight by ``ct.static_eval``, ``ct.static_assert`` on the block and
    ``ct.ensure_constant`` folding an ``if``; tap ``t`` gathers ``x[i - t]`` (zero before the
    start, past the end: the gather's bounds check)."""
    ct.static_assert(BN % 32 == 0, "BN must be a multiple of 32")
    i = ct.bid(0)
    idx = ct.arange(BN, dtype=ct.int32) + i * BN
    acc = ct.zeros((BN,), dtype=ct.float32)
    for t in ct.static_iter(range(TAPS)):
        acc = acc + ct.gather(X, idx - t, mask=idx >= t)
    acc = acc * ct.static_eval(1.0 / TAPS)
    if ct.ensure_constant(TAPS > 1):
        acc = _silu(acc)
    ct.store(Y, index=(i,), tile=acc)


@ct.kernel
def divisible_hint_astile_weights(X, Y, n: int, BN: ct.Constant[int]):
    """``n = ct.assume_divisible_by(n, 16)`` for the row length, a 4-tap filter given by
    ``ct.astile`` of a tuple, applied to 4 consecutive columns (``(BN/4, 4)`` reshape) and summed."""
    r = ct.bid(0)
    n16 = ct.assume_divisible_by(n, 16)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    w = ct.astile((0.125, 0.375, 0.375, 0.125), dtype=ct.float32)
    y = ct.sum(ct.reshape(x, (BN // 4, 4)) * w[None, :], axis=1)
    cols = ct.arange(BN // 4, dtype=ct.int32) * 4
    ct.store(Y, index=(r, 0), tile=ct.where(cols < n16, y, 0.0).reshape((1, BN // 4)))


@ct.kernel
def array_slice_row_ranges(X, Starts, Out, BR: ct.Constant[int], BN: ct.Constant[int]):
    """``Array.slice`` of the rows ``[start, start + 20)`` of ``X`` (start per program from an int32
    array), its column sums in BR chunks with zero padding past the slice's end (not the array's)."""
    p = ct.bid(0)
    s = ct.load(Starts, index=(p,), shape=(1,)).item()
    sub = X.slice(axis=0, start=s, stop=s + 20)
    acc = ct.zeros((BN,), dtype=ct.float32)
    for k in range(ct.num_tiles(sub, axis=0, shape=(BR, BN))):
        acc = acc + ct.sum(ct.load(sub, index=(k, 0), shape=(BR, BN), padding_mode=ZERO), axis=0)
    ct.store(Out, index=(p, 0), tile=acc.reshape((1, BN)))


@ct.kernel
def advanced_indexing_rows_permuted(X, Perm, Y, BR: ct.Constant[int], BC: ct.Constant[int]):
    """Rows permuted by an index array: ``ct.load_advanced_indexing`` of rows ``perm[...]`` and a
    ``ct.Slice`` of columns at the program's column block, stored at the same rows of Y by
    ``ct.store_advanced_indexing`` (a scatter by the inverse permutation's rows)."""
    rb, cb = ct.bid(0), ct.bid(1)
    rows = ct.load(Perm, index=(rb,), shape=(BR,))
    t = ct.load_advanced_indexing(X, (rows, ct.Slice(cb * BC, BC)), padding_mode=ZERO)
    ct.store_advanced_indexing(Y, (ct.arange(BR, dtype=ct.int32) + rb * BR, ct.Slice(cb * BC, BC)), t + 1.0)


@ct.kernel
def atomics_bitwise_exchange(Bits, Xchg, Old, V, BN: ct.Constant[int]):
    """``ct.atomic_or`` / ``ct.atomic_and`` / ``ct.atomic_xor`` of int32 words by many programs
    (program ``p`` sets bit ``p``, clears bit ``p + 8``, flips bit ``p + 16`` of each word) and
    ``ct.atomic_xchg`` of a value whose returned old values are stored (relaxed, device scope)."""
    p = ct.bid(0)
    idx = ct.arange(BN, dtype=ct.int32)
    ct.atomic_or(Bits, idx, ct.full((BN,), 1 << p, dtype=ct.int32), memory_order=ct.MemoryOrder.RELAXED)
    ct.atomic_and(Bits, idx, ct.full((BN,), ~(1 << (p + 8)), dtype=ct.int32))
    ct.atomic_xor(Bits, idx, ct.full((BN,), 1 << (p + 16), dtype=ct.int32))
    v = ct.load(V, index=(p,), shape=(BN,))
    old = ct.atomic_xchg(Xchg, idx + p * BN, v, memory_scope=ct.MemoryScope.DEVICE)
    ct.store(Old, index=(p,), tile=old)


@ct.kernel
def atomic_min_max_int32_int64(X, Mn, Mx, Fmx, BN: ct.Constant[int]):
    """Column minimum / maximum of int32 rows by ``ct.atomic_min`` / ``ct.atomic_max`` (every program
    a row), and of the rows widened to int64 times 2^33 by ``ct.atomic_max`` on int64 (cuTile has no
    float atomic max)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN)).reshape((BN,))
    cols = ct.arange(BN, dtype=ct.int32)
    ct.atomic_min(Mn, cols, x)
    ct.atomic_max(Mx, cols, x)
    ct.atomic_max(Fmx, cols, x.astype(ct.int64) * (1 << 33))


@ct.kernel
def atomic_cas_claim_slots(Slots, Won, K: ct.Constant[int]):
    """Each program tries to claim slot ``bid % K`` by ``ct.atomic_cas(0 -> bid + 1)``: the program
    that finds 0 wins; every program stores whether it won (one winner per slot)."""
    p = ct.bid(0)
    old = ct.atomic_cas(Slots, p % K, 0, p + 1, memory_order=ct.MemoryOrder.ACQ_REL)
    ct.store(Won, index=(p,), tile=ct.reshape((old == 0).astype(ct.int32), (1,)))


@ct.kernel
def tiled_view_atomic_max_min_or(X, Mx, Mn, Or, BM: ct.Constant[int], BN: ct.Constant[int]):
    """``TiledView.atomic_store_max`` / ``atomic_store_min`` of int32 tiles and
    ``atomic_store_or`` of their low bits: every program (a row block of X) folds its tile into one
    ``(BM, BN)`` block of the outputs (the ragged last tile's padded rows read zeros, and fold in
    too: the outputs' block is in bounds)."""
    p = ct.bid(0)
    x = ct.load(X, index=(p, 0), shape=(BM, BN), padding_mode=ZERO)
    Mx.tiled_view((BM, BN)).atomic_store_max((0, 0), x)
    Mn.tiled_view((BM, BN)).atomic_store_min((0, 0), x)
    Or.tiled_view((BM, BN)).atomic_store_or((0, 0), x & 7)


@ct.kernel
def acquire_flag_release(Data, Flag, Out, BN: ct.Constant[int]):
    """Each program stores its data, then its flag with ``memory_order=RELEASE``; it reads the flag of
    program 0 with an ``ACQUIRE`` load at device scope (no spinning: the value is whatever it sees)
    and stores its data doubled."""
    p = ct.bid(0)
    d = ct.load(Data, index=(p,), shape=(BN,))
    ct.store(Out, index=(p,), tile=d * 2.0)
    ct.store(Flag, index=(p,), tile=ct.full((1,), 1, dtype=ct.int32), memory_order=ct.MemoryOrder.RELEASE,
             memory_scope=ct.MemoryScope.DEVICE)
    f = ct.load(Flag, index=(0,), shape=(1,), memory_order=ct.MemoryOrder.ACQUIRE, memory_scope=ct.MemoryScope.DEVICE)
    ct.store(Out, index=(p,), tile=d * 2.0 + (f.item() * 0).astype(ct.float32))


@ct.kernel
def pdl_wait_then_scale(X, Y, s: float, BN: ct.Constant[int]):
    """Programmatic dependent launch: ``ct.grid_dependency_control_wait()`` before reading the
    producer's output, ``launch_dependents`` after the last read."""
    i = ct.bid(0)
    ct.grid_dependency_control_wait()
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.grid_dependency_control_launch_dependents()
    ct.store(Y, index=(i,), tile=x * s)


# ----------------------------------------------------------------------------------------------- math and bandwidth


@ct.kernel
def transcendental_zoo(X, Y, A, P, BN: ct.Constant[int]):
    """``ct.atan2(y, x)``, ``ct.pow`` of a positive tile to a tile, softplus written stably
    (``max(x, 0) + log(1 + exp(-|x|))``), ``ct.tanh`` / ``sinh`` / ``cosh`` / ``tan`` / ``log2`` /
    ``exp2`` / ``ct.negative`` summed into one output."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = ct.load(Y, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(A, index=(i,), tile=ct.atan2(y, x))
    sp = ct.maximum(x, 0.0) + ct.log(1.0 + ct.exp(ct.negative(ct.abs(x))))
    t = ct.tanh(x) + ct.sinh(x * 0.5) - ct.cosh(x * 0.25) + ct.tan(x * 0.3) + ct.log2(ct.exp2(y * 0.5) + 1.0)
    ct.store(P, index=(i,), tile=sp + t + ct.pow(ct.abs(y) + 0.5, x * 0.5))


@ct.kernel
def elementwise_functions(X, Y, Out, Mx, Pr, BN: ct.Constant[int]):
    """The function forms of the operators: ``ct.add`` / ``sub`` / ``mul`` / ``truediv`` /
    ``maximum`` / ``minimum`` of tiles, ``ct.prod`` of a row of 1 +- small values and
    ``ct.max`` keepdims; two rows per program."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(2, BN))
    y = ct.load(Y, index=(r, 0), shape=(2, BN))
    z = ct.truediv(ct.sub(ct.mul(ct.add(x, y), x), y), ct.add(ct.abs(y), 1.0))
    ct.store(Out, index=(r, 0), tile=ct.minimum(ct.maximum(z, -3.0), 3.0))
    ct.store(Mx, index=(r, 0), tile=ct.max(z, axis=1, keepdims=True))
    ct.store(Pr, index=(r, 0), tile=ct.prod(1.0 + x * 0.01, axis=1, keepdims=True))


@ct.kernel
def constructors_dtypes(Z, O, F, A, BN: ct.Constant[int]):
    """``ct.zeros`` of int64, ``ct.ones`` of f16, ``ct.full`` of bool, ``ct.arange`` of int16 with
    ``start`` / ``step``, each plus the program id."""
    i = ct.bid(0)
    ct.store(Z, index=(i,), tile=ct.zeros((BN,), dtype=ct.int64) + i)
    ct.store(O, index=(i,), tile=ct.ones((BN,), dtype=ct.float16) * (i + 1))
    ct.store(F, index=(i,), tile=ct.full((BN,), i % 2 == 0, dtype=ct.bool_))
    ct.store(A, index=(i,), tile=(ct.arange(BN, dtype=ct.int16, start=-5, step=3) + i).astype(ct.int16))


@ct.kernel
def softmax_long_rows_f32(X, Y, BN: ct.Constant[int]):
    """A row softmax of 4096 f32 (16 KiB a row: a row across several warps), one row per program."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN))
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(r, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def bias_gelu_tanh_bf16(X, B, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """``gelu_tanh(x + bias)`` of bf16 ``[M, N]`` in ``(BM, BN)`` tiles on a 2-D grid (the bias a
    row vector), ragged both ways."""
    m, n = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(m, n), shape=(BM, BN), padding_mode=ZERO).astype(ct.float32)
    b = ct.load(B, index=(n,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    v = x + b[None, :]
    g = 0.5 * v * (1.0 + ct.tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)))
    ct.store(Y, index=(m, n), tile=g.astype(Y.dtype))


@ct.kernel
def col_sum_3d_vs_2d(X, Out, BS: ct.Constant[int], D: ct.Constant[int]):
    """Sum over S of ``[B, S, D]`` f16 (into f32 ``[B, D]``), an S loop of ``(1, BS, D)`` tiles."""
    b = ct.bid(0)
    acc = ct.zeros((1, D), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BS, D))):
        x = ct.load(X, index=(b, k, 0), shape=(1, BS, D), padding_mode=ZERO).astype(ct.float32)
        acc = acc + ct.sum(x, axis=1)
    ct.store(Out, index=(b, 0), tile=acc)


@ct.kernel
def f64_row_norms(X, Y, BN: ct.Constant[int]):
    """The L2 norm of f64 rows (``ct.sqrt`` of an f64 sum) and each row divided by it."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    nrm = ct.sqrt(ct.sum(x * x, axis=1, keepdims=True))
    ct.store(Y, index=(r, 0), tile=x / nrm)


@ct.kernel
def segment_sum_sorted_keys(Keys, Vals, Out, BN: ct.Constant[int]):
    """A segmented sum of f32 values by int32 keys (sorted, so a program meets few segments):
    ``ct.atomic_add(Out, keys, vals)`` with the ragged tail's keys set to -1 (skipped)."""
    i = ct.bid(0)
    idx = ct.arange(BN, dtype=ct.int32) + i * BN
    k = ct.load(Keys, index=(i,), shape=(BN,), padding_mode=ZERO)
    v = ct.load(Vals, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.atomic_add(Out, ct.where(idx < Keys.shape[0], k, -1), v)



@ct.kernel
def embedding_bwd_bf16_atomic(Ids, DY, DW, BT: ct.Constant[int], BD: ct.Constant[int]):
    """Embedding backward kept in bf16: ``dW[ids[t], :] += dY[t, :]`` by ``ct.atomic_add`` on a bf16
    table (``atom.add.noftz.bf16``: each add rounds to bf16), ragged T."""
    t = ct.bid(0)
    rows = ct.arange(BT, dtype=ct.int32) + t * BT
    ids = ct.load(Ids, index=(t,), shape=(BT,), padding_mode=ZERO)
    ids = ct.where(rows < Ids.shape[0], ids, -1)
    dy = ct.load(DY, index=(t, 0), shape=(BT, BD), padding_mode=ZERO)
    ct.atomic_add(DW, (ids[:, None], ct.arange(BD, dtype=ct.int32)[None, :]), dy)


F16, BF16, F32 = "float16", "bfloat16", "float32"

_add("layernorm_fwd_stats", layernorm_fwd_stats,
     [((37, 300), F16), ((300,), F16), ((300,), F16), ((37, 300), F16), ((37,), F32), ((37,), F32), 300, 1e-5, 512],
     (37,), "simt", outputs=(3, 4, 5))
_add("layernorm_bwd_dx_group_partials", layernorm_bwd_dx_group_partials,
     [((40, 300), F16), ((40, 300), F16), ((300,), F16), ((40,), F32), ((40,), F32), ((40, 300), F16),
      ((5, 300), F32), ((5, 300), F32), 8, 512], (5,), "simt", outputs=(5, 6, 7))
_add("column_sums_of_partials", column_sums_of_partials, [((13, 300), F32), ((300,), F32), 8, 128], (3,), "simt",
     outputs=(1,))
_add("rmsnorm_bwd_atomic_dgamma", rmsnorm_bwd_atomic_dgamma,
     [((33, 200), BF16), ((33, 200), BF16), ((200,), BF16), ((33, 200), BF16), ((200,), F32), 1e-6, 256], (33,),
     "simt", outputs=(3, 4))
_add("rmsnorm_rows_2d", rmsnorm_rows_2d, [((24, 256), F16), ((256,), F16), ((24, 256), F16), 1e-6, 256], (24,),
     "simt", outputs=(2,))
_add("rmsnorm_rows_3d", rmsnorm_rows_3d, [((4, 6, 256), F16), ((256,), F16), ((4, 6, 256), F16), 1e-6, 256], (4, 6),
     "simt", outputs=(2,))
_add("layernorm_4d_heads", layernorm_4d_heads, [((2, 3, 50, 64), F32), ((2, 3, 50, 64), F32), 1e-5, 16, 64],
     (2, 3, 4), "simt", outputs=(1,))
_add("softmax_bwd_two_rows", softmax_bwd_two_rows, [((13, 200), F16), ((13, 200), F16), ((13, 200), F16), 256],
     (7,), "simt", outputs=(2,))
_add("log_softmax_vocab_loop", log_softmax_vocab_loop, [((6, 1000), BF16), ((6, 1000), BF16), 256], (6,), "simt",
     outputs=(1,))
_add("cross_entropy_fwd_bwd_vocab", cross_entropy_fwd_bwd_vocab,
     [((8, 1000), F16), ((8,), "int64"), ((8,), F32), ((8, 1000), F16), -100, 0.125, 256], (8,), "simt",
     outputs=(2, 3))
_add("online_top1_vocab", online_top1_vocab, [((5, 1000), F16), ((5,), F32), ((5,), "int64"), 256], (5,), "simt",
     outputs=(1, 2))
_add("column_argmin_row_chunks", column_argmin_row_chunks, [((100, 200), F32), ((1, 200), "int32"), 32, 64], (4,),
     "simt", outputs=(1,))
_add("cumprod_cols_carry", cumprod_cols_carry, [((100, 96), F32), ((100, 96), F32), 32, 32], (3,), "simt",
     outputs=(1,))
_add("cumsum_int64_reverse_rows", cumsum_int64_reverse_rows, [((10, 100), "int32"), ((10, 100), "int64"), 128],
     (3,), "simt", outputs=(1,))
_add("custom_scan_reduce", custom_scan_reduce, [((4, 64), F32), ((4, 64), F32), ((4, 1), F32), 64], (4,), "simt",
     outputs=(1, 2))
_add("histogram_float_bins_atomic", histogram_float_bins_atomic, [((1000,), F32), ((20,), "int32"), -2.0, 5.0, 256],
     (4,), "simt", outputs=(1,))
_add("row_histogram_2d_indices", row_histogram_2d_indices, [((6, 100), "uint8"), ((6, 16), "int32"), 128], (6,),
     "simt", outputs=(1,))
_add("embedding_gather_int64_ids", embedding_gather_int64_ids,
     [((50,), "int64"), ((40, 96), BF16), ((50, 96), BF16), 16, 128], (4,), "simt", outputs=(2,))
_add("embedding_bwd_scatter_add_2d", embedding_bwd_scatter_add_2d,
     [((50,), "int32"), ((50, 64), F32), ((20, 64), F32), 16, 64], (4,), "simt", outputs=(2,))
_add("rope_interleaved_reshape_permute", rope_interleaved_reshape_permute,
     [((64, 64), F16), ((64, 32), F32), ((64, 32), F32), ((64, 64), F16), 16, 64], (4,), "simt", outputs=(3,))
_add("rope_half_split_positions", rope_half_split_positions,
     [((40, 4, 128), BF16), ((40,), "int32"), ((40, 4, 128), BF16), 10000.0, 16, 128], (3, 4), "simt",
     outputs=(2,))
_add("dropout_hash_uint32", dropout_hash_uint32, [((1000,), F32), ((1000,), F32), ((1000,), "uint8"), 1234, 0.25, 256],
     (4,), "simt", outputs=(1, 2))
_add("quant_rows_absmax_fp8", quant_rows_absmax_fp8,
     [((9, 300), F16), ((9, 300), "float8_e4m3fn"), ((9, 300), "float8_e5m2"), ((9,), F32), 512], (9,), "simt",
     outputs=(1, 2, 3))
_add("dequant_fp8_rows", dequant_fp8_rows, [((9, 300), "float8_e4m3fn"), ((9,), F32), ((9, 300), BF16), 512], (5,),
     "simt", outputs=(2,))
_add("quant_int8_round_half_away", quant_int8_round_half_away, [((7, 200), F32), ((7, 200), "int8"), ((7,), F32), 256],
     (7,), "simt", outputs=(1, 2))
_add("dequant_int8_to_f16", dequant_int8_to_f16, [((7, 200), "int8"), ((7,), F32), ((7, 200), F16), 256], (7,),
     "simt", outputs=(2,))
_add("bit_ops_rotate_popcount", bit_ops_rotate_popcount,
     [((300,), "uint32"), ((300,), "uint32"), ((300,), "int32"), ((300,), "uint32"), 7, 128], (3,), "simt",
     outputs=(1, 2, 3))
_add("float_fields_by_bitcast", float_fields_by_bitcast,
     [((300,), F32), ((300,), "int32"), ((300,), "int32"), ((300,), F32), 3, 128], (3,), "simt", outputs=(1, 2, 3))
_add("signed_shifts_by_tiles", signed_shifts_by_tiles,
     [((200,), "int32"), ((200,), "int32"), ((200,), "int32"), ((200,), "int32"), 128], (2,), "simt", outputs=(2, 3))
_add("pack_unpack_bytes", pack_unpack_bytes, [((256,), F16), ((512,), "uint8"), ((256,), "int16"), 64], (4,), "simt",
     outputs=(1, 2))
_add("int16_divmod_negatives", int16_divmod_negatives,
     [((300,), "int16"), ((300,), "int16")] + [((300,), "int16")] * 4 + [((300,), F32), 128], (3,), "simt",
     outputs=(2, 3, 4, 5, 6))
_add("int64_flat_index_gather", int64_flat_index_gather,
     [((333 * 50,), F32), ((200,), "int32"), ((200,), "int32"), ((200,), F32), 64], (4,), "simt", outputs=(3,))
_add("nan_inf_cleanup", nan_inf_cleanup, [((300,), F32), ((300,), F32), ((300,), "int8"), 1e4, 128], (3,), "simt",
     outputs=(1, 2))
_add("bool_mask_masked_mean", bool_mask_masked_mean,
     [((6, 100), F32), ((6, 100), "bool_"), ((6,), F32), ((6,), "int32"), 128], (6,), "simt", outputs=(2, 3))
_add("transpose_3d_axes", transpose_3d_axes,
     [((2, 64, 32), F32), ((32, 64, 2), F32), ((32, 64), F32), 16, 32], (4,), "simt", outputs=(1, 2))
_add("pixel_shuffle_rank4", pixel_shuffle_rank4, [((3 * 4, 16, 8), F32), ((3, 32, 16), F32), 2, 4, 8], (3, 4),
     "simt", outputs=(1,))
_add("outer_sum_rank4", outer_sum_rank4,
     [((2,), F32), ((3,), F32), ((20,), F32), ((16,), F32), ((2, 3, 20, 16), F32), 8, 16], (2, 3, 3), "simt",
     outputs=(4,))
_add("extract_insert_rank3", extract_insert_rank3, [((4, 8, 16), F32), ((4, 8, 16), F32)], (1,), "simt", outputs=(1,))
_add("one_element_tiles", one_element_tiles, [((5,), F32), ((5,), F32), ((5, 1), F32)], (5,), "simt", outputs=(1, 2))
_add("sum_to_scalar_atomic", sum_to_scalar_atomic, [((1000,), F32), ((1,), F32), ((1,), "int32"), 256], (4,), "simt",
     outputs=(1, 2))
_add("ragged_3d_padding_modes", ragged_3d_padding_modes,
     [((5, 7, 9), F32), ((5, 7), F32), ((5, 7), F32), ((5, 7), "int32"), 2, 4, 16], (3, 2), "simt",
     outputs=(1, 2, 3))
_add("cat_rank1_broadcast", cat_rank1_broadcast, [((64,), F32), ((64,), F32), ((4, 128), F32), 32], (2,), "simt",
     outputs=(2,))
_add("nhwc_to_nchw_normalize", nhwc_to_nchw_normalize,
     [((5, 50, 3), "uint8"), ((3,), F32), ((3,), F32), ((3, 5, 50), F32), 32], (5, 2), "simt", outputs=(3,))
_add("printf_first_row_stats", printf_first_row_stats, [((4, 100), F32), ((4,), F32), 128], (4,), "simt",
     outputs=(1,))
_add("assert_nonnegative_sqrt", assert_nonnegative_sqrt, [((300,), F32), ((300,), F32), 128], (3,), "simt",
     outputs=(1,))
_add("grid3_num_blocks_stride", grid3_num_blocks_stride, [((2, 3, 70, 32), F32), ((2, 3, 70, 32), F32), 8, 32],
     (2, 3, 4), "simt", outputs=(1,))
_add("axpy_kernel_options", axpy_kernel_options, [((1000,), BF16), ((1000,), BF16), ((1000,), BF16), 0.5, 256], (4,),
     "simt", outputs=(2,))
_add("softmax_rows_by_target", softmax_rows_by_target, [((10, 300), F32), ((10, 300), F32), 512], (10,), "simt",
     outputs=(1,))
_add("stencil_static_helpers", stencil_static_helpers, [((300,), F32), ((300,), F32), 128, 3], (3,), "simt",
     outputs=(1,))
_add("divisible_hint_astile_weights", divisible_hint_astile_weights, [((3, 128), F32), ((3, 32), F32), 112, 128],
     (3,), "simt", outputs=(1,))
_add("array_slice_row_ranges", array_slice_row_ranges, [((50, 64), F32), ((3,), "int32"), ((3, 64), F32), 8, 64], (3,),
     "simt", outputs=(2,))
_add("advanced_indexing_rows_permuted", advanced_indexing_rows_permuted,
     [((32, 100), F32), ((32,), "int32"), ((32, 100), F32), 8, 64], (4, 2), "simt", outputs=(2,))
_add("atomics_bitwise_exchange", atomics_bitwise_exchange,
     [((64,), "int32"), ((8 * 64,), "int32"), ((8 * 64,), "int32"), ((8 * 64,), "int32"), 64], (8,), "simt",
     outputs=(0, 1, 2))
_add("atomic_min_max_int32_int64", atomic_min_max_int32_int64,
     [((9, 64), "int32"), ((64,), "int32"), ((64,), "int32"), ((64,), "int64"), 64], (9,), "simt", outputs=(1, 2, 3))
_add("atomic_cas_claim_slots", atomic_cas_claim_slots, [((4,), "int32"), ((12,), "int32"), 4], (12,), "simt",
     outputs=(0, 1))
_add("tiled_view_atomic_max_min_or", tiled_view_atomic_max_min_or,
     [((30, 16), "int32"), ((8, 16), "int32"), ((8, 16), "int32"), ((8, 16), "int32"), 8, 16], (4,), "simt",
     outputs=(1, 2, 3))
_add("acquire_flag_release", acquire_flag_release, [((4 * 64,), F32), ((4,), "int32"), ((4 * 64,), F32), 64], (4,),
     "simt", outputs=(1, 2))
_add("pdl_wait_then_scale", pdl_wait_then_scale, [((300,), F32), ((300,), F32), 3.0, 128], (3,), "simt", outputs=(1,))
_add("transcendental_zoo", transcendental_zoo, [((300,), F32), ((300,), F32), ((300,), F32), ((300,), F32), 128], (3,),
     "simt", outputs=(2, 3))
_add("elementwise_functions", elementwise_functions,
     [((6, 64), F32), ((6, 64), F32), ((6, 64), F32), ((6, 1), F32), ((6, 1), F32), 64], (3,), "simt",
     outputs=(2, 3, 4))
_add("constructors_dtypes", constructors_dtypes,
     [((128,), "int64"), ((128,), F16), ((128,), "bool_"), ((128,), "int16"), 32], (4,), "simt", outputs=(0, 1, 2, 3))
_add("softmax_long_rows_f32", softmax_long_rows_f32, [((6, 4096), F32), ((6, 4096), F32), 4096], (6,), "simt",
     outputs=(1,))
_add("bias_gelu_tanh_bf16", bias_gelu_tanh_bf16, [((100, 300), BF16), ((300,), BF16), ((100, 300), BF16), 32, 128],
     (4, 3), "simt", outputs=(2,))
_add("col_sum_3d_vs_2d", col_sum_3d_vs_2d, [((3, 70, 64), F16), ((3, 64), F32), 16, 64], (3,), "simt", outputs=(1,))
_add("f64_row_norms", f64_row_norms, [((5, 100), "float64"), ((5, 100), "float64"), 128], (5,), "simt", outputs=(1,))
_add("segment_sum_sorted_keys", segment_sum_sorted_keys, [((1000,), "int32"), ((1000,), F32), ((40,), F32), 256],
     (4,), "simt", outputs=(2,))
_add("embedding_bwd_bf16_atomic", embedding_bwd_bf16_atomic,
     [((50,), "int32"), ((50, 64), BF16), ((20, 64), BF16), 16, 64], (4,), "simt", outputs=(2,),
     notes="found by this sweep: a bf16 atomic_add was refused ('atomic_rmw on bf16 elements'): now "
           "atom.global.add.noftz.bf16")
