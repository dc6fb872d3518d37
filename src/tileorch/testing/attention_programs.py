"""cuTile attention programs as users write them: FlashAttention forward (two chained dots).

``attention_fwd`` is the textbook online-softmax forward: one program instance per
(query tile, batch*head); the Q tile is loaded once; the loop walks the key/value tiles:
``S = Q K^T`` (K loaded [tn, d] and transposed), the running row max ``m_i`` and row sum ``l_i``
with ``exp2`` and the softmax scale folded into ``qk_scale = scale * log2(e)``, ``O = O * alpha +
P V`` with ``P`` cast to the input type; after the loop ``O / l_i`` is stored.  Key columns past
the sequence end (a ragged last tile) are masked to ``-inf`` by the program itself, causal
programs mask ``col > row`` the same way.

Q, K, V, O are ``[BH, S, D]`` (fp16/bf16, row-major), grid ``(cdiv(S, TILE_M), BH, 1)``.
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
