"""The thirtieth user sweep (session 38): cuTile 1.7 programs as users write them, biased to what acceptance runs
(issues 20 and 21): attention-shaped programs -- the softmax in natural ``exp`` with the max subtracted, causal
written as a loop bound, as a full loop with a ``where`` and as an additive ``-inf`` bias, a sliding window, ALiBi
slopes from an array, a relative-position bias tile read from memory, tanh soft-capping, GQA and MQA by index math,
cross attention with ``Sq != Sk``, varlen batches through a start / length array, f32 and bf16 outputs, head dims
64 / 128 / 256, an MLP written as two chained dots (GEMM -> activation -> GEMM); GEMM epilogues (bias + tanh-GELU,
residual with row and column scales, clamps and casts, ``alpha AB + beta C`` of runtime scalars, batched 3-D
arrays, both operands transposed, the output stored transposed); memory-bound programs of issue 21's list in
unusual spellings (layernorm with weight and bias in two passes, RMSNorm in bf16, softmax down a column, column
sums by atomics, argmax with ties, int64 cumsum, an embedding gather with a padding index, a masked scatter, an
atomic histogram, a 3-D tile, fp8 / int8 / bool elements).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep30_compile.py, tests/unit/test_user_sweep30_interp.py,
tests/unit/test_user_sweep30_emulated.py, tests/unit/test_user_sweep30_invalid.py (with :data:`INVALID` and
:data:`REJECTED_BY_CUTILE`), tests/unit/test_user_sweep30_cutlass.py and tests/gpu/test_user_sweep30_gpu.py.
Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF
F16, BF16, F32, F64 = "float16", "bfloat16", "float32", "float64"
I8, I16, I32, I64, U8, U32, B = "int8", "int16", "int32", "int64", "uint8", "uint32", "bool_"
E4M3, E5M2 = "float8_e4m3fn", "float8_e5m2"


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_natural_exp_max_subtracted(Q, K, V, O, sm_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """``[BH, S, D]`` attention with the softmax in natural units: scores times ``sm_scale``, ``exp(s - m)``,
    ``exp(m_old - m_new)`` for the rescale, the row state 2-D ``(BM, 1)``; ragged keys masked by ``where``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        cols = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(cols[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        corr = ct.exp(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_full_loop_where(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Causal attention written the lazy way: the key loop runs over every key tile and the mask ``kpos > qpos``
    (written ``qpos < kpos``) sets the scores to ``-inf`` by ``ct.where``; ``exp2`` with the scale in log2 units;
    Sq = Sk ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        bad = (qpos[:, None] < kpos[None, :]) | (kpos[None, :] >= seq)
        s = ct.where(bad, -math.inf, s)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_additive_bias(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Causal attention as an additive mask: ``s + where(kpos <= qpos, 0, -inf)`` (the PyTorch ``attn_mask``
    habit), the key loop bounded by the diagonal tile ``cdiv((qt + 1) BM, BN)`` clipped to the keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        bias = ct.where((kpos <= qpos) & (kpos < seq), 0.0, -math.inf)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale + bias
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_sliding_window_left(Q, K, V, O, qk_scale: float, W: ConstInt, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Mistral's sliding window: query ``i`` sees keys ``i - W < k <= i``; the key loop from the first tile the
    window of the tile's first query touches (``max(qt BM - W + 1, 0) // BN``) to the diagonal, so a later query's
    first tiles can be wholly outside its window: the mask is the finite ``-1e30`` (with ``-inf`` such a row's
    ``exp2(s - m)`` is ``exp2(-inf + inf)``, NaN -- what this sweep's first draft computed, on the emulator as in
    numpy)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    lo = max(qt * BM - W + 1, 0) // BN
    hi = ct.cdiv(min((qt + 1) * BM, seq), BN)
    for j in range(lo, hi):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        ok = (kpos <= qpos) & (kpos > qpos - W) & (kpos < seq)
        s = ct.where(ok, s, -1.0e30)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_alibi_slopes_from_array(Q, K, V, Slopes, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                 D: ConstInt):
    """ALiBi: ``s = q k^T scale + slope[h] (kpos - qpos)`` (log2 units), the per-head slope read from a ``[H]``
    f32 array by ``ct.gather``, causal; program ``(query tile, b H + h)``."""
    qt, bh = ct.bid(0), ct.bid(1)
    h = bh % H
    seq = K.shape[1]
    slope = ct.gather(Slopes, h)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = s + slope * (kpos - qpos).astype(ct.float32)
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_relative_bias_tile_from_memory(Q, K, V, Bias, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                        D: ConstInt):
    """T5-style relative bias: a ``[H, Sq, Sk]`` f32 bias (log2 units) loaded as a ``(1, BM, BN)`` tile each key
    step and added to the scaled scores; ragged keys masked."""
    qt, bh = ct.bid(0), ct.bid(1)
    h = bh % H
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        bias = ct.load(Bias, index=(h, qt, j), shape=(1, BM, BN), padding_mode=ZERO).reshape((BM, BN))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale + bias
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_tanh_softcap(Q, K, V, O, sm_scale: float, cap: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Gemma-2 soft-capping: ``s = cap tanh(q k^T sm_scale / cap)``, then a natural-``exp`` online softmax;
    ragged keys masked after the cap."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = cap * ct.tanh(s * (sm_scale / cap))
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        corr = ct.exp(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_gqa_kv_head_by_division(Q, K, V, O, qk_scale: float, H: ConstInt, HKV: ConstInt, BM: ConstInt,
                                 BN: ConstInt, D: ConstInt):
    """Grouped-query attention by index math: Q / O ``[B H, S, D]``, K / V ``[B HKV, S, D]``; program
    ``(query tile, b H + h)`` reads KV head ``b HKV + h // (H // HKV)``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    kvh = b * HKV + h // (H // HKV)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(kvh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(kvh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_mqa_shared_kv_2d(Q, K, V, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Multi-query attention: one K and one V per batch, ``[B, S, D]``, shared by the ``H`` query heads of Q
    ``[B, H, S, D]``; program ``(query tile, b H + h)``; f32 output."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    seq = K.shape[1]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * corr)
        m = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / den).reshape((1, 1, BM, D)))


@ct.kernel
def attn_cross_d128_lse_bf16(Q, K, V, O, Lse, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Cross attention (decoder queries over encoder keys, ``Sq != Sk``) at head dim 128, bf16 in and out, the
    log-sum-exp (log2 units) stored beside O as ``[BH, Sq]`` f32."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))
    ct.store(Lse, index=(bh, qt), tile=(m + ct.log2(den)).reshape((1, BM)))


@ct.kernel
def attn_varlen_start_and_length_arrays(Q, K, V, Start, Len, O, qk_scale: float, BM: ConstInt, BN: ConstInt,
                                        D: ConstInt):
    """Varlen batches packed along the tokens of ``[H, T, D]`` arrays: sequence ``b`` starts at tile
    ``Start[b]`` (its tokens padded to whole tiles) and has ``Len[b]`` tokens; program ``(query tile of the
    sequence, h, b)``; a query tile past the sequence stores nothing; keys past the length masked."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    start = ct.gather(Start, b)
    n = ct.gather(Len, b)
    if qt * BM < n:
        q = ct.load(Q, index=(h, start * (BN // BM) + qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
        m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
        den = ct.zeros((BM, 1), dtype=ct.float32)
        acc = ct.zeros((BM, D), dtype=ct.float32)
        for j in range(ct.cdiv(n, BN)):
            k = ct.load(K, index=(h, start + j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
            s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
            kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
            s = ct.where(kpos < n, s, -math.inf)
            m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
            p = ct.exp2(s - m_new)
            corr = ct.exp2(m - m_new)
            den = den * corr + ct.sum(p, axis=1, keepdims=True)
            v = ct.load(V, index=(h, start + j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
            acc = ct.mma(p.astype(V.dtype), v, acc * corr)
            m = m_new
        ct.store(O, index=(h, start * (BN // BM) + qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_d256_f32_out(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Head dim 256 (Gemma's), f16 in, f32 out, 32-wide key tiles; ragged keys masked."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).reshape((1, BM, D)))


@ct.kernel
def attn_softmax_by_division_after_loop_1d_state(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt,
                                                 D: ConstInt):
    """The Triton tutorial's row state: 1-D ``m`` and ``l`` of shape ``(BM,)``, broadcast with ``[:, None]``,
    ``alpha`` applied to the accumulator by a separate multiply, ``acc / l[:, None]`` at the end; ``[BH, S, D]``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM,), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM,), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1))
        p = ct.exp2(s - m_new[:, None])
        alpha = ct.exp2(m - m_new)
        den = den * alpha + ct.sum(p, axis=1)
        acc = acc * alpha[:, None]
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den[:, None]).astype(O.dtype).reshape((1, BM, D)))


def _state(BM, D):
    return (ct.full((BM, 1), -math.inf, dtype=ct.float32), ct.zeros((BM, 1), dtype=ct.float32),
            ct.zeros((BM, D), dtype=ct.float32))


@ct.kernel
def attn_pv_into_zeros_then_added(Q, K, V, O, sm_scale: ct.Constant[float], BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The ``P V`` product into fresh zeros and added to the rescaled accumulator (``acc = acc * a + mma(p, v,
    zeros)``), the scale a ``ct.Constant[float]``, natural ``exp``, the output normalised by ``acc * (1 / l)``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m, l, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < seq, s, -math.inf)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - mn)
        a = ct.exp(m - mn)
        l = l * a + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = acc * a + ct.mma(p.astype(ct.float16), v, ct.zeros((BM, D), dtype=ct.float32))
        m = mn
    ct.store(O, index=(bh, qt, 0), tile=(acc * (1.0 / l)).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_mask_probs_after_exp(Q, K, V, O, sm_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Ragged keys masked on the probabilities after ``exp`` (``where(kpos < seq, exp(s - m), 0)``) rather than on
    the scores: the padded keys' zero scores enter the running max (a shift only)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m, l, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.where(kpos < seq, ct.exp(s - mn), 0.0)
        a = ct.exp(m - mn)
        l = l * a + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * a)
        m = mn
    ct.store(O, index=(bh, qt, 0), tile=(acc / l).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_gqa_4d_kv_head_index(Q, K, V, O, sm_scale: float, G: ConstInt, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """GQA on ``[B, H, S, D]`` / ``[B, HKV, S, D]`` arrays, program ``(query tile, h, b)`` on a 3-D grid, the KV
    head ``h // G`` as the second index of a 4-D load."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = K.shape[2]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m, l, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, h // G, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < seq, s, -math.inf)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - mn)
        a = ct.exp(m - mn)
        l = l * a + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h // G, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * a)
        m = mn
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_additive_mask_2d_shared(Q, K, V, O, Mask, sm_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """An additive float mask ``[Sq, Sk]`` shared by every head (HF's ``attention_mask`` expanded to scores), its
    ``(BM, BN)`` tile loaded in the key loop with ``-inf`` padding and added to the scaled scores."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m, l, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = s + ct.load(Mask, index=(qt, j), shape=(BM, BN), padding_mode=ct.PaddingMode.NEG_INF)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - mn)
        a = ct.exp(m - mn)
        l = l * a + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * a)
        m = mn
    ct.store(O, index=(bh, qt, 0), tile=(acc / l).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_decode_16_query_rows(Q, K, V, O, sm_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Decoding with a few queries: 16-row query tiles (``BM = 16``) over 170 cached keys, 8 heads."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m, l, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < seq, s, -math.inf)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - mn)
        a = ct.exp(m - mn)
        l = l * a + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * a)
        m = mn
    ct.store(O, index=(bh, qt, 0), tile=(acc / l).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bool_key_padding_mask(Q, K, V, O, Keep, sm_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Key padding from a bool ``[BH, Sk]`` keep-mask loaded as a ``(1, BN)`` tile each step (padding lanes
    ``False``), masked keys set to ``-1e30``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m, l, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        keep = ct.load(Keep, index=(bh, j), shape=(1, BN), padding_mode=ZERO)
        s = ct.where(keep, s, -1.0e30)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - mn)
        a = ct.exp(m - mn)
        l = l * a + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * a)
        m = mn
    ct.store(O, index=(bh, qt, 0), tile=(acc / l).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_reverse_key_loop(Q, K, V, O, sm_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Causal attention whose key loop walks the tiles from the diagonal down to 0 (``j = n - 1 - t``)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m, l, acc = _state(BM, D)
    n = ct.cdiv(min((qt + 1) * BM, seq), BN)
    for t in range(n):
        j = n - 1 - t
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        mn = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - mn)
        a = ct.exp(m - mn)
        l = l * a + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * a)
        m = mn
    ct.store(O, index=(bh, qt, 0), tile=(acc / l).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def mlp_two_dots_relu_chain(X, W1, W2, Y, BM: ConstInt, BH: ConstInt, D: ConstInt):
    """A transformer MLP as two chained dots: for each hidden tile ``j``, ``h = relu(x @ W1[:, j])`` (f32, cast to
    f16) and ``y += h @ W2[j, :]``; X ``[M, D]``, W1 ``[D, F]``, W2 ``[F, D]``, f16 in, f32 out."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(BM, D), padding_mode=ZERO)
    y = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(W1.shape[1], BH)):
        w1 = ct.load(W1, index=(0, j), shape=(D, BH), padding_mode=ZERO)
        h = ct.maximum(ct.mma(x, w1, ct.zeros((BM, BH), dtype=ct.float32)), 0.0)
        w2 = ct.load(W2, index=(j, 0), shape=(BH, D), padding_mode=ZERO)
        y = ct.mma(h.astype(ct.float16), w2, y)
    ct.store(Y, index=(bm, 0), tile=y)


@ct.kernel
def attn_one_key_tile_d_equals_bn(Q, K, V, O, sm_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Attention over a short key sequence (Sk = 60 <= BN, a ViT window / a short decoder prompt) written without a
    loop: one K and V tile, ``softmax`` as ``exp(s - max) / sum``, then ``P V``; head dim 64 = the key tile's width.
    Found by this sweep: refused by the tensor-core tier ("this dot is not in a loop", the SIMT path's mma.sync)
    because loopless_chain could not tell the K / V tiles' key dimension from the head dimension (both 64 at
    index 0); now traced from the dots, a key loop of one trip on the chained kernel."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    v = ct.load(V, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
    s = ct.where(ct.arange(BN, dtype=ct.int32)[None, :] < K.shape[1], s, -math.inf)
    p = ct.exp(s - ct.max(s, axis=1, keepdims=True))
    p = p / ct.sum(p, axis=1, keepdims=True)
    o = ct.mma(p.astype(ct.float16), v, ct.zeros((BM, D), dtype=ct.float32))
    ct.store(O, index=(bh, qt, 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_one_key_tile_k_through_order(Q, K, V, O, sm_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The one-key-tile attention with K read as a ``(D, BN)`` tile through ``order=(0, 2, 1)`` (no
    ``ct.transpose``), the row sum divided after ``P V``; head dim 64 = the key tile's width (chained since this
    sweep's loopless_chain fix, like :func:`attn_one_key_tile_d_equals_bn`)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    kt = ct.load(K, index=(bh, 0, 0), shape=(1, D, BN), order=(0, 2, 1), padding_mode=ZERO).reshape((D, BN))
    v = ct.load(V, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
    s = ct.where(ct.arange(BN, dtype=ct.int32)[None, :] < K.shape[1], s, -math.inf)
    p = ct.exp(s - ct.max(s, axis=1, keepdims=True))
    o = ct.mma(p.astype(ct.float16), v, ct.zeros((BM, D), dtype=ct.float32)) / ct.sum(p, axis=1, keepdims=True)
    ct.store(O, index=(bh, qt, 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- GEMM epilogues


@ct.kernel
def gemm_bias_tanh_gelu_bf16(A, Bm, Bias, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``gelu_tanh(A B + bias)`` (GPT-2's MLP up-projection), the bias a ``[N]`` f32 row; bf16 in and out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    x = acc + ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)[None, :]
    y = 0.5 * x * (1.0 + ct.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    ct.store(C, index=(bm, bn), tile=y.astype(C.dtype))


@ct.kernel
def gemm_residual_row_col_scales(A, Bm, R, Sr, Sc, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C = (A B) * sr[:, None] * sc[None, :] + R`` with f16 operands and residual, f32 scales, f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    sr = ct.load(Sr, index=(bm,), shape=(TM,), padding_mode=ZERO)
    sc = ct.load(Sc, index=(bn,), shape=(TN,), padding_mode=ZERO)
    r = ct.load(R, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO).astype(ct.float32)
    ct.store(C, index=(bm, bn), tile=(acc * sr[:, None] * sc[None, :] + r).astype(C.dtype))


@ct.kernel
def gemm_clamp_then_f16(A, Bm, C, lo: float, hi: float, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A clamped output (``torch.clamp(A @ B, lo, hi)``) by ``ct.minimum(ct.maximum(...))`` of runtime bounds, cast
    to f16; bf16 in."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=ct.minimum(ct.maximum(acc, lo), hi).astype(ct.float16))


@ct.kernel
def gemm_alpha_beta_runtime_scalars(A, Bm, Cin, C, alpha: float, beta: float, TM: ConstInt, TN: ConstInt,
                                    TK: ConstInt):
    """BLAS ``C = alpha A B + beta Cin`` with runtime ``alpha`` / ``beta``, the GEMM in f16, Cin and C f32."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    c = ct.load(Cin, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=alpha * acc + beta * c)


@ct.kernel
def gemm_batched_3d_leading_unit(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Batched GEMM on ``[Bt, M, K] x [Bt, K, N]``: tiles loaded ``(1, TM, TK)`` and reshaped, the batch on grid
    axis 2; f16 in, f32 out."""
    bm, bn, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(z, bm, k), shape=(1, TM, TK), padding_mode=ZERO).reshape((TM, TK))
        b = ct.load(Bm, index=(z, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(z, bm, bn), tile=acc.reshape((1, TM, TN)))


@ct.kernel
def gemm_both_operands_transposed(At, Bt, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C = A^T B^T`` with A stored ``[K, M]`` and B ``[N, K]``: both tiles loaded in their storage layout and
    given to ``ct.mma`` through ``ct.transpose``; bf16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(At.shape[0], TK)):
        a = ct.load(At, index=(k, bm), shape=(TK, TM), padding_mode=ZERO)
        b = ct.load(Bt, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(ct.transpose(a), ct.transpose(b), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_bias_then_transposed_bf16_store(A, Bm, Bias, Ct, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The output written column-major with a bias: ``Ct[N, M] = (A B + bias[None, :])^T`` by storing
    ``ct.transpose(...)`` cast to bf16 after the transpose at ``(bn, bm)``; f16 in."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Ct, index=(bn, bm),
             tile=ct.transpose(acc + ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)[None, :])
             .astype(ct.bfloat16))


@ct.kernel
def gemm_swish_by_exp_f16_out(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """SiLU written out: ``x / (1 + exp(-x))`` of the accumulator, f16 in and out, ``acc`` by ``@`` into f32
    (``acc = ct.mma(...)``) with K = 96 (three tiles of 32)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=(acc / (1.0 + ct.exp(-acc))).astype(ct.float16))


@ct.kernel
def int8_gemm_bias_int32_out(A, Bm, Bias, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """int8 x int8 -> int32 plus an int32 bias row (a quantized linear's bias in the accumulator's scale)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc + ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)[None, :])


@ct.kernel
def gemm_accumulate_into_c_in_place(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C += A B`` in place: the accumulator starts as C's tile (``beta = 1``), f16 operands, f32 C."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.load(C, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_a_3d_unit_middle_dim(X, W, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A per-head projection of ``x[M, H, K]`` (heads in the middle, as ``[B S, H, D]`` arrives): head
    ``bid(2)``'s A tile loaded ``(TM, 1, TK)`` and reshaped to ``(TM, TK)``; f16 in, f32 out ``[H, M, N]``."""
    bm, bn, h = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, h, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        b = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(h, bm, bn), tile=acc.reshape((1, TM, TN)))


@ct.kernel
def gemm_row_softmax_probs_per_tile_f16(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Logits then a softmax over each output tile's columns (a local softmax: N = TN), f16 out; ``ct.exp`` of
    ``x - max``."""
    bm = ct.bid(0)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, 0), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    e = ct.exp(acc - ct.max(acc, axis=1, keepdims=True))
    ct.store(C, index=(bm, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(ct.float16))


# ----------------------------------------------------------------------------------------------- memory-bound


@ct.kernel
def layernorm_two_pass_weight_bias(X, Wt, Bs, Y, eps: float, TC: ConstInt):
    """LayerNorm of one row per program (N = 100 in a tile of 128): the mean, then the variance of the centred
    values (the padding lanes zeroed by ``where``), ``(x - mean) rsqrt(var + eps) w + b``; f16 in and out, f32
    weight and bias."""
    i = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(i, 0), shape=(1, TC), padding_mode=ZERO).astype(ct.float32)
    inside = ct.arange(TC, dtype=ct.int32)[None, :] < n
    mean = ct.sum(x, axis=1, keepdims=True) / n
    xc = ct.where(inside, x - mean, 0.0)
    var = ct.sum(xc * xc, axis=1, keepdims=True) / n
    w = ct.load(Wt, index=(0,), shape=(TC,), padding_mode=ZERO)[None, :]
    b = ct.load(Bs, index=(0,), shape=(TC,), padding_mode=ZERO)[None, :]
    ct.store(Y, index=(i, 0), tile=(xc * ct.rsqrt(var + eps) * w + b).astype(Y.dtype))


@ct.kernel
def rmsnorm_bf16_weight_plus_one(X, Wt, Y, eps: float, TC: ConstInt):
    """Gemma's RMSNorm: ``x rsqrt(mean(x^2) + eps) (1 + w)`` in f32 from bf16 rows, bf16 out; 2 rows a program."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(2, TC), padding_mode=ZERO).astype(ct.float32)
    ms = ct.sum(x * x, axis=1, keepdims=True) / X.shape[1]
    w = ct.load(Wt, index=(0,), shape=(TC,), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(i, 0), tile=(x * ct.rsqrt(ms + eps) * (1.0 + w[None, :])).astype(ct.bfloat16))


@ct.kernel
def softmax_down_columns_axis0(X, Y, TR: ConstInt, TC: ConstInt):
    """A softmax over axis 0 (each column of ``[R, C]`` normalised over its rows), R = 50 in a tile of 64 padded
    with ``-inf``, a column block per program."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(TR, TC), padding_mode=NEG_INF)
    e = ct.exp(x - ct.max(x, axis=0, keepdims=True))
    ct.store(Y, index=(0, j), tile=e / ct.sum(e, axis=0, keepdims=True))


@ct.kernel
def softmax_axis0_through_order_views(X, Y, TR: ConstInt, TC: ConstInt):
    """A softmax down each column of ``[R, C]`` written through transposing views: the tile loaded ``(TC, TR)`` with
    ``order=(1, 0)`` (columns as rows), normalised along axis 1, stored back through ``order=(1, 0)``; R = 50 in a
    tile of 64 padded with ``-inf``."""
    j = ct.bid(0)
    x = ct.load(X, index=(j, 0), shape=(TC, TR), order=(1, 0), padding_mode=NEG_INF)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(j, 0), tile=e / ct.sum(e, axis=1, keepdims=True), order=(1, 0))


@ct.kernel
def column_sums_by_atomic_add_row_blocks(X, S, TR: ConstInt, TC: ConstInt):
    """Column sums of ``[R, C]`` by row blocks: program ``(row block, column block)`` sums its ``(TR, TC)`` tile
    along axis 0 and adds it to ``S[C]`` with ``ct.atomic_add`` of the column indices (ragged columns masked by
    the index bound)."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(TR, TC), padding_mode=ZERO)
    cols = j * TC + ct.arange(TC, dtype=ct.int32)
    ct.atomic_add(S, cols, ct.sum(x, axis=0), check_bounds=True)


@ct.kernel
def argmax_rows_with_ties_first_index(X, Arg, Mx, TC: ConstInt):
    """Row argmax over integer-valued f32 rows full of ties (the first index wins, as torch.argmax), also the
    max; N = 40 padded with ``-inf``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(1, TC), padding_mode=NEG_INF)
    ct.store(Arg, index=(i,), tile=ct.argmax(x, axis=1).astype(ct.int32))
    ct.store(Mx, index=(i,), tile=ct.max(x, axis=1))


@ct.kernel
def cumsum_int64_rows_of_int32(X, Y, TC: ConstInt):
    """Prefix sums of int32 token counts along each row in int64 (``x.astype(int64)`` first), 2 rows a program."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(2, TC), padding_mode=ZERO)
    ct.store(Y, index=(i, 0), tile=ct.cumsum(x.astype(ct.int64), axis=1))


@ct.kernel
def embedding_gather_padding_idx(Ids, Emb, Y, pad: int, BT: ConstInt, D: ConstInt):
    """An embedding lookup ``Y[t, :] = Emb[ids[t], :]`` by a 2-D ``ct.gather`` of (token row, column), rows whose
    id is ``pad`` (or past the table) read as zeros through ``mask=``; f16 table, f32 out."""
    t = ct.bid(0)
    ids = ct.load(Ids, index=(t,), shape=(BT,), padding_mode=ZERO)
    cols = ct.arange(D, dtype=ct.int32)
    keep = (ids != pad) & (ids < Emb.shape[0])
    e = ct.gather(Emb, (ids[:, None], cols[None, :]), mask=keep[:, None] & (cols[None, :] < Emb.shape[1]),
                  padding_value=0.0)
    ct.store(Y, index=(t, 0), tile=e.astype(ct.float32))


@ct.kernel
def masked_scatter_positive_to_slots(X, Slot, Y, BN: ConstInt):
    """``Y[slot[i]] = x[i]`` only where ``x[i] > 0`` (a compaction whose slots a prefix sum computed beforehand):
    ``ct.scatter`` with ``mask=``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    s = ct.load(Slot, index=(i,), shape=(BN,), padding_mode=ZERO)
    inside = i * BN + ct.arange(BN, dtype=ct.int32) < X.shape[0]
    ct.scatter(Y, s, x, mask=(x > 0.0) & inside)


@ct.kernel
def histogram_atomic_bins_int32(X, Hist, lo: float, width: float, NB: ConstInt, BN: ConstInt):
    """A 16-bin histogram of f32 values: ``bin = clamp(floor((x - lo) / width), 0, NB - 1)``, counted by
    ``ct.atomic_add`` of ones into an int32 array; ragged lanes masked by ``where`` to an out-of-range bin, which
    ``check_bounds`` drops."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.minimum(ct.maximum(ct.floor((x - lo) / width), 0.0), NB - 1.0).astype(ct.int32)
    inside = i * BN + ct.arange(BN, dtype=ct.int32) < X.shape[0]
    ct.atomic_add(Hist, ct.where(inside, b, NB + 100), ct.ones((BN,), dtype=ct.int32), check_bounds=True)


@ct.kernel
def tile_3d_bias_gelu_erf_free(X, Bias, Y, TB: ConstInt, TR: ConstInt, TC: ConstInt):
    """A 3-D ``(TB, TR, TC)`` tile of ``[B, S, C]`` plus a per-channel bias broadcast ``[None, None, :]``, through
    a sigmoid-approximated GELU ``x sigmoid(1.702 x)``; ragged in every dim."""
    b, s = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(b, s, 0), shape=(TB, TR, TC), padding_mode=ZERO)
    bias = ct.load(Bias, index=(0,), shape=(TC,), padding_mode=ZERO)
    x = x + bias[None, None, :]
    ct.store(Y, index=(b, s, 0), tile=x / (1.0 + ct.exp(-1.702 * x)))


@ct.kernel
def int8_quantize_per_row_absmax(X, Q, Scale, TC: ConstInt):
    """Per-token int8 quantization: ``scale = absmax / 127`` (1 where a row is zero), ``q = round(x / scale)`` by
    ``floor(v + 0.5)`` and a clamp, int8 out, the scale f32."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(1, TC), padding_mode=ZERO)
    amax = ct.max(ct.abs(x), axis=1, keepdims=True)
    scale = ct.where(amax > 0.0, amax / 127.0, 1.0)
    q = ct.minimum(ct.maximum(ct.floor(x / scale + 0.5), -127.0), 127.0)
    ct.store(Q, index=(i, 0), tile=q.astype(ct.int8))
    ct.store(Scale, index=(i,), tile=scale.reshape((1,)))


@ct.kernel
def bool_mask_and_count_true(X, Thr, M, Cnt, BN: ConstInt):
    """A bool mask ``x > thr[i]`` stored as bool elements, and the number of trues per block (int32) from the
    bool tile's ``astype``; the threshold per program from an array."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    t = ct.gather(Thr, i)
    mk = x > t
    inside = i * BN + ct.arange(BN, dtype=ct.int32) < X.shape[0]
    ct.store(M, index=(i,), tile=mk)
    ct.store(Cnt, index=(i,), tile=ct.sum((mk & inside).astype(ct.int32), axis=0, keepdims=True))


@ct.kernel
def fp8_e4m3_dequant_rows_to_bf16(Q, Scale, Y, TC: ConstInt):
    """fp8 e4m3 rows times a per-row f32 scale into bf16 (a KV cache's dequantization), 4 rows a program."""
    i = ct.bid(0)
    q = ct.load(Q, index=(i, 0), shape=(4, TC), padding_mode=ZERO).astype(ct.float32)
    s = ct.load(Scale, index=(i,), shape=(4,), padding_mode=ZERO)
    ct.store(Y, index=(i, 0), tile=(q * s[:, None]).astype(ct.bfloat16))


@ct.kernel
def logsumexp_rows_online_over_column_tiles(X, L, TC: ConstInt):
    """A row's log-sum-exp over C = 300 in a loop of column tiles of 128 (an online max and rescaled sum, the
    ragged tile padded with ``-inf``), natural log."""
    i = ct.bid(0)
    m = ct.full((1, 1), -math.inf, dtype=ct.float32)
    s = ct.zeros((1, 1), dtype=ct.float32)
    for j in range(ct.cdiv(X.shape[1], TC)):
        x = ct.load(X, index=(i, j), shape=(1, TC), padding_mode=NEG_INF)
        m_new = ct.maximum(m, ct.max(x, axis=1, keepdims=True))
        s = s * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new), axis=1, keepdims=True)
        m = m_new
    ct.store(L, index=(i,), tile=(m + ct.log(s)).reshape((1,)))


@ct.kernel
def cross_entropy_rows_target_gather(Logits, Target, Loss, TC: ConstInt):
    """Per-row cross entropy ``logsumexp(x) - x[target]``, the target logit read by ``ct.gather`` of (row,
    target), ignore index -100 giving a loss of 0; V = 100 in a tile of 128, bf16 logits, f32 loss."""
    i = ct.bid(0)
    x = ct.load(Logits, index=(i, 0), shape=(1, TC), padding_mode=NEG_INF).astype(ct.float32)
    m = ct.max(x, axis=1)
    lse = m + ct.log(ct.sum(ct.exp(x - m[:, None]), axis=1))
    t = ct.gather(Target, i)
    xt = ct.gather(Logits, (i, ct.maximum(t, 0))).astype(ct.float32)
    ct.store(Loss, index=(i,), tile=ct.where(t == -100, 0.0, lse - xt))


@ct.kernel
def uint8_image_normalize_to_f16(X, Mean, Std, Y, TC: ConstInt):
    """Image preprocessing: uint8 pixels ``[R, C, 3]`` to ``(x / 255 - mean[c]) / std[c]`` in f16 (a 3-D tile
    with the channel last, a row per program)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0, 0), shape=(1, TC, 4), padding_mode=ZERO).astype(ct.float32)
    mu = ct.load(Mean, index=(0,), shape=(4,), padding_mode=ZERO)[None, None, :]
    sd = ct.load(Std, index=(0,), shape=(4,), padding_mode=ZERO)[None, None, :]
    sd = ct.where(sd == 0.0, 1.0, sd)
    ct.store(Y, index=(r, 0, 0), tile=((x / 255.0 - mu) / sd).astype(ct.float16))


@ct.kernel
def rope_half_split_two_loads(X, Cos, Sin, Y, H: ConstInt):
    """Rotary embedding (the half-split form) on ``[B, S, D]`` bf16: the two halves of a row loaded as column tiles
    0 and 1 of width ``D / 2``, rotated by f32 ``cos`` / ``sin`` tables ``[S, D / 2]``, stored back as two tiles."""
    s, b = ct.bid(0), ct.bid(1)
    x1 = ct.load(X, index=(b, s, 0), shape=(1, 1, H), padding_mode=ZERO).reshape((1, H)).astype(ct.float32)
    x2 = ct.load(X, index=(b, s, 1), shape=(1, 1, H), padding_mode=ZERO).reshape((1, H)).astype(ct.float32)
    c = ct.load(Cos, index=(s, 0), shape=(1, H), padding_mode=ZERO)
    sn = ct.load(Sin, index=(s, 0), shape=(1, H), padding_mode=ZERO)
    ct.store(Y, index=(b, s, 0), tile=(x1 * c - x2 * sn).astype(ct.bfloat16).reshape((1, 1, H)))
    ct.store(Y, index=(b, s, 1), tile=(x2 * c + x1 * sn).astype(ct.bfloat16).reshape((1, 1, H)))


@ct.kernel
def swiglu_rows_bf16(G, U, Y, TC: ConstInt):
    """SwiGLU's elementwise half: ``silu(g) u`` of bf16 rows (N = 100 in a tile of 128) computed in f32."""
    i = ct.bid(0)
    g = ct.load(G, index=(i, 0), shape=(1, TC), padding_mode=ZERO).astype(ct.float32)
    u = ct.load(U, index=(i, 0), shape=(1, TC), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(i, 0), tile=(g / (1.0 + ct.exp(-g)) * u).astype(ct.bfloat16))


@ct.kernel
def running_max_cummax_by_scan_free_loop(X, Y, BN: ConstInt):
    """A row's running maximum without a scan op: ``y[i] = max(x[:i + 1])`` by a loop of 16-wide tiles, the carry
    the previous tile's last maximum broadcast, each tile's own prefix maxima by a ``where`` over a lower-
    triangular ``(16, 16)`` comparison."""
    r = ct.bid(0)
    carry = ct.full((1,), -math.inf, dtype=ct.float32)
    idx = ct.arange(BN, dtype=ct.int32)
    tri = idx[None, :] <= idx[:, None]
    for j in range(ct.cdiv(X.shape[1], BN)):
        x = ct.load(X, index=(r, j), shape=(1, BN), padding_mode=NEG_INF).reshape((BN,))
        pm = ct.max(ct.where(tri, x[None, :], -math.inf), axis=1)
        y = ct.maximum(pm, carry)
        ct.store(Y, index=(r, j), tile=y.reshape((1, BN)))
        carry = ct.max(y, axis=0, keepdims=True)


# ----------------------------------------------------------------------------------------------- the table


def _bhsd(bh, sq, sk, d, dt=F16, o_dt=None):
    return [_a((bh, sq, d), dt), _a((bh, sk, d), dt), _a((bh, sk, d), dt), _a((bh, sq, d), o_dt or dt)]


def _grid(sq, bm, bh):
    return (-(-sq // bm), bh)


LOG2 = 1.4426950408889634


def scale2(d):
    """``log2 e / sqrt(d)``: the scores' scale in log2 units."""
    return LOG2 / math.sqrt(d)


_add("attn_natural_exp_max_subtracted", attn_natural_exp_max_subtracted,
     _bhsd(2, 150, 150, 64) + [1 / 8.0, 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_causal_full_loop_where", attn_causal_full_loop_where,
     _bhsd(2, 150, 150, 64) + [scale2(64), 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_causal_additive_bias", attn_causal_additive_bias,
     _bhsd(2, 150, 150, 64, BF16) + [scale2(64), 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_sliding_window_left", attn_sliding_window_left,
     _bhsd(2, 300, 300, 64) + [scale2(64), 100, 64, 64, 64], _grid(300, 64, 2), "chained", outputs=(3,))
_add("attn_alibi_slopes_from_array", attn_alibi_slopes_from_array,
     _bhsd(4, 150, 150, 64)[:3] + [_a((2,)), _a((4, 150, 64), F16), scale2(64), 2, 64, 64, 64], _grid(150, 64, 4),
     "chained", outputs=(4,))
_add("attn_relative_bias_tile_from_memory", attn_relative_bias_tile_from_memory,
     _bhsd(4, 150, 170, 64)[:3] + [_a((2, 150, 170)), _a((4, 150, 64), F16), scale2(64), 2, 64, 64, 64],
     _grid(150, 64, 4), "chained", outputs=(4,))
_add("attn_tanh_softcap", attn_tanh_softcap,
     _bhsd(2, 150, 150, 64) + [1 / 8.0, 5.0, 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_gqa_kv_head_by_division", attn_gqa_kv_head_by_division,
     [_a((8, 150, 64), F16), _a((4, 150, 64), F16), _a((4, 150, 64), F16), _a((8, 150, 64), F16), scale2(64), 4, 2,
      64, 64, 64], _grid(150, 64, 8), "chained", outputs=(3,))
_add("attn_mqa_shared_kv_2d", attn_mqa_shared_kv_2d,
     [_a((2, 3, 150, 64), F16), _a((2, 150, 64), F16), _a((2, 150, 64), F16), _a((2, 3, 150, 64)), scale2(64), 3,
      64, 64, 64], _grid(150, 64, 6), "chained", outputs=(3,))
_add("attn_cross_d128_lse_bf16", attn_cross_d128_lse_bf16,
     _bhsd(2, 100, 170, 128, BF16) + [_a((2, 100)), scale2(128), 64, 64, 128], _grid(100, 64, 2), "chained",
     outputs=(3, 4))
_add("attn_varlen_start_and_length_arrays", attn_varlen_start_and_length_arrays,
     [_a((2, 384, 64), F16)] * 3 + [_a((3,), I32), _a((3,), I32), _a((2, 384, 64), F16), scale2(64), 64, 64, 64],
     (2, 2, 3), "chained", outputs=(5,))
_add("attn_d256_f32_out", attn_d256_f32_out,
     _bhsd(2, 100, 100, 256, F16, F32) + [scale2(256), 64, 32, 256], _grid(100, 64, 2), "chained", outputs=(3,))
_add("attn_softmax_by_division_after_loop_1d_state", attn_softmax_by_division_after_loop_1d_state,
     _bhsd(2, 150, 170, 64) + [scale2(64), 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_one_key_tile_d_equals_bn", attn_one_key_tile_d_equals_bn,
     _bhsd(4, 150, 60, 64) + [1 / 8.0, 64, 64, 64], _grid(150, 64, 4), "chained", outputs=(3,))
_add("attn_pv_into_zeros_then_added", attn_pv_into_zeros_then_added, _bhsd(2, 150, 170, 64) + [0.125, 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_mask_probs_after_exp", attn_mask_probs_after_exp, _bhsd(2, 150, 170, 64) + [0.125, 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_gqa_4d_kv_head_index", attn_gqa_4d_kv_head_index,
     [_a((2, 2, 150, 64), F16), _a((2, 1, 170, 64), F16), _a((2, 1, 170, 64), F16), _a((2, 2, 150, 64), F16), 0.125, 2,
      64, 64, 64], (3, 2, 2), "chained", outputs=(3,))
_add("attn_additive_mask_2d_shared", attn_additive_mask_2d_shared,
     _bhsd(2, 150, 170, 64) + [_a((150, 170)), 0.125, 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_decode_16_query_rows", attn_decode_16_query_rows, _bhsd(8, 16, 170, 64) + [0.125, 16, 64, 64],
     _grid(16, 16, 8), "chained", outputs=(3,))
_add("attn_bool_key_padding_mask", attn_bool_key_padding_mask,
     _bhsd(2, 150, 170, 64) + [_a((2, 170), B), 0.125, 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_causal_reverse_key_loop", attn_causal_reverse_key_loop, _bhsd(2, 150, 150, 64) + [0.125, 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_one_key_tile_k_through_order", attn_one_key_tile_k_through_order,
     _bhsd(4, 150, 60, 64) + [1 / 8.0, 64, 64, 64], _grid(150, 64, 4), "chained", outputs=(3,))
_add("mlp_two_dots_relu_chain", mlp_two_dots_relu_chain,
     [_a((150, 64), F16), _a((64, 256), F16), _a((256, 64), F16), _a((150, 64)), 64, 64, 64], (3,), "chained",
     outputs=(3,))

_add("gemm_bias_tanh_gelu_bf16", gemm_bias_tanh_gelu_bf16,
     [_a((100, 64), BF16), _a((64, 80), BF16), _a((80,)), _a((100, 80), BF16), 64, 64, 32], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_residual_row_col_scales", gemm_residual_row_col_scales,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80), F16), _a((100,)), _a((80,)), _a((100, 80), F16), 64, 64,
      32], (2, 2), "gemm", outputs=(5,))
_add("gemm_clamp_then_f16", gemm_clamp_then_f16,
     [_a((100, 64), BF16), _a((64, 80), BF16), _a((100, 80), F16), -1.5, 2.0, 64, 64, 32], (2, 2), "gemm",
     outputs=(2,))
_add("gemm_alpha_beta_runtime_scalars", gemm_alpha_beta_runtime_scalars,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), _a((100, 80)), 0.5, -2.0, 64, 64, 32], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_batched_3d_leading_unit", gemm_batched_3d_leading_unit,
     [_a((3, 100, 64), F16), _a((3, 64, 80), F16), _a((3, 100, 80)), 64, 64, 32], (2, 2, 3), "gemm", outputs=(2,))
_add("gemm_both_operands_transposed", gemm_both_operands_transposed,
     [_a((64, 100), BF16), _a((80, 64), BF16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_bias_then_transposed_bf16_store", gemm_bias_then_transposed_bf16_store,
     [_a((100, 64), F16), _a((64, 80), F16), _a((80,)), _a((80, 100), BF16), 64, 64, 32], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_swish_by_exp_f16_out", gemm_swish_by_exp_f16_out,
     [_a((100, 96), F16), _a((96, 80), F16), _a((100, 80), F16), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("int8_gemm_bias_int32_out", int8_gemm_bias_int32_out,
     [_a((100, 128), I8), _a((128, 80), I8), _a((80,), I32), _a((100, 80), I32), 64, 64, 64], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_accumulate_into_c_in_place", gemm_accumulate_into_c_in_place,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_a_3d_unit_middle_dim", gemm_a_3d_unit_middle_dim,
     [_a((100, 3, 64), F16), _a((64, 80), F16), _a((3, 100, 80)), 64, 64, 32], (2, 2, 3), "gemm", outputs=(2,),
     notes="session 40: the tier takes A batched in its middle dimension (GemmConfig.batch_mid)")
_add("gemm_row_softmax_probs_per_tile_f16", gemm_row_softmax_probs_per_tile_f16,
     [_a((100, 64), F16), _a((64, 64), F16), _a((100, 64), F16), 64, 64, 32], (2,), "gemm", outputs=(2,))

_add("layernorm_two_pass_weight_bias", layernorm_two_pass_weight_bias,
     [_a((6, 100), F16), _a((100,)), _a((100,)), _a((6, 100), F16), 1e-5, 128], (6,), "simt", outputs=(3,))
_add("rmsnorm_bf16_weight_plus_one", rmsnorm_bf16_weight_plus_one,
     [_a((6, 100), BF16), _a((100,), BF16), _a((6, 100), BF16), 1e-6, 128], (3,), "simt", outputs=(2,))
_add("softmax_down_columns_axis0", softmax_down_columns_axis0, [_a((50, 70)), _a((50, 70)), 64, 32], (3,), "simt",
     outputs=(1,))
_add("softmax_axis0_through_order_views", softmax_axis0_through_order_views, [_a((50, 70)), _a((50, 70)), 64, 32],
     (3,), "simt", outputs=(1,))
_add("column_sums_by_atomic_add_row_blocks", column_sums_by_atomic_add_row_blocks,
     [_a((50, 70)), _a((70,)), 16, 32], (4, 3), "simt", outputs=(1,))
_add("argmax_rows_with_ties_first_index", argmax_rows_with_ties_first_index,
     [_a((5, 40)), _a((5,), I32), _a((5,)), 64], (5,), "simt", outputs=(1, 2))
_add("cumsum_int64_rows_of_int32", cumsum_int64_rows_of_int32, [_a((6, 50), I32), _a((6, 50), I64), 64], (3,),
     "simt", outputs=(1,))
_add("embedding_gather_padding_idx", embedding_gather_padding_idx,
     [_a((40,), I32), _a((30, 48), F16), _a((40, 64)), 0, 16, 64], (3,), "simt", outputs=(2,))
_add("masked_scatter_positive_to_slots", masked_scatter_positive_to_slots,
     [_a((100,)), _a((100,), I32), _a((100,)), 64], (2,), "simt", outputs=(2,))
_add("histogram_atomic_bins_int32", histogram_atomic_bins_int32,
     [_a((200,)), _a((16,), I32), -2.0, 0.25, 16, 64], (4,), "simt", outputs=(1,))
_add("tile_3d_bias_gelu_erf_free", tile_3d_bias_gelu_erf_free,
     [_a((3, 10, 20)), _a((20,)), _a((3, 10, 20)), 2, 8, 32], (2, 2), "simt", outputs=(2,))
_add("int8_quantize_per_row_absmax", int8_quantize_per_row_absmax,
     [_a((5, 100)), _a((5, 100), I8), _a((5,)), 128], (5,), "simt", outputs=(1, 2))
_add("bool_mask_and_count_true", bool_mask_and_count_true,
     [_a((100,)), _a((2,)), _a((100,), B), _a((2,), I32), 64], (2,), "simt", outputs=(2, 3))
_add("fp8_e4m3_dequant_rows_to_bf16", fp8_e4m3_dequant_rows_to_bf16,
     [_a((10, 48), E4M3), _a((10,)), _a((10, 48), BF16), 64], (3,), "simt", outputs=(2,))
_add("logsumexp_rows_online_over_column_tiles", logsumexp_rows_online_over_column_tiles,
     [_a((4, 300)), _a((4,)), 128], (4,), "simt", outputs=(1,))
_add("cross_entropy_rows_target_gather", cross_entropy_rows_target_gather,
     [_a((6, 100), BF16), _a((6,), I32), _a((6,)), 128], (6,), "simt", outputs=(2,))
_add("uint8_image_normalize_to_f16", uint8_image_normalize_to_f16,
     [_a((5, 20, 3), U8), _a((3,)), _a((3,)), _a((5, 20, 3), F16), 32], (5,), "simt", outputs=(3,))
_add("rope_half_split_two_loads", rope_half_split_two_loads,
     [_a((2, 50, 64), BF16), _a((50, 32)), _a((50, 32)), _a((2, 50, 64), BF16), 32], (50, 2), "simt", outputs=(3,))
_add("swiglu_rows_bf16", swiglu_rows_bf16, [_a((6, 100), BF16), _a((6, 100), BF16), _a((6, 100), BF16), 128], (6,),
     "simt", outputs=(2,))
_add("running_max_cummax_by_scan_free_loop", running_max_cummax_by_scan_free_loop,
     [_a((3, 50)), _a((3, 50)), 16], (3,), "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- rejected by cuTile


@ct.kernel
def attn_q_f16_times_k_bf16(Q, K, O, qk_scale: float, BM: ConstInt, D: ConstInt):
    """Scores of an f16 Q against a bf16 K cache (a mixed-precision port)."""
    q = ct.load(Q, index=(ct.bid(1), ct.bid(0), 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(ct.bid(1), 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BM), dtype=ct.float32)) * qk_scale
    ct.store(O, index=(ct.bid(1), ct.bid(0), 0), tile=s.astype(O.dtype).reshape((1, BM, BM)))


@ct.kernel
def attn_p_kept_f32_for_the_pv_dot(Q, K, V, O, BM: ConstInt, D: ConstInt):
    """The probabilities given to the ``P V`` dot in f32, without the cast to V's dtype."""
    q = ct.load(Q, index=(ct.bid(1), ct.bid(0), 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(ct.bid(1), 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    v = ct.load(V, index=(ct.bid(1), 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    p = ct.exp(ct.mma(q, ct.transpose(k), ct.zeros((BM, BM), dtype=ct.float32)))
    o = ct.mma(p, v, ct.zeros((BM, D), dtype=ct.float32))
    ct.store(O, index=(ct.bid(1), ct.bid(0), 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_q_loaded_2d_from_bhsd(Q, O, BM: ConstInt, D: ConstInt):
    """Q ``[BH, S, D]`` read with a 2-D index and shape (the head index forgotten)."""
    q = ct.load(Q, index=(ct.bid(0), 0), shape=(BM, D), padding_mode=ZERO)
    ct.store(O, index=(ct.bid(1), ct.bid(0), 0), tile=q.reshape((1, BM, D)))


@ct.kernel
def attn_head_dim_48_tile(Q, O, BM: ConstInt, D: ConstInt):
    """Head dim 48 loaded as a tile of 48 columns (not a power of two)."""
    q = ct.load(Q, index=(ct.bid(1), ct.bid(0), 0), shape=(1, BM, D), padding_mode=ZERO)
    ct.store(O, index=(ct.bid(1), ct.bid(0), 0), tile=q)


@ct.kernel
def attn_row_max_over_axis_2(Q, O, BM: ConstInt, D: ConstInt):
    """The row max of a 2-D score tile taken over ``axis=2`` (the 3-D habit of a ``[B, H, S]`` layout)."""
    q = ct.load(Q, index=(ct.bid(1), ct.bid(0), 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.max(q, axis=2, keepdims=True)
    ct.store(O, index=(ct.bid(1), ct.bid(0), 0), tile=(q - m).reshape((1, BM, D)))


@ct.kernel
def attn_tile_of_the_sequence_length(Q, O, D: ConstInt):
    """The whole sequence loaded at once: ``shape=(1, Q.shape[1], D)`` (a runtime tile shape)."""
    q = ct.load(Q, index=(ct.bid(0), 0, 0), shape=(1, Q.shape[1], D), padding_mode=ZERO)
    ct.store(O, index=(ct.bid(0), 0, 0), tile=q)


@ct.kernel
def attn_accumulator_starts_f16(Q, O, BM: ConstInt, D: ConstInt):
    """An output accumulator started as f16 zeros and added f32 tiles in the loop."""
    acc = ct.zeros((1, BM, D), dtype=ct.float16)
    for j in range(2):
        acc = acc + ct.load(Q, index=(ct.bid(1), j, 0), shape=(1, BM, D), padding_mode=ZERO).astype(ct.float32)
    ct.store(O, index=(ct.bid(1), ct.bid(0), 0), tile=acc.astype(O.dtype))


@ct.kernel
def gemm_accumulator_of_half_width(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GEMM whose accumulator is ``(TM, TN // 2)`` (a typo in the zeros' shape)."""
    acc = ct.zeros((TM, TN // 2), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(ct.bid(0), k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc)


@ct.kernel
def layernorm_f32_stored_into_f16(X, Y, TC: ConstInt):
    """A normalised f32 row stored into an f16 output without ``astype``."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, TC), padding_mode=ZERO).astype(ct.float32)
    m = ct.sum(x, axis=1, keepdims=True) / X.shape[1]
    ct.store(Y, index=(ct.bid(0), 0), tile=x - m)


_QKV = _a((2, 128, 64), F16)
REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "attn_q_f16_times_k_bf16": (attn_q_f16_times_k_bf16, [_QKV, _a((2, 128, 64), BF16), _a((2, 128, 64), F16), 0.125,
                                                          64, 64],
                                "x and y must have the same dtype unless they are int8/uint8, got float16 bfloat16",
                                "s = ct.mma(q, ct.transpose(k)"),
    "attn_p_kept_f32_for_the_pv_dot": (attn_p_kept_f32_for_the_pv_dot, [_QKV] * 4 + [64, 64],
                                       "x and y must have the same dtype unless they are int8/uint8, got float32 "
                                       "float16", "o = ct.mma(p, v"),
    "attn_q_loaded_2d_from_bhsd": (attn_q_loaded_2d_from_bhsd, [_QKV] * 2 + [64, 64],
                                   "Index size 2 does not match the array rank 3",
                                   "q = ct.load(Q, index=(ct.bid(0), 0)"),
    "attn_head_dim_48_tile": (attn_head_dim_48_tile, [_a((2, 128, 48), F16)] * 2 + [64, 48],
                              "Dimension #2 of shape (1, 64, 48) is not a power of two", "q = ct.load(Q"),
    "attn_row_max_over_axis_2": (attn_row_max_over_axis_2, [_QKV] * 2 + [64, 64], "Axis 2 is out of range for rank 2",
                                 "m = ct.max(q, axis=2"),
    "attn_tile_of_the_sequence_length": (attn_tile_of_the_sequence_length, [_QKV] * 2 + [64],
                                         "Expected a constant integer tuple, but given value is not constant",
                                         "shape=(1, Q.shape[1], D)"),
    "attn_accumulator_starts_f16": (attn_accumulator_starts_f16, [_QKV] * 2 + [64, 64],
                                    "Type of `acc` depends on path taken", "acc = acc + ct.load("),
    "gemm_accumulator_of_half_width": (gemm_accumulator_of_half_width, [_a((128, 64), F16), _a((64, 128), F16),
                                                                        _a((128, 128)), 64, 64, 32],
                                       "Expect acc shape to be (64, 64), got (64, 32)", "acc = ct.mma(a, b, acc)"),
    "layernorm_f32_stored_into_f16": (layernorm_f32_stored_into_f16, [_a((4, 100), F16), _a((4, 100), F16), 128],
                                      "Stored tile is incompatible with array's dtype: cannot implicitly cast float32 "
                                      "to float16", "ct.store(Y"),
}
"""Programs cuTile's front end refuses at the user's line (tileorch never sees them)."""


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def row_sum_stored_into_0d_array(X, S, BN: ConstInt):
    """A block's total written into a 0-d array by ``ct.store(S, index=(), tile=...)`` (a tiled view of a 0-d
    array: not valid CUDA Tile IR; the error names ``ct.scatter``)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(S, index=(), tile=ct.sum(x, axis=0))


@ct.kernel
def loss_accumulated_with_system_scope(X, Total, BN: ConstInt):
    """A loss summed across GPUs' mapped memory: ``ct.atomic_add(..., memory_scope=ct.MemoryScope.SYS)`` of f32."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.atomic_add(Total, ct.zeros((1,), dtype=ct.int32), ct.sum(x, axis=0, keepdims=True),
                  memory_scope=ct.MemoryScope.SYS)


@ct.kernel
def exponents_to_e8m0_from_int(E, Y, BN: ConstInt):
    """MX block-scale exponents (int32) converted straight to ``ct.float8_e8m0fnu``."""
    e = ct.load(E, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=e.astype(ct.float8_e8m0fnu).astype(ct.float32))


@ct.kernel
def cumsum_rounded_toward_zero(X, Y, BN: ConstInt):
    """A prefix sum with ``rounding_mode=ct.RoundingMode.RZ`` (a truncating scan)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.cumsum(x, axis=0, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def row_product_rounded_toward_zero(X, Y, BN: ConstInt):
    """``ct.prod(x, rounding_mode=ct.RoundingMode.RZ)`` broadcast back onto the row."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.prod(x, axis=0, keepdims=True, rounding_mode=ct.RoundingMode.RZ) + x)


@ct.kernel
def fake_quantize_fp4_e2m1(X, Y, BN: ConstInt):
    """NVFP4 fake quantization: values rounded through ``ct.float4_e2m1fn`` and back."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x.astype(ct.float4_e2m1fn).astype(ct.float32))


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("row_sum_stored_into_0d_array", row_sum_stored_into_0d_array, [_a((64,)), _a(()), 64], (1,), "error",
     error="write it with ct.scatter(array, (), value)", notes="ct.store(S, index=(), tile=")
_bad("loss_accumulated_with_system_scope", loss_accumulated_with_system_scope, [_a((64,)), _a((1,)), 64], (1,),
     "error", error="a system-scope atomic_rmw", notes="ct.atomic_add(Total")
_bad("exponents_to_e8m0_from_int", exponents_to_e8m0_from_int, [_a((64,), I32), _a((64,)), 64], (1,), "error",
     error="integer to f8E8M0FNU conversion is not supported", notes="e.astype(ct.float8_e8m0fnu)")
_bad("cumsum_rounded_toward_zero", cumsum_rounded_toward_zero, [_a((64,)), _a((64,)), 64], (1,), "error",
     error="'cuda_tile.addf' with rounding<zero> is not supported yet", notes="ct.cumsum(x, axis=0")
_bad("row_product_rounded_toward_zero", row_product_rounded_toward_zero, [_a((64,)), _a((64,)), 64], (1,), "error",
     error="'cuda_tile.mulf' with rounding<zero> is not supported yet", notes="ct.prod(x, axis=0")
_bad("fake_quantize_fp4_e2m1", fake_quantize_fp4_e2m1, [_a((64,)), _a((64,)), 64], (1,), "error",
     error="element type f4E2M1FN is not supported yet", notes="x.astype(ct.float4_e2m1fn)")
