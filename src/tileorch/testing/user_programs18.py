"""The eighteenth user sweep (session 24, issue 20 and the principal tier: dot and attention-shaped
programs acceptance runs that we will not see): cuTile 1.7 programs written the ways users write
them, in the combinations the dot zoo, the attention sets 1-4 and sweeps 6-16 do not hold.

Attention: head dims 80 / 96 / 192 held in power-of-two tiles (cuTile's tiles are powers of two: 128
and 256, the tail zero-padded by the load), GQA with the KV head ``h // group`` on a 3-axis grid and
from a head table (``ct.gather``), MQA with a K/V of one head (3-D beside a 4-D Q), a causal sliding
window of 100 keys (not a multiple of the 64-key tile) starting its key loop at the window's first
tile, logit soft-capping ``cap * tanh(s / cap)`` with natural ``ct.exp`` and the scale applied
before the max, ALiBi slopes read from an array (symmetric ``-|i - j|``, no causal mask), a
prefix-LM mask whose prefix length per batch comes from an array, decode-like cross attention (5
and 7 queries in a 64-row tile, one query in a 16-row tile, 300 / 77 keys ragged), the log-sum-exp
stored into a flat 1-D array (index ``bh * S + qt * BM``), bf16 in / f32 out, V stored transposed
``[BH, D, S]``, a value head dim twice the score head dim, heads packed as column tiles of
``[B, S, H * D]`` and Q / K / V read from one fused projection array, Triton's ``acc = acc * alpha;
acc = acc + p @ v`` with 1-D row state, a true ``-inf`` as the running max's start and the mask, a
chunked-prefill query offset passed at launch, an f32 bias shared by every head, the causal mask
applied to P after the exponent, a per-key padding flag gathered at the key tile's positions, the key
tiles visited last to first, and the backward's dQ (three
dots per key tile: ``S = Q K^T``, ``dP = dO V^T``, ``dQ += dS K``).

GEMMs: both operands transposed (``A^T [B, K, M]`` and a ``W^T [N, K]`` shared by the batch), a
weight batch of one matrix read at index 0 for every batch, the batch on grid axis 0, program tiles
64 x 256 and 256 x 64, a transposed tile stored into ``[N, M]`` with a per-row bias, a per-column
bias + GELU (tanh) + uint8 dropout-mask epilogue into bf16, materialised causal scores
``tril(Q K^T)`` (an epilogue reading its tile's positions), K = 8 and K = 24 (below / not a
multiple of one f16 WGMMA K step), a column bias gathered at int64 indices with a per-row-tile scalar
scale, an f64 output, K tiles of 16 with a runtime trip count and the bias on the first
column tile, the first K step peeled before the loop, the accumulator started from the bias, fp8
e5m2 A converted to e4m3 in the K loop against an e4m3 B, a grouped GEMM over a tile-aligned offsets
table with empty groups, a GEMM beside an unrelated elementwise store (after the K loop, and before
it), and a squared-ReLU MLP whose second dot (``W2`` stored ``[N, H]``) follows the K loop.

Found by this sweep (the entries' ``notes``): the weight ``W[bid(2)]`` beside 2-D X and Y was refused
("A, B and C must all be batched"); now B's batch index per work tile with C the one matrix.  Int64
position tiles (``ct.arange(n, dtype=ct.int64)``) in a score mask or a GEMM epilogue crashed the
compile (an i32 position added to an i64 offset); now sign-extended.  An epilogue ``ct.gather`` with a
tile of indices (a column bias at computed columns) was refused; now loaded per element.  (Session 25:
the squared-ReLU MLP, whose ``W2`` ``[N, H]`` is a K-major second-dot B, moved from SIMT to the GEMM
kernel's second dot on the accumulator.)

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (``path``: "gemm"
= TMA + WGMMA, "chained" = the chained tensor-core tier, "simt" with ``error`` = the located remark
saying why not), driven by tests/unit/test_user_sweep18_compile.py (path, remark, ptxas without
spills), tests/unit/test_user_sweep18_emulated.py (the PTX emulator against numpy, f16 operands),
tests/unit/test_user_sweep18_interp.py (the SIMT interpreter on the refused f16 programs) and
tests/gpu/test_user_sweep18_gpu.py (the GPU against torch fp32, NaN-prefilled).  Importing it
needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
C = ct.Constant
ZERO = ct.PaddingMode.ZERO
F16, BF16, F32, I32, U8 = "float16", "bfloat16", "float32", "int32", "uint8"
E4M3, E5M2 = "float8_e4m3fn", "float8_e5m2"
NEG = -1.0e30  # a finite "minus infinity"


def _a(shape, dt=F16):
    return (tuple(shape), dt)


# ----------------------------------------------------------------------------------------------- attention: head dims


@ct.kernel
def attn_d80_padded_tile128(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], DP: C[int]):
    """Head dim 80 held in 128-wide tiles (the loads zero-pad columns 80..127 of Q, K and V; the store
    drops them), keys ragged (200), exp2 with the scale folded."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DP), padding_mode=ZERO).reshape((BM, DP))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, DP), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DP), padding_mode=ZERO).reshape((BN, DP))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DP), padding_mode=ZERO).reshape((BN, DP))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, DP)))


@ct.kernel
def attn_d192_padded_tile256_bm64(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], DP: C[int]):
    """Head dim 192 held in 256-wide tiles on 64-row query tiles and 32-key tiles (register budget), all
    keys visible, exp2."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DP), padding_mode=ZERO).reshape((BM, DP))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, DP), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, DP))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DP), padding_mode=ZERO).reshape((BN, DP))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DP), padding_mode=ZERO).reshape((BN, DP))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, DP)))


# ----------------------------------------------------------------------------------------------- attention: heads


@ct.kernel
def attn_gqa_h_div_group_d96(Q, K, V, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int], DP: C[int]):
    """GQA on a 3-axis grid (query tile, query head, batch) of ``[B, H, S, D]`` arrays: the KV head is
    ``h // G``; head dim 96 in 128-wide tiles, causal."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    kh = h // G
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, DP), padding_mode=ZERO).reshape((BM, DP))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, DP), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(b, kh, j, 0), shape=(1, 1, BN, DP), padding_mode=ZERO).reshape((BN, DP))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, kh, j, 0), shape=(1, 1, BN, DP), padding_mode=ZERO).reshape((BN, DP))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, DP)))


@ct.kernel
def attn_gqa_head_table(Q, K, V, KvHead, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """GQA whose query head -> KV head map is a table (``KvHead[h]``, read with ``ct.gather``; uneven
    groups), ``bid(1) = b * H + h`` over ``[B*H, S, D]`` queries and ``[B*HKV, S, D]`` keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    hkv = K.shape[0] // (Q.shape[0] // H)
    kvrow = b * hkv + ct.gather(KvHead, h)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(kvrow, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(kvrow, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_mqa_kv_3d(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """MQA: a 4-D ``[B, H, S, D]`` query against one K/V head per batch (``[B, S, D]``, no head axis),
    grid (query tile, head, batch), keys ragged (150)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    nk = K.shape[1]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


# ----------------------------------------------------------------------------------------------- attention: masks, scores


@ct.kernel
def attn_sliding_window_ragged(Q, K, V, O, qk_scale: float, W: C[int], BM: C[int], BN: C[int], D: C[int]):
    """Causal sliding window of ``W = 100`` keys (query ``i`` sees ``i - W < j <= i``; 100 is not a
    multiple of the 64-key tile): the key loop starts at the window's first tile
    ``max(qt * BM - W + 1, 0) // BN``; 250 positions (ragged)."""
    qt, bh = ct.bid(0), ct.bid(1)
    n = Q.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(max(qt * BM - W + 1, 0) // BN, ct.cdiv(min((qt + 1) * BM, n), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos > qpos - W) & (kpos < n), s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_softcap_exp_scale_unfolded(Q, K, V, O, scale: float, cap: float, BM: C[int], BN: C[int], D: C[int]):
    """Logit soft-capping as Gemma 2 writes it: ``s = cap * tanh((q k^T) * scale / cap)``, the scale
    applied before the max (not folded into the exponent), natural ``ct.exp``; keys ragged (200)."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        s = cap * ct.tanh(s / cap)
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_alibi_slopes_array_sym(Q, K, V, Slopes, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int],
                                D: C[int]):
    """Bidirectional ALiBi (encoder): the head's slope read from ``Slopes[h]`` (f32, ``ct.gather``), the
    bias ``-slope * |i - j|`` added to the natural-unit score before the max, natural ``ct.exp``."""
    qt, bh = ct.bid(0), ct.bid(1)
    slope = ct.gather(Slopes, bh % H)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = s - slope * ct.abs(kpos - qpos).astype(ct.float32)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_prefix_lm_len_array(Q, K, V, PrefixLen, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Prefix-LM: the first ``PrefixLen[bh]`` positions attend bidirectionally among themselves, the rest
    causally (``j <= i or j < prefix``); the prefix length per row from an int32 array, the key loop
    to ``max(causal end, prefix end)``."""
    qt, bh = ct.bid(0), ct.bid(1)
    pre = ct.gather(PrefixLen, bh)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(max((qt + 1) * BM, pre), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) | (kpos < pre), s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- attention: shapes, outputs


@ct.kernel
def attn_decode_q5_kv300(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Decode-like cross attention: 5 query rows (speculative tokens) in one 64-row tile (rows 5..63
    zero-padded, their store dropped), 300 keys (ragged 64-key tiles), one program per (batch, head)."""
    bh = ct.bid(0)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, 0, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_decode_q7_causal_tail(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Speculative decoding verification: 7 new queries at the end of a 77-key cache (query ``r`` sees
    keys ``j <= 70 + r``), one 64-row tile, 32-key tiles (77 ragged)."""
    bh = ct.bid(0)
    sq, sk = Q.shape[1], K.shape[1]
    qpos = (sk - sq + ct.arange(BM, dtype=ct.int32))[:, None]
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(sk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos < sk), s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, 0, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_lse_flat_1d(Q, K, V, O, Lse, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """O and the natural-log LSE, the LSE stored into a flat ``[BH * S]`` f32 array at tile index
    ``bh * (S / BM) + qt`` (S a multiple of BM)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    lse = (m_i + ct.log2(l_i)) * 0.6931471805599453
    ct.store(Lse, index=(bh * (Q.shape[1] // BM) + qt,), tile=lse.reshape((BM,)))


@ct.kernel
def attn_bf16_in_f32_out_causal(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """bf16 Q / K / V, the output stored as f32 (no rounding to bf16), causal on 128 x 64 tiles, the
    diagonal tile masked by ``ct.greater_equal`` of the position tiles."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(ct.greater_equal(qpos, (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]), s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).reshape((1, BM, D)))


@ct.kernel
def attn_v_transposed_dsk(Q, K, Vt, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """V stored transposed (``[BH, D, S]``, as a kernel that wrote V^T for another consumer keeps it):
    its ``(D, BN)`` tile turned by ``ct.transpose`` into the PV dot's B."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        vt = ct.load(Vt, index=(bh, 0, j), shape=(1, D, BN)).reshape((D, BN))
        acc = ct.mma(p.astype(ct.float16), ct.transpose(vt), acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bwd_dq_lse_delta(Q, K, V, dO, Lse, Delta, dQ, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The backward's dQ (FlashAttention-2's dq kernel): per key tile ``P = exp2(S * scale - lse)``
    from the saved log2-unit LSE, ``dP = dO V^T``, ``dS = P (dP - delta)``, ``dQ += dS K``; three dots
    per key tile, ``dQ`` scaled by the natural scale at the end, f32 output."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    do = ct.load(dO, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    lse = ct.load(Lse, index=(bh, qt), shape=(1, BM)).reshape((BM, 1))
    delta = ct.load(Delta, index=(bh, qt), shape=(1, BM)).reshape((BM, 1))
    dq = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        p = ct.exp2(s * qk_scale - lse)
        dp = ct.mma(do, ct.transpose(v), ct.zeros((BM, BN), dtype=ct.float32))
        ds = p * (dp - delta)
        dq = ct.mma(ds.astype(ct.float16), k, dq)
    ct.store(dQ, index=(bh, qt, 0), tile=(dq * (qk_scale / LOG2E)).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- attention: layouts, spellings


@ct.kernel
def attn_heads_packed_columns(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """``[B, S, H * D]`` arrays (a QKV projection's output before any reshape): head ``h``'s ``(1, BM, D)``
    tile at column tile index ``h``; grid (query tile, head, batch); 192 keys."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, qt, h), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(b, j, h), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, h), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, qt, h), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_fused_qkv_one_array(QKV, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """Q, K and V read from one fused ``[B, S, 3 * H * D]`` projection output (column tiles ``h``,
    ``H + h``, ``2 H + h``), causal, O ``[B, S, H * D]``."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(QKV, index=(b, qt, h), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(QKV, index=(b, j, H + h), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(QKV, index=(b, j, 2 * H + h), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, qt, h), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_rescale_then_add_dot(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Triton's spelling of the PV update: ``acc = acc * alpha`` then ``acc = acc + p @ v`` (the dot
    without an accumulator operand, its product added), the row statistics as 1-D tiles."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM,), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM,), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = (q @ ct.transpose(k)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1))
        p = ct.exp2(s - m_new[:, None])
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1)
        acc = acc * alpha[:, None]
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = acc + p.astype(ct.float16) @ v
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i[:, None]).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_neg_inf_causal_ragged(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal with a true ``-inf`` (``-math.inf``) as the running max's start and as the mask value, 200
    positions (ragged 64-row tiles: the padded query rows see keys up to their own position)."""
    qt, bh = ct.bid(0), ct.bid(1)
    n = Q.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, n), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos < n), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_chunked_prefill_offset_arg(Q, K, V, O, qk_scale: float, q0: int, BM: C[int], BN: C[int], D: C[int]):
    """Chunked prefill: the query chunk starts at position ``q0`` (a runtime argument) of a sequence whose
    keys (cache + chunk) are all in K; causal against ``q0 + i``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (q0 + qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(q0 + (qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bias_shared_by_heads(Q, K, V, Bias, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """An additive f32 ``[Sq, Sk]`` bias (a relative-position table materialised once) shared by every
    (batch, head) row, read per key tile and added in log2 units before the max."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = s + ct.load(Bias, index=(qt, j), shape=(BM, BN)) * 1.4426950408889634
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_dqk64_dv128(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], DQK: C[int], DV: C[int]):
    """A value head dim (128) twice the score head dim (64), keys ragged (200)."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DQK)).reshape((BM, DQK))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, DV), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DQK), padding_mode=ZERO).reshape((BN, DQK))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DV), padding_mode=ZERO).reshape((BN, DV))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, DV)))


@ct.kernel
def attn_decode_q1_tile16(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Single-token decoding as users tile it: one query row in a 16-row tile (below WGMMA's 64), 300 keys
    ragged, one program per (batch, head)."""
    bh = ct.bid(0)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, 0, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_mask_after_exp(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal with the mask on P instead of S: the running max over every score of the tile (future keys
    included), ``p = where(j <= i, exp2(s - m), 0)``; the same result (the masked terms drop out of the
    sum and the product)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        p = ct.where(kpos <= qpos, ct.exp2(s - m_new), 0.0)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_keys_last_to_first(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The key tiles visited last to first (``j = nk - 1 - i``), keys ragged (200): the first trip is the
    partial tile, masked."""
    qt, bh = ct.bid(0), ct.bid(1)
    n = K.shape[1]
    nk = ct.cdiv(n, BN)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for i in range(nk):
        j = nk - 1 - i
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_where_reversed(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal with the mask's operands the other way round: ``where(j > i, NEG, s)``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] > qpos, NEG, s)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_additive_int64(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal as an additive mask ``s + where(j <= i, 0, NEG)`` over int64 positions."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        qpos = (qt * BM + ct.arange(BM, dtype=ct.int64))[:, None]
        kpos = (j * BN + ct.arange(BN, dtype=ct.int64))[None, :]
        s = s + ct.where(kpos <= qpos, 0.0, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_f16_pv_accumulator(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The output accumulator kept in f16 (``acc = ct.zeros(..., float16)``, the PV dot accumulating in
    f16, its rescale in f16), the score and the softmax state in f32; causal."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float16)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha.astype(ct.float16))
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc.astype(ct.float32) / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_key_padding_gathered(Q, K, V, KeyOk, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """A per-key padding flag (int32 ``KeyOk[bh, j]``, 0 = padding) gathered at the key tile's positions
    (``ct.gather(KeyOk, (bh, kpos))``) and broadcast over the query rows as the score mask."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        ok = ct.gather(KeyOk, (bh, j * BN + ct.arange(BN, dtype=ct.int32)))
        s = ct.where(ok[None, :] != 0, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- GEMMs: operands, batches


@ct.kernel
def bmm_both_transposed_shared_wt(At, Wt, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``Y[l] = A[l] @ W`` with A stored ``[L, K, M]`` and the weight ``[N, K]`` (one matrix for every
    batch), both turned by ``ct.transpose``; ragged M (200) and N (192 on 128-wide tiles)."""
    bm, bn, l = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(At, axis=1, shape=(1, tk, tm))):
        a = ct.transpose(ct.load(At, index=(l, k, bm), shape=(1, tk, tm), padding_mode=ZERO).reshape((tk, tm)))
        b = ct.transpose(ct.load(Wt, index=(bn, k), shape=(tn, tk), padding_mode=ZERO))
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(l, bm, bn), tile=acc.astype(Y.dtype).reshape((1, tm, tn)))


@ct.kernel
def bmm_weight_batch_of_one(A, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A batched product whose weight array is ``[1, K, N]`` (a broadcast batch kept as an axis of one):
    every batch ``l`` reads ``W[0]``."""
    bm, bn, l = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(l, bm, k), shape=(1, tm, tk)).reshape((tm, tk))
        w = ct.load(W, index=(0, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(l, bm, bn), tile=acc.astype(Y.dtype).reshape((1, tm, tn)))


@ct.kernel
def gemm_tile_64x256_bf16(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """64 x 256 program tiles in bf16 (N = 500 ragged, M = 100 ragged), f32 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_tile_256x64(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """256 x 64 program tiles (M = 300 ragged, N = 192), ``acc += a @ b``, f16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc += ct.load(A, index=(bm, k), shape=(tm, tk)) @ ct.load(B, index=(k, bn), shape=(tk, tn))
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_store_transposed_row_bias(A, B, Bias, Yt, tm: C[int], tn: C[int], tk: C[int]):
    """``Y^T = (A B + bias[m])^T``: a per-row bias, the tile stored transposed into a ``[N, M]`` f32
    array; ragged M (200) and N (100)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    acc = acc + ct.load(Bias, index=(bm,), shape=(tm,))[:, None]
    ct.store(Yt, index=(bn, bm), tile=ct.transpose(acc))


@ct.kernel
def bmm_batch_on_grid_axis0(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A batched product with the batch on grid axis 0 (``l = bid(0)``, the tiles on axes 1 and 2), as a
    port of a ``grid = (L, cdiv(M, tm), cdiv(N, tn))`` launch writes it; ragged M (200)."""
    l, bm, bn = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(l, bm, k), shape=(1, tm, tk)).reshape((tm, tk))
        b = ct.load(B, index=(l, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(l, bm, bn), tile=acc.astype(Y.dtype).reshape((1, tm, tn)))


@ct.kernel
def gemm_first_k_step_peeled(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The first K step peeled before the loop (``acc = a0 @ b0``, then ``range(1, nk)``), as a user
    avoids the zero-initialised accumulator."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.mma(ct.load(A, index=(bm, 0), shape=(tm, tk)), ct.load(B, index=(0, bn), shape=(tk, tn)),
                 ct.zeros((tm, tn), dtype=ct.float32))
    for k in range(1, ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def scores_qkt_causal_tril(Q, K, S, qk_scale: float, tm: C[int], tn: C[int], tk: C[int]):
    """Materialised causal scores ``S = tril(Q K^T * scale)`` (K given ``[N, D]``, turned by
    ``ct.transpose``): the epilogue compares the tile's own row and column positions, zeros above the
    diagonal; f32 output, ragged (200 x 200)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(Q, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(Q, index=(bm, k), shape=(tm, tk)),
                     ct.transpose(ct.load(K, index=(bn, k), shape=(tn, tk))), acc)
    rows = (bm * tm + ct.arange(tm, dtype=ct.int32))[:, None]
    cols = (bn * tn + ct.arange(tn, dtype=ct.int32))[None, :]
    ct.store(S, index=(bm, bn), tile=ct.where(cols <= rows, acc * qk_scale, 0.0))


# ----------------------------------------------------------------------------------------------- GEMMs: epilogues, K


@ct.kernel
def gemm_acc_starts_from_bias(A, B, Bias, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The accumulator starts as the per-column bias broadcast to the tile (``ct.broadcast_to``) instead of
    zeros, then the K loop; ragged M (200) and N (100)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.broadcast_to(ct.load(Bias, index=(bn,), shape=(tn,))[None, :], (tm, tn))
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_bias_gelu_tanh_dropout_bf16(A, B, Bias, Keep, Y, inv_keep: float, tm: C[int], tn: C[int], tk: C[int]):
    """``y = gelu_tanh(acc + bias[n]) * keep * 1/(1-p)`` with ``ct.tanh`` and a uint8 keep mask, bf16
    operands and output, ragged M (200)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    x = acc + ct.load(Bias, index=(bn,), shape=(tn,))[None, :]
    g = 0.5 * x * (1.0 + ct.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    keep = ct.load(Keep, index=(bm, bn), shape=(tm, tn)).astype(ct.float32)
    ct.store(Y, index=(bm, bn), tile=(g * keep * inv_keep).astype(Y.dtype))


@ct.kernel
def gemm_k8_single_tile(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """K = 8 in one ``(tm, 8)`` x ``(8, tn)`` product (no loop; half of one f16 WGMMA K step), f32
    output."""
    bm, bn = ct.bid(0), ct.bid(1)
    y = ct.mma(ct.load(A, index=(bm, 0), shape=(tm, tk)), ct.load(B, index=(0, bn), shape=(tk, tn)),
               ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y)


@ct.kernel
def gemm_k24_tk32_padded(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """K = 24 read as one 32-wide K tile zero-padded (the K loop runs once), f16 output, ragged M."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_tk16_runtime_k_first_tile_bias(A, B, Bias, Y, nk: int, tm: C[int], tn: C[int], tk: C[int]):
    """K tiles of 16 (one WGMMA K step each), the trip count a runtime scalar ``nk``, the per-column bias
    added by ``ct.where`` on the first column tile only (``bn == 0``: a bias for the first tn columns)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(nk):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    bias = ct.load(Bias, index=(0,), shape=(tn,))[None, :]
    acc = acc + ct.where(bn == 0, bias, 0.0)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_fp8_e5m2_a_to_e4m3(A, B, Y, scale: float, tm: C[int], tn: C[int], tk: C[int]):
    """An e5m2 activation against an e4m3 weight (cuTile refuses the mixed dot itself: "x and y must
    have the same dtype"): A converted to e4m3 in the K loop, a per-tensor scale, bf16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk)).astype(ct.float8_e4m3fn)
        acc = ct.mma(a, ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=(acc * scale).astype(ct.bfloat16))


@ct.kernel
def gemm_bias_gathered_i64_row_scale(A, B, Bias, RowScale, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The column bias gathered at int64 column indices (``ct.gather(Bias, cols)``: masked past N = 100 by
    the gather's bounds check) and a per-row-tile scale read as one scalar (``ct.gather(RowScale, bm)``),
    ``y = (acc + bias) * scale``, f32 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    cols = bn * tn + ct.arange(tn, dtype=ct.int64)
    y = (acc + ct.gather(Bias, cols)[None, :]) * ct.gather(RowScale, bm)
    ct.store(Y, index=(bm, bn), tile=y)


@ct.kernel
def gemm_f64_output(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The product widened to f64 and stored into an f64 array (a user checking accuracy)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(ct.float64))


# ----------------------------------------------------------------------------------------------- GEMMs: groups, mixed


@ct.kernel
def grouped_offsets_empty_groups(X, W, Offs, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A grouped GEMM over a tile-aligned offsets table ``Offs[E + 1]`` with empty groups (``Offs[g] ==
    Offs[g + 1]``): group ``bid(2)``'s row tile ``bid(0)`` of its ``(Offs[g+1] - Offs[g]) / tm`` tiles,
    a program past its group's tiles returns."""
    bm, bn, g = ct.bid(0), ct.bid(1), ct.bid(2)
    first = ct.gather(Offs, g) // tm
    ntiles = ct.gather(Offs, g + 1) // tm - first
    if bm >= ntiles:
        return
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(g, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(first + bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(first + bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_plus_unrelated_scale(A, B, Y, X2, Y2, alpha: float, tm: C[int], tn: C[int], tk: C[int]):
    """A GEMM and, in the same kernel, an unrelated elementwise ``Y2 = alpha * X2`` of the program's own
    ``(tm, tn)`` tile of another array (a fused "also scale the residual" launch)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))
    x2 = ct.load(X2, index=(bm, bn), shape=(tm, tn)).astype(ct.float32)
    ct.store(Y2, index=(bm, bn), tile=(x2 * alpha).astype(Y2.dtype))


@ct.kernel
def gemm_elementwise_before_loop(A, B, Y, X2, Y2, tm: C[int], tn: C[int], tk: C[int]):
    """The unrelated elementwise work first: ``Y2 = relu(X2)`` of the program's tile stored before the K
    loop, then the GEMM."""
    bm, bn = ct.bid(0), ct.bid(1)
    x2 = ct.load(X2, index=(bm, bn), shape=(tm, tn))
    ct.store(Y2, index=(bm, bn), tile=ct.maximum(x2, 0.0).astype(Y2.dtype))
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def mlp_relu_sq_chain_wt(X, W1, W2t, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """A two-layer MLP in one program with the hidden layer one tile: ``h = relu(x W1)^2`` (squared ReLU)
    over a K loop, rounded to f16, then ``y = h W2`` with ``W2`` stored ``[N, H]`` (nn.Linear's layout)
    turned by ``ct.transpose``."""
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, 0), shape=(tk, H)), h)
    r = ct.maximum(h, 0.0)
    w2 = ct.transpose(ct.load(W2t, index=(bn, 0), shape=(tn, H)))
    y = ct.mma((r * r).astype(ct.float16), w2, ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- the table

S64 = 0.125 * LOG2E
S128 = LOG2E / math.sqrt(128)
S80 = LOG2E / math.sqrt(80)
S96 = LOG2E / math.sqrt(96)
S192 = LOG2E / math.sqrt(192)

# (paths: the probe of session 24; "simt" entries carry the located remark's text in ``error``)
_add("attn_d80_padded_tile128", attn_d80_padded_tile128,
     [_a((2, 128, 80)), _a((2, 200, 80)), _a((2, 200, 80)), _a((2, 128, 80)), S80, 64, 64, 128], (2, 2), "chained",
     outputs=(3,))
_add("attn_d192_padded_tile256_bm64", attn_d192_padded_tile256_bm64,
     [_a((2, 128, 192))] * 4 + [S192, 64, 32, 256], (2, 2), "chained", outputs=(3,))
_add("attn_gqa_h_div_group_d96", attn_gqa_h_div_group_d96,
     [_a((2, 4, 128, 96)), _a((2, 2, 128, 96)), _a((2, 2, 128, 96)), _a((2, 4, 128, 96)), S96, 2, 64, 64, 128],
     (2, 4, 2), "chained", outputs=(3,))
_add("attn_gqa_head_table", attn_gqa_head_table,
     [_a((6, 128, 64)), _a((4, 128, 64)), _a((4, 128, 64)), _a((3,), I32), _a((6, 128, 64)), S64, 3, 64, 64, 64],
     (2, 6), "chained", outputs=(4,))
_add("attn_mqa_kv_3d", attn_mqa_kv_3d,
     [_a((2, 3, 128, 64)), _a((2, 150, 64)), _a((2, 150, 64)), _a((2, 3, 128, 64)), S64, 64, 64, 64], (2, 3, 2),
     "chained", outputs=(3,))
_add("attn_sliding_window_ragged", attn_sliding_window_ragged,
     [_a((2, 250, 64))] * 4 + [S64, 100, 64, 64, 64], (4, 2), "chained", outputs=(3,))
_add("attn_softcap_exp_scale_unfolded", attn_softcap_exp_scale_unfolded,
     [_a((2, 128, 64)), _a((2, 200, 64)), _a((2, 200, 64)), _a((2, 128, 64)), 0.125, 5.0, 64, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_alibi_slopes_array_sym", attn_alibi_slopes_array_sym,
     [_a((4, 128, 64))] * 3 + [_a((2,), F32), _a((4, 128, 64)), 0.125, 2, 64, 64, 64], (2, 4), "chained",
     outputs=(4,))
_add("attn_prefix_lm_len_array", attn_prefix_lm_len_array,
     [_a((2, 256, 64))] * 3 + [_a((2,), I32), _a((2, 256, 64)), S64, 64, 64, 64], (4, 2), "chained", outputs=(4,))
_add("attn_decode_q5_kv300", attn_decode_q5_kv300,
     [_a((4, 5, 64)), _a((4, 300, 64)), _a((4, 300, 64)), _a((4, 5, 64)), S64, 64, 64, 64], (4,), "chained",
     outputs=(3,))
_add("attn_decode_q7_causal_tail", attn_decode_q7_causal_tail,
     [_a((4, 7, 64)), _a((4, 77, 64)), _a((4, 77, 64)), _a((4, 7, 64)), S64, 64, 32, 64], (4,), "chained",
     outputs=(3,))
_add("attn_lse_flat_1d", attn_lse_flat_1d,
     [_a((2, 128, 64))] * 4 + [_a((256,), F32), S64, 64, 64, 64], (2, 2), "chained", outputs=(3, 4))
_add("attn_bf16_in_f32_out_causal", attn_bf16_in_f32_out_causal,
     [_a((2, 256, 64), BF16)] * 3 + [_a((2, 256, 64), F32), S64, 128, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_v_transposed_dsk", attn_v_transposed_dsk,
     [_a((2, 128, 64)), _a((2, 192, 64)), _a((2, 64, 192)), _a((2, 128, 64)), S64, 64, 64, 64], (2, 2), "chained",
     outputs=(3,))
_add("attn_bwd_dq_lse_delta", attn_bwd_dq_lse_delta,
     [_a((2, 128, 64))] * 4 + [_a((2, 128), F32), _a((2, 128), F32), _a((2, 128, 64), F32), S64, 64, 64, 64],
     (2, 2), "chained", outputs=(6,))
_add("bmm_both_transposed_shared_wt", bmm_both_transposed_shared_wt,
     [_a((3, 128, 200)), _a((192, 128)), _a((3, 200, 192)), 128, 128, 64], (2, 2, 3), "gemm", outputs=(2,))
_add("bmm_weight_batch_of_one", bmm_weight_batch_of_one,
     [_a((3, 200, 128)), _a((1, 128, 192)), _a((3, 200, 192)), 128, 64, 64], (2, 3, 3), "gemm", outputs=(2,))
_add("gemm_tile_64x256_bf16", gemm_tile_64x256_bf16,
     [_a((100, 128), BF16), _a((128, 500), BF16), _a((100, 500), F32), 64, 256, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_tile_256x64", gemm_tile_256x64,
     [_a((300, 128)), _a((128, 192)), _a((300, 192)), 256, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("gemm_store_transposed_row_bias", gemm_store_transposed_row_bias,
     [_a((200, 128)), _a((128, 100)), _a((200,), F32), _a((100, 200), F32), 128, 64, 64], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_bias_gelu_tanh_dropout_bf16", gemm_bias_gelu_tanh_dropout_bf16,
     [_a((200, 128), BF16), _a((128, 192), BF16), _a((192,), F32), _a((200, 192), U8), _a((200, 192), BF16), 1.25,
      128, 64, 64], (2, 3), "gemm", outputs=(4,))
_add("gemm_k8_single_tile", gemm_k8_single_tile,
     [_a((200, 8)), _a((8, 192)), _a((200, 192), F32), 128, 64, 8], (2, 3), "simt",
     error="has no WGMMA shape", outputs=(2,))
_add("gemm_k24_tk32_padded", gemm_k24_tk32_padded,
     [_a((200, 24)), _a((24, 192)), _a((200, 192)), 128, 64, 32], (2, 3), "gemm", outputs=(2,))
_add("gemm_tk16_runtime_k_first_tile_bias", gemm_tk16_runtime_k_first_tile_bias,
     [_a((256, 96)), _a((96, 192)), _a((64,), F32), _a((256, 192)), 6, 128, 64, 16], (2, 3), "gemm", outputs=(3,))
_add("gemm_fp8_e5m2_a_to_e4m3", gemm_fp8_e5m2_a_to_e4m3,
     [_a((200, 256), E5M2), _a((256, 192), E4M3), _a((200, 192), BF16), 0.5, 128, 64, 64], (2, 3), "simt",
     error="converted to e4m3 in the K loop (astype)", outputs=(2,))
_add("grouped_offsets_empty_groups", grouped_offsets_empty_groups,
     [_a((384, 128)), _a((5, 128, 192)), _a((6,), I32), _a((384, 192)), 64, 64, 64], (4, 3, 5), "gemm",
     outputs=(3,), notes="found by this sweep: refused as 'A, B and C must all be batched' (the weight W[bid(2)] "
                         "beside 2-D X and Y, as sweep 11's grouped_equal_groups_bid2 and sweep 14's "
                         "grouped_experts_bid2_offsets_aligned); now B's batch index per work tile, C the one "
                         "matrix, when C's row tile reads program id 2")
_add("gemm_plus_unrelated_scale", gemm_plus_unrelated_scale,
     [_a((200, 128)), _a((128, 192)), _a((200, 192)), _a((200, 192)), _a((200, 192)), 0.5, 128, 64, 64], (2, 3),
     "gemm", outputs=(2, 4))
_add("gemm_elementwise_before_loop", gemm_elementwise_before_loop,
     [_a((200, 128)), _a((128, 192)), _a((200, 192)), _a((200, 192)), _a((200, 192)), 128, 64, 64], (2, 3),
     "simt", error="tiled_store outside the GEMM's work tile", outputs=(2, 4))
_add("mlp_relu_sq_chain_wt", mlp_relu_sq_chain_wt,
     [_a((200, 256)), _a((256, 64)), _a((192, 64)), _a((200, 192)), 64, 128, 64, 64], (2, 3), "gemm", outputs=(3,))
_add("attn_heads_packed_columns", attn_heads_packed_columns,
     [_a((2, 128, 192)), _a((2, 192, 192)), _a((2, 192, 192)), _a((2, 128, 192)), S64, 64, 64, 64], (2, 3, 2),
     "chained", outputs=(3,))
_add("attn_fused_qkv_one_array", attn_fused_qkv_one_array,
     [_a((2, 128, 384)), _a((2, 128, 128)), S64, 2, 64, 64, 64], (2, 2, 2), "chained", outputs=(1,))
_add("attn_rescale_then_add_dot", attn_rescale_then_add_dot,
     [_a((2, 128, 64)), _a((2, 192, 64)), _a((2, 192, 64)), _a((2, 128, 64)), S64, 64, 64, 64], (2, 2), "chained",
     outputs=(3,))
_add("attn_neg_inf_causal_ragged", attn_neg_inf_causal_ragged,
     [_a((2, 200, 64))] * 4 + [S64, 64, 64, 64], (4, 2), "chained", outputs=(3,))
_add("attn_chunked_prefill_offset_arg", attn_chunked_prefill_offset_arg,
     [_a((2, 128, 64)), _a((2, 320, 64)), _a((2, 320, 64)), _a((2, 128, 64)), S64, 192, 64, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_bias_shared_by_heads", attn_bias_shared_by_heads,
     [_a((4, 128, 64)), _a((4, 192, 64)), _a((4, 192, 64)), _a((128, 192), F32), _a((4, 128, 64)), S64, 64, 64, 64],
     (2, 4), "chained", outputs=(4,))
_add("gemm_acc_starts_from_bias", gemm_acc_starts_from_bias,
     [_a((200, 128)), _a((128, 100)), _a((100,), F32), _a((200, 100)), 128, 64, 64], (2, 2), "gemm", outputs=(3,))
_add("attn_dqk64_dv128", attn_dqk64_dv128,
     [_a((2, 128, 64)), _a((2, 200, 64)), _a((2, 200, 128)), _a((2, 128, 128)), S64, 64, 64, 64, 128], (2, 2),
     "chained", outputs=(3,))
_add("attn_decode_q1_tile16", attn_decode_q1_tile16,
     [_a((4, 1, 64)), _a((4, 300, 64)), _a((4, 300, 64)), _a((4, 1, 64)), S64, 16, 64, 64], (4,), "chained",
     outputs=(3,))
_add("bmm_batch_on_grid_axis0", bmm_batch_on_grid_axis0,
     [_a((3, 200, 128)), _a((3, 128, 192)), _a((3, 200, 192)), 128, 64, 64], (3, 2, 3), "gemm", outputs=(2,))
_add("gemm_first_k_step_peeled", gemm_first_k_step_peeled,
     [_a((200, 256)), _a((256, 192)), _a((200, 192)), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("attn_mask_after_exp", attn_mask_after_exp,
     [_a((2, 256, 64))] * 4 + [S64, 128, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_keys_last_to_first", attn_keys_last_to_first,
     [_a((2, 128, 64)), _a((2, 200, 64)), _a((2, 200, 64)), _a((2, 128, 64)), S64, 64, 64, 64], (2, 2), "chained",
     outputs=(3,))
_add("scores_qkt_causal_tril", scores_qkt_causal_tril,
     [_a((200, 64)), _a((200, 64)), _a((200, 200), F32), 0.125, 128, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("attn_causal_where_reversed", attn_causal_where_reversed,
     [_a((2, 256, 64))] * 4 + [S64, 64, 64, 64], (4, 2), "chained", outputs=(3,))
_add("attn_causal_additive_int64", attn_causal_additive_int64,
     [_a((2, 256, 64))] * 4 + [S64, 64, 64, 64], (4, 2), "chained", outputs=(3,),
     notes="found by this sweep (a crash): 'operand rhs ... attribute i64 expected ... but got i32' at 0:0, the "
           "epilogue's make_range at the element's i32 position added to the i64 program offset (every GEMM or "
           "chained kernel with int64 position tiles); now sign-extended to the range's type")
_add("attn_f16_pv_accumulator", attn_f16_pv_accumulator,
     [_a((2, 256, 64))] * 4 + [S64, 64, 64, 64], (4, 2), "simt", error="chained dots: the accumulator must be f32",
     outputs=(3,))
_add("gemm_bias_gathered_i64_row_scale", gemm_bias_gathered_i64_row_scale,
     [_a((200, 128)), _a((128, 100)), _a((100,), F32), _a((2,), F32), _a((200, 100), F32), 128, 64, 64], (2, 2),
     "gemm", outputs=(4,),
     notes="found by this sweep: refused as 'the epilogue gathers a tile (ct.gather with a tile of indices)' (as "
           "sweep 11's attn_t5_bucket_bias_gather and sweep 5's mm_epilogue_row_gather); now the epilogue loads "
           "through the tile of pointers per element, under the gather's mask")
_add("gemm_f64_output", gemm_f64_output,
     [_a((200, 128)), _a((128, 192)), _a((200, 192), "float64"), 128, 64, 64], (2, 3), "simt",
     error="output element type f64 is not supported yet by the WGMMA lowering", outputs=(2,))
_add("attn_key_padding_gathered", attn_key_padding_gathered,
     [_a((2, 128, 64)), _a((2, 192, 64)), _a((2, 192, 64)), _a((2, 192), I32), _a((2, 128, 64)), S64, 64, 64, 64],
     (2, 2), "chained", outputs=(4,))
