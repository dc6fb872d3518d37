"""A second set of attention-shaped cuTile programs (session 16, issue 20: "acceptance runs
attention-shaped programs you will not see"), written the way users write them and in forms the
attention programs of :mod:`tileorch.testing.attention_programs` and the user sweeps
(``user_programs3`` .. ``user_programs7``) do not have.

Score epilogues: Gemma-2's logit soft cap with a causal mask and the exp2 fold, ALiBi with the
head's slope computed in the kernel (``2 ** (-8 (h + 1) / H)``) and a symmetric ``-|j - i|``
distance, a clamped relative-position bias from iota positions, Qwen's log-n query scaling (a row
scale ``max(1, ln(i + 1) / ln(T))`` from the query position), an additive f32 bias shared by every
(batch, head) *and* a per-batch bool key mask (two loaded tiles per key step), a uint8 mask
shared by a batch's heads, sigmoid attention (no softmax: ``sigmoid(s + b) V``).

Key ranges and lengths: a both-sided sliding window with a compile-time width over a ragged
sequence (``range(lo, hi)`` with both bounds affine in the query tile), anti-causal attention
(the loop from the diagonal tile), chunked prefill (a query chunk at ``q_start`` of a KV cache,
bottom-right causal, ragged chunk), 16 speculative-decoding queries at the end of a KV cache of
runtime length, per-batch query and key lengths from arrays (rows past the query length written
as zeros), a causal diagonal tile peeled after the loop; decoding with one query row per program
(a ``(1, D)`` tile) and with 2 query heads per KV head (2-row tiles).

Shapes and layouts: MLA's QK head dim 192 with V head dim 128, head dims 96 (causal) and 80
(unpadded), K stored ``[B, H, D, S]`` with a causal bf16 program, K and V packed in one
``[B, S, 2, H, D]`` array, the (query tile, head, batch) triple decoded from a 1-D grid by
``//`` and ``%``, heads merged into the last axis (``[B, S, H D]``, GQA), bf16 inputs with an f32
output, Q pre-scaled in the prologue with natural exp, a per-head temperature read from memory.

Outputs: natural-exp causal bf16 with the log-sum-exp stored, the softmax probabilities ``P``
stored too (a second pass over the keys after the row statistics), an output gate
``sigmoid(G)`` applied after the loop, differential attention (two softmax chains, the second
subtracted with a weight).

Found by this set: every program but two took the chained tier as written; the one-query decode
tile was refused ("1 tile rows", and 4-row tiles: "below TMA's 8-row swizzle atom"): now 1-, 2- and
4-row tiles are padded to the WGMMA's 64 rows like 8/16/32.  Still refused (located, the SIMT path
runs them): ``attn_store_probs`` (two passes over the keys: "2 loops with dots one after another"
at the second loop) and ``attn_differential`` (two softmax chains over one V: "4 dots in one K loop
that do not read the same A tile") and ``attn_fused_rope_q`` (Q's rotary halves joined by
``ct.cat`` before the loop: a Q prologue that reads another column).  Two programs first written with ``-inf`` masks (the
both-sided window, anti-causal) produce NaN rows on any compiler (a row whose first visited key
tile is wholly masked: ``exp2(-inf + inf)``); they use the finite ``-1e30`` as users must.

Each entry is a :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (its
``path``: the path it takes, ``error``: the located reason a tier refused it); driven by
tests/unit/test_attention_programs2_compile.py (CPU compile: path and remarks),
tests/unit/test_attention_programs2_emulated.py (the chained kernels' PTX run by the emulator
against numpy) and tests/gpu/test_attention_programs2.py (H200 against torch fp32, NaN-prefilled
outputs).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

MASKED = -1.0e30  # a finite "minus infinity"


def _online(s, m, den, o, v, dt):
    """One online-softmax step on exp2-domain scores ``s``: the new max, sum, accumulator."""
    m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
    p = ct.exp2(s - m2)
    c = ct.exp2(m - m2)
    den = den * c + ct.sum(p, axis=1, keepdims=True)
    o = ct.mma(p.astype(dt), v, o * c)
    return m2, den, o


# ----------------------------------------------------------------------------------------------- score epilogues


@ct.kernel
def attn_softcap_causal(Q, K, V, O, scale: float, cap: float, BM: ct.Constant[int], BN: ct.Constant[int],
                        D: ct.Constant[int]):
    """Gemma-2: ``s = cap * tanh(s * scale / cap)``, causal (later key tiles skipped, the mask on
    every visited tile), the exponent in base 2 (``s * log2(e)``)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = cap * ct.tanh(s * (scale / cap))
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos <= qpos, s * LOG2E, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_alibi_slope_in_kernel(Q, K, V, O, scale: float, H: ct.Constant[int], BM: ct.Constant[int],
                               BN: ct.Constant[int], D: ct.Constant[int]):
    """Non-causal ALiBi (bidirectional encoders): the head's slope ``2 ** (-8 (h + 1) / H)``
    computed from the block id, the bias ``-slope * |j - i|``; bf16; natural exp."""
    qt, bh = ct.bid(0), ct.bid(1)
    h = bh % H
    slope = ct.exp2(ct.full((1, 1), -8.0, dtype=ct.float32) * (h + 1) / H)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = s - slope * ct.abs(kpos - qpos).astype(ct.float32)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_rel_pos_clamped(Q, K, V, O, qk_scale: float, w: float, R: ct.Constant[int], BM: ct.Constant[int],
                         BN: ct.Constant[int], D: ct.Constant[int]):
    """A relative-position bias ``w * clamp(j - i, -R, R)`` computed from iota positions."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        rel = ct.minimum(ct.maximum((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] - qpos, -R), R)
        s = (s + w * rel.astype(ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_logn_scaling(Q, K, V, O, qk_scale: float, inv_log_t: float, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """Qwen's log-n attention: query ``i``'s scores scaled by ``max(1, ln(i + 1) / ln(T))`` (a row
    scale from the query position, computed once before the loop; ``inv_log_t = 1 / ln(T)``)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None].astype(ct.float32)
    row = ct.maximum(ct.log(qpos + 1.0) * inv_log_t, 1.0) * qk_scale
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * row
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bias_and_key_mask(Q, K, V, Bias, KeyMask, O, qk_scale: float, H: ct.Constant[int], BM: ct.Constant[int],
                           BN: ct.Constant[int], D: ct.Constant[int]):
    """Two loaded tiles per key step: an f32 bias ``Bias [Sq, Sk]`` shared by every (batch, head)
    and a bool key-padding mask ``KeyMask [B, Sk]`` shared by a batch's heads."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // H
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = (s + ct.load(Bias, index=(qt, j), shape=(BM, BN))) * qk_scale
        s = ct.where(ct.load(KeyMask, index=(b, j), shape=(1, BN)), s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_uint8_mask_per_batch(Q, K, V, Mask, O, qk_scale: float, H: ct.Constant[int], BM: ct.Constant[int],
                              BN: ct.Constant[int], D: ct.Constant[int]):
    """A ``uint8`` attention mask ``Mask [B, Sq, Sk]`` (nonzero = keep) shared by a batch's heads,
    loaded per (query tile, key tile); the finite minimum for masked scores."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        keep = ct.load(Mask, index=(bh // H, qt, j), shape=(1, BM, BN)).reshape((BM, BN)) != 0
        s = ct.where(keep, s, MASKED)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_sigmoid(Q, K, V, O, scale: float, bias: float, BM: ct.Constant[int], BN: ct.Constant[int],
                 D: ct.Constant[int]):
    """Sigmoid attention (no softmax, no row state): ``O = sum_j sigmoid(s * scale + bias) V``
    over ragged keys (``padding_mode=ZERO`` loads, out-of-range keys' weights zeroed)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    o = ct.zeros((BM, D), dtype=ct.float32)
    sk = K.shape[1]
    for j in range(ct.cdiv(sk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale + bias
        p = 1.0 / (1.0 + ct.exp(-s))
        p = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < sk, p, 0.0)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o)
    ct.store(O, index=(bh, qt, 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- key ranges, lengths


@ct.kernel
def attn_window_both_sides_ragged(Q, K, V, O, qk_scale: float, seq_len: int, W: ct.Constant[int],
                                  BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Bidirectional local attention, ``|j - i| <= W`` with ``W`` a compile-time constant, over a
    ragged sequence: key tiles outside ``[lo, hi)`` skipped on both sides, ``lo`` and ``hi``
    affine in the query tile (``hi`` clamped to the key tiles); masked with the finite ``-1e30``
    (a row's first visited tile may lie wholly outside its window: with ``-inf`` that row's
    ``exp2(-inf + inf)`` is NaN; the finite value is rescaled away by the row's first real key)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    lo = max(qt * BM - W, 0) // BN
    hi = min(((qt + 1) * BM - 1 + W) // BN + 1, ct.cdiv(seq_len, BN))
    for j in range(lo, hi):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos < seq_len) & (kpos - qpos <= W) & (qpos - kpos <= W), s, MASKED)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_chunked_prefill(Q, K, V, O, qk_scale: float, q_start: int, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """Chunked prefill: Q holds a chunk of ``Sq`` new queries at positions ``q_start ..`` of a KV
    cache holding ``q_start + Sq`` keys (bottom-right causal: query row ``r`` sees keys
    ``<= q_start + r``); the chunk is ragged (its last query tile partly past ``Sq``)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    kv_len = q_start + Q.shape[1]
    qpos = (q_start + qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min(q_start + (qt + 1) * BM, kv_len), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos < kv_len), s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_spec_decode_tail(Q, K, V, O, qk_scale: float, kv_len: int, BM: ct.Constant[int], BN: ct.Constant[int],
                          D: ct.Constant[int]):
    """Speculative decoding: ``BM`` (16) draft queries per (batch, head), the last ``BM`` positions
    of a KV cache of runtime length ``kv_len`` (the cache array is longer); bottom-right causal
    among the drafts (query ``r`` sees keys ``<= kv_len - BM + r``)."""
    bh = ct.bid(0)
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (kv_len - BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(kv_len, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos <= qpos, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, 0, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_varlen_q_and_k(Q, K, V, QLens, KLens, O, qk_scale: float, H: ct.Constant[int], BM: ct.Constant[int],
                        BN: ct.Constant[int], D: ct.Constant[int]):
    """Padded varlen batches: per-batch query and key lengths from ``QLens [B]`` / ``KLens [B]``;
    the key loop runs ``cdiv(KLens[b], BN)`` tiles with the ragged tile masked, rows at or past
    ``QLens[b]`` are written as zeros."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // H
    ql = ct.gather(QLens, b)
    kl = ct.gather(KLens, b)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(kl, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < kl, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    rows = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    out = ct.where(rows < ql, o / den, 0.0)
    ct.store(O, index=(bh, qt, 0), tile=out.astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- shapes, layouts


@ct.kernel
def attn_mla_dqk192_dv128(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                          DQK: ct.Constant[int], DV: ct.Constant[int]):
    """DeepSeek MLA's prefill head dims: Q / K ``[BH, S, 192]`` (128 no-position + 64 RoPE
    dims in one; cuTile's tiles are powers of two, so read as zero-padded ``DQK = 256``-wide
    tiles), V / O ``[BH, S, 128]``, causal."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DQK), padding_mode=ct.PaddingMode.ZERO).reshape((BM, DQK))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, DV), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DQK), padding_mode=ct.PaddingMode.ZERO).reshape((BN, DQK))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DV)).reshape((BN, DV))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, DV)))


@ct.kernel
def attn_head_dim_any(Q, K, V, O, qk_scale: float, seq_len: int, CAUSAL: ct.Constant[bool], BM: ct.Constant[int],
                      BN: ct.Constant[int], D: ct.Constant[int]):
    """The textbook forward at a head dim that is not a power of two (96, 80) in zero-padded
    ``D``-wide tiles (cuTile's tiles are powers of two: 128), over a ragged sequence, optionally
    causal."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    n = ct.cdiv(seq_len, BN)
    if CAUSAL:
        n = ct.cdiv(min((qt + 1) * BM, seq_len), BN)
    for j in range(n):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        keep = kpos < seq_len
        if CAUSAL:
            keep = keep & (kpos <= qpos)
        s = ct.where(keep, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_kt_bhds_causal(Q, KT, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                        D: ct.Constant[int]):
    """K stored transposed per head, ``KT [B, H, D, S]`` (the ``[D, BN]`` tile is the first dot's
    B as stored), Q / V / O ``[B, H, S, D]`` on a (query tile, head, batch) grid; bf16, causal."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        kt = ct.load(KT, index=(b, h, 0, j), shape=(1, 1, D, BN)).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(b, h, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_kv_packed(Q, KV, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """K and V packed in one ``KV [B, S, 2, H, D]`` array (a fused KV projection's output), Q / O
    ``[B, S, H, D]``; grid (query tile, head, batch)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(KV, axis=1, shape=(1, BN, 1, 1, D))):
        k = ct.load(KV, index=(b, j, 0, h, 0), shape=(1, BN, 1, 1, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(KV, index=(b, j, 1, h, 0), shape=(1, BN, 1, 1, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, KV.dtype)
    ct.store(O, index=(b, qt, h, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def attn_flat_grid_divmod(Q, K, V, O, qk_scale: float, H: ct.Constant[int], NQ: ct.Constant[int],
                          BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """A 1-D grid over (batch, head, query tile): ``qt = pid % NQ``, ``h = (pid // NQ) % H``,
    ``b = pid // (NQ * H)``; ``[B, H, S, D]`` arrays."""
    pid = ct.bid(0)
    qt = pid % NQ
    h = (pid // NQ) % H
    b = pid // (NQ * H)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(b, h, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_bf16_f32_out(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """bf16 Q / K / V, an f32 output (no cast back), head dim 128."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).reshape((1, BM, D)))


@ct.kernel
def attn_q_prescaled_exp(Q, K, V, O, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """Q multiplied by the scale in its own precision before the loop (``q = (q * scale).astype``),
    the scores then used unscaled with natural ``exp``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    q = (q.astype(ct.float32) * scale).astype(Q.dtype)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_merged_heads_gqa(Q, K, V, O, qk_scale: float, G: ct.Constant[int], BM: ct.Constant[int],
                          BN: ct.Constant[int], D: ct.Constant[int]):
    """The projections' own layout, heads merged into the last axis: Q / O ``[B, S, H * D]``,
    K / V ``[B, S, HKV * D]`` (``H = G * HKV``), head ``h`` read as tile ``h`` of width ``D`` along
    the last axis (no transpose); grid (query tile, head, batch)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, qt, h), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(b, j, h // G), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(b, j, h // G), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(b, qt, h), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_diag_peeled(Q, K, V, O, qk_scale: float, B: ct.Constant[int], D: ct.Constant[int]):
    """Causal with square ``B x B`` tiles: the key tiles below the diagonal in the loop (no mask),
    the diagonal tile written out after it with the ``key <= query`` mask."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, B, D)).reshape((B, D))
    m = ct.full((B, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((B, 1), dtype=ct.float32)
    o = ct.zeros((B, D), dtype=ct.float32)
    for j in range(qt):
        k = ct.load(K, index=(bh, j, 0), shape=(1, B, D)).reshape((B, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((B, B), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, B, D)).reshape((B, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    k = ct.load(K, index=(bh, qt, 0), shape=(1, B, D)).reshape((B, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((B, B), dtype=ct.float32)) * qk_scale
    diag = ct.arange(B, dtype=ct.int32)
    s = ct.where(diag[None, :] <= diag[:, None], s, -math.inf)
    v = ct.load(V, index=(bh, qt, 0), shape=(1, B, D)).reshape((B, D))
    m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, B, D)))


@ct.kernel
def attn_decode_one_query(Q, K, V, O, qk_scale: float, kv_len: int, BN: ct.Constant[int], D: ct.Constant[int]):
    """Plain decoding: one query row per (batch, head) program (a ``(1, D)`` tile), a KV cache of
    runtime length ``kv_len``."""
    bh = ct.bid(0)
    q = ct.load(Q, index=(bh, 0), shape=(1, D))
    m = ct.full((1, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((1, 1), dtype=ct.float32)
    o = ct.zeros((1, D), dtype=ct.float32)
    for j in range(ct.cdiv(kv_len, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((1, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < kv_len, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, 0), tile=(o / den).astype(O.dtype))


@ct.kernel
def attn_head_temperature(Q, K, V, Tau, O, H: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int],
                          D: ct.Constant[int]):
    """A learned per-head temperature ``Tau [H]`` (f32, already times log2(e)) read as a one-element
    tile before the loop and broadcast over the scores."""
    qt, bh = ct.bid(0), ct.bid(1)
    tau = ct.load(Tau, index=(bh % H,), shape=(1,)).reshape((1, 1))
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * tau
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_anti_causal(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Reverse (anti-) causal attention: query ``i`` sees keys ``j >= i``; the loop starts at the
    key tile holding the query tile's first row, ``(qt BM) // BN``, and runs to the last; the
    finite minimum (a later row's first visited tiles lie wholly before it)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range((qt * BM) // BN, ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] >= qpos, s, MASKED)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_decode_gqa2(Q, K, V, O, qk_scale: float, G: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Decoding with 2 query heads per KV head: Q / O ``[B, HQ, D]`` read as a ``(1, G, D)`` tile of
    the group's heads (2 rows), K / V ``[B, HKV, S, D]``."""
    g, b = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(b, g, 0), shape=(1, G, D)).reshape((G, D))
    m = ct.full((G, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((G, 1), dtype=ct.float32)
    o = ct.zeros((G, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, g, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((G, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(b, g, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(b, g, 0), tile=(o / den).astype(O.dtype).reshape((1, G, D)))


@ct.kernel
def attn_flat_rows_2d(Q, K, V, O, qk_scale: float, S: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """2-D arrays with the heads' rows stacked, ``Q / K / V / O [BH * S, D]``: head ``bh``'s query
    tile at row tile ``bh * (S // BM) + qt``, its key tiles at ``bh * (S // BN) + j``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh * (S // BM) + qt, 0), shape=(BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(S // BN):
        k = ct.load(K, index=(bh * (S // BN) + j, 0), shape=(BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh * (S // BN) + j, 0), shape=(BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh * (S // BM) + qt, 0), tile=(o / den).astype(O.dtype))


@ct.kernel
def attn_dropout_mask_tensor(Q, K, V, Keep, O, qk_scale: float, p_drop: float, BM: ct.Constant[int],
                             BN: ct.Constant[int], D: ct.Constant[int]):
    """Dropout on the probabilities from a stored keep mask ``Keep [BH, Sq, Sk]`` (bool): the row
    sum over the undropped ``p``, the dropped ``p / (1 - p_drop)`` into the second dot."""
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
        keep = ct.load(Keep, index=(bh, qt, j), shape=(1, BM, BN)).reshape((BM, BN))
        pd = ct.where(keep, p / (1.0 - p_drop), 0.0)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(pd.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- outputs


@ct.kernel
def attn_exp_lse_causal_bf16(Q, K, V, O, LSE, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                             D: ct.Constant[int]):
    """The training forward in natural units: the scale applied to the scores (not folded),
    ``exp``, causal, bf16; ``LSE [BH, S]`` = ``m + ln(l)`` stored beside O for the backward."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))
    ct.store(LSE, index=(bh, qt), tile=(m + ct.log(den)).reshape((1, BM)))


@ct.kernel
def attn_store_probs(Q, K, V, O, P, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                     D: ct.Constant[int]):
    """``need_weights=True``: the row max and sum in a first pass over the keys (one dot per
    step), then a second pass storing the normalised probabilities ``P [BH, Sq, Sk]`` (f16) and
    accumulating ``O = P V``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    nk = ct.num_tiles(K, axis=1, shape=(1, BN, D))
    for j in range(nk):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        den = den * ct.exp2(m - m2) + ct.sum(ct.exp2(s - m2), axis=1, keepdims=True)
        m = m2
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(nk):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        p = (ct.exp2(s - m) / den).astype(P.dtype)
        ct.store(P, index=(bh, qt, j), tile=p.reshape((1, BM, BN)))
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p, v, o)
    ct.store(O, index=(bh, qt, 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_output_gate(Q, K, V, G, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                     D: ct.Constant[int]):
    """Gated attention: the normalised output multiplied by ``sigmoid(G)`` (``G [BH, S, D]``, a
    gate projection's output loaded after the loop)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    g = ct.load(G, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D)).astype(ct.float32)
    out = (o / den) * (1.0 / (1.0 + ct.exp(-g)))
    ct.store(O, index=(bh, qt, 0), tile=out.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_differential(Q1, K1, Q2, K2, V, O, qk_scale: float, lam: float, BM: ct.Constant[int],
                      BN: ct.Constant[int], D: ct.Constant[int]):
    """Differential attention: two softmax maps over the same V (``Q1 K1^T`` and ``Q2 K2^T``),
    ``O = softmax1 V - lam * softmax2 V``; four dots per key step."""
    qt, bh = ct.bid(0), ct.bid(1)
    q1 = ct.load(Q1, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    q2 = ct.load(Q2, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m1 = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    m2 = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    d1 = ct.zeros((BM, 1), dtype=ct.float32)
    d2 = ct.zeros((BM, 1), dtype=ct.float32)
    o1 = ct.zeros((BM, D), dtype=ct.float32)
    o2 = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(V, axis=1, shape=(1, BN, D))):
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        k1 = ct.load(K1, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s1 = ct.mma(q1, ct.transpose(k1), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m1, d1, o1 = _online(s1, m1, d1, o1, v, V.dtype)
        k2 = ct.load(K2, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s2 = ct.mma(q2, ct.transpose(k2), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2, d2, o2 = _online(s2, m2, d2, o2, v, V.dtype)
    out = o1 / d1 - lam * (o2 / d2)
    ct.store(O, index=(bh, qt, 0), tile=out.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_sink_logit(Q, K, V, Sinks, O, qk_scale: float, H: ct.Constant[int], BM: ct.Constant[int],
                    BN: ct.Constant[int], D: ct.Constant[int]):
    """gpt-oss attention sinks: a learned logit per head ``Sinks [H]`` (f32, natural units) joins
    each row's softmax denominator but no value: after the loop ``m' = max(m, sink)``, ``l' = l
    2^(m - m') + 2^(sink - m')``, ``O = acc 2^(m - m') / l'`` (exp2 units: the sink times log2(e))."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    sink = ct.load(Sinks, index=(bh % H,), shape=(1,)).reshape((1, 1)) * LOG2E
    m2 = ct.maximum(m, sink)
    c = ct.exp2(m - m2)
    den = den * c + ct.exp2(sink - m2)
    ct.store(O, index=(bh, qt, 0), tile=(o * c / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_decode_split_one_query(Q, K, V, OP, LP, qk_scale: float, CH: ct.Constant[int], BN: ct.Constant[int],
                                D: ct.Constant[int]):
    """Flash decoding with one query row per (batch, head): program ``(split, bh)`` attends its
    ``(1, D)`` query to keys ``[split CH, (split + 1) CH)`` and writes the normalised partial
    output ``OP [NS, BH, D]`` (f32) and the split's log-sum-exp ``LP [NS, BH]`` (log2 units)."""
    sp, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, 0), shape=(1, D))
    m = ct.full((1, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((1, 1), dtype=ct.float32)
    o = ct.zeros((1, D), dtype=ct.float32)
    per = CH // BN
    for j in range(sp * per, sp * per + per):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((1, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(OP, index=(sp, bh, 0), tile=(o / den).reshape((1, 1, D)))
    ct.store(LP, index=(sp, bh), tile=(m + ct.log2(den)).reshape((1, 1)))


@ct.kernel
def attn_decode_one_query_lens(Q, K, V, Lens, O, qk_scale: float, H: ct.Constant[int], BN: ct.Constant[int],
                               D: ct.Constant[int]):
    """Batched decoding over caches of different lengths: one query row per (batch, head), the
    batch's cache length read from ``Lens [B]`` (the trip count and the ragged tile's mask)."""
    bh = ct.bid(0)
    n = ct.gather(Lens, bh // H)
    q = ct.load(Q, index=(bh, 0), shape=(1, D))
    m = ct.full((1, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((1, 1), dtype=ct.float32)
    o = ct.zeros((1, D), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((1, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, 0), tile=(o / den).astype(O.dtype))


@ct.kernel
def attn_fused_rope_q(Q, K, V, Cos, Sin, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """Rotary embedding fused into attention (half-split, NeoX): Q's two halves loaded as
    ``(BM, D/2)`` tiles, rotated by the query positions' ``Cos / Sin [S, D/2]`` rows and put back
    with ``ct.cat`` before the loop (K arrives already rotated)."""
    qt, bh = ct.bid(0), ct.bid(1)
    h = D // 2
    q1 = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, h)).reshape((BM, h)).astype(ct.float32)
    q2 = ct.load(Q, index=(bh, qt, 1), shape=(1, BM, h)).reshape((BM, h)).astype(ct.float32)
    c = ct.load(Cos, index=(qt, 0), shape=(BM, h))
    sn = ct.load(Sin, index=(qt, 0), shape=(BM, h))
    q = ct.cat((q1 * c - q2 * sn, q2 * c + q1 * sn), axis=1).astype(Q.dtype)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- the table


def _qkv(q, k, dt="float16"):
    return [(q, dt), (k, dt), (k, dt)]


_S = 0.125 * LOG2E  # head dim 64, folded into exp2
F16, BF16 = "float16", "bfloat16"

_add("attn_softcap_causal", attn_softcap_causal, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), F16), 0.125,
                                                                                    30.0, 128, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_alibi_slope_in_kernel", attn_alibi_slope_in_kernel,
     _qkv((4, 128, 64), (4, 256, 64), BF16) + [((4, 128, 64), BF16), 0.125, 2, 64, 64, 64], (2, 4), "chained",
     outputs=(3,))
_add("attn_rel_pos_clamped", attn_rel_pos_clamped, _qkv((2, 128, 64), (2, 192, 64)) + [((2, 128, 64), F16), _S,
                                                                                      0.5, 32, 64, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_logn_scaling", attn_logn_scaling, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), F16), _S,
                                                                                1 / math.log(64.0),
                                                                                128, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_bias_and_key_mask", attn_bias_and_key_mask,
     _qkv((4, 128, 64), (4, 256, 64)) + [((128, 256), "float32"), ((2, 256), "bool_"), ((4, 128, 64), F16), _S, 2,
                                         64, 64, 64], (2, 4), "chained", outputs=(5,))
_add("attn_uint8_mask_per_batch", attn_uint8_mask_per_batch,
     _qkv((4, 128, 64), (4, 192, 64)) + [((2, 128, 192), "uint8"), ((4, 128, 64), F16), _S, 2, 64, 64, 64], (2, 4),
     "chained", outputs=(4,))
_add("attn_sigmoid", attn_sigmoid, _qkv((2, 128, 64), (2, 200, 64)) + [((2, 128, 64), "float32"), 0.125, -5.0,
                                                                      64, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_window_both_sides_ragged", attn_window_both_sides_ragged,
     _qkv((2, 300, 64), (2, 300, 64)) + [((2, 300, 64), F16), _S, 300, 96, 64, 64, 64], (5, 2), "chained",
     outputs=(3,))
_add("attn_chunked_prefill", attn_chunked_prefill,
     _qkv((2, 100, 64), (2, 320, 64)) + [((2, 100, 64), F16), _S, 220, 64, 64, 64], (2, 2), "chained",
     outputs=(3,))
_add("attn_spec_decode_tail", attn_spec_decode_tail,
     _qkv((4, 16, 64), (4, 512, 64)) + [((4, 16, 64), F16), _S, 300, 16, 64, 64], (4,), "chained", outputs=(3,))
_add("attn_varlen_q_and_k", attn_varlen_q_and_k,
     _qkv((4, 128, 64), (4, 256, 64)) + [((2,), "int32"), ((2,), "int32"), ((4, 128, 64), F16), _S, 2, 64, 64, 64],
     (2, 4), "chained", outputs=(5,))
_add("attn_mla_dqk192_dv128", attn_mla_dqk192_dv128,
     [((2, 128, 192), F16), ((2, 128, 192), F16), ((2, 128, 128), F16), ((2, 128, 128), F16),
      LOG2E / math.sqrt(192), 64, 64, 256, 128], (2, 2), "chained", outputs=(3,))
_add("attn_head96_causal", attn_head_dim_any,
     _qkv((2, 200, 96), (2, 200, 96)) + [((2, 200, 96), F16), LOG2E / math.sqrt(96), 200, True, 64, 64, 128],
     (4, 2), "chained", outputs=(3,))
_add("attn_head80", attn_head_dim_any,
     _qkv((2, 200, 80), (2, 200, 80)) + [((2, 200, 80), F16), LOG2E / math.sqrt(80), 200, False, 64, 64, 128],
     (4, 2), "chained", outputs=(3,))
_add("attn_kt_bhds_causal", attn_kt_bhds_causal,
     [((1, 2, 256, 64), BF16), ((1, 2, 64, 256), BF16), ((1, 2, 256, 64), BF16), ((1, 2, 256, 64), BF16), _S,
      64, 64, 64], (4, 2, 1), "chained", outputs=(3,))
_add("attn_kv_packed", attn_kv_packed,
     [((2, 128, 2, 64), F16), ((2, 256, 2, 2, 64), F16), ((2, 128, 2, 64), F16), _S, 64, 64, 64], (2, 2, 2),
     "chained", outputs=(2,))
_add("attn_flat_grid_divmod", attn_flat_grid_divmod,
     _qkv((2, 2, 128, 64), (2, 2, 256, 64)) + [((2, 2, 128, 64), F16), _S, 2, 2, 64, 64, 64], (8,), "chained",
     outputs=(3,))
_add("attn_bf16_f32_out", attn_bf16_f32_out,
     _qkv((2, 128, 128), (2, 256, 128), BF16) + [((2, 128, 128), "float32"), LOG2E / math.sqrt(128), 64, 64, 128],
     (2, 2), "chained", outputs=(3,))
_add("attn_q_prescaled_exp", attn_q_prescaled_exp,
     _qkv((2, 128, 64), (2, 256, 64)) + [((2, 128, 64), F16), 0.125, 64, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_exp_lse_causal_bf16", attn_exp_lse_causal_bf16,
     _qkv((2, 256, 64), (2, 256, 64), BF16) + [((2, 256, 64), BF16), ((2, 256), "float32"), 0.125, 128, 64, 64],
     (2, 2), "chained", outputs=(3, 4))
_add("attn_store_probs", attn_store_probs,
     _qkv((2, 128, 64), (2, 256, 64)) + [((2, 128, 64), F16), ((2, 128, 256), F16), _S, 64, 64, 64], (2, 2),
     "simt", outputs=(3, 4), error="2 loops with dots one after another",
     notes="two passes over the keys (row statistics, then P stored and P V): the chained tier runs one loop")
_add("attn_output_gate", attn_output_gate,
     _qkv((2, 128, 64), (2, 256, 64)) + [((2, 128, 64), F16), ((2, 128, 64), F16), _S, 64, 64, 64], (2, 2),
     "chained", outputs=(4,))
_add("attn_differential", attn_differential,
     [((2, 128, 64), F16), ((2, 256, 64), F16), ((2, 128, 64), F16), ((2, 256, 64), F16), ((2, 256, 64), F16),
      ((2, 128, 64), F16), _S, 0.3, 64, 64, 64], (2, 2), "chained", outputs=(5,),
     notes="two softmax chains over one V (four dots per step, two Q tiles): refused as '4 dots in one K loop that "
           "do not read the same A tile' until session 23 (first dots with their own A tiles, two second dots)")
_add("attn_merged_heads_gqa", attn_merged_heads_gqa,
     [((2, 128, 4 * 64), F16), ((2, 256, 2 * 64), F16), ((2, 256, 2 * 64), F16), ((2, 128, 4 * 64), F16), _S, 2,
      64, 64, 64], (2, 4, 2), "chained", outputs=(3,))
_add("attn_causal_diag_peeled", attn_causal_diag_peeled,
     _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), F16), _S, 64, 64], (4, 2), "chained", outputs=(3,))
_add("attn_decode_one_query", attn_decode_one_query,
     [((8, 64), F16), ((8, 512, 64), F16), ((8, 512, 64), F16), ((8, 64), F16), _S, 300, 64, 64], (8,), "chained",
     outputs=(3,))
_add("attn_head_temperature", attn_head_temperature,
     _qkv((4, 128, 64), (4, 256, 64)) + [((2,), "float32"), ((4, 128, 64), F16), 2, 64, 64, 64], (2, 4), "chained",
     outputs=(4,))
_add("attn_anti_causal", attn_anti_causal, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), F16), _S, 128, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_decode_gqa2", attn_decode_gqa2,
     [((2, 8, 64), F16), ((2, 4, 256, 64), F16), ((2, 4, 256, 64), F16), ((2, 8, 64), F16), _S, 2, 64, 64], (4, 2),
     "chained", outputs=(3,))
_add("attn_flat_rows_2d", attn_flat_rows_2d,
     [((2 * 256, 64), F16), ((2 * 256, 64), F16), ((2 * 256, 64), F16), ((2 * 256, 64), F16), _S, 256, 128, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_dropout_mask_tensor", attn_dropout_mask_tensor,
     _qkv((2, 128, 64), (2, 256, 64)) + [((2, 128, 256), "bool_"), ((2, 128, 64), F16), _S, 0.25, 64, 64, 64],
     (2, 2), "chained", outputs=(4,))

# tile-shape variants (two consumer warp groups, 128-key tiles, head dim 128)
_S128 = LOG2E / math.sqrt(128)
_add("attn_softcap_causal_d128_bm64_bn128", attn_softcap_causal,
     _qkv((2, 256, 128), (2, 256, 128)) + [((2, 256, 128), F16), 1 / math.sqrt(128), 30.0, 64, 128, 128], (4, 2),
     "chained", outputs=(3,))
_add("attn_bias_and_key_mask_bm128_bn128", attn_bias_and_key_mask,
     _qkv((4, 256, 64), (4, 256, 64)) + [((256, 256), "float32"), ((2, 256), "bool_"), ((4, 256, 64), F16), _S, 2,
                                         128, 128, 64], (2, 4), "chained", outputs=(5,))
_add("attn_chunked_prefill_d128_bm128", attn_chunked_prefill,
     _qkv((2, 200, 128), (2, 456, 128)) + [((2, 200, 128), F16), _S128, 256, 128, 64, 128], (2, 2), "chained",
     outputs=(3,))
_add("attn_decode_one_query_d128_bn128", attn_decode_one_query,
     [((6, 128), F16), ((6, 700, 128), F16), ((6, 700, 128), F16), ((6, 128), F16), _S128, 650, 128, 128], (6,),
     "chained", outputs=(3,))
_add("attn_window_both_sides_ragged_bm128_bn128", attn_window_both_sides_ragged,
     _qkv((2, 600, 64), (2, 600, 64)) + [((2, 600, 64), F16), _S, 600, 200, 128, 128, 64], (5, 2), "chained",
     outputs=(3,))
_add("attn_sink_logit", attn_sink_logit,
     _qkv((4, 128, 64), (4, 256, 64)) + [((2,), "float32"), ((4, 128, 64), F16), _S, 2, 64, 64, 64], (2, 4),
     "chained", outputs=(4,))
_add("attn_decode_split_one_query", attn_decode_split_one_query,
     [((8, 64), F16), ((8, 512, 64), F16), ((8, 512, 64), F16), ((4, 8, 64), "float32"), ((4, 8), "float32"), _S,
      128, 64, 64], (4, 8), "chained", outputs=(3, 4))
_add("attn_decode_one_query_lens", attn_decode_one_query_lens,
     [((6, 64), F16), ((6, 512, 64), F16), ((6, 512, 64), F16), ((3,), "int32"), ((6, 64), F16), _S, 2, 64, 64],
     (6,), "chained", outputs=(4,))
_add("attn_fused_rope_q", attn_fused_rope_q,
     _qkv((2, 128, 64), (2, 256, 64)) + [((128, 32), "float32"), ((128, 32), "float32"), ((2, 128, 64), F16), _S,
                                         64, 64, 64], (2, 2), "simt", outputs=(5,),
     error="the first dot's A (Q) is computed from its tile by 'nv_tileaa.cat'",
     notes="Q's rotary halves put back by ct.cat: a prologue reading another column of the tile (not elementwise)")
