"""The thirty-third user sweep (session 41): cuTile programs as users write them, biased to what acceptance likely
runs and cuTile's own samples do (issues 20 and 22), not yet written by earlier sweeps: attention with one K / V head
for every query head (multi-query), a causal sliding window given as a scalar argument (its loop's first key tile
from the window), an additive bias read from a second ``[B, H, Sq, Sk]`` tensor, decode-style attention with 1-16
query rows, head dims 32, 48 and 160, both dots written with ``@``; GEMMs with ``ct.mma`` and with ``@`` /
``ct.matmul``, split-K by hand with ``atomic_add``, grouped GEMM through a per-tile group table, bias in bf16
followed by GELU / SiLU, int8 x int8 with an int32 accumulator and a dequantising epilogue, B broadcast over a
batch, K not a multiple of the tile (zero padding), a SwiGLU of two B matrices, RMSNorm and the GEMM after it as two
kernels; memory-bound programs (layer norm backward's two column reductions, rotary embeddings in both layouts,
max-and-index, a histogram by atomics, a tiled transpose, concat and split through tile offsets, cumsum along rows
carried across tiles, int / float casts with rounding modes, an embedding gather, a top-1 router).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep33_compile.py, tests/unit/test_user_sweep33_interp.py,
tests/unit/test_user_sweep33_emulated.py, tests/unit/test_user_sweep33_invalid.py (with :data:`INVALID` and
:data:`REJECTED_BY_CUTILE`) and tests/gpu/test_user_sweep33_gpu.py.  Importing it needs ``cuda.tile``.
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
I8, I32, U8 = "int8", "int32", "uint8"
LOG2E = 1.4426950408889634


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


def scale2(d):
    """``log2 e / sqrt(d)``: the scores' scale in log2 units."""
    return LOG2E / math.sqrt(d)


def _bhsd(bh, sq, sk, d, dt=F16, out=F16):
    """Q, K, V and O of ``[BH, S, D]`` attention."""
    return [_a((bh, sq, d), dt), _a((bh, sk, d), dt), _a((bh, sk, d), dt), _a((bh, sq, d), out)]


def _with_bias(qkvo, bias):
    """Q, K, V, the bias array, O (the kernels' argument order)."""
    return qkvo[:3] + [bias] + qkvo[3:]


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_mqa_one_kv_head_bhsd(Q, K, V, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Multi-query attention: Q and O ``[B, H, S, D]``, a single K / V head ``[B, S, D]`` shared by every query
    head; program axes (query tile, head, batch); non-causal, ragged keys."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    seq = K.shape[1]
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_causal_window_scalar_arg(Q, K, V, O, qk_scale: float, window: int, BM: ConstInt, BN: ConstInt,
                                  D: ConstInt):
    """Causal sliding-window attention, the window a runtime scalar argument: key ``j`` is seen by query ``i`` when
    ``i - window < j <= i``; the key loop starts at the first tile the window reaches (``max(0, (qt*BM - window +
    1) // BN)``) and stops after the diagonal tile; a row whose keys in the first tiles are all outside its window
    keeps its running maximum at -inf, so the exponentials subtract a guarded maximum (0 while it is -inf) and
    the rescale of the empty state is 0, not NaN; ``[BH, S, D]`` arrays."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    first = max(0, (qt * BM - window + 1) // BN)
    last = ct.cdiv(min((qt + 1) * BM, seq), BN)
    for j in range(first, last):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        keep = (kpos[None, :] <= qpos[:, None]) & (kpos[None, :] > qpos[:, None] - window)
        s = ct.where(keep, s, -math.inf)
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
def attn_bias_tensor_bhqk_f16(Q, K, V, Bias, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                              D: ConstInt):
    """An additive attention bias read from a second tensor ``[B, H, Sq, Sk]`` in f16 (no dropout), one bias tile
    per key tile, added in natural-log units before the softmax (``exp`` of the scores); Q / K / V / O
    ``[B * H, S, D]``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        bias = ct.load(Bias, index=(b, h, qt, j), shape=(1, 1, BM, BN), padding_mode=ZERO).reshape((BM, BN))
        s = s + bias.astype(ct.float32)
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
def attn_decode_8_query_rows_padded(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Decode-style attention: 8 query rows (speculative tokens) per ``[BH]`` against a long ragged key cache, the
    query tile padded to BM = 64 rows by the load's zero padding; the padded rows are never stored (the store is
    bounded by the array); one program per head."""
    bh = ct.bid(0)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
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
    ct.store(O, index=(bh, 0, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_decode_one_row_causal_tail(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Decode with a single new query row per head (``[BH, 1, D]``), which sees every cached key; the query
    tile is 64 rows of which row 0 is real; bf16 inputs, f32 output."""
    bh = ct.bid(0)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
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
    ct.store(O, index=(bh, 0, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_head_dim_32_causal(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Causal attention with head dim 32 (a narrow K / V row: 64 bytes in f16); ``[BH, S, D]``."""
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


@ct.kernel
def attn_head_dim_48_tile_64(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt,
                             DT: ConstInt):
    """Head dim 48 held in 64-column tiles (``DT = 64``: cuTile tiles are powers of two); the load pads the
    columns past 48 with zeros, which add nothing to the scores and are not stored; ``[BH, S, 48]``."""
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
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, DT)))


@ct.kernel
def attn_head_dim_160_bf16(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt, DT: ConstInt):
    """Head dim 160 in 256-column tiles (zero padded past 160), bf16 Q / K / V, bf16 out; non-causal."""
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
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, DT)))


@ct.kernel
def attn_both_dots_by_matmul_operator(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Both dots written with ``@`` (``q @ k.T`` then ``p @ v`` added to the rescaled accumulator), as the PyTorch
    reference reads; non-causal, ragged keys; ``[BH, S, D]``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = (q @ ct.transpose(k)).astype(ct.float32) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = acc * corr + (p.astype(ct.float16) @ v).astype(ct.float32)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_gqa_bshd_group_of_4(Q, K, V, O, qk_scale: float, G: ConstInt, BM: ConstInt, BN: ConstInt,
                             D: ConstInt):
    """GQA in the ``[B, S, H, D]`` layout (as a model's projections lay it out): query head ``h`` reads KV head
    ``h // G``; tiles ``(1, BM, 1, D)`` reshaped; causal by ``where``; program axes (query tile, head, batch)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    kvh = h // G
    seq = K.shape[1]
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(b, j, kvh, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where((kpos[None, :] <= qpos[:, None]) & (kpos[None, :] < seq), s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, kvh, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(b, qt, h, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def attn_bias_row_vector_per_key_f32(Q, K, V, KeyBias, O, qk_scale: float, BM: ConstInt, BN: ConstInt,
                                     D: ConstInt):
    """A per-key additive bias (``[BH, Sk]`` f32, e.g. log of key weights) broadcast over the query rows, added
    in log2 units after the scale; ragged keys, non-causal."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kb = ct.load(KeyBias, index=(bh, j), shape=(1, BN), padding_mode=ZERO)
        s = s + kb * LOG2E
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


_add("attn_mqa_one_kv_head_bhsd", attn_mqa_one_kv_head_bhsd,
     [_a((2, 3, 150, 64), F16), _a((2, 170, 64), F16), _a((2, 170, 64), F16), _a((2, 3, 150, 64), F16),
      scale2(64), 3, 64, 64, 64], (3, 3, 2), "chained", outputs=(3,))
_add("attn_causal_window_scalar_arg", attn_causal_window_scalar_arg,
     _bhsd(2, 300, 300, 64) + [scale2(64), 100, 64, 64, 64], (5, 2), "chained", outputs=(3,))
_add("attn_bias_tensor_bhqk_f16", attn_bias_tensor_bhqk_f16,
     _with_bias(_bhsd(4, 150, 170, 64), _a((2, 2, 150, 170), F16)) + [0.125, 2, 64, 64, 64], (3, 4), "chained",
     outputs=(4,))
_add("attn_decode_8_query_rows_padded", attn_decode_8_query_rows_padded,
     _bhsd(4, 8, 333, 64) + [scale2(64), 64, 64, 64], (4,), "chained", outputs=(3,))
_add("attn_decode_one_row_causal_tail", attn_decode_one_row_causal_tail,
     _bhsd(4, 1, 200, 128, BF16, F32) + [scale2(128), 64, 64, 128], (4,), "chained", outputs=(3,))
_add("attn_head_dim_32_causal", attn_head_dim_32_causal, _bhsd(2, 200, 200, 32) + [scale2(32), 64, 64, 32], (4, 2),
     "chained", outputs=(3,))
_add("attn_head_dim_48_tile_64", attn_head_dim_48_tile_64, _bhsd(2, 150, 170, 48) + [scale2(48), 64, 64, 48, 64],
     (3, 2), "chained", outputs=(3,))
_add("attn_head_dim_160_bf16", attn_head_dim_160_bf16,
     _bhsd(2, 150, 170, 160, BF16, BF16) + [scale2(160), 64, 64, 160, 256], (3, 2), "chained", outputs=(3,))
_add("attn_both_dots_by_matmul_operator", attn_both_dots_by_matmul_operator,
     _bhsd(2, 150, 170, 64) + [scale2(64), 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("attn_gqa_bshd_group_of_4", attn_gqa_bshd_group_of_4,
     [_a((2, 150, 8, 64), F16), _a((2, 150, 2, 64), F16), _a((2, 150, 2, 64), F16), _a((2, 150, 8, 64), F16),
      scale2(64), 4, 64, 64, 64], (3, 8, 2), "chained", outputs=(3,))
_add("attn_bias_row_vector_per_key_f32", attn_bias_row_vector_per_key_f32,
     _with_bias(_bhsd(2, 150, 170, 64), _a((2, 170))) + [scale2(64), 64, 64, 64], (3, 2), "chained", outputs=(4,))


# ----------------------------------------------------------------------------------------------- GEMMs


@ct.kernel
def gemm_mma_bf16_out_k_ragged(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``ct.mma`` into an f32 accumulator, bf16 out; K = 200 is not a multiple of the 64-wide K tile: the last
    K tile's columns past K load as zeros (``padding_mode=ZERO``) and add nothing."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(ct.bfloat16))


@ct.kernel
def gemm_matmul_fn_added_f16_out(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``acc = acc + ct.matmul(a, b)`` each K step (the function spelling of ``@``) into an f32 accumulator, f16
    out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = acc + ct.matmul(a, b)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_split_k_atomics_ranges(A, B, C, SPLIT: ConstInt, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Split-K by hand over contiguous K ranges: program axis 2 takes K tiles ``[s * per, min((s + 1) * per,
    kt))`` with ``per = cdiv(kt, SPLIT)`` and adds its partial product into the zeroed f32 C by
    ``ct.atomic_add``, masked to C's extent."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    kt = ct.cdiv(A.shape[1], TK)
    per = ct.cdiv(kt, SPLIT)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(s * per, min((s + 1) * per, kt)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.atomic_add(C, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def gemm_grouped_tile_group_table(A, B, TileGroup, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Grouped GEMM: A's rows are the groups' rows stacked, each group padded to a multiple of TM; the per-tile
    table ``TileGroup[bm]`` names the group (its B ``[G, K, N]``) an M tile belongs to, read by ``.item()``."""
    bm, bn = ct.bid(0), ct.bid(1)
    g = ct.load(TileGroup, index=(bm,), shape=(1,)).item()
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(g, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_bias_bf16_gelu_tanh(A, B, Bias, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``gelu_tanh(A @ B + bias)`` with the bias vector stored in bf16 (widened to f32 in the epilogue), bf16
    operands, bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    bias = ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO).astype(ct.float32)
    h = acc + bias[None, :]
    g = 0.5 * h * (1.0 + ct.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h)))
    ct.store(C, index=(bm, bn), tile=g.astype(C.dtype))


@ct.kernel
def gemm_bias_bf16_silu_f16_out(A, B, Bias, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``silu(A @ B + bias)`` = ``h / (1 + exp(-h))``, f16 operands, the bias in bf16, f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    h = acc + ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO).astype(ct.float32)[None, :]
    ct.store(C, index=(bm, bn), tile=(h / (1.0 + ct.exp(-h))).astype(C.dtype))


@ct.kernel
def gemm_int8_int32_acc_dequant_f16(A, B, SA, SB, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """int8 x int8 with an int32 accumulator (``ct.mma`` of s8 tiles into s32), dequantised in the epilogue by a
    per-row scale of A and a per-column scale of B (f32) to f16."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    sa = ct.load(SA, index=(bm,), shape=(TM,), padding_mode=ZERO)
    sb = ct.load(SB, index=(bn,), shape=(TN,), padding_mode=ZERO)
    y = acc.astype(ct.float32) * sa[:, None] * sb[None, :]
    ct.store(C, index=(bm, bn), tile=y.astype(C.dtype))


@ct.kernel
def gemm_batched_b_broadcast_leading_1(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Batched GEMM with B broadcast: A ``[L, M, K]``, B stored ``[1, K, N]`` (a batch of one, index 0 for every
    batch), C ``[L, M, N]``; program axes (M tile, N tile, batch)."""
    bm, bn, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(z, bm, k), shape=(1, TM, TK), padding_mode=ZERO).reshape((TM, TK))
        b = ct.load(B, index=(0, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(z, bm, bn), tile=acc.astype(C.dtype).reshape((1, TM, TN)))


@ct.kernel
def gemm_swiglu_two_weights_one_a(X, Wg, Wu, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """SwiGLU's first half in one kernel: ``silu(X @ Wg) * (X @ Wu)``, two accumulators from one A tile per K
    step; f16 in and out."""
    bm, bn = ct.bid(0), ct.bid(1)
    g = ct.zeros((TM, TN), dtype=ct.float32)
    u = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        x = ct.load(X, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        g = ct.mma(x, ct.load(Wg, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), g)
        u = ct.mma(x, ct.load(Wu, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), u)
    ct.store(Y, index=(bm, bn), tile=(g / (1.0 + ct.exp(-g)) * u).astype(Y.dtype))


@ct.kernel
def gemm_after_rmsnorm_f16_weights_nk(Xn, W, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The GEMM after an RMSNorm kernel (the second of two kernels): the normalised f16 activations ``Xn`` times a
    weight stored ``[N, K]`` as ``nn.Linear`` keeps it (``Y = Xn @ W^T``, B loaded with ``order="F"``); f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(Xn.shape[1], TK)):
        a = ct.load(Xn, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(W, index=(k, bn), shape=(TK, TN), order="F", padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_alpha_runtime_scalar_bf16(A, B, C, alpha: float, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``alpha * (A @ B)`` with ``alpha`` a runtime float argument, bf16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc * alpha)


@ct.kernel
def gemm_residual_bf16_rms_scale_rows(A, B, R, RowScale, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``(A @ B) * row_scale[m] + residual`` with the residual in bf16 and the row scale (an RMSNorm's 1/rms
    folded into the GEMM after it) in f32; bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rs = ct.load(RowScale, index=(bm,), shape=(TM,), padding_mode=ZERO)
    r = ct.load(R, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO).astype(ct.float32)
    ct.store(C, index=(bm, bn), tile=(acc * rs[:, None] + r).astype(C.dtype))


@ct.kernel
def gemm_tiles_128x128x64_f16_relu_sq(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """128 x 128 x 64 tiles (cuTile's sample sizes), squared ReLU epilogue ``relu(x) ** 2``, f16 out; M and N
    ragged."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    r = ct.maximum(acc, 0.0)
    ct.store(C, index=(bm, bn), tile=(r * r).astype(C.dtype))


_add("gemm_mma_bf16_out_k_ragged", gemm_mma_bf16_out_k_ragged,
     [_a((100, 200), BF16), _a((200, 80), BF16), _a((100, 80), BF16), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_matmul_fn_added_f16_out", gemm_matmul_fn_added_f16_out,
     [_a((100, 128), F16), _a((128, 80), F16), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_split_k_atomics_ranges", gemm_split_k_atomics_ranges,
     [_a((100, 320), F16), _a((320, 80), F16), _a((100, 80)), 3, 64, 64, 64], (2, 2, 3), "gemm", outputs=(2,))
_add("gemm_grouped_tile_group_table", gemm_grouped_tile_group_table,
     [_a((192, 64), F16), _a((3, 64, 80), F16), _a((3,), I32), _a((192, 80)), 64, 64, 64], (3, 2), "gemm",
     outputs=(3,))
_add("gemm_bias_bf16_gelu_tanh", gemm_bias_bf16_gelu_tanh,
     [_a((100, 64), BF16), _a((64, 80), BF16), _a((80,), BF16), _a((100, 80), BF16), 64, 64, 64], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_bias_bf16_silu_f16_out", gemm_bias_bf16_silu_f16_out,
     [_a((100, 64), F16), _a((64, 80), F16), _a((80,), BF16), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_int8_int32_acc_dequant_f16", gemm_int8_int32_acc_dequant_f16,
     [_a((100, 128), I8), _a((128, 80), I8), _a((100,)), _a((80,)), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm",
     outputs=(4,))
_add("gemm_batched_b_broadcast_leading_1", gemm_batched_b_broadcast_leading_1,
     [_a((3, 100, 64), F16), _a((1, 64, 80), F16), _a((3, 100, 80)), 64, 64, 64], (2, 2, 3), "gemm", outputs=(2,))
_add("gemm_swiglu_two_weights_one_a", gemm_swiglu_two_weights_one_a,
     [_a((100, 64), F16), _a((64, 80), F16), _a((64, 80), F16), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_after_rmsnorm_f16_weights_nk", gemm_after_rmsnorm_f16_weights_nk,
     [_a((100, 128), F16), _a((80, 128), F16), _a((100, 80)), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_alpha_runtime_scalar_bf16", gemm_alpha_runtime_scalar_bf16,
     [_a((100, 64), BF16), _a((64, 80), BF16), _a((100, 80)), 0.75, 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_residual_bf16_rms_scale_rows", gemm_residual_bf16_rms_scale_rows,
     [_a((100, 64), BF16), _a((64, 80), BF16), _a((100, 80), BF16), _a((100,)), _a((100, 80), BF16), 64, 64, 64],
     (2, 2), "gemm", outputs=(4,))
_add("gemm_tiles_128x128x64_f16_relu_sq", gemm_tiles_128x128x64_f16_relu_sq,
     [_a((200, 128), F16), _a((128, 136), F16), _a((200, 136), F16), 128, 128, 64], (2, 2), "gemm", outputs=(2,))


# ----------------------------------------------------------------------------------------------- memory-bound


@ct.kernel
def rmsnorm_rows_to_f16_for_gemm(X, W, Y, eps: float, BN: ConstInt):
    """RMSNorm of each row (the first of two kernels, the GEMM after it reads Y): ``x * rsqrt(mean(x^2) + eps) *
    w``, f32 in, f16 out, one program per row, the row in one tile (N = 128 = BN)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ms = ct.sum(x * x, axis=1, keepdims=True) / X.shape[1]
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(r, 0), tile=(x * ct.rsqrt(ms + eps) * w[None, :]).astype(Y.dtype))


@ct.kernel
def layernorm_bwd_dgamma_dbeta_columns(DY, XHat, DGamma, DBeta, BM: ConstInt, BN: ConstInt):
    """Layer norm backward's parameter gradients: per column block, ``dgamma = sum_rows(dy * xhat)`` and
    ``dbeta = sum_rows(dy)`` (two outputs), walking the rows in BM-row tiles (M = 300 ragged)."""
    c = ct.bid(0)
    dg = ct.zeros((1, BN), dtype=ct.float32)
    db = ct.zeros((1, BN), dtype=ct.float32)
    for i in range(ct.cdiv(DY.shape[0], BM)):
        dy = ct.load(DY, index=(i, c), shape=(BM, BN), padding_mode=ZERO)
        xh = ct.load(XHat, index=(i, c), shape=(BM, BN), padding_mode=ZERO)
        dg = dg + ct.sum(dy * xh, axis=0, keepdims=True)
        db = db + ct.sum(dy, axis=0, keepdims=True)
    ct.store(DGamma, index=(c,), tile=dg.reshape((BN,)))
    ct.store(DBeta, index=(c,), tile=db.reshape((BN,)))


@ct.kernel
def layernorm_bwd_dx_rows(DY, X, W, Mean, Rstd, DX, BN: ConstInt):
    """Layer norm backward's input gradient per row: ``xhat = (x - mean) * rstd``, ``wdy = w * dy``,
    ``dx = (wdy - mean(wdy) - xhat * mean(wdy * xhat)) * rstd`` (two row reductions), the row in one tile with its
    ragged tail (N = 100) masked out of the means."""
    r = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    dy = ct.load(DY, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO)[None, :]
    mean = ct.load(Mean, index=(r,), shape=(1,)).reshape((1, 1))
    rstd = ct.load(Rstd, index=(r,), shape=(1,)).reshape((1, 1))
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    xhat = ct.where(cols < n, (x - mean) * rstd, 0.0)
    wdy = w * dy
    c1 = ct.sum(wdy, axis=1, keepdims=True) / n
    c2 = ct.sum(wdy * xhat, axis=1, keepdims=True) / n
    ct.store(DX, index=(r, 0), tile=(wdy - c1 - xhat * c2) * rstd)


@ct.kernel
def rope_half_split_neox_bf16(X, Cos, Sin, Y, H: ConstInt, D: ConstInt, HALF: ConstInt):
    """Rotary embedding, NeoX layout: x ``[T, H, D]`` bf16, the two halves loaded as tiles at column-tile 0 and 1
    (``HALF = D / 2``), ``y1 = x1 cos - x2 sin``, ``y2 = x2 cos + x1 sin`` with ``cos`` / ``sin`` ``[T, HALF]``
    f32; one program per token, every head at once."""
    t = ct.bid(0)
    x1 = ct.load(X, index=(t, 0, 0), shape=(1, H, HALF)).reshape((H, HALF)).astype(ct.float32)
    x2 = ct.load(X, index=(t, 0, 1), shape=(1, H, HALF)).reshape((H, HALF)).astype(ct.float32)
    c = ct.load(Cos, index=(t, 0), shape=(1, HALF))
    s = ct.load(Sin, index=(t, 0), shape=(1, HALF))
    ct.store(Y, index=(t, 0, 0), tile=(x1 * c - x2 * s).astype(Y.dtype).reshape((1, H, HALF)))
    ct.store(Y, index=(t, 0, 1), tile=(x2 * c + x1 * s).astype(Y.dtype).reshape((1, H, HALF)))


@ct.kernel
def rope_interleaved_pairs_gptj(X, Cos, Sin, Y, D: ConstInt, HALF: ConstInt):
    """Rotary embedding, GPT-J layout: pairs ``(x[2i], x[2i+1])`` of a row ``[T, D]`` f32 rotated by angle ``i``;
    the row reshaped to ``(HALF, 2)``, the pair's members taken by ``ct.extract`` and put back by ``ct.cat``."""
    t = ct.bid(0)
    x = ct.load(X, index=(t, 0), shape=(1, D)).reshape((HALF, 2))
    e = ct.extract(x, index=(0, 0), shape=(HALF, 1))
    o = ct.extract(x, index=(0, 1), shape=(HALF, 1))
    c = ct.load(Cos, index=(t, 0), shape=(1, HALF)).reshape((HALF, 1))
    s = ct.load(Sin, index=(t, 0), shape=(1, HALF)).reshape((HALF, 1))
    y = ct.cat((e * c - o * s, o * c + e * s), axis=1)
    ct.store(Y, index=(t, 0), tile=y.reshape((1, D)))


@ct.kernel
def row_max_and_argmax_two_outputs(X, Val, Idx, BN: ConstInt):
    """Top-1 of each row: its maximum and the first column holding it (``ct.argmax``), two outputs (f32 and int32);
    the ragged tail (N = 100 of a 128 tile) padded with -inf so it never wins."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(Val, index=(r,), tile=ct.max(x, axis=1))
    ct.store(Idx, index=(r,), tile=ct.argmax(x, axis=1).astype(ct.int32))


@ct.kernel
def histogram_atomic_add_bins(X, Hist, NB: ConstInt, BS: ConstInt):
    """Histogram of int32 values into NB bins by ``ct.atomic_add`` of ones at the bin index; the ragged tail's
    elements get bin -1 and values outside ``[0, NB)`` stay as they are: the atomic's bounds check drops both."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BS,), padding_mode=ct.PaddingMode.ZERO)
    pos = i * BS + ct.arange(BS, dtype=ct.int32)
    bins = ct.where(pos < X.shape[0], x, -1)
    ct.atomic_add(Hist, (bins,), ct.ones((BS,), dtype=ct.int32))


@ct.kernel
def transpose_tiles_f16(X, Y, TM: ConstInt, TN: ConstInt):
    """Tiled transpose: the ``(TM, TN)`` tile at ``(i, j)`` of X ``[M, N]`` stored transposed at ``(j, i)`` of
    Y ``[N, M]``; M = 100, N = 72 ragged."""
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(X, index=(i, j), shape=(TM, TN), padding_mode=ZERO)
    ct.store(Y, index=(j, i), tile=ct.transpose(t))


@ct.kernel
def concat_columns_by_tile_offset(X1, X2, Y, BM: ConstInt, BN: ConstInt):
    """``Y = cat([X1, X2], dim=1)`` through tile offsets: X1 ``[M, N1]`` into Y's column tiles ``[0, N1/BN)``,
    X2 ``[M, N2]`` into the tiles after (N1 a multiple of BN, N2 ragged); program axis 1 walks Y's column tiles."""
    i, j = ct.bid(0), ct.bid(1)
    n1 = X1.shape[1] // BN
    if j < n1:
        ct.store(Y, index=(i, j), tile=ct.load(X1, index=(i, j), shape=(BM, BN), padding_mode=ZERO))
    else:
        ct.store(Y, index=(i, j), tile=ct.load(X2, index=(i, j - n1), shape=(BM, BN), padding_mode=ZERO))


@ct.kernel
def split_qkv_columns_to_three(QKV, Q, K, V, BM: ConstInt, D: ConstInt):
    """Split a fused ``[T, 3 D]`` projection into Q, K, V ``[T, D]`` by the column tile index (D = BN)."""
    i = ct.bid(0)
    ct.store(Q, index=(i, 0), tile=ct.load(QKV, index=(i, 0), shape=(BM, D), padding_mode=ZERO))
    ct.store(K, index=(i, 0), tile=ct.load(QKV, index=(i, 1), shape=(BM, D), padding_mode=ZERO))
    ct.store(V, index=(i, 0), tile=ct.load(QKV, index=(i, 2), shape=(BM, D), padding_mode=ZERO))


@ct.kernel
def cumsum_rows_carried_across_tiles(X, Y, BN: ConstInt):
    """Inclusive prefix sum along each row of ``[M, N]`` (N = 300) in BN-column tiles: ``ct.cumsum`` of the tile
    plus the running total of the tiles before, carried by the loop."""
    r = ct.bid(0)
    carry = ct.zeros((1, 1), dtype=ct.float32)
    for j in range(ct.cdiv(X.shape[1], BN)):
        x = ct.load(X, index=(r, j), shape=(1, BN), padding_mode=ZERO)
        c = ct.cumsum(x, axis=1) + carry
        ct.store(Y, index=(r, j), tile=c)
        carry = ct.extract(c, index=(0, BN - 1), shape=(1, 1))


@ct.kernel
def float_to_int_floor_ceil_trunc_round(X, Rn, Rz, Rm, Rp, BS: ConstInt):
    """f32 -> int32 four ways, as users write them (``astype`` to an integer takes no rounding mode): nearest-even
    by ``floor(x + 0.5)`` corrected on exact halves to the even neighbour, toward zero by ``astype`` (C's
    conversion), down by ``ct.floor``, up by ``ct.ceil``; four outputs."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BS,), padding_mode=ZERO)
    f = ct.floor(x + 0.5)
    half = (f - x) == 0.5
    odd = (f.astype(ct.int32) % 2) != 0
    ct.store(Rn, index=(i,), tile=ct.where(half & odd, f - 1.0, f).astype(ct.int32))
    ct.store(Rz, index=(i,), tile=x.astype(ct.int32))
    ct.store(Rm, index=(i,), tile=ct.floor(x).astype(ct.int32))
    ct.store(Rp, index=(i,), tile=ct.ceil(x).astype(ct.int32))


@ct.kernel
def f32_to_f16_rz_and_int8_to_f32(X, Q, Y16, Yq, BS: ConstInt):
    """Two casts with rounding: f32 -> f16 toward zero (``RoundingMode.RZ``) and int8 -> f32 (exact) times 1/64."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BS,), padding_mode=ZERO)
    q = ct.load(Q, index=(i,), shape=(BS,), padding_mode=ZERO)
    ct.store(Y16, index=(i,), tile=ct.astype(x, ct.float16, rounding_mode=ct.RoundingMode.RZ))
    ct.store(Yq, index=(i,), tile=q.astype(ct.float32) * (1.0 / 64.0))


@ct.kernel
def embedding_gather_rows_2d_index(Table, Ids, Y, BT: ConstInt, D: ConstInt):
    """Embedding lookup: ``Y[t, :] = Table[ids[t], :]`` by ``ct.gather`` with a 2-D index pair (row ids broadcast
    against the column range); ids past the table read 0 (the gather's bounds check); T = 50 ragged."""
    i = ct.bid(0)
    ids = ct.load(Ids, index=(i,), shape=(BT,), padding_mode=ZERO)
    cols = ct.arange(D, dtype=ct.int32)
    rows = ct.gather(Table, (ids[:, None], cols[None, :]))
    ct.store(Y, index=(i, 0), tile=rows)


@ct.kernel
def router_softmax_top1_prob_and_expert(Logits, Prob, Expert, BT: ConstInt, E: ConstInt):
    """A top-1 MoE router: the softmax of each token's E = 8 logits, the largest probability and its expert
    (``argmax``), two outputs; T = 50 tokens in 16-row tiles."""
    i = ct.bid(0)
    x = ct.load(Logits, index=(i, 0), shape=(BT, E), padding_mode=ZERO)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    p = e / ct.sum(e, axis=1, keepdims=True)
    ct.store(Prob, index=(i,), tile=ct.max(p, axis=1))
    ct.store(Expert, index=(i,), tile=ct.argmax(p, axis=1).astype(ct.int32))


@ct.kernel
def softmax_rows_bf16_in_out_f32_math(X, Y, BN: ConstInt):
    """Row softmax with bf16 input and output, the math in f32, the ragged tail (N = 200 of 256) padded with -inf."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(r, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(Y.dtype))


@ct.kernel
def dequant_int4_in_int8_group_scales(Q, S, Y, G: ConstInt, BS: ConstInt):
    """Weight dequantisation: int8 codes ``[R, N]`` (values -8..7), one f32 scale per group of G = 32 columns
    ``[R, N / G]``; ``y = q * s[col // G]`` through a reshape to ``(R-tile, N / G, G)``; f16 out."""
    r = ct.bid(0)
    q = ct.load(Q, index=(r, 0), shape=(1, BS)).astype(ct.float32).reshape((1, BS // G, G))
    s = ct.load(S, index=(r, 0), shape=(1, BS // G)).reshape((1, BS // G, 1))
    ct.store(Y, index=(r, 0), tile=(q * s).reshape((1, BS)).astype(Y.dtype))


@ct.kernel
def layernorm_fwd_mean_rstd_outputs(X, W, B, Y, Mean, Rstd, eps: float, BN: ConstInt):
    """Layer norm forward keeping its statistics: ``y = (x - mean) * rstd * w + b`` and ``mean``, ``rstd`` per row
    (three outputs), the row's ragged tail (N = 100) masked out of the variance."""
    r = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    mean = ct.sum(x, axis=1, keepdims=True) / n
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    d = ct.where(cols < n, x - mean, 0.0)
    rstd = ct.rsqrt(ct.sum(d * d, axis=1, keepdims=True) / n + eps)
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO)[None, :]
    b = ct.load(B, index=(0,), shape=(BN,), padding_mode=ZERO)[None, :]
    ct.store(Y, index=(r, 0), tile=d * rstd * w + b)
    ct.store(Mean, index=(r,), tile=mean.reshape((1,)))
    ct.store(Rstd, index=(r,), tile=rstd.reshape((1,)))


@ct.kernel
def segment_max_int32_atomic_by_ids(X, Seg, Out, BS: ConstInt):
    """Per-segment maximum of int32 scores by ``ct.atomic_max`` at each element's segment id (Out starts at the
    type's minimum on the host; cuTile's ``atomic_max`` takes integer arrays); the ragged tail's ids set to -1
    (dropped by the bounds check)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BS,), padding_mode=ZERO)
    seg = ct.load(Seg, index=(i,), shape=(BS,), padding_mode=ZERO)
    pos = i * BS + ct.arange(BS, dtype=ct.int32)
    ct.atomic_max(Out, (ct.where(pos < X.shape[0], seg, -1),), x)


@ct.kernel
def gelu_erf_free_tanh_bf16_elementwise(X, Y, BS: ConstInt):
    """GELU (tanh form) elementwise on bf16, the math in f32."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BS,), padding_mode=ZERO).astype(ct.float32)
    y = 0.5 * x * (1.0 + ct.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    ct.store(Y, index=(i,), tile=y.astype(Y.dtype))


_add("rmsnorm_rows_to_f16_for_gemm", rmsnorm_rows_to_f16_for_gemm, [_a((100, 128)), _a((128,)), _a((100, 128), F16),
     1e-6, 128], (100,), "simt", outputs=(2,))
_add("layernorm_bwd_dgamma_dbeta_columns", layernorm_bwd_dgamma_dbeta_columns,
     [_a((300, 96)), _a((300, 96)), _a((96,)), _a((96,)), 64, 32], (3,), "simt", outputs=(2, 3))
_add("layernorm_bwd_dx_rows", layernorm_bwd_dx_rows,
     [_a((6, 100)), _a((6, 100)), _a((100,)), _a((6,)), _a((6,)), _a((6, 100)), 128], (6,), "simt", outputs=(5,))
_add("rope_half_split_neox_bf16", rope_half_split_neox_bf16,
     [_a((20, 4, 64), BF16), _a((20, 32)), _a((20, 32)), _a((20, 4, 64), BF16), 4, 64, 32], (20,), "simt",
     outputs=(3,))
_add("rope_interleaved_pairs_gptj", rope_interleaved_pairs_gptj,
     [_a((20, 64)), _a((20, 32)), _a((20, 32)), _a((20, 64)), 64, 32], (20,), "simt", outputs=(3,))
_add("row_max_and_argmax_two_outputs", row_max_and_argmax_two_outputs,
     [_a((6, 100)), _a((6,)), _a((6,), I32), 128], (6,), "simt", outputs=(1, 2))
_add("histogram_atomic_add_bins", histogram_atomic_add_bins, [_a((500,), I32), _a((16,), I32), 16, 128], (4,),
     "simt", outputs=(1,))
_add("transpose_tiles_f16", transpose_tiles_f16, [_a((100, 72), F16), _a((72, 100), F16), 32, 32], (4, 3), "simt",
     outputs=(1,))
_add("concat_columns_by_tile_offset", concat_columns_by_tile_offset,
     [_a((50, 64)), _a((50, 40)), _a((50, 104)), 32, 32], (2, 4), "simt", outputs=(2,))
_add("split_qkv_columns_to_three", split_qkv_columns_to_three,
     [_a((50, 192), F16), _a((50, 64), F16), _a((50, 64), F16), _a((50, 64), F16), 32, 64], (2,), "simt",
     outputs=(1, 2, 3))
_add("cumsum_rows_carried_across_tiles", cumsum_rows_carried_across_tiles, [_a((4, 300)), _a((4, 300)), 128], (4,),
     "simt", outputs=(1,))
_add("float_to_int_floor_ceil_trunc_round", float_to_int_floor_ceil_trunc_round,
     [_a((200,)), _a((200,), I32), _a((200,), I32), _a((200,), I32), _a((200,), I32), 64], (4,), "simt",
     outputs=(1, 2, 3, 4))
_add("f32_to_f16_rz_and_int8_to_f32", f32_to_f16_rz_and_int8_to_f32,
     [_a((200,)), _a((200,), I8), _a((200,), F16), _a((200,)), 64], (4,), "simt", outputs=(2, 3))
_add("embedding_gather_rows_2d_index", embedding_gather_rows_2d_index,
     [_a((40, 64)), _a((50,), I32), _a((50, 64)), 16, 64], (4,), "simt", outputs=(2,))
_add("router_softmax_top1_prob_and_expert", router_softmax_top1_prob_and_expert,
     [_a((50, 8)), _a((50,)), _a((50,), I32), 16, 8], (4,), "simt", outputs=(1, 2))
_add("softmax_rows_bf16_in_out_f32_math", softmax_rows_bf16_in_out_f32_math,
     [_a((5, 200), BF16), _a((5, 200), BF16), 256], (5,), "simt", outputs=(1,))
_add("dequant_int4_in_int8_group_scales", dequant_int4_in_int8_group_scales,
     [_a((6, 128), I8), _a((6, 4)), _a((6, 128), F16), 32, 128], (6,), "simt", outputs=(2,))
_add("layernorm_fwd_mean_rstd_outputs", layernorm_fwd_mean_rstd_outputs,
     [_a((6, 100)), _a((100,)), _a((100,)), _a((6, 100)), _a((6,)), _a((6,)), 1e-5, 128], (6,), "simt",
     outputs=(3, 4, 5))
_add("segment_max_int32_atomic_by_ids", segment_max_int32_atomic_by_ids,
     [_a((300,), I32), _a((300,), I32), _a((10,), I32), 128], (3,), "simt", outputs=(2,))
_add("gelu_erf_free_tanh_bf16_elementwise", gelu_erf_free_tanh_bf16_elementwise,
     [_a((300,), BF16), _a((300,), BF16), 128], (3,), "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- more attention


@ct.kernel
def attn_decode_gqa_heads_packed_in_rows(Q, K, V, O, qk_scale: float, G: ConstInt, BM: ConstInt, BN: ConstInt,
                                         D: ConstInt):
    """Decode with GQA, the G = 8 query heads sharing a KV head packed into the rows of one query tile: Q and O
    ``[B, HKV, G, D]`` (one new token per head), K / V ``[B, HKV, S, D]``; the tile's BM = 64 rows hold the 8 heads
    and zero padding (the padded rows are not stored); one program per (KV head, batch)."""
    kvh, b = ct.bid(0), ct.bid(1)
    seq = K.shape[2]
    q = ct.load(Q, index=(b, kvh, 0, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
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
    ct.store(O, index=(b, kvh, 0, 0), tile=(acc / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_tiles_128x128_d64(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """128-row query tiles against 128-key tiles (as cuTile's FMHA sample sizes them for head dim 64), causal by
    ``where``, ragged; ``[BH, S, D]``."""
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


@ct.kernel
def attn_scale_after_max_natural_exp(Q, K, V, O, sm_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The softmax scale applied after the row maximum of the raw scores: ``p = exp((s - m) * scale)``, ``corr =
    exp((m_old - m) * scale)`` (natural ``exp``; the maximum taken unscaled); ragged keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp((s - m_new) * sm_scale)
        corr = ct.exp((m - m_new) * sm_scale)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_per_head_scale_item(Q, K, V, HeadScale, O, H: ConstInt, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """A learned per-head score scale (``[H]`` f32, log2 units) read by ``.item()`` at the head of the program;
    non-causal, ragged keys; ``[B * H, S, D]``."""
    qt, bh = ct.bid(0), ct.bid(1)
    sc = ct.load(HeadScale, index=(bh % H,), shape=(1,)).item()
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sc
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
def attn_left_padding_start_per_row(Q, K, V, Start, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Left-padded batches: each query row sees keys from its own first valid key ``Start[bh, q]`` (int32, ``[BH,
    Sq]``) to its causal limit; a row loaded as a ``(BM,)`` tile and compared per column; rows whose first key tiles
    are all padding keep a guarded maximum (0 while -inf); ``[BH, S, D]``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    first = ct.load(Start, index=(bh, qt), shape=(1, BM), padding_mode=ZERO).reshape((BM,))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        keep = (kpos[None, :] <= qpos[:, None]) & (kpos[None, :] >= first[:, None])
        s = ct.where(keep, s, -math.inf)
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
def gemm_c_and_column_sums_by_atomics(A, B, C, ColSum, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """C = A @ B (f32) and, in the same epilogue, C's column sums accumulated into a zeroed ``[N]`` f32 array by
    ``ct.atomic_add`` (one partial per M tile; the ragged rows past M are zero: A is zero padded)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.atomic_add(ColSum, (cols,), ct.sum(acc, axis=0))


@ct.kernel
def gemm_relu_and_row_sums_by_atomics(A, B, C, RowSum, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C = relu(A @ B)`` in f16 and each row's sum of the f32 ReLU accumulated into a zeroed ``[M]`` f32 array
    by ``ct.atomic_add`` (one partial per N tile; the columns past N are zero: B is zero padded); M, N ragged."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    r = ct.maximum(acc, 0.0)
    ct.store(C, index=(bm, bn), tile=r.astype(C.dtype))
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    ct.atomic_add(RowSum, (rows,), ct.sum(r, axis=1))


@ct.kernel
def gemm_k_1000_bf16_tk_32(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """K = 1000 (31 full K tiles of 32 and one of 8), bf16 operands, f32 out; 64 x 128 tiles."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


_add("attn_decode_gqa_heads_packed_in_rows", attn_decode_gqa_heads_packed_in_rows,
     [_a((2, 2, 8, 64), F16), _a((2, 2, 300, 64), F16), _a((2, 2, 300, 64), F16), _a((2, 2, 8, 64), F16), scale2(64),
      8, 64, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_tiles_128x128_d64", attn_tiles_128x128_d64, _bhsd(2, 300, 300, 64) + [scale2(64), 128, 128, 64], (3, 2),
     "chained", outputs=(3,))
_add("attn_scale_after_max_natural_exp", attn_scale_after_max_natural_exp,
     _bhsd(2, 150, 170, 64) + [0.125, 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("attn_per_head_scale_item", attn_per_head_scale_item,
     _with_bias(_bhsd(4, 150, 170, 64), _a((2,))) + [2, 64, 64, 64], (3, 4), "chained", outputs=(4,))
_add("attn_left_padding_start_per_row", attn_left_padding_start_per_row,
     _with_bias(_bhsd(2, 200, 200, 64), _a((2, 200), I32)) + [scale2(64), 64, 64, 64], (4, 2), "chained",
     outputs=(4,))
_add("gemm_c_and_column_sums_by_atomics", gemm_c_and_column_sums_by_atomics,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), _a((80,)), 64, 64, 64], (2, 2), "gemm", outputs=(2, 3))
_add("gemm_relu_and_row_sums_by_atomics", gemm_relu_and_row_sums_by_atomics,
     [_a((100, 64), F16), _a((64, 200), F16), _a((100, 200), F16), _a((100,)), 64, 64, 64], (2, 4), "gemm",
     outputs=(2, 3))
_add("gemm_k_1000_bf16_tk_32", gemm_k_1000_bf16_tk_32,
     [_a((100, 1000), BF16), _a((1000, 200), BF16), _a((100, 200)), 64, 128, 32], (2, 2), "gemm", outputs=(2,))



@ct.kernel
def attn_decode_16_rows_tile_16(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Decode with 16 new query rows per head held in a 16-row query tile (``BM = 16``, as a user sizes it for
    ``Sq = 16``) against a ragged key cache in 64-key tiles; one program per head."""
    bh = ct.bid(0)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
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
    ct.store(O, index=(bh, 0, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_key_tiles_of_16(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """64-row query tiles against 16-key tiles (``BN = 16``: many short key steps), causal by ``where``, ragged;
    ``[BH, S, D]``."""
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


@ct.kernel
def bmm_3d_tile_matmul_2d_b_broadcast(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A 3-D A tile times a 2-D B tile, ``ct.matmul((1, TM, TK), (TK, TN))`` (cuTile broadcasts B to the batch),
    into a 3-D f32 accumulator: ``C[z] = A[z] @ B``; program axes (M tile, N tile, batch)."""
    bm, bn, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(z, bm, k), shape=(1, TM, TK), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = acc + ct.matmul(a, b).astype(ct.float32)
    ct.store(C, index=(z, bm, bn), tile=acc)


@ct.kernel
def gemm_decode_m8_tile_16_tn_32(X, W, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A decode-step GEMM: 8 token rows in a 16-row tile against a ``[K, N]`` weight in 32-column tiles
    (N = 200 ragged), f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        x = ct.load(X, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    ct.store(Y, index=(bm, bn), tile=acc)


_add("attn_decode_16_rows_tile_16", attn_decode_16_rows_tile_16,
     _bhsd(4, 16, 300, 64) + [scale2(64), 16, 64, 64], (4,), "chained", outputs=(3,))
_add("attn_key_tiles_of_16", attn_key_tiles_of_16, _bhsd(2, 150, 150, 64) + [scale2(64), 64, 16, 64], (3, 2),
     "chained", outputs=(3,))
_add("bmm_3d_tile_matmul_2d_b_broadcast", bmm_3d_tile_matmul_2d_b_broadcast,
     [_a((3, 100, 64), F16), _a((64, 80), F16), _a((3, 100, 80)), 64, 64, 64], (2, 2, 3), "gemm", outputs=(2,))
_add("gemm_decode_m8_tile_16_tn_32", gemm_decode_m8_tile_16_tn_32,
     [_a((8, 256), F16), _a((256, 200), F16), _a((8, 200)), 16, 32, 64], (1, 7), "gemm", outputs=(2,))


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def astype_to_int_with_rounding_mode(X, Y, BS: ConstInt):
    """f32 -> int32 asking for round-to-nearest (cuTile takes a rounding mode for float -> float only)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.astype(x, ct.int32, rounding_mode=ct.RoundingMode.RN))


@ct.kernel
def atomic_max_of_f32_segments(X, Seg, Out, BS: ConstInt):
    """A per-segment maximum of f32 values by ``ct.atomic_max`` (integer arrays only)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    seg = ct.load(Seg, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.atomic_max(Out, (seg,), x)


@ct.kernel
def head_dim_48_as_tile_shape(Q, O, BM: ConstInt, D: ConstInt):
    """A head dim of 48 used as the tile's width (tiles are powers of two)."""
    q = ct.load(Q, index=(ct.bid(0), 0), shape=(BM, D), padding_mode=ZERO)
    ct.store(O, index=(ct.bid(0), 0), tile=q)


@ct.kernel
def int8_mma_into_f32_acc(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """int8 tiles multiplied into an f32 accumulator (int8 takes int32)."""
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
    acc = ct.mma(a, b, acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc)


@ct.kernel
def gather_with_float_indices(T, Ids, Y, BS: ConstInt):
    """An embedding gather whose indices are f32 tiles."""
    ids = ct.load(Ids, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.gather(T, ids))


@ct.kernel
def atomic_add_one_index_into_2d(H, X, BS: ConstInt):
    """A histogram into a 2-D array given a single index tile."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.atomic_add(H, (x,), ct.ones((BS,), dtype=ct.int32))


@ct.kernel
def cumsum_axis_2_of_a_row_tile(X, Y, BN: ConstInt):
    """A row's prefix sum along axis 2 of a 2-D tile."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=ct.cumsum(x, axis=2))


@ct.kernel
def transpose_of_a_vector(X, Y, BS: ConstInt):
    """``ct.transpose`` of a 1-D tile."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.transpose(x))


@ct.kernel
def matmul_inner_dims_disagree(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``a @ b`` of a (64, 32) and a (64, 64) tile (K 32 against 64)."""
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(TM, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=a @ b)


@ct.kernel
def where_of_unbroadcastable_shapes(X, Y, BS: ConstInt):
    """``ct.where`` of a (64,) mask against a (32,) tile."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    h = ct.load(X, index=(ct.bid(0),), shape=(BS // 2,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.where(x > 0, h, 0.0))


@ct.kernel
def full_of_a_runtime_shape(X, Y, n: int):
    """``ct.full`` whose shape is a runtime argument."""
    ct.store(Y, index=(0,), tile=ct.full((n,), 1.0, dtype=ct.float32))


@ct.kernel
def item_of_a_64_element_tile(X, Y, BS: ConstInt):
    """``.item()`` of a tile of 64 elements."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=ct.full((BS,), x.item(), dtype=ct.float32))


@ct.kernel
def math_exp_of_a_tile(X, Y, BS: ConstInt):
    """Python's ``math.exp`` called on a tile."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=math.exp(x))


@ct.kernel
def kernel_returns_its_sum(X, BS: ConstInt):
    """A kernel that returns the tile's sum."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BS,), padding_mode=ZERO)
    return ct.sum(x)


@ct.kernel
def bf16_mma_into_f16_acc(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """bf16 tiles multiplied into an f16 accumulator."""
    acc = ct.zeros((TM, TN), dtype=ct.float16)
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b, acc))


@ct.kernel
def extract_past_the_tile(X, Y, BN: ConstInt):
    """``ct.extract`` of the column block after the tile's last."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=ct.extract(x, index=(0, 2), shape=(1, BN // 2)))


@ct.kernel
def cat_of_different_row_counts(X, Y, BN: ConstInt):
    """``ct.cat`` along axis 1 of a (1, 64) and a (2, 64) tile."""
    a = ct.load(X, index=(0, 0), shape=(1, BN), padding_mode=ZERO)
    b = ct.load(X, index=(0, 0), shape=(2, BN), padding_mode=ZERO)
    ct.store(Y, index=(0, 0), tile=ct.cat((a, b), axis=1))


@ct.kernel
def range_of_a_float_bound(X, Y, n: float, BS: ConstInt):
    """A loop ``range(n)`` whose bound is a float argument."""
    acc = ct.zeros((BS,), dtype=ct.float32)
    for i in range(n):
        acc = acc + ct.load(X, index=(i,), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def store_2d_tile_at_1d_index(X, Y, BM: ConstInt, BN: ConstInt):
    """A (BM, BN) tile stored into a 1-D array."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def argmax_axis_of_a_runtime_int(X, Y, ax: int, BN: ConstInt):
    """``ct.argmax`` along an axis given as a runtime argument."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.argmax(x, axis=ax))


@ct.kernel
def bid_of_axis_3(X, Y, BS: ConstInt):
    """``ct.bid(3)`` (the grid has three axes)."""
    x = ct.load(X, index=(ct.bid(3),), shape=(BS,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=x)


@ct.kernel
def mma_e5m2_by_e4m3(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An fp8 GEMM tile with e5m2 A and e4m3 B."""
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b, acc))


@ct.kernel
def int64_mma_tiles(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """int64 tiles multiplied by ``@``."""
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=a @ b)


_V, _M, _H = _a((200,)), _a((64, 128)), _a((128, 128), F16)
REJECTED_BY_CUTILE = {
    # name: (kernel, spec, words of cuTile's message, text of the line it names)
    "astype_to_int_with_rounding_mode": (astype_to_int_with_rounding_mode, [_V, _a((200,), I32), 64],
                                         "rounding_mode is only valid for float to float conversions",
                                         "rounding_mode=ct.RoundingMode.RN"),
    "atomic_max_of_f32_segments": (atomic_max_of_f32_segments, [_V, _a((200,), I32), _a((10,)), 64],
                                   "Unsupported array dtype: float32", "ct.atomic_max(Out, (seg,), x)"),
    "head_dim_48_as_tile_shape": (head_dim_48_as_tile_shape, [_a((100, 48), F16), _a((100, 48), F16), 64, 48],
                                  "Dimension #1 of shape (64, 48) is not a power of two", "q = ct.load(Q"),
    "int8_mma_into_f32_acc": (int8_mma_into_f32_acc, [_a((64, 64), I8), _a((64, 64), I8), _a((64, 64)), 64, 64, 64],
                              "Unsupported acc dtype float32", "acc = ct.mma(a, b, acc)"),
    "gather_with_float_indices": (gather_with_float_indices, [_V, _V, _V, 64],
                                  "Expected a tuple of integer scalars/tiles or a single integer scalar/tile",
                                  "ct.gather(T, ids)"),
    "atomic_add_one_index_into_2d": (atomic_add_one_index_into_2d, [_a((4, 4), I32), _a((200,), I32), 64],
                                     "For array of rank 2, `indices` must be a tuple of length 2",
                                     "ct.atomic_add(H, (x,)"),
    "cumsum_axis_2_of_a_row_tile": (cumsum_axis_2_of_a_row_tile, [_M, _M, 128], "Axis 2 is out of range for rank 2",
                                    "ct.cumsum(x, axis=2)"),
    "transpose_of_a_vector": (transpose_of_a_vector, [_V, _V, 64],
                              "Cannot transpose a tile with fewer than 2 dimensions", "ct.transpose(x)"),
    "matmul_inner_dims_disagree": (matmul_inner_dims_disagree, [_H, _H, _a((128, 128)), 64, 64, 32],
                                   "Incompatible shapes for matrix mul on tiles: (64, 32), (64, 64)", "tile=a @ b"),
    "where_of_unbroadcastable_shapes": (where_of_unbroadcastable_shapes, [_V, _V, 64],
                                        "Shapes are not broadcastable: (64,), (32,)", "ct.where(x > 0, h, 0.0)"),
    "full_of_a_runtime_shape": (full_of_a_runtime_shape, [_V, _V, 64],
                                "Invalid argument \"shape\" of full(): Expected a constant integer tuple",
                                "ct.full((n,)"),
    "item_of_a_64_element_tile": (item_of_a_64_element_tile, [_V, _V, 64], "Cannot reshape (64,) to ()",
                                  "x.item()"),
    "math_exp_of_a_tile": (math_exp_of_a_tile, [_V, _V, 64], "exp() is not supported in device code",
                           "tile=math.exp(x)"),
    "kernel_returns_its_sum": (kernel_returns_its_sum, [_V, 64], "Tile kernels cannot return values",
                               "return ct.sum(x)"),
    "bf16_mma_into_f16_acc": (bf16_mma_into_f16_acc, [_a((64, 64), BF16), _a((64, 64), BF16), _a((64, 64), F16), 64,
                                                      64, 64], "Unsupported acc dtype float16", "ct.mma(a, b, acc)"),
    "extract_past_the_tile": (extract_past_the_tile, [_M, _M, 128],
                              "Index 2 out of bounds at dimension #1: valid range is [0, 2)", "ct.extract(x, index=(0, 2)"),
    "cat_of_different_row_counts": (cat_of_different_row_counts, [_M, _M, 64],
                                    "Expected tiles to have the same shape for non axis dimensions, got (1, 64) and "
                                    "(2, 64)", "ct.cat((a, b), axis=1)"),
    "range_of_a_float_bound": (range_of_a_float_bound, [_V, _V, 2.0, 64],
                               "Expected a signed integer scalar, but got Tile[float32,()]", "for i in range(n)"),
    "argmax_axis_of_a_runtime_int": (argmax_axis_of_a_runtime_int, [_M, _a((64,), I32), 1, 128],
                                     "Invalid argument \"axis\" of argmax(): Expected an integer constant",
                                     "ct.argmax(x, axis=ax)"),
    "bid_of_axis_3": (bid_of_axis_3, [_V, _V, 64], "Axis must be 0, 1, or 2, but 3 was given", "ct.bid(3)"),
    "mma_e5m2_by_e4m3": (mma_e5m2_by_e4m3, [_a((64, 64), "float8_e5m2"), _a((64, 64), "float8_e4m3fn"), _a((64, 64)),
                                            64, 64, 64],
                         "x and y must have the same dtype unless they are int8/uint8, got float8_e5m2 float8_e4m3fn",
                         "ct.mma(a, b, acc)"),
    "int64_mma_tiles": (int64_mma_tiles, [_a((64, 64), "int64")] * 3 + [64, 64, 64],
                        "Unsupported input dtype int64", "tile=a @ b"),
}
"""Programs cuTile's front end refuses at the user's line (tileorch never sees them)."""


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("store_2d_tile_at_1d_index", store_2d_tile_at_1d_index, [_M, _a((4096,)), 64, 64], (1,), "error",
     error="expected tensor_view rank and tile rank to match, got tensor_view of rank 1 and tiles of rank 2",
     notes="ct.store(Y, index=(ct.bid(0),), tile=x)")
