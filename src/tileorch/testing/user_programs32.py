"""The thirty-second user sweep (session 40): cuTile 1.7 programs as users write them, biased to what acceptance runs
and earlier sweeps did not write (issues 20 and 21): two-dot programs on the chained tier (ALiBi slopes computed by
``exp2`` of the head index, a relative-position bias tile loaded per key tile, sliding windows by ``where`` and by
loop bounds, softcapping ``tanh(s / c) * c`` written by hand through ``exp``, GQA with the KV head as ``h * HKV // H``
and as ``h % HKV``, cross-attention with Sq != Skv and per-batch ragged key lengths, bottom-right causal alignment,
a per-row output scale after the loop, the LSE in ``[B, H, S]`` beside O, two chained GEMMs with different N1 / N2,
f16 / bf16 mixed through casts, the batch on grid axis 2); GEMMs (a residual add from a second input, per-column
scale then fp8 with saturation, a row max written beside C, A / B transposed by ``permute`` and by ``order``, the
batch on grid axis 1 or 2, K loops by ``ct.num_tiles`` of an ``order`` view and by ``while``, an f16 accumulator,
``alpha A B + beta C`` in place, s8 x u8, TF32 by ``astype``); memory-bound programs (softmax down columns over row
tiles, a two-pass variance, argmin with ties, segmented sums by masks, int8 -> int32 sums, prefix sums down columns,
clamp / where chains, bool logic).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep32_compile.py, tests/unit/test_user_sweep32_interp.py,
tests/unit/test_user_sweep32_emulated.py, tests/unit/test_user_sweep32_invalid.py (with :data:`INVALID` and
:data:`REJECTED_BY_CUTILE`) and tests/gpu/test_user_sweep32_gpu.py.  Importing it needs ``cuda.tile``.
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
I8, I32, U8, B = "int8", "int32", "uint8", "bool_"
E4M3 = "float8_e4m3fn"
LOG2E = 1.4426950408889634


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


def scale2(d):
    """``log2 e / sqrt(d)``: the scores' scale in log2 units."""
    return LOG2E / math.sqrt(d)


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_alibi_slope_exp2_of_head(Q, K, V, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                  D: ConstInt):
    """ALiBi with the slope computed in the kernel, ``2 ** (-8 (h + 1) / H)`` by ``exp2`` of the head index, the
    bias ``slope * (k - q)`` added to the log2-unit scores; causal by ``where``; ``[B * H, S, D]`` arrays."""
    qt, bh = ct.bid(0), ct.bid(1)
    h = bh % H
    seq = K.shape[1]
    slope = ct.exp2(ct.full((1, 1), -8.0, dtype=ct.float32) * (h + 1) / H) * LOG2E
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        rel = (kpos[None, :] - qpos[:, None]).astype(ct.float32)
        s = s + slope * rel
        s = ct.where((kpos[None, :] <= qpos[:, None]) & (kpos[None, :] < seq), s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_relative_bias_tile_per_key_tile(Q, K, V, Bias, O, qk_scale: float, BM: ConstInt, BN: ConstInt,
                                         D: ConstInt):
    """A learned relative-position bias ``[Sq, Skv]`` (f32, shared by the heads) loaded as a ``(BM, BN)`` tile per
    key tile and added to the natural-unit scores (T5 style); natural ``exp``; ragged keys by ``where``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = s + ct.load(Bias, index=(qt, j), shape=(BM, BN), padding_mode=ZERO)
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        corr = ct.exp(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_sliding_window_both_bounds_in_range(Q, K, V, O, qk_scale: float, W: ConstInt, BM: ConstInt,
                                             BN: ConstInt, D: ConstInt):
    """A causal sliding window of ``W`` keys (``q - W < k <= q``) with the key loop bounded on both sides,
    ``range(lo, hi)`` from the window's first tile to the diagonal; the window edges by ``where``.  A row's first
    tile may hold none of its keys: the running max starts at a finite ``-1e30`` (not ``-inf``), so such a tile's
    ``exp2(-inf - m)`` is 0, not NaN."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    lo = max(qt * BM - W + 1, 0) // BN
    hi = ct.cdiv(min((qt + 1) * BM, seq), BN)
    for j in range(lo, hi):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        ok = (kpos[None, :] <= qpos[:, None]) & (kpos[None, :] > qpos[:, None] - W) & (kpos[None, :] < seq)
        s = ct.where(ok, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_sliding_window_symmetric_all_tiles(Q, K, V, O, qk_scale: float, W: ConstInt, BM: ConstInt, BN: ConstInt,
                                            D: ConstInt):
    """A symmetric (non-causal) local window ``|q - k| < W`` masked by ``where`` over every key tile (no loop
    bound): a row's tiles before its window are all ``-inf``, so the exponent's max is guarded FlashAttention's
    way, ``m_safe = where(m_new == -inf, 0, m_new)`` (no ``-inf - -inf`` NaN)."""
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
        dist = ct.abs(kpos[None, :] - qpos[:, None])
        s = ct.where((dist < W) & (kpos[None, :] < seq), s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        m_safe = ct.where(m_new == -math.inf, 0.0, m_new)
        p = ct.exp2(s - m_safe)
        corr = ct.exp2(m - m_safe)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_softcap_tanh_by_exp_by_hand(Q, K, V, O, sm_scale: float, cap: float, BM: ConstInt, BN: ConstInt,
                                     D: ConstInt):
    """Softcapping ``tanh(s / c) * c`` with tanh written by hand, ``1 - 2 / (exp(2 x) + 1)`` (a user avoiding an
    intrinsic), on natural-unit scores; ``exp``; ragged keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        x = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * (sm_scale / cap)
        s = (1.0 - 2.0 / (ct.exp(2.0 * x) + 1.0)) * cap
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        corr = ct.exp(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_softcap_tanh_causal_bf16(Q, K, V, O, sm_scale: float, cap: float, BM: ConstInt, BN: ConstInt,
                                  D: ConstInt):
    """Gemma-2 style: ``ct.tanh(s * scale / cap) * cap`` then a causal mask, bf16 in and out, ``exp2`` after
    multiplying by ``log2 e``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = ct.tanh(s * (sm_scale / cap)) * (cap * LOG2E)
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


@ct.kernel
def attn_gqa_kv_head_by_product(Q, K, V, O, qk_scale: float, H: ConstInt, HKV: ConstInt, BM: ConstInt,
                                BN: ConstInt, D: ConstInt):
    """GQA with the KV head computed as ``h * HKV // H`` (not ``h // (H // HKV)``); batch and query head on grid
    axes 2 and 1; ``[B, H, S, D]`` Q / O and ``[B, HKV, S, D]`` K / V."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    kvh = h * HKV // H
    seq = K.shape[2]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_gqa_kv_head_interleaved_modulo(Q, K, V, O, qk_scale: float, H: ConstInt, HKV: ConstInt, BM: ConstInt,
                                        BN: ConstInt, D: ConstInt):
    """GQA whose query heads are interleaved over the KV heads, ``kvh = h % HKV`` (a checkpoint laid out by
    repeat instead of repeat_interleave); ``[B * H, S, D]`` Q / O, ``[B * HKV, S, D]`` K / V, bid(1) = b H + h."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    kv = b * HKV + h % HKV
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(kv, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(kv, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_cross_ragged_kv_lengths_array(Q, K, V, Lens, O, qk_scale: float, H: ConstInt, BM: ConstInt,
                                       BN: ConstInt, D: ConstInt):
    """Cross-attention (Sq != Skv) with a per-batch key length from an int32 array ``Lens[b]`` (a padded encoder
    batch): the length loaded as a ``(1,)`` tile, keys at or past it masked by ``where``, every padded tile
    visited."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // H
    n = ct.load(Lens, index=(b,), shape=(1,)).reshape((1, 1))
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(K.shape[1], BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < n, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_bottom_right_sq_lt_skv(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Causal attention with Sq < Skv aligned bottom-right (query ``i`` sees keys ``<= i + Skv - Sq``: new queries
    after a cached prefix), the loop bounded by the shifted diagonal."""
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
def attn_output_row_scale_after_loop(Q, K, V, Rs, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The output scaled per query row after the loop by a loaded ``[BH, S]`` f32 gate (``o * g[:, None]``),
    folded with the normalisation as ``acc * (g / l)``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    g = ct.load(Rs, index=(bh, qt), shape=(1, BM), padding_mode=ZERO).reshape((BM, 1))
    ct.store(O, index=(bh, qt, 0), tile=(acc * (g / den)).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_lse_bhs_3d_beside_o_bhsd(Q, K, V, O, Lse, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                  D: ConstInt):
    """``[B, H, S, D]`` attention writing its log-sum-exp in natural units into a ``[B, H, S]`` array beside O
    (the backward pass's input), computed from the log2-unit state as ``(m + log2 l) * ln 2``; batch on axis 2."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = K.shape[2]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, 1, BM, D)))
    lse = (m + ct.log2(den)) * 0.6931471805599453
    ct.store(Lse, index=(b, h, qt), tile=lse.reshape((1, 1, BM)))


@ct.kernel
def attn_key_padding_bool_mask_array(Q, K, V, Kmask, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                     D: ConstInt):
    """A key-padding mask given as a bool ``[B, Skv]`` array (True = attend), loaded per key tile (padding False)
    and applied by ``where``; each row keeps at least one key."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // H
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(K.shape[1], BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        keep = ct.load(Kmask, index=(b, j), shape=(1, BN), padding_mode=ZERO)
        s = ct.where(keep, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_f16_scores_bf16_pv(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Mixed through casts: Q / K f16 (the first dot in f16), V stored bf16, the probabilities cast to bf16 for
    the second dot; f32 out."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.bfloat16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).reshape((1, BM, D)))


@ct.kernel
def attn_q_bf16_cast_to_f16_after_load(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Q stored bf16 and cast to f16 after its load (once, before the loop) to meet f16 K / V; f16 out."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D)).astype(ct.float16)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def mlp_relu_two_gemms_n1_128_n2_32(X, W1, W2, Y, BM: ConstInt, BF: ConstInt, D: ConstInt, N2: ConstInt):
    """Two chained GEMMs with different widths: ``relu(X @ W1) @ W2`` with ``W1`` 64 x 512 (hidden tiles of 128)
    and ``W2`` 512 x 32 (a 32-wide output), f16 in, f32 out."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, N2), dtype=ct.float32)
    for f in range(ct.cdiv(W1.shape[1], BF)):
        w1 = ct.load(W1, index=(0, f), shape=(D, BF), padding_mode=ZERO)
        h = ct.maximum(ct.mma(x, w1, ct.zeros((BM, BF), dtype=ct.float32)), 0.0)
        w2 = ct.load(W2, index=(f, 0), shape=(BF, N2), padding_mode=ZERO)
        acc = ct.mma(h.astype(ct.float16), w2, acc)
    ct.store(Y, index=(bm, 0), tile=acc)


@ct.kernel
def mlp_silu_hidden_ragged_n2_128(X, W1, W2, Y, BM: ConstInt, BF: ConstInt, D: ConstInt, N2: ConstInt):
    """``silu(X @ W1 + b?) @ W2`` with a ragged hidden size (200, tiles of 64: the last hidden tile padded by
    zeros, ``silu(0) = 0``), D = 64 in and N2 = 128 out, bf16 in, bf16 out."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, N2), dtype=ct.float32)
    for f in range(ct.cdiv(W1.shape[1], BF)):
        w1 = ct.load(W1, index=(0, f), shape=(D, BF), padding_mode=ZERO)
        h = ct.mma(x, w1, ct.zeros((BM, BF), dtype=ct.float32))
        g = h / (1.0 + ct.exp(-h))
        w2 = ct.load(W2, index=(f, 0), shape=(BF, N2), padding_mode=ZERO)
        acc = ct.mma(g.astype(ct.bfloat16), w2, acc)
    ct.store(Y, index=(bm, 0), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- GEMM


@ct.kernel
def gemm_residual_add_second_input(A, Bm, R, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C = A @ B + R`` with the residual ``R`` a second f16 ``[M, N]`` input loaded in the epilogue; f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    r = ct.load(R, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=(acc + r.astype(ct.float32)).astype(C.dtype))


@ct.kernel
def gemm_col_scale_fp8_e4m3_saturated(A, Bm, Sc, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Per-output-channel quantisation in the epilogue: ``acc * scale[n]`` clamped to ``[-448, 448]`` (saturation
    by hand) then cast to e4m3."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    sc = ct.load(Sc, index=(bn,), shape=(TN,), padding_mode=ZERO)
    y = ct.minimum(ct.maximum(acc * sc[None, :], -448.0), 448.0)
    ct.store(C, index=(bm, bn), tile=y.astype(C.dtype))


@ct.kernel
def gemm_row_max_per_tile_beside_c(A, Bm, C, Rmax, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """C written in f32 and, beside it, each output tile's row maxima into ``Rmax[M, N / TN]`` (a second output
    indexed by the same block ids; the ragged columns excluded by ``where``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.store(Rmax, index=(bm, bn), tile=ct.max(ct.where(cols[None, :] < C.shape[1], acc, -math.inf), axis=1,
                                                keepdims=True))


@ct.kernel
def gemm_a_km_transposed_by_permute(At, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A stored ``[K, M]`` (a transposed activation): its ``(TK, TM)`` tile loaded and turned by
    ``ct.permute(a, (1, 0))`` before the dot."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(At.shape[0], TK)):
        a = ct.permute(ct.load(At, index=(k, bm), shape=(TK, TM), padding_mode=ZERO), (1, 0))
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_b_nk_loaded_with_order_f(A, W, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A linear layer with W stored ``[N, K]``, its ``(TK, TN)`` tile read by ``ct.load(..., order=(1, 0))`` (the
    array's axes walked in the other order: index and shape given in K, N terms); bf16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(W, index=(k, bn), shape=(TK, TN), order=(1, 0), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_batched_batch_on_grid_axis_1(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A batched GEMM with the batch on grid axis 1 and the N tiles on axis 2 (grid ``(M tiles, batch, N
    tiles)``); 3-D arrays, 2-D tiles by reshape."""
    bm, z, bn = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(z, bm, k), shape=(1, TM, TK), padding_mode=ZERO).reshape((TM, TK))
        b = ct.load(Bm, index=(z, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(z, bm, bn), tile=acc.reshape((1, TM, TN)))


@ct.kernel
def gemm_batched_n_tiles_looped_in_kernel(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A batched GEMM with the batch on grid axis 1 and every N tile of a row block in a loop inside the kernel
    (grid ``(M tiles, batch)``); 3-D arrays, 2-D tiles by reshape."""
    bm, z = ct.bid(0), ct.bid(1)
    for bn in range(ct.cdiv(C.shape[2], TN)):
        acc = ct.zeros((TM, TN), dtype=ct.float32)
        for k in range(ct.cdiv(A.shape[2], TK)):
            a = ct.load(A, index=(z, bm, k), shape=(1, TM, TK), padding_mode=ZERO).reshape((TM, TK))
            b = ct.load(Bm, index=(z, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
            acc = ct.mma(a, b, acc)
        ct.store(C, index=(z, bm, bn), tile=acc.reshape((1, TM, TN)))


@ct.kernel
def gemm_batched_batch_on_grid_axis_2_shared_b(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A batched GEMM whose batch is grid axis 2 against one shared 2-D B (the weight of a batched linear);
    bf16 in, bf16 out."""
    bm, bn, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(z, bm, k), shape=(1, TM, TK), padding_mode=ZERO).reshape((TM, TK))
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(z, bm, bn), tile=acc.astype(C.dtype).reshape((1, TM, TN)))


@ct.kernel
def gemm_a_km_order_f_num_tiles(At, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A stored ``[K, M]`` read as ``(TM, TK)`` tiles by ``order=(1, 0)``, the K trip count by ``ct.num_tiles`` of
    that view (``axis=1`` in the ordered view's terms: K); K ragged (100)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(At, axis=1, shape=(TM, TK), order=(1, 0))):
        a = ct.load(At, index=(bm, k), shape=(TM, TK), order=(1, 0), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_while_loop_over_k(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The K loop written as ``while k < nk`` with the counter incremented by hand (a port of C code)."""
    bm, bn = ct.bid(0), ct.bid(1)
    nk = ct.cdiv(A.shape[1], TK)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    k = 0
    while k < nk:
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
        k += 1
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_f16_accumulator_by_num_tiles_relu(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An f16 accumulator (``ct.zeros(..., dtype=ct.float16)``) over a ``num_tiles`` K loop, ReLU by
    ``where(acc > 0, acc, 0)``, f16 out (small inputs: the sum stays in f16's range)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float16)
    for k in range(ct.num_tiles(Bm, axis=0, shape=(TK, TN))):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=ct.where(acc > 0, acc, 0.0))


@ct.kernel
def gemm_alpha_beta_c_in_place(A, Bm, C, alpha: float, beta: float, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """BLAS's ``C = alpha A B + beta C``: C read in the epilogue and written in place; f16 A / B, f32 C."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    c = ct.load(C, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=alpha * acc + beta * c)


@ct.kernel
def gemm_bf16_b_cast_to_f16_in_loop(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """f16 activations against bf16 weights, the weight tile cast to f16 after its load inside the K loop (a
    mixed checkpoint)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO).astype(ct.float16)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_matmul_operator_bias_row_2d(A, Bm, Bias, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The ``@`` operator in the K loop (``acc += a @ b``), the bias a ``[1, N]`` 2-D array loaded as a
    ``(1, TN)`` tile, tanh-GELU epilogue, bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = acc + a @ b
    h = acc + ct.load(Bias, index=(0, bn), shape=(1, TN), padding_mode=ZERO)
    g = 0.5 * h * (1.0 + ct.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h)))
    ct.store(C, index=(bm, bn), tile=g.astype(C.dtype))


@ct.kernel
def gemm_e4m3_row_col_scales_bf16_out(A, Bm, Sa, Sb, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An fp8 (e4m3 x e4m3) GEMM with per-row activation and per-column weight scales applied in the epilogue, bf16
    out (the fp8 dot's accumulation mode said by a remark)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    sa = ct.load(Sa, index=(bm,), shape=(TM,), padding_mode=ZERO)
    sb = ct.load(Sb, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=(acc * sa[:, None] * sb[None, :]).astype(C.dtype))


@ct.kernel
def int8_by_uint8_gemm_int32_out(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Signed int8 activations against unsigned uint8 weights (cuTile's ``mma`` takes the int8 / uint8 mix) into
    an int32 accumulator, int32 out; K = 192 in tiles of 64."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def tf32_gemm_by_astype_operands(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An f32 GEMM that asks for TF32 tensor cores explicitly: both tiles cast ``astype(ct.tfloat32)`` after their
    loads (cuTile's opt-in to 10-bit mantissas), f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO).astype(ct.tfloat32)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO).astype(ct.tfloat32)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


# ----------------------------------------------------------------------------------------------- memory-bound


@ct.kernel
def softmax_down_columns_online_row_tiles(X, Y, BM: ConstInt, BN: ConstInt):
    """A softmax over axis 0 of a tall ``[M, N]`` array (M = 150 in row tiles of 64, padded by ``-inf``): a first
    loop keeps each column's running max and sum as ``(1, BN)`` tiles (the online rescale), a second loop writes
    ``exp(x - max) / sum``."""
    bn = ct.bid(0)
    m = ct.full((1, BN), -math.inf, dtype=ct.float32)
    s = ct.zeros((1, BN), dtype=ct.float32)
    for i in range(ct.cdiv(X.shape[0], BM)):
        x = ct.load(X, index=(i, bn), shape=(BM, BN), padding_mode=ct.PaddingMode.NEG_INF)
        m_new = ct.maximum(m, ct.max(x, axis=0, keepdims=True))
        s = s * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new), axis=0, keepdims=True)
        m = m_new
    for i in range(ct.cdiv(X.shape[0], BM)):
        x = ct.load(X, index=(i, bn), shape=(BM, BN), padding_mode=ct.PaddingMode.NEG_INF)
        ct.store(Y, index=(i, bn), tile=ct.exp(x - m) / s)


@ct.kernel
def variance_two_pass_row_loops(X, Var, BN: ConstInt):
    """A row variance in two passes over column tiles: the mean by one loop, then the mean of squared deviations
    by a second loop (ragged tail masked by ``where``); unbiased (divide by N - 1)."""
    r = ct.bid(0)
    n = X.shape[1]
    s = ct.zeros((1, BN), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        s = s + ct.load(X, index=(r, j), shape=(1, BN), padding_mode=ZERO)
    mean = ct.sum(s, axis=1) / n
    q = ct.zeros((1, BN), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        x = ct.load(X, index=(r, j), shape=(1, BN), padding_mode=ZERO)
        cols = j * BN + ct.arange(BN, dtype=ct.int32)
        d = ct.where(cols[None, :] < n, x - mean[:, None], 0.0)
        q = q + d * d
    ct.store(Var, index=(r,), tile=ct.sum(q, axis=1) / (n - 1))


@ct.kernel
def argmin_rows_ties_first_index(X, Idx, Val, BN: ConstInt):
    """``argmin`` along rows with many ties (the first index wins), the min value beside it; padding by
    ``+inf`` written as a ``where`` on the column index."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    cols = ct.arange(BN, dtype=ct.int32)
    x = ct.where(cols[None, :] < X.shape[1], x, math.inf)
    ct.store(Idx, index=(r,), tile=ct.argmin(x, axis=1).astype(ct.int32))
    ct.store(Val, index=(r,), tile=ct.min(x, axis=1))


@ct.kernel
def segmented_sums_by_id_masks(X, Seg, Out, NS: ConstInt, BN: ConstInt):
    """Segmented sums of a row: each element's segment id in an int32 array; ``NS`` segment totals by a mask per
    segment, ``sum(where(seg == s, x, 0))``, built as a ``(NS, BN)`` comparison against ``arange(NS)``."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    seg = ct.load(Seg, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.ZERO)
    cols = ct.arange(BN, dtype=ct.int32)
    ids = ct.arange(NS, dtype=ct.int32)
    hit = (seg == ids[:, None]) & (cols[None, :] < X.shape[1])
    ct.store(Out, index=(r, 0), tile=ct.sum(ct.where(hit, x, 0.0), axis=1).reshape((1, NS)))


@ct.kernel
def int8_row_sums_into_int32(X, S, BN: ConstInt):
    """int8 rows summed into int32 (widened before the sum: an int8 sum would wrap), a loop over column tiles."""
    r = ct.bid(0)
    acc = ct.zeros((1, BN), dtype=ct.int32)
    for j in range(ct.cdiv(X.shape[1], BN)):
        acc = acc + ct.load(X, index=(r, j), shape=(1, BN), padding_mode=ZERO).astype(ct.int32)
    ct.store(S, index=(r,), tile=ct.sum(acc, axis=1))


@ct.kernel
def prefix_sum_down_columns_carried(X, Y, BM: ConstInt, BN: ConstInt):
    """An inclusive prefix sum down each column (axis 0) in row tiles, the running column totals carried between
    tiles as a ``(1, BN)`` tile."""
    bn = ct.bid(0)
    carry = ct.zeros((1, BN), dtype=ct.float32)
    for i in range(ct.cdiv(X.shape[0], BM)):
        x = ct.load(X, index=(i, bn), shape=(BM, BN), padding_mode=ZERO)
        c = ct.cumsum(x, axis=0) + carry
        ct.store(Y, index=(i, bn), tile=c)
        carry = carry + ct.sum(x, axis=0, keepdims=True)


@ct.kernel
def clamp_where_chain_piecewise(X, Y, lo: float, hi: float, BN: ConstInt):
    """A piecewise function by a chain of ``where``: below ``lo`` linear with slope 0.1, above ``hi`` clamped,
    between them squared; NaN inputs kept NaN (``x != x``)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    y = ct.where(x < lo, lo + 0.1 * (x - lo), ct.where(x > hi, hi * hi, x * x))
    y = ct.where(x != x, x, y)
    ct.store(Y, index=(ct.bid(0),), tile=y)


@ct.kernel
def bool_logic_xor_not_to_uint8(A, Bt, Y, BN: ConstInt):
    """Bool logic on two bool arrays, ``(a ^ b) | ~(a | b)`` (XNOR-or: true unless exactly... written as users
    do with bitwise operators on bool tiles), stored as uint8 0 / 1."""
    a = ct.load(A, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    b = ct.load(Bt, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    y = (a ^ b) | ~(a | b)
    ct.store(Y, index=(ct.bid(0),), tile=y.astype(ct.uint8))


@ct.kernel
def count_in_range_bool_sum_int32(X, Cnt, lo: float, hi: float, BN: ConstInt):
    """How many of a row's values lie in ``[lo, hi)``: the bool tile ``(x >= lo) & (x < hi)`` cast to int32 and
    summed (ragged columns excluded by the index)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    cols = ct.arange(BN, dtype=ct.int32)
    ok = (x >= lo) & (x < hi) & (cols[None, :] < X.shape[1])
    ct.store(Cnt, index=(r,), tile=ct.sum(ok.astype(ct.int32), axis=1))


@ct.kernel
def logsumexp_rows_online_loop(X, Y, BN: ConstInt):
    """A row logsumexp over column tiles with an online max (``m``, ``s`` carried as ``(1, 1)`` tiles), ragged
    tail padded by ``-inf``."""
    r = ct.bid(0)
    m = ct.full((1, 1), -math.inf, dtype=ct.float32)
    s = ct.zeros((1, 1), dtype=ct.float32)
    for j in range(ct.cdiv(X.shape[1], BN)):
        x = ct.load(X, index=(r, j), shape=(1, BN), padding_mode=ct.PaddingMode.NEG_INF)
        m_new = ct.maximum(m, ct.max(x, axis=1, keepdims=True))
        s = s * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new), axis=1, keepdims=True)
        m = m_new
    ct.store(Y, index=(r,), tile=(m + ct.log(s)).reshape((1,)))


@ct.kernel
def column_mean_ragged_rows_bf16(X, Y, BM: ConstInt, BN: ConstInt):
    """Column means of a bf16 ``[M, N]`` array over row tiles (M = 70, tiles of 32), accumulated in f32."""
    bn = ct.bid(0)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for i in range(ct.cdiv(X.shape[0], BM)):
        acc = acc + ct.load(X, index=(i, bn), shape=(BM, BN), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(bn,), tile=ct.sum(acc, axis=0) / X.shape[0])


@ct.kernel
def one_hot_from_labels_f16(Lab, Y, NC: ConstInt, BT: ConstInt):
    """One-hot rows from int32 labels by comparing against ``arange(NC)``; f16 out; labels outside ``[0, NC)``
    give zero rows."""
    lab = ct.load(Lab, index=(ct.bid(0),), shape=(BT,), padding_mode=ZERO)
    y = ct.where(lab[:, None] == ct.arange(NC, dtype=ct.int32)[None, :], 1.0, 0.0)
    ct.store(Y, index=(ct.bid(0), 0), tile=y.astype(ct.float16))


@ct.kernel
def absmax_int8_quantize_rows(X, Q, S, BN: ConstInt):
    """Per-row symmetric int8 quantisation: ``scale = max|x| / 127``, ``q = round-to-nearest(x / scale)`` by
    ``floor(v + 0.5)``, the scale written beside it."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    amax = ct.maximum(ct.max(ct.abs(x), axis=1, keepdims=True), 1e-8)
    sc = amax / 127.0
    q = ct.floor(x / sc + 0.5)
    ct.store(Q, index=(r, 0), tile=ct.minimum(ct.maximum(q, -127.0), 127.0).astype(ct.int8))
    ct.store(S, index=(r,), tile=sc.reshape((1,)))


@ct.kernel
def cross_entropy_rows_gathered_label(X, Lab, Loss, BN: ConstInt):
    """Per-row cross entropy ``logsumexp(x) - x[label]``, the label's logit picked by ``where(cols == label)`` and
    a sum; ragged classes padded by ``-inf``."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.NEG_INF)
    lab = ct.load(Lab, index=(r,), shape=(1,)).reshape((1, 1))
    m = ct.max(x, axis=1, keepdims=True)
    lse = m + ct.log(ct.sum(ct.exp(x - m), axis=1, keepdims=True))
    cols = ct.arange(BN, dtype=ct.int32)
    picked = ct.sum(ct.where(cols[None, :] == lab, x, 0.0), axis=1, keepdims=True)
    ct.store(Loss, index=(r,), tile=(lse - picked).reshape((1,)))


@ct.kernel
def nan_to_num_clamped_f16(X, Y, BN: ConstInt):
    """``nan_to_num`` on f16: NaN to 0 by ``isnan``, +-inf to the f16 finite range by clamping."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    y = ct.where(ct.isnan(x), 0.0, ct.minimum(ct.maximum(x, -65504.0), 65504.0))
    ct.store(Y, index=(ct.bid(0),), tile=y.astype(ct.float16))


# ----------------------------------------------------------------------------------------------- the table


def _bhsd(bh, sq, sk, d, dt=F16, o_dt=None):
    return [_a((bh, sq, d), dt), _a((bh, sk, d), dt), _a((bh, sk, d), dt), _a((bh, sq, d), o_dt or dt)]


def _grid(sq, bm, bh):
    return (-(-sq // bm), bh)


_add("attn_alibi_slope_exp2_of_head", attn_alibi_slope_exp2_of_head,
     _bhsd(4, 150, 150, 64) + [scale2(64), 2, 64, 64, 64], _grid(150, 64, 4), "chained", outputs=(3,))
_add("attn_relative_bias_tile_per_key_tile", attn_relative_bias_tile_per_key_tile,
     _bhsd(2, 150, 170, 64)[:3] + [_a((150, 170)), _a((2, 150, 64), F16), 0.125, 64, 64, 64], _grid(150, 64, 2),
     "chained", outputs=(4,))
_add("attn_sliding_window_both_bounds_in_range", attn_sliding_window_both_bounds_in_range,
     _bhsd(2, 200, 200, 64) + [scale2(64), 70, 64, 64, 64], _grid(200, 64, 2), "chained", outputs=(3,))
_add("attn_sliding_window_symmetric_all_tiles", attn_sliding_window_symmetric_all_tiles,
     _bhsd(2, 150, 150, 64) + [scale2(64), 40, 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_softcap_tanh_by_exp_by_hand", attn_softcap_tanh_by_exp_by_hand,
     _bhsd(2, 150, 170, 64) + [0.125, 5.0, 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_softcap_tanh_causal_bf16", attn_softcap_tanh_causal_bf16,
     _bhsd(2, 150, 150, 64, BF16) + [0.125, 5.0, 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_gqa_kv_head_by_product", attn_gqa_kv_head_by_product,
     [_a((2, 4, 150, 64), F16), _a((2, 2, 170, 64), F16), _a((2, 2, 170, 64), F16), _a((2, 4, 150, 64), F16),
      scale2(64), 4, 2, 64, 64, 64], (3, 4, 2), "chained", outputs=(3,))
_add("attn_gqa_kv_head_interleaved_modulo", attn_gqa_kv_head_interleaved_modulo,
     [_a((8, 150, 64), F16), _a((4, 170, 64), F16), _a((4, 170, 64), F16), _a((8, 150, 64), F16),
      scale2(64), 4, 2, 64, 64, 64], _grid(150, 64, 8), "chained", outputs=(3,))
_add("attn_cross_ragged_kv_lengths_array", attn_cross_ragged_kv_lengths_array,
     _bhsd(4, 100, 333, 64)[:3] + [_a((2,), I32), _a((4, 100, 64), F16), scale2(64), 2, 64, 64, 64],
     _grid(100, 64, 4), "chained", outputs=(4,))
_add("attn_causal_bottom_right_sq_lt_skv", attn_causal_bottom_right_sq_lt_skv,
     _bhsd(2, 100, 230, 64) + [scale2(64), 64, 64, 64], _grid(100, 64, 2), "chained", outputs=(3,))
_add("attn_output_row_scale_after_loop", attn_output_row_scale_after_loop,
     _bhsd(2, 150, 170, 64)[:3] + [_a((2, 150)), _a((2, 150, 64), F16), scale2(64), 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(4,))
_add("attn_lse_bhs_3d_beside_o_bhsd", attn_lse_bhs_3d_beside_o_bhsd,
     [_a((2, 2, 150, 64), F16), _a((2, 2, 170, 64), F16), _a((2, 2, 170, 64), F16), _a((2, 2, 150, 64), F16),
      _a((2, 2, 150)), scale2(64), 2, 64, 64, 64], (3, 2, 2), "chained", outputs=(3, 4))
_add("attn_key_padding_bool_mask_array", attn_key_padding_bool_mask_array,
     _bhsd(4, 150, 170, 64)[:3] + [_a((2, 170), B), _a((4, 150, 64), F16), scale2(64), 2, 64, 64, 64],
     _grid(150, 64, 4), "chained", outputs=(4,))
_add("attn_f16_scores_bf16_pv", attn_f16_scores_bf16_pv,
     [_a((2, 150, 64), F16), _a((2, 170, 64), F16), _a((2, 170, 64), BF16), _a((2, 150, 64)), scale2(64), 64, 64,
      64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_q_bf16_cast_to_f16_after_load", attn_q_bf16_cast_to_f16_after_load,
     [_a((2, 150, 64), BF16), _a((2, 170, 64), F16), _a((2, 170, 64), F16), _a((2, 150, 64), F16), scale2(64), 64,
      64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("mlp_relu_two_gemms_n1_128_n2_32", mlp_relu_two_gemms_n1_128_n2_32,
     [_a((150, 64), F16), _a((64, 512), F16), _a((512, 32), F16), _a((150, 32)), 64, 128, 64, 32], (3,),
     "chained", outputs=(3,))
_add("mlp_silu_hidden_ragged_n2_128", mlp_silu_hidden_ragged_n2_128,
     [_a((150, 64), BF16), _a((64, 200), BF16), _a((200, 128), BF16), _a((150, 128), BF16), 64, 64, 64, 128], (3,),
     "chained", outputs=(3,))

_add("gemm_residual_add_second_input", gemm_residual_add_second_input,
     [_a((100, 128), F16), _a((128, 80), F16), _a((100, 80), F16), _a((100, 80), F16), 64, 64, 32], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_col_scale_fp8_e4m3_saturated", gemm_col_scale_fp8_e4m3_saturated,
     [_a((100, 128), F16), _a((128, 80), F16), _a((80,)), _a((100, 80), E4M3), 64, 64, 32], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_row_max_per_tile_beside_c", gemm_row_max_per_tile_beside_c,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), _a((100, 2)), 64, 64, 32], (2, 2), "gemm",
     outputs=(2, 3))
_add("gemm_a_km_transposed_by_permute", gemm_a_km_transposed_by_permute,
     [_a((96, 100), F16), _a((96, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_b_nk_loaded_with_order_f", gemm_b_nk_loaded_with_order_f,
     [_a((100, 96), BF16), _a((80, 96), BF16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_batched_batch_on_grid_axis_1", gemm_batched_batch_on_grid_axis_1,
     [_a((3, 100, 64), F16), _a((3, 64, 144), F16), _a((3, 100, 144)), 64, 64, 32], (2, 3, 3), "gemm", outputs=(2,))
_add("gemm_batched_n_tiles_looped_in_kernel", gemm_batched_n_tiles_looped_in_kernel,
     [_a((3, 100, 64), F16), _a((3, 64, 144), F16), _a((3, 100, 144)), 64, 64, 32], (2, 3), "simt", outputs=(2,),
     error="is indexed by the variables of two loops (the K loop inside a loop over output tiles)")
_add("gemm_batched_batch_on_grid_axis_2_shared_b", gemm_batched_batch_on_grid_axis_2_shared_b,
     [_a((3, 100, 64), BF16), _a((64, 80), BF16), _a((3, 100, 80), BF16), 64, 64, 32], (2, 2, 3), "gemm",
     outputs=(2,))
_add("gemm_a_km_order_f_num_tiles", gemm_a_km_order_f_num_tiles,
     [_a((100, 100), F16), _a((100, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_while_loop_over_k", gemm_while_loop_over_k,
     [_a((100, 128), F16), _a((128, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_f16_accumulator_by_num_tiles_relu", gemm_f16_accumulator_by_num_tiles_relu,
     [_a((100, 96), F16), _a((96, 80), F16), _a((100, 80), F16), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_alpha_beta_c_in_place", gemm_alpha_beta_c_in_place,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), 1.5, -0.5, 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_bf16_b_cast_to_f16_in_loop", gemm_bf16_b_cast_to_f16_in_loop,
     [_a((100, 64), F16), _a((64, 80), BF16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_matmul_operator_bias_row_2d", gemm_matmul_operator_bias_row_2d,
     [_a((100, 64), BF16), _a((64, 80), BF16), _a((1, 80)), _a((100, 80), BF16), 64, 64, 32], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_e4m3_row_col_scales_bf16_out", gemm_e4m3_row_col_scales_bf16_out,
     [_a((100, 128), E4M3), _a((128, 80), E4M3), _a((100,)), _a((80,)), _a((100, 80), BF16), 64, 64, 64], (2, 2),
     "gemm", outputs=(4,))

_add("int8_by_uint8_gemm_int32_out", int8_by_uint8_gemm_int32_out,
     [_a((100, 192), I8), _a((192, 80), U8), _a((100, 80), I32), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("tf32_gemm_by_astype_operands", tf32_gemm_by_astype_operands,
     [_a((100, 64)), _a((64, 80)), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))

_add("softmax_down_columns_online_row_tiles", softmax_down_columns_online_row_tiles,
     [_a((150, 100)), _a((150, 100)), 64, 32], (4,), "simt", outputs=(1,))
_add("variance_two_pass_row_loops", variance_two_pass_row_loops, [_a((5, 300)), _a((5,)), 128], (5,), "simt",
     outputs=(1,))
_add("argmin_rows_ties_first_index", argmin_rows_ties_first_index,
     [_a((6, 100)), _a((6,), I32), _a((6,)), 128], (6,), "simt", outputs=(1, 2))
_add("segmented_sums_by_id_masks", segmented_sums_by_id_masks,
     [_a((4, 100)), _a((4, 100), I32), _a((4, 8)), 8, 128], (4,), "simt", outputs=(2,))
_add("int8_row_sums_into_int32", int8_row_sums_into_int32, [_a((5, 300), I8), _a((5,), I32), 128], (5,), "simt",
     outputs=(1,))
_add("prefix_sum_down_columns_carried", prefix_sum_down_columns_carried, [_a((70, 50)), _a((70, 50)), 32, 32], (2,),
     "simt", outputs=(1,))
_add("clamp_where_chain_piecewise", clamp_where_chain_piecewise, [_a((200,)), _a((200,)), -1.0, 1.5, 64], (4,),
     "simt", outputs=(1,))
_add("bool_logic_xor_not_to_uint8", bool_logic_xor_not_to_uint8, [_a((200,), B), _a((200,), B), _a((200,), U8), 64],
     (4,), "simt", outputs=(2,))
_add("count_in_range_bool_sum_int32", count_in_range_bool_sum_int32,
     [_a((5, 100)), _a((5,), I32), -0.5, 0.5, 128], (5,), "simt", outputs=(1,))
_add("logsumexp_rows_online_loop", logsumexp_rows_online_loop, [_a((4, 300)), _a((4,)), 128], (4,), "simt",
     outputs=(1,))
_add("column_mean_ragged_rows_bf16", column_mean_ragged_rows_bf16, [_a((70, 50), BF16), _a((50,)), 32, 32], (2,),
     "simt", outputs=(1,))
_add("one_hot_from_labels_f16", one_hot_from_labels_f16, [_a((50,), I32), _a((50, 16), F16), 16, 32], (2,), "simt",
     outputs=(1,))
_add("absmax_int8_quantize_rows", absmax_int8_quantize_rows, [_a((5, 100)), _a((5, 100), I8), _a((5,)), 128], (5,),
     "simt", outputs=(1, 2))
_add("cross_entropy_rows_gathered_label", cross_entropy_rows_gathered_label,
     [_a((6, 100)), _a((6,), I32), _a((6,)), 128], (6,), "simt", outputs=(2,))
_add("nan_to_num_clamped_f16", nan_to_num_clamped_f16, [_a((200,)), _a((200,), F16), 64], (4,), "simt",
     outputs=(1,))


# ----------------------------------------------------------------------------------------------- more spellings


@ct.kernel
def attn_qk_e4m3_pv_f16(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """fp8 scores: Q and K stored e4m3 (an fp8 KV cache whose K is multiplied as stored), the probabilities and V
    in f16 for the second dot; f16 out."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_v_stored_ds_order(Q, K, Vt, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """V cached transposed ``[BH, D, S]`` (the layout a decode kernel wrote) and read as ``(BN, D)`` tiles by
    ``ct.load(..., order=(0, 2, 1))`` (index and shape in ``[BH, S, D]`` terms); ragged keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(Vt, index=(bh, j, 0), shape=(1, BN, D), order=(0, 2, 1), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_varlen_loop_bound_item(Q, K, V, Lens, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                D: ConstInt):
    """Variable-length keys: each batch's key count read by ``ct.load(Lens, ...).item()`` and the key loop bounded
    by ``cdiv(n, BN)`` (a runtime trip count per program), the tail masked by ``where``."""
    qt, bh = ct.bid(0), ct.bid(1)
    n = ct.load(Lens, index=(bh // H,), shape=(1,)).item()
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < n, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_prefix_lm_mask(Q, K, V, O, qk_scale: float, P: ConstInt, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """A prefix-LM mask: keys before ``P`` are visible to every query, later keys causally; the loop bounded by the
    larger of the diagonal and the prefix."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min(max((qt + 1) * BM, P), seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        ok = ((kpos[None, :] < P) | (kpos[None, :] <= qpos[:, None])) & (kpos[None, :] < seq)
        s = ct.where(ok, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def gemm_k_loop_in_elements(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A Triton port: the K loop walks elements, ``for k in range(0, K, TK)``, and the tile index is ``k // TK``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(0, A.shape[1], TK):
        a = ct.load(A, index=(bm, k // TK), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k // TK, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_c_and_ct_stored(A, Bm, C, Ct, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """C stored in f32 and its transpose stored beside it in f16 (``ct.transpose(acc)`` at the swapped block
    index): a second output at other indices than C's."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)
    ct.store(Ct, index=(bn, bm), tile=ct.transpose(acc).astype(Ct.dtype))


@ct.kernel
def gemm_check_bounds_false(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Shapes that are tile multiples (128 x 128 x 128): the operand loads opt out of bounds checks with
    ``check_bounds=False`` (cuTile 13.4's faster load; no padding mode)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), check_bounds=False)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), check_bounds=False)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_row_bias_vector(A, Bm, Bias, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``acc + ct.matmul(a, b)`` in the loop (no accumulator argument), a per-row bias ``(TM,)`` broadcast as
    ``r[:, None]`` in the epilogue."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = acc + ct.matmul(a, b)
    r = ct.load(Bias, index=(bm,), shape=(TM,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=acc + r[:, None])


@ct.kernel
def any_all_rows_bool(X, Any, All, BN: ConstInt):
    """Per-row ``any(x > 0)`` / ``all(x > 0)`` of a ragged row: the bool tile cast to int32, ``max`` for any and
    ``sum == N`` for all (the ragged tail excluded by the column index), stored as uint8 0 / 1."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    cols = ct.arange(BN, dtype=ct.int32)
    pos = (x > 0) & (cols[None, :] < X.shape[1])
    ct.store(Any, index=(r,), tile=(ct.max(pos.astype(ct.int32), axis=1) > 0).astype(ct.uint8))
    ct.store(All, index=(r,), tile=(ct.sum(pos.astype(ct.int32), axis=1) == X.shape[1]).astype(ct.uint8))



_add("attn_qk_e4m3_pv_f16", attn_qk_e4m3_pv_f16,
     [_a((2, 150, 64), E4M3), _a((2, 170, 64), E4M3), _a((2, 170, 64), F16), _a((2, 150, 64), F16), scale2(64), 64,
      64, 64], _grid(150, 64, 2), "chained", outputs=(3,),
     notes="refused before session 43 ('the first dot's A element type f8E4M3FN: f16/bf16 operands are supported'); "
     "the chained kernel's first dot is an e4m3 WGMMA (k32) now")
_add("attn_v_stored_ds_order", attn_v_stored_ds_order,  # (176 keys: Vt's rows of 352 bytes, a TMA-able stride)
     [_a((2, 150, 64), F16), _a((2, 176, 64), F16), _a((2, 64, 176), F16), _a((2, 150, 64), F16), scale2(64), 64,
      64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_varlen_loop_bound_item", attn_varlen_loop_bound_item,
     _bhsd(4, 100, 300, 64)[:3] + [_a((2,), I32), _a((4, 100, 64), F16), scale2(64), 2, 64, 64, 64],
     _grid(100, 64, 4), "chained", outputs=(4,))
_add("attn_prefix_lm_mask", attn_prefix_lm_mask, _bhsd(2, 200, 200, 64) + [scale2(64), 90, 64, 64, 64],
     _grid(200, 64, 2), "chained", outputs=(3,))
_add("gemm_k_loop_in_elements", gemm_k_loop_in_elements,
     [_a((100, 128), F16), _a((128, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_c_and_ct_stored", gemm_c_and_ct_stored,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), _a((80, 100), F16), 64, 64, 32], (2, 2), "simt",
     outputs=(2, 3), error="a second output tile [64, 64] at other indices than C's")
_add("gemm_check_bounds_false", gemm_check_bounds_false,
     [_a((128, 128), F16), _a((128, 128), F16), _a((128, 128)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_row_bias_vector", gemm_row_bias_vector,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100,)), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(3,))
_add("any_all_rows_bool", any_all_rows_bool, [_a((5, 100)), _a((5,), U8), _a((5,), U8), 128], (5,), "simt",
     outputs=(1, 2))

@ct.kernel
def gemm_k_unrolled_by_two(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The K loop unrolled by hand, two K tiles per step (``2 k`` and ``2 k + 1``: K = 256 in tiles of 32), each
    dot accumulating into the carried tile."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], 2 * TK)):
        a0 = ct.load(A, index=(bm, 2 * k), shape=(TM, TK), padding_mode=ZERO)
        b0 = ct.load(Bm, index=(2 * k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a0, b0, acc)
        a1 = ct.load(A, index=(bm, 2 * k + 1), shape=(TM, TK), padding_mode=ZERO)
        b1 = ct.load(Bm, index=(2 * k + 1, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a1, b1, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_first_k_tile_peeled(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The first K tile peeled off the loop (its dot starts from zeros), the loop ``range(1, nk)`` continuing the
    accumulator."""
    bm, bn = ct.bid(0), ct.bid(1)
    a = ct.load(A, index=(bm, 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(Bm, index=(0, bn), shape=(TK, TN), padding_mode=ZERO)
    acc = ct.mma(a, b, ct.zeros((TM, TN), dtype=ct.float32))
    for k in range(1, ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_acc_starts_from_c(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C += A @ B`` with the accumulator starting from C's tile (loaded before the K loop), C written in
    place."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.load(C, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_requant_int8_out(A, Bm, Sc, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """W8A8 requantised: the int32 accumulator times a per-tensor scale read from a one-element array, rounded
    half up by ``floor(y + 0.5)``, clamped to ``[-128, 127]`` and stored int8."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    y = ct.floor(acc.astype(ct.float32) * ct.load(Sc, index=(0,), shape=(1,)).reshape((1, 1)) + 0.5)
    ct.store(C, index=(bm, bn), tile=ct.minimum(ct.maximum(y, -128.0), 127.0).astype(ct.int8))


@ct.kernel
def mlp_bias_in_loop_residual_after(X, W1, B1, W2, Y, BM: ConstInt, BF: ConstInt, D: ConstInt):
    """``x + relu(x @ W1 + b1) @ W2``: the first bias loaded per hidden tile inside the loop, the residual added
    after the loop from the X tile already loaded; f16 in and out."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for f in range(ct.cdiv(W1.shape[1], BF)):
        w1 = ct.load(W1, index=(0, f), shape=(D, BF), padding_mode=ZERO)
        b1 = ct.load(B1, index=(f,), shape=(BF,), padding_mode=ZERO)
        h = ct.maximum(ct.mma(x, w1, ct.zeros((BM, BF), dtype=ct.float32)) + b1[None, :], 0.0)
        w2 = ct.load(W2, index=(f, 0), shape=(BF, D), padding_mode=ZERO)
        acc = ct.mma(h.astype(ct.float16), w2, acc)
    ct.store(Y, index=(bm, 0), tile=(acc + x.astype(ct.float32)).astype(Y.dtype))


@ct.kernel
def attn_threshold_sparse_mask(Q, K, V, O, qk_scale: float, thr: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """A data-dependent sparse mask: scores kept only where ``s > thr`` (key 0 always kept so no row is empty), the
    running max started at a finite ``-1e30``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(((s > thr) | (kpos[None, :] == 0)) & (kpos[None, :] < seq), s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_q_f16_to_bf16_scaled(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """An f16 Q scaled in f32 and rounded to bf16 before the loop (the Q prologue converting in place) against
    bf16 K / V; bf16 probabilities and out."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    q = (q.astype(ct.float32) * qk_scale).astype(ct.bfloat16)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.bfloat16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def cumsum_int32_rows(X, Y, BN: ConstInt):
    """An int32 inclusive prefix sum along rows (ragged: the zero padding adds nothing)."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=ct.cumsum(x, axis=1))


@ct.kernel
def cumprod_rows_f32(X, Y, BN: ConstInt):
    """An f32 inclusive prefix product along rows of values near 1 (ragged: the padding comes after the row)."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=ct.cumprod(x, axis=1))



_add("gemm_k_unrolled_by_two", gemm_k_unrolled_by_two,
     [_a((100, 256), F16), _a((256, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "simt", outputs=(2,),
     error="two K tiles per iteration: a K loop unrolled by hand")
_add("gemm_first_k_tile_peeled", gemm_first_k_tile_peeled,
     [_a((100, 128), F16), _a((128, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_acc_starts_from_c", gemm_acc_starts_from_c,
     [_a((100, 128), F16), _a((128, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_requant_int8_out", gemm_requant_int8_out,
     [_a((100, 128), I8), _a((128, 80), I8), _a((1,)), _a((100, 80), I8), 64, 64, 64], (2, 2), "gemm", outputs=(3,))
_add("mlp_bias_in_loop_residual_after", mlp_bias_in_loop_residual_after,
     [_a((150, 64), F16), _a((64, 256), F16), _a((256,)), _a((256, 64), F16), _a((150, 64), F16), 64, 64, 64], (3,),
     "chained", outputs=(4,))
_add("attn_threshold_sparse_mask", attn_threshold_sparse_mask, _bhsd(2, 150, 170, 64) + [0.125, 0.5, 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_q_f16_to_bf16_scaled", attn_q_f16_to_bf16_scaled,
     [_a((2, 150, 64), F16), _a((2, 170, 64), BF16), _a((2, 170, 64), BF16), _a((2, 150, 64), BF16), scale2(64), 64,
      64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("cumsum_int32_rows", cumsum_int32_rows, [_a((4, 100), I32), _a((4, 100), I32), 128], (4,), "simt", outputs=(1,))
_add("cumprod_rows_f32", cumprod_rows_f32, [_a((4, 100)), _a((4, 100)), 128], (4,), "simt", outputs=(1,))

@ct.kernel
def attn_den_of_rounded_probs(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The probabilities rounded to f16 once, ``p16 = exp2(s - m).astype(f16)``, and both the row sum and the
    second dot read the rounded tile (the sum of what is multiplied, as some ports write it)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p16 = ct.exp2(s - m_new).astype(ct.float16)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p16.astype(ct.float32), axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p16, v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_keys_walked_last_first(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The key tiles walked from the last to the first, ``j = n - 1 - jj`` (the online softmax is order-free): the
    ragged last tile comes first."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    n = ct.cdiv(seq, BN)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for jj in range(n):
        j = n - 1 - jj
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_acc_kept_normalised(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The output kept normalised at every step: ``acc = acc * (corr * l_old / l_new) + (p / l_new) @ v`` (no
    division after the loop), the probabilities divided before their cast."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den_new = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma((p / den_new).astype(ct.float16), v, acc * (corr * den / den_new))
        den = den_new
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=acc.astype(O.dtype).reshape((1, BM, D)))



_add("attn_den_of_rounded_probs", attn_den_of_rounded_probs, _bhsd(2, 150, 170, 64) + [scale2(64), 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_keys_walked_last_first", attn_keys_walked_last_first, _bhsd(2, 150, 170, 64) + [scale2(64), 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_acc_kept_normalised", attn_acc_kept_normalised, _bhsd(2, 150, 170, 64) + [scale2(64), 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(3,))

@ct.kernel
def argmax_down_columns_int32_ties(X, Idx, BM: ConstInt, BN: ConstInt):
    """``argmax`` down each column of an int32 array with ties (the first row wins), the ragged rows past M
    excluded by ``where`` with the int32 minimum."""
    bn = ct.bid(0)
    x = ct.load(X, index=(0, bn), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
    rows = ct.arange(BM, dtype=ct.int32)
    x = ct.where(rows[:, None] < X.shape[0], x, -2147483648)
    ct.store(Idx, index=(bn,), tile=ct.argmax(x, axis=0).astype(ct.int32))


@ct.kernel
def top3_by_repeated_argmax(X, V, I, BN: ConstInt):
    """A row's top 3 by three rounds of ``argmax`` / ``max``, each found maximum masked to ``-inf`` by ``where``
    on the column index before the next round; values and indices stored per round at ``(r, t)``."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.NEG_INF)
    cols = ct.arange(BN, dtype=ct.int32)
    for t in range(3):
        i = ct.argmax(x, axis=1, keepdims=True).astype(ct.int32)
        v = ct.max(x, axis=1, keepdims=True)
        ct.store(V, index=(r, t), tile=v)
        ct.store(I, index=(r, t), tile=i)
        x = ct.where(cols[None, :] == i, -math.inf, x)


@ct.kernel
def int32_products_summed_int64(A, Bv, S, BN: ConstInt):
    """A dot product of int32 rows widened to int64 before the multiply (an int32 product would wrap), summed in
    int64 (wrapping as int64 does)."""
    r = ct.bid(0)
    a = ct.load(A, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.int64)
    b = ct.load(Bv, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.int64)
    ct.store(S, index=(r,), tile=ct.sum(a * b, axis=1))


@ct.kernel
def uint8_image_normalised_f16(X, Y, mean: float, std: float, BN: ConstInt):
    """uint8 pixels normalised, ``(x / 255 - mean) / std``, stored f16."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(ct.bid(0),), tile=((x / 255.0 - mean) / std).astype(ct.float16))


@ct.kernel
def masked_row_max_all_masked_rows(X, M, Y, BN: ConstInt):
    """A row max under a bool mask array, ``max(where(m, x, -inf))``: a row with no True is ``-inf``."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    m = ct.load(M, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(r,), tile=ct.max(ct.where(m, x, -math.inf), axis=1))



_add("argmax_down_columns_int32_ties", argmax_down_columns_int32_ties, [_a((50, 40), I32), _a((40,), I32), 64, 32],
     (2,), "simt", outputs=(1,))
_add("top3_by_repeated_argmax", top3_by_repeated_argmax, [_a((5, 100)), _a((5, 3)), _a((5, 3), I32), 128], (5,),
     "simt", outputs=(1, 2))
_add("int32_products_summed_int64", int32_products_summed_int64,
     [_a((4, 100), I32), _a((4, 100), I32), _a((4,), "int64"), 128], (4,), "simt", outputs=(2,))
_add("uint8_image_normalised_f16", uint8_image_normalised_f16, [_a((200,), U8), _a((200,), F16), 0.45, 0.225, 64],
     (4,), "simt", outputs=(1,))
_add("masked_row_max_all_masked_rows", masked_row_max_all_masked_rows,
     [_a((4, 100)), _a((4, 100), B), _a((4,)), 128], (4,), "simt", outputs=(2,))

@ct.kernel
def attn_bf16_scores_f16_pv_causal_d128(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The other mix: Q / K bf16 (the scores' dot in bf16), V f16 and the probabilities cast to f16 for the second
    dot; causal, head dim 128 in 128 x 64 tiles, f16 out."""
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
        s = ct.where((kpos[None, :] <= qpos[:, None]) & (kpos[None, :] < seq), s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


_add("attn_bf16_scores_f16_pv_causal_d128", attn_bf16_scores_f16_pv_causal_d128,
     [_a((2, 300, 128), BF16), _a((2, 300, 128), BF16), _a((2, 300, 128), F16), _a((2, 300, 128), F16), scale2(128),
      128, 64, 128], _grid(300, 128, 2), "chained", outputs=(3,))

@ct.kernel
def mlp_f16_up_bf16_down_gelu(X, W1, W2, Y, BM: ConstInt, BF: ConstInt, D: ConstInt):
    """A checkpoint with mixed precisions: the up projection ``X @ W1`` in f16, the tanh-GELU hidden tile cast to
    bf16 for the bf16 down projection ``@ W2``; f32 out."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for f in range(ct.cdiv(W1.shape[1], BF)):
        w1 = ct.load(W1, index=(0, f), shape=(D, BF), padding_mode=ZERO)
        h = ct.mma(x, w1, ct.zeros((BM, BF), dtype=ct.float32))
        g = 0.5 * h * (1.0 + ct.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h)))
        w2 = ct.load(W2, index=(f, 0), shape=(BF, D), padding_mode=ZERO)
        acc = ct.mma(g.astype(ct.bfloat16), w2, acc)
    ct.store(Y, index=(bm, 0), tile=acc)


_add("mlp_f16_up_bf16_down_gelu", mlp_f16_up_bf16_down_gelu,
     [_a((150, 64), F16), _a((64, 256), F16), _a((256, 64), BF16), _a((150, 64)), 64, 64, 64], (3,), "chained",
     outputs=(3,))

# ----------------------------------------------------------------------------------------------- rejected by cuTile


@ct.kernel
def attn_scores_of_k_untransposed(Q, K, O, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The scores written ``ct.mma(q, k, ...)`` with K's ``(BN, D)`` tile not transposed."""
    q = ct.load(Q, index=(ct.bid(0), 0), shape=(BM, D), padding_mode=ZERO)
    k = ct.load(K, index=(0, 0), shape=(BN, D), padding_mode=ZERO)
    ct.store(O, index=(ct.bid(0), 0), tile=ct.mma(q, k, ct.zeros((BM, BN), dtype=ct.float32)))


@ct.kernel
def row_max_over_axis_minus_3(X, Y, BN: ConstInt):
    """A row max written ``axis=-3`` on a 2-D tile."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.max(x, axis=-3))


@ct.kernel
def load_2d_array_with_one_index(X, Y, BN: ConstInt):
    """A 2-D array loaded with a one-element index tuple."""
    x = ct.load(X, index=(ct.bid(0),), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=x)


@ct.kernel
def load_2d_array_with_1d_shape(X, Y, BN: ConstInt):
    """A 2-D array loaded with a rank-1 tile shape."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=x)


@ct.kernel
def zeros_of_96_columns(X, Y, BM: ConstInt):
    """An accumulator of 96 columns (not a power of two)."""
    acc = ct.zeros((BM, 96), dtype=ct.float32)
    ct.store(Y, index=(ct.bid(0), 0), tile=acc)


@ct.kernel
def loop_carried_acc_changes_dtype(A, C, TM: ConstInt, TK: ConstInt):
    """A loop-carried f32 accumulator reassigned as f16 inside the loop."""
    acc = ct.zeros((TM, TK), dtype=ct.float32)
    for k in range(4):
        acc = (acc + ct.load(A, index=(ct.bid(0), k), shape=(TM, TK), padding_mode=ZERO)).astype(ct.float16)
    ct.store(C, index=(ct.bid(0), 0), tile=acc)


@ct.kernel
def loop_carried_acc_changes_shape(A, C, TM: ConstInt, TK: ConstInt):
    """A loop-carried ``(TM, TK)`` accumulator reassigned a ``(TM, 1)`` row sum inside the loop."""
    acc = ct.zeros((TM, TK), dtype=ct.float32)
    for k in range(4):
        acc = ct.sum(acc + ct.load(A, index=(ct.bid(0), k), shape=(TM, TK), padding_mode=ZERO), axis=1, keepdims=True)
    ct.store(C, index=(ct.bid(0), 0), tile=acc)


@ct.kernel
def mma_acc_of_the_wrong_shape(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A dot whose accumulator is ``(TM, TM)`` against a ``(TM, TN)`` product."""
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(Bm, index=(0, 0), shape=(TK, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), 0), tile=ct.mma(a, b, ct.zeros((TM, TM), dtype=ct.float32)))


@ct.kernel
def permute_of_one_axis(X, Y, BN: ConstInt):
    """``ct.permute(x, (1,))`` on a 2-D tile."""
    x = ct.load(X, index=(0, 0), shape=(BN, BN), padding_mode=ZERO)
    ct.store(Y, index=(0, 0), tile=ct.permute(x, (1,)))


@ct.kernel
def cat_of_f16_and_f32(X, Y, BN: ConstInt):
    """``ct.cat`` of an f16 tile and an f32 tile."""
    x = ct.load(X, index=(0,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=ct.cat((x, x.astype(ct.float32)), 0))


@ct.kernel
def load_latency_of_20(X, Y, BN: ConstInt):
    """A load hinted ``latency=20`` (the hint takes 1 to 10)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO, latency=20)
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def sum_axis_1_of_a_vector(X, Y, BN: ConstInt):
    """``ct.sum(x, axis=1)`` of a 1-D tile."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.sum(x, axis=1))


@ct.kernel
def reshape_64x64_to_4096x2(X, Y, BN: ConstInt):
    """A reshape to twice the elements."""
    x = ct.load(X, index=(0, 0), shape=(BN, BN), padding_mode=ZERO)
    ct.store(Y, index=(0, 0), tile=x.reshape((4096, 2)))


@ct.kernel
def store_f32_tile_into_f16_array(X, Y, BN: ConstInt):
    """An f32 tile stored into an f16 array without ``astype``."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x.astype(ct.float32) * 2.0)


@ct.kernel
def padding_mode_as_a_string(X, Y, BN: ConstInt):
    """``padding_mode="zero"`` (a string, not ``ct.PaddingMode.ZERO``)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode="zero")
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def arange_of_a_runtime_extent(X, Y, n: int):
    """``ct.arange(n)`` of a runtime scalar (a tile's extent must be a constant)."""
    ct.store(Y, index=(0,), tile=ct.arange(n, dtype=ct.int32))


@ct.kernel
def mma_of_f16_and_bf16(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A dot of an f16 A and a bf16 B (no cast)."""
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(Bm, index=(0, 0), shape=(TK, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), 0), tile=ct.mma(a, b, ct.zeros((TM, TN), dtype=ct.float32)))


@ct.kernel
def mma_f16_into_f16_int_acc(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An f16 dot accumulated into int32 zeros."""
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(Bm, index=(0, 0), shape=(TK, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), 0), tile=ct.mma(a, b, ct.zeros((TM, TN), dtype=ct.int32)))


@ct.kernel
def bitwise_and_of_floats(X, Y, BN: ConstInt):
    """``x & 1`` on an f32 tile."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x & 1)


@ct.kernel
def num_tiles_axis_2_of_2d(X, Y, BN: ConstInt):
    """``ct.num_tiles(X, axis=2, ...)`` of a 2-D array."""
    n = ct.num_tiles(X, axis=2, shape=(1, BN))
    ct.store(Y, index=(0,), tile=ct.full((BN,), n, dtype=ct.int32))


@ct.kernel
def bid_of_a_float_axis(X, Y, BN: ConstInt):
    """``ct.bid(0.0)``."""
    x = ct.load(X, index=(ct.bid(0.0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=x)

@ct.kernel
def attn_q_f16_scaled_in_f16(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Q scaled in f16 before the loop, ``q * qk_scale`` with a Python float (the product is f32: cuTile's
    promotion), multiplied against f16 K."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D)) * qk_scale
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


_V = _a((64,))
_M = _a((64, 64))
_H = _a((64, 64), F16)
REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "attn_scores_of_k_untransposed": (attn_scores_of_k_untransposed,
                                      [_a((128, 64), F16), _a((32, 64), F16), _a((128, 32)), 64, 32, 64],
                                      "Incompatible shapes for matrix mul on tiles: (64, 64), (32, 64)",
                                      "tile=ct.mma(q, k"),
    "row_max_over_axis_minus_3": (row_max_over_axis_minus_3, [_a((4, 64)), _a((4,)), 64],
                                  "Axis -3 is out of range for rank 2", "ct.max(x, axis=-3)"),
    "load_2d_array_with_one_index": (load_2d_array_with_one_index, [_M, _M, 64],
                                     "Index size 1 does not match the array rank 2", "x = ct.load(X"),
    "load_2d_array_with_1d_shape": (load_2d_array_with_1d_shape, [_M, _M, 64],
                                    "Expected shape length to be 2, got 1", "x = ct.load(X"),
    "zeros_of_96_columns": (zeros_of_96_columns, [_M, _a((64, 96)), 64],
                            "Dimension #1 of shape (64, 96) is not a power of two", "acc = ct.zeros((BM, 96)"),
    "loop_carried_acc_changes_dtype": (loop_carried_acc_changes_dtype, [_a((64, 256)), _M, 64, 64],
                                       "Type of `acc` depends on path taken: Tile[float16,(64,64)]",
                                       "acc = (acc + ct.load("),
    "loop_carried_acc_changes_shape": (loop_carried_acc_changes_shape, [_a((64, 256)), _M, 64, 64],
                                       "Type of `acc` depends on path taken: Tile[float32,(64,1)]",
                                       "acc = ct.sum(acc + ct.load("),
    "mma_acc_of_the_wrong_shape": (mma_acc_of_the_wrong_shape, [_H, _a((64, 128), F16), _a((64, 128)), 64, 128, 64],
                                   "Expect acc shape to be (64, 128), got (64, 64)", "tile=ct.mma(a, b"),
    "permute_of_one_axis": (permute_of_one_axis, [_M, _M, 64], "Num axes must match input's rank: 1 vs 2",
                            "ct.permute(x, (1,))"),
    "cat_of_f16_and_f32": (cat_of_f16_and_f32, [_a((64,), F16), _a((128,)), 64],
                           "Expected tiles to have the same dtype: float16 != float32", "ct.cat((x,"),
    "load_latency_of_20": (load_latency_of_20, [_V, _V, 64], "Latency must be between 1 and 10, got 20",
                           "latency=20"),
    "sum_axis_1_of_a_vector": (sum_axis_1_of_a_vector, [_V, _V, 64], "Axis 1 is out of range for rank 1",
                               "ct.sum(x, axis=1)"),
    "reshape_64x64_to_4096x2": (reshape_64x64_to_4096x2, [_M, _M, 64], "Cannot reshape (64, 64) to (4096, 2)",
                                "x.reshape((4096, 2))"),
    "store_f32_tile_into_f16_array": (store_f32_tile_into_f16_array, [_V, _a((64,), F16), 64],
                                      "cannot implicitly cast float32 to float16", "ct.store(Y"),
    "padding_mode_as_a_string": (padding_mode_as_a_string, [_V, _V, 64],
                                 "Invalid argument \"padding_mode\" of load(): Expected PaddingMode",
                                 "padding_mode=\"zero\""),
    "arange_of_a_runtime_extent": (arange_of_a_runtime_extent, [_V, _a((64,), I32), 64],
                                   "Invalid argument #1 of arange(): Expected an integer constant",
                                   "ct.arange(n, dtype"),
    "mma_of_f16_and_bf16": (mma_of_f16_and_bf16, [_H, _a((64, 64), BF16), _M, 64, 64, 64],
                            "x and y must have the same dtype unless they are int8/uint8, got float16 bfloat16",
                            "tile=ct.mma(a, b"),
    "mma_f16_into_f16_int_acc": (mma_f16_into_f16_int_acc, [_H, _H, _a((64, 64), I32), 64, 64, 64],
                                 "Unsupported acc dtype int32", "tile=ct.mma(a, b"),
    "bitwise_and_of_floats": (bitwise_and_of_floats, [_V, _V, 64],
                              "Bitwise operations require integers or booleans", "tile=x & 1"),
    "num_tiles_axis_2_of_2d": (num_tiles_axis_2_of_2d, [_M, _a((64,), I32), 64], "Axis 2 is out of range for rank 2",
                               "n = ct.num_tiles(X, axis=2"),
    "attn_q_f16_scaled_in_f16": (attn_q_f16_scaled_in_f16, _bhsd(2, 150, 170, 64) + [0.125, 64, 64, 64],
                                 "x and y must have the same dtype unless they are int8/uint8, got float32 float16",
                                 "s = ct.mma(q, ct.transpose(k)"),
    "bid_of_a_float_axis": (bid_of_a_float_axis, [_V, _V, 64],
                            "Invalid argument \"axis\" of bid(): Expected an integer constant", "ct.bid(0.0)"),
}
"""Programs cuTile's front end refuses at the user's line (tileorch never sees them)."""


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def mx_scales_e8m0_widened_to_f32(S, X, Y, BN: ConstInt):
    """MX block scales stored e8m0 (``2 ** (e - 127)``), widened to f32 and applied to a row of values."""
    s = ct.load(S, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x * s.astype(ct.float32))


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("mx_scales_e8m0_widened_to_f32", mx_scales_e8m0_widened_to_f32,
     [_a((64,), "float8_e8m0fnu"), _V, _V, 64], (1,), "error",
     error="element type f8E8M0FNU is not supported yet", notes="s = ct.load(S")
