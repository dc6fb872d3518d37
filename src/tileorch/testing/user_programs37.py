"""The thirty-seventh user sweep (session 45): attention-shaped and two-dot cuTile programs written the way their
authors write them, in forms the earlier sweeps and attention zoos (attention_programs*, attnzoo30/32/34,
attnsweep36/43, attnpaged37, fp8attn43, attnforms44, user_programs1..36) spell differently.

Attention, spelt as NVIDIA's cuTile samples spell it (argument order ``Q, K, V, Out, qk_scale, input_pos, TILE_D, H,
TILE_M, TILE_N, QUERY_GROUP_SIZE, CAUSAL, EVEN_K``; the scale folded into log2 units in the kernel; K loaded
transposed by ``order=(0, 1, 3, 2)``; the mask added as ``where(mask, 0, -inf)`` only from the first masked tile;
``latency=`` hints; ``exp2(..., flush_to_zero=True)``; the final division ``ct.truediv(..., rounding_mode=APPROX)``)
with a query offset ``input_pos`` (bottom-right causal, ``Sq < Sk``) and GQA, at head dims 32 / 64 / 256; the causal
forward in two loops (off-diagonal tiles unmasked, then the diagonal tiles masked: the samples' ``STAGE = 3``); the
samples' reversed query-tile order for causal; K stored transposed ``[BH, D, Sk]`` (head dim 160); cross attention
with per-batch key lengths (head dim 80); decode with the GQA group in the tile rows (``[B, HKV, G, D]``) and with
1 / 3 / 16 query rows at a bottom-right causal offset; the group in the grid with ``[B, S, H, D]`` arrays; symmetric
ALiBi with the slope computed in the kernel; a T5 relative-position bias ``[H, Sq, Sk]`` shared by the batch; a bf16
bias tensor ``[B, H, Sq, Sk]`` with causal; Gemma's softcap in log2 units; a two-sided local window; sink tokens +
sliding window (StreamingLLM); a dropout keep mask loaded per step; the running max and the LSE returned beside O;
bf16 O with an fp32 LSE written ``[B, S, H, D]`` / ``[B, H, S]`` at head dim 192; DeepSeek-style ``d_qk = 192,
d_v = 128``.

Two-dot programs that are not attention: an MLP ``gelu(X W1) W2`` chained over the hidden dimension in one kernel,
the gated MLP ``(silu(X Wg) * X Wu) Wd``, ``X W`` over a K loop then a second GEMM of another K, a low-rank chain
``(X A) B``, a batched two-dot with a weight shared by the batch; reductions around dots: the row sum of a GEMM
result over N tiles, a GEMM + softmax over N, the LSE of an LM head over vocabulary tiles.

Scales: ``qk_scale`` is the natural ``1 / sqrt(d)`` where the sample folds ``INV_LOG_2`` in the kernel
(:data:`FOLDS_LOG2`), else log2 units.  Each entry is a :class:`tileorch.testing.user_programs.UserProgram` in
:data:`PROGRAMS`; references in :mod:`tileorch.testing.user_programs37_refs`.  Driven by
tests/unit/test_user_sweep37_compile.py, tests/unit/test_user_sweep37_emulated.py,
tests/unit/test_user_sweep37_invalid.py (:data:`INVALID`, :data:`REJECTED_BY_CUTILE`),
tests/unit/test_user_sweep37_cutlass.py and tests/gpu/test_user_sweep37_gpu.py.  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct
from cuda.tile import RoundingMode as RMd

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]
ZERO = ct.PaddingMode.ZERO
INV_LOG_2 = 1.0 / math.log(2)
LN2 = math.log(2.0)
F16, BF16, F32, I32, I8 = "float16", "bfloat16", "float32", "int32", "int8"


# ----------------------------------------------------------------------------------------------- the samples' form


@ct.kernel
def s37_fmha_sample(Q, K, V, Out, qk_scale: float, input_pos: int, TILE_D: ConstInt, H: ConstInt, TILE_M: ConstInt,
                    TILE_N: ConstInt, QUERY_GROUP_SIZE: ConstInt, CAUSAL: ConstBool, EVEN_K: ConstBool):
    """The cuTile samples' forward: ``Q / Out [B, H, Sq, D]``, ``K / V [B, H // QUERY_GROUP_SIZE, Sk, D]``; query
    row ``i`` sits at position ``input_pos + i`` (causal: it sees keys ``<= input_pos + i``); K read transposed as
    ``[D, TILE_N]`` by ``order``; the mask added from the first tile that needs it; natural ``qk_scale`` folded."""
    bid_x = ct.bid(0)
    bid_y = ct.bid(1)
    batch_idx = bid_y // H
    head_idx = bid_y % H
    off_kv_h = head_idx // QUERY_GROUP_SIZE
    qk_scale = qk_scale * INV_LOG_2
    offs_m = bid_x * TILE_M + ct.arange(TILE_M, dtype=ct.int32)
    offs_m += input_pos
    offs_m = offs_m[:, None]
    offs_n_tile = ct.arange(TILE_N, dtype=ct.int32)
    offs_n_tile = offs_n_tile[None, :]
    m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE_M, TILE_D), 0.0, dtype=ct.float32)
    q = ct.load(Q, index=(batch_idx, head_idx, bid_x, 0), shape=(1, 1, TILE_M, TILE_D),
                padding_mode=ZERO).reshape((TILE_M, TILE_D))
    m_end = input_pos + (bid_x + 1) * TILE_M
    k_seqlen = K.shape[2]
    if CAUSAL:
        mask_start = (input_pos + bid_x * TILE_M) // TILE_N
        mask_start = min(mask_start, k_seqlen // TILE_N)
        Tc = ct.cdiv(min(m_end, k_seqlen), TILE_N)
    else:
        Tc = ct.cdiv(k_seqlen, TILE_N)
        mask_start = k_seqlen // TILE_N
    for j in range(0, Tc):
        k = ct.load(K, index=(batch_idx, off_kv_h, 0, j), shape=(1, 1, TILE_D, TILE_N), order=(0, 1, 3, 2),
                    latency=2, padding_mode=ZERO)
        k = k.reshape((TILE_D, TILE_N))
        qk = ct.full((TILE_M, TILE_N), 0., dtype=ct.float32)
        qk = ct.mma(q, k, qk)
        if (CAUSAL or not EVEN_K) and j >= mask_start:
            offs_n = j * TILE_N + offs_n_tile
            mask = ct.full((TILE_M, TILE_N), True, dtype=ct.bool_)
            if not EVEN_K:
                mask = mask & (offs_n < k_seqlen)
            if CAUSAL:
                mask = mask & (offs_m >= offs_n)
            mask = ct.where(mask, 0.0, -math.inf)
            qk += mask
        m_ij = max(m_i, ct.max(qk, axis=-1, keepdims=True) * qk_scale)
        qk = qk * qk_scale - m_ij
        p = ct.exp2(qk, flush_to_zero=True)
        l_ij = ct.sum(p, axis=-1, keepdims=True)
        alpha = ct.exp2(m_i - m_ij, flush_to_zero=True)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha
        v = ct.load(V, index=(batch_idx, off_kv_h, j, 0), shape=(1, 1, TILE_N, TILE_D), latency=4,
                    padding_mode=ZERO).reshape((TILE_N, TILE_D))
        p = p.astype(Q.dtype)
        acc = ct.mma(p, v, acc)
        m_i = m_ij
    acc = ct.truediv(acc, l_i, flush_to_zero=True, rounding_mode=RMd.APPROX)
    acc = acc.reshape((1, 1, TILE_M, TILE_D)).astype(Out.dtype)
    ct.store(Out, index=(batch_idx, head_idx, bid_x, 0), tile=acc)


@ct.kernel
def s37_causal_two_loops(Q, K, V, Out, sm_scale: float, H: ConstInt, BLOCK_D: ConstInt, BLOCK_M: ConstInt,
                         BLOCK_N: ConstInt):
    """Causal in two loops (the samples' ``STAGE = 3``): the key tiles left of the diagonal block unmasked, then the
    diagonal tiles masked; 1-D row state, ``l_i`` starting at 1 (the tutorials' spelling: the first ``alpha`` is 0);
    ``[B, H, S, D]``, ``BLOCK_M`` a multiple of ``BLOCK_N``."""
    bid_x = ct.bid(0)
    bid_y = ct.bid(1)
    batch_idx = bid_y // H
    head_idx = bid_y % H
    qk_scale = sm_scale * INV_LOG_2
    offs_m = bid_x * BLOCK_M + ct.arange(BLOCK_M, dtype=ct.int32)
    offs_n = ct.arange(BLOCK_N, dtype=ct.int32)
    m_i = ct.full((BLOCK_M,), -math.inf, dtype=ct.float32)
    l_i = ct.full((BLOCK_M,), 1.0, dtype=ct.float32)
    acc = ct.full((BLOCK_M, BLOCK_D), 0.0, dtype=ct.float32)
    q = ct.load(Q, index=(batch_idx, head_idx, bid_x, 0), shape=(1, 1, BLOCK_M, BLOCK_D),
                padding_mode=ZERO).reshape((BLOCK_M, BLOCK_D))
    seq = K.shape[2]
    lo = bid_x * BLOCK_M // BLOCK_N
    for j in range(0, lo):
        k = ct.load(K, index=(batch_idx, head_idx, j, 0), shape=(1, 1, BLOCK_N, BLOCK_D),
                    padding_mode=ZERO).reshape((BLOCK_N, BLOCK_D))
        qk = ct.mma(q, ct.transpose(k), ct.zeros((BLOCK_M, BLOCK_N), dtype=ct.float32))
        m_ij = ct.maximum(m_i, ct.max(qk, axis=1) * qk_scale)
        p = ct.exp2(qk * qk_scale - m_ij[:, None])
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=1)
        v = ct.load(V, index=(batch_idx, head_idx, j, 0), shape=(1, 1, BLOCK_N, BLOCK_D),
                    padding_mode=ZERO).reshape((BLOCK_N, BLOCK_D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha[:, None])
        m_i = m_ij
    for j in range(lo, ct.cdiv(min((bid_x + 1) * BLOCK_M, seq), BLOCK_N)):
        k = ct.load(K, index=(batch_idx, head_idx, j, 0), shape=(1, 1, BLOCK_N, BLOCK_D),
                    padding_mode=ZERO).reshape((BLOCK_N, BLOCK_D))
        qk = ct.mma(q, ct.transpose(k), ct.zeros((BLOCK_M, BLOCK_N), dtype=ct.float32))
        kpos = j * BLOCK_N + offs_n
        ok = (offs_m[:, None] >= kpos[None, :]) & (kpos[None, :] < seq)
        qk = qk * qk_scale + ct.where(ok, 0.0, -math.inf)
        m_ij = ct.maximum(m_i, ct.max(qk, axis=1))
        p = ct.exp2(qk - m_ij[:, None])
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=1)
        v = ct.load(V, index=(batch_idx, head_idx, j, 0), shape=(1, 1, BLOCK_N, BLOCK_D),
                    padding_mode=ZERO).reshape((BLOCK_N, BLOCK_D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha[:, None])
        m_i = m_ij
    acc = acc / l_i[:, None]
    ct.store(Out, index=(batch_idx, head_idx, bid_x, 0), tile=acc.reshape((1, 1, BLOCK_M, BLOCK_D)).astype(Out.dtype))


@ct.kernel
def s37_causal_reversed_tiles(Q, K, V, Out, qk_scale: float, TILE_D: ConstInt, H: ConstInt, TILE_M: ConstInt,
                              TILE_N: ConstInt, NUM_M_BLOCKS: ConstInt):
    """Causal with the query tiles launched last-first (the cuTile docs' ``bid_x = NUM_M_BLOCKS - 1 - ct.bid(0)``:
    the longest rows start first); natural ``qk_scale`` folded; ``[B, H, S, D]``."""
    bid_x = NUM_M_BLOCKS - 1 - ct.bid(0)
    bid_y = ct.bid(1)
    batch_idx = bid_y // H
    head_idx = bid_y % H
    qk_scale = qk_scale * INV_LOG_2
    offs_m = (bid_x * TILE_M + ct.arange(TILE_M, dtype=ct.int32))[:, None]
    offs_n_tile = ct.arange(TILE_N, dtype=ct.int32)[None, :]
    m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE_M, TILE_D), 0.0, dtype=ct.float32)
    q = ct.load(Q, index=(batch_idx, head_idx, bid_x, 0), shape=(1, 1, TILE_M, TILE_D),
                padding_mode=ZERO).reshape((TILE_M, TILE_D))
    k_seqlen = K.shape[2]
    for j in range(0, ct.cdiv(min((bid_x + 1) * TILE_M, k_seqlen), TILE_N)):
        k = ct.load(K, index=(batch_idx, head_idx, 0, j), shape=(1, 1, TILE_D, TILE_N), order=(0, 1, 3, 2),
                    padding_mode=ZERO).reshape((TILE_D, TILE_N))
        qk = ct.mma(q, k, ct.full((TILE_M, TILE_N), 0., dtype=ct.float32))
        offs_n = j * TILE_N + offs_n_tile
        qk += ct.where((offs_m >= offs_n) & (offs_n < k_seqlen), 0.0, -math.inf)
        m_ij = max(m_i, ct.max(qk, axis=-1, keepdims=True) * qk_scale)
        p = ct.exp2(qk * qk_scale - m_ij, flush_to_zero=True)
        alpha = ct.exp2(m_i - m_ij, flush_to_zero=True)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.load(V, index=(batch_idx, head_idx, j, 0), shape=(1, 1, TILE_N, TILE_D),
                    padding_mode=ZERO).reshape((TILE_N, TILE_D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_ij
    acc = ct.truediv(acc, l_i, flush_to_zero=True, rounding_mode=RMd.APPROX)
    ct.store(Out, index=(batch_idx, head_idx, bid_x, 0), tile=acc.reshape((1, 1, TILE_M, TILE_D)).astype(Out.dtype))


@ct.kernel
def s37_k_permuted_load_hints(Q, K, V, Out, qk_scale: float, TILE_D: ConstInt, H: ConstInt, TILE_M: ConstInt,
                              TILE_N: ConstInt, K_TMA: ConstBool):
    """The K tile loaded ``[TILE_N, TILE_D]`` and turned by ``ct.permute(k, (1, 0))``, every load with the hints a
    port tunes (``allow_tma=``, ``latency=``; K's ``allow_tma`` the constant ``K_TMA``); natural ``qk_scale`` folded;
    ``[B, H, S, D]``, non-causal, keys ragged."""
    bid_x = ct.bid(0)
    bid_y = ct.bid(1)
    batch_idx = bid_y // H
    head_idx = bid_y % H
    qk_scale = qk_scale * INV_LOG_2
    q = ct.load(Q, index=(batch_idx, head_idx, bid_x, 0), shape=(1, 1, TILE_M, TILE_D), padding_mode=ZERO,
                allow_tma=True, latency=1).reshape((TILE_M, TILE_D))
    m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE_M, TILE_D), 0.0, dtype=ct.float32)
    k_seqlen = K.shape[2]
    for j in range(0, ct.cdiv(k_seqlen, TILE_N)):
        k = ct.load(K, index=(batch_idx, head_idx, j, 0), shape=(1, 1, TILE_N, TILE_D), padding_mode=ZERO,
                    allow_tma=K_TMA, latency=3).reshape((TILE_N, TILE_D))
        qk = ct.mma(q, ct.permute(k, (1, 0)), ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32))
        offs_n = j * TILE_N + ct.arange(TILE_N, dtype=ct.int32)[None, :]
        qk = ct.where(offs_n < k_seqlen, qk * qk_scale, -math.inf)
        m_ij = max(m_i, ct.max(qk, axis=-1, keepdims=True))
        p = ct.exp2(qk - m_ij, flush_to_zero=True)
        alpha = ct.exp2(m_i - m_ij, flush_to_zero=True)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.load(V, index=(batch_idx, head_idx, j, 0), shape=(1, 1, TILE_N, TILE_D), padding_mode=ZERO,
                    allow_tma=True, latency=4).reshape((TILE_N, TILE_D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_ij
    acc = ct.truediv(acc, l_i, flush_to_zero=True, rounding_mode=RMd.APPROX)
    ct.store(Out, index=(batch_idx, head_idx, bid_x, 0), tile=acc.reshape((1, 1, TILE_M, TILE_D)).astype(Out.dtype))


# ----------------------------------------------------------------------------------------------- layouts, lengths


@ct.kernel
def s37_k_stored_transposed(Q, Kt, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """K kept transposed in memory, ``Kt [BH, D, Sk]`` (a cache laid out for the QK^T dot), read as ``[D, BN]``
    tiles and used as the dot's B directly; ``Q / O [BH, Sq, D]``, ``V [BH, Sk, D]``; log2 ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = V.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        kt = ct.load(Kt, index=(bh, 0, j), shape=(1, D, BN), padding_mode=ZERO).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s37_cross_attn_key_lengths(Q, K, V, KLen, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                               D: ConstInt):
    """Cross attention (decoder queries over encoder keys, ``Sq != Sk``) with an encoder padding mask: batch ``b``'s
    keys past ``KLen[b]`` are padding; the loop stops at the last tile holding a valid key; ``[B, H, S, D]``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // H
    h = bh % H
    klen = ct.load(KLen, index=(b,), shape=(1,)).item()
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(klen, BN)):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < klen, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def s37_decode_group_in_tile(Q, K, V, O, qk_scale: float, GT: ConstInt, BN: ConstInt, D: ConstInt):
    """GQA decode with the group in the tile rows: one new token, ``Q / O [B, HKV, G, D]`` (the G query heads of a
    KV head adjacent), one program per (KV head, batch) loads all G query rows (a ``GT``-row tile, rows past G
    zero) against ``K / V [B, HKV, Sk, D]``: K and V read once for the group."""
    kvh, b = ct.bid(0), ct.bid(1)
    seq = K.shape[2]
    q = ct.load(Q, index=(b, kvh, 0, 0), shape=(1, 1, GT, D), padding_mode=ZERO).reshape((GT, D))
    m_i = ct.full((GT, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((GT, 1), dtype=ct.float32)
    acc = ct.zeros((GT, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((GT, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, kvh, 0, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, GT, D)))


@ct.kernel
def s37_decode_rows_causal_offset(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Decode / speculative verification: ``Sq`` new tokens (1..16, a 16-row tile) after ``Sk - Sq`` cached ones;
    row ``i`` sees keys ``<= Sk - Sq + i`` (bottom-right causal); ``[BH, S, D]``, one program per head."""
    bh = ct.bid(0)
    sq = Q.shape[1]
    seq = K.shape[1]
    qpos = (seq - sq + ct.arange(BM, dtype=ct.int32))[:, None]
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, 0, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s37_gqa_group_in_grid_bshd(Q, K, V, O, qk_scale: float, G: ConstInt, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """GQA with the group in the grid on sequence-major arrays (vLLM / flash-attn's ``[B, S, H, D]``): program
    ``(query tile, query head, batch)``, KV head ``h // G`` of ``K / V [B, Sk, HKV, D]``; non-causal."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    kvh = h // G
    seq = K.shape[1]
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, j, kvh, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, kvh, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))


# ----------------------------------------------------------------------------------------------- biases


@ct.kernel
def s37_alibi_symmetric_slope_in_kernel(Q, K, V, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                        D: ConstInt):
    """Bidirectional ALiBi (an encoder): ``s = q.k / sqrt(d) - slope_h |q - k|``, the head's slope ``2^(-8 (h+1) / H)``
    computed in the kernel (no slope array); ``[BH, S, D]`` with ``bh = b H + h``; log2 ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    h = bh % H
    slope = ct.exp2(ct.full((1, 1), -8.0 / H, dtype=ct.float32) * (h + 1)) * LOG2E
    seq = K.shape[1]
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        dist = ct.abs(kpos - qpos).astype(ct.float32)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale - slope * dist
        s = ct.where(kpos < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s37_t5_relative_bias_per_head(Q, K, V, RelBias, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                  D: ConstInt):
    """T5-style relative-position bias materialised per head, ``RelBias [H, Sq, Sk]`` (f32, natural units, shared by
    the batch), its ``[BM, BN]`` tile loaded each key step; ``[B, H, S, D]``; log2 ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // H
    h = bh % H
    seq = K.shape[2]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        rb = ct.load(RelBias, index=(h, qt, j), shape=(1, BM, BN), padding_mode=ZERO).reshape((BM, BN))
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale + rb * LOG2E
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def s37_bias_tensor_causal_bf16(Q, K, V, Bias, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                D: ConstInt):
    """A bf16 attention-bias tensor ``Bias [B, H, Sq, Sk]`` (natural units) loaded per key step on top of causal
    (the loop stops at the diagonal); ``[B, H, S, D]``, bf16 in / out; log2 ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // H
    h = bh % H
    seq = K.shape[2]
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        bias = ct.load(Bias, index=(b, h, qt, j), shape=(1, 1, BM, BN), padding_mode=ZERO).reshape((BM, BN))
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = s + bias.astype(ct.float32) * LOG2E
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def s37_softcap_log2_causal(Q, K, V, Out, sm_scale: float, SOFT_CAP: float, H: ConstInt, BLOCK_D: ConstInt,
                            BLOCK_M: ConstInt, BLOCK_N: ConstInt):
    """Gemma-2's softcap as a cuTile port writes it: ``qk = cap tanh(q.k sm_scale / cap)`` in natural units, then
    ``* INV_LOG_2`` for ``exp2``; causal; ``[B, H, S, D]``."""
    bid_x = ct.bid(0)
    bid_y = ct.bid(1)
    batch_idx = bid_y // H
    head_idx = bid_y % H
    offs_m = (bid_x * BLOCK_M + ct.arange(BLOCK_M, dtype=ct.int32))[:, None]
    q = ct.load(Q, index=(batch_idx, head_idx, bid_x, 0), shape=(1, 1, BLOCK_M, BLOCK_D),
                padding_mode=ZERO).reshape((BLOCK_M, BLOCK_D))
    m_i = ct.full((BLOCK_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.full((BLOCK_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((BLOCK_M, BLOCK_D), 0.0, dtype=ct.float32)
    seq = K.shape[2]
    for j in range(ct.cdiv(min((bid_x + 1) * BLOCK_M, seq), BLOCK_N)):
        k = ct.load(K, index=(batch_idx, head_idx, j, 0), shape=(1, 1, BLOCK_N, BLOCK_D),
                    padding_mode=ZERO).reshape((BLOCK_N, BLOCK_D))
        qk = ct.mma(q, ct.transpose(k), ct.full((BLOCK_M, BLOCK_N), 0.0, dtype=ct.float32))
        qk = qk * sm_scale
        qk = SOFT_CAP * ct.tanh(qk / SOFT_CAP)
        qk = qk * INV_LOG_2
        offs_n = (j * BLOCK_N + ct.arange(BLOCK_N, dtype=ct.int32))[None, :]
        qk = qk + ct.where((offs_m >= offs_n) & (offs_n < seq), 0.0, -math.inf)
        m_ij = ct.maximum(m_i, ct.max(qk, axis=-1, keepdims=True))
        p = ct.exp2(qk - m_ij)
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.load(V, index=(batch_idx, head_idx, j, 0), shape=(1, 1, BLOCK_N, BLOCK_D),
                    padding_mode=ZERO).reshape((BLOCK_N, BLOCK_D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_ij
    ct.store(Out, index=(batch_idx, head_idx, bid_x, 0),
             tile=(acc / l_i).reshape((1, 1, BLOCK_M, BLOCK_D)).astype(Out.dtype))


# ----------------------------------------------------------------------------------------------- masks


@ct.kernel
def s37_local_window_both_sides(Q, K, V, O, qk_scale: float, W: int, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Local (Longformer-style) attention, not causal: query ``i`` sees keys ``|i - k| <= W``; the loop runs from the
    first key tile the left bound reaches to the last the right bound reaches; ``[BH, S, D]``; log2 ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    lo = max(qt * BM - W, 0) // BN
    hi = ct.cdiv(min((qt + 1) * BM + W, seq), BN)
    for j in range(lo, hi):
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        ok = (kpos >= qpos - W) & (kpos <= qpos + W) & (kpos < seq)
        s = ct.where(ok, ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s37_sink_tokens_sliding_window(Q, K, V, O, qk_scale: float, SINK: int, W: int, BM: ConstInt, BN: ConstInt,
                                   D: ConstInt):
    """StreamingLLM: causal, query ``i`` sees the first ``SINK`` keys and the last ``W`` keys ``(i - W, i]``; the
    loop runs over every key tile up to the diagonal, the mask written as one expression; ``[BH, S, D]``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        ok = (kpos <= qpos) & ((kpos < SINK) | (kpos > qpos - W)) & (kpos < seq)
        s = ct.where(ok, ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s37_dropout_keep_mask(Q, K, V, Keep, O, qk_scale: float, keep_scale: float, BM: ConstInt, BN: ConstInt,
                          D: ConstInt):
    """Attention dropout from a loaded keep mask (``Keep [BH, Sq, Sk]`` int8, 1 = kept, drawn by the caller): the
    row sum uses the undropped probabilities, ``P V`` the dropped ones times ``keep_scale = 1 / (1 - rate)``;
    ``[BH, S, D]``, keys ragged; log2 ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        keep = ct.load(Keep, index=(bh, qt, j), shape=(1, BM, BN), padding_mode=ZERO).reshape((BM, BN))
        pd = ct.where(keep != 0, p * keep_scale, 0.0)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(pd.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s37_key_padding_mask_vector(Q, K, V, KeyMask, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                D: ConstInt):
    """A Hugging Face ``attention_mask [B, Sk]`` (int32, 1 = a real token, 0 = padding anywhere in the row) read as
    a ``[BN]`` vector per key step and broadcast over the query rows; ``[B, H, S, D]``, non-causal; log2
    ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // H
    h = bh % H
    seq = K.shape[2]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        km = ct.load(KeyMask, index=(b, j), shape=(1, BN), padding_mode=ZERO).reshape((BN,))
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(km[None, :] != 0, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def s37_matmul_operator_scores(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Scores by the ``@`` operator (``ct.matmul``: f16 in, the product returned as f16) then widened,
    ``s = (q @ k^T).astype(f32) * qk_scale``, and ``P V`` by ``ct.mma`` into f32; ``[BH, S, D]``, keys ragged; log2
    ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = (q @ ct.transpose(k)).astype(ct.float32) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s37_safe_softmax_guards(Q, K, V, KLen, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                            D: ConstInt):
    """FlashAttention-2's "safe" online softmax for rows that may see no key: ``alpha`` is 1 (and ``p`` 0) while
    the running max is still ``-inf``, and O divides by ``l`` only where it is positive (a row with no key stores 0).
    Per-batch key lengths (``KLen [B]``, a batch of length 0 included); ``[B, H, S, D]``; log2 ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // H
    h = bh % H
    klen = ct.load(KLen, index=(b,), shape=(1,)).item()
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(K.shape[2], BN)):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < klen, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        dead = m_new == -math.inf
        p = ct.where(dead, 0.0, ct.exp2(s - m_new))
        alpha = ct.where(dead, 1.0, ct.exp2(m_i - m_new))
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    o = ct.where(l_i > 0.0, acc / ct.where(l_i > 0.0, l_i, 1.0), 0.0)
    ct.store(O, index=(b, h, qt, 0), tile=o.astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def s37_v_stored_transposed(Q, K, Vt, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """V kept transposed in memory, ``Vt [BH, D, Sk]`` (the layout a fused QKV^T projection leaves), read as
    ``[BN, D]`` tiles through ``order=(0, 2, 1)``; ``[BH, S, D]`` Q / K / O; log2 ``qk_scale``; keys ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(Vt, index=(bh, j, 0), shape=(1, BN, D), order=(0, 2, 1), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s37_per_query_temperature(Q, K, V, Tau, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """A temperature per query token (``Tau [BH, Sq]``, read once as a row vector before the key loop): ``s = q.k
    qk_scale / tau``; ``[BH, S, D]``, causal; log2 ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    inv_tau = 1.0 / ct.load(Tau, index=(bh, qt), shape=(1, BM), padding_mode=ZERO).reshape((BM, 1))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale * inv_tau
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def bad_keys_last_to_first(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The key tiles walked last-first (``range(n - 1, -1, -1)``: a port that wants the diagonal tile first under
    causal); ``[BH, S, D]``, causal; -1e30 state; log2 ``qk_scale``.  cuTile's ``range`` takes positive steps only
    (:data:`REJECTED_BY_CUTILE`)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    n = ct.cdiv(min((qt + 1) * BM, seq), BN)
    for j in range(n - 1, -1, -1):
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- outputs


@ct.kernel
def s37_returns_max_and_lse(Q, K, V, O, M, LSE, sm_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Returns the row max and the LSE beside O (natural units: ``M = max_k s``, ``LSE = M + log sum exp(s - M)``,
    ``s = q.k sm_scale``), 1-D row state, natural ``exp``; ``[BH, S, D]``, ``M / LSE [BH, Sq]`` f32; cross
    attention, keys ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM,), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM,), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1))
        p = ct.exp(s - m_new[:, None])
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha[:, None])
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i[:, None]).astype(O.dtype).reshape((1, BM, D)))
    ct.store(M, index=(bh, qt), tile=m_i.reshape((1, BM)))
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log(l_i)).reshape((1, BM)))


@ct.kernel
def s37_bf16_out_f32_lse_bshd(Q, K, V, O, LSE, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                              D: ConstInt):
    """Training forward at head dim 192 in a 256-wide tile: bf16 ``Q / K / V [B, S, H, D]`` read sequence-major,
    bf16 O ``[B, S, H, D]`` and the fp32 natural LSE ``[B, H, S]`` (``(m + log2 l) ln 2``); causal; log2
    ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // H
    h = bh % H
    seq = K.shape[1]
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        k = ct.load(K, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))
    lse = (m_i + ct.log2(l_i)) * LN2
    ct.store(LSE, index=(b, h, qt), tile=lse.reshape((1, 1, BM)))


@ct.kernel
def s37_qk192_v128_causal(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, DQK: ConstInt, DV: ConstInt):
    """DeepSeek-style prefill with a wider QK head than V: ``Q / K [BH, S, 192]`` (a 256-wide tile), ``V / O
    [BH, S, 128]``; causal; log2 ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DQK), padding_mode=ZERO).reshape((BM, DQK))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, DV), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DQK), padding_mode=ZERO).reshape((BN, DQK))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DV), padding_mode=ZERO).reshape((BN, DV))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, DV)))


# ----------------------------------------------------------------------------------------------- two dots, not attention


@ct.kernel
def s37_mlp_gelu_chained(X, W1, W2, Y, BM: ConstInt, BH: ConstInt, D: ConstInt, DO: ConstInt):
    """A transformer MLP in one kernel: ``Y = gelu_tanh(X W1) W2``, the hidden dimension walked in ``BH``-wide
    chunks (``X [M, D]`` tile loaded once, ``W1 [D, Hd]``, ``W2 [Hd, DO]``), each chunk's activation cast to the
    input type and fed to the second dot; the hidden size ragged (its last chunk zero padded)."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, DO), dtype=ct.float32)
    for h in range(ct.cdiv(W1.shape[1], BH)):
        w1 = ct.load(W1, index=(0, h), shape=(D, BH), padding_mode=ZERO)
        t = ct.mma(x, w1, ct.zeros((BM, BH), dtype=ct.float32))
        t = 0.5 * t * (1.0 + ct.tanh(0.7978845608028654 * (t + 0.044715 * t * t * t)))
        w2 = ct.load(W2, index=(h, 0), shape=(BH, DO), padding_mode=ZERO)
        acc = ct.mma(t.astype(X.dtype), w2, acc)
    ct.store(Y, index=(bm, 0), tile=acc.astype(Y.dtype))


@ct.kernel
def s37_gated_mlp_chained(X, Wg, Wu, Wd, Y, BM: ConstInt, BH: ConstInt, D: ConstInt, DO: ConstInt):
    """A Llama MLP in one kernel: ``Y = (silu(X Wg) * (X Wu)) Wd`` over hidden chunks: two dots sharing the X tile,
    the gated product, then the down projection's dot into the accumulator."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, DO), dtype=ct.float32)
    for h in range(ct.cdiv(Wg.shape[1], BH)):
        g = ct.mma(x, ct.load(Wg, index=(0, h), shape=(D, BH), padding_mode=ZERO),
                   ct.zeros((BM, BH), dtype=ct.float32))
        u = ct.mma(x, ct.load(Wu, index=(0, h), shape=(D, BH), padding_mode=ZERO),
                   ct.zeros((BM, BH), dtype=ct.float32))
        a = g / (1.0 + ct.exp(-g)) * u
        acc = ct.mma(a.astype(X.dtype), ct.load(Wd, index=(h, 0), shape=(BH, DO), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, 0), tile=acc.astype(Y.dtype))


@ct.kernel
def s37_gemm_then_second_gemm(X, W1, W2, Y, BM: ConstInt, BK: ConstInt, N1: ConstInt, N2: ConstInt):
    """``Y = relu(X W1) W2``: a K loop over ``X [M, K]`` (K = 200, ragged) into ``[BM, N1]``, then a second dot of
    another K (``N1``) with ``W2 [N1, N2]`` after the loop; grid over M."""
    bm = ct.bid(0)
    acc = ct.zeros((BM, N1), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], BK)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(BM, BK), padding_mode=ZERO),
                     ct.load(W1, index=(k, 0), shape=(BK, N1), padding_mode=ZERO), acc)
    hid = ct.maximum(acc, 0.0).astype(X.dtype)
    y = ct.mma(hid, ct.load(W2, index=(0, 0), shape=(N1, N2), padding_mode=ZERO),
               ct.zeros((BM, N2), dtype=ct.float32))
    ct.store(Y, index=(bm, 0), tile=y.astype(Y.dtype))


@ct.kernel
def s37_low_rank_chain(X, A, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt, R: ConstInt):
    """A low-rank product ``Y = (X A) B`` (rank R = 64): ``X A`` accumulated over K tiles, cast, then one dot with
    ``B [R, N]``'s column tile; grid (M tiles, N tiles)."""
    bm, bn = ct.bid(0), ct.bid(1)
    xa = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        xa = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                    ct.load(A, index=(k, 0), shape=(tk, R), padding_mode=ZERO), xa)
    y = ct.mma(xa.astype(X.dtype), ct.load(B, index=(0, bn), shape=(R, tn), padding_mode=ZERO),
               ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def s37_batched_two_dot_shared_first_weight(X, W1, W2, Y, BM: ConstInt, BH: ConstInt, D: ConstInt,
                                            DO: ConstInt):
    """A batched two-dot with broadcasting: ``Y[b] = relu(X[b] W1) W2[b]``, ``W1 [D, Hd]`` shared by the batch (no
    batch axis), ``W2 [B, Hd, DO]`` per batch; chained over hidden chunks; grid (M tiles, batch)."""
    bm, b = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(b, bm, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    acc = ct.zeros((BM, DO), dtype=ct.float32)
    for h in range(ct.cdiv(W1.shape[1], BH)):
        t = ct.mma(x, ct.load(W1, index=(0, h), shape=(D, BH), padding_mode=ZERO),
                   ct.zeros((BM, BH), dtype=ct.float32))
        w2 = ct.load(W2, index=(b, h, 0), shape=(1, BH, DO), padding_mode=ZERO).reshape((BH, DO))
        acc = ct.mma(ct.maximum(t, 0.0).astype(X.dtype), w2, acc)
    ct.store(Y, index=(b, bm, 0), tile=acc.astype(Y.dtype).reshape((1, BM, DO)))


@ct.kernel
def s37_gemm_row_sum_over_n_tiles(X, W, RowSum, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The row sums of a GEMM result without storing it: ``RowSum[m] = sum_n (X W)[m, n]``, the N tiles walked in
    the kernel (each a K loop), their row sums accumulated; f32 out ``[M]``."""
    bm = ct.bid(0)
    total = ct.zeros((tm,), dtype=ct.float32)
    for n in range(ct.cdiv(W.shape[1], tn)):
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.cdiv(X.shape[1], tk)):
            acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                         ct.load(W, index=(k, n), shape=(tk, tn), padding_mode=ZERO), acc)
        total = total + ct.sum(acc, axis=1)
    ct.store(RowSum, index=(bm,), tile=total)


@ct.kernel
def s37_gemm_softmax_over_n(X, W, P, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A classifier head: ``P = softmax(X W)`` over N (N <= tn: the whole row in one tile; columns past N masked),
    the K loop first; f16 probabilities out."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, 0), shape=(tk, tn), padding_mode=ZERO), acc)
    cols = ct.arange(tn, dtype=ct.int32)[None, :]
    z = ct.where(cols < W.shape[1], acc, -math.inf)
    e = ct.exp(z - ct.max(z, axis=1, keepdims=True))
    ct.store(P, index=(bm, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(P.dtype))


@ct.kernel
def s37_lm_head_logsumexp_over_vocab(X, W, LSE, BM: ConstInt, BV: ConstInt, D: ConstInt):
    """The LSE of an LM head without the logits: ``LSE[m] = log sum_v exp((X W)[m, v])``, the vocabulary walked in
    ``BV`` tiles (``X [M, D]`` loaded once, ``W [D, Vocab]``, Vocab ragged), online max / sum; f32 out ``[M]``."""
    bm = ct.bid(0)
    vocab = W.shape[1]
    x = ct.load(X, index=(bm, 0), shape=(BM, D), padding_mode=ZERO)
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    for v in range(ct.cdiv(vocab, BV)):
        z = ct.mma(x, ct.load(W, index=(0, v), shape=(D, BV), padding_mode=ZERO),
                   ct.zeros((BM, BV), dtype=ct.float32))
        z = ct.where((v * BV + ct.arange(BV, dtype=ct.int32))[None, :] < vocab, z, -math.inf)
        m_new = ct.maximum(m_i, ct.max(z, axis=1, keepdims=True))
        l_i = l_i * ct.exp(m_i - m_new) + ct.sum(ct.exp(z - m_new), axis=1, keepdims=True)
        m_i = m_new
    ct.store(LSE, index=(bm,), tile=(m_i + ct.log(l_i)).reshape((BM,)))


@ct.kernel
def s37_decode_linear_pre_and_post_activation(X, W, H, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A decode step's linear that keeps its pre-activation for the backward: ``H = x W`` and ``Y = silu(H)``, both
    stored at ``(0, bn)`` (a 16-row tile, the grid over N alone); f16, N = 200, K = 256."""
    bn = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(0, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(H, index=(0, bn), tile=acc.astype(H.dtype))
    ct.store(Y, index=(0, bn), tile=(acc / (1.0 + ct.exp(-acc))).astype(Y.dtype))


@ct.kernel
def s37_linear_relu_linear_weights_nk(X, W1, W2, Y, BM: ConstInt, BK: ConstInt, N1: ConstInt, N2: ConstInt):
    """Two ``nn.Linear`` layers in one kernel on a 1-D grid: ``Y = relu(X W1^T) W2^T`` with both weights stored
    ``[out, in]`` and read through ``order=(1, 0)``; the first over a K loop, the second after it (its K = N1)."""
    bm = ct.bid(0)
    acc = ct.zeros((BM, N1), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], BK)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(BM, BK), padding_mode=ZERO),
                     ct.load(W1, index=(k, 0), shape=(BK, N1), order=(1, 0), padding_mode=ZERO), acc)
    hid = ct.maximum(acc, 0.0).astype(X.dtype)
    w2 = ct.load(W2, index=(0, 0), shape=(N1, N2), order=(1, 0), padding_mode=ZERO)
    y = ct.mma(hid, w2, ct.zeros((BM, N2), dtype=ct.float32))
    ct.store(Y, index=(bm, 0), tile=y.astype(Y.dtype))


@ct.kernel
def s37_decode_two_layer_grid_over_n(X, W1, W2, Y, tm: ConstInt, tk: ConstInt, R: ConstInt, tn: ConstInt):
    """A decode step through two layers: ``Y = relu(x W1) W2`` for 5 tokens in a 16-row tile, the grid over the
    output's N tiles alone (``bn = ct.bid(0)``), the hidden ``x W1`` (R = 64) recomputed by each program."""
    bn = ct.bid(0)
    acc = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(0, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W1, index=(k, 0), shape=(tk, R), padding_mode=ZERO), acc)
    y = ct.mma(ct.maximum(acc, 0.0).astype(X.dtype), ct.load(W2, index=(0, bn), shape=(R, tn), padding_mode=ZERO),
               ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(0, bn), tile=y.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- the table

FOLDS_LOG2 = {s37_fmha_sample, s37_causal_two_loops, s37_causal_reversed_tiles, s37_softcap_log2_causal,
              s37_k_permuted_load_hints,
              s37_returns_max_and_lse}
"""The kernels whose scale argument is the natural ``1 / sqrt(d)`` (folded into log2 units in the kernel, or used
with natural ``exp``); the other attention kernels take it in log2 units (``log2 e / sqrt(d)``)."""


def scale2(d):
    """``log2 e / sqrt(d)``."""
    return LOG2E / math.sqrt(d)


def _cd(a, b):
    return -(-a // b)


def _reg(name, kernel, spec, grid, notes, path="chained", error="", outputs=(3,)):
    _add(name, kernel, spec, grid, path, error=error, notes=notes, outputs=outputs)


def _bhsd(b, h, sq, sk, d, dt=F16, hkv=None, dv=None):
    dv = dv or d
    return [((b, h, sq, d), dt), ((b, hkv or h, sk, d), dt), ((b, hkv or h, sk, dv), dt), ((b, h, sq, dv), dt)]


def _bh3(bh, sq, sk, d, dt=F16):
    return [((bh, sq, d), dt), ((bh, sk, d), dt), ((bh, sk, d), dt)]


# the samples' form
_reg("s37_fmha_sample_causal_pos_gqa2_d64", s37_fmha_sample,
     _bhsd(1, 4, 100, 228, 64, hkv=2) + [1 / 8.0, 128, 64, 4, 64, 64, 2, True, False], (2, 4),
     "the cuTile sample: 100 new queries at input_pos 128 over 228 keys (bottom-right causal), GQA 2:1, K loaded "
     "transposed by order, head dim 64")
_reg("s37_fmha_sample_d256_bf16", s37_fmha_sample,
     _bhsd(2, 2, 192, 192, 256, BF16) + [1 / 16.0, 0, 256, 2, 64, 64, 1, False, True], (3, 4),
     "the cuTile sample, non-causal, EVEN_K, head dim 256, bf16")
_reg("s37_fmha_sample_causal_d128_bf16_tile128", s37_fmha_sample,
     _bhsd(1, 2, 256, 256, 128, BF16) + [1 / math.sqrt(128), 0, 128, 2, 128, 64, 1, True, True], (2, 2),
     "the cuTile sample's benchmark setting: causal, EVEN_K, 128-row query tiles, head dim 128, bf16")
_reg("s37_fmha_sample_d32_ragged", s37_fmha_sample,
     _bhsd(2, 2, 150, 150, 32) + [1 / math.sqrt(32), 0, 32, 2, 64, 64, 1, False, False], (3, 4),
     "the cuTile sample at head dim 32, non-causal, keys ragged (EVEN_K false)")
_reg("s37_fmha_sample_gqa3_tile_n32", s37_fmha_sample,
     _bhsd(1, 6, 100, 100, 64, hkv=2) + [1 / 8.0, 0, 64, 6, 64, 32, 3, True, False], (2, 6),
     "the cuTile sample, GQA 3:1 (6 query heads on 2), 32-wide key tiles, causal, head dim 64")
_reg("s37_causal_two_loops_bm64_bn128", s37_causal_two_loops,
     _bhsd(2, 1, 330, 330, 64) + [1 / 8.0, 1, 64, 64, 128], (6, 2),
     "causal in two loops with 64-row query tiles and 128-wide key tiles (an odd query tile's diagonal block starts "
     "at its key tile's middle), head dim 64")
_reg("s37_causal_two_loops_d128", s37_causal_two_loops,
     _bhsd(1, 2, 300, 300, 128) + [1 / math.sqrt(128), 2, 128, 128, 64], (3, 2),
     "causal as two loops (off-diagonal unmasked, diagonal masked), 1-D state, l_i from 1, 128-row tiles, head "
     "dim 128")
_reg("s37_causal_reversed_tiles_d96", s37_causal_reversed_tiles,
     _bhsd(2, 2, 200, 200, 96) + [1 / math.sqrt(96), 128, 2, 64, 64, 4], (4, 4),
     "causal, query tiles launched last-first, K by order, head dim 96 in a 128-wide tile")
_reg("s37_k_permuted_load_hints_d128", s37_k_permuted_load_hints,
     _bhsd(2, 2, 140, 250, 128) + [1 / math.sqrt(128), 128, 2, 64, 64, True], (3, 4),
     "K turned by ct.permute, allow_tma / latency hints on every load, head dim 128, Sq != Sk")
_reg("s37_k_permuted_no_tma_on_k_d64", s37_k_permuted_load_hints,
     _bhsd(1, 1, 64, 100, 64) + [1 / 8.0, 64, 1, 64, 64, False], (1, 1),
     "the permuted-K program with K loaded allow_tma=False (TILE_D = 64): the chained tier refuses it at K's load "
     "(a located warning; the SIMT path's mma.sync runs it)", path="simt", error="is not a TMA tile load")
# layouts, lengths
_reg("s37_k_stored_transposed_d160", s37_k_stored_transposed,
     [((4, 130, 160), F16), ((4, 160, 168), F16), ((4, 168, 160), F16), ((4, 130, 160), F16), scale2(160), 64, 64,
      256], (3, 4), "K stored transposed [BH, D, Sk], head dim 160 in a 256-wide tile, Sq != Sk")
_reg("s37_cross_attn_key_lengths_d80", s37_cross_attn_key_lengths,
     _bhsd(2, 2, 70, 333, 80)[:3] + [((2,), I32)] + _bhsd(2, 2, 70, 333, 80)[3:] + [scale2(80), 2, 64, 64, 128],
     (2, 4), "cross attention Sq 70 over Sk 333 with per-batch encoder lengths, head dim 80", outputs=(4,))
_reg("s37_decode_group_in_tile_g4_d128", s37_decode_group_in_tile,
     [((2, 2, 4, 128), F16), ((2, 2, 500, 128), F16), ((2, 2, 500, 128), F16), ((2, 2, 4, 128), F16),
      scale2(128), 16, 64, 128], (2, 2), "GQA decode, the group of 4 query heads in a 16-row tile, head dim 128")
_reg("s37_decode_group_in_tile_g8_d64_bf16", s37_decode_group_in_tile,
     [((1, 4, 8, 64), BF16), ((1, 4, 321, 64), BF16), ((1, 4, 321, 64), BF16), ((1, 4, 8, 64), BF16),
      scale2(64), 16, 128, 64], (4, 1), "GQA decode, a group of 8 in a 16-row tile, 128-wide key tiles, bf16")
for _sq, _d, _sk in ((1, 256, 777), (3, 128, 600), (16, 64, 1000)):
    _reg(f"s37_decode_rows_{_sq}_d{_d}", s37_decode_rows_causal_offset,
         _bh3(4, _sq, _sk, _d) + [((4, _sq, _d), F16), scale2(_d), 16, 64, _d], (4,),
         f"decode with {_sq} query row(s) at a bottom-right causal offset over {_sk} keys, head dim {_d}")
_reg("s37_decode_rows_1_keys_30_d128", s37_decode_rows_causal_offset,
     _bh3(3, 1, 30, 128) + [((3, 1, 128), F16), scale2(128), 16, 64, 128], (3,),
     "decode with one query row over 30 keys (less than one key tile), head dim 128")
_reg("s37_gqa_group_in_grid_bshd_d64", s37_gqa_group_in_grid_bshd,
     [((2, 130, 4, 64), F16), ((2, 190, 1, 64), F16), ((2, 190, 1, 64), F16), ((2, 130, 4, 64), F16),
      scale2(64), 4, 64, 64, 64], (3, 4, 2), "MQA (4 query heads on one KV head) with the group in the grid, "
     "[B, S, H, D] arrays, Sq != Sk")
# biases
_reg("s37_alibi_symmetric_d64", s37_alibi_symmetric_slope_in_kernel,
     _bh3(4, 170, 170, 64) + [((4, 170, 64), F16), scale2(64), 2, 64, 64, 64], (3, 4),
     "bidirectional ALiBi -slope |q - k|, slopes computed in the kernel, head dim 64")
_reg("s37_t5_relative_bias_d64", s37_t5_relative_bias_per_head,
     _bhsd(2, 2, 120, 140, 64)[:3] + [((2, 120, 140), F32)] + _bhsd(2, 2, 120, 140, 64)[3:] +
     [scale2(64), 2, 64, 64, 64], (2, 4), "a T5 relative bias [H, Sq, Sk] shared by the batch, f32, Sq != Sk",
     outputs=(4,))
_reg("s37_bias_tensor_causal_bf16_d128", s37_bias_tensor_causal_bf16,
     _bhsd(1, 2, 160, 160, 128, BF16)[:3] + [((1, 2, 160, 160), BF16)] + _bhsd(1, 2, 160, 160, 128, BF16)[3:] +
     [scale2(128), 2, 64, 64, 128], (3, 2), "a bf16 bias tensor [B, H, Sq, Sk] loaded per step, causal, head dim "
     "128, bf16", outputs=(4,))
_reg("s37_softcap_log2_causal_d128", s37_softcap_log2_causal,
     _bhsd(1, 2, 200, 200, 128) + [1 / math.sqrt(128), 50.0 / 8.0, 2, 128, 64, 64], (4, 2),
     "Gemma-2's softcap in log2 units (cap 6.25), causal, head dim 128")
# masks
_reg("s37_local_window_both_sides_d64", s37_local_window_both_sides,
     _bh3(2, 300, 300, 64) + [((2, 300, 64), F16), scale2(64), 50, 64, 64, 64], (5, 2),
     "a two-sided local window |i - k| <= 50, both loop bounds from the window")
_reg("s37_sink_tokens_window_d64", s37_sink_tokens_sliding_window,
     _bh3(2, 260, 260, 64) + [((2, 260, 64), F16), scale2(64), 4, 64, 64, 64, 64], (5, 2),
     "StreamingLLM: 4 sink keys + a window of 64, causal")
_reg("s37_dropout_keep_mask_d64", s37_dropout_keep_mask,
     _bh3(2, 150, 170, 64) + [((2, 150, 176), I8), ((2, 150, 64), F16), scale2(64), 1 / 0.9, 64, 64, 64], (3, 2),
     "dropout from a loaded int8 keep mask (rate 0.1; its rows padded to 176 keys: 16-byte rows)", outputs=(4,))
_reg("s37_key_padding_mask_vector_d64", s37_key_padding_mask_vector,
     _bhsd(2, 2, 100, 180, 64)[:3] + [((2, 180), I32)] + _bhsd(2, 2, 100, 180, 64)[3:] + [scale2(64), 2, 64, 64, 64],
     (2, 4), "a [B, Sk] int32 key padding mask read as a vector per key step, Sq != Sk", outputs=(4,))
_reg("s37_key_padding_mask_vector_d128_bm128", s37_key_padding_mask_vector,
     _bhsd(2, 1, 200, 180, 128)[:3] + [((2, 180), I32)] + _bhsd(2, 1, 200, 180, 128)[3:] + [scale2(128), 1, 128, 64,
                                                                                          128],
     (2, 2), "the key padding vector with 128-row query tiles (two consumer warp groups), head dim 128", outputs=(4,))
_reg("s37_matmul_operator_scores_d64", s37_matmul_operator_scores,
     _bh3(2, 130, 150, 64) + [((2, 130, 64), F16), scale2(64), 64, 64, 64], (3, 2),
     "scores by the @ operator (an f16 product) widened to f32, head dim 64")
_reg("s37_safe_softmax_guards_d64", s37_safe_softmax_guards,
     _bhsd(3, 1, 100, 140, 64)[:3] + [((3,), I32)] + _bhsd(3, 1, 100, 140, 64)[3:] + [scale2(64), 1, 64, 64, 64],
     (2, 3), "FA2's safe softmax (alpha 1 and p 0 while the max is -inf, O 0 where l is 0) with key lengths 140, 70 "
     "and 0", outputs=(4,))
_reg("s37_v_stored_transposed_d64", s37_v_stored_transposed,
     [((2, 130, 64), F16), ((2, 200, 64), F16), ((2, 64, 200), F16), ((2, 130, 64), F16), scale2(64), 64, 64, 64],
     (3, 2), "V stored transposed [BH, D, Sk] read through order, head dim 64, Sq != Sk")
_reg("s37_per_query_temperature_d64", s37_per_query_temperature,
     _bh3(2, 150, 150, 64) + [((2, 152), F32), ((2, 150, 64), F16), scale2(64), 64, 64, 64], (3, 2),
     "a temperature per query token read once as a row vector, causal (its rows padded to 152: 16-byte rows)",
     outputs=(4,))
# outputs
_reg("s37_returns_max_and_lse_d64", s37_returns_max_and_lse,
     _bh3(3, 140, 210, 64) + [((3, 140, 64), F16), ((3, 140), F32), ((3, 140), F32), 1 / 8.0, 64, 64, 64], (3, 3),
     "the row max and the natural LSE returned beside O, natural exp, 1-D state", outputs=(3, 4, 5))
_reg("s37_bf16_out_f32_lse_bshd_d192", s37_bf16_out_f32_lse_bshd,
     [((1, 150, 2, 192), BF16)] * 4 + [((1, 2, 150), F32), scale2(192), 2, 64, 64, 256], (3, 2),
     "bf16 O and an fp32 natural LSE, [B, S, H, D], causal, head dim 192", outputs=(3, 4))
_reg("s37_qk192_v128_causal", s37_qk192_v128_causal,
     [((2, 150, 192), F16), ((2, 150, 192), F16), ((2, 150, 128), F16), ((2, 150, 128), F16), scale2(192), 64, 64,
      256, 128], (3, 2), "QK head dim 192, V / O head dim 128, causal")
# two dots, not attention
_reg("s37_mlp_gelu_chained_d128", s37_mlp_gelu_chained,
     [((200, 128), F16), ((128, 320), F16), ((320, 128), F16), ((200, 128), F16), 64, 64, 128, 128], (4,),
     "gelu(X W1) W2 chained over a ragged hidden size of 320")
_reg("s37_mlp_gelu_chained_bf16_d64", s37_mlp_gelu_chained,
     [((130, 64), BF16), ((64, 256), BF16), ((256, 64), BF16), ((130, 64), BF16), 64, 64, 64, 64], (3,),
     "gelu(X W1) W2 chained, bf16, D = DO = 64")
_reg("s37_mlp_gelu_chained_d256_do128", s37_mlp_gelu_chained,
     [((150, 256), F16), ((256, 192), F16), ((192, 128), F16), ((150, 128), F16), 64, 64, 256, 128], (3,),
     "gelu(X W1) W2 chained with a 256-wide input (X tile 64 x 256), D != DO")
_reg("s37_gated_mlp_chained_bm128", s37_gated_mlp_chained,
     [((300, 64), F16), ((64, 256), F16), ((64, 256), F16), ((256, 64), F16), ((300, 64), F16), 128, 64, 64, 64],
     (3,), "the gated MLP with 128-row tiles", outputs=(4,))
_reg("s37_gated_mlp_chained_d64", s37_gated_mlp_chained,
     [((150, 64), F16), ((64, 192), F16), ((64, 192), F16), ((192, 64), F16), ((150, 64), F16), 64, 64, 64, 64],
     (3,), "(silu(X Wg) * X Wu) Wd chained over hidden chunks", outputs=(4,))
_reg("s37_gated_mlp_chained_bf16_d128", s37_gated_mlp_chained,
     [((100, 128), BF16), ((128, 256), BF16), ((128, 256), BF16), ((256, 128), BF16), ((100, 128), BF16), 64, 64,
      128, 128], (2,), "the gated MLP at D = DO = 128, bf16", outputs=(4,))
_reg("s37_gemm_then_second_gemm", s37_gemm_then_second_gemm,
     [((130, 200), F16), ((200, 64), F16), ((64, 128), F16), ((130, 128), F16), 64, 64, 64, 128], (3,),
     "relu(X W1) over a K loop, then a second dot of K = 64 with W2 after the loop, a 1-D grid (session 45: the GEMM "
     "tier; refused before, 'the second dot's B is read at a column tile index other than program id 1')", path="gemm")
_reg("s37_linear_relu_linear_weights_nk", s37_linear_relu_linear_weights_nk,
     [((130, 200), F16), ((64, 200), F16), ((128, 64), F16), ((130, 128), F16), 64, 64, 64, 128], (3,),
     "two nn.Linear layers ([out, in] weights read through order) chained on a 1-D grid", path="gemm")
_reg("s37_decode_two_layer_grid_over_n", s37_decode_two_layer_grid_over_n,
     [((5, 256), F16), ((256, 64), F16), ((64, 200), F16), ((5, 200), F16), 16, 64, 64, 64], (4,),
     "a 5-token decode through two layers, the grid over N alone: refused by the GEMM tier at W2's load (its column "
     "index is program id 0; the 16-row decode retile takes no second dot), the SIMT path's mma.sync",
     path="simt", error="the second dot's B is read at a column tile index other than program id 1")
_reg("s37_low_rank_chain_r64", s37_low_rank_chain,
     [((150, 256), F16), ((256, 64), F16), ((64, 200), F16), ((150, 200), F16), 64, 64, 64, 64], (3, 4),
     "(X A) B with rank 64, the second dot after the K loop (the GEMM tier's epilogue dot)", path="gemm")
_reg("s37_batched_two_dot_shared_w1", s37_batched_two_dot_shared_first_weight,
     [((3, 100, 64), F16), ((64, 192), F16), ((3, 192, 64), F16), ((3, 100, 64), F16), 64, 64, 64, 64], (2, 3),
     "batched relu(X[b] W1) W2[b], W1 shared by the batch")
_reg("s37_decode_linear_pre_and_post_activation", s37_decode_linear_pre_and_post_activation,
     [((5, 256), F16), ((256, 200), F16), ((5, 200), F16), ((5, 200), F16), 16, 64, 64], (4,),
     "a 5-token decode linear storing its pre-activation and silu of it at the same literal tile index (session 45: "
     "the GEMM tier; refused before, 'a second output tile [16, 64] at other indices than C's')", path="gemm",
     outputs=(2, 3))
_reg("s37_gemm_row_sum_over_n_tiles", s37_gemm_row_sum_over_n_tiles,
     [((150, 128), F16), ((128, 200), F16), ((150,), F32), 64, 64, 64], (3,),
     "the row sums of X W over N tiles walked in the kernel (nested N / K loops: refused by the tier at its N loop, "
     "the SIMT path's mma.sync)", outputs=(2,), path="simt", error="carries on the result of a K loop nested in it")
_reg("s37_gemm_softmax_over_n", s37_gemm_softmax_over_n,
     [((150, 192), F16), ((192, 100), F16), ((150, 100), F16), 64, 128, 64], (3,),
     "softmax(X W) over N = 100 in one 128-wide tile, after a K loop (the GEMM tier's epilogue)", outputs=(2,),
     path="gemm")
_reg("s37_lm_head_logsumexp_d128", s37_lm_head_logsumexp_over_vocab,
     [((130, 128), F16), ((128, 1000), F16), ((130,), F32), 64, 128, 128], (3,),
     "the LSE of X W over a ragged vocabulary of 1000 in 128-wide tiles", outputs=(2,))


# ----------------------------------------------------------------------------------------------- invalid inputs
# Mistakes users make writing these programs (each kernel otherwise the attention / two-dot form above).


def _scores(q, k, BM, BN):
    return ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))


@ct.kernel
def bad_k_not_transposed(Q, K, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """K's ``[BN, D]`` tile given to the dot as it was loaded (the transpose forgotten)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = ct.mma(q, k, ct.zeros((BM, BN), dtype=ct.float32))
    ct.store(O, index=(bh, qt, 0), tile=s.reshape((1, BM, BN)))


@ct.kernel
def bad_head_dims_mismatch(Q, K, O, BM: ConstInt, BN: ConstInt, DQ: ConstInt, DK: ConstInt):
    """Q's tile loaded 64 wide, K's 128 wide (two head-dim constants, one of them wrong)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DQ), padding_mode=ZERO).reshape((BM, DQ))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, DK), padding_mode=ZERO).reshape((BN, DK))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
    ct.store(O, index=(bh, qt, 0), tile=s.reshape((1, BM, BN)))


@ct.kernel
def bad_q_rank_3_operand(Q, K, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Q's ``[1, BM, D]`` load given to the dot without its reshape (K reshaped)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO)
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
    ct.store(O, index=(bh, qt, 0), tile=s.reshape((1, BM, BN)))


@ct.kernel
def bad_p_not_cast(Q, K, V, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """P (f32) fed to the second dot with V (f16): the ``p.astype(V.dtype)`` forgotten."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    v = ct.load(V, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    p = ct.exp2(_scores(q, k, BM, BN))
    acc = ct.mma(p, v, ct.zeros((BM, D), dtype=ct.float32))
    ct.store(O, index=(bh, qt, 0), tile=acc.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def bad_head_dim_80_as_tile(Q, O, BM: ConstInt, D: ConstInt):
    """The head dim 80 used as the tile's width (``TILE_D = head_dim``): not a power of two."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO)
    ct.store(O, index=(bh, qt, 0), tile=q)


@ct.kernel
def bad_query_tile_of_48(Q, O, BM: ConstInt, D: ConstInt):
    """48 query rows per tile (a sequence of 48 * k rows): tile sizes are powers of two."""
    qt, bh = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    ct.store(O, index=(bh, qt, 0), tile=acc.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def bad_pv_acc_of_v_dim(Q, K, V, O, BM: ConstInt, BN: ConstInt, D: ConstInt, DV: ConstInt):
    """``d_v != d_qk`` with the accumulator made ``[BM, D]`` (the QK head dim) instead of ``[BM, DV]``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    v = ct.load(V, index=(bh, 0, 0), shape=(1, BN, DV), padding_mode=ZERO).reshape((BN, DV))
    p = ct.exp2(_scores(q, k, BM, BN))
    acc = ct.mma(p.astype(V.dtype), v, ct.zeros((BM, D), dtype=ct.float32))
    ct.store(O, index=(bh, qt, 0), tile=acc.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def bad_permute_axes_count(K, O, BN: ConstInt, D: ConstInt):
    """``ct.permute`` of a 2-D K tile given three axes (the 3-D load's order kept)."""
    bh = ct.bid(0)
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    ct.store(O, index=(bh, 0, 0), tile=ct.permute(k, (0, 2, 1)).reshape((1, D, BN)))


@ct.kernel
def bad_order_of_3_for_4d(K, O, BN: ConstInt, D: ConstInt):
    """The samples' transposed K load with an ``order`` of three axes for a 4-D array."""
    b, h = ct.bid(0), ct.bid(1)
    k = ct.load(K, index=(b, h, 0, 0), shape=(1, 1, D, BN), order=(0, 1, 3))
    ct.store(O, index=(b, h, 0, 0), tile=k)


@ct.kernel
def bad_latency_of_0(K, O, BN: ConstInt, D: ConstInt):
    """A ``latency=0`` hint on the K load (the hint counts from 1)."""
    bh = ct.bid(0)
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), latency=0)
    ct.store(O, index=(bh, 0, 0), tile=k)


@ct.kernel
def bad_rounding_mode_string(Q, O, BM: ConstInt, D: ConstInt):
    """``ct.truediv(acc, l, rounding_mode="approx")``: the mode as a string, not ``RoundingMode.APPROX``."""
    qt, bh = ct.bid(0), ct.bid(1)
    acc = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).astype(ct.float32)
    acc = ct.truediv(acc, 2.0, rounding_mode="approx")
    ct.store(O, index=(bh, qt, 0), tile=acc)


@ct.kernel
def bad_max_axis_2_of_2d(Q, K, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The row max taken over ``axis=2`` of the 2-D scores (the 4-D array's axis)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    m = ct.max(_scores(q, k, BM, BN), axis=2)
    ct.store(O, index=(bh, qt), tile=m.reshape((1, BM)))


@ct.kernel
def bad_row_sum_changes_state_shape(Q, K, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """``l_i [BM, 1]`` updated with ``ct.sum(p, axis=1)`` (no keepdims): ``[BM, 1] + [BM]`` broadcasts to
    ``[BM, BM]``, the loop-carried state changes shape."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    for j in range(ct.cdiv(K.shape[1], BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        l_i = l_i + ct.sum(ct.exp2(_scores(q, k, BM, BN)), axis=1)
    ct.store(O, index=(bh, qt, 0), tile=l_i.reshape((1, BM, 1)))


@ct.kernel
def bad_max_without_row_axis(Q, K, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """``s - m`` with the row max ``m [BM]`` not expanded (``m[:, None]`` forgotten) and BM != BN."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = _scores(q, k, BM, BN)
    p = ct.exp2(s - ct.max(s, axis=1))
    ct.store(O, index=(bh, qt, 0), tile=p.reshape((1, BM, BN)))


@ct.kernel
def bad_f32_stored_into_f16(Q, K, V, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The f32 accumulator stored into the f16 output without ``astype``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    v = ct.load(V, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    acc = ct.mma(ct.exp2(_scores(q, k, BM, BN)).astype(V.dtype), v, ct.zeros((BM, D), dtype=ct.float32))
    ct.store(O, index=(bh, qt, 0), tile=acc.reshape((1, BM, D)))


@ct.kernel
def bad_load_index_of_3_for_4d(Q, O, BM: ConstInt, D: ConstInt):
    """A ``[B, H, S, D]`` Q loaded with the ``[BH, S, D]`` program's three indices."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO)
    ct.store(O, index=(bh, 0, qt, 0), tile=q)


@ct.kernel
def bad_head_dim_runtime_int(Q, O, BM: ConstInt, D: int):
    """The head dim passed as a plain ``int`` (not ``ct.Constant``) and used as the tile's width."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO)
    ct.store(O, index=(bh, qt, 0), tile=q)


@ct.kernel
def bad_shape_axis_of_3d(Q, K, O, BM: ConstInt, D: ConstInt):
    """``K.shape[2]`` taken as the sequence length of a ``[BH, S, D]`` K (the 4-D layout's axis; axis 2 is D) --
    valid, but then ``K.shape[3]`` for the head dim: out of range."""
    qt, bh = ct.bid(0), ct.bid(1)
    d = K.shape[3]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO) * d
    ct.store(O, index=(bh, qt, 0), tile=q)


@ct.kernel
def bad_flush_to_zero_runtime(Q, O, ftz: bool, BM: ConstInt, D: ConstInt):
    """``ct.exp2(x, flush_to_zero=ftz)`` with ``ftz`` a run-time argument (it must be a constant)."""
    qt, bh = ct.bid(0), ct.bid(1)
    x = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).astype(ct.float32)
    ct.store(O, index=(bh, qt, 0), tile=ct.exp2(x, flush_to_zero=ftz))


@ct.kernel
def bad_padding_mode_string(K, O, BN: ConstInt, D: ConstInt):
    """``padding_mode="zero"`` (torch-like string) on the ragged K load."""
    bh = ct.bid(0)
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode="zero")
    ct.store(O, index=(bh, 0, 0), tile=k)


@ct.kernel
def bad_acc_int32_for_f16_dot(Q, K, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The scores' accumulator made int32 (copied from an int8 GEMM) for f16 operands."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.int32))
    ct.store(O, index=(bh, qt, 0), tile=s.reshape((1, BM, BN)))


@ct.kernel
def bad_grid_axis_3(Q, O, BM: ConstInt, D: ConstInt):
    """``ct.bid(3)`` for a fourth grid axis (batch, heads, query tiles, splits): the grid has three."""
    q = ct.load(Q, index=(ct.bid(3), ct.bid(0), 0), shape=(1, BM, D), padding_mode=ZERO)
    ct.store(O, index=(ct.bid(3), ct.bid(0), 0), tile=q)


@ct.kernel
def bad_mlp_hidden_tile_mismatch(X, W1, W2, Y, BM: ConstInt, BH: ConstInt, D: ConstInt, DO: ConstInt):
    """The MLP's second weight loaded ``[D, DO]`` per hidden chunk instead of ``[BH, DO]`` (its K not the chunk's)."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, DO), dtype=ct.float32)
    for h in range(ct.cdiv(W1.shape[1], BH)):
        t = ct.mma(x, ct.load(W1, index=(0, h), shape=(D, BH), padding_mode=ZERO), ct.zeros((BM, BH), dtype=ct.float32))
        acc = ct.mma(t.astype(X.dtype), ct.load(W2, index=(h, 0), shape=(D, DO), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, 0), tile=acc.astype(Y.dtype))


@ct.kernel
def bad_where_mask_shape(Q, K, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The causal mask built ``[BN, BM]`` (query and key positions swapped in the broadcast) against ``[BM, BN]``
    scores, BM != BN."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    qpos = ct.arange(BM, dtype=ct.int32)[None, :]
    kpos = ct.arange(BN, dtype=ct.int32)[:, None]
    s = ct.where(kpos <= qpos, _scores(q, k, BM, BN), -math.inf)
    ct.store(O, index=(bh, qt, 0), tile=s.reshape((1, BM, BN)))


@ct.kernel
def bad_fp8_p_with_f16_v(Q, K, V, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """P cast to fp8 e4m3 (FA3's form) while V stays f16: the dot's operands differ."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    v = ct.load(V, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    p = ct.exp2(_scores(q, k, BM, BN)).astype(ct.float8_e4m3fn)
    acc = ct.mma(p, v, ct.zeros((BM, D), dtype=ct.float32))
    ct.store(O, index=(bh, qt, 0), tile=acc.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def bad_scores_tile_256_by_512(Q, K, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """A whole short sequence's scores in one tile: 256 queries x 512 keys of f32 (``BN = S``)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
    ct.store(O, index=(bh, qt, 0), tile=(s - ct.max(s, axis=1, keepdims=True)).reshape((1, BM, BN)))



_Q3 = ((2, 128, 64), F16)
REJECTED_BY_CUTILE = {
    # name: (kernel, spec, words of cuTile's message, text of the line it names)
    "k_not_transposed": (bad_k_not_transposed, [_Q3, _Q3, ((2, 128, 128), F32), 64, 128, 64],
                         "Incompatible shapes for matrix mul on tiles: (64, 64), (128, 64)", "s = ct.mma(q, k, "),
    "head_dims_mismatch": (bad_head_dims_mismatch, [_Q3, ((2, 128, 128), F16), ((2, 128, 64), F32), 64, 64, 64, 128],
                           "Incompatible shapes for matrix mul on tiles: (64, 64), (128, 64)",
                           "s = ct.mma(q, ct.transpose(k)"),
    "q_rank_3_operand": (bad_q_rank_3_operand, [_Q3, _Q3, ((2, 128, 64), F32), 64, 64, 64],
                         "Expect acc shape to be (1, 64, 64), got (64, 64)", "s = ct.mma(q, ct.transpose(k)"),
    "p_not_cast": (bad_p_not_cast, [_Q3] * 4 + [64, 64, 64],
                   "x and y must have the same dtype unless they are int8/uint8, got float32 float16",
                   "acc = ct.mma(p, v, "),
    "head_dim_80_as_tile": (bad_head_dim_80_as_tile, [((2, 128, 80), F16), ((2, 128, 80), F16), 64, 80],
                            "Dimension #2 of shape (1, 64, 80) is not a power of two", "q = ct.load(Q"),
    "query_tile_of_48": (bad_query_tile_of_48, [_Q3, _Q3, 48, 64],
                         "Dimension #0 of shape (48, 64) is not a power of two", "acc = ct.zeros((BM, D)"),
    "pv_acc_of_the_qk_head_dim": (bad_pv_acc_of_v_dim, [((2, 128, 128), F16), ((2, 128, 128), F16), _Q3, _Q3, 64,
                                                        64, 128, 64],
                                  "Expect acc shape to be (64, 64), got (64, 128)", "acc = ct.mma(p.astype(V.dtype)"),
    "permute_of_three_axes": (bad_permute_axes_count, [_Q3, ((2, 64, 64), F16), 64, 64],
                              "Num axes must match input's rank: 3 vs 2", "ct.permute(k, (0, 2, 1))"),
    "order_of_3_for_a_4d_load": (bad_order_of_3_for_4d, [((1, 2, 128, 64), F16), ((1, 2, 64, 64), F16), 64, 64],
                                 'Invalid argument "order" of load(): Expected tuple of length 4, got 3',
                                 "order=(0, 1, 3)"),
    "latency_of_0": (bad_latency_of_0, [_Q3, _Q3, 64, 64], "Latency must be between 1 and 10, got 0", "latency=0"),
    "rounding_mode_string": (bad_rounding_mode_string, [_Q3, ((2, 128, 64), F32), 64, 64],
                             'Invalid argument "rounding_mode" of truediv(): Expected RoundingMode',
                             'rounding_mode="approx"'),
    "max_over_axis_2_of_2d_scores": (bad_max_axis_2_of_2d, [_Q3, _Q3, ((2, 128), F32), 64, 64, 64],
                                     "Axis 2 is out of range for rank 2", "axis=2"),
    "row_sum_without_keepdims_in_the_loop": (bad_row_sum_changes_state_shape, [_Q3, _Q3, ((2, 128, 1), F32), 64, 64,
                                                                              64],
                                             "Type of `l_i` depends on path taken: Tile[float32,(64,64)]",
                                             "l_i = l_i + ct.sum("),
    "row_max_not_expanded": (bad_max_without_row_axis, [_Q3, _Q3, ((2, 128, 128), F32), 64, 128, 64],
                             "Shapes are not broadcastable: (64, 128), (64,)", "p = ct.exp2(s - ct.max(s, axis=1))"),
    "f32_stored_into_f16_output": (bad_f32_stored_into_f16, [_Q3] * 4 + [64, 64, 64],
                                   "cannot implicitly cast float32 to float16",
                                   "ct.store(O, index=(bh, qt, 0), tile=acc.reshape"),
    "three_indices_for_a_4d_array": (bad_load_index_of_3_for_4d, [((1, 2, 128, 64), F16), ((1, 2, 128, 64), F16), 64,
                                                                  64],
                                     "Index size 3 does not match the array rank 4", "q = ct.load(Q"),
    "head_dim_as_a_runtime_int": (bad_head_dim_runtime_int, [_Q3, _Q3, 64, 64],
                                  'Invalid argument "shape" of load(): Expected a constant integer tuple',
                                  "q = ct.load(Q"),
    "shape_axis_out_of_range": (bad_shape_axis_of_3d, [_Q3, _Q3, _Q3, 64, 64],
                                "Index 3 is out of range for a tuple of length 3", "d = K.shape[3]"),
    "flush_to_zero_at_run_time": (bad_flush_to_zero_runtime, [_Q3, ((2, 128, 64), F32), True, 64, 64],
                                  'Invalid argument "flush_to_zero" of exp2(): Expected a boolean constant',
                                  "ct.exp2(x, flush_to_zero=ftz)"),
    "padding_mode_string": (bad_padding_mode_string, [_Q3, _Q3, 64, 64],
                            'Invalid argument "padding_mode" of load(): Expected PaddingMode', 'padding_mode="zero"'),
    "int32_accumulator_for_f16_scores": (bad_acc_int32_for_f16_dot, [_Q3, _Q3, ((2, 128, 64), I32), 64, 64, 64],
                                         "Unsupported acc dtype int32", "ct.zeros((BM, BN), dtype=ct.int32)"),
    "a_fourth_grid_axis": (bad_grid_axis_3, [_Q3, _Q3, 64, 64], "Axis must be 0, 1, or 2, but 3 was given",
                           "q = ct.load(Q, index=(ct.bid(3)"),
    "mlp_second_weight_of_the_input_width": (bad_mlp_hidden_tile_mismatch,
                                             [((128, 128), F16), ((128, 256), F16), ((256, 64), F16), ((128, 64), F16),
                                              64, 64, 128, 64],
                                             "Incompatible shapes for matrix mul on tiles: (64, 64), (128, 64)",
                                             "acc = ct.mma(t.astype(X.dtype)"),
    "causal_mask_transposed": (bad_where_mask_shape, [_Q3, _Q3, ((2, 128, 128), F32), 64, 128, 64],
                               "Shapes are not broadcastable: (128, 64), (64, 128)", "s = ct.where(kpos <= qpos"),
    "fp8_p_with_f16_v": (bad_fp8_p_with_f16_v, [_Q3] * 4 + [64, 64, 64],
                         "got float8_e4m3fn float16", "acc = ct.mma(p, v, "),
    "key_tiles_walked_last_to_first": (bad_keys_last_to_first, _bh3(2, 200, 200, 64) + [((2, 200, 64), F16),
                                                                                         scale2(64), 64, 64, 64],
                                       "Step must be positive, got -1", "for j in range(n - 1, -1, -1)"),
}
"""Programs cuTile's front end refuses, with its error at the user's line."""

INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("scores_tile_256_by_512", bad_scores_tile_256_by_512,
     [((2, 256, 64), F16), ((2, 512, 64), F16), ((2, 256, 512), F32), 256, 512, 64], (1, 2), "error",
     error="a tile of 131072 elements is too large", notes="s = ct.mma(q, ct.transpose(k)")
