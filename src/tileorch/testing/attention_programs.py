"""cuTile attention programs as users write them: FlashAttention forward (two chained dots).

``attention_fwd`` is the textbook online-softmax forward: one program instance per
(query tile, batch*head); the Q tile is loaded once; the loop walks the key/value tiles:
``S = Q K^T`` (K loaded [tn, d] and transposed), the running row max ``m_i`` and row sum ``l_i``
with ``exp2`` and the softmax scale folded into ``qk_scale = scale * log2(e)``, ``O = O * alpha +
P V`` with ``P`` cast to the input type; after the loop ``O / l_i`` is stored.  Key columns past
the sequence end (a ragged last tile) are masked to ``-inf`` by the program itself, causal
programs mask ``col > row`` the same way.

Q, K, V, O are ``[BH, S, D]`` (fp16/bf16, row-major), grid ``(cdiv(S, TILE_M), BH, 1)``.

``attention_fwd_branchy`` is the same computation written the way NVIDIA's cuTile samples write
it (4-D arrays, grouped key/value heads, K through a transposing view, padding modes, the masks in
a branch inside the loop that only the boundary tiles take).
Importing this module needs ``cuda.tile``; building arguments needs torch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import cuda.tile as ct

LOG2E = 1.0 / math.log(2.0)


@ct.kernel
def attention_fwd(Q, K, V, O, qk_scale: float, seq_len: int, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int],
                  D: ct.Constant[int], CAUSAL: ct.Constant[bool]):
    bm, bh = ct.bid(0), ct.bid(1)
    q = ct.reshape(ct.load(Q, index=(bh, bm, 0), shape=(1, TILE_M, D)), (TILE_M, D))
    rows = bm * TILE_M + ct.arange(TILE_M, dtype=ct.int32)[:, None]
    cols = ct.arange(TILE_N, dtype=ct.int32)[None, :]
    m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE_M, D), 0.0, dtype=ct.float32)
    n_tiles = ct.cdiv(seq_len, TILE_N)
    if CAUSAL:
        n_tiles = ct.cdiv(min((bm + 1) * TILE_M, seq_len), TILE_N)
    for j in range(n_tiles):
        k = ct.reshape(ct.load(K, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
        s = ct.mma(q, ct.transpose(k), ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32))
        key = j * TILE_N + cols
        keep = key < seq_len
        if CAUSAL:
            keep = keep & (key <= rows)
        s = ct.where(keep, s, -math.inf)
        m_ij = ct.maximum(m_i, ct.max(s, axis=-1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - m_ij)
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.reshape(ct.load(V, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_ij
    out = acc / l_i
    ct.store(O, index=(bh, bm, 0), tile=ct.reshape(out.astype(O.dtype), (1, TILE_M, D)))


@ct.kernel
def attention_fwd_branchy(Q, K, V, O, sm_scale: float, q_offset: int, D: ct.Constant[int], HEADS: ct.Constant[int],
                          TILE_M: ct.Constant[int], TILE_N: ct.Constant[int], GROUP: ct.Constant[int],
                          CAUSAL: ct.Constant[bool], EVEN_N: ct.Constant[bool]):
    """The FlashAttention forward in the style of NVIDIA's cuTile samples: 4-D ``[B, H, S, D]``
    arrays (grid ``(cdiv(S, TILE_M), B*H)``, key/value heads shared by ``GROUP`` query heads), K
    read through a transposing view (``order=``) as ``[D, TILE_N]``, zero padding asked for on the
    loads, and the masks applied only where needed: a branch *inside* the loop, taken from the
    first key tile that can hold a masked column (the ragged last tile unless ``EVEN_N``, the
    diagonal tile when ``CAUSAL``; later tiles are not visited), adding ``0``/``-inf`` to the scores.
    The queries start at ``q_offset`` (a KV cache prefix) for the causal mask."""
    bx, by = ct.bid(0), ct.bid(1)
    b, h = by // HEADS, by % HEADS
    kv_h = h // GROUP
    scale2 = sm_scale * LOG2E
    q_pos = (q_offset + bx * TILE_M + ct.arange(TILE_M, dtype=ct.int32))[:, None]
    n_local = ct.arange(TILE_N, dtype=ct.int32)[None, :]
    q = ct.load(Q, index=(b, h, bx, 0), shape=(1, 1, TILE_M, D), padding_mode=ct.PaddingMode.ZERO)
    q = q.reshape((TILE_M, D))
    row_max = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    row_sum = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    o = ct.full((TILE_M, D), 0.0, dtype=ct.float32)
    kv_len = K.shape[2]
    if CAUSAL:
        first_masked = min((q_offset + bx * TILE_M) // TILE_N, kv_len // TILE_N)
        n_tiles = ct.cdiv(min(q_offset + (bx + 1) * TILE_M, kv_len), TILE_N)
    else:
        first_masked = kv_len // TILE_N
        n_tiles = ct.cdiv(kv_len, TILE_N)
    for j in range(0, n_tiles):
        kt = ct.load(K, index=(b, kv_h, 0, j), shape=(1, 1, D, TILE_N), order=(0, 1, 3, 2),
                     padding_mode=ct.PaddingMode.ZERO).reshape((D, TILE_N))
        s = ct.mma(q, kt, ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32))
        if (CAUSAL or not EVEN_N) and j >= first_masked:
            k_pos = j * TILE_N + n_local
            ok = ct.full((TILE_M, TILE_N), True, dtype=ct.bool_)
            if not EVEN_N:
                ok = ok & (k_pos < kv_len)
            if CAUSAL:
                ok = ok & (k_pos <= q_pos)
            s += ct.where(ok, 0.0, -math.inf)
        new_max = max(row_max, ct.max(s, axis=-1, keepdims=True) * scale2)
        p = ct.exp2(s * scale2 - new_max, flush_to_zero=True)
        alpha = ct.exp2(row_max - new_max, flush_to_zero=True)
        row_sum = row_sum * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.load(V, index=(b, kv_h, j, 0), shape=(1, 1, TILE_N, D),
                    padding_mode=ct.PaddingMode.ZERO).reshape((TILE_N, D))
        o = ct.mma(p.astype(Q.dtype), v, o * alpha)
        row_max = new_max
    o = ct.truediv(o, row_sum, flush_to_zero=True, rounding_mode=ct.RoundingMode.APPROX)
    ct.store(O, index=(b, h, bx, 0), tile=o.reshape((1, 1, TILE_M, D)).astype(O.dtype))


@ct.kernel
def mlp_chain(X, W1, W2, Y, TILE_M: ct.Constant[int], TILE_H: ct.Constant[int], D: ct.Constant[int],
              DOUT: ct.Constant[int]):
    """``Y = relu(X @ W1) @ W2`` fused over hidden-dimension tiles (a GEMM followed by a second GEMM
    on its activated result): X [M, D], W1 [D, H], W2 [H, DOUT], the hidden tile never leaves the chip."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(TILE_M, D))
    acc = ct.full((TILE_M, DOUT), 0.0, dtype=ct.float32)
    for j in range(ct.num_tiles(W1, axis=1, shape=(D, TILE_H))):
        h = ct.mma(x, ct.load(W1, index=(0, j), shape=(D, TILE_H)), ct.full((TILE_M, TILE_H), 0.0, dtype=ct.float32))
        h = ct.maximum(h, 0.0)
        acc = ct.mma(h.astype(X.dtype), ct.load(W2, index=(j, 0), shape=(TILE_H, DOUT)), acc)
    ct.store(Y, index=(bm, 0), tile=acc.astype(Y.dtype))


@ct.kernel
def attention_fwd_natural(Q, K, V, O, scale: float, cap: float, seq_len: int, TILE_M: ct.Constant[int],
                          TILE_N: ct.Constant[int], D: ct.Constant[int], SOFTCAP: ct.Constant[bool]):
    """The forward written with ``exp`` (not ``exp2``), the scale applied to the scores, and an
    optional logit soft cap ``cap * tanh(s / cap)``; the output may be of another type than Q."""
    bm, bh = ct.bid(0), ct.bid(1)
    q = ct.reshape(ct.load(Q, index=(bh, bm, 0), shape=(1, TILE_M, D)), (TILE_M, D))
    cols = ct.arange(TILE_N, dtype=ct.int32)[None, :]
    m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE_M, D), 0.0, dtype=ct.float32)
    for j in range(ct.cdiv(seq_len, TILE_N)):
        k = ct.reshape(ct.load(K, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
        s = ct.mma(q, ct.transpose(k), ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32))
        if SOFTCAP:
            s = cap * ct.tanh(s / cap)
        s = ct.where(j * TILE_N + cols < seq_len, s * scale, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=-1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.reshape(ct.load(V, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, bm, 0), tile=ct.reshape((acc / l_i).astype(O.dtype), (1, TILE_M, D)))


@ct.kernel
def attention_fwd_kt(Q, KT, V, O, qk_scale: float, seq_len: int, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int],
                     D: ct.Constant[int]):
    """The textbook forward with K stored transposed, ``KT [BH, D, S]``: the first dot's B tile
    ``[D, TILE_N]`` is N-major (no transpose in the program)."""
    bm, bh = ct.bid(0), ct.bid(1)
    q = ct.reshape(ct.load(Q, index=(bh, bm, 0), shape=(1, TILE_M, D)), (TILE_M, D))
    cols = ct.arange(TILE_N, dtype=ct.int32)[None, :]
    m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE_M, D), 0.0, dtype=ct.float32)
    for j in range(ct.cdiv(seq_len, TILE_N)):
        kt = ct.reshape(ct.load(KT, index=(bh, 0, j), shape=(1, D, TILE_N)), (D, TILE_N))
        s = ct.mma(q, kt, ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32))
        s = ct.where(j * TILE_N + cols < seq_len, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=-1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.reshape(ct.load(V, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, bm, 0), tile=ct.reshape((acc / l_i).astype(O.dtype), (1, TILE_M, D)))


@ct.kernel
def attention_fwd_lse(Q, K, V, O, LSE, scale: float, seq_len: int, TILE_M: ct.Constant[int],
                      TILE_N: ct.Constant[int], D: ct.Constant[int]):
    """The forward of training kernels: O and the rows' log-sum-exp ``LSE [BH, S]`` (fp32,
    ``m + ln l`` of the scaled scores), a second store after the loop."""
    bm, bh = ct.bid(0), ct.bid(1)
    q = ct.reshape(ct.load(Q, index=(bh, bm, 0), shape=(1, TILE_M, D)), (TILE_M, D))
    cols = ct.arange(TILE_N, dtype=ct.int32)[None, :]
    m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE_M, D), 0.0, dtype=ct.float32)
    for j in range(ct.cdiv(seq_len, TILE_N)):
        k = ct.reshape(ct.load(K, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
        s = ct.mma(q, ct.transpose(k), ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)) * scale
        s = ct.where(j * TILE_N + cols < seq_len, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=-1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.reshape(ct.load(V, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, bm, 0), tile=ct.reshape((acc / l_i).astype(O.dtype), (1, TILE_M, D)))
    ct.store(LSE, index=(bh, bm), tile=ct.reshape(m_i + ct.log(l_i), (1, TILE_M)))


@ct.kernel
def mlp_silu(X, W1, W2, Y, alpha: float, TILE_M: ct.Constant[int], TILE_H: ct.Constant[int], D: ct.Constant[int],
             DOUT: ct.Constant[int]):
    """``Y = alpha * silu(X @ W1) @ W2`` (``silu(h) = h / (1 + exp(-h))``), the MLP chain with
    another activation and a scaled epilogue."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(TILE_M, D))
    acc = ct.full((TILE_M, DOUT), 0.0, dtype=ct.float32)
    for j in range(ct.num_tiles(W1, axis=1, shape=(D, TILE_H))):
        h = ct.mma(x, ct.load(W1, index=(0, j), shape=(D, TILE_H)), ct.full((TILE_M, TILE_H), 0.0, dtype=ct.float32))
        h = h / (1.0 + ct.exp(-h))
        acc = ct.mma(h.astype(X.dtype), ct.load(W2, index=(j, 0), shape=(TILE_H, DOUT)), acc)
    ct.store(Y, index=(bm, 0), tile=(acc * alpha).astype(Y.dtype))



@ct.kernel
def mlp_bias(X, W1, W2, B1, Y, TILE_M: ct.Constant[int], TILE_H: ct.Constant[int], D: ct.Constant[int],
             DOUT: ct.Constant[int]):
    """``Y = relu(X @ W1 + b1) @ W2``: the MLP chain with the first layer's bias row ``B1 [1, H]``
    loaded inside the loop (tile j's ``[1, TILE_H]`` slice, broadcast over the rows)."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(TILE_M, D))
    acc = ct.full((TILE_M, DOUT), 0.0, dtype=ct.float32)
    for j in range(ct.num_tiles(W1, axis=1, shape=(D, TILE_H))):
        h = ct.mma(x, ct.load(W1, index=(0, j), shape=(D, TILE_H)), ct.full((TILE_M, TILE_H), 0.0, dtype=ct.float32))
        h = ct.maximum(h + ct.load(B1, index=(0, j), shape=(1, TILE_H)).astype(ct.float32), 0.0)
        acc = ct.mma(h.astype(X.dtype), ct.load(W2, index=(j, 0), shape=(TILE_H, DOUT)), acc)
    ct.store(Y, index=(bm, 0), tile=acc.astype(Y.dtype))

@dataclass(frozen=True)
class Case:
    kernel: Any
    make: Callable[..., tuple]


def attention_args(bh: int, seq: int, d: int, tile_m: int = 128, tile_n: int = 64, causal: bool = False,
                   dtype: str = "float16", seed: int = 0, device: str = "cuda"):
    """(kernel, args, grid, out, reference) for ``attention_fwd`` on [bh, seq, d] inputs; the output
    is NaN-prefilled, the reference is torch fp32 ``softmax(Q K^T * scale) V``."""
    import torch

    g = torch.Generator(device="cpu").manual_seed(seed)
    dt = getattr(torch, dtype)
    q, k, v = (torch.randn(bh, seq, d, generator=g).to(device=device, dtype=dt) for _ in range(3))
    out = torch.full((bh, seq, d), float("nan"), device=device, dtype=dt)
    scale = 1.0 / math.sqrt(d)
    s = (q.float() @ k.float().transpose(1, 2)) * scale
    if causal:
        mask = torch.ones(seq, seq, device=device, dtype=torch.bool).triu(1)
        s = s.masked_fill(mask, float("-inf"))
    ref = torch.softmax(s, dim=-1) @ v.float()
    grid = ((seq + tile_m - 1) // tile_m, bh, 1)
    args = (q, k, v, out, scale * LOG2E, seq, tile_m, tile_n, d, causal)
    return attention_fwd, args, grid, out, ref


def attention_branchy_args(batch: int, heads: int, seq: int, d: int, tile_m: int = 128, tile_n: int = 128,
                           causal: bool = False, group: int = 1, dtype: str = "float16", seed: int = 0,
                           device: str = "cuda"):
    """(kernel, args, grid, out, reference) for ``attention_fwd_branchy`` on ``[batch, heads, seq, d]``
    queries and ``[batch, heads / group, seq, d]`` keys/values (NaN-prefilled output; torch fp32
    reference, ``EVEN_N`` set when ``seq`` is a multiple of ``tile_n``)."""
    import torch

    g = torch.Generator(device="cpu").manual_seed(seed)
    dt = getattr(torch, dtype)
    q = torch.randn(batch, heads, seq, d, generator=g).to(device=device, dtype=dt)
    k, v = (torch.randn(batch, heads // group, seq, d, generator=g).to(device=device, dtype=dt) for _ in range(2))
    out = torch.full((batch, heads, seq, d), float("nan"), device=device, dtype=dt)
    scale = 1.0 / math.sqrt(d)
    kf = k.float().repeat_interleave(group, dim=1)
    vf = v.float().repeat_interleave(group, dim=1)
    s = (q.float() @ kf.transpose(-1, -2)) * scale
    if causal:
        s = s.masked_fill(torch.ones(seq, seq, device=device, dtype=torch.bool).triu(1), float("-inf"))
    ref = torch.softmax(s, dim=-1) @ vf
    grid = ((seq + tile_m - 1) // tile_m, batch * heads, 1)
    args = (q, k, v, out, scale, 0, d, heads, tile_m, tile_n, group, causal, seq % tile_n == 0)
    return attention_fwd_branchy, args, grid, out, ref


def mlp_chain_args(m: int, d: int, hidden: int, dout: int, tile_m: int = 128, tile_h: int = 64,
                   dtype: str = "float16", seed: int = 0, device: str = "cuda"):
    import torch

    g = torch.Generator(device="cpu").manual_seed(seed)
    dt = getattr(torch, dtype)
    x = torch.randn(m, d, generator=g).to(device=device, dtype=dt)
    w1 = (torch.randn(d, hidden, generator=g) / math.sqrt(d)).to(device=device, dtype=dt)
    w2 = (torch.randn(hidden, dout, generator=g) / math.sqrt(hidden)).to(device=device, dtype=dt)
    y = torch.full((m, dout), float("nan"), device=device, dtype=dt)
    h = torch.relu(x.float() @ w1.float()).to(dt).float()
    ref = h @ w2.float()
    grid = ((m + tile_m - 1) // tile_m, 1, 1)
    return mlp_chain, (x, w1, w2, y, tile_m, tile_h, d, dout), grid, y, ref
