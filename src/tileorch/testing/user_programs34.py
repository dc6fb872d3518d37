"""The thirty-fourth user sweep (session 42): cuTile programs as users write them, biased to what acceptance likely
runs and to the less common cuTile spellings not yet written by earlier sweeps: ``ct.mma`` with its accumulator by
keyword, ``ct.astype`` chains, ``ct.where`` with scalar operands, keyword arguments throughout, ``ct.bid`` over three
grid axes, ``ct.num_tiles`` loops, constant arguments driving tile shapes, Python loops over constant ranges
(``ct.static_iter``), nested ``ct.function`` helpers; attention with 4 query heads per K / V head in the
``[B, H, S, D]`` layout, ALiBi slopes computed from the head index, tanh soft-capping, causal attention with
``Sq != Sk`` aligned bottom-right, head dims 96 and 192, bf16; GEMMs ``A^T B`` and ``A^T B^T``, bf16 in / f32 out, f16
out with an f32 bias, f32 inputs as tf32, int8 into int32, e4m3 / e5m2 with per-tensor scales, ragged M / N / K, K =
16 / 32, decode GEMMs with M = 8..64, a column-major output, a residual from a second tensor, clamp, swish with a
learned beta, a per-row scale, a lower-triangular mask by an index compare, an e5m2 output with saturation;
memory-bound programs (argmax along columns, logsumexp, a two-pass variance, column maxima, a sum of squares of f16
in f32, broadcasts along both axes, gather / scatter through index tensors, inclusive and exclusive prefix sums).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep34_compile.py, tests/unit/test_user_sweep34_interp.py,
tests/unit/test_user_sweep34_emulated.py, tests/unit/test_user_sweep34_invalid.py (with :data:`INVALID` and
:data:`REJECTED_BY_CUTILE`) and tests/gpu/test_user_sweep34_gpu.py.  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO
F16, BF16, F32 = "float16", "bfloat16", "float32"
I8, I32 = "int8", "int32"
E4M3, E5M2 = "float8_e4m3fn", "float8_e5m2"
LOG2E = 1.4426950408889634


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


def scale2(d):
    """``log2 e / sqrt(d)``: the scores' scale in log2 units."""
    return LOG2E / math.sqrt(d)


def _bhsd(bh, sq, sk, d, dt=F16, out=F16):
    """Q, K, V and O of ``[BH, S, D]`` attention."""
    return [_a((bh, sq, d), dt), _a((bh, sk, d), dt), _a((bh, sk, d), dt), _a((bh, sq, d), out)]


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_gqa_bhsd_4_q_heads_per_kv_causal(Q, K, V, O, qk_scale: float, G: ConstInt, BM: ConstInt, BN: ConstInt,
                                          D: ConstInt):
    """Grouped-query attention: Q / O ``[B, Hq, S, D]``, K / V ``[B, Hkv, S, D]`` with G = 4 query heads per K / V
    head (``kv = h // G``); program axes (query tile, query head, batch): ``ct.bid`` over three grid axes; causal,
    its loop bounded by the diagonal tile."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    kvh = h // G
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    seq = K.shape[2]
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), acc=ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where((kpos[None, :] <= qpos[:, None]) & (kpos[None, :] < seq), s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc=acc * corr)
        m = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_alibi_symmetric_slope_from_head(Q, K, V, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                         D: ConstInt):
    """ALiBi, non-causal (an encoder): the bias ``-slope_h * |i - j|`` computed from the query and key indices, the
    head's slope ``2^(-8 (h + 1) / H)`` computed from the head index (no slope array); log2-unit scores, so the bias
    is scaled by log2 e; ``[B * H, S, D]`` arrays."""
    qt, bh = ct.bid(0), ct.bid(1)
    h = bh % H
    slope = ct.exp2(ct.astype(h + 1, ct.float32) * (-8.0 / H)) * LOG2E
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        dist = ct.abs(qpos[:, None] - kpos[None, :]).astype(ct.float32)
        s = ct.where(kpos[None, :] < seq, s - slope * dist, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_softcap_tanh_bf16_causal(Q, K, V, O, sm_scale: float, cap: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Soft-capped scores (Gemma 2 style): ``cap * tanh(q k^T * sm_scale / cap)``, causal, natural-log units (``exp``),
    bf16 Q / K / V / O, the cap a runtime scalar argument."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        raw = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = cap * ct.tanh(raw * (sm_scale / cap))
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] <= qpos[:, None], s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        corr = ct.exp(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.bfloat16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(ct.bfloat16).reshape((1, BM, D)))


@ct.kernel
def attn_causal_bottom_right_sq_lt_sk(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Causal attention with fewer queries than keys (chunked prefill against a cache), aligned bottom-right: query
    ``i`` sees keys ``j <= i + (Sk - Sq)``; the offset from the two arrays' shapes, the loop bounded by the last
    query row's last key."""
    qt, bh = ct.bid(0), ct.bid(1)
    sq, sk = Q.shape[1], K.shape[1]
    off = sk - sq
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32) + off
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM + off, sk), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where((kpos[None, :] <= qpos[:, None]) & (kpos[None, :] < sk), s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_head_dim_96_in_128_causal(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, DT: ConstInt):
    """Head dim 96 (not a power of two) held in 128-column tiles: the loads' zero padding fills columns 96..127 of
    Q / K / V, which add nothing to the scores, and the store is bounded by O's 96 columns; causal."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DT), padding_mode=ZERO).reshape((BM, DT))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, DT), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DT), padding_mode=ZERO).reshape((BN, DT))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] <= qpos[:, None], s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DT), padding_mode=ZERO).reshape((BN, DT))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, DT)))


@ct.kernel
def attn_head_dim_192_bf16_in_256(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, DT: ConstInt):
    """Head dim 192 in 256-column tiles, bf16, non-causal, ragged keys; f32 output."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DT), padding_mode=ZERO).reshape((BM, DT))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, DT), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DT), padding_mode=ZERO).reshape((BN, DT))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DT), padding_mode=ZERO).reshape((BN, DT))
        acc = ct.mma(p.astype(ct.bfloat16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).reshape((1, BM, DT)))


@ct.function
def _online_softmax_step(s, m, den):
    """One key tile of the online softmax: (probabilities, correction, new maximum, new denominator)."""
    m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
    p = ct.exp2(s - m_new)
    corr = ct.exp2(m - m_new)
    return p, corr, m_new, den * corr + ct.sum(p, axis=1, keepdims=True)


@ct.function
def _scores(q, k, qk_scale, kpos, seq):
    """Scaled ``q k^T`` with the keys past ``seq`` masked (calls no other helper)."""
    s = ct.mma(q, ct.transpose(k), ct.zeros((q.shape[0], k.shape[0]), dtype=ct.float32)) * qk_scale
    return ct.where(kpos[None, :] < seq, s, -math.inf)


@ct.kernel
def attn_helpers_for_scores_and_softmax(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Attention written with two ``ct.function`` helpers (the scores, the online softmax step), as users factor
    it; non-causal, ragged keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = _scores(q, k, qk_scale, j * BN + ct.arange(BN, dtype=ct.int32), seq)
        p, corr, m, den = _online_softmax_step(s, m, den)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_keyword_arguments_everywhere(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Every call with its keyword arguments spelt out (``index=``, ``shape=``, ``padding_mode=``, ``acc=``,
    ``axis=``, ``keepdims=``, ``dtype=``, ``tile=``); causal."""
    qt, bh = ct.bid(axis=0), ct.bid(axis=1)
    seq = K.shape[1]
    q = ct.reshape(ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO), shape=(BM, D))
    qpos = ct.arange(BM, dtype=ct.int32, start=0) + qt * BM
    m = ct.full(shape=(BM, 1), fill_value=-math.inf, dtype=ct.float32)
    den = ct.zeros(shape=(BM, 1), dtype=ct.float32)
    acc = ct.zeros(shape=(BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.reshape(ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO), shape=(BN, D))
        s = ct.mma(q, ct.transpose(k, axis0=0, axis1=1), acc=ct.zeros(shape=(BM, BN), dtype=ct.float32))
        kpos = ct.arange(BN, dtype=ct.int32) + j * BN
        s = ct.where(kpos[None, :] <= qpos[:, None], s * qk_scale, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.reshape(ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO), shape=(BN, D))
        acc = ct.mma(ct.astype(p, ct.float16), v, acc=acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=ct.reshape(ct.astype(acc / den, O.dtype), shape=(1, BM, D)))


@ct.kernel
def attn_gqa_decode_bhsd_bf16_kv_len_arg(Q, K, V, O, qk_scale: float, kv_len: int, G: ConstInt, BM: ConstInt,
                                         BN: ConstInt, D: ConstInt):
    """Decode against a preallocated cache: the valid key count a runtime argument (``kv_len`` < the cache's
    length), one query row per head padded to a 64-row tile, GQA (G = 4 query heads per K / V head), bf16,
    ``[B, H, S, D]``; program axes (query head, batch)."""
    h, b = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(b, h, 0, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(kv_len, BN)):
        k = ct.load(K, index=(b, h // G, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < kv_len, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h // G, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.bfloat16), v, acc * corr)
        m = m_new
    ct.store(O, index=(b, h, 0, 0), tile=(acc / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_causal_bf16_tiles_128x64(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """bf16 causal attention with 128-row query tiles over 64-key tiles, head dim 128 (the shape acceptance runs),
    ragged sequence."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] <= qpos[:, None], s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.bfloat16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


_add("attn_gqa_bhsd_4_q_heads_per_kv_causal", attn_gqa_bhsd_4_q_heads_per_kv_causal,
     [_a((2, 8, 150, 64), F16), _a((2, 2, 150, 64), F16), _a((2, 2, 150, 64), F16), _a((2, 8, 150, 64), F16),
      scale2(64), 4, 64, 64, 64], (3, 8, 2), "chained", outputs=(3,))
_add("attn_alibi_symmetric_slope_from_head", attn_alibi_symmetric_slope_from_head,
     _bhsd(4, 150, 170, 64) + [scale2(64), 2, 64, 64, 64], (3, 4), "chained", outputs=(3,))
_add("attn_softcap_tanh_bf16_causal", attn_softcap_tanh_bf16_causal,
     _bhsd(2, 150, 150, 64, BF16, BF16) + [0.125, 5.0, 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("attn_causal_bottom_right_sq_lt_sk", attn_causal_bottom_right_sq_lt_sk,
     _bhsd(2, 100, 230, 64) + [scale2(64), 64, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_head_dim_96_in_128_causal", attn_head_dim_96_in_128_causal,
     _bhsd(2, 150, 150, 96) + [scale2(96), 64, 64, 128], (3, 2), "chained", outputs=(3,))
_add("attn_head_dim_192_bf16_in_256", attn_head_dim_192_bf16_in_256,
     _bhsd(2, 100, 130, 192, BF16, F32) + [scale2(192), 64, 64, 256], (2, 2), "chained", outputs=(3,))
_add("attn_helpers_for_scores_and_softmax", attn_helpers_for_scores_and_softmax,
     _bhsd(2, 150, 170, 64) + [scale2(64), 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("attn_keyword_arguments_everywhere", attn_keyword_arguments_everywhere,
     _bhsd(2, 150, 150, 64) + [scale2(64), 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("attn_gqa_decode_bhsd_bf16_kv_len_arg", attn_gqa_decode_bhsd_bf16_kv_len_arg,
     [_a((2, 8, 1, 128), BF16), _a((2, 2, 256, 128), BF16), _a((2, 2, 256, 128), BF16), _a((2, 8, 1, 128), BF16),
      scale2(128), 201, 4, 64, 64, 128], (8, 2), "chained", outputs=(3,))
_add("attn_causal_bf16_tiles_128x64", attn_causal_bf16_tiles_128x64,
     _bhsd(2, 200, 200, 128, BF16, BF16) + [scale2(128), 128, 64, 128], (2, 2), "chained", outputs=(3,))


# ----------------------------------------------------------------------------------------------- GEMMs


@ct.kernel
def gemm_at_b_a_stored_k_by_m(At, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C = A^T B`` with A stored ``[K, M]`` (a weight gradient's layout): the A tile loaded ``[TK, TM]`` and
    ``ct.transpose``d; f16 out; M / N ragged."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(At, axis=0, shape=(TK, TM))):
        a = ct.transpose(ct.load(At, index=(k, bm), shape=(TK, TM), padding_mode=ZERO))
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc=acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(ct.float16))


@ct.kernel
def gemm_at_bt_by_permute(At, Bt, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C = A^T B^T``: A stored ``[K, M]`` and B stored ``[N, K]``, both tiles turned with ``ct.permute(x, (1,
    0))`` (the less common spelling of a transpose); f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(At.shape[0], TK)):
        a = ct.permute(ct.load(At, index=(k, bm), shape=(TK, TM), padding_mode=ZERO), (1, 0))
        b = ct.permute(ct.load(Bt, index=(bn, k), shape=(TN, TK), padding_mode=ZERO), (1, 0))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_bf16_in_f32_out_keyword_load(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """bf16 x bf16 into an f32 output, every load / store / mma with its keywords; the K loop by ``ct.num_tiles``."""
    bm, bn = ct.bid(axis=0), ct.bid(axis=1)
    acc = ct.zeros(shape=(TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc=acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_f16_out_f32_bias_row(A, B, Bias, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """f16 x f16, an f32 bias per output column added to the f32 accumulator, f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    bias = ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=(acc + bias[None, :]).astype(ct.float16))


@ct.kernel
def gemm_f32_inputs_as_tf32(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """f32 inputs converted to tf32 tiles (``ct.astype(x, ct.tfloat32)``) before ``ct.mma``: a tf32 tensor-core
    GEMM into f32."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.astype(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO), ct.tfloat32)
        b = ct.astype(ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), ct.tfloat32)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_int8_int32_out_raw(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """int8 x int8 into an int32 accumulator stored as int32 (no dequantisation: the caller scales)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_e4m3_per_tensor_scales_bf16(A, B, C, scale_a: float, scale_b: float, TM: ConstInt, TN: ConstInt,
                                     TK: ConstInt):
    """e4m3 x e4m3 with per-tensor scales given as two scalar arguments (the product of the two applied to the
    accumulator), bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    ct.store(C, index=(bm, bn), tile=(acc * (scale_a * scale_b)).astype(ct.bfloat16))


@ct.kernel
def gemm_e5m2_scales_from_arrays_f16(A, B, SA, SB, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """e5m2 x e5m2, the per-tensor scales read from two one-element f32 arrays (``.item()``), f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    s = ct.load(SA, index=(0,), shape=(1,)).item() * ct.load(SB, index=(0,), shape=(1,)).item()
    ct.store(C, index=(bm, bn), tile=(acc * s).astype(ct.float16))


@ct.kernel
def gemm_mnk_all_ragged_f16(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """M = 130, N = 90, K = 100: none a multiple of its tile; zero padding in K, stores bounded in M / N."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        acc = acc + ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO).astype(ct.float32) @ \
            ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO).astype(ct.float32)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_k_16_one_tile(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """K = 16: one K tile of 16 (a single WGMMA k step), no loop written: ``ct.mma`` once."""
    bm, bn = ct.bid(0), ct.bid(1)
    a = ct.load(A, index=(bm, 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(B, index=(0, bn), shape=(TK, TN), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=ct.mma(a, b, ct.zeros((TM, TN), dtype=ct.float32)))


@ct.kernel
def gemm_k_32_static_iter_constant_trips(A, B, C, KT: ConstInt, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """K = 32 in KT = 2 tiles of 16, the K loop a Python loop over a constant range (``ct.static_iter``):
    unrolled by the front end."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in ct.static_iter(range(KT)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(ct.float16))


@ct.kernel
def gemm_decode_m_40_in_64_rows(X, W, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A decode GEMM: 40 tokens (a 64-row tile, rows 40..63 padding never stored) against a ``[K, N]`` weight,
    K = 512; bf16 in, bf16 out."""
    bn = ct.bid(0)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        acc = ct.mma(ct.load(X, index=(0, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    ct.store(Y, index=(0, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_decode_m_24_weights_nk(X, W, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """24 tokens against an ``nn.Linear`` weight stored ``[N, K]`` (B^T), a 64-row tile; f16 in, f32 out."""
    bn = ct.bid(0)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        w = ct.load(W, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(ct.load(X, index=(0, k), shape=(TM, TK), padding_mode=ZERO), ct.transpose(w), acc)
    ct.store(Y, index=(0, bn), tile=acc)


@ct.kernel
def gemm_store_column_major_output(A, B, Ct, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """C written column-major: the output array is ``[N, M]`` (C^T row-major) and the tile is stored transposed."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    ct.store(Ct, index=(bn, bm), tile=ct.transpose(acc).astype(ct.float16))


@ct.kernel
def gemm_residual_add_then_clamp(A, B, R, C, lo: float, hi: float, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``clamp(A @ B + R, lo, hi)``: a residual read from a second f16 tensor, clamped by two scalar arguments
    (``ct.minimum`` / ``ct.maximum`` with scalars), f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    r = ct.load(R, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO).astype(ct.float32)
    ct.store(C, index=(bm, bn), tile=ct.minimum(ct.maximum(acc + r, lo), hi).astype(ct.float16))


@ct.kernel
def gemm_swish_learned_beta_item(A, B, Beta, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Swish with a learned beta: ``h * sigmoid(beta * h)``, beta read from a one-element f32 parameter array."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    beta = ct.load(Beta, index=(0,), shape=(1,)).item()
    ct.store(C, index=(bm, bn), tile=(acc / (1.0 + ct.exp(-beta * acc))).astype(ct.float16))


@ct.kernel
def gemm_per_row_scale_bf16(A, B, S, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A per-row (per-token) f32 scale applied to the accumulator, bf16 in and out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    s = ct.load(S, index=(bm,), shape=(TM,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=(acc * s[:, None]).astype(ct.bfloat16))


@ct.kernel
def gemm_lower_triangle_by_index_compare(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The product kept where column <= row and 0 elsewhere (a mask by an index compare, no mask array), with
    ``ct.where``'s else a scalar."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.store(C, index=(bm, bn), tile=ct.where(cols[None, :] <= rows[:, None], acc, 0.0))


@ct.kernel
def gemm_out_e5m2_saturated(A, B, C, inv_scale: float, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The output quantised to e5m2: the accumulator times ``inv_scale`` clamped to e5m2's finite range
    (+-57344) before the cast (saturation by hand, as cuTile's cast does not saturate)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    y = ct.minimum(ct.maximum(acc * inv_scale, -57344.0), 57344.0)
    ct.store(C, index=(bm, bn), tile=y.astype(ct.float8_e5m2))


@ct.kernel
def gemm_batched_bid_2_three_dim_arrays(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A batched GEMM over ``[Z, M, K] x [Z, K, N]`` with the batch as grid axis 2 (``ct.bid(2)``), f16 in / out."""
    bm, bn, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(z, bm, k), shape=(1, TM, TK), padding_mode=ZERO).reshape((TM, TK))
        b = ct.load(B, index=(z, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(z, bm, bn), tile=acc.astype(ct.float16).reshape((1, TM, TN)))


_add("gemm_at_b_a_stored_k_by_m", gemm_at_b_a_stored_k_by_m,
     [_a((128, 100), F16), _a((128, 80), F16), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_at_bt_by_permute", gemm_at_bt_by_permute,
     [_a((128, 100), F16), _a((80, 128), F16), _a((100, 80)), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_bf16_in_f32_out_keyword_load", gemm_bf16_in_f32_out_keyword_load,
     [_a((100, 192), BF16), _a((192, 80), BF16), _a((100, 80)), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_f16_out_f32_bias_row", gemm_f16_out_f32_bias_row,
     [_a((100, 128), F16), _a((128, 80), F16), _a((80,)), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_f32_inputs_as_tf32", gemm_f32_inputs_as_tf32,
     [_a((100, 64)), _a((64, 80)), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_int8_int32_out_raw", gemm_int8_int32_out_raw,
     [_a((100, 128), I8), _a((128, 80), I8), _a((100, 80), I32), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_e4m3_per_tensor_scales_bf16", gemm_e4m3_per_tensor_scales_bf16,
     [_a((100, 128), E4M3), _a((128, 80), E4M3), _a((100, 80), BF16), 0.5, 0.25, 64, 64, 64], (2, 2), "gemm",
     outputs=(2,))
_add("gemm_e5m2_scales_from_arrays_f16", gemm_e5m2_scales_from_arrays_f16,
     [_a((100, 128), E5M2), _a((128, 80), E5M2), _a((1,)), _a((1,)), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm",
     outputs=(4,))
_add("gemm_mnk_all_ragged_f16", gemm_mnk_all_ragged_f16,
     [_a((130, 100), F16), _a((100, 90), F16), _a((130, 90), F16), 64, 64, 64], (3, 2), "gemm", outputs=(2,))
_add("gemm_k_16_one_tile", gemm_k_16_one_tile,
     [_a((100, 16), F16), _a((16, 80), F16), _a((100, 80)), 64, 64, 16], (2, 2), "gemm", outputs=(2,))
_add("gemm_k_32_static_iter_constant_trips", gemm_k_32_static_iter_constant_trips,
     [_a((100, 32), F16), _a((32, 80), F16), _a((100, 80), F16), 2, 64, 64, 16], (2, 2), "gemm", outputs=(2,))
_add("gemm_decode_m_40_in_64_rows", gemm_decode_m_40_in_64_rows,
     [_a((40, 512), BF16), _a((512, 192), BF16), _a((40, 192), BF16), 64, 64, 64], (3,), "gemm", outputs=(2,))
_add("gemm_decode_m_24_weights_nk", gemm_decode_m_24_weights_nk,
     [_a((24, 256), F16), _a((200, 256), F16), _a((24, 200)), 64, 64, 64], (4,), "gemm", outputs=(2,))
_add("gemm_store_column_major_output", gemm_store_column_major_output,
     [_a((100, 64), F16), _a((64, 80), F16), _a((80, 100), F16), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_residual_add_then_clamp", gemm_residual_add_then_clamp,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80), F16), _a((100, 80), F16), -1.5, 2.0, 64, 64, 64], (2, 2),
     "gemm", outputs=(3,))
_add("gemm_swish_learned_beta_item", gemm_swish_learned_beta_item,
     [_a((100, 64), F16), _a((64, 80), F16), _a((1,)), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm", outputs=(3,))
_add("gemm_per_row_scale_bf16", gemm_per_row_scale_bf16,
     [_a((100, 64), BF16), _a((64, 80), BF16), _a((100,)), _a((100, 80), BF16), 64, 64, 64], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_lower_triangle_by_index_compare", gemm_lower_triangle_by_index_compare,
     [_a((100, 64), F16), _a((64, 100), F16), _a((100, 100)), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_out_e5m2_saturated", gemm_out_e5m2_saturated,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80), E5M2), 4096.0, 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_batched_bid_2_three_dim_arrays", gemm_batched_bid_2_three_dim_arrays,
     [_a((3, 100, 64), F16), _a((3, 64, 80), F16), _a((3, 100, 80), F16), 64, 64, 64], (2, 2, 3), "gemm",
     outputs=(2,))


# ----------------------------------------------------------------------------------------------- memory-bound programs


@ct.kernel
def argmax_along_columns_int32(X, Idx, BM: ConstInt, BN: ConstInt):
    """The row index of each column's maximum (``ct.argmax(x, axis=0)``) of a ``[BM, N]`` matrix held in one tile
    of rows (M = 50 in 64 rows: the padding rows -inf), one program per column tile."""
    bn = ct.bid(0)
    x = ct.load(X, index=(0, bn), shape=(BM, BN), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(Idx, index=(bn,), tile=ct.argmax(x, axis=0).astype(ct.int32))


@ct.kernel
def logsumexp_rows_two_tiles(X, Y, BN: ConstInt):
    """``log(sum(exp(x)))`` per row, stable (the row maximum subtracted), over two column tiles (max pass, then
    sum pass)."""
    r = ct.bid(0)
    m = ct.full((1,), -math.inf, dtype=ct.float32)
    for j in range(ct.num_tiles(X, axis=1, shape=(1, BN))):
        x = ct.load(X, index=(r, j), shape=(1, BN), padding_mode=ct.PaddingMode.NEG_INF).reshape((BN,))
        m = ct.maximum(m, ct.max(x, axis=0, keepdims=True))
    s = ct.zeros((1,), dtype=ct.float32)
    for j in range(ct.num_tiles(X, axis=1, shape=(1, BN))):
        x = ct.load(X, index=(r, j), shape=(1, BN), padding_mode=ct.PaddingMode.NEG_INF).reshape((BN,))
        s = s + ct.sum(ct.exp(x - m), axis=0, keepdims=True)
    ct.store(Y, index=(r,), tile=m + ct.log(s))


@ct.kernel
def variance_two_pass_rows(X, Var, BN: ConstInt):
    """A row's population variance in two passes (mean, then the mean of squared deviations), padding masked out
    of the second pass by an index compare."""
    r = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).reshape((BN,))
    mean = ct.sum(x) / n
    cols = ct.arange(BN, dtype=ct.int32)
    d = ct.where(cols < n, x - mean, 0.0)
    ct.store(Var, index=(r,), tile=(ct.sum(d * d) / n).reshape((1,)))


@ct.kernel
def column_max_over_row_tiles(X, Y, BM: ConstInt, BN: ConstInt):
    """Each column's maximum, the rows walked in tiles (``ct.max(x, axis=0)`` carried across the loop)."""
    bn = ct.bid(0)
    m = ct.full((BN,), -math.inf, dtype=ct.float32)
    for i in range(ct.cdiv(X.shape[0], BM)):
        x = ct.load(X, index=(i, bn), shape=(BM, BN), padding_mode=ct.PaddingMode.NEG_INF)
        m = ct.maximum(m, ct.max(x, axis=0))
    ct.store(Y, index=(bn,), tile=m)


@ct.kernel
def sum_of_squares_f16_in_f32(X, Y, BS: ConstInt):
    """A sum of squares of f16 values accumulated in f32 (each block's partial added by ``atomic_add``)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO).astype(ct.float32)
    ct.atomic_add(Y, (ct.zeros((1,), dtype=ct.int32),), ct.sum(x * x, axis=0, keepdims=True))


@ct.kernel
def broadcast_row_and_column_vectors(X, R, Cv, Y, BM: ConstInt, BN: ConstInt):
    """``y = x * r[None, :] + c[:, None]``: one vector broadcast along rows and one along columns."""
    bm, bn = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(bm, bn), shape=(BM, BN), padding_mode=ZERO)
    r = ct.load(R, index=(bn,), shape=(BN,), padding_mode=ZERO)
    c = ct.load(Cv, index=(bm,), shape=(BM,), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=x * r[None, :] + c[:, None])


@ct.kernel
def outer_sum_by_broadcast_to(A, B, Y, BM: ConstInt, BN: ConstInt):
    """``y[i, j] = a[i] - b[j]``: both vectors lifted with ``ct.expand_dims`` and ``ct.broadcast_to``ed to the tile
    shape before the subtraction."""
    bm, bn = ct.bid(0), ct.bid(1)
    a = ct.expand_dims(ct.load(A, index=(bm,), shape=(BM,), padding_mode=ZERO), axis=1)
    b = ct.expand_dims(ct.load(B, index=(bn,), shape=(BN,), padding_mode=ZERO), axis=0)
    ct.store(Y, index=(bm, bn), tile=ct.broadcast_to(a, (BM, BN)) - ct.broadcast_to(b, (BM, BN)))


@ct.kernel
def gather_by_index_tensor_f16(X, Ids, Y, BS: ConstInt):
    """``y[i] = x[ids[i]]`` (a permutation or lookup), f16 values, int32 indices; out-of-range indices read 0."""
    ids = ct.load(Ids, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.gather(X, ids))


@ct.kernel
def scatter_by_index_tensor(X, Ids, Y, BS: ConstInt):
    """``y[ids[i]] = x[i]`` (an inverse permutation), the tail of the last block masked by an index compare."""
    i = ct.bid(0) * BS + ct.arange(BS, dtype=ct.int32)
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ids = ct.load(Ids, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.scatter(Y, ids, x, mask=i < X.shape[0])


@ct.kernel
def inclusive_prefix_sum_one_tile(X, Y, BS: ConstInt):
    """An inclusive prefix sum of a vector that fits one tile (``ct.cumsum``), f32."""
    x = ct.load(X, index=(0,), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=ct.cumsum(x, axis=0))


@ct.kernel
def exclusive_prefix_sum_int32_rows(X, Y, BN: ConstInt):
    """Exclusive prefix sums of int32 counts along each row (``cumsum(x) - x``: offsets from lengths)."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=ct.cumsum(x, axis=1) - x)


@ct.kernel
def where_scalar_both_branches_sign(X, Y, BS: ConstInt):
    """``sign(x)`` written ``ct.where(x > 0, 1.0, ct.where(x < 0, -1.0, 0.0))``: scalars on both branches."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.where(x > 0, 1.0, ct.where(x < 0, -1.0, 0.0)))


@ct.kernel
def astype_chain_f32_bf16_f16_f32(X, Y, BS: ConstInt):
    """``x`` rounded through bf16 then f16 and back to f32 (``ct.astype`` chained): the double rounding a user
    writes when simulating a mixed-precision pipeline."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.astype(ct.astype(ct.astype(x, ct.bfloat16), ct.float16), ct.float32))


@ct.kernel
def bid_three_axes_elementwise_4d(X, Y, BS: ConstInt, BH: ConstInt):
    """``y = 2 x + 1`` over a ``[B, H, S, D]`` array: program axes (sequence tile, head, batch), a head tile of 1."""
    st, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    x = ct.load(X, index=(b, h, st, 0), shape=(1, BH, BS, 64), padding_mode=ZERO)
    ct.store(Y, index=(b, h, st, 0), tile=2.0 * x + 1.0)


@ct.kernel
def static_iter_sum_of_slices(X, Y, NS: ConstInt, BN: ConstInt):
    """A row's sum over NS column slices written as a Python loop over a constant range (``ct.static_iter``)."""
    r = ct.bid(0)
    acc = ct.zeros((1, BN), dtype=ct.float32)
    for j in ct.static_iter(range(NS)):
        acc = acc + ct.load(X, index=(r, j), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(r, 0), tile=acc)


@ct.function
def _sigmoid(x):
    return 1.0 / (1.0 + ct.exp(-x))


@ct.function
def _silu(x):
    return x * _sigmoid(x)


@ct.kernel
def nested_helpers_silu_gate(G, U, Y, BS: ConstInt):
    """``silu(g) * u`` through two nested ``ct.function`` helpers (``_silu`` calls ``_sigmoid``), bf16 in, f32
    math, bf16 out."""
    g = ct.load(G, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO).astype(ct.float32)
    u = ct.load(U, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(ct.bid(0),), tile=(_silu(g) * u).astype(ct.bfloat16))


@ct.kernel
def constexpr_tile_shape_from_argument(X, Y, ROWS: ConstInt, COLS: ConstInt):
    """The tile shape from two constant arguments (ROWS x COLS = 8 x 32) and the scale from one of them:
    ``y = x * ROWS``."""
    bm, bn = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(bm, bn), shape=(ROWS, COLS), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=x * ROWS)


@ct.kernel
def clamp_by_scalar_minimum_maximum(X, Y, lo: float, hi: float, BS: ConstInt):
    """``clamp(x, lo, hi)`` with ``ct.minimum`` / ``ct.maximum`` of a tile and a runtime scalar."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.minimum(ct.maximum(x, lo), hi))


_add("argmax_along_columns_int32", argmax_along_columns_int32, [_a((50, 100)), _a((100,), I32), 64, 32], (4,),
     "simt", outputs=(1,))
_add("logsumexp_rows_two_tiles", logsumexp_rows_two_tiles, [_a((6, 200)), _a((6,)), 128], (6,), "simt",
     outputs=(1,))
_add("variance_two_pass_rows", variance_two_pass_rows, [_a((6, 100)), _a((6,)), 128], (6,), "simt", outputs=(1,))
_add("column_max_over_row_tiles", column_max_over_row_tiles, [_a((150, 100)), _a((100,)), 64, 32], (4,), "simt",
     outputs=(1,))
_add("sum_of_squares_f16_in_f32", sum_of_squares_f16_in_f32, [_a((500,), F16), _a((1,)), 128], (4,), "simt",
     outputs=(1,))
_add("broadcast_row_and_column_vectors", broadcast_row_and_column_vectors,
     [_a((50, 100)), _a((100,)), _a((50,)), _a((50, 100)), 32, 64], (2, 2), "simt", outputs=(3,))
_add("outer_sum_by_broadcast_to", outer_sum_by_broadcast_to, [_a((50,)), _a((70,)), _a((50, 70)), 32, 64], (2, 2),
     "simt", outputs=(2,))
_add("gather_by_index_tensor_f16", gather_by_index_tensor_f16,
     [_a((90,), F16), _a((200,), I32), _a((200,), F16), 64], (4,), "simt", outputs=(2,))
_add("scatter_by_index_tensor", scatter_by_index_tensor, [_a((200,)), _a((200,), I32), _a((200,)), 64], (4,),
     "simt", outputs=(2,))
_add("inclusive_prefix_sum_one_tile", inclusive_prefix_sum_one_tile, [_a((200,)), _a((200,)), 256], (1,), "simt",
     outputs=(1,))
_add("exclusive_prefix_sum_int32_rows", exclusive_prefix_sum_int32_rows, [_a((5, 100), I32), _a((5, 100), I32), 128],
     (5,), "simt", outputs=(1,))
_add("where_scalar_both_branches_sign", where_scalar_both_branches_sign, [_a((200,)), _a((200,)), 64], (4,), "simt",
     outputs=(1,))
_add("astype_chain_f32_bf16_f16_f32", astype_chain_f32_bf16_f16_f32, [_a((200,)), _a((200,)), 64], (4,), "simt",
     outputs=(1,))
_add("bid_three_axes_elementwise_4d", bid_three_axes_elementwise_4d,
     [_a((2, 3, 50, 64)), _a((2, 3, 50, 64)), 32, 1], (2, 3, 2), "simt", outputs=(1,))
_add("static_iter_sum_of_slices", static_iter_sum_of_slices, [_a((5, 128)), _a((5, 32)), 4, 32], (5,), "simt",
     outputs=(1,))
_add("nested_helpers_silu_gate", nested_helpers_silu_gate, [_a((200,), BF16), _a((200,), BF16), _a((200,), BF16), 64],
     (4,), "simt", outputs=(2,))
_add("constexpr_tile_shape_from_argument", constexpr_tile_shape_from_argument, [_a((20, 70)), _a((20, 70)), 8, 32],
     (3, 3), "simt", outputs=(1,))
_add("clamp_by_scalar_minimum_maximum", clamp_by_scalar_minimum_maximum, [_a((200,)), _a((200,)), -0.5, 0.75, 64],
     (4,), "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def mma_acc_of_the_k_tile_shape(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The accumulator made ``(TM, TK)`` instead of ``(TM, TN)``."""
    acc = ct.zeros((TM, TK), dtype=ct.float32)
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b, acc))


@ct.kernel
def load_with_a_misspelt_keyword(X, Y, BS: ConstInt):
    """``padding=`` for ``padding_mode=``."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def mma_of_f16_by_bf16(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """f16 A times bf16 B."""
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b, acc))


@ct.kernel
def arange_of_100(X, Y, BS: ConstInt):
    """``ct.arange(100)``: not a power of two."""
    i = ct.arange(100, dtype=ct.int32)
    ct.store(Y, index=(0,), tile=i.astype(ct.float32))


@ct.kernel
def reshape_to_another_count(X, Y, BS: ConstInt):
    """64 elements reshaped to (8, 16)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=x.reshape((8, 16)))


@ct.kernel
def permute_with_three_axes_of_a_matrix(X, Y, BM: ConstInt, BN: ConstInt):
    """``ct.permute(x, (1, 0, 2))`` of a 2-D tile."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(0, ct.bid(0)), tile=ct.permute(x, (1, 0, 2)))


@ct.kernel
def numpy_exp_in_the_kernel(X, Y, BS: ConstInt):
    """``np.exp`` of a tile (numpy is host code)."""
    import numpy as np

    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=np.exp(x))


@ct.kernel
def static_iter_of_a_runtime_range(X, Y, n: int, BS: ConstInt):
    """``ct.static_iter(range(n))`` with ``n`` a runtime argument."""
    acc = ct.zeros((BS,), dtype=ct.float32)
    for j in ct.static_iter(range(n)):
        acc = acc + ct.load(X, index=(j,), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def num_tiles_of_axis_2_of_a_matrix(X, Y, BM: ConstInt, BN: ConstInt):
    """``ct.num_tiles(X, axis=2, ...)`` of a 2-D array."""
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for j in range(ct.num_tiles(X, axis=2, shape=(BM, BN))):
        acc = acc + ct.load(X, index=(0, j), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(0, 0), tile=acc)


@ct.kernel
def gather_two_indices_from_a_vector(X, Ids, Y, BS: ConstInt):
    """``ct.gather(X, (i, j))`` of a 1-D array."""
    ids = ct.load(Ids, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.gather(X, (ids, ids)))


@ct.kernel
def mma_of_vectors(X, Y, C, BS: ConstInt):
    """``ct.mma`` of two 1-D tiles (a dot product written as an MMA)."""
    x = ct.load(X, index=(0,), shape=(BS,), padding_mode=ZERO)
    y = ct.load(Y, index=(0,), shape=(BS,), padding_mode=ZERO)
    ct.store(C, index=(0,), tile=ct.mma(x, y, ct.zeros((BS,), dtype=ct.float32)))


@ct.kernel
def full_with_a_tile_fill(X, Y, BS: ConstInt):
    """``ct.full`` filled with a tile, not a scalar."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.full((BS,), x, dtype=ct.float32))


@ct.kernel
def a_python_list_of_tiles(X, Y, BS: ConstInt):
    """Tiles collected in a Python list."""
    parts = []
    for j in range(2):
        parts.append(ct.load(X, index=(j,), shape=(BS,), padding_mode=ZERO))
    ct.store(Y, index=(0,), tile=parts[0])


@ct.kernel
def load_shape_of_a_runtime_int(X, Y, n: int):
    """A tile shape from a runtime argument."""
    x = ct.load(X, index=(0,), shape=(n,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=x)


@ct.kernel
def store_index_of_a_float(X, Y, BS: ConstInt):
    """A store at a float tile index (``ct.bid(0) / 2``)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0) / 2,), tile=x)


@ct.kernel
def sum_over_axis_1_of_a_vector(X, Y, BS: ConstInt):
    """``ct.sum(x, axis=1)`` of a 1-D tile."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.sum(x, axis=1))


@ct.kernel
def bitwise_and_of_floats(X, Y, BS: ConstInt):
    """``x & 1`` of an f32 tile."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.bitwise_and(x, x))


@ct.kernel
def tile_dims_of_zero(X, Y, BS: ConstInt):
    """A tile of shape ``(0,)``."""
    x = ct.load(X, index=(ct.bid(0),), shape=(0,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def assign_to_an_array_element(X, Y, BS: ConstInt):
    """``Y[0] = 1.0``: indexing an array as in numpy."""
    Y[0] = 1.0


@ct.kernel
def expand_dims_axis_3_of_a_vector(X, Y, BS: ConstInt):
    """``ct.expand_dims(x, axis=3)`` of a 1-D tile."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=ct.expand_dims(x, axis=3))


@ct.kernel
def broadcast_to_fewer_dims(X, Y, BM: ConstInt, BN: ConstInt):
    """``ct.broadcast_to`` of a (BM, BN) tile to (BN,)."""
    x = ct.load(X, index=(0, 0), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=ct.broadcast_to(x, (BN,)))


@ct.kernel
def store_4d_tile_into_3d_output(X, Y, BM: ConstInt, D: ConstInt):
    """A ``(1, 1, BM, D)`` tile stored at a 3-index position of a ``[BH, S, D]`` array."""
    x = ct.load(X, index=(0, 0, ct.bid(0), 0), shape=(1, 1, BM, D), padding_mode=ZERO)
    ct.store(Y, index=(0, ct.bid(0), 0), tile=x)


@ct.kernel
def printf_with_more_conversions_than_values(X, BS: ConstInt):
    """``ct.printf("%d %f\\n", x)``: two conversions, one value."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.printf("%d %f\n", ct.sum(x))


@ct.kernel
def zeros_of_a_million_elements(X, Y, BS: ConstInt):
    """A ``(1024, 1024)`` f32 accumulator tile in one program (4 MiB)."""
    acc = ct.zeros((1024, 1024), dtype=ct.float32)
    acc = acc + ct.load(X, index=(0, 0), shape=(1024, 1024), padding_mode=ZERO)
    ct.store(Y, index=(0, 0), tile=acc)


@ct.kernel
def mma_scaled_e5m2_on_hopper(A, B, SA, SB, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``ct.mma_scaled`` of e5m2 tiles with e8m0 block scales (one per 32 K elements)."""
    a = ct.load(A, index=(0, 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(B, index=(0, 0), shape=(TK, TN), padding_mode=ZERO)
    sa = ct.load(SA, index=(0, 0), shape=(TM, TK // 32), padding_mode=ZERO)
    sb = ct.load(SB, index=(0, 0), shape=(TK // 32, TN), padding_mode=ZERO)
    ct.store(C, index=(0, 0), tile=ct.mma_scaled(a, sa, b, sb, ct.zeros((TM, TN), dtype=ct.float32)))


@ct.kernel
def int16_mma_tiles(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """int16 x int16 into an int32 accumulator."""
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b, acc))


@ct.kernel
def load_order_of_three_axes_on_a_matrix(X, Y, BM: ConstInt, BN: ConstInt):
    """``order=(2, 1, 0)`` on a 2-D array."""
    x = ct.load(X, index=(0, 0), shape=(BM, BN), order=(2, 1, 0), padding_mode=ZERO)
    ct.store(Y, index=(0, 0), tile=x)


@ct.kernel
def latency_of_a_runtime_value(X, Y, lat: int, BS: ConstInt):
    """``latency=lat`` with a runtime argument."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO, latency=lat)
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def uint64_sum_stored_to_int8(X, Y, BS: ConstInt):
    """A uint64 tile stored into an int8 array without a cast."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x)


_V, _M, _H = _a((200,)), _a((64, 128)), _a((128, 128), F16)
_I = _a((200,), I32)
REJECTED_BY_CUTILE = {
    # name: (kernel, spec, words of cuTile's message, text of the line it names)
    "mma_acc_of_the_k_tile_shape": (mma_acc_of_the_k_tile_shape, [_H, _H, _a((128, 128)), 64, 64, 32],
                                    "Expect acc shape to be (64, 64), got (64, 32)", "tile=ct.mma(a, b, acc)"),
    "load_with_a_misspelt_keyword": (load_with_a_misspelt_keyword, [_V, _V, 64],
                                     "load(): got an unexpected keyword argument 'padding'", "padding=ZERO)"),
    "mma_of_f16_by_bf16": (mma_of_f16_by_bf16, [_H, _a((128, 128), BF16), _a((128, 128)), 64, 64, 64],
                           "x and y must have the same dtype unless they are int8/uint8, got float16 bfloat16",
                           "tile=ct.mma(a, b, acc)"),
    "arange_of_100": (arange_of_100, [_V, _V, 64], "Result tile shape must be power of 2, got 100",
                      "ct.arange(100"),
    "reshape_to_another_count": (reshape_to_another_count, [_V, _a((100, 16)), 64], "Cannot reshape (64,) to (8, 16)",
                                 "x.reshape((8, 16))"),
    "permute_with_three_axes_of_a_matrix": (permute_with_three_axes_of_a_matrix, [_M, _M, 64, 128],
                                            "Num axes must match input's rank: 3 vs 2", "ct.permute(x, (1, 0, 2))"),
    "numpy_exp_in_the_kernel": (numpy_exp_in_the_kernel, [_V, _V, 64], "Unsupported syntax", "import numpy as np"),
    "static_iter_of_a_runtime_range": (static_iter_of_a_runtime_range, [_V, _V, 2, 64],
                                       "Symbolic tile has no concrete value", "ct.static_iter(range(n))"),
    "num_tiles_of_axis_2_of_a_matrix": (num_tiles_of_axis_2_of_a_matrix, [_M, _M, 64, 64],
                                        "Axis 2 is out of range for rank 2", "ct.num_tiles(X, axis=2"),
    "gather_two_indices_from_a_vector": (gather_two_indices_from_a_vector, [_V, _I, _V, 64],
                                         "For array of rank 1, `indices` must be a tuple of length 1",
                                         "ct.gather(X, (ids, ids))"),
    "mma_of_vectors": (mma_of_vectors, [_a((64,), F16), _a((64,), F16), _a((64,)), 64],
                       "Expect shape of `x` to be at least 2D, got (64,)", "ct.mma(x, y"),
    "full_with_a_tile_fill": (full_with_a_tile_fill, [_V, _V, 64],
                              "Invalid argument \"fill_value\" of full(): Expected a scalar or a 0D tile",
                              "ct.full((BS,), x"),
    "a_python_list_of_tiles": (a_python_list_of_tiles, [_V, _V, 64], "Unsupported syntax", "parts = []"),
    "load_shape_of_a_runtime_int": (load_shape_of_a_runtime_int, [_V, _V, 64],
                                    "Invalid argument \"shape\" of load(): Expected a constant integer tuple",
                                    "shape=(n,)"),
    "store_index_of_a_float": (store_index_of_a_float, [_V, _V, 64],
                               "Invalid argument \"index\" of store(): Expected a tuple of signed integers",
                               "index=(ct.bid(0) / 2,)"),
    "sum_over_axis_1_of_a_vector": (sum_over_axis_1_of_a_vector, [_V, _V, 64], "Axis 1 is out of range for rank 1",
                                    "ct.sum(x, axis=1)"),
    "bitwise_and_of_floats": (bitwise_and_of_floats, [_V, _V, 64], "Bitwise operations require integers or booleans",
                              "ct.bitwise_and(x, x)"),
    "tile_dims_of_zero": (tile_dims_of_zero, [_V, _V, 64], "Dimension #0 of shape (0,) is not positive",
                          "shape=(0,)"),
    "assign_to_an_array_element": (assign_to_an_array_element, [_V, _V, 64],
                                   "Arrays do not support item assignment", "Y[0] = 1.0"),
    "expand_dims_axis_3_of_a_vector": (expand_dims_axis_3_of_a_vector, [_V, _M, 64],
                                       "Axis 3 is out of range for rank 2", "ct.expand_dims(x, axis=3)"),
    "broadcast_to_fewer_dims": (broadcast_to_fewer_dims, [_M, _a((128,)), 64, 128],
                                "Shape (64, 128) is not broadcastable to (128,)", "ct.broadcast_to(x, (BN,))"),
    "printf_with_more_conversions_than_values": (printf_with_more_conversions_than_values, [_V, 64],
                                                 "Format %d for arg #0 got unexpected type of Tile[float32,()]",
                                                 "ct.printf("),
    "int16_mma_tiles": (int16_mma_tiles, [_a((128, 128), "int16")] * 2 + [_a((128, 128), I32), 64, 64, 64],
                        "Unsupported input dtype int16", "tile=ct.mma(a, b, acc)"),
    "load_order_of_three_axes_on_a_matrix": (load_order_of_three_axes_on_a_matrix, [_M, _M, 64, 128],
                                             "Invalid argument \"order\" of load(): Expected tuple of length 2, got 3",
                                             "order=(2, 1, 0)"),
    "latency_of_a_runtime_value": (latency_of_a_runtime_value, [_V, _V, 3, 64],
                                   "Invalid argument \"latency\" of load(): Expected an integer constant",
                                   "latency=lat"),
    "uint64_sum_stored_to_int8": (uint64_sum_stored_to_int8, [_a((200,), "uint64"), _a((200,), I8), 64],
                                  "cannot implicitly cast uint64 to int8", "ct.store(Y"),
}
"""Programs cuTile's front end refuses at the user's line (tileorch never sees them)."""


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("store_4d_tile_into_3d_output", store_4d_tile_into_3d_output,
     [_a((1, 1, 128, 64), F16), _a((1, 128, 64), F16), 64, 64], (2,), "error",
     error="expected tensor_view rank and tile rank to match, got tensor_view of rank 3 and tiles of rank 4",
     notes="ct.store(Y, index=(0, ct.bid(0), 0), tile=x)")
_bad("zeros_of_a_million_elements", zeros_of_a_million_elements, [_a((1024, 1024)), _a((1024, 1024)), 64], (1,),
     "error", error="a tile of 1048576 elements is too large", notes="acc = acc + ct.load(X")
_bad("mma_scaled_e5m2_on_hopper", mma_scaled_e5m2_on_hopper,
     [_a((128, 128), E5M2), _a((128, 128), E5M2), _a((128, 4), "float8_e8m0fnu"), _a((4, 128), "float8_e8m0fnu"),
      _a((128, 128)), 64, 64, 64], (1,), "error",
     error="block-scaled MMA (ct.mma_scaled) is a Blackwell (sm_100) instruction", notes="tile=ct.mma_scaled(")
