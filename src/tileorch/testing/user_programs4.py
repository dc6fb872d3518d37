"""The fourth user sweep (session 12): cuTile 1.7 programs in shapes the first three sweeps
(:mod:`tileorch.testing.user_programs`, ``user_programs2``, ``user_programs3``) do not have.

Attention: grouped / multi-query heads on ``[B, S, H, D]`` tensors (the K/V head from ``//``, the
group size from the arrays' shapes), cross attention with a ragged query count and a ragged key
count, head dims 256 and 96 (a zero-padded 128-wide tile, the scale from the true dim), causal
masks written as ``ct.where`` on an iota comparison with a finite "minus infinity", with a
bottom-right offset (queries at the end of a longer key sequence), as two loops (full tiles, then
the diagonal), a symmetric sliding window with clamped loop bounds, a ``[B, H, Sq, Sk]`` bias
tensor, a key-padding mask tensor with the scale a ``ct.Constant[float]``, a ``[B, H, S]``
logsumexp output beside O written as ``[B, S, H, D]``, the Q tile loaded inside the key loop,
short sequences without a loop, small query tiles (decoding).

GEMM: split-K over contiguous K ranges with atomics, int8 with a ragged K and per-row / per-column
scales, both operands transposed, a batch-broadcast B (``[K, N]`` and ``[1, K, N]``), a
residual + layer-norm row epilogue over the whole row, an up / activation / down MLP whose two
dots have different tiles, a transposed (``[N, M]``) output, an MoE-style grouped GEMM whose
groups are row ranges (``Array.slice`` at runtime offsets).

Memory-bound: layer norm and RMSNorm with weight / bias over ragged widths and several rows per
program, softmax along axis 0, ``ct.argmax`` / ``ct.argmin`` ties, ``ct.cumsum`` along either
axis of a 2-D tile, rotary embeddings from cos / sin tables (halves and interleaved pairs), a
top-3 by repeated reductions, per-row histograms with 2-D atomic indices, column sums by
atomics, ``where`` chains, ``//`` / ``%`` / ``divmod`` of negative integers, an fp8 / f16 /
bf16 / f32 / int conversion chain, 3-D tiles.

Found by this sweep (the entries' ``notes``): hand-written FlashAttention-2 causal loops (two dot
loops) were refused with an internal message, attention without a loop with an unlocated one, B^T
by a 3-D ``ct.permute``, a batched GEMM sharing one B and paged attention (the page number read
from a block table in the key loop) were refused by the tier.  A symmetric
window with a ``-inf`` mask was a program bug (rows whose first key tile lies wholly outside the
window are NaN on any compiler): the program masks with a finite ``-1e30``.  cuTile itself refuses
mixed fp8 formats in one ``ct.mma`` (e4m3 x e5m2) and negative ``range`` steps.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep4_*.py (CPU compile, the SIMT interpreter, the PTX emulator) and
tests/gpu/test_user_sweep4_gpu.py (the H200 against torch).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, NEG_INF, ZERO, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

SOFTMAX_SCALE = 0.125  # a module constant (1 / sqrt(64)) the program reads as a literal
MASKED = -1.0e30  # a finite "minus infinity" (users write this to avoid inf - inf)


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_gqa_bshd(Q, K, V, O, qk_scale: float, H: ct.Constant[int], HKV: ct.Constant[int], BM: ct.Constant[int],
                  BN: ct.Constant[int], D: ct.Constant[int]):
    """GQA on the ``[B, S, H, D]`` layout (as projections write it): Q / O with ``H`` heads, K / V
    with ``HKV``; the K/V head ``h // (H // HKV)``; tiles ``(1, BM, 1, D)``; exp2."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    kvh = h // (H // HKV)
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, 1, D))):
        k = ct.load(K, index=(b, j, kvh, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, kvh, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, qt, h, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def attn_mqa_group_from_shape(Q, K, V, O, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                              D: ct.Constant[int]):
    """Multi-query attention, bf16: Q / O ``[B * H, S, D]``, one K/V head per batch ``[B, S, D]``;
    the batch of a (batch, head) row is ``bh // (Q.shape[0] // K.shape[0])`` (the head count read
    off the arrays at run time); natural exp."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // (Q.shape[0] // K.shape[0])
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_cross_ragged_both(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                           D: ct.Constant[int]):
    """Cross attention, bf16: 192 queries in 128-row tiles (the last one half full) against 328
    keys in 64-key tiles; the key count read off ``K.shape[1]``, the keys past it masked by
    ``ct.where`` on an iota comparison; exp2."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    sk = K.shape[1]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(sk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        key = ct.arange(BN, dtype=ct.int32) + j * BN
        s = ct.where(key[None, :] < sk, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_head256(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Head dim 256 (64 x 64 score tiles, a 64 x 256 O accumulator), f16, exp2."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_head96_bshd(Q, K, V, O, H: ct.Constant[int], HD: ct.Constant[int], BM: ct.Constant[int],
                     BN: ct.Constant[int], DP: ct.Constant[int]):
    """Head dim ``HD = 96`` on ``[B, S, H, 96]`` tensors held in ``DP = 128``-wide zero-padded tiles
    (tiles are powers of two); the scale ``log2(e) / sqrt(HD)`` computed in the program from the
    constant; O stored through the padded tile (the store drops columns past 96)."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    qk_scale = LOG2E / (HD ** 0.5)
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, DP), padding_mode=ZERO).reshape((BM, DP))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, DP), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, 1, DP))):
        k = ct.load(K, index=(b, j, h, 0), shape=(1, BN, 1, DP), padding_mode=ZERO).reshape((BN, DP))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, h, 0), shape=(1, BN, 1, DP), padding_mode=ZERO).reshape((BN, DP))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, qt, h, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, 1, DP)))


@ct.kernel
def attn_causal_finite_mask(Q, K, V, O, BM: ct.Constant[int], D: ct.Constant[int]):
    """Causal with square tiles (``BM`` queries and keys): the loop ``range(qt + 1)``, the mask
    ``ct.where(qi >= ki, s, -1e30)`` (a finite minus infinity) on every tile, the scale a module
    constant, natural exp."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qi = ct.arange(BM, dtype=ct.int32)[:, None] + qt * BM
    m = ct.full((BM, 1), MASKED, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(qt + 1):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BM), dtype=ct.float32)) * SOFTMAX_SCALE
        ki = ct.arange(BM, dtype=ct.int32)[None, :] + j * BM
        s = ct.where(qi >= ki, s, MASKED)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_bottom_right(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                             D: ct.Constant[int]):
    """Causal aligned bottom-right (the queries are the last ``Sq`` of ``Sk`` positions, as with a
    KV cache): query ``i`` sees keys ``<= i + (Sk - Sq)``; the loop bound
    ``cdiv(min((qt + 1) * BM + off, Sk), BN)`` from the block index; exp2."""
    qt, bh = ct.bid(0), ct.bid(1)
    off = K.shape[1] - Q.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = qt * BM + off + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    hi = min((qt + 1) * BM + off, K.shape[1])
    for j in range(ct.cdiv(hi, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] <= qpos[:, None], s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_two_loops(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                          D: ct.Constant[int]):
    """Causal the FlashAttention-2 way: a first loop over the key tiles wholly below the diagonal
    (no mask), a second over the diagonal tiles (masked); the state carried from one loop to the
    next."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    full = qt * BM // BN
    for j in range(full):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    for j in range(full, (qt + 1) * BM // BN):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] <= qpos[:, None], s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_local_window(Q, K, V, O, qk_scale: float, window: int, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """Symmetric local attention (non-causal): query ``i`` sees keys with ``|i - k| <= window``;
    the key loop from ``max(qt * BM - window, 0) // BN`` to ``cdiv(min((qt + 1) * BM + window, S), BN)``;
    keys outside the window get a finite ``-1e30`` (not -inf): a row whose first visited key tile
    lies wholly outside its window then weighs that tile by ``exp2(0)`` until its first real key
    rescales it by ``exp2(-1e30 - m) = 0`` (with -inf that row would be ``exp2(-inf + inf)``: NaN)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    lo = max(qt * BM - window, 0) // BN
    hi = ct.cdiv(min((qt + 1) * BM + window, K.shape[1]), BN)
    for j in range(lo, hi):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(ct.abs(kpos - qpos) <= window, s, MASKED)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bias_bhss(Q, K, V, Bias, O, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                   D: ct.Constant[int]):
    """An additive bias per (batch, head): ``Bias [B, H, S, S]`` bf16, loaded ``(1, 1, BM, BN)`` per
    key tile and widened; Q / K / V / O ``[B, H, S, D]`` f16; the query tile, head and batch on
    grid axes 0, 1, 2; natural exp."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        s = s + ct.load(Bias, index=(b, h, qt, j), shape=(1, 1, BM, BN)).reshape((BM, BN)).astype(ct.float32)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, h, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_lse_bshd_out(Q, K, V, O, LSE, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """Q / K / V ``[B, H, S, D]``, O written ``[B, S, H, D]`` (transposed heads) and the natural-log
    logsumexp ``[B, H, S]`` (from the exp2 state: ``(m + log2(l)) / log2(e)``) as a second output."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, qt, h, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, 1, D)))
    lse = (m + ct.log2(den)) / LOG2E
    ct.store(LSE, index=(b, h, qt), tile=lse.reshape((1, 1, BM)))


@ct.kernel
def attn_q_in_loop(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """The Q tile loaded inside the key loop (every step reloads the same tile)."""
    qt, bh = ct.bid(0), ct.bid(1)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_key_padding_mask(Q, K, V, Mask, O, SCALE: ct.Constant[float], BM: ct.Constant[int], BN: ct.Constant[int],
                          D: ct.Constant[int]):
    """A key-padding mask tensor ``Mask [B, S]`` (int8, 1 = keep) loaded per key tile; the scale a
    ``ct.Constant[float]``; Q / K / V ``[B, S, D]`` (one head); natural exp; every row keeps key 0."""
    qt, b = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(b, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * SCALE
        keep = ct.load(Mask, index=(b, j), shape=(1, BN)) != 0
        s = ct.where(keep, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_short_no_loop(Q, K, V, O, scale: float, BM: ct.Constant[int], S: ct.Constant[int], D: ct.Constant[int]):
    """A short sequence (all ``S`` keys in one tile): no loop, a plain softmax between the two dots."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, S, D)).reshape((S, D))
    v = ct.load(V, index=(bh, 0, 0), shape=(1, S, D)).reshape((S, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, S), dtype=ct.float32)) * scale
    p = ct.exp(s - ct.max(s, axis=1, keepdims=True))
    p = p / ct.sum(p, axis=1, keepdims=True)
    o = ct.mma(p.astype(V.dtype), v, ct.zeros((BM, D), dtype=ct.float32))
    ct.store(O, index=(bh, qt, 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_decode_small_tile(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                           D: ct.Constant[int]):
    """Decoding: 16 query rows per (batch, head) (a 16-row tile, below the 64 rows of a WGMMA)
    against 256 cached keys; exp2."""
    bh = ct.bid(0)
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, 0, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_two_loops_state_between(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                                 D: ct.Constant[int]):
    """Two key loops (below the diagonal, then the diagonal tile, ``BM == BN``) with the O
    accumulator halved between them (the final ``o / den`` then differs from attention: a test of
    the split only): not the halves of one loop, so the tensor-core tiers refuse it with a located
    warning; the SIMT path runs it."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(qt):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    o = o * 0.5
    for j in range(qt, qt + 1):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_vt_layout(Q, K, VT, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """V stored transposed, ``VT [BH, D, S]`` (as some KV caches keep it): the second dot's B is the
    ``(D, BN)`` tile turned by ``ct.transpose``; the output in f32."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        vt = ct.load(VT, index=(bh, 0, j), shape=(1, D, BN)).reshape((D, BN))
        o = ct.mma(p.astype(VT.dtype), ct.transpose(vt), o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).reshape((1, BM, D)))


@ct.kernel
def attn_causal_bn_wider(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """Causal with key tiles wider than the query tile (64 queries, 128 keys): the loop bound
    ``ct.cdiv((qt + 1) * BM, BN)``, the last key tile partly past the diagonal of every row; the
    mask from ``ct.greater`` (``k > q`` masked); f32 output."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    rows = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        cols = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(ct.greater(cols, rows), -math.inf, s)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).reshape((1, BM, D)))


@ct.kernel
def mlp_residual_out(X, W1, W2, B2, Y, TM: ct.Constant[int], TH: ct.Constant[int], D: ct.Constant[int]):
    """A transformer MLP block with its residual: ``y = x + relu(x W1) W2 + b2`` (the input tile
    added back in the epilogue, D in = D out)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(TM, D))
    y = ct.zeros((TM, D), dtype=ct.float32)
    for t in range(ct.num_tiles(W1, axis=1, shape=(D, TH))):
        h = ct.mma(x, ct.load(W1, index=(0, t), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        y = ct.mma(ct.maximum(h, 0.0).astype(X.dtype), ct.load(W2, index=(t, 0), shape=(TH, D)), y)
    b2 = ct.load(B2, index=(0,), shape=(D,))
    ct.store(Y, index=(i, 0), tile=(x.astype(ct.float32) + y + b2[None, :]).astype(Y.dtype))


@ct.kernel
def attn_reverse_keys(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """The key tiles visited last to first (``j = n - 1 - t``): the K and V tile indices decrease
    with the loop's iv."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    n = ct.num_tiles(K, axis=1, shape=(1, BN, D))
    for t in range(n):
        j = n - 1 - t
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_v_other_head(Q, K, V, O, qk_scale: float, heads: int, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """K from head ``bh``, V from head ``(bh + 1) % heads`` (a contrived mix: the K and V loads at
    different head indices, which the kernel must not assume equal)."""
    qt, bh = ct.bid(0), ct.bid(1)
    vh = (bh + 1) % heads
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(vh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_paged_kv(Q, Kc, Vc, Table, Lens, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                  D: ct.Constant[int]):
    """Paged attention (a vLLM-style KV cache): K / V in ``[blocks, BN, D]`` pages, sequence ``b``'s
    j-th page number read from the block table ``Table [B, pages]`` inside the key loop (a
    data-dependent tile index), its length from ``Lens [B]`` (the keys past it masked); 64 query
    rows per sequence (a prefill chunk)."""
    b = ct.bid(0)
    n = ct.gather(Lens, b)
    q = ct.load(Q, index=(b, 0, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        page = ct.gather(Table, (b, j))
        k = ct.load(Kc, index=(page, 0, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(Vc, index=(page, 0, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(Vc.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, 0, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


def _qkv(q, k, dt="float16"):
    """Q, K, V and O shapes: ``q`` for Q and O, ``k`` for K and V."""
    return [(q, dt), (k, dt), (k, dt), (q, dt)]


_add("attn_gqa_bshd", attn_gqa_bshd, [((2, 256, 4, 64), "float16"), ((2, 256, 2, 64), "float16"),
                                      ((2, 256, 2, 64), "float16"), ((2, 256, 4, 64), "float16"),
                                      0.125 * LOG2E, 4, 2, 128, 64, 64], (2, 8), "chained", outputs=(3,))
_add("attn_mqa_group_from_shape", attn_mqa_group_from_shape,
     [((4, 256, 64), "bfloat16"), ((2, 256, 64), "bfloat16"), ((2, 256, 64), "bfloat16"), ((4, 256, 64), "bfloat16"),
      0.125, 128, 64, 64], (2, 4), "chained", outputs=(3,))
_add("attn_cross_ragged_both", attn_cross_ragged_both,
     _qkv((2, 192, 64), (2, 328, 64), "bfloat16") + [0.125 * LOG2E, 128, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_head256", attn_head256, _qkv((2, 256, 256), (2, 256, 256)) + [LOG2E / 16, 64, 64, 256], (4, 2),
     "chained", outputs=(3,))
_add("attn_head96_bshd", attn_head96_bshd, _qkv((2, 256, 2, 96), (2, 256, 2, 96)) + [2, 96, 128, 64, 128], (2, 4),
     "chained", outputs=(3,))
_add("attn_causal_finite_mask", attn_causal_finite_mask, _qkv((2, 256, 64), (2, 256, 64)) + [64, 64], (4, 2),
     "chained", outputs=(3,))
_add("attn_causal_bottom_right", attn_causal_bottom_right,
     _qkv((2, 128, 64), (2, 320, 64)) + [0.125 * LOG2E, 64, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_causal_two_loops", attn_causal_two_loops, _qkv((2, 256, 64), (2, 256, 64)) + [0.125 * LOG2E, 128, 64, 64],
     (2, 2), "chained", outputs=(3,),
     notes="found by this sweep: refused by the tier with an internal warp-count message (two dot loops); "
           "tileas-fuse-split-loops now fuses range(a, X), range(X, n)")
_add("attn_two_loops_state_between", attn_two_loops_state_between,
     _qkv((2, 128, 64), (2, 128, 64)) + [0.125 * LOG2E, 64, 64, 64], (2, 2), "simt", outputs=(3,),
     error="loops with dots one after another")
_add("attn_local_window", attn_local_window, _qkv((2, 384, 64), (2, 384, 64)) + [0.125 * LOG2E, 100, 64, 64, 64],
     (6, 2), "chained", outputs=(3,))
_add("attn_bias_bhss", attn_bias_bhss, _qkv((2, 2, 256, 64), (2, 2, 256, 64))[:3] + [
    ((2, 2, 256, 256), "bfloat16"), ((2, 2, 256, 64), "float16"), 0.125, 128, 64, 64], (2, 2, 2), "chained",
     outputs=(4,))
_add("attn_lse_bshd_out", attn_lse_bshd_out, _qkv((2, 2, 256, 64), (2, 2, 256, 64))[:3] + [
    ((2, 256, 2, 64), "float16"), ((2, 2, 256), "float32"), 0.125 * LOG2E, 128, 64, 64], (2, 2, 2), "chained",
     outputs=(3, 4))
_add("attn_q_in_loop", attn_q_in_loop, _qkv((2, 256, 64), (2, 256, 64)) + [0.125 * LOG2E, 128, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_key_padding_mask", attn_key_padding_mask, _qkv((2, 256, 64), (2, 256, 64))[:3] + [
    ((2, 256), "int8"), ((2, 256, 64), "float16"), 0.125, 128, 64, 64], (2, 2), "chained", outputs=(4,))
_add("attn_short_no_loop", attn_short_no_loop, _qkv((2, 128, 64), (2, 128, 64)) + [0.125, 64, 128, 64], (2, 2),
     "chained", outputs=(3,),
     notes="not taken by the tensor-core tiers (no loop to pipeline); the refusal was an unlocated 'left a kernel "
           "unlowered' remark, then located at the dot; since session 26 the chain gets a key loop of one trip "
           "(loopless_chain.wrap_loopless_chain) and runs on the chained tier")
_add("attn_vt_layout", attn_vt_layout, [((2, 256, 64), "float16"), ((2, 256, 64), "float16"),
                                        ((2, 64, 256), "float16"), ((2, 256, 64), "float32"), 0.125 * LOG2E, 128, 64,
                                        64], (2, 2), "chained", outputs=(3,))
_add("attn_causal_bn_wider", attn_causal_bn_wider, _qkv((2, 256, 64), (2, 256, 64))[:3] + [
    ((2, 256, 64), "float32"), 0.125 * LOG2E, 64, 128, 64], (4, 2), "chained", outputs=(3,))
_add("mlp_residual_out", mlp_residual_out, [((192, 64), "float16"), ((64, 256), "float16"), ((256, 64), "float16"),
                                            ((64,), "float32"), ((192, 64), "float16"), 64, 64, 64], (3,), "chained",
     outputs=(4,))
_add("attn_reverse_keys", attn_reverse_keys, _qkv((2, 256, 64), (2, 256, 64)) + [0.125 * LOG2E, 128, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_v_other_head", attn_v_other_head, _qkv((3, 256, 64), (3, 256, 64)) + [0.125 * LOG2E, 3, 128, 64, 64], (2, 3),
     "chained", outputs=(3,))
_add("attn_paged_kv", attn_paged_kv, [((3, 64, 64), "float16"), ((12, 64, 64), "float16"), ((12, 64, 64), "float16"),
                                      ((3, 4), "int32"), ((3,), "int32"), ((3, 64, 64), "float16"), 0.125 * LOG2E, 64,
                                      64, 64], (3,), "chained", outputs=(5,),
     notes="found by this sweep: refused ('a TMA load depends on nv_tileaa.load, which the producer agent cannot "
           "replay'); the producer now replays weak scalar reads (tileas-materialize-schedule)")
_add("attn_decode_small_tile", attn_decode_small_tile, _qkv((4, 16, 64), (4, 256, 64)) + [0.125 * LOG2E, 16, 64, 64],
     (4,), "chained", outputs=(3,),
     notes="refused until session 15 ('not a WGMMA (mma.sm90) atom'); now the WGMMA's M padded to 64 "
           "(chained_dots.PADDED_ROWS), the padded rows never stored")


# ----------------------------------------------------------------------------------------------- GEMM


@ct.kernel
def mm_splitk_ranges_atomic(A, B, C, splits: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                            tk: ct.Constant[int]):
    """Split-K by hand: program ``bid(2)`` takes a contiguous range of K tiles (the last range
    shorter: ``min``), its partial product added into the f32 C (pre-zeroed) with ``ct.atomic_add``."""
    i, j, z = ct.bid(0), ct.bid(1), ct.bid(2)
    kt = ct.cdiv(A.shape[1], tk)
    per = ct.cdiv(kt, splits)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(z * per, min((z + 1) * per, kt)):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rows = ct.arange(tm, dtype=ct.int32) + i * tm
    cols = ct.arange(tn, dtype=ct.int32) + j * tn
    ct.atomic_add(C, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def mm_int8_ragged_k_scales(A, B, rs, cs, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """int8 x int8 with an int32 accumulator, K = 200 (not a multiple of 64: the last K tile zero-
    padded), ragged M and N; dequantised by a per-row and a per-column f32 scale to f16."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    r = ct.load(rs, index=(i,), shape=(tm,), padding_mode=ZERO)
    c = ct.load(cs, index=(j,), shape=(tn,), padding_mode=ZERO)
    ct.store(C, index=(i, j), tile=(acc.astype(ct.float32) * r[:, None] * c[None, :]).astype(ct.float16))


@ct.kernel
def mm_both_transposed(AT, BT, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = AT^T @ BT^T``: A stored ``[K, M]`` and B stored ``[N, K]``, both tiles turned by
    ``ct.transpose``; bf16 in, f32 out."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(AT, axis=0, shape=(tk, tm))):
        at = ct.load(AT, index=(k, i), shape=(tk, tm))
        bt = ct.load(BT, index=(j, k), shape=(tn, tk))
        acc = ct.mma(ct.transpose(at), ct.transpose(bt), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def mm_batched_permute_bt(A, W, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched ``A [L, M, K] @ W[L]^T`` with ``W [L, N, K]``: the 3-D ``(1, tn, tk)`` tile turned by
    ``ct.permute(w, (0, 2, 1))`` then reshaped; the batch on grid axis 2."""
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(b, i, k), shape=(1, tm, tk)).reshape((tm, tk))
        w = ct.permute(ct.load(W, index=(b, j, k), shape=(1, tn, tk)), (0, 2, 1)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, i, j), tile=acc.astype(C.dtype).reshape((1, tm, tn)))


@ct.kernel
def mm_broadcast_b_2d(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched ``A [L, M, K]`` times one shared ``B [K, N]`` (a batch stride of zero)."""
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(B, axis=0, shape=(tk, tn))):
        a = ct.load(A, index=(b, i, k), shape=(1, tm, tk)).reshape((tm, tk))
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(b, i, j), tile=acc.astype(C.dtype).reshape((1, tm, tn)))


@ct.kernel
def mm_broadcast_b_unit_batch(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched ``A [L, M, K]`` times ``B [1, K, N]`` read at batch 0 for every batch."""
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(b, i, k), shape=(1, tm, tk)).reshape((tm, tk))
        w = ct.load(B, index=(0, k, j), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, i, j), tile=acc.astype(C.dtype).reshape((1, tm, tn)))


@ct.kernel
def mm_residual_layernorm(A, B, R, W, Bb, Y, eps: float, tm: ct.Constant[int], N: ct.Constant[int],
                          tk: ct.Constant[int]):
    """``Y = layernorm(A @ B + R) * w + b`` with the whole row (``N`` columns) in one tile: the mean
    and variance reduced along the row in the epilogue; f16 out."""
    i = ct.bid(0)
    acc = ct.zeros((tm, N), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, 0), shape=(tk, N)), acc)
    y = acc + ct.load(R, index=(i, 0), shape=(tm, N)).astype(ct.float32)
    mean = ct.sum(y, axis=1, keepdims=True) / N
    d = y - mean
    rstd = ct.rsqrt(ct.sum(d * d, axis=1, keepdims=True) / N + eps)
    w = ct.load(W, index=(0,), shape=(N,)).astype(ct.float32)
    bb = ct.load(Bb, index=(0,), shape=(N,)).astype(ct.float32)
    ct.store(Y, index=(i, 0), tile=(d * rstd * w[None, :] + bb[None, :]).astype(Y.dtype))


@ct.kernel
def mlp_up_down_tiles(X, W1, B1, W2, Y, TM: ct.Constant[int], TH: ct.Constant[int], D: ct.Constant[int],
                      DO: ct.Constant[int]):
    """An MLP ``gelu(x W1 + b1) W2`` over hidden tiles of 128, the up dot ``(64, 128)`` and the down
    dot ``(64, 256)`` (different tiles), the gelu by ``erf``-free sigmoid approximation
    ``h * sigmoid(1.702 h)``, a bias per hidden column."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(TM, D))
    y = ct.zeros((TM, DO), dtype=ct.float32)
    for t in range(ct.num_tiles(W1, axis=1, shape=(D, TH))):
        h = ct.mma(x, ct.load(W1, index=(0, t), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        h = h + ct.load(B1, index=(t,), shape=(TH,)).astype(ct.float32)[None, :]
        g = h / (1.0 + ct.exp(-1.702 * h))
        y = ct.mma(g.astype(X.dtype), ct.load(W2, index=(t, 0), shape=(TH, DO)), y)
    ct.store(Y, index=(i, 0), tile=y.astype(Y.dtype))


@ct.kernel
def mm_store_transposed(A, B, CT, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``CT = (A @ B)^T`` stored ``[N, M]``: the accumulator turned by ``ct.transpose`` before the store."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(CT, index=(j, i), tile=ct.transpose(acc).astype(CT.dtype))


@ct.kernel
def mm_grouped_row_ranges(X, W, Offs, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """MoE-style grouped GEMM: the rows of ``X [T, K]`` sorted by group, group ``g`` rows
    ``[offs[g], offs[g + 1])`` times ``W[g] [K, N]``; the group on grid axis 2, a row tile of the
    group on axis 0 (tiles past the group's end exit early); rows through ``Array.slice`` at the
    runtime offsets."""
    i, j, g = ct.bid(0), ct.bid(1), ct.bid(2)
    start = ct.gather(Offs, g)
    stop = ct.gather(Offs, g + 1)
    if i * tm < stop - start:
        xg = X.slice(axis=0, start=start, stop=stop)
        yg = Y.slice(axis=0, start=start, stop=stop)
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
            a = ct.load(xg, index=(i, k), shape=(tm, tk), padding_mode=ZERO)
            w = ct.load(W, index=(g, k, j), shape=(1, tk, tn)).reshape((tk, tn))
            acc = ct.mma(a, w, acc)
        ct.store(yg, index=(i, j), tile=acc.astype(Y.dtype))


@ct.kernel
def mm_k_tail_bias_64(A, B, bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """64 x 64 tiles over M = 100, N = 200, K = 72 (every dimension ragged), a bias row, f16 out."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ZERO), acc)
    bvec = ct.load(bias, index=(j,), shape=(tn,), padding_mode=ZERO)
    ct.store(C, index=(i, j), tile=(acc + bvec[None, :]).astype(C.dtype))




@ct.kernel
def mm_reverse_k(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The K loop run backwards: tile ``nk - 1 - t`` in iteration ``t`` (cuTile's ``range`` takes
    positive steps only)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    nk = ct.num_tiles(A, axis=1, shape=(tm, tk))
    for t in range(nk):
        k = nk - 1 - t
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def mm_valid_rows_mask(A, B, C, valid: int, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Only the first ``valid`` rows of C get the product, the others zero: ``where(row < valid)``
    with a runtime scalar, the row tile on grid axis 1 and the column tile on axis 0."""
    j, i = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    rows = i * tm + ct.arange(tm, dtype=ct.int32)
    ct.store(C, index=(i, j), tile=ct.where(rows[:, None] < valid, acc, 0.0).astype(C.dtype))


@ct.kernel
def mm_shared_b_batch_scale(A, B, S, bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A linear layer over a batch of sequences: ``C[b] = (A[b] @ W) * s[b] + bias`` with one
    ``W [K, N]`` for every batch, the per-batch scale gathered at ``bid(2)`` in the epilogue."""
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(B, axis=0, shape=(tk, tn))):
        a = ct.load(A, index=(b, i, k), shape=(1, tm, tk)).reshape((tm, tk))
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    y = acc * ct.gather(S, b) + ct.load(bias, index=(j,), shape=(tn,))[None, :]
    ct.store(C, index=(b, i, j), tile=y.astype(C.dtype).reshape((1, tm, tn)))

_add("mm_splitk_ranges_atomic", mm_splitk_ranges_atomic, [((128, 448), "float16"), ((448, 128), "float16"),
                                                          ((128, 128), "float32"), 3, 64, 64, 64], (2, 2, 3), "gemm",
     outputs=(2,))
_add("mm_int8_ragged_k_scales", mm_int8_ragged_k_scales,
     [((192, 200), "int8"), ((200, 160), "int8"), ((192,), "float32"), ((160,), "float32"), ((192, 160), "float16"),
      128, 128, 64], (2, 2), "gemm", outputs=(4,))
_add("mm_both_transposed", mm_both_transposed, [((256, 128), "bfloat16"), ((256, 256), "bfloat16"),
                                                ((128, 256), "float32"), 128, 128, 64], (1, 2), "gemm", outputs=(2,))
_add("mm_batched_permute_bt", mm_batched_permute_bt, [((2, 128, 128), "float16"), ((2, 256, 128), "float16"),
                                                      ((2, 128, 256), "float16"), 128, 128, 64], (1, 2, 2), "gemm",
     outputs=(2,), notes="found by this sweep: ct.permute(w, (0, 2, 1)) of a (1, tn, tk) tile then a reshape was "
                         "refused ('B tile reaches the dot without a transpose'); now read as B^T")
_add("mm_broadcast_b_2d", mm_broadcast_b_2d, [((3, 128, 128), "float16"), ((128, 256), "float16"),
                                              ((3, 128, 256), "float16"), 128, 128, 64], (1, 2, 3), "gemm",
     outputs=(2,), notes="found by this sweep: a batched GEMM with one shared 2-D B (batch stride 0) was refused "
                         "('A, B and C must all be batched'); now GemmConfig.b_shared")
_add("mm_broadcast_b_unit_batch", mm_broadcast_b_unit_batch, [((3, 128, 128), "float16"), ((1, 128, 256), "float16"),
                                                              ((3, 128, 256), "float32"), 128, 128, 64], (1, 2, 3),
     "gemm", outputs=(2,), notes="found by this sweep: B [1, K, N] read at batch 0 for every batch was refused; now "
                                 "GemmConfig.b_shared")
_add("mm_residual_layernorm", mm_residual_layernorm,
     [((256, 128), "float16"), ((128, 128), "float16"), ((256, 128), "float16"), ((128,), "float32"),
      ((128,), "float32"), ((256, 128), "float16"), 1e-5, 128, 128, 64], (2,), "gemm", outputs=(5,))
_add("mlp_up_down_tiles", mlp_up_down_tiles, [((128, 64), "float16"), ((64, 256), "float16"), ((256,), "float32"),
                                              ((256, 128), "float16"), ((128, 128), "float16"), 64, 128, 64, 128],
     (2,), "chained", outputs=(4,))
_add("mm_store_transposed", mm_store_transposed, [((128, 128), "float16"), ((128, 256), "float16"),
                                                  ((256, 128), "float16"), 128, 128, 64], (1, 2), "gemm",
     outputs=(2,))
_add("mm_grouped_row_ranges", mm_grouped_row_ranges, [((300, 64), "float16"), ((3, 64, 128), "float16"),
                                                      ((4,), "int32"), ((300, 128), "float32"), 64, 64, 64],
     (4, 2, 3), "simt", error="its base pointer is computed", outputs=(3,))
_add("mm_reverse_k", mm_reverse_k, [((128, 256), "float16"), ((256, 128), "float16"), ((128, 128), "float32"),
                                    128, 128, 64], (1, 1), "gemm", outputs=(2,))
_add("mm_valid_rows_mask", mm_valid_rows_mask, [((256, 128), "float16"), ((128, 256), "float16"),
                                                ((256, 256), "float16"), 150, 128, 128, 64], (2, 2), "gemm",
     outputs=(2,))
_add("mm_shared_b_batch_scale", mm_shared_b_batch_scale,
     [((3, 200, 128), "float16"), ((128, 256), "float16"), ((3,), "float32"), ((256,), "float32"),
      ((3, 200, 256), "float32"), 128, 128, 64], (2, 2, 3), "gemm", outputs=(4,))
_add("mm_k_tail_bias_64", mm_k_tail_bias_64, [((100, 72), "float16"), ((72, 200), "float16"), ((200,), "float32"),
                                              ((100, 200), "float16"), 64, 64, 64], (2, 4), "gemm", outputs=(3,))


# ----------------------------------------------------------------------------------------------- memory-bound


@ct.kernel
def layernorm_rows_block(X, W, Bb, Y, eps: float, BR: ct.Constant[int], BC: ct.Constant[int]):
    """Layer norm of ``BR`` rows per program over a ragged width (1000 columns in a 1024 tile, 10
    rows in tiles of 4): the padded columns masked out of the variance with ``where``; f16 in
    and out, f32 weight and bias."""
    r = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(r, 0), shape=(BR, BC), padding_mode=ZERO).astype(ct.float32)
    mean = ct.sum(x, axis=1, keepdims=True) / n
    col = ct.arange(BC, dtype=ct.int32)[None, :]
    d = ct.where(col < n, x - mean, 0.0)
    var = ct.sum(d * d, axis=1, keepdims=True) / n
    w = ct.load(W, index=(0,), shape=(BC,), padding_mode=ZERO)
    b = ct.load(Bb, index=(0,), shape=(BC,), padding_mode=ZERO)
    ct.store(Y, index=(r, 0), tile=(d * ct.rsqrt(var + eps) * w[None, :] + b[None, :]).astype(Y.dtype))


@ct.kernel
def rmsnorm_residual_two_outputs(X, R, W, Y, Rout, eps: float, BC: ct.Constant[int]):
    """Fused add + RMSNorm (bf16, width 777 ragged): ``h = x + r`` written back as the new residual,
    ``y = h * rsqrt(mean(h^2) + eps) * w``."""
    r = ct.bid(0)
    h = (ct.load(X, index=(r, 0), shape=(1, BC), padding_mode=ZERO).astype(ct.float32)
         + ct.load(R, index=(r, 0), shape=(1, BC), padding_mode=ZERO).astype(ct.float32))
    ct.store(Rout, index=(r, 0), tile=h.astype(Rout.dtype))
    ms = ct.sum(h * h) / X.shape[1]
    w = ct.load(W, index=(0,), shape=(BC,), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(r, 0), tile=(h * ct.rsqrt(ms + eps) * w[None, :]).astype(Y.dtype))


@ct.kernel
def softmax_axis0(X, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Softmax down each column (axis 0) of ``[200, 96]`` in column blocks of 32 (all rows in one
    256-row tile, the padding rows -inf)."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(BM, BN), padding_mode=NEG_INF)
    e = ct.exp(x - ct.max(x, axis=0, keepdims=True))
    ct.store(Y, index=(0, j), tile=e / ct.sum(e, axis=0, keepdims=True))


@ct.kernel
def argmax_argmin_ties(X, AMax, AMin, BM: ct.Constant[int], BN: ct.Constant[int]):
    """``ct.argmax`` along rows and ``ct.argmin`` down columns of an integer-valued f32 tile (many
    ties: the first index wins)."""
    x = ct.load(X, index=(0, 0), shape=(BM, BN))
    ct.store(AMax, index=(0,), tile=ct.argmax(x, axis=1))
    ct.store(AMin, index=(0,), tile=ct.argmin(x, axis=0))


@ct.kernel
def cumsum_2d_axes(X, Y0, Y1, R1, BM: ct.Constant[int], BN: ct.Constant[int]):
    """``ct.cumsum`` of a 2-D tile down the columns (axis 0), along the rows (axis 1) and along the
    rows reversed; ragged (20 x 50 in a 32 x 64 tile)."""
    x = ct.load(X, index=(0, 0), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y0, index=(0, 0), tile=ct.cumsum(x, axis=0))
    ct.store(Y1, index=(0, 0), tile=ct.cumsum(x, axis=1))
    ct.store(R1, index=(0, 0), tile=ct.cumsum(x, axis=1, reverse=True))


@ct.kernel
def rope_halves_tables(X, Cos, Sin, Y, BS: ct.Constant[int], H: ct.Constant[int], HALF: ct.Constant[int]):
    """Rotary embedding (rotate-half, as NeoX / Llama) of ``X [S, H, D]`` with ``cos`` / ``sin``
    tables ``[S, D / 2]``: the two halves of the head loaded as separate tiles (tile index 0 and 1
    of width ``D / 2``), the table rows broadcast over the heads, f16."""
    s = ct.bid(0)
    x1 = ct.load(X, index=(s, 0, 0), shape=(BS, H, HALF)).astype(ct.float32)
    x2 = ct.load(X, index=(s, 0, 1), shape=(BS, H, HALF)).astype(ct.float32)
    c = ct.load(Cos, index=(s, 0), shape=(BS, HALF))[:, None, :]
    sn = ct.load(Sin, index=(s, 0), shape=(BS, HALF))[:, None, :]
    ct.store(Y, index=(s, 0, 0), tile=(x1 * c - x2 * sn).astype(Y.dtype))
    ct.store(Y, index=(s, 0, 1), tile=(x2 * c + x1 * sn).astype(Y.dtype))


@ct.kernel
def rope_interleaved_3d(X, Cos, Sin, Y, BS: ct.Constant[int], D: ct.Constant[int]):
    """Rotary embedding of interleaved pairs (GPT-J): the ``(BS, D)`` tile reshaped to
    ``(BS, D / 2, 2)``, the pair members taken by ``ct.extract``, rotated, joined by ``ct.cat``
    on the last axis and reshaped back; bf16 in and out, f32 tables ``[S, D / 2]``."""
    s = ct.bid(0)
    x = ct.load(X, index=(s, 0), shape=(BS, D)).astype(ct.float32).reshape((BS, D // 2, 2))
    a = ct.extract(x, index=(0, 0, 0), shape=(BS, D // 2, 1))
    b = ct.extract(x, index=(0, 0, 1), shape=(BS, D // 2, 1))
    c = ct.load(Cos, index=(s, 0), shape=(BS, D // 2)).reshape((BS, D // 2, 1))
    sn = ct.load(Sin, index=(s, 0), shape=(BS, D // 2)).reshape((BS, D // 2, 1))
    out = ct.cat((a * c - b * sn, b * c + a * sn), axis=2)
    ct.store(Y, index=(s, 0), tile=out.reshape((BS, D)).astype(Y.dtype))


@ct.kernel
def top3_rows(X, Vals, Idx, N: ct.Constant[int]):
    """The three largest values of each row and their columns (first index on ties) by three rounds
    of max, the arg of the max and masking it out; ragged width (300 in 512)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=NEG_INF)
    cols = ct.arange(N, dtype=ct.int32)[None, :]
    for t in range(3):
        v = ct.max(x, axis=1, keepdims=True)
        a = ct.argmax(x, axis=1, keepdims=True)
        ct.store(Vals, index=(r, t), tile=v)
        ct.store(Idx, index=(r, t), tile=a)
        x = ct.where(cols == a, -math.inf, x)


@ct.kernel
def row_histograms_2d_atomic(X, Hist, lo: float, inv_width: float, NB: ct.Constant[int], N: ct.Constant[int]):
    """A histogram per row: bin ``floor((x - lo) * inv_width)`` clamped into ``[0, NB)``, counted
    with ``ct.atomic_add`` at 2-D (row, bin) indices; a ragged width masked off."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=ZERO)
    b = ct.floor((x - lo) * inv_width).astype(ct.int32)
    b = ct.minimum(ct.maximum(b, 0), NB - 1)
    valid = ct.arange(N, dtype=ct.int32)[None, :] < X.shape[1]
    ct.atomic_add(Hist, (ct.full((1, N), r, dtype=ct.int32), b), ct.where(valid, 1, 0))


@ct.kernel
def col_sums_atomic(X, S, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Column sums of ``[M, N]`` split over row blocks: each program sums its ``(BM, BN)`` block
    down axis 0 and adds the ``BN`` partial sums into ``S`` with ``ct.atomic_add`` (f32)."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
    cols = j * BN + ct.arange(BN, dtype=ct.int32)
    ct.atomic_add(S, cols, ct.sum(x, axis=0))


@ct.kernel
def where_piecewise(X, Y, M, N: ct.Constant[int]):
    """A piecewise function from nested ``where`` (``x < -1``: ``-1 - log(-x)``; ``|x| <= 1``:
    ``x^3``; else ``sqrt(x)``); a bool mask stored as int8 from ``(x > 0) ^ (x > 2) | isnan``."""
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(N,), padding_mode=ZERO)
    neg = x < -1.0
    mid = ct.abs(x) <= 1.0
    y = ct.where(neg, -1.0 - ct.log(ct.where(neg, -x, 1.0)), ct.where(mid, x * x * x, ct.sqrt(ct.abs(x))))
    ct.store(Y, index=(b,), tile=y)
    flag = ((x > 0.0) ^ (x > 2.0)) | ct.isnan(x)
    ct.store(M, index=(b,), tile=flag.astype(ct.int8))


@ct.kernel
def int_divmod_negatives(X, D, Q, R, Qs, Rs, k: int, N: ct.Constant[int]):
    """``//`` and ``%`` of int32 tiles with negative values (Python semantics: floor, the divisor's
    sign), by a tile of divisors of both signs and by a runtime scalar (negative in the test),
    ``divmod`` for the scalar pair."""
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(N,), padding_mode=ZERO)
    d = ct.load(D, index=(b,), shape=(N,), padding_mode=ct.PaddingMode.ZERO)
    d = ct.where(d == 0, 1, d)
    ct.store(Q, index=(b,), tile=x // d)
    ct.store(R, index=(b,), tile=x % d)
    q, r = divmod(x, k)
    ct.store(Qs, index=(b,), tile=q)
    ct.store(Rs, index=(b,), tile=r)


@ct.kernel
def conversion_chain(E4, H, Bf, F, I, U, N: ct.Constant[int]):
    """A conversion chain: fp8 e4m3 bytes to f16 (stored), f16 to bf16 (stored, exact for these
    values), bf16 to f32 times 3.3 (stored), f32 to int32 (toward zero, stored) and to uint8 of
    the value clamped to [0, 255] (stored)."""
    b = ct.bid(0)
    e = ct.load(E4, index=(b,), shape=(N,), padding_mode=ZERO)
    h = e.astype(ct.float16)
    ct.store(H, index=(b,), tile=h)
    bf = h.astype(ct.bfloat16)
    ct.store(Bf, index=(b,), tile=bf)
    f = bf.astype(ct.float32) * 3.3
    ct.store(F, index=(b,), tile=f)
    ct.store(I, index=(b,), tile=f.astype(ct.int32))
    ct.store(U, index=(b,), tile=ct.minimum(ct.maximum(f, 0.0), 255.0).astype(ct.uint8))


@ct.kernel
def softmax_3d_last(X, Y, BB: ct.Constant[int], BS: ct.Constant[int], N: ct.Constant[int]):
    """Softmax over the last axis of ``[B, S, N]`` with 3-D ``(BB, BS, N)`` tiles (2 x 8 rows per
    program, the width 100 padded to 128 with -inf), exp2 of the scaled difference."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j, 0), shape=(BB, BS, N), padding_mode=NEG_INF).astype(ct.float32)
    e = ct.exp2((x - ct.max(x, axis=2, keepdims=True)) * LOG2E)
    ct.store(Y, index=(i, j, 0), tile=(e / ct.sum(e, axis=2, keepdims=True)).astype(Y.dtype))


@ct.kernel
def reduce_3d_axes(X, S0, M1, Z, A: ct.Constant[int], B: ct.Constant[int], C: ct.Constant[int]):
    """A whole ``[A, B, C]`` array as one 3-D tile: the sum over axis 0 (``[B, C]``), the max over
    axis 1 (``[A, C]``), and ``x - mean over axis 2`` broadcast back (``[A, B, C]``)."""
    x = ct.load(X, index=(0, 0, 0), shape=(A, B, C))
    ct.store(S0, index=(0, 0), tile=ct.sum(x, axis=0))
    ct.store(M1, index=(0, 0), tile=ct.max(x, axis=1))
    ct.store(Z, index=(0, 0, 0), tile=x - ct.sum(x, axis=2, keepdims=True) / C)


@ct.kernel
def polar_floor_ceil(X, Y, R, T, Fl, N: ct.Constant[int]):
    """Polar coordinates with ``ct.atan2`` and ``ct.sqrt``, ``ct.floor`` / ``ct.ceil`` of the angle
    in degrees (the floor stored as f32, the ceil minus the floor as int32)."""
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(N,), padding_mode=ZERO)
    y = ct.load(Y, index=(b,), shape=(N,), padding_mode=ZERO)
    t = ct.atan2(y, x)
    ct.store(R, index=(b,), tile=ct.sqrt(x * x + y * y))
    ct.store(T, index=(b,), tile=t)
    deg = t * 57.29577951308232
    ct.store(Fl, index=(b,), tile=ct.floor(deg) + (ct.ceil(deg) - ct.floor(deg)) * 1000.0)



@ct.kernel
def transpose_ragged(X, Y, BR: ct.Constant[int], BC: ct.Constant[int]):
    """``Y = X^T`` of a ``[100, 70]`` array by ``(32, 32)`` tiles ragged in both dimensions: the tile
    at (i, j) stored transposed at (j, i)."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BR, BC), padding_mode=ZERO)
    ct.store(Y, index=(j, i), tile=ct.transpose(x))


@ct.kernel
def embedding_2d_ids_pad(Ids, Table, Out, S: ct.Constant[int], D: ct.Constant[int]):
    """Embedding lookup of ``Ids [B, S]`` into ``Table [V, D]`` to ``Out [B, S, D]`` with 2-D index
    tiles for ``ct.gather`` (the ids broadcast against the columns); the padding id -1 gives zeros."""
    b = ct.bid(0)
    ids = ct.load(Ids, index=(b, 0), shape=(1, S)).reshape((S,))
    rows = ids[:, None]
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    e = ct.gather(Table, (rows, cols), mask=rows >= 0, padding_value=0.0)
    ct.store(Out, index=(b, 0, 0), tile=e.reshape((1, S, D)))


@ct.kernel
def cummax_scan(X, Y, N: ct.Constant[int]):
    """A running maximum along each row with ``ct.scan`` and a ``ct.maximum`` combiner (identity
    -inf), ragged width (90 in 128)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=NEG_INF)
    ct.store(Y, index=(r, 0), tile=ct.scan(x, axis=1, func=lambda a, b: ct.maximum(a, b), identity=-math.inf))


@ct.kernel
def where_scalar_flag(X, Y, Z, flag: int, N: ct.Constant[int]):
    """A runtime scalar condition in ``ct.where`` (``flag > 0`` picks the whole of one tile) and a
    bool tile stored as ``bool_`` from a bf16 comparison."""
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(N,), padding_mode=ZERO)
    y = ct.load(Y, index=(b,), shape=(N,), padding_mode=ZERO)
    ct.store(Z, index=(b,), tile=ct.where(flag > 0, x, y))
    ct.store(Z, index=(b + ct.num_blocks(0),), tile=ct.where(flag > 0, x * 2.0, y))


@ct.kernel
def reverse_chunk_suffix(X, Y, T: ct.Constant[int]):
    """Suffix sums of each row by chunks visited last to first (chunk ``n - 1 - t``), the carry a
    (1, 1) tile; a checkerboard of the result negated (``(r + c) % 2`` of iotas)."""
    r = ct.bid(0)
    carry = ct.zeros((1, 1), dtype=ct.float32)
    n = ct.num_tiles(X, axis=1, shape=(1, T))
    for t in range(n):
        c = n - 1 - t
        x = ct.load(X, index=(r, c), shape=(1, T), padding_mode=ZERO)
        s = ct.cumsum(x, axis=1, reverse=True) + carry
        col = c * T + ct.arange(T, dtype=ct.int32)[None, :]
        ct.store(Y, index=(r, c), tile=ct.where((col + r) % 2 == 0, s, -s))
        carry = s.extract((0, 0), shape=(1, 1))

_add("layernorm_rows_block", layernorm_rows_block, [((10, 1000), "float16"), ((1000,), "float32"), ((1000,), "float32"),
                                                    ((10, 1000), "float16"), 1e-5, 4, 1024], (3,), "simt",
     outputs=(3,))
_add("rmsnorm_residual_two_outputs", rmsnorm_residual_two_outputs,
     [((6, 777), "bfloat16"), ((6, 777), "bfloat16"), ((777,), "bfloat16"), ((6, 777), "bfloat16"),
      ((6, 777), "bfloat16"), 1e-6, 1024], (6,), "simt", outputs=(3, 4))
_add("softmax_axis0", softmax_axis0, [((200, 96), "float32"), ((200, 96), "float32"), 256, 32], (3,), "simt",
     outputs=(1,))
_add("argmax_argmin_ties", argmax_argmin_ties, [((16, 32), "float32"), ((16,), "int32"), ((32,), "int32"), 16, 32],
     (1,), "simt", outputs=(1, 2))
_add("cumsum_2d_axes", cumsum_2d_axes, [((20, 50), "float32"), ((20, 50), "float32"), ((20, 50), "float32"),
                                        ((20, 50), "float32"), 32, 64], (1,), "simt", outputs=(1, 2, 3))
_add("rope_halves_tables", rope_halves_tables, [((6, 4, 64), "float16"), ((6, 32), "float32"), ((6, 32), "float32"),
                                                ((6, 4, 64), "float16"), 2, 4, 32], (3,), "simt", outputs=(3,))
_add("rope_interleaved_3d", rope_interleaved_3d, [((8, 64), "bfloat16"), ((8, 32), "float32"), ((8, 32), "float32"),
                                                  ((8, 64), "bfloat16"), 4, 64], (2,), "simt", outputs=(3,))
_add("top3_rows", top3_rows, [((5, 300), "float32"), ((5, 3), "float32"), ((5, 3), "int32"), 512], (5,), "simt",
     outputs=(1, 2))
_add("row_histograms_2d_atomic", row_histograms_2d_atomic, [((4, 300), "float32"), ((4, 16), "int32"), -2.0, 4.0, 16,
                                                            512], (4,), "simt", outputs=(1,))
_add("col_sums_atomic", col_sums_atomic, [((100, 96), "float32"), ((96,), "float32"), 32, 32], (4, 3), "simt",
     outputs=(1,))
_add("where_piecewise", where_piecewise, [((500,), "float32"), ((500,), "float32"), ((500,), "int8"), 256], (2,),
     "simt", outputs=(1, 2))
_add("int_divmod_negatives", int_divmod_negatives, [((300,), "int32"), ((300,), "int32"), ((300,), "int32"),
                                                    ((300,), "int32"), ((300,), "int32"), ((300,), "int32"), -7, 128],
     (3,), "simt", outputs=(2, 3, 4, 5))
_add("conversion_chain", conversion_chain, [((300,), "float8_e4m3fn"), ((300,), "float16"), ((300,), "bfloat16"),
                                            ((300,), "float32"), ((300,), "int32"), ((300,), "uint8"), 128], (3,),
     "simt", outputs=(1, 2, 3, 4, 5))
_add("softmax_3d_last", softmax_3d_last, [((4, 16, 100), "float16"), ((4, 16, 100), "float16"), 2, 8, 128], (2, 2),
     "simt", outputs=(1,))
_add("reduce_3d_axes", reduce_3d_axes, [((4, 8, 16), "float32"), ((8, 16), "float32"), ((4, 16), "float32"),
                                        ((4, 8, 16), "float32"), 4, 8, 16], (1,), "simt", outputs=(1, 2, 3))
_add("transpose_ragged", transpose_ragged, [((100, 70), "float32"), ((70, 100), "float32"), 32, 32], (4, 3), "simt",
     outputs=(1,))
_add("embedding_2d_ids_pad", embedding_2d_ids_pad, [((3, 16), "int32"), ((50, 32), "float32"),
                                                    ((3, 16, 32), "float32"), 16, 32], (3,), "simt", outputs=(2,))
_add("cummax_scan", cummax_scan, [((4, 90), "float32"), ((4, 90), "float32"), 128], (4,), "simt", outputs=(1,))
_add("where_scalar_flag", where_scalar_flag, [((256,), "bfloat16"), ((256,), "bfloat16"), ((512,), "bfloat16"), 1,
                                              128], (2,), "simt", outputs=(2,))
_add("reverse_chunk_suffix", reverse_chunk_suffix, [((3, 300), "float32"), ((3, 300), "float32"), 128], (3,),
     "simt", outputs=(1,))
_add("polar_floor_ceil", polar_floor_ceil, [((300,), "float32"), ((300,), "float32"), ((300,), "float32"),
                                            ((300,), "float32"), ((300,), "float32"), 128], (3,), "simt",
     outputs=(2, 3, 4))

__all__ = ["PROGRAMS"]
