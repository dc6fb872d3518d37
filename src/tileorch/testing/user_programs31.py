"""The thirty-first user sweep (session 39): cuTile 1.7 programs as users write them, biased to what acceptance runs
and earlier sweeps did not write (issues 20 and 21): attention in ``[B, H, S, D]`` arrays with K stored transposed
``[B, H, D, S]``, the softmax's running max folded as ``max(maximum(s, m))``, causal masks by ``where`` with a large
negative instead of ``-inf`` and from index tiles built by ``broadcast_to``, Q scaled before the key loop vs the
scores scaled inside ``exp2``, the output normalised by ``1 / l`` or divided, V in fp8 / bf16 cast in the kernel,
head dims 32 / 128 / 256, 128 x 128 tiles and query counts that are not a tile multiple; GEMMs (split-K by hand
with atomics, a per-row log-softmax epilogue, K not a multiple of the tile, int8 -> int32 dequantised, tf32 of f32
inputs stored ``[N, K]``, an f16 accumulator, batched operands with a strided batch view, 3-D tiles, K walked
last-first, two outputs of one epilogue, a 128x256 tile, K written as two loops over its halves); memory-bound
programs (layernorm
backward's row and column reductions, Chan's parallel variance merge, top-1 down columns with its index, a weighted
histogram and a scatter-add by atomics, strided and transposed views, ragged extents, bool masks, fp8 casts
saturated first, the first index passing a threshold by ``argmax`` of a bool tile).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep31_compile.py, tests/unit/test_user_sweep31_interp.py,
tests/unit/test_user_sweep31_emulated.py, tests/unit/test_user_sweep31_invalid.py (with :data:`INVALID` and
:data:`REJECTED_BY_CUTILE`), tests/unit/test_user_sweep31_cutlass.py and tests/gpu/test_user_sweep31_gpu.py.
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
LOG2E = 1.4426950408889634


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_bhsd_k_stored_transposed(Q, Kt, V, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                  D: ConstInt):
    """``[B, H, S, D]`` Q / V with K cached transposed ``[B, H, D, S]`` (a decode cache laid out for the first dot):
    the K tile is loaded ``(D, BN)`` and multiplied as it is; ``exp2`` with the scale in log2 units; ragged keys by
    ``where``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    seq = V.shape[2]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        kt = ct.load(Kt, index=(b, h, 0, j), shape=(1, 1, D, BN), padding_mode=ZERO).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
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


@ct.kernel
def attn_max_folded_into_scores(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The running max folded the other way round: ``m_new = max(maximum(s, m), axis=1)`` (the old max broadcast
    against the scores before the row reduction); natural ``exp`` of ``(s - m) * scale`` on raw scores; the output
    normalised by multiplying with ``1 / l``."""
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
        m_new = ct.max(ct.maximum(s, m), axis=1, keepdims=True)
        p = ct.exp((s - m_new) * qk_scale)
        corr = ct.exp((m - m_new) * qk_scale)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    inv = 1.0 / den
    ct.store(O, index=(bh, qt, 0), tile=(acc * inv).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_where_large_negative(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Causal attention masked by ``where(kpos <= qpos, s, -1e9)`` (a finite large negative, the fp16-safe habit)
    over every key tile (no loop bound), ``exp2``; ragged keys by the same mask."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -1.0e9, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        ok = (kpos[None, :] <= qpos[:, None]) & (kpos[None, :] < seq)
        s = ct.where(ok, s, -1.0e9)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_mask_from_broadcast_iota(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Causal attention whose mask is built from full ``(BM, BN)`` index tiles: ``broadcast_to`` of the query
    column and of the key row, compared elementwise; the loop bounded by the diagonal tile; ``-inf`` by ``where``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    rows = ct.broadcast_to((qt * BM + ct.arange(BM, dtype=ct.int32)).reshape((BM, 1)), (BM, BN))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        cols = ct.broadcast_to((j * BN + ct.arange(BN, dtype=ct.int32)).reshape((1, BN)), (BM, BN))
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((cols <= rows) & (cols < seq), s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_q_prescaled_before_loop(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Q multiplied by the log2-unit scale once, before the key loop, and cast back to f16 (the scores then need
    no scaling); ``exp2``; ragged keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    q = (q.astype(ct.float32) * qk_scale).astype(ct.float16)
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


@ct.kernel
def attn_v_fp8_e4m3_cast_in_kernel(Q, K, V, O, qk_scale: float, v_scale: float, BM: ConstInt, BN: ConstInt,
                                   D: ConstInt):
    """An fp8 V cache: V stored e4m3 and cast to f16 after the load (``v.astype(ct.float16)``), the per-tensor
    dequantisation scale applied to the output once; Q / K f16."""
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
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D)).astype(ct.float16)
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc * v_scale / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bf16_qk_f16_v_cast(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Mixed precisions: Q / K bf16 (the first dot in bf16), V stored f32 and cast to bf16 after the load, the
    probabilities cast to bf16 for the second dot; bf16 out."""
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
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D)).astype(ct.bfloat16)
        acc = ct.mma(p.astype(ct.bfloat16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


def _plain_attention(name, doc):
    """A plain (non-causal) attention kernel under ``name`` (exp2, ragged keys by ``where``, divide at the end)."""

    def body(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
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
            acc = ct.mma(p.astype(V.dtype), v, acc * corr)
            m = m_new
        ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))

    body.__name__ = body.__qualname__ = name
    body.__doc__ = doc
    return ct.kernel(body)


attn_head_dim_32_bm128 = _plain_attention(
    "attn_head_dim_32_bm128", "Head dim 32 with 128-row query tiles and 64-key tiles (a small-head model).")
attn_head_dim_128_bn32 = _plain_attention(
    "attn_head_dim_128_bn32", "Head dim 128 with 32-key tiles (a register-lean choice), 64-row query tiles.")
attn_head_dim_256_bf16_bn32 = _plain_attention(
    "attn_head_dim_256_bf16_bn32", "Head dim 256 in bf16 with 32-key tiles; bf16 out.")
attn_queries_77_keys_45_padded = _plain_attention(
    "attn_queries_77_keys_45_padded", "77 queries (one whole and one ragged query tile) against 45 keys (a single "
                                      "ragged key tile): padding on both sides.")


@ct.kernel
def attn_softmax_of_scaled_scores_exp_natural_recip(Q, K, V, O, sm_scale: float, BM: ConstInt, BN: ConstInt,
                                                    D: ConstInt):
    """The PyTorch-reference spelling: ``s = (q @ k^T) * sm_scale`` with ``ct.matmul``, natural ``exp``, the row
    state 1-D ``(BM,)`` and reshaped at its uses, the output normalised by ``1 / l`` reshaped to a column."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM,), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM,), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.matmul(q, ct.transpose(k)) * sm_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1))
        p = ct.exp(s - m_new.reshape((BM, 1)))
        corr = ct.exp(m - m_new)
        den = den * corr + ct.sum(p, axis=1)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr.reshape((BM, 1)))
        m = m_new
    inv = (1.0 / den).reshape((BM, 1))
    ct.store(O, index=(bh, qt, 0), tile=(acc * inv).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_lse_natural_log_f32(Q, K, V, O, Lse, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Attention that also writes the rows' log-sum-exp in natural-log units (``(m + log2(l)) * ln 2`` of the
    log2-unit state), as a training forward does for its backward; f16 out, LSE f32 ``[BH, S]``."""
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
    lse = (m + ct.log2(den)) * 0.6931471805599453
    ct.store(Lse, index=(bh, qt), tile=lse.reshape((1, BM)))


@ct.kernel
def attn_bhsd_causal_f32_out_4d(Q, K, V, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                D: ConstInt):
    """Causal attention over ``[B, H, S, D]`` arrays (batch and head from one grid axis), the key loop bounded by
    the diagonal, the mask ``where(qpos >= kpos)``; f16 in, f32 out."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    seq = K.shape[2]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where((qpos[:, None] >= kpos[None, :]) & (kpos[None, :] < seq), s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / den).reshape((1, 1, BM, D)))


@ct.kernel
def attn_probs_zeroed_by_where_after_exp(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Causal by zeroing the probabilities: the scores of masked pairs are left as they are for the max (a finite
    over-estimate of the row max), and ``p = where(ok, exp2(s - m), 0)``."""
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
        ok = (kpos[None, :] <= qpos[:, None]) & (kpos[None, :] < seq)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.where(ok, ct.exp2(s - m_new), 0.0)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def mlp_gelu_tanh_two_dots_bf16(X, W1, W2, Y, BM: ConstInt, BF: ConstInt, D: ConstInt):
    """A transformer MLP as two chained dots over the hidden dimension in tiles: ``gelu_tanh(x @ W1[:, f]) @
    W2[f, :]`` accumulated in f32, bf16 in and out."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(BM, D), padding_mode=ZERO)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for f in range(ct.cdiv(W1.shape[1], BF)):
        w1 = ct.load(W1, index=(0, f), shape=(D, BF), padding_mode=ZERO)
        h = ct.mma(x, w1, ct.zeros((BM, BF), dtype=ct.float32))
        g = 0.5 * h * (1.0 + ct.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h)))
        w2 = ct.load(W2, index=(f, 0), shape=(BF, D), padding_mode=ZERO)
        acc = ct.mma(g.astype(W2.dtype), w2, acc)
    ct.store(Y, index=(bm, 0), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- GEMM


@ct.kernel
def split_k_by_hand_atomic_f32_runtime_split(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Split-K written by hand: the number of splits is the grid's z extent (``ct.num_blocks(2)``), split ``s``
    takes K tiles ``s, s + splits, ...`` (strided, not a block of the range) and adds its partial tile into the
    zero-filled f32 C by ``ct.atomic_add`` at 2-D index tiles; f16 in."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    splits = ct.num_blocks(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(s, ct.cdiv(A.shape[1], TK), splits):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.atomic_add(C, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def gemm_log_softmax_rows_epilogue(A, Bm, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A classifier head: logits ``A @ B`` for a whole row of 64 classes in one tile, then ``log_softmax`` along the
    row in the epilogue; f16 in, f32 out."""
    bm = ct.bid(0)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, 0), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    z = acc - ct.max(acc, axis=1, keepdims=True)
    ct.store(Y, index=(bm, 0), tile=z - ct.log(ct.sum(ct.exp(z), axis=1, keepdims=True)))


@ct.kernel
def gemm_k_100_tile_32_ragged(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """K = 100 in tiles of 32 (the last K tile 4 wide, zero-padded on both operands), M and N ragged too; bf16 in,
    f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def int8_gemm_dequant_row_col_scales(A, Bm, Sa, Sb, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """W8A8: an int8 x int8 GEMM accumulated in int32, dequantised in the epilogue by the per-token (row) and
    per-channel (column) f32 scales; f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    sa = ct.load(Sa, index=(bm,), shape=(TM,), padding_mode=ZERO)
    sb = ct.load(Sb, index=(bn,), shape=(TN,), padding_mode=ZERO)
    y = acc.astype(ct.float32) * sa[:, None] * sb[None, :]
    ct.store(C, index=(bm, bn), tile=y.astype(C.dtype))


@ct.kernel
def tf32_linear_weight_nk_bias(X, W, Bias, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``nn.Linear`` in f32: the weight stored ``[N, K]``, its tile transposed, the f32 operands given to the dot as
    they are (tf32 tensor cores), the bias added; f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        x = ct.load(X, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        w = ct.load(W, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(x, ct.transpose(w), acc)
    bias = ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=acc + bias[None, :])


@ct.kernel
def gemm_f16_accumulator_bias_f16(A, Bm, Bias, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An f16 accumulator (``ct.zeros(..., dtype=ct.float16)``) and an f16 bias added to it; f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float16)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    bias = ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=acc + bias[None, :])


@ct.kernel
def gemm_batched_strided_batch_view(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A batched GEMM whose A is a strided view (every other matrix of a larger buffer: batch stride twice the
    matrix); the batch from grid axis 2, 3-D tiles reshaped to 2-D for the dot; f16 in, f32 out."""
    bm, bn, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(z, bm, k), shape=(1, TM, TK), padding_mode=ZERO).reshape((TM, TK))
        b = ct.load(Bm, index=(z, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(z, bm, bn), tile=acc.reshape((1, TM, TN)))


@ct.kernel
def gemm_3d_tiles_mma_batched(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A batched GEMM written with 3-D tiles given to ``ct.mma`` directly (a leading batch dim of 1 on A, B and the
    accumulator); bf16 in, f32 out."""
    bm, bn, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(z, bm, k), shape=(1, TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(z, k, bn), shape=(1, TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(z, bm, bn), tile=acc)


@ct.kernel
def gemm_a_stored_km_transposed_tile(At, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A stored ``[K, M]`` (a transposed activation): its ``(TK, TM)`` tile transposed for the dot; squared-ReLU
    epilogue; f16 in, bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(At.shape[0], TK)):
        a = ct.load(At, index=(k, bm), shape=(TK, TM), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(ct.transpose(a), b, acc)
    r = ct.maximum(acc, 0.0)
    ct.store(C, index=(bm, bn), tile=(r * r).astype(C.dtype))


# ----------------------------------------------------------------------------------------------- memory-bound


@ct.kernel
def layernorm_backward_dx_rows(X, DY, W, Mean, Rstd, DX, BN: ConstInt):
    """LayerNorm backward's input gradient per row: ``xhat = (x - mean) rstd``, ``g = dy w``, ``dx = rstd (g -
    mean(g) - xhat mean(g xhat))`` with two row reductions; f16 x / dy, f32 statistics, f16 out."""
    r = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    dy = ct.load(DY, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO).reshape((1, BN))
    mu = ct.load(Mean, index=(r,), shape=(1,)).reshape((1, 1))
    rs = ct.load(Rstd, index=(r,), shape=(1,)).reshape((1, 1))
    cols = ct.arange(BN, dtype=ct.int32).reshape((1, BN))
    xhat = ct.where(cols < n, (x - mu) * rs, 0.0)
    g = dy * w
    c1 = ct.sum(g, axis=1, keepdims=True) / n
    c2 = ct.sum(g * xhat, axis=1, keepdims=True) / n
    ct.store(DX, index=(r, 0), tile=(rs * (g - c1 - xhat * c2)).astype(DX.dtype))


@ct.kernel
def layernorm_grad_weight_bias_column_loop(X, DY, Mean, Rstd, DW, DB, BR: ConstInt, BN: ConstInt):
    """LayerNorm backward's weight and bias gradients without atomics: each program owns ``BN`` columns and walks
    every row in tiles of ``BR`` (a loop carrying two column vectors), summing ``dy xhat`` and ``dy`` down the
    rows; f16 x / dy, ragged rows and columns."""
    c = ct.bid(0)
    dw = ct.zeros((BN,), dtype=ct.float32)
    db = ct.zeros((BN,), dtype=ct.float32)
    for t in range(ct.cdiv(X.shape[0], BR)):
        x = ct.load(X, index=(t, c), shape=(BR, BN), padding_mode=ZERO).astype(ct.float32)
        dy = ct.load(DY, index=(t, c), shape=(BR, BN), padding_mode=ZERO).astype(ct.float32)
        mu = ct.load(Mean, index=(t,), shape=(BR,), padding_mode=ZERO).reshape((BR, 1))
        rs = ct.load(Rstd, index=(t,), shape=(BR,), padding_mode=ZERO).reshape((BR, 1))
        dw = dw + ct.sum(dy * (x - mu) * rs, axis=0)
        db = db + ct.sum(dy, axis=0)
    ct.store(DW, index=(c,), tile=dw)
    ct.store(DB, index=(c,), tile=db)


@ct.kernel
def variance_chan_merge_over_column_tiles(X, Mean, Var, BN: ConstInt):
    """Row mean and (population) variance over column tiles by Chan's parallel merge: each tile's count, mean and
    M2, merged into the running ones by ``delta = mb - ma``, ``M2 += M2b + delta^2 na nb / n``; ragged last tile
    counted by its valid columns."""
    r = ct.bid(0)
    n = X.shape[1]
    cnt = ct.zeros((1, 1), dtype=ct.float32)
    mean = ct.zeros((1, 1), dtype=ct.float32)
    m2 = ct.zeros((1, 1), dtype=ct.float32)
    for t in range(ct.cdiv(n, BN)):
        x = ct.load(X, index=(r, t), shape=(1, BN), padding_mode=ZERO)
        ok = (t * BN + ct.arange(BN, dtype=ct.int32)).reshape((1, BN)) < n
        nb = ct.sum(ct.where(ok, 1.0, 0.0), axis=1, keepdims=True)
        mb = ct.sum(x, axis=1, keepdims=True) / nb
        m2b = ct.sum(ct.where(ok, (x - mb) * (x - mb), 0.0), axis=1, keepdims=True)
        tot = cnt + nb
        delta = mb - mean
        mean = mean + delta * nb / tot
        m2 = m2 + m2b + delta * delta * cnt * nb / tot
        cnt = tot
    ct.store(Mean, index=(r,), tile=mean.reshape((1,)))
    ct.store(Var, index=(r,), tile=(m2 / cnt).reshape((1,)))


@ct.kernel
def top1_down_columns_with_index(X, Val, Idx, BM: ConstInt, BN: ConstInt):
    """The maximum of each column and its row (the first on ties) over row tiles: per tile ``ct.max`` / ``ct.argmax``
    along axis 0, merged into the running pair by a strict ``>`` so an earlier row wins; ragged rows padded
    ``-inf``."""
    c = ct.bid(0)
    best = ct.full((BN,), -math.inf, dtype=ct.float32)
    arg = ct.zeros((BN,), dtype=ct.int32)
    for t in range(ct.cdiv(X.shape[0], BM)):
        x = ct.load(X, index=(t, c), shape=(BM, BN), padding_mode=NEG_INF)
        v = ct.max(x, axis=0)
        i = ct.argmax(x, axis=0).astype(ct.int32) + t * BM
        arg = ct.where(v > best, i, arg)
        best = ct.maximum(best, v)
    ct.store(Val, index=(c,), tile=best)
    ct.store(Idx, index=(c,), tile=arg)


@ct.kernel
def weighted_histogram_atomic_f32(Labels, Wt, Hist, BN: ConstInt):
    """``bincount(labels, weights)``: each label's weight added into its f32 bin by ``ct.atomic_add`` at the label
    as index; labels outside ``[0, bins)`` (negative, or past the table) dropped by ``check_bounds``."""
    b = ct.bid(0)
    lab = ct.load(Labels, index=(b,), shape=(BN,), padding_mode=ZERO)
    w = ct.load(Wt, index=(b,), shape=(BN,), padding_mode=ZERO)
    valid = (b * BN + ct.arange(BN, dtype=ct.int32)) < Labels.shape[0]
    ct.atomic_add(Hist, ct.where(valid, lab, -1), w, check_bounds=True)


@ct.kernel
def index_add_rows_scatter_add(Idx, Src, Out, BT: ConstInt, BD: ConstInt):
    """``out.index_add_(0, idx, src)``: row ``i`` of src added into row ``idx[i]`` of out by ``ct.atomic_add`` at
    2-D index tiles (repeated indices accumulate); ragged rows and columns dropped by ``check_bounds``."""
    t = ct.bid(0)
    rows = ct.load(Idx, index=(t,), shape=(BT,), padding_mode=ZERO)
    src = ct.load(Src, index=(t, 0), shape=(BT, BD), padding_mode=ZERO)
    ok = (t * BT + ct.arange(BT, dtype=ct.int32)) < Idx.shape[0]
    cols = ct.arange(BD, dtype=ct.int32)
    ct.atomic_add(Out, (ct.where(ok, rows, -1)[:, None], cols[None, :]), src, check_bounds=True)


@ct.kernel
def row_scale_of_transposed_view(Xt, S, Y, BM: ConstInt, BN: ConstInt):
    """A transposed input: ``Xt`` is the column-major view of a ``[M, N]`` matrix (strides ``(1, M)``), scaled per
    row and written row-major; ragged both ways."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(Xt, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
    s = ct.load(S, index=(i,), shape=(BM,), padding_mode=ZERO)
    ct.store(Y, index=(i, j), tile=x * s[:, None])


@ct.kernel
def column_slice_view_gelu_bf16(X, Y, BN: ConstInt):
    """A column slice of a wider array (a view of 37 of 64 columns: row stride 64), tanh-GELU in f32, bf16 out of
    37 columns."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    y = 0.5 * x * (1.0 + ct.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    ct.store(Y, index=(r, 0), tile=y.astype(Y.dtype))


@ct.kernel
def masked_mean_by_bool_array(X, Mask, Y, BN: ConstInt):
    """A masked mean per row with a ``bool`` mask array: ``sum(where(mask, x, 0)) / max(count, 1)``; an all-False
    row gives 0."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    mk = ct.load(Mask, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    cnt = ct.sum(ct.where(mk, 1.0, 0.0), axis=1)
    tot = ct.sum(ct.where(mk, x, 0.0), axis=1)
    ct.store(Y, index=(r,), tile=tot / ct.maximum(cnt, 1.0))


@ct.kernel
def fp8_e4m3_quantize_saturated_per_tensor(X, Scale, Q, BN: ConstInt):
    """Per-tensor fp8 quantization as inference stacks write it: ``x / scale`` clamped to +-448 by ``minimum`` /
    ``maximum`` (the saturation), then ``astype(float8_e4m3fn)``; the scale from a 1-element array."""
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(BN,), padding_mode=ZERO)
    s = ct.load(Scale, index=(0,), shape=(1,))
    y = ct.minimum(ct.maximum(x / s, -448.0), 448.0)
    ct.store(Q, index=(b,), tile=y.astype(Q.dtype))


@ct.kernel
def fp8_e5m2_gradient_cast_saturated(G, Q, BR: ConstInt, BN: ConstInt):
    """Gradients cast to e5m2 for communication: clamped to +-57344 with ``where`` on both sides (inf and huge
    values saturate), bf16 in."""
    i = ct.bid(0)
    g = ct.load(G, index=(i, 0), shape=(BR, BN), padding_mode=ZERO).astype(ct.float32)
    g = ct.where(g > 57344.0, 57344.0, ct.where(g < -57344.0, -57344.0, g))
    ct.store(Q, index=(i, 0), tile=g.astype(Q.dtype))


@ct.kernel
def add_rmsnorm_residual_out_bf16(X, R, W, Y, Rout, eps: float, BN: ConstInt):
    """A fused residual add + RMSNorm: ``h = x + r`` stored as the next residual (bf16), ``y = h rsqrt(mean(h^2) +
    eps) w``; 100 columns in a 128 tile."""
    row = ct.bid(0)
    h = (ct.load(X, index=(row, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
         + ct.load(R, index=(row, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32))
    ct.store(Rout, index=(row, 0), tile=h.astype(Rout.dtype))
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO).astype(ct.float32).reshape((1, BN))
    ms = ct.sum(h * h, axis=1, keepdims=True) / X.shape[1]
    ct.store(Y, index=(row, 0), tile=(h * ct.rsqrt(ms + eps) * w).astype(Y.dtype))


@ct.kernel
def group_norm_groups_of_rows(X, Y, G: ConstInt, BC: ConstInt, BP: ConstInt):
    """GroupNorm of ``[N, C, HW]`` with C = 8 channels in groups of ``BC`` = 2: one block per (sample, group) loads
    the ``(BC, BP)`` tile, mean and variance over both axes, no affine; HW = 50 in a 64 tile."""
    n, g = ct.bid(0), ct.bid(1)
    hw = X.shape[2]
    x = ct.load(X, index=(n, g, 0), shape=(1, BC, BP), padding_mode=ZERO).reshape((BC, BP))
    ok = ct.broadcast_to((ct.arange(BP, dtype=ct.int32) < hw).reshape((1, BP)), (BC, BP))
    cnt = BC * hw
    mu = ct.sum(ct.sum(x, axis=1, keepdims=True), axis=0, keepdims=True) / cnt
    d = ct.where(ok, x - mu, 0.0)
    var = ct.sum(ct.sum(d * d, axis=1, keepdims=True), axis=0, keepdims=True) / cnt
    ct.store(Y, index=(n, g, 0), tile=(d * ct.rsqrt(var + 1e-5)).reshape((1, BC, BP)))


@ct.kernel
def softmax_rows_3d_tile_heads(X, Y, BH: ConstInt, BS: ConstInt):
    """Softmax along the last axis of a ``(BH, 1, BS)`` 3-D tile (heads x one query x keys, a decode step's scores)
    with ``NEG_INF`` padding of the ragged keys."""
    b = ct.bid(0)
    x = ct.load(X, index=(b, 0, 0), shape=(BH, 1, BS), padding_mode=NEG_INF)
    e = ct.exp(x - ct.max(x, axis=2, keepdims=True))
    ct.store(Y, index=(b, 0, 0), tile=e / ct.sum(e, axis=2, keepdims=True))


@ct.kernel
def argmin_distance_to_centroids(X, Cn, Idx, BP: ConstInt, NC: ConstInt, D: ConstInt):
    """k-means assignment without a dot: squared distances of ``BP`` points to ``NC`` centroids by broadcasting a
    ``(BP, 1, D)`` tile against ``(1, NC, D)``, summed over D, then ``ct.argmin`` along the centroids."""
    b = ct.bid(0)
    x = ct.load(X, index=(b, 0), shape=(BP, D), padding_mode=ZERO).reshape((BP, 1, D))
    c = ct.load(Cn, index=(0, 0), shape=(NC, D), padding_mode=ZERO).reshape((1, NC, D))
    d = ct.sum((x - c) * (x - c), axis=2)
    ct.store(Idx, index=(b,), tile=ct.argmin(d, axis=1).astype(ct.int32))


@ct.kernel
def cumsum_reverse_by_index_arithmetic(X, Y, BN: ConstInt):
    """A reverse cumulative sum (``flip(cumsum(flip(x)))``) written as ``total - cumsum + x``; 50 columns in a 64
    tile, zero padded."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    c = ct.cumsum(x, axis=1)
    ct.store(Y, index=(r, 0), tile=ct.sum(x, axis=1, keepdims=True) - c + x)


@ct.kernel
def clamp_int32_to_uint8_saturate(X, Y, BN: ConstInt):
    """Image post-processing: int32 values clamped to ``[0, 255]`` and narrowed to uint8."""
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(b,), tile=ct.minimum(ct.maximum(x, 0), 255).astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- the table


def _bhsd(bh, sq, sk, d, dt=F16, o_dt=None):
    return [_a((bh, sq, d), dt), _a((bh, sk, d), dt), _a((bh, sk, d), dt), _a((bh, sq, d), o_dt or dt)]


def _grid(sq, bm, bh):
    return (-(-sq // bm), bh)


def scale2(d):
    """``log2 e / sqrt(d)``: the scores' scale in log2 units."""
    return LOG2E / math.sqrt(d)


# 152 keys (ragged: 2 tiles of 64 and 24): K^T's rows must be a 16-byte multiple for its tensor map, and 150 f16 keys
# (300 bytes, the spec before session 41) made every launch run the SIMT path (session 41's launch-path check)
_add("attn_bhsd_k_stored_transposed", attn_bhsd_k_stored_transposed,
     [_a((1, 2, 150, 64), F16), _a((1, 2, 64, 152), F16), _a((1, 2, 152, 64), F16), _a((1, 2, 150, 64), F16),
      scale2(64), 2, 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_max_folded_into_scores", attn_max_folded_into_scores, _bhsd(2, 150, 170, 64) + [0.125, 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_causal_where_large_negative", attn_causal_where_large_negative,
     _bhsd(2, 150, 150, 64) + [scale2(64), 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_causal_mask_from_broadcast_iota", attn_causal_mask_from_broadcast_iota,
     _bhsd(2, 150, 150, 64) + [scale2(64), 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_q_prescaled_before_loop", attn_q_prescaled_before_loop, _bhsd(2, 150, 170, 64) + [scale2(64), 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_v_fp8_e4m3_cast_in_kernel", attn_v_fp8_e4m3_cast_in_kernel,
     [_a((2, 150, 64), F16), _a((2, 170, 64), F16), _a((2, 170, 64), E4M3), _a((2, 150, 64), F16), scale2(64), 0.5,
      64, 64, 64], _grid(150, 64, 2), "simt", outputs=(3,), error="is its tile load converted from f8E4M3FN to f16")
_add("attn_bf16_qk_f16_v_cast", attn_bf16_qk_f16_v_cast,
     [_a((2, 150, 64), BF16), _a((2, 170, 64), BF16), _a((2, 170, 64)), _a((2, 150, 64), BF16), scale2(64), 64, 64,
      64], _grid(150, 64, 2), "simt", outputs=(3,), error="is its tile load converted from f32 to bf16")
_add("attn_head_dim_32_bm128", attn_head_dim_32_bm128, _bhsd(2, 150, 170, 32) + [scale2(32), 128, 64, 32],
     _grid(150, 128, 2), "chained", outputs=(3,))
_add("attn_head_dim_128_bn32", attn_head_dim_128_bn32, _bhsd(2, 100, 170, 128) + [scale2(128), 64, 32, 128],
     _grid(100, 64, 2), "chained", outputs=(3,))
_add("attn_head_dim_256_bf16_bn32", attn_head_dim_256_bf16_bn32,
     _bhsd(2, 100, 100, 256, BF16) + [scale2(256), 64, 32, 256], _grid(100, 64, 2), "chained", outputs=(3,))
_add("attn_queries_77_keys_45_padded", attn_queries_77_keys_45_padded,
     _bhsd(3, 77, 45, 64) + [scale2(64), 64, 64, 64], _grid(77, 64, 3), "chained", outputs=(3,))
_add("attn_softmax_of_scaled_scores_exp_natural_recip", attn_softmax_of_scaled_scores_exp_natural_recip,
     _bhsd(2, 150, 170, 64) + [0.125, 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_lse_natural_log_f32", attn_lse_natural_log_f32,
     _bhsd(2, 150, 170, 64) + [_a((2, 150)), scale2(64), 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3, 4))
_add("attn_bhsd_causal_f32_out_4d", attn_bhsd_causal_f32_out_4d,
     [_a((2, 2, 150, 64), F16), _a((2, 2, 150, 64), F16), _a((2, 2, 150, 64), F16), _a((2, 2, 150, 64)),
      scale2(64), 2, 64, 64, 64], _grid(150, 64, 4), "chained", outputs=(3,))
_add("attn_probs_zeroed_by_where_after_exp", attn_probs_zeroed_by_where_after_exp,
     _bhsd(2, 150, 150, 64) + [scale2(64), 64, 64, 64], _grid(150, 64, 2), "chained", outputs=(3,))
_add("mlp_gelu_tanh_two_dots_bf16", mlp_gelu_tanh_two_dots_bf16,
     [_a((150, 64), BF16), _a((64, 256), BF16), _a((256, 64), BF16), _a((150, 64), BF16), 64, 64, 64], (3,),
     "chained", outputs=(3,))

_add("split_k_by_hand_atomic_f32_runtime_split", split_k_by_hand_atomic_f32_runtime_split,
     [_a((100, 256), F16), _a((256, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2, 3), "gemm", outputs=(2,))
_add("gemm_log_softmax_rows_epilogue", gemm_log_softmax_rows_epilogue,
     [_a((100, 96), F16), _a((96, 64), F16), _a((100, 64)), 64, 64, 32], (2,), "gemm", outputs=(2,))
_add("gemm_k_100_tile_32_ragged", gemm_k_100_tile_32_ragged,
     [_a((100, 100), BF16), _a((100, 80), BF16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("int8_gemm_dequant_row_col_scales", int8_gemm_dequant_row_col_scales,
     [_a((100, 128), I8), _a((128, 80), I8), _a((100,)), _a((80,)), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm",
     outputs=(4,))
_add("tf32_linear_weight_nk_bias", tf32_linear_weight_nk_bias,
     [_a((100, 64)), _a((80, 64)), _a((80,)), _a((100, 80)), 64, 64, 32], (2, 2), "simt", outputs=(3,),
     error="this dot multiplies f32 tiles, which cuTile computes in f32")
_add("gemm_f16_accumulator_bias_f16", gemm_f16_accumulator_bias_f16,
     [_a((100, 64), F16), _a((64, 80), F16), _a((80,), F16), _a((100, 80), F16), 64, 64, 32], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_batched_strided_batch_view", gemm_batched_strided_batch_view,
     [_a((3, 100, 64), F16, (2 * 100 * 64, 64, 1)), _a((3, 64, 80), F16), _a((3, 100, 80)), 64, 64, 32], (2, 2, 3),
     "gemm", outputs=(2,))
_add("gemm_3d_tiles_mma_batched", gemm_3d_tiles_mma_batched,
     [_a((3, 100, 64), BF16), _a((3, 64, 80), BF16), _a((3, 100, 80)), 64, 64, 32], (2, 2, 3), "gemm", outputs=(2,))
_add("gemm_a_stored_km_transposed_tile", gemm_a_stored_km_transposed_tile,
     [_a((64, 100), F16), _a((64, 80), F16), _a((100, 80), BF16), 64, 64, 32], (2, 2), "gemm", outputs=(2,))

_add("layernorm_backward_dx_rows", layernorm_backward_dx_rows,
     [_a((6, 100), F16), _a((6, 100), F16), _a((100,)), _a((6,)), _a((6,)), _a((6, 100), F16), 128], (6,), "simt",
     outputs=(5,))
_add("layernorm_grad_weight_bias_column_loop", layernorm_grad_weight_bias_column_loop,
     [_a((50, 100), F16), _a((50, 100), F16), _a((50,)), _a((50,)), _a((100,)), _a((100,)), 16, 32], (4,), "simt",
     outputs=(4, 5))
_add("variance_chan_merge_over_column_tiles", variance_chan_merge_over_column_tiles,
     [_a((4, 300)), _a((4,)), _a((4,)), 128], (4,), "simt", outputs=(1, 2))
_add("top1_down_columns_with_index", top1_down_columns_with_index,
     [_a((70, 50)), _a((50,)), _a((50,), I32), 32, 32], (2,), "simt", outputs=(1, 2))
_add("weighted_histogram_atomic_f32", weighted_histogram_atomic_f32,
     [_a((200,), I32), _a((200,)), _a((10,)), 64], (4,), "simt", outputs=(2,))
_add("index_add_rows_scatter_add", index_add_rows_scatter_add,
     [_a((40,), I32), _a((40, 48)), _a((12, 48)), 16, 64], (3,), "simt", outputs=(2,))
_add("row_scale_of_transposed_view", row_scale_of_transposed_view,
     [_a((50, 70), F32, (1, 50)), _a((50,)), _a((50, 70)), 32, 32], (2, 3), "simt", outputs=(2,))
_add("column_slice_view_gelu_bf16", column_slice_view_gelu_bf16,
     [_a((6, 37), F32, (64, 1)), _a((6, 37), BF16), 64], (6,), "simt", outputs=(1,))
_add("masked_mean_by_bool_array", masked_mean_by_bool_array, [_a((5, 100)), _a((5, 100), B), _a((5,)), 128], (5,),
     "simt", outputs=(2,))
_add("fp8_e4m3_quantize_saturated_per_tensor", fp8_e4m3_quantize_saturated_per_tensor,
     [_a((200,)), _a((1,)), _a((200,), E4M3), 64], (4,), "simt", outputs=(2,))
_add("fp8_e5m2_gradient_cast_saturated", fp8_e5m2_gradient_cast_saturated,
     [_a((10, 64), BF16), _a((10, 64), E5M2), 4, 64], (3,), "simt", outputs=(1,))
_add("add_rmsnorm_residual_out_bf16", add_rmsnorm_residual_out_bf16,
     [_a((6, 100), BF16), _a((6, 100), BF16), _a((100,)), _a((6, 100), BF16), _a((6, 100), BF16), 1e-6, 128], (6,),
     "simt", outputs=(3, 4))
_add("group_norm_groups_of_rows", group_norm_groups_of_rows, [_a((3, 8, 50)), _a((3, 8, 50)), 4, 2, 64], (3, 4),
     "simt", outputs=(1,))
_add("softmax_rows_3d_tile_heads", softmax_rows_3d_tile_heads, [_a((8, 1, 100)), _a((8, 1, 100)), 4, 128], (2,),
     "simt", outputs=(1,))
_add("argmin_distance_to_centroids", argmin_distance_to_centroids,
     [_a((50, 8)), _a((4, 8)), _a((50,), I32), 16, 4, 8], (4,), "simt", outputs=(2,))
_add("cumsum_reverse_by_index_arithmetic", cumsum_reverse_by_index_arithmetic, [_a((4, 50)), _a((4, 50)), 64],
     (4,), "simt", outputs=(1,))
_add("clamp_int32_to_uint8_saturate", clamp_int32_to_uint8_saturate, [_a((100,), I32), _a((100,), U8), 64], (2,),
     "simt", outputs=(1,))


@ct.kernel
def first_index_above_threshold_argmax_bool(X, Idx, thr: float, BN: ConstInt):
    """The first index where a row passes a threshold, written ``argmax(x > thr)`` (argmax of a bool tile: the
    first True; 0 when none is); the ragged row's padding is 0, below the thresholds used."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Idx, index=(r,), tile=ct.argmax(x > thr, axis=1).astype(ct.int32))


_add("first_index_above_threshold_argmax_bool", first_index_above_threshold_argmax_bool,
     [_a((5, 100)), _a((5,), I32), 0.5, 128], (5,), "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- more spellings


@ct.kernel
def attn_q_scaled_inside_loop(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The scale applied inside ``exp2`` to both the scores and the max: ``exp2(s * scale - m * scale)`` on raw
    scores (the max kept in raw units), the rescale ``exp2(m_old * scale - m_new * scale)``."""
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
        p = ct.exp2(s * qk_scale - m_new * qk_scale)
        corr = ct.exp2(m * qk_scale - m_new * qk_scale)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_l_1d_indexed_none(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """The row state 1-D and broadcast by ``[:, None]`` indexing (not reshape), the max started at the finite
    ``-1e30`` and ragged keys masked with it, the accumulator rescaled in its own statement before the dot."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM,), -1.0e30, dtype=ct.float32)
    den = ct.zeros((BM,), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq, s, -1.0e30)
        m_new = ct.maximum(m, ct.max(s, axis=1))
        p = ct.exp2(s - m_new[:, None])
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = acc * corr[:, None]
        acc = ct.mma(p.astype(ct.float16), v, acc)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den[:, None]).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bn128_keys_170(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """128-row query tiles against 128-key tiles (170 keys: one whole tile and a ragged one), head dim 64."""
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
def gemm_two_k_loops_halves(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GEMM whose K loop is written as two loops over the halves of the K tiles, the second continuing the
    first's accumulator (found by this sweep: refused, "2 loops with dots one after another", since
    tileas-fold-dot-accumulate started the second loop from zeros and hid the pair from tileas-fuse-split-loops;
    now one loop on the tier)."""
    bm, bn = ct.bid(0), ct.bid(1)
    nk = ct.cdiv(A.shape[1], TK)
    half = nk // 2
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(half):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    for k in range(half, nk):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_stored_twice_f32_and_f16(A, Bm, C, C16, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The accumulator stored twice: as f32 and as an f16 copy (two outputs of one epilogue)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)
    ct.store(C16, index=(bm, bn), tile=acc.astype(ct.float16))


@ct.kernel
def gemm_k_loop_reversed(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The K tiles walked last-first (``k = nk - 1 - i``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    nk = ct.cdiv(A.shape[1], TK)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for i in range(nk):
        k = nk - 1 - i
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_128x256_tile_bf16(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A 128x256 output tile with K tiles of 64 (the large tile of a tuned config), 300^2 ragged, bf16 in and
    out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_bias_then_relu_by_maximum(A, Bm, Bias, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Bias + ReLU epilogue on f16 operands: ``maximum(acc + bias, 0)``, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    bias = ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=ct.maximum(acc + bias[None, :], 0.0))


@ct.kernel
def gemm_last_k_tile_masked_by_branch(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The ragged last K tile masked under a branch, ``if k >= K // TK: a = where(kk < K, a, 0)`` (the EVEN_K
    habit; the zero padding already does it); K tiles of 64.  Found by this sweep: cuTile splits the loop at the
    branch and the halves were refused ("2 loops with dots one after another"); fused again, the A computed under
    the fused loop's branch was refused ("computed from its tile by 'scf.if'"); now the tier's consumers evaluate
    both branches per element, the K step selecting."""
    bm, bn = ct.bid(0), ct.bid(1)
    K = A.shape[1]
    full = K // TK
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(K, TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        if k >= full:
            kk = k * TK + ct.arange(TK, dtype=ct.int32)
            a = ct.where(kk[None, :] < K, a, 0.0)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_later_k_tiles_halved_by_branch(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The K tiles after the first weighted by one half under a branch, ``if k >= 1: a = a * 0.5`` (cuTile splits
    the loop at the branch; the fused loop's A is the branch's select, per K step: both sides of it are visible in
    the result)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        if k >= 1:
            a = a * 0.5
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


_add("attn_q_scaled_inside_loop", attn_q_scaled_inside_loop, _bhsd(2, 150, 170, 64) + [scale2(64), 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_l_1d_indexed_none", attn_l_1d_indexed_none, _bhsd(2, 150, 170, 64) + [scale2(64), 64, 64, 64],
     _grid(150, 64, 2), "chained", outputs=(3,))
_add("attn_bn128_keys_170", attn_bn128_keys_170, _bhsd(2, 150, 170, 64) + [scale2(64), 128, 128, 64],
     _grid(150, 128, 2), "chained", outputs=(3,))
_add("gemm_two_k_loops_halves", gemm_two_k_loops_halves,
     [_a((100, 256), F16), _a((256, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_stored_twice_f32_and_f16", gemm_stored_twice_f32_and_f16,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), _a((100, 80), F16), 64, 64, 32], (2, 2), "gemm",
     outputs=(2, 3))
_add("gemm_last_k_tile_masked_by_branch", gemm_last_k_tile_masked_by_branch,
     [_a((100, 100), F16), _a((100, 80), F16), _a((100, 80)), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_later_k_tiles_halved_by_branch", gemm_later_k_tiles_halved_by_branch,
     [_a((100, 256), F16), _a((256, 80), F16), _a((100, 80)), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_k_loop_reversed", gemm_k_loop_reversed, [_a((100, 256), F16), _a((256, 80), F16), _a((100, 80)), 64, 64, 32],
     (2, 2), "gemm", outputs=(2,))
_add("gemm_128x256_tile_bf16", gemm_128x256_tile_bf16,
     [_a((300, 128), BF16), _a((128, 300), BF16), _a((300, 300), BF16), 128, 256, 64], (3, 2), "gemm", outputs=(2,))
_add("gemm_bias_then_relu_by_maximum", gemm_bias_then_relu_by_maximum,
     [_a((100, 64), F16), _a((64, 80), F16), _a((80,)), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(3,))


# ----------------------------------------------------------------------------------------------- rejected by cuTile


@ct.kernel
def attn_grid_axis_3_for_the_batch(Q, O, BM: ConstInt, D: ConstInt):
    """The batch read from a fourth grid axis, ``ct.bid(3)`` (a ``[B, H, S, D]`` habit)."""
    q = ct.load(Q, index=(ct.bid(3), ct.bid(1), ct.bid(0), 0), shape=(1, 1, BM, D), padding_mode=ZERO)
    ct.store(O, index=(0, ct.bid(1), ct.bid(0), 0), tile=q)


@ct.kernel
def attn_key_positions_of_48(Q, O, BM: ConstInt, D: ConstInt):
    """Key positions from ``ct.arange(48)`` for a 48-key window (not a power of two)."""
    kpos = ct.arange(48, dtype=ct.int32)
    q = ct.load(Q, index=(ct.bid(1), ct.bid(0), 0), shape=(1, BM, D), padding_mode=ZERO)
    ct.store(O, index=(ct.bid(1), ct.bid(0), 0), tile=q + ct.sum(kpos, axis=0).astype(q.dtype))


@ct.kernel
def scores_reshaped_to_half_the_keys(Q, O, BM: ConstInt, D: ConstInt):
    """A ``(BM, D)`` tile reshaped to ``(BM, D // 2)`` (the element count changes)."""
    q = ct.load(Q, index=(ct.bid(0), 0), shape=(BM, D), padding_mode=ZERO)
    ct.store(O, index=(ct.bid(0), 0), tile=q.reshape((BM, D // 2)))


@ct.kernel
def histogram_indexed_by_the_float_values(X, H, BN: ConstInt):
    """A histogram whose ``atomic_add`` index is the f32 values themselves (the ``astype(ct.int32)`` forgotten)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.atomic_add(H, x, ct.ones((BN,), dtype=ct.float32))


@ct.kernel
def tile_of_half_the_block(X, Y, BN: ConstInt):
    """A tile shape computed with true division, ``BN / 2`` (a float)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN / 2,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def cumsum_over_axis_2_of_rows(X, Y, BN: ConstInt):
    """A row prefix sum written ``axis=2`` on a 2-D ``(1, BN)`` tile."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=ct.cumsum(x, axis=2))


@ct.kernel
def gemm_b_tile_twice_the_k(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GEMM whose B tile is ``(2 TK, TN)`` against A's ``(TM, TK)`` (K tiles disagree)."""
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(Bm, index=(0, ct.bid(1)), shape=(2 * TK, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b, ct.zeros((TM, TN), dtype=ct.float32)))


@ct.kernel
def int8_gemm_into_f32_accumulator(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An int8 GEMM accumulated into f32 zeros (int8 dots accumulate in int32)."""
    a = ct.load(A, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ZERO)
    b = ct.load(Bm, index=(0, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b, ct.zeros((TM, TN), dtype=ct.float32)))


@ct.kernel
def transpose_by_permute_0_0(X, Y, BN: ConstInt):
    """A transpose written ``ct.permute(x, (0, 0))``."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(BN, BN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=ct.permute(x, (0, 0)))


@ct.kernel
def output_tile_stored_2d_into_bhsd(X, O, BN: ConstInt):
    """A 2-D tile stored into a ``[BH, S, D]`` output with a 2-D index (the head index forgotten)."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(BN, BN), padding_mode=ZERO)
    ct.store(O, index=(ct.bid(0), 0), tile=x)


@ct.kernel
def row_sums_returned(X, BN: ConstInt):
    """A kernel that returns its tile instead of storing it."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    return ct.sum(x, axis=0)


@ct.kernel
def dot_of_two_vectors_by_mma(X, Y, BN: ConstInt):
    """A dot product of two 1-D tiles through ``ct.mma`` (it multiplies matrices)."""
    x = ct.load(X, index=(0,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=ct.mma(x, x, ct.zeros((BN,), dtype=ct.float32)))


@ct.kernel
def fp8_gemm_e4m3_activations_e5m2_weights(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An fp8 GEMM of e4m3 activations and e5m2 weights (the hardware's WGMMA takes the mix; cuTile's ``mma`` asks
    for one dtype)."""
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(ct.bid(0), k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc)


_V = _a((64,))
_M = _a((64, 64))
REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "attn_grid_axis_3_for_the_batch": (attn_grid_axis_3_for_the_batch, [_a((1, 2, 128, 64), F16)] * 2 + [64, 64],
                                       "Axis must be 0, 1, or 2, but 3 was given", "q = ct.load(Q"),
    "attn_key_positions_of_48": (attn_key_positions_of_48, [_a((2, 128, 64), F16)] * 2 + [64, 64],
                                 "Result tile shape must be power of 2, got 48", "kpos = ct.arange(48"),
    "scores_reshaped_to_half_the_keys": (scores_reshaped_to_half_the_keys, [_M, _M, 64, 64],
                                         "Cannot reshape (64, 64) to (64, 32)", "q.reshape((BM, D // 2))"),
    "histogram_indexed_by_the_float_values": (histogram_indexed_by_the_float_values, [_V, _a((16,)), 64],
                                              "Invalid argument #2 of atomic_add(): Expected a tuple of integer",
                                              "ct.atomic_add(H, x"),
    "tile_of_half_the_block": (tile_of_half_the_block, [_V, _V, 64],
                               "Invalid argument \"shape\" of load(): Expected a tuple of integers",
                               "shape=(BN / 2,)"),
    "cumsum_over_axis_2_of_rows": (cumsum_over_axis_2_of_rows, [_a((4, 64)), _a((4, 64)), 64],
                                   "Axis 2 is out of range for rank 2", "ct.cumsum(x, axis=2)"),
    "gemm_b_tile_twice_the_k": (gemm_b_tile_twice_the_k, [_a((128, 64), F16), _a((64, 128), F16), _a((128, 128)), 64,
                                                          64, 32],
                                "Incompatible shapes for matrix mul on tiles: (64, 32), (64, 64)", "tile=ct.mma(a, b"),
    "int8_gemm_into_f32_accumulator": (int8_gemm_into_f32_accumulator, [_a((128, 64), I8), _a((64, 128), I8),
                                                                        _a((128, 128)), 64, 64, 32],
                                       "Unsupported acc dtype float32", "tile=ct.mma(a, b"),
    "transpose_by_permute_0_0": (transpose_by_permute_0_0, [_M, _M, 64], "Repeated axis #1: 0",
                                 "ct.permute(x, (0, 0))"),
    "output_tile_stored_2d_into_bhsd": (output_tile_stored_2d_into_bhsd, [_M, _a((1, 64, 64)), 64],
                                        "Index size 2 does not match the array rank 3", "ct.store(O"),
    "row_sums_returned": (row_sums_returned, [_V, 64], "Tile kernels cannot return values", "return ct.sum"),
    "dot_of_two_vectors_by_mma": (dot_of_two_vectors_by_mma, [_a((64,), F16), _V, 64],
                                  "Expect shape of `x` to be at least 2D, got (64,)", "tile=ct.mma(x, x"),
    "fp8_gemm_e4m3_activations_e5m2_weights": (fp8_gemm_e4m3_activations_e5m2_weights,
                                               [_a((128, 128), E4M3), _a((128, 128), E5M2), _a((128, 128)), 64, 64,
                                                64], "x and y must have the same dtype unless they are int8/uint8, got "
                                               "float8_e4m3fn float8_e5m2", "acc = ct.mma(a, b, acc)"),
}
"""Programs cuTile's front end refuses at the user's line (tileorch never sees them)."""


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def mxfp8_gemm_by_mma_scaled(A, SA, Bm, SB, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An MXFP8 GEMM: e4m3 operands with e8m0 scales per 32 elements of K, multiplied by ``ct.mma_scaled``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        sa = ct.load(SA, index=(bm, k), shape=(TM, TK // 32), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        sb = ct.load(SB, index=(k, bn), shape=(TK // 32, TN), padding_mode=ZERO)
        acc = ct.mma_scaled(a, sa, b, sb, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def global_max_by_system_scope_atomic(X, M, BN: ConstInt):
    """A maximum over blocks kept in host-mapped memory: ``ct.atomic_max(..., memory_scope=ct.MemoryScope.SYS)``."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.atomic_max(M, ct.zeros((1,), dtype=ct.int32), ct.max(x, axis=0, keepdims=True),
                  memory_scope=ct.MemoryScope.SYS)


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
E8M0 = "float8_e8m0fnu"
_bad("mxfp8_gemm_by_mma_scaled", mxfp8_gemm_by_mma_scaled,
     [_a((128, 128), E4M3), _a((128, 4), E8M0), _a((128, 128), E4M3), _a((4, 128), E8M0), _a((128, 128)), 64, 64,
      128], (2, 2), "error", error="block-scaled MMA (ct.mma_scaled) is a Blackwell (sm_100) instruction",
     notes="acc = ct.mma_scaled(a, sa, b, sb, acc)")
_bad("global_max_by_system_scope_atomic", global_max_by_system_scope_atomic, [_a((64,), I32), _a((1,), I32), 64],
     (1,), "error", error="a system-scope atomic_rmw", notes="ct.atomic_max(M")
