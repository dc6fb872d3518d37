"""Review 30: memory-bound model ops as users port them from Triton -- cross-entropy with ``ignore_index`` labels
(the label's logit gathered, the mean loss by atomics), an embedding lookup with int64 ids plus positions, a fused
AdamW step updating three arrays in place, a KV-cache append scattering rows at positions from an array, per-token
int8 quantization (absmax scale, round half away from zero, saturation), GroupNorm on (N, C, HW), the softmax
backward, masked mean pooling over the middle axis of (B, S, D), ``searchsorted`` by a carried binary search of
gathers, a column cumsum in both directions.  SIMT-path programs on the PTX emulator through the launcher's
argument description (``test_review30_blocks.run``), outputs NaN / sentinel-prefilled.  Needs cuda-tile and
ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from test_review30_blocks import NEG_INF, RNG, ZERO, C, close, nans, randn, run, sent  # noqa: E402


@ct.kernel
def cross_entropy_ignore(X, Labels, Loss, Total, Count, BM: C[int], BN: C[int]):
    """loss[r] = logsumexp(x[r]) - x[r, label[r]] (0 where label == -100); Total += sum of losses, Count += valid."""
    i = ct.bid(0)
    rows = i * BM + ct.arange(BM, dtype=ct.int32)
    x = ct.load(X, index=(i, 0), shape=(BM, BN), padding_mode=NEG_INF).astype(ct.float32)
    lab = ct.load(Labels, index=(i,), shape=(BM,), padding_mode=ZERO)
    valid = (lab != -100) & (rows < X.shape[0])
    safe = ct.where(valid, lab, 0).astype(ct.int32)
    picked = ct.gather(X, (rows, safe), padding_value=0).astype(ct.float32)
    m = ct.max(x, axis=1)
    lse = m + ct.log(ct.sum(ct.exp(x - m[:, None]), axis=1))
    loss = ct.where(valid, lse - picked, 0.0)
    ct.store(Loss, index=(i,), tile=loss)
    ct.atomic_add(Total, ct.zeros((1,), dtype=ct.int32), ct.sum(loss, axis=0, keepdims=True))
    ct.atomic_add(Count, ct.zeros((1,), dtype=ct.int32), ct.sum(valid.astype(ct.int32), axis=0, keepdims=True))


def test_cross_entropy_with_ignored_labels():
    m, n = 11, 50
    x = randn(m, n, dtype=np.float16, scale=2)
    lab = RNG.integers(0, n, m).astype(np.int64)
    lab[[2, 7]] = -100
    loss, total, count = nans(m), np.zeros(1, np.float32), np.zeros(1, np.int32)
    run(cross_entropy_ignore, [x, lab, loss, total, count, 4, 64], (3,))
    x64 = x.astype(np.float64)
    mx = x64.max(1)
    lse = mx + np.log(np.exp(x64 - mx[:, None]).sum(1))
    want = np.where(lab == -100, 0, lse - x64[np.arange(m), np.maximum(lab, 0)])
    close(loss, want, 1e-5, 1e-5)
    close(total, [want.sum()], 1e-5)
    assert count[0] == m - 2


@ct.kernel
def embed_with_positions(Ids, W, P, Y, start: int, BT: C[int], D: C[int]):
    """y[t] = W[ids[t]] + P[start + t] (bf16 tables, f32 out); ids int64."""
    t = ct.bid(0)
    rows = t * BT + ct.arange(BT, dtype=ct.int32)
    ids = ct.load(Ids, index=(t,), shape=(BT,), padding_mode=ZERO)
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    e = ct.gather(W, (ids[:, None], cols), padding_value=0)
    p = ct.gather(P, ((rows + start)[:, None], cols), padding_value=0)
    ct.store(Y, index=(t, 0), tile=e.astype(ct.float32) + p.astype(ct.float32))


def test_embedding_lookup_with_int64_ids_and_positions():
    from test_review30_blocks import BF16

    ids = RNG.integers(0, 40, 13).astype(np.int64)
    w, p = randn(40, 16, dtype=BF16), randn(32, 16, dtype=BF16)
    y = nans((13, 16))
    run(embed_with_positions, [ids, w, p, y, 5, 8, 16], (2,))
    close(y, w[ids].astype(np.float64) + p[5:18].astype(np.float64), 1e-6)


@ct.kernel
def adamw_step(Pm, G, M, V, lr: float, b1: float, b2: float, eps: float, wd: float, c1: float, c2: float,
               BN: C[int]):
    """One AdamW step on flat f32 arrays, p / m / v updated in place (c1, c2: the bias corrections)."""
    i = ct.bid(0)
    p = ct.load(Pm, index=(i,), shape=(BN,), padding_mode=ZERO)
    g = ct.load(G, index=(i,), shape=(BN,), padding_mode=ZERO)
    m = b1 * ct.load(M, index=(i,), shape=(BN,), padding_mode=ZERO) + (1.0 - b1) * g
    v = b2 * ct.load(V, index=(i,), shape=(BN,), padding_mode=ZERO) + (1.0 - b2) * g * g
    p = p * (1.0 - lr * wd) - lr * (m / c1) / (ct.sqrt(v / c2) + eps)
    ct.store(M, index=(i,), tile=m)
    ct.store(V, index=(i,), tile=v)
    ct.store(Pm, index=(i,), tile=p)


def test_adamw_updates_three_arrays_in_place():
    n = 77
    p, g, m, v = randn(n), randn(n), randn(n, scale=0.1), np.abs(randn(n, scale=0.1))
    p0, m0, v0 = p.astype(np.float64), m.astype(np.float64), v.astype(np.float64)
    lr, b1, b2, eps, wd, t = 1e-3, 0.9, 0.999, 1e-8, 0.01, 7
    c1, c2 = 1 - b1 ** t, 1 - b2 ** t
    run(adamw_step, [p, g, m, v, lr, b1, b2, eps, wd, c1, c2, 32], (3,))
    g64 = g.astype(np.float64)
    wm = b1 * m0 + (1 - b1) * g64
    wv = b2 * v0 + (1 - b2) * g64 * g64
    close(m, wm, 1e-6)
    close(v, wv, 1e-5, 1e-9)
    close(p, p0 * (1 - lr * wd) - lr * (wm / c1) / (np.sqrt(wv / c2) + eps), 1e-5, 1e-7)


@ct.kernel
def kv_cache_append(Cache, New, Pos, BT: C[int], D: C[int]):
    """cache[pos[t], :] = new[t, :] for the tokens of this tile (positions from an int32 array, -1: skip)."""
    t = ct.bid(0)
    pos = ct.load(Pos, index=(t,), shape=(BT,), padding_mode=ZERO)
    rows = t * BT + ct.arange(BT, dtype=ct.int32)
    keep = (pos >= 0) & (rows < New.shape[0])
    x = ct.load(New, index=(t, 0), shape=(BT, D), padding_mode=ZERO)
    ct.scatter(Cache, (pos[:, None], ct.arange(D, dtype=ct.int32)[None, :]), x, mask=keep[:, None])


def test_kv_cache_append_at_positions():
    cache = np.full((20, 8), 77, np.float16)
    new = randn(6, 8, dtype=np.float16)
    pos = np.array([3, 19, -1, 0, 7, 12], np.int32)
    run(kv_cache_append, [cache, new, pos, 4, 8], (2,))
    want = np.full((20, 8), 77, np.float16)
    for t in range(6):
        if pos[t] >= 0:
            want[pos[t]] = new[t]
    np.testing.assert_array_equal(cache, want)


@ct.kernel
def quantize_per_token(X, Q, S, BM: C[int], BN: C[int]):
    """s = absmax(row) / 127; q = int8(round-half-away(x / s)), saturated."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, BN), padding_mode=ZERO).astype(ct.float32)
    s = ct.maximum(ct.max(ct.abs(x), axis=1, keepdims=True), 1e-8) / 127.0
    y = x / s
    r = ct.where(y >= 0.0, ct.floor(y + 0.5), ct.ceil(y - 0.5))
    q = ct.minimum(ct.maximum(r, -128.0), 127.0).astype(ct.int8)
    ct.store(Q, index=(i, 0), tile=q)
    ct.store(S, index=(i,), tile=ct.reshape(s, (BM,)))


def test_per_token_int8_quantization():
    x = randn(7, 45, dtype=np.float16, scale=3)
    x[3] = 0  # an all-zero row: the floor of the scale
    q, s = sent((7, 45), np.int8), nans(7)
    run(quantize_per_token, [x, q, s, 4, 64], (2,))
    x32 = x.astype(np.float32)
    ws = np.maximum(np.abs(x32).max(1, keepdims=True), np.float32(1e-8)) / np.float32(127)
    y = x32 / ws
    wq = np.clip(np.where(y >= 0, np.floor(y + np.float32(0.5)), np.ceil(y - np.float32(0.5))), -128, 127)
    close(s, ws[:, 0], 0, 0)
    np.testing.assert_array_equal(q, wq.astype(np.int8))


@ct.kernel
def group_norm(X, W, B, Y, eps: float, G: C[int], CG: C[int], HW: C[int]):
    """GroupNorm of one sample (axis 0 of (N, C, HW)) per program: the (C, HW) tile seen as (G, CG * HW)."""
    n = ct.bid(0)
    x = ct.reshape(ct.load(X, index=(n, 0, 0), shape=(1, G * CG, HW)), (G, CG * HW)).astype(ct.float32)
    mean = ct.sum(x, axis=1, keepdims=True) / (CG * HW)
    d = x - mean
    var = ct.sum(d * d, axis=1, keepdims=True) / (CG * HW)
    y = ct.reshape(d * ct.rsqrt(var + eps), (G * CG, HW))
    w = ct.load(W, index=(0,), shape=(G * CG,))[:, None]
    b = ct.load(B, index=(0,), shape=(G * CG,))[:, None]
    ct.store(Y, index=(n, 0, 0), tile=ct.reshape(y * w + b, (1, G * CG, HW)).astype(Y.dtype))


def test_group_norm():
    x = randn(2, 8, 16, dtype=np.float16)
    w, b = randn(8), randn(8)
    y = nans((2, 8, 16), np.float16)
    run(group_norm, [x, w, b, y, 1e-5, 4, 2, 16], (2,))
    g = x.astype(np.float64).reshape(2, 4, 32)
    z = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5)).reshape(2, 8, 16)
    close(y, z * w[None, :, None] + b[None, :, None], 3e-3, 3e-3)


@ct.kernel
def softmax_backward(Yp, DY, DX, BM: C[int], BN: C[int]):
    i = ct.bid(0)
    y = ct.load(Yp, index=(i, 0), shape=(BM, BN), padding_mode=ZERO).astype(ct.float32)
    dy = ct.load(DY, index=(i, 0), shape=(BM, BN), padding_mode=ZERO).astype(ct.float32)
    ct.store(DX, index=(i, 0), tile=(y * (dy - ct.sum(y * dy, axis=1, keepdims=True))).astype(DX.dtype))


def test_softmax_backward():
    z = randn(9, 30)
    y = (np.exp(z) / np.exp(z).sum(1, keepdims=True)).astype(np.float32)
    dy = randn(9, 30)
    dx = nans((9, 30))
    run(softmax_backward, [y, dy, dx, 4, 32], (3,))
    y64, dy64 = y.astype(np.float64), dy.astype(np.float64)
    close(dx, y64 * (dy64 - (y64 * dy64).sum(1, keepdims=True)), 1e-5, 1e-7)


@ct.kernel
def masked_mean_pool(X, Mask, Y, BS: C[int], D: C[int]):
    """y[b] = sum_s mask[b, s] x[b, s] / max(1, sum_s mask[b, s]); (B, S, D) with S looped over tiles."""
    b = ct.bid(0)
    acc = ct.zeros((1, D), dtype=ct.float32)
    cnt = ct.zeros((1, 1), dtype=ct.float32)
    for s in range(ct.cdiv(X.shape[1], BS)):
        x = ct.reshape(ct.load(X, index=(b, s, 0), shape=(1, BS, D), padding_mode=ZERO), (BS, D)).astype(ct.float32)
        m = ct.reshape(ct.load(Mask, index=(b, s), shape=(1, BS), padding_mode=ZERO), (BS, 1)).astype(ct.float32)
        acc = acc + ct.sum(x * m, axis=0, keepdims=True)
        cnt = cnt + ct.sum(m, axis=0, keepdims=True)
    ct.store(Y, index=(b, 0), tile=acc / ct.maximum(cnt, 1.0))


def test_masked_mean_pooling_over_the_middle_axis():
    x = randn(3, 21, 16, dtype=np.float16)
    mask = (RNG.uniform(size=(3, 21)) < 0.6).astype(np.int32)
    mask[2] = 0
    y = nans((3, 16))
    run(masked_mean_pool, [x, mask, y, 8, 16], (3,))
    want = (x.astype(np.float64) * mask[..., None]).sum(1) / np.maximum(1, mask.sum(1))[:, None]
    close(y, want, 1e-5, 1e-6)


@ct.kernel
def searchsorted_left(Sorted, V, Out, STEPS: C[int], BN: C[int]):
    """out[i] = the first j with sorted[j] >= v[i], by STEPS halvings of [lo, hi) carried as tiles."""
    i = ct.bid(0)
    v = ct.load(V, index=(i,), shape=(BN,), padding_mode=ZERO)
    lo = ct.zeros((BN,), dtype=ct.int32)
    hi = ct.full((BN,), Sorted.shape[0], dtype=ct.int32)
    for _ in range(STEPS):
        mid = (lo + hi) // 2
        go = lo < hi
        s = ct.gather(Sorted, mid, padding_value=float("inf"))
        right = go & (s < v)
        lo = ct.where(right, mid + 1, lo)
        hi = ct.where(go & ~right, mid, hi)
    ct.store(Out, index=(i,), tile=lo)


def test_searchsorted_by_a_carried_binary_search():
    srt = np.sort(RNG.integers(-50, 50, 37)).astype(np.float32)
    v = np.concatenate([srt[[0, 5, 36]], RNG.uniform(-60, 60, 20).astype(np.float32), [np.float32(99)]])
    out = sent(24)
    run(searchsorted_left, [srt, v, out, 7, 16], (2,))
    np.testing.assert_array_equal(out, np.searchsorted(srt, v, side="left"))


@ct.kernel
def column_cumsums(X, F, R, BM: C[int], BN: C[int]):
    """Down and up each column of one tile (7 x 13 in 8 x 16), int32."""
    x = ct.load(X, index=(0, 0), shape=(BM, BN), padding_mode=ZERO)
    ct.store(F, index=(0, 0), tile=ct.cumsum(x, axis=0))
    ct.store(R, index=(0, 0), tile=ct.cumsum(x, axis=0, reverse=True))


def test_column_cumsum_both_ways_on_a_ragged_tile():
    x = RNG.integers(-1000, 1000, (7, 13)).astype(np.int32)
    f, r = sent((7, 13)), sent((7, 13))
    run(column_cumsums, [x, f, r, 8, 16], (1,))
    np.testing.assert_array_equal(f, np.cumsum(x, 0))
    np.testing.assert_array_equal(r, np.cumsum(x[::-1], 0)[::-1])


@ct.kernel
def layernorm_bwd_dw_db(X, DY, Mean, Rstd, DW, DB, Lock, G: C[int], BN: C[int]):
    """Triton's LayerNorm backward, its dW / dB part: each row adds dy * xhat and dy to its group's partial sums under
    a spin lock (``atomic_cas`` with acquire until it reads 0, ``atomic_xchg`` with release)."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    dy = ct.load(DY, index=(row, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    xhat = (x - ct.load(Mean, index=(row,), shape=(1,))[:, None]) * ct.load(Rstd, index=(row,), shape=(1,))[:, None]
    g = row % G
    gi = ct.full((1,), g, dtype=ct.int32)
    one, zero = ct.ones((1,), dtype=ct.int32), ct.zeros((1,), dtype=ct.int32)
    while ct.atomic_cas(Lock, gi, zero, one, memory_order=ct.MemoryOrder.ACQUIRE).item() == 1:
        pass
    ct.store(DW, index=(g, 0), tile=ct.load(DW, index=(g, 0), shape=(1, BN), padding_mode=ZERO) + dy * xhat)
    ct.store(DB, index=(g, 0), tile=ct.load(DB, index=(g, 0), shape=(1, BN), padding_mode=ZERO) + dy)
    ct.atomic_xchg(Lock, gi, zero, memory_order=ct.MemoryOrder.RELEASE)


def test_layernorm_backward_partial_sums_under_a_spin_lock():
    m, n, groups = 10, 40, 3
    x, dy = randn(m, n, dtype=np.float16), randn(m, n, dtype=np.float16)
    x32 = x.astype(np.float32)
    mean, rstd = x32.mean(1), (1 / np.sqrt(x32.var(1) + 1e-5)).astype(np.float32)
    dw, db, lock = np.zeros((groups, n), np.float32), np.zeros((groups, n), np.float32), np.zeros(groups, np.int32)
    prog = run(layernorm_bwd_dw_db, [x, dy, mean, rstd, dw, db, lock, groups, 64], (m,))
    xh = (x32.astype(np.float64) - mean[:, None]) * rstd[:, None]
    want_dw, want_db = np.zeros((groups, n)), np.zeros((groups, n))
    for r in range(m):
        want_dw[r % groups] += dy[r] * xh[r]
        want_db[r % groups] += dy[r]
    close(dw, want_dw, 1e-5, 1e-5)
    close(db, want_db, 1e-5, 1e-5)
    assert (lock == 0).all()
    assert "atom.acquire.gpu.global.cas" in prog.ptx and "fence.release.gpu" in prog.ptx  # (the orders kept)
