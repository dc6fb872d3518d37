"""The thirty-fifth user sweep (session 43): cuTile programs written the way cuTile's own published samples and tests
write them (NVIDIA/cutile-python ``samples/``: the FMHA sample's spellings -- K loaded transposed by ``order=(0, 1,
3, 2)``, ``ConstBool`` switches for causal / even-K masking tested inside the key loop, an additive ``-inf`` mask,
Python's ``max`` of two tiles, ``exp2(..., flush_to_zero=True)``, ``truediv`` with the approximate rounding mode, numpy
dtypes, a query-position offset ``input_pos``, a value head dim unlike the key's; the MatMul sample's 1-D grid with
its group swizzle in a plain Python helper, the ``tfloat32`` choice by the input dtype, the persistent loop over
``ct.num_blocks(0)``), and the kernels users port next: batched and broadcast-weight matmul, split-K by atomics, SwiGLU
dual GEMMs, a GELU epilogue, MoE grouped GEMM with an expert per M tile, a linear layer with its ``[N, K]`` weight
read through ``order``, ``alpha A B + beta C``, decode GEMV, int8 with row / column scales; layernorm forward and both
backward kernels, RMSNorm (alone and with a fused residual), softmax in one tile and over several, RoPE, a SwiGLU
activation, a histogram by atomics, argmax and top-2, row prefix sums across tiles, a transpose, an embedding
gather, a cross-entropy loss, vector add by load / store and by gather / scatter.  Shapes are the ragged ones users
launch (M / N / K not multiples of the tile, batch dims, decode shapes).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep35_compile.py, tests/unit/test_user_sweep35_interp.py,
tests/unit/test_user_sweep35_emulated.py, tests/unit/test_user_sweep35_invalid.py (with :data:`INVALID` and
:data:`REJECTED_BY_CUTILE`) and tests/gpu/test_user_sweep35_gpu.py.  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct
import numpy as np
from cuda.tile import RoundingMode as RMd

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF
F16, BF16, F32 = "float16", "bfloat16", "float32"
I8, I32 = "int8", "int32"
INV_LOG_2 = 1.0 / math.log(2)


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def fmha_gqa_k_by_order_dv_64_dqk_128(Q, K, V, Out, qk_scale: float, input_pos: int, Dqk: ConstInt, Dv: ConstInt,
                                      H: ConstInt, TILE_M: ConstInt, TILE_N: ConstInt, QUERY_GROUP_SIZE: ConstInt,
                                      CAUSAL: ConstBool, EVEN_K: ConstBool):
    """The FMHA sample's shape of kernel: ``[B, H, S, D]`` arrays, program axes (query tile, batch * head), 2 query
    heads per K / V head, K read transposed by ``order=(0, 1, 3, 2)``, masks built only in the tiles that need them
    (``if (CAUSAL or not EVEN_K) and j >= mask_start``) and added as ``0 / -inf``, the scale applied after the row
    maximum, ``exp2`` flushing to zero, the final division approximate; head dims 128 (Q, K) and 64 (V, Out)."""
    bid_x = ct.bid(0)
    bid_y = ct.bid(1)
    batch_idx = bid_y // H
    head_idx = bid_y % H
    off_kv_h = head_idx // QUERY_GROUP_SIZE
    qk_scale = qk_scale * INV_LOG_2
    offs_m = bid_x * TILE_M + ct.arange(TILE_M, dtype=np.int32)
    offs_m += input_pos
    offs_m = offs_m[:, None]
    offs_n_tile = ct.arange(TILE_N, dtype=np.int32)[None, :]
    m_i = ct.full((TILE_M, 1), -np.inf, dtype=np.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=np.float32)
    acc = ct.full((TILE_M, Dv), 0.0, dtype=np.float32)
    q = ct.load(Q, index=(batch_idx, head_idx, bid_x, 0), shape=(1, 1, TILE_M, Dqk),
                padding_mode=ZERO).reshape((TILE_M, Dqk))
    m_end = input_pos + (bid_x + 1) * TILE_M
    k_seqlen = K.shape[2]
    if CAUSAL:
        mask_start = min((input_pos + bid_x * TILE_M) // TILE_N, k_seqlen // TILE_N)
        Tc = ct.cdiv(min(m_end, k_seqlen), TILE_N)
    else:
        Tc = ct.cdiv(k_seqlen, TILE_N)
        mask_start = k_seqlen // TILE_N
    for j in range(0, Tc):
        k = ct.load(K, index=(batch_idx, off_kv_h, 0, j), shape=(1, 1, Dqk, TILE_N), order=(0, 1, 3, 2),
                    padding_mode=ZERO, latency=2).reshape((Dqk, TILE_N))
        qk = ct.full((TILE_M, TILE_N), 0., dtype=np.float32)
        qk = ct.mma(q, k, qk)
        if (CAUSAL or not EVEN_K) and j >= mask_start:
            offs_n = j * TILE_N + offs_n_tile
            mask = ct.full((TILE_M, TILE_N), True, dtype=np.bool_)
            if not EVEN_K:
                mask = mask & (offs_n < k_seqlen)
            if CAUSAL:
                mask = mask & (offs_m >= offs_n)
            qk += ct.where(mask, 0.0, -np.inf)
        m_ij = max(m_i, ct.max(qk, axis=-1, keepdims=True) * qk_scale)
        qk = qk * qk_scale - m_ij
        p = ct.exp2(qk, flush_to_zero=True)
        l_ij = ct.sum(p, axis=-1, keepdims=True)
        alpha = ct.exp2(m_i - m_ij, flush_to_zero=True)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha
        v = ct.load(V, index=(batch_idx, off_kv_h, j, 0), shape=(1, 1, TILE_N, Dv), padding_mode=ZERO,
                    latency=4).reshape((TILE_N, Dv))
        acc = ct.mma(p.astype(Q.dtype), v, acc)
        m_i = m_ij
    acc = ct.truediv(acc, l_i, flush_to_zero=True, rounding_mode=RMd.APPROX)
    ct.store(Out, index=(batch_idx, head_idx, bid_x, 0), tile=acc.reshape((1, 1, TILE_M, Dv)).astype(Out.dtype))


@ct.kernel
def fmha_chunked_prefill_input_pos(Q, K, V, Out, qk_scale: float, input_pos: int, D: ConstInt, H: ConstInt,
                                   TILE_M: ConstInt, TILE_N: ConstInt):
    """A chunk of prefill: 100 new queries at positions ``input_pos .. input_pos + 99`` against the 230 keys of the
    cache (``input_pos`` = 130 a runtime argument), causal from that offset; the key loop bounded by the chunk's
    last position; ``[B, H, S, D]``, the mask on every tile."""
    bid_x, bid_y = ct.bid(0), ct.bid(1)
    b, h = bid_y // H, bid_y % H
    q = ct.load(Q, index=(b, h, bid_x, 0), shape=(1, 1, TILE_M, D), padding_mode=ZERO).reshape((TILE_M, D))
    offs_m = (input_pos + bid_x * TILE_M + ct.arange(TILE_M, dtype=np.int32))[:, None]
    k_seqlen = K.shape[2]
    m_i = ct.full((TILE_M, 1), -np.inf, dtype=np.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=np.float32)
    acc = ct.full((TILE_M, D), 0.0, dtype=np.float32)
    for j in range(ct.cdiv(min(input_pos + (bid_x + 1) * TILE_M, k_seqlen), TILE_N)):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, TILE_N, D), padding_mode=ZERO).reshape((TILE_N, D))
        qk = ct.mma(q, ct.transpose(k), ct.full((TILE_M, TILE_N), 0., dtype=np.float32)) * (qk_scale * INV_LOG_2)
        offs_n = j * TILE_N + ct.arange(TILE_N, dtype=np.int32)[None, :]
        qk = ct.where((offs_m >= offs_n) & (offs_n < k_seqlen), qk, -np.inf)
        m_ij = max(m_i, ct.max(qk, axis=-1, keepdims=True))
        p = ct.exp2(qk - m_ij)
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, TILE_N, D), padding_mode=ZERO).reshape((TILE_N, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_ij
    ct.store(Out, index=(b, h, bid_x, 0), tile=(acc / l_i).reshape((1, 1, TILE_M, D)).astype(Out.dtype))


@ct.kernel
def attn_sliding_window_causal(Q, K, V, O, qk_scale: float, window: int, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Local (sliding-window) causal attention, Mistral style: query ``i`` sees keys ``i - window < j <= i``; the key
    loop starts at the first tile inside the window (``range(lo, hi)``), the window a runtime argument.  A row may
    have no key of its window in a tile, so masked scores are a finite ``-1e30``, not ``-inf`` (a row of ``-inf``
    makes ``exp2(-inf - -inf)`` NaN; the finite value's terms are rescaled to 0 by the row's first real key)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    lo = max(qt * BM - window + 1, 0) // BN
    hi = ct.cdiv(min((qt + 1) * BM, seq), BN)
    for j in range(lo, hi):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        ok = (kpos[None, :] <= qpos[:, None]) & (kpos[None, :] > qpos[:, None] - window)
        s = ct.where(ok, s, -1e30)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_varlen_key_lengths_array(Q, K, V, Lens, O, qk_scale: float, H: ConstInt, BM: ConstInt, BN: ConstInt,
                                  D: ConstInt):
    """A padded batch of sequences of different lengths: each batch's key count read from an int32 ``Lens`` array
    (``.item()``) bounds the key loop and masks the last tile; ``[B, H, S, D]``, non-causal."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    kv_len = ct.load(Lens, index=(b,), shape=(1,)).item()
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(kv_len, BN)):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < kv_len, s, -math.inf)
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        corr = ct.exp2(m - m_new)
        den = den * corr + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * corr)
        m = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def fmha_even_k_tiles_128_no_mask(Q, K, V, Out, qk_scale: float, D: ConstInt, TILE_M: ConstInt, TILE_N: ConstInt,
                                  EVEN_K: ConstBool):
    """The sample's ``EVEN_K`` switch on with 256 keys in 128-key tiles: no mask is built at all; 128 x 128 tiles,
    head dim 64, ``[BH, S, D]``, f16, the K tile read transposed by ``order=(0, 2, 1)``."""
    bid_x, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, bid_x, 0), shape=(1, TILE_M, D), padding_mode=ZERO).reshape((TILE_M, D))
    k_seqlen = K.shape[1]
    m_i = ct.full((TILE_M, 1), -np.inf, dtype=np.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=np.float32)
    acc = ct.full((TILE_M, D), 0.0, dtype=np.float32)
    for j in range(ct.cdiv(k_seqlen, TILE_N)):
        k = ct.load(K, index=(bh, 0, j), shape=(1, D, TILE_N), order=(0, 2, 1), padding_mode=ZERO).reshape((D, TILE_N))
        qk = ct.mma(q, k, ct.full((TILE_M, TILE_N), 0., dtype=np.float32))
        if not EVEN_K:
            offs_n = j * TILE_N + ct.arange(TILE_N, dtype=np.int32)[None, :]
            qk = qk + ct.where(offs_n < k_seqlen, 0.0, -np.inf)
        m_ij = max(m_i, ct.max(qk, axis=-1, keepdims=True) * qk_scale)
        p = ct.exp2(qk * qk_scale - m_ij)
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, TILE_N, D), padding_mode=ZERO).reshape((TILE_N, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_ij
    ct.store(Out, index=(bh, bid_x, 0), tile=(acc / l_i).reshape((1, TILE_M, D)).astype(Out.dtype))


@ct.kernel
def fmha_bf16_causal_axis_minus_one(Q, K, V, Out, qk_scale: float, TILE_M: ConstInt, TILE_N: ConstInt, D: ConstInt):
    """bf16 causal attention with the sample's reductions along ``axis=-1``, the scores scaled in natural-log units
    converted to ``exp2`` (``qk_scale * INV_LOG_2``), ragged sequence of 190, ``[BH, S, D]`` with D = 128."""
    bid_x, bh = ct.bid(0), ct.bid(1)
    scale = qk_scale * INV_LOG_2
    q = ct.load(Q, index=(bh, bid_x, 0), shape=(1, TILE_M, D), padding_mode=ZERO).reshape((TILE_M, D))
    offs_m = bid_x * TILE_M + ct.arange(TILE_M, dtype=np.int32)
    k_seqlen = K.shape[1]
    m_i = ct.full((TILE_M, 1), -np.inf, dtype=np.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=np.float32)
    acc = ct.full((TILE_M, D), 0.0, dtype=np.float32)
    for j in range(ct.cdiv(min((bid_x + 1) * TILE_M, k_seqlen), TILE_N)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, TILE_N, D), padding_mode=ZERO).reshape((TILE_N, D))
        qk = ct.mma(q, ct.transpose(k), ct.full((TILE_M, TILE_N), 0., dtype=np.float32))
        offs_n = j * TILE_N + ct.arange(TILE_N, dtype=np.int32)
        qk = ct.where(offs_m[:, None] >= offs_n[None, :], qk, -np.inf)
        m_ij = max(m_i, ct.max(qk, axis=-1, keepdims=True) * scale)
        p = ct.exp2(qk * scale - m_ij)
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, TILE_N, D), padding_mode=ZERO).reshape((TILE_N, D))
        acc = ct.mma(p.astype(ct.bfloat16), v, acc * alpha)
        m_i = m_ij
    ct.store(Out, index=(bh, bid_x, 0), tile=(acc / l_i).astype(Out.dtype).reshape((1, TILE_M, D)))


@ct.kernel
def mha_decode_one_query_per_head(Q, K, V, O, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Decode, multi-head (no grouping): one query row per (batch, head) padded to a 64-row tile against a cache of
    300 keys; ``[B, H, S, D]`` arrays, program axes (head, batch)."""
    h, b = ct.bid(0), ct.bid(1)
    seq = K.shape[2]
    q = ct.load(Q, index=(b, h, 0, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
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
    ct.store(O, index=(b, h, 0, 0), tile=(acc / den).astype(O.dtype).reshape((1, 1, BM, D)))


def scale2(d):
    """``log2 e / sqrt(d)``: the scores' scale in log2 units."""
    return INV_LOG_2 / math.sqrt(d)


def _bhsd(bh, sq, sk, d, dt=F16, out=F16):
    return [_a((bh, sq, d), dt), _a((bh, sk, d), dt), _a((bh, sk, d), dt), _a((bh, sq, d), out)]


_add("fmha_gqa_k_by_order_dv_64_dqk_128", fmha_gqa_k_by_order_dv_64_dqk_128,
     [_a((2, 4, 150, 128), F16), _a((2, 2, 150, 128), F16), _a((2, 2, 150, 64), F16), _a((2, 4, 150, 64), F16),
      1 / math.sqrt(128), 0, 128, 64, 4, 64, 64, 2, True, False], (3, 8), "chained", outputs=(3,))
_add("fmha_chunked_prefill_input_pos", fmha_chunked_prefill_input_pos,
     [_a((1, 2, 100, 64), F16), _a((1, 2, 230, 64), F16), _a((1, 2, 230, 64), F16), _a((1, 2, 100, 64), F16),
      1 / math.sqrt(64), 130, 64, 2, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_sliding_window_causal", attn_sliding_window_causal,
     _bhsd(2, 200, 200, 64) + [scale2(64), 70, 64, 64, 64], (4, 2), "chained", outputs=(3,))
_add("attn_varlen_key_lengths_array", attn_varlen_key_lengths_array,
     [_a((2, 2, 130, 64), F16), _a((2, 2, 200, 64), F16), _a((2, 2, 200, 64), F16), _a((2,), I32),
      _a((2, 2, 130, 64), F16), scale2(64), 2, 64, 64, 64], (3, 4), "chained", outputs=(4,))
_add("fmha_even_k_tiles_128_no_mask", fmha_even_k_tiles_128_no_mask,
     _bhsd(2, 200, 256, 64) + [scale2(64), 64, 128, 128, True], (2, 2), "chained",
     outputs=(3,))
_add("fmha_bf16_causal_axis_minus_one", fmha_bf16_causal_axis_minus_one,
     _bhsd(2, 190, 190, 128, BF16, BF16) + [1 / math.sqrt(128), 64, 64, 128], (3, 2), "chained", outputs=(3,))
_add("mha_decode_one_query_per_head", mha_decode_one_query_per_head,
     [_a((2, 4, 1, 64), F16), _a((2, 4, 300, 64), F16), _a((2, 4, 300, 64), F16), _a((2, 4, 1, 64), F16),
      scale2(64), 64, 64, 64], (4, 2), "chained", outputs=(3,))


# ----------------------------------------------------------------------------------------------- GEMMs


def swizzle_group_m(M, N, tm, tn, GROUP_SIZE_M, bid):
    """The output tile ``(row, column)`` of program ``bid`` of a 1-D grid, tiles taken GROUP_SIZE_M rows at a time
    (a plain Python helper called from the kernel, as the MatMul sample writes it)."""
    n_m = ct.cdiv(M, tm)
    n_n = ct.cdiv(N, tn)
    per_group = GROUP_SIZE_M * n_n
    first_m = (bid // per_group) * GROUP_SIZE_M
    rows_here = min(n_m - first_m, GROUP_SIZE_M)
    return first_m + (bid % rows_here), (bid % per_group) // rows_here


@ct.kernel
def matmul_1d_grid_group_swizzle(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The MatMul sample's kernel: a 1-D grid mapped to output tiles by a group swizzle of 8 rows, ``ct.full``
    accumulator, the K loop by ``ct.num_tiles``, the operand dtype chosen by the input's (tf32 for f32), ``astype``
    to C's dtype; f16, M = 300, N = 200, K = 200."""
    M = A.shape[0]
    N = B.shape[1]
    bidx, bidy = swizzle_group_m(M, N, tm, tn, 8, ct.bid(0))
    num_tiles_k = ct.num_tiles(A, axis=1, shape=(tm, tk))
    accumulator = ct.full((tm, tn), 0, dtype=ct.float32)
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    for k in range(num_tiles_k):
        a = ct.load(A, index=(bidx, k), shape=(tm, tk), padding_mode=ZERO).astype(dtype)
        b = ct.load(B, index=(k, bidy), shape=(tk, tn), padding_mode=ZERO).astype(dtype)
        accumulator = ct.mma(a, b, accumulator)
    ct.store(C, index=(bidx, bidy), tile=ct.astype(accumulator, C.dtype))


@ct.kernel
def matmul_f32_inputs_tf32_by_dtype_choice(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The sample's f32 case: ``dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype`` picks tf32, on a 2-D
    grid; ragged M = 100, N = 90, K = 72."""
    bidx, bidy = ct.bid(0), ct.bid(1)
    accumulator = ct.full((tm, tn), 0, dtype=ct.float32)
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bidx, k), shape=(tm, tk), padding_mode=ZERO).astype(dtype)
        b = ct.load(B, index=(k, bidy), shape=(tk, tn), padding_mode=ZERO).astype(dtype)
        accumulator = ct.mma(a, b, accumulator)
    ct.store(C, index=(bidx, bidy), tile=ct.astype(accumulator, C.dtype))


@ct.kernel
def persistent_matmul_bf16_fewer_programs(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The sample's persistent kernel: 3 programs walk the 6 output tiles (``range(bid, tiles, ct.num_blocks(0))``),
    each through the group swizzle; bf16 in and out, M = 150, N = 130, K = 128."""
    bid = ct.bid(0)
    M = A.shape[0]
    N = B.shape[1]
    upper_bound = ct.cdiv(M, tm) * ct.cdiv(N, tn)
    for current_bid in range(bid, upper_bound, ct.num_blocks(0)):
        accumulator = ct.full((tm, tn), 0, dtype=ct.float32)
        bidx, bidy = swizzle_group_m(M, N, tm, tn, 8, current_bid)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            a = ct.load(A, index=(bidx, k), shape=(tm, tk), padding_mode=ZERO)
            b = ct.load(B, index=(k, bidy), shape=(tk, tn), padding_mode=ZERO)
            accumulator = ct.mma(a, b, accumulator)
        ct.store(C, index=(bidx, bidy), tile=ct.astype(accumulator, C.dtype))


@ct.kernel
def bmm_batch_on_grid_axis_1_flat_tiles(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Batched matmul ``[Z, M, K] x [Z, K, N]``: grid axis 0 the output tiles of one matrix flattened (row-major),
    axis 1 the batch; f16 in, f32 out."""
    t, z = ct.bid(0), ct.bid(1)
    n_n = ct.cdiv(B.shape[2], tn)
    bm, bn = t // n_n, t % n_n
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], tk)):
        a = ct.load(A, index=(z, bm, k), shape=(1, tm, tk), padding_mode=ZERO).reshape((tm, tk))
        b = ct.load(B, index=(z, k, bn), shape=(1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(z, bm, bn), tile=acc.reshape((1, tm, tn)))


@ct.kernel
def bmm_shared_weight_2d(X, W, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A batch of activations ``[Z, M, K]`` times one weight ``[K, N]`` (a linear layer over a batch, written as a
    batched kernel); f16 in / out, batch on grid axis 2."""
    bm, bn, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], tk)):
        x = ct.load(X, index=(z, bm, k), shape=(1, tm, tk), padding_mode=ZERO).reshape((tm, tk))
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(z, bm, bn), tile=acc.astype(Y.dtype).reshape((1, tm, tn)))


@ct.kernel
def split_k_atomic_add_f32(A, B, C, SPLIT_K: ConstInt, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Split-K: grid axis 2 splits K's tiles into SPLIT_K contiguous ranges, each program adds its partial tile into
    the zeroed f32 C with ``ct.atomic_add`` at row / column index tiles (out-of-range elements dropped by the bounds
    check); M = 100, N = 80, K = 320."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    k_tiles = ct.cdiv(A.shape[1], tk)
    per = ct.cdiv(k_tiles, SPLIT_K)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s * per, min((s + 1) * per, k_tiles)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(C, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def swiglu_mlp_gate_up_two_weights(X, Wg, Wu, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The SwiGLU MLP's first half: ``silu(x Wg) * (x Wu)``, two accumulators fed by the same x tile in one K loop
    (a dual GEMM), bf16 in / out."""
    bm, bn = ct.bid(0), ct.bid(1)
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        g = ct.mma(x, ct.load(Wg, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), g)
        u = ct.mma(x, ct.load(Wu, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), u)
    ct.store(Y, index=(bm, bn), tile=(g / (1.0 + ct.exp(-g)) * u).astype(Y.dtype))


@ct.kernel
def linear_gelu_tanh_epilogue(X, W, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A linear layer with the tanh-approximated GELU applied to the f32 accumulator, f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    inner = 0.7978845608028654 * (acc + 0.044715 * acc * acc * acc)
    ct.store(Y, index=(bm, bn), tile=(0.5 * acc * (1.0 + ct.tanh(inner))).astype(ct.float16))


@ct.kernel
def moe_grouped_gemm_expert_per_m_tile(X, W, TileExpert, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """MoE grouped GEMM: tokens sorted by expert and padded so that each 64-row M tile belongs to one expert, whose
    id is read from ``TileExpert[bm]``; the weights ``[E, K, N]`` (3 experts), f16 in / out."""
    bm, bn = ct.bid(0), ct.bid(1)
    e = ct.load(TileExpert, index=(bm,), shape=(1,)).item()
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        w = ct.load(W, index=(e, k, bn), shape=(1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
        acc = ct.mma(x, w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def linear_weight_nk_by_order_bias_relu(X, W, Bias, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """``relu(x W^T + b)`` with the ``nn.Linear`` weight ``[N, K]`` read as ``[K, N]`` tiles through
    ``order=(1, 0)``; f16 in, f32 bias, f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        w = ct.load(W, index=(k, bn), shape=(tk, tn), order=(1, 0), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    acc = acc + ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    ct.store(Y, index=(bm, bn), tile=ct.maximum(acc, 0.0).astype(Y.dtype))


@ct.kernel
def gemm_alpha_beta_c_in_place(A, B, C, alpha: float, beta: float, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """BLAS's ``C = alpha A B + beta C``: C read and written (f32), alpha / beta runtime scalars, f16 operands."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    c = ct.load(C, index=(bm, bn), shape=(tm, tn), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=alpha * acc + beta * c)


@ct.kernel
def decode_gemv_one_token(X, W, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Decode with one token: ``x [1, K]`` (a 64-row tile, 63 padding rows) times ``W [K, N]``, K = 384, N = 200;
    bf16 in, f32 out, the grid over N only."""
    bn = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(0, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(0, bn), tile=acc)


@ct.kernel
def int8_gemm_row_col_scales_bf16(A, B, SA, SB, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """W8A8: int8 x int8 into int32, dequantised by a per-row activation scale and a per-column weight scale (f32
    vectors), bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    sa = ct.load(SA, index=(bm,), shape=(tm,), padding_mode=ZERO)
    sb = ct.load(SB, index=(bn,), shape=(tn,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=(acc.astype(ct.float32) * sa[:, None] * sb[None, :]).astype(ct.bfloat16))


@ct.kernel
def matmul_sample_tiles_128x256x64(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The sample's half-precision tile choice (128 x 256 x 64) on a ragged problem: M = 200, N = 300, K = 200; f16
    in / out, 2-D grid."""
    bidx, bidy = ct.bid(0), ct.bid(1)
    accumulator = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bidx, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, bidy), shape=(tk, tn), padding_mode=ZERO)
        accumulator = ct.mma(a, b, accumulator)
    ct.store(C, index=(bidx, bidy), tile=ct.astype(accumulator, C.dtype))


_add("matmul_1d_grid_group_swizzle", matmul_1d_grid_group_swizzle,
     [_a((300, 200), F16), _a((200, 200), F16), _a((300, 200), F16), 64, 64, 64], (20,), "gemm", outputs=(2,))
_add("matmul_f32_inputs_tf32_by_dtype_choice", matmul_f32_inputs_tf32_by_dtype_choice,
     [_a((100, 72)), _a((72, 90)), _a((100, 90)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("persistent_matmul_bf16_fewer_programs", persistent_matmul_bf16_fewer_programs,
     [_a((150, 128), BF16), _a((128, 130), BF16), _a((150, 130), BF16), 64, 64, 64], (3,), "gemm", outputs=(2,))
_add("bmm_batch_on_grid_axis_1_flat_tiles", bmm_batch_on_grid_axis_1_flat_tiles,
     [_a((3, 100, 64), F16), _a((3, 64, 80), F16), _a((3, 100, 80)), 64, 64, 64], (4, 3), "gemm", outputs=(2,))
_add("bmm_shared_weight_2d", bmm_shared_weight_2d,
     [_a((2, 100, 128), F16), _a((128, 80), F16), _a((2, 100, 80), F16), 64, 64, 64], (2, 2, 2), "gemm",
     outputs=(2,))
_add("split_k_atomic_add_f32", split_k_atomic_add_f32,
     [_a((100, 320), F16), _a((320, 80), F16), _a((100, 80)), 2, 64, 64, 64], (2, 2, 2), "gemm", outputs=(2,))
_add("swiglu_mlp_gate_up_two_weights", swiglu_mlp_gate_up_two_weights,
     [_a((100, 128), BF16), _a((128, 80), BF16), _a((128, 80), BF16), _a((100, 80), BF16), 64, 64, 64], (2, 2),
     "gemm", outputs=(3,))
_add("linear_gelu_tanh_epilogue", linear_gelu_tanh_epilogue,
     [_a((100, 128), F16), _a((128, 80), F16), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("moe_grouped_gemm_expert_per_m_tile", moe_grouped_gemm_expert_per_m_tile,
     [_a((192, 128), F16), _a((3, 128, 80), F16), _a((3,), I32), _a((192, 80), F16), 64, 64, 64], (3, 2), "gemm",
     outputs=(3,))
_add("linear_weight_nk_by_order_bias_relu", linear_weight_nk_by_order_bias_relu,
     [_a((100, 128), F16), _a((80, 128), F16), _a((80,)), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_alpha_beta_c_in_place", gemm_alpha_beta_c_in_place,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), 1.5, -0.5, 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("decode_gemv_one_token", decode_gemv_one_token,
     [_a((1, 384), BF16), _a((384, 200), BF16), _a((1, 200)), 64, 64, 64], (4,), "gemm", outputs=(2,))
_add("int8_gemm_row_col_scales_bf16", int8_gemm_row_col_scales_bf16,
     [_a((100, 128), I8), _a((128, 80), I8), _a((100,)), _a((80,)), _a((100, 80), BF16), 64, 64, 64], (2, 2),
     "gemm", outputs=(4,))
_add("matmul_sample_tiles_128x256x64", matmul_sample_tiles_128x256x64,
     [_a((200, 200), F16), _a((200, 300), F16), _a((200, 300), F16), 128, 256, 64], (2, 2), "gemm", outputs=(2,))


# ----------------------------------------------------------------------------------------------- memory-bound programs


@ct.kernel
def vector_add_sample_load_store(a, b, c, TILE: ConstInt):
    """The vector-add sample: ``ct.load`` / ``ct.store`` at the block id with no padding mode (the default), 1000
    elements in tiles of 256 (the last store bounded by the array)."""
    bid = ct.bid(0)
    a_tile = ct.load(a, index=(bid,), shape=(TILE,))
    b_tile = ct.load(b, index=(bid,), shape=(TILE,))
    ct.store(c, index=(bid,), tile=a_tile + b_tile)


@ct.kernel
def vector_add_gather_scatter(a, b, c, TILE: ConstInt):
    """The vector-add sample's gather / scatter form: element indices ``bid * TILE + arange``; ``ct.gather`` reads
    past the end as 0 and ``ct.scatter`` drops them (bounds checks), 1000 elements in tiles of 256."""
    bid = ct.bid(0)
    indices = bid * TILE + ct.arange(TILE, dtype=ct.int32)
    a_tile = ct.gather(a, indices)
    b_tile = ct.gather(b, indices)
    ct.scatter(c, indices, a_tile + b_tile)


@ct.kernel
def layernorm_fwd_mean_rstd_tiles(X, W, B, Y, Mean, Rstd, eps: float, TILE_N: ConstInt):
    """Layer norm forward, one program per row, the row walked in TILE_N-column tiles three times (mean, variance
    with the padding masked, normalise); the row's mean and 1 / std stored for the backward pass; N = 300."""
    bid_m = ct.bid(0)
    num_tiles = ct.num_tiles(X, axis=1, shape=(1, TILE_N))
    N = X.shape[1]
    mean = ct.full((1, TILE_N), 0, dtype=ct.float32)
    for j in range(num_tiles):
        mean += ct.load(X, index=(bid_m, j), shape=(1, TILE_N), padding_mode=ZERO)
    mean = ct.sum(mean, axis=1) / N
    ct.store(Mean, index=(bid_m,), tile=mean)
    var = ct.full((1, TILE_N), 0, dtype=ct.float32)
    for j in range(num_tiles):
        x = ct.load(X, index=(bid_m, j), shape=(1, TILE_N), padding_mode=ZERO)
        cols = j * TILE_N + ct.arange(TILE_N, dtype=ct.int32)
        xc = ct.where(cols < N, x - mean, 0)
        var += xc * xc
    rstd = 1 / ct.sqrt(ct.sum(var, axis=1) / N + eps)
    ct.store(Rstd, index=(bid_m,), tile=rstd)
    for j in range(num_tiles):
        x = ct.load(X, index=(bid_m, j), shape=(1, TILE_N), padding_mode=ZERO)
        w = ct.load(W, index=(j,), shape=(TILE_N,), padding_mode=ZERO)
        b = ct.load(B, index=(j,), shape=(TILE_N,), padding_mode=ZERO)
        ct.store(Y, index=(bid_m, j), tile=(x - mean) * rstd * w + b)


@ct.kernel
def layernorm_bwd_dx_one_tile(DY, X, W, Mean, Rstd, DX, TILE_N: ConstInt):
    """Layer norm backward for the input: ``dx = rstd (w dy - (xhat c1 + c2))`` with ``c1 = mean(xhat w dy)`` and
    ``c2 = mean(w dy)`` over the row's N = 200 columns (one 256-column tile, padding zero)."""
    row = ct.bid(0)
    N = X.shape[1]
    x = ct.load(X, index=(row, 0), shape=(1, TILE_N), padding_mode=ZERO)
    dy = ct.load(DY, index=(row, 0), shape=(1, TILE_N), padding_mode=ZERO)
    w = ct.load(W, index=(0,), shape=(TILE_N,), padding_mode=ZERO)[None, :]
    mean = ct.load(Mean, index=(row,), shape=(1,))
    rstd = ct.load(Rstd, index=(row,), shape=(1,))
    xhat = (x - mean[:, None]) * rstd[:, None]
    wdy = w * dy
    c1 = ct.sum(xhat * wdy, axis=1, keepdims=True) / N
    c2 = ct.sum(wdy, axis=1, keepdims=True) / N
    ct.store(DX, index=(row, 0), tile=(wdy - (xhat * c1 + c2)) * rstd[:, None])


@ct.kernel
def layernorm_bwd_dw_db_atomic_partials(DY, X, Mean, Rstd, DW, DB, ROWS: ConstInt, TILE_N: ConstInt):
    """Layer norm backward for the weight and bias: each program sums ``dy * xhat`` and ``dy`` over ROWS rows of one
    column tile and adds the partial into the zeroed DW / DB with ``ct.atomic_add``; M = 50 rows in tiles of 16,
    N = 100."""
    bm, bn = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(bm, bn), shape=(ROWS, TILE_N), padding_mode=ZERO)
    dy = ct.load(DY, index=(bm, bn), shape=(ROWS, TILE_N), padding_mode=ZERO)
    mean = ct.load(Mean, index=(bm,), shape=(ROWS,), padding_mode=ZERO)
    rstd = ct.load(Rstd, index=(bm,), shape=(ROWS,), padding_mode=ZERO)
    xhat = (x - mean[:, None]) * rstd[:, None]
    cols = bn * TILE_N + ct.arange(TILE_N, dtype=ct.int32)
    ct.atomic_add(DW, (cols,), ct.sum(dy * xhat, axis=0))
    ct.atomic_add(DB, (cols,), ct.sum(dy, axis=0))


@ct.kernel
def rmsnorm_bf16_weight_one_tile(X, W, Y, eps: float, TILE_N: ConstInt):
    """RMSNorm, bf16 in / out, f32 math: ``x * rsqrt(mean(x^2) + eps) * w`` over N = 300 columns in one 512-column
    tile (zero padding adds nothing to the sum of squares)."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, TILE_N), padding_mode=ZERO).astype(ct.float32)
    w = ct.load(W, index=(0,), shape=(TILE_N,), padding_mode=ZERO).astype(ct.float32)
    rrms = ct.rsqrt(ct.sum(x * x, axis=1, keepdims=True) / X.shape[1] + eps)
    ct.store(Y, index=(row, 0), tile=(x * rrms * w[None, :]).astype(ct.bfloat16))


@ct.kernel
def fused_add_rmsnorm_residual_out(X, Res, W, Y, eps: float, TILE_N: ConstInt):
    """The fused residual add + RMSNorm of LLM blocks: ``h = x + res`` written back into Res (f16), then
    ``y = h * rsqrt(mean(h^2) + eps) * w``; N = 200 in 256 columns."""
    row = ct.bid(0)
    h = ct.load(X, index=(row, 0), shape=(1, TILE_N), padding_mode=ZERO).astype(ct.float32) + \
        ct.load(Res, index=(row, 0), shape=(1, TILE_N), padding_mode=ZERO).astype(ct.float32)
    ct.store(Res, index=(row, 0), tile=h.astype(Res.dtype))
    w = ct.load(W, index=(0,), shape=(TILE_N,), padding_mode=ZERO)
    y = h * ct.rsqrt(ct.sum(h * h, axis=1, keepdims=True) / X.shape[1] + eps) * w[None, :]
    ct.store(Y, index=(row, 0), tile=y.astype(Y.dtype))


@ct.kernel
def softmax_rows_one_tile_neg_inf(X, Y, TILE_N: ConstInt):
    """Row softmax with the row in one tile, padding ``NEG_INF`` so the padded columns add ``exp(-inf) = 0``; f16 in
    and out, N = 100 in 128 columns, ``axis=1``."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, TILE_N), padding_mode=NEG_INF).astype(ct.float32)
    num = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(row, 0), tile=(num / ct.sum(num, axis=1, keepdims=True)).astype(Y.dtype))


@ct.kernel
def softmax_online_over_column_tiles(X, Y, TILE_N: ConstInt):
    """Row softmax of a wide row (N = 700 in 256-column tiles): one online pass for the maximum and denominator
    (the running sum rescaled by ``exp(m_old - m_new)``), a second pass writing the probabilities."""
    row = ct.bid(0)
    nt = ct.num_tiles(X, axis=1, shape=(1, TILE_N))
    m = ct.full((1, 1), -math.inf, dtype=ct.float32)
    d = ct.zeros((1, 1), dtype=ct.float32)
    for j in range(nt):
        x = ct.load(X, index=(row, j), shape=(1, TILE_N), padding_mode=NEG_INF)
        m_new = ct.maximum(m, ct.max(x, axis=1, keepdims=True))
        d = d * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new), axis=1, keepdims=True)
        m = m_new
    for j in range(nt):
        x = ct.load(X, index=(row, j), shape=(1, TILE_N), padding_mode=NEG_INF)
        ct.store(Y, index=(row, j), tile=ct.exp(x - m) / d)


@ct.kernel
def rope_rotate_half_bshd(X, Cos, Sin, Y, BS: ConstInt, HALF: ConstInt):
    """Rotary embedding, rotate-half form, on ``[B, S, H, D]`` (D = 64): the two halves of each head loaded as
    separate tiles (index 0 and 1 of the last axis in HALF-wide tiles), ``cos`` / ``sin`` tables ``[S, D / 2]``;
    program axes (sequence tile, head, batch), S = 50."""
    st, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    x1 = ct.load(X, index=(b, st, h, 0), shape=(1, BS, 1, HALF), padding_mode=ZERO).reshape((BS, HALF))
    x2 = ct.load(X, index=(b, st, h, 1), shape=(1, BS, 1, HALF), padding_mode=ZERO).reshape((BS, HALF))
    c = ct.load(Cos, index=(st, 0), shape=(BS, HALF), padding_mode=ZERO)
    s = ct.load(Sin, index=(st, 0), shape=(BS, HALF), padding_mode=ZERO)
    ct.store(Y, index=(b, st, h, 0), tile=(x1 * c - x2 * s).reshape((1, BS, 1, HALF)))
    ct.store(Y, index=(b, st, h, 1), tile=(x2 * c + x1 * s).reshape((1, BS, 1, HALF)))


@ct.kernel
def swiglu_activation_from_concat(GU, Y, N: ConstInt, TM: ConstInt, TN: ConstInt):
    """The SwiGLU activation of a fused gate-up projection ``[M, 2N]`` (gate columns first): the up tile is the tile
    ``N // TN`` further along; ``silu(g) * u``, bf16 in / out, M = 50, N = 128."""
    bm, bn = ct.bid(0), ct.bid(1)
    g = ct.load(GU, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO).astype(ct.float32)
    u = ct.load(GU, index=(bm, bn + N // TN), shape=(TM, TN), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(bm, bn), tile=(g / (1.0 + ct.exp(-g)) * u).astype(ct.bfloat16))


@ct.kernel
def histogram_atomic_add_bins(X, Hist, NBINS: ConstInt, TILE: ConstInt):
    """A histogram of values in [0, 1) over NBINS = 16 bins: each element's bin ``floor(x * NBINS)`` gets 1 by
    ``ct.atomic_add`` (int32 counts); elements past the array's end are sent to bin NBINS, past Hist's end, which
    the bounds check drops; 1000 values in tiles of 256."""
    bid = ct.bid(0)
    i = bid * TILE + ct.arange(TILE, dtype=ct.int32)
    x = ct.load(X, index=(bid,), shape=(TILE,), padding_mode=ZERO)
    bins = ct.where(i < X.shape[0], ct.floor(x * NBINS).astype(ct.int32), NBINS)
    ct.atomic_add(Hist, (bins,), ct.full((TILE,), 1, dtype=ct.int32))


@ct.kernel
def argmax_rows_store_int32(X, Idx, TILE_N: ConstInt):
    """Each row's argmax (greedy decoding over a vocabulary of 1000 in one 1024-column tile, ``NEG_INF`` padding),
    stored as int32."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, TILE_N), padding_mode=NEG_INF)
    ct.store(Idx, index=(row,), tile=ct.argmax(x, axis=1).astype(ct.int32))


@ct.kernel
def top2_per_row_values_and_indices(X, Vals, Ids, TILE_N: ConstInt):
    """Top-2 of each row (MoE routing over 60 experts in a 64-column tile): the maximum and its index, the winner
    masked to -inf, the maximum again; values ``[M, 2]`` f32 and indices ``[M, 2]`` int32, written as columns 0 and
    1 by two stores of ``(1, 1)`` tiles."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, TILE_N), padding_mode=NEG_INF)
    cols = ct.arange(TILE_N, dtype=ct.int32)[None, :]
    i1 = ct.argmax(x, axis=1, keepdims=True).astype(ct.int32)
    v1 = ct.max(x, axis=1, keepdims=True)
    x2 = ct.where(cols == i1, -math.inf, x)
    i2 = ct.argmax(x2, axis=1, keepdims=True).astype(ct.int32)
    v2 = ct.max(x2, axis=1, keepdims=True)
    ct.store(Vals, index=(row, 0), tile=v1)
    ct.store(Vals, index=(row, 1), tile=v2)
    ct.store(Ids, index=(row, 0), tile=i1)
    ct.store(Ids, index=(row, 1), tile=i2)


@ct.kernel
def cumsum_rows_across_tiles_carry(X, Y, TILE_N: ConstInt):
    """A row's inclusive prefix sum over several column tiles (N = 300 in 128): each tile's ``ct.cumsum`` plus the
    running total of the tiles before it."""
    row = ct.bid(0)
    carry = ct.zeros((1, 1), dtype=ct.float32)
    for j in range(ct.num_tiles(X, axis=1, shape=(1, TILE_N))):
        x = ct.load(X, index=(row, j), shape=(1, TILE_N), padding_mode=ZERO)
        ct.store(Y, index=(row, j), tile=ct.cumsum(x, axis=1) + carry)
        carry = carry + ct.sum(x, axis=1, keepdims=True)


@ct.kernel
def transpose_2d_ragged(X, Y, TM: ConstInt, TN: ConstInt):
    """``Y = X^T`` tile by tile: the ``(bm, bn)`` tile of X stored transposed at ``(bn, bm)`` of Y; X is 100 x 70."""
    bm, bn = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    ct.store(Y, index=(bn, bm), tile=ct.transpose(x))


@ct.kernel
def embedding_gather_rows(Table, Ids, Out, TT: ConstInt, D: ConstInt):
    """An embedding lookup: ``out[t, :] = table[ids[t], :]`` by a 2-D ``ct.gather`` at (token id column, dim row)
    index tiles; 100 tokens in tiles of 32, a vocabulary of 500 x 64, f16."""
    bt = ct.bid(0)
    ids = ct.load(Ids, index=(bt,), shape=(TT,), padding_mode=ZERO)
    cols = ct.arange(D, dtype=ct.int32)
    ct.store(Out, index=(bt, 0), tile=ct.gather(Table, (ids[:, None], cols[None, :])))


@ct.kernel
def cross_entropy_loss_rows(Logits, Labels, Loss, TILE_N: ConstInt):
    """Per-row cross-entropy ``logsumexp(x) - x[label]`` over a vocabulary of 500 (one 512 tile), the label's logit
    picked by ``ct.gather`` at (row, label)."""
    row = ct.bid(0)
    x = ct.load(Logits, index=(row, 0), shape=(1, TILE_N), padding_mode=NEG_INF)
    m = ct.max(x, axis=1)
    lse = m + ct.log(ct.sum(ct.exp(x - m[:, None]), axis=1))
    label = ct.load(Labels, index=(row,), shape=(1,))
    picked = ct.gather(Logits, (ct.full((1,), row, dtype=ct.int32), label))
    ct.store(Loss, index=(row,), tile=lse - picked)


@ct.kernel
def dgemm_float64_tiles(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A double-precision GEMM (f64 x f64 into f64, ragged M = 100, N = 80, K = 72): the tensor cores' WGMMA has no
    f64 form, so the tier refuses it with a located warning and the SIMT path runs it."""
    acc = ct.zeros((tm, tn), dtype=ct.float64)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc)


_add("dgemm_float64_tiles", dgemm_float64_tiles, [_a((100, 72), "float64"), _a((72, 80), "float64"),
     _a((100, 80), "float64"), 32, 32, 32], (4, 3), "simt", error="this dot multiplies f64 tiles", outputs=(2,))
_add("vector_add_sample_load_store", vector_add_sample_load_store, [_a((1000,)), _a((1000,)), _a((1000,)), 256],
     (4,), "simt", outputs=(2,))
_add("vector_add_gather_scatter", vector_add_gather_scatter, [_a((1000,)), _a((1000,)), _a((1000,)), 256], (4,),
     "simt", outputs=(2,))
_add("layernorm_fwd_mean_rstd_tiles", layernorm_fwd_mean_rstd_tiles,
     [_a((6, 300)), _a((300,)), _a((300,)), _a((6, 300)), _a((6,)), _a((6,)), 1e-5, 128], (6,), "simt",
     outputs=(3, 4, 5))
_add("layernorm_bwd_dx_one_tile", layernorm_bwd_dx_one_tile,
     [_a((6, 200)), _a((6, 200)), _a((200,)), _a((6,)), _a((6,)), _a((6, 200)), 256], (6,), "simt", outputs=(5,))
_add("layernorm_bwd_dw_db_atomic_partials", layernorm_bwd_dw_db_atomic_partials,
     [_a((50, 100)), _a((50, 100)), _a((50,)), _a((50,)), _a((100,)), _a((100,)), 16, 64], (4, 2), "simt",
     outputs=(4, 5))
_add("rmsnorm_bf16_weight_one_tile", rmsnorm_bf16_weight_one_tile,
     [_a((5, 300), BF16), _a((300,), BF16), _a((5, 300), BF16), 1e-6, 512], (5,), "simt", outputs=(2,))
_add("fused_add_rmsnorm_residual_out", fused_add_rmsnorm_residual_out,
     [_a((5, 200), F16), _a((5, 200), F16), _a((200,)), _a((5, 200), F16), 1e-6, 256], (5,), "simt",
     outputs=(1, 3))
_add("softmax_rows_one_tile_neg_inf", softmax_rows_one_tile_neg_inf, [_a((6, 100), F16), _a((6, 100), F16), 128],
     (6,), "simt", outputs=(1,))
_add("softmax_online_over_column_tiles", softmax_online_over_column_tiles, [_a((4, 700)), _a((4, 700)), 256], (4,),
     "simt", outputs=(1,))
_add("rope_rotate_half_bshd", rope_rotate_half_bshd,
     [_a((2, 50, 3, 64)), _a((50, 32)), _a((50, 32)), _a((2, 50, 3, 64)), 16, 32], (4, 3, 2), "simt", outputs=(3,))
_add("swiglu_activation_from_concat", swiglu_activation_from_concat,
     [_a((50, 256), BF16), _a((50, 128), BF16), 128, 32, 64], (2, 2), "simt", outputs=(1,))
_add("histogram_atomic_add_bins", histogram_atomic_add_bins, [_a((1000,)), _a((16,), I32), 16, 256], (4,), "simt",
     outputs=(1,))
_add("argmax_rows_store_int32", argmax_rows_store_int32, [_a((4, 1000)), _a((4,), I32), 1024], (4,), "simt",
     outputs=(1,))
_add("top2_per_row_values_and_indices", top2_per_row_values_and_indices,
     [_a((5, 60)), _a((5, 2)), _a((5, 2), I32), 64], (5,), "simt", outputs=(1, 2))
_add("cumsum_rows_across_tiles_carry", cumsum_rows_across_tiles_carry, [_a((4, 300)), _a((4, 300)), 128], (4,),
     "simt", outputs=(1,))
_add("transpose_2d_ragged", transpose_2d_ragged, [_a((100, 70)), _a((70, 100)), 32, 32], (4, 3), "simt",
     outputs=(1,))
_add("embedding_gather_rows", embedding_gather_rows, [_a((500, 64), F16), _a((100,), I32), _a((100, 64), F16), 32, 64],
     (4,), "simt", outputs=(2,))
_add("cross_entropy_loss_rows", cross_entropy_loss_rows, [_a((6, 500)), _a((6,), I32), _a((6,)), 512], (6,), "simt",
     outputs=(2,))


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def swiglu_with_ct_sigmoid(GU, Y, N: ConstInt, TM: ConstInt, TN: ConstInt):
    """``ct.sigmoid``, as torch spells it (cuTile has no sigmoid: ``1 / (1 + exp(-x))``)."""
    g = ct.load(GU, index=(ct.bid(0), ct.bid(1)), shape=(TM, TN), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), ct.bid(1)), tile=g * ct.sigmoid(g))


@ct.kernel
def matmul_load_with_one_index_of_a_matrix(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A's tile indexed ``(k,)`` (the row tile forgotten)."""
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(k,), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc)


@ct.kernel
def layernorm_tile_of_300_columns(X, Y, N: ConstInt):
    """The row loaded in one tile of its exact width, 300 (not a power of two)."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, N), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=x - ct.sum(x) / N)


@ct.kernel
def mma_of_f16_by_f32(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """An f16 A tile times an f32 B tile (B left in f32: no ``astype``)."""
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    a = ct.load(A, index=(ct.bid(0), 0), shape=(tm, tk), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(tk, tn), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b, acc))


@ct.kernel
def mma_f16_into_an_int32_accumulator(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """f16 operands with an int32 accumulator (copied from an int8 kernel)."""
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    a = ct.load(A, index=(ct.bid(0), 0), shape=(tm, tk), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(tk, tn), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b, acc))


@ct.kernel
def mma_without_an_accumulator(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """``ct.mma(a, b)``: the accumulator left out."""
    a = ct.load(A, index=(ct.bid(0), 0), shape=(tm, tk), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(tk, tn), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b))


@ct.kernel
def tile_shape_from_the_array_shape(X, Y, TILE_N: ConstInt):
    """``shape=(1, X.shape[1])``: a tile as wide as the runtime row."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, X.shape[1]), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=x)


@ct.kernel
def bid_of_axis_3(X, Y, TILE: ConstInt):
    """``ct.bid(3)``: grids have three axes (0, 1, 2)."""
    x = ct.load(X, index=(ct.bid(3),), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def padding_mode_as_a_string(X, Y, TILE: ConstInt):
    """``padding_mode="zero"`` (a string, not ``ct.PaddingMode.ZERO``)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode="zero")
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def cdiv_of_a_float(X, Y, TILE: ConstInt):
    """``ct.cdiv(X.shape[0] * 0.5, TILE)``: a float numerator."""
    acc = ct.zeros((TILE,), dtype=ct.float32)
    for j in range(ct.cdiv(X.shape[0] * 0.5, TILE)):
        acc = acc + ct.load(X, index=(j,), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def scatter_of_a_matrix_at_vector_indices(X, Y, TM: ConstInt, TN: ConstInt):
    """A ``(TM, TN)`` tile scattered at a ``(TN,)`` index tile of a 1-D array."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(TM, TN), padding_mode=ZERO)
    ct.scatter(Y, ct.arange(TN, dtype=ct.int32), x)


@ct.kernel
def store_tile_keyword_misspelt_value(X, Y, TILE: ConstInt):
    """``ct.store(Y, index=..., value=x)``: ``value=`` for ``tile=``."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), value=x)


@ct.kernel
def reduction_over_axis_2_of_a_row(X, Y, TILE_N: ConstInt):
    """``ct.max(x, axis=2)`` of a ``(1, TILE_N)`` row tile (the FMHA's ``axis=-1`` miscounted)."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, TILE_N), padding_mode=NEG_INF)
    ct.store(Y, index=(ct.bid(0),), tile=ct.max(x, axis=2))


@ct.kernel
def transpose_of_a_3d_tile_without_axes(X, Y, BS: ConstInt, D: ConstInt):
    """``ct.transpose`` of a ``(1, BS, D)`` tile with no axes named."""
    x = ct.load(X, index=(ct.bid(1), ct.bid(0), 0), shape=(1, BS, D), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(1), 0, ct.bid(0)), tile=ct.transpose(x))


@ct.kernel
def constant_argument_assigned_in_the_kernel(X, Y, TILE: ConstInt):
    """``TILE = TILE * 2`` then a tile of the new size (a constant reassigned)."""
    TILE = TILE * 3
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def atomic_add_of_a_float_into_int32(X, Hist, TILE: ConstInt):
    """A histogram adding the f32 values themselves into int32 counts."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    ct.atomic_add(Hist, (ct.arange(TILE, dtype=ct.int32) % 16,), x)


@ct.kernel
def kernel_returning_a_tile(X, Y, TILE: ConstInt):
    """``return x`` from the kernel (as from a torch function) instead of a store."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    return x * 2.0


@ct.kernel
def num_blocks_of_axis_minus_one(X, Y, TILE: ConstInt):
    """``ct.num_blocks(-1)``."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x * ct.num_blocks(-1))


@ct.kernel
def store_of_a_wrong_tile_shape_in_a_loop(X, Y, TM: ConstInt, TN: ConstInt):
    """A ``(TM, TN)`` accumulator stored into a 3-D output at a 3-index position (the batch dimension forgotten in
    the reshape)."""
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for j in range(2):
        acc = acc + ct.load(X, index=(ct.bid(0), j), shape=(TM, TN), padding_mode=ZERO)
    ct.store(Y, index=(0, ct.bid(0), 0), tile=acc)


@ct.kernel
def fmha_tile_m_of_1024_rows(Q, K, V, Out, qk_scale: float, TILE_M: ConstInt, TILE_N: ConstInt, D: ConstInt):
    """Attention with a 1024-row query tile (a whole short sequence per program, as users try first)."""
    q = ct.load(Q, index=(ct.bid(1), ct.bid(0), 0), shape=(1, TILE_M, D), padding_mode=ZERO).reshape((TILE_M, D))
    m_i = ct.full((TILE_M, 1), -np.inf, dtype=np.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=np.float32)
    acc = ct.full((TILE_M, D), 0.0, dtype=np.float32)
    for j in range(ct.cdiv(K.shape[1], TILE_N)):
        k = ct.load(K, index=(ct.bid(1), j, 0), shape=(1, TILE_N, D), padding_mode=ZERO).reshape((TILE_N, D))
        qk = ct.mma(q, ct.transpose(k), ct.full((TILE_M, TILE_N), 0., dtype=np.float32))
        m_ij = max(m_i, ct.max(qk, axis=-1, keepdims=True) * qk_scale)
        p = ct.exp2(qk * qk_scale - m_ij)
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.load(V, index=(ct.bid(1), j, 0), shape=(1, TILE_N, D), padding_mode=ZERO).reshape((TILE_N, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_ij
    ct.store(Out, index=(ct.bid(1), ct.bid(0), 0), tile=(acc / l_i).reshape((1, TILE_M, D)).astype(Out.dtype))


_V, _M, _H = _a((200,)), _a((64, 128)), _a((128, 128), F16)
REJECTED_BY_CUTILE = {
    # name: (kernel, spec, words of cuTile's message, text of the line it names)
    "swiglu_with_ct_sigmoid": (swiglu_with_ct_sigmoid, [_a((50, 256)), _a((50, 128)), 128, 32, 64],
                               "Module 'cuda.tile' has no attribute 'sigmoid'", "g * ct.sigmoid(g)"),
    "matmul_load_with_one_index_of_a_matrix": (matmul_load_with_one_index_of_a_matrix,
                                               [_H, _H, _a((128, 128)), 64, 64, 64],
                                               "Index size 1 does not match the array rank 2", "index=(k,)"),
    "layernorm_tile_of_300_columns": (layernorm_tile_of_300_columns, [_a((4, 300)), _a((4, 300)), 300],
                                      "Dimension #1 of shape (1, 300) is not a power of two", "shape=(1, N)"),
    "mma_of_f16_by_f32": (mma_of_f16_by_f32, [_H, _a((128, 128)), _a((128, 128)), 64, 64, 64],
                          "x and y must have the same dtype unless they are int8/uint8, got float16 float32",
                          "tile=ct.mma(a, b, acc)"),
    "mma_f16_into_an_int32_accumulator": (mma_f16_into_an_int32_accumulator, [_H, _H, _a((128, 128), I32), 64, 64, 64],
                                          "Unsupported acc dtype int32", "tile=ct.mma(a, b, acc)"),
    "mma_without_an_accumulator": (mma_without_an_accumulator, [_H, _H, _a((128, 128)), 64, 64, 64],
                                   "mma(): missing a required argument: 'acc'", "tile=ct.mma(a, b))"),
    "tile_shape_from_the_array_shape": (tile_shape_from_the_array_shape, [_M, _M, 128],
                                        "Expected a constant integer tuple, but given value is not constant",
                                        "shape=(1, X.shape[1])"),
    "bid_of_axis_3": (bid_of_axis_3, [_V, _V, 64], "Axis must be 0, 1, or 2, but 3 was given", "ct.bid(3)"),
    "padding_mode_as_a_string": (padding_mode_as_a_string, [_V, _V, 64],
                                 "Expected PaddingMode, but given value has type <string constant 'zero'>",
                                 'padding_mode="zero"'),
    "cdiv_of_a_float": (cdiv_of_a_float, [_V, _V, 64], "Expected a signed integer scalar, but got Tile[float32,()]",
                        "ct.cdiv(X.shape[0] * 0.5"),
    "scatter_of_a_matrix_at_vector_indices": (scatter_of_a_matrix_at_vector_indices, [_M, _a((128,)), 64, 128],
                                              "Value shape (64, 128) is not broadcastable to the index shape (128,)",
                                              "ct.scatter(Y"),
    "store_tile_keyword_misspelt_value": (store_tile_keyword_misspelt_value, [_V, _V, 64],
                                          "store(): missing a required argument: 'tile'", "value=x"),
    "reduction_over_axis_2_of_a_row": (reduction_over_axis_2_of_a_row, [_M, _a((64,)), 128],
                                       "Axis 2 is out of range for rank 2", "ct.max(x, axis=2)"),
    "transpose_of_a_3d_tile_without_axes": (transpose_of_a_3d_tile_without_axes,
                                            [_a((2, 64, 32)), _a((2, 32, 64)), 64, 32],
                                            "`axes` must be specified for tile with more than 2 dimensions",
                                            "tile=ct.transpose(x)"),
    "constant_argument_assigned_in_the_kernel": (constant_argument_assigned_in_the_kernel, [_V, _V, 64],
                                                 "Dimension #0 of shape (192,) is not a power of two",
                                                 "shape=(TILE,)"),
    "atomic_add_of_a_float_into_int32": (atomic_add_of_a_float_into_int32, [_V, _a((16,), I32), 64],
                                         "cannot implicitly cast float32 to int32", "ct.atomic_add(Hist"),
    "kernel_returning_a_tile": (kernel_returning_a_tile, [_V, _V, 64], "Tile kernels cannot return values",
                                "return x * 2.0"),
    "num_blocks_of_axis_minus_one": (num_blocks_of_axis_minus_one, [_V, _V, 64],
                                     "Axis must be 0, 1, or 2, but -1 was given", "ct.num_blocks(-1)"),
}
"""Programs cuTile's front end refuses at the user's line (tileorch never sees them)."""


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("store_of_a_wrong_tile_shape_in_a_loop", store_of_a_wrong_tile_shape_in_a_loop,
     [_M, _a((1, 64, 128)), 64, 64], (1,), "error",
     error="expected tensor_view rank and tile rank to match, got tensor_view of rank 3 and tiles of rank 2",
     notes="ct.store(Y, index=(0, ct.bid(0), 0), tile=acc)")
_bad("fmha_tile_m_of_1024_rows", fmha_tile_m_of_1024_rows,
     [_a((2, 1024, 64), F16)] * 4 + [0.18, 1024, 64, 64], (1, 2), "error",
     error="a 1024x64x64 dot on scalar FMA loops", notes="qk = ct.mma(q, ct.transpose(k)")
