"""A third set of attention-shaped cuTile programs (session 21, issue 20: "acceptance runs
attention-shaped programs you will not see"), in the ways users write attention that
:mod:`tileorch.testing.attention_programs`, ``attention_programs2`` and the user sweeps
(``user_programs`` .. ``user_programs12``) do not: each program combines spellings those sets
use one at a time, or uses one they never use.

Loops: the key loop written as a ``while`` over a scalar counter (non-causal over ragged keys; causal
with a runtime query offset into a KV cache, bf16; a sliding window whose first tile is a ``max``),
a ``for`` whose bound is a runtime argument rather than a shape.

Heads: GQA with the group a *runtime* scalar (``h // group``) on a 3-D grid (query tile, head,
batch), MQA with K and V 3-D ``[B, S, D]`` beside a 4-D Q, heads in the sequence-major layout
``[B, S, H, D]`` for a cross attention whose query and key counts are both ragged, a flattened
``[B*H, S, D]`` input with a 4-D ``[B, H, S, D]`` output.

Scores and masks: the scale applied to S with natural ``exp`` and a mask *added*
(``s + where(keep, 0, -inf)``), a soft cap with natural exp and the natural log-sum-exp returned
beside a bf16 output, ALiBi slopes gathered from an array for a ragged cross attention, a boolean
mask ``[B, 1, Sq, Sk]`` broadcast over heads, a float keep-mask multiplied in
(``s * keep + (1 - keep) * -1e30``), a sliding window at the end of a KV cache (decode/prefill
with an offset), Triton's tutorial form (the running max kept in scaled units, 1-D row state),
the score dot with an f16 accumulator.

Dot spellings: ``ct.matmul`` for both dots (the second added to the rescaled accumulator), K read
``[D, BN]`` through ``order=`` from a 4-D sequence-major array, K^T stored as an array.

Head dims and tiles: 64/96/128/256 with query tiles of 64 and 128 (bf16 and fp16); the ones the
tier refuses say why at the user's line.

Found by this set (each a general fix, the program's test failing before it): a dot loop written as a
counted ``while`` (``j < n``, ``j * BN < end``, a counter of key offsets read through cuTile's
``assume``, ``while True: if j >= n: break``) was refused to the SIMT path as "this dot is in a
while loop": ``tileas-while-to-for`` makes it the ``for`` it spells (the PTX is byte-identical to
the ``for`` spelling's); K^T read through ``order=(0, 2, 3, 1)`` from a sequence-major array was
refused as "a view with dimension order [0, 2, 3, 1]": ``tileas-view-order-to-reshape`` loads it in
the array's order and transposes; Triton's 1-D row state stored as ``[1, BM]`` (an
``expand_dims``) was refused as "a second store of a [1, BM] tile": it is the row-vector store.
Head dim 96 is written as a 128-wide tile over a 96-wide array (cuTile's tile extents are powers
of two).

Each entry is a :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`; driven by
tests/unit/test_attention_programs3_compile.py (path, remarks, refusals),
tests/unit/test_attention_programs3_emulated.py (the chained kernels' PTX on the emulator against
numpy) and tests/gpu/test_attention_programs3.py (the GPU against torch fp32, NaN-prefilled).
Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

NEG = -1.0e30  # a finite "minus infinity"


# ----------------------------------------------------------------------------------------------- while loops


@ct.kernel
def attn_while_ragged(Q, K, V, O, qk_scale: float, seq_k: int, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """The key loop as a ``while`` over a counter; keys past ``seq_k`` masked (ragged last tile)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    n = ct.cdiv(seq_k, BN)
    j = 0
    while j < n:
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < seq_k, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
        j += 1
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_while_causal_offset_bf16(Q, K, V, O, qk_scale: float, q_offset: int, BM: ct.Constant[int],
                                  BN: ct.Constant[int], D: ct.Constant[int]):
    """KV-cache prefill in bf16: the queries sit at ``q_offset ..`` of the keys (bottom-right causal),
    the loop a ``while`` that stops at the last key tile the query tile can see."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    qpos = q_offset + qt * BM + ct.arange(BM, dtype=ct.int32)
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    end = min(q_offset + (qt + 1) * BM, K.shape[1])
    j = 0
    while j * BN < end:
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] <= qpos[:, None], s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
        j = j + 1
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_while_window(Q, K, V, O, qk_scale: float, W: int, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """Causal sliding window (Mistral: query ``i`` sees keys ``i - W < j <= i``, ``W`` a runtime
    scalar) as a ``while`` from the first tile inside the window (``max``) to the diagonal."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    j = max(qt * BM - W + 1, 0) // BN
    hi = ct.cdiv((qt + 1) * BM, BN)
    while j < hi:
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos > qpos - W), s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_new
        j += 1
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_while_key_offsets(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                           D: ct.Constant[int]):
    """A ``while`` over key *offsets* (``start += BN``, ``start < seq_k``), the tile index
    ``start // BN``, the ragged keys masked from the offset; K turned by ``ct.permute``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq_k = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    start = 0
    while start < seq_k:
        k = ct.load(K, index=(bh, start // BN, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO)
        s = ct.mma(q, ct.permute(k.reshape((BN, D)), (1, 0)), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((start + ct.arange(BN, dtype=ct.int32))[None, :] < seq_k, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, start // BN, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(p.astype(V.dtype), v.reshape((BN, D)), acc * alpha)
        m_i = m_new
        start += BN
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_while_true_break(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                          D: ct.Constant[int]):
    """``while True:`` with ``if j >= n: break`` first, then the step; causal (``n`` the diagonal's
    tile count)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    n = ct.cdiv((qt + 1) * BM, BN)
    j = 0
    while True:
        if j >= n:
            break
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
        j += 1
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_while_decode_len_gathered(Q, K, V, Lens, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                                   D: ct.Constant[int]):
    """Decoding ``BM`` query heads of a KV head (GQA rows) over a cache whose length is gathered per
    batch from ``Lens``; the loop a ``while`` whose counter is bumped first and read as ``j - 1``."""
    b, kvh = ct.bid(0), ct.bid(1)
    kv_len = ct.gather(Lens, b)
    q = ct.load(Q, index=(b, kvh, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    n = ct.cdiv(kv_len, BN)
    j = 0
    while j < n:
        j += 1
        t = j - 1
        k = ct.load(K, index=(b, kvh, t, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((t * BN + ct.arange(BN, dtype=ct.int32))[None, :] < kv_len, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, kvh, t, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, kvh, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_mask_on_p(Q, K, V, O, qk_scale: float, W: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int],
                   D: ct.Constant[int]):
    """The mask applied to P after the exponential (``p = where(keep, exp2(s - m), 0)``), the row max
    taken over unmasked scores: a causal sliding window of ``W`` keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(max(qt * BM - W + 1, 0) // BN, qt + 1):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.where((kpos <= qpos) & (kpos > qpos - W), ct.exp2(s - m_new), 0.0)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- heads, layouts


@ct.kernel
def attn_gqa_group_runtime(Q, K, V, O, qk_scale: float, group: int, BM: ct.Constant[int], BN: ct.Constant[int],
                           D: ct.Constant[int]):
    """GQA on a 3-D grid (query tile, query head, batch), 4-D ``[B, H, S, D]`` arrays; the KV head
    ``h // group`` with ``group`` a runtime scalar (not a constant)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    kvh = h // group
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_mqa_kv3d_causal(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """MQA: Q ``[B, H, S, D]``, one K / V head per batch stored 3-D ``[B, S, D]``; causal, grid
    (query tile, head, batch)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos <= qpos, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_cross_bshd_both_ragged(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                                D: ct.Constant[int]):
    """Cross attention in the sequence-major layout ``[B, S, H, D]`` (``Sq`` != ``Sk``, both ragged):
    a (1, BM, 1, D) box per head, keys past ``Sk`` masked, the ragged query rows clipped by the
    store; grid (query tile, head, batch)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq_k = K.shape[1]
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq_k, BN)):
        k = ct.load(K, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq_k, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def attn_flat_in_4d_out(Q, K, V, O, qk_scale: float, H: ct.Constant[int], BM: ct.Constant[int],
                        BN: ct.Constant[int], D: ct.Constant[int]):
    """Inputs flattened ``[B*H, S, D]``, the output 4-D ``[B, H, S, D]`` (index ``(bh // H, bh % H)``)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
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
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh // H, bh % H, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_k_order_bshd(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """K read as ``[D, BN]`` straight from a sequence-major ``[B, S, H, D]`` array through the load's
    ``order=`` (no transpose op); Q / V / O sequence-major too."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, 1, D))):
        kt = ct.load(K, index=(b, h, 0, j), shape=(1, 1, D, BN), order=(0, 2, 3, 1)).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, h, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def attn_kt_array_causal_bf16_d128(Q, KT, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                                   D: ct.Constant[int]):
    """K^T stored as its own array ``[BH, D, S]`` (no transpose in the program), causal, bf16,
    head dim 128."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        kt = ct.load(KT, index=(bh, 0, j), shape=(1, D, BN)).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- scores, masks


@ct.kernel
def attn_scale_s_exp_add_mask(Q, K, V, O, sm_scale: float, seq_k: int, BM: ct.Constant[int],
                              BN: ct.Constant[int], D: ct.Constant[int]):
    """The scale applied to S, natural ``exp``, the ragged-key mask *added* (``s + where(ok, 0, -inf)``),
    the output normalised by a reciprocal."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq_k, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = s * sm_scale
        s = s + ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq_k, 0.0, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc * (1.0 / l_i)).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_softcap_exp_lse_bf16(Q, K, V, O, LSE, sm_scale: float, cap: float, BM: ct.Constant[int],
                              BN: ct.Constant[int], D: ct.Constant[int]):
    """Soft-capped scores (``cap * tanh(s * scale / cap)``) with natural exp, the output in bf16
    and the natural log-sum-exp ``m + log(l)`` stored ``[BH, S]``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = ct.tanh(s * (sm_scale / cap)) * cap
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log(l_i)).reshape((1, BM)))


@ct.kernel
def attn_alibi_gather_cross_ragged(Q, K, V, Slopes, O, qk_scale: float, H: ct.Constant[int],
                                   BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """ALiBi with the head's slope gathered from ``Slopes [H]`` (a scalar), ``- slope * (i - j)``
    in exp2 units, over a ragged cross attention (keys past ``Sk`` masked)."""
    qt, bh = ct.bid(0), ct.bid(1)
    slope = ct.gather(Slopes, bh % H)
    seq_k = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq_k, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = s - (slope * LOG2E) * (qpos - kpos).astype(ct.float32)
        s = ct.where(kpos < seq_k, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bool_mask_b1ss(Q, K, V, Mask, O, qk_scale: float, H: ct.Constant[int], BM: ct.Constant[int],
                        BN: ct.Constant[int], D: ct.Constant[int]):
    """A boolean mask ``[B, 1, Sq, Sk]`` (True = keep) broadcast over the heads (the head index 0),
    4-D Q / K / V / O ``[B, H, S, D]``, bf16."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        keep = ct.load(Mask, index=(b, 0, qt, j), shape=(1, 1, BM, BN)).reshape((BM, BN))
        s = ct.where(keep, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_float_keep_mul(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                        D: ct.Constant[int]):
    """Causal, the mask as a float multiply: ``s * keep + (1 - keep) * -1e30`` (``keep`` 0/1 f32)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        keep = ((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos).astype(ct.float32)
        s = s * keep + (1.0 - keep) * NEG
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_decode_window_offset(Q, K, V, O, qk_scale: float, kv_len: int, W: ct.Constant[int],
                              BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """KV-cache decode/prefill with an offset and a sliding window: the ``Sq`` queries are the last
    positions of a cache of runtime length ``kv_len`` (the array is longer), query ``i`` sees keys
    ``i - W < j <= i``; key tiles before the window skipped."""
    qt, bh = ct.bid(0), ct.bid(1)
    q_off = kv_len - Q.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    qpos = (q_off + qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    lo = max(q_off + qt * BM - W + 1, 0) // BN
    hi = ct.cdiv(min(q_off + (qt + 1) * BM, kv_len), BN)
    for j in range(lo, hi):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos > qpos - W), s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_triton_tutorial(Q, K, V, O, M, sm_scale: float, CAUSAL: ct.Constant[bool], BM: ct.Constant[int],
                         BN: ct.Constant[int], D: ct.Constant[int]):
    """Triton's tutorial forward ported: 1-D row state, the running max kept in *scaled* units
    (``m_ij = max(m_i, max(qk) * qk_scale)``, ``qk = qk * qk_scale - m_ij[:, None]``), the causal
    mask added as ``where(mask, 0, -1e6)``, the log2 LSE ``m_i + log2(l_i)`` stored in ``M``."""
    qt, bh = ct.bid(0), ct.bid(1)
    qk_scale = sm_scale * 1.44269504
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    offs_m = qt * BM + ct.arange(BM, dtype=ct.int32)
    offs_n = ct.arange(BN, dtype=ct.int32)
    m_i = ct.full((BM,), -math.inf, dtype=ct.float32)
    l_i = ct.full((BM,), 1.0, dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    hi = ct.cdiv((qt + 1) * BM, BN) if CAUSAL else ct.num_tiles(K, axis=1, shape=(1, BN, D))
    for j in range(hi):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        qk = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        if CAUSAL:
            mask = offs_m[:, None] >= (j * BN + offs_n)[None, :]
            qk = qk * qk_scale + ct.where(mask, 0.0, -1.0e6)
            m_ij = ct.maximum(m_i, ct.max(qk, axis=1))
            qk = qk - m_ij[:, None]
        else:
            m_ij = ct.maximum(m_i, ct.max(qk, axis=1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = ct.exp2(qk)
        l_ij = ct.sum(p, axis=1)
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc)
        m_i = m_ij
    m_i = m_i + ct.log2(l_i)
    acc = acc / l_i[:, None]
    ct.store(M, index=(bh, qt), tile=m_i.reshape((1, BM)))
    ct.store(O, index=(bh, qt, 0), tile=acc.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_scores_f16_acc(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                        D: ct.Constant[int]):
    """The score dot accumulated in f16 (``ct.zeros(..., float16)``, as a user copying a GEMM
    writes), widened to f32 for the softmax."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float16)).astype(ct.float32) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- dot spellings


@ct.kernel
def attn_matmul_both_causal(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                            D: ct.Constant[int]):
    """``ct.matmul`` for both dots (the scores widened to f32, ``acc = acc * alpha + P @ V``),
    causal with the diagonal tile masked."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.matmul(q, ct.transpose(k)).astype(ct.float32) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = acc * alpha + ct.matmul(p.astype(V.dtype), v).astype(ct.float32)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_q_scaled_f32_bf16(Q, K, V, O, sm_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                           D: ct.Constant[int]):
    """The scale (with log2 e) applied to Q before the loop in f32, Q cast back to its type; causal."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    q = (q.astype(ct.float32) * (sm_scale * LOG2E)).astype(Q.dtype)
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- head dims, tiles


@ct.kernel
def attn_textbook(Q, K, V, O, qk_scale: float, CAUSAL: ct.Constant[bool], BM: ct.Constant[int],
                  BN: ct.Constant[int], D: ct.Constant[int]):
    """The textbook forward over ``[BH, S, D]`` (ragged sequence masked) for the head-dim / tile
    table below."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    n = ct.cdiv(min((qt + 1) * BM, seq), BN) if CAUSAL else ct.cdiv(seq, BN)
    for j in range(n):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        ok = kpos < seq
        if CAUSAL:
            ok = ok & (kpos <= qpos)
        s = ct.where(ok, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- the table

F16, BF16 = "float16", "bfloat16"
_S64 = 0.125 * LOG2E


def _qkv(q, k, dt=F16, v=None):
    return [(q, dt), (k, dt), (v or k, dt)]


_add("attn_while_ragged", attn_while_ragged, _qkv((2, 128, 64), (2, 200, 64)) + [((2, 128, 64), F16), _S64, 200,
                                                                                64, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_while_causal_offset_bf16", attn_while_causal_offset_bf16,
     _qkv((2, 100, 64), (2, 300, 64), BF16) + [((2, 100, 64), BF16), _S64, 200, 64, 64, 64], (2, 2), "chained",
     outputs=(3,))
_add("attn_while_window", attn_while_window, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), F16), _S64, 80,
                                                                                64, 64, 64],
     (4, 2), "chained", outputs=(3,))
_add("attn_while_key_offsets", attn_while_key_offsets,
     _qkv((2, 128, 64), (2, 190, 64)) + [((2, 128, 64), F16), _S64, 64, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_while_true_break", attn_while_true_break,
     _qkv((2, 192, 64), (2, 192, 64)) + [((2, 192, 64), F16), _S64, 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("attn_while_decode_len_gathered", attn_while_decode_len_gathered,
     [((2, 2 * 16, 64), F16), ((2, 2, 512, 64), F16), ((2, 2, 512, 64), F16), ((2,), "int32"),
      ((2, 2 * 16, 64), F16), _S64, 16, 64, 64], (2, 2), "chained", outputs=(4,))
_add("attn_mask_on_p", attn_mask_on_p, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), F16), _S64, 100, 64, 64, 64],
     (4, 2), "chained", outputs=(3,))
_add("attn_gqa_group_runtime", attn_gqa_group_runtime,
     _qkv((2, 4, 128, 64), (2, 2, 192, 64)) + [((2, 4, 128, 64), F16), _S64, 2, 64, 64, 64], (2, 4, 2), "chained",
     outputs=(3,))
_add("attn_mqa_kv3d_causal", attn_mqa_kv3d_causal,
     [((2, 3, 192, 64), F16), ((2, 192, 64), F16), ((2, 192, 64), F16), ((2, 3, 192, 64), F16), _S64, 64, 64, 64],
     (3, 3, 2), "chained", outputs=(3,))
_add("attn_cross_bshd_both_ragged", attn_cross_bshd_both_ragged,
     _qkv((2, 100, 2, 64), (2, 150, 2, 64)) + [((2, 100, 2, 64), F16), _S64, 64, 64, 64], (2, 2, 2), "chained",
     outputs=(3,))
_add("attn_flat_in_4d_out", attn_flat_in_4d_out,
     _qkv((4, 128, 64), (4, 128, 64)) + [((2, 2, 128, 64), F16), _S64, 2, 64, 64, 64], (2, 4), "chained",
     outputs=(3,))
_add("attn_k_order_bshd", attn_k_order_bshd,
     _qkv((2, 128, 2, 64), (2, 128, 2, 64)) + [((2, 128, 2, 64), F16), _S64, 64, 64, 64], (2, 2, 2), "chained",
     outputs=(3,), notes="found by this set: K^T through a 4-D order= other than the last two dimensions swapped was "
                         "refused ('a view with dimension order [0, 2, 3, 1]'); now read in the array's order and "
                         "transposed (tileas-view-order-to-reshape)")
_add("attn_kt_array_causal_bf16_d128", attn_kt_array_causal_bf16_d128,
     [((2, 256, 128), BF16), ((2, 128, 256), BF16), ((2, 256, 128), BF16), ((2, 256, 128), BF16),
      LOG2E / math.sqrt(128), 128, 64, 128], (2, 2), "chained", outputs=(3,))
_add("attn_scale_s_exp_add_mask", attn_scale_s_exp_add_mask,
     _qkv((2, 128, 64), (2, 170, 64)) + [((2, 128, 64), F16), 0.125, 170, 64, 64, 64], (2, 2), "chained",
     outputs=(3,))
_add("attn_softcap_exp_lse_bf16", attn_softcap_exp_lse_bf16,
     _qkv((2, 128, 64), (2, 256, 64), BF16) + [((2, 128, 64), BF16), ((2, 128), "float32"), 0.125, 20.0, 64, 64, 64],
     (2, 2), "chained", outputs=(3, 4))
_add("attn_alibi_gather_cross_ragged", attn_alibi_gather_cross_ragged,
     _qkv((4, 100, 64), (4, 180, 64)) + [((2,), "float32"), ((4, 100, 64), F16), _S64, 2, 64, 64, 64], (2, 4),
     "chained", outputs=(4,))
_add("attn_bool_mask_b1ss", attn_bool_mask_b1ss,
     _qkv((2, 2, 128, 64), (2, 2, 128, 64), BF16) + [((2, 1, 128, 128), "bool_"), ((2, 2, 128, 64), BF16), _S64, 2,
                                                     64, 64, 64], (2, 4), "chained", outputs=(4,))
_add("attn_float_keep_mul", attn_float_keep_mul,
     _qkv((2, 192, 64), (2, 192, 64)) + [((2, 192, 64), F16), _S64, 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("attn_decode_window_offset", attn_decode_window_offset,
     _qkv((2, 70, 64), (2, 512, 64)) + [((2, 70, 64), F16), _S64, 400, 100, 64, 64, 64], (2, 2), "chained",
     outputs=(3,))
_add("attn_triton_tutorial_causal", attn_triton_tutorial,
     _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), F16), ((2, 256), "float32"), 0.125, True, 128, 64, 64],
     (2, 2), "chained", outputs=(3, 4))
_add("attn_triton_tutorial", attn_triton_tutorial,
     _qkv((2, 128, 64), (2, 256, 64)) + [((2, 128, 64), F16), ((2, 128), "float32"), 0.125, False, 64, 64, 64],
     (2, 2), "chained", outputs=(3, 4))
_add("attn_scores_f16_acc", attn_scores_f16_acc,
     _qkv((2, 128, 64), (2, 128, 64)) + [((2, 128, 64), F16), _S64, 64, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_matmul_both_causal", attn_matmul_both_causal,
     _qkv((2, 192, 64), (2, 192, 64)) + [((2, 192, 64), F16), _S64, 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("attn_q_scaled_f32_bf16", attn_q_scaled_f32_bf16,
     _qkv((2, 256, 64), (2, 256, 64), BF16) + [((2, 256, 64), BF16), 0.125, 128, 64, 64], (2, 2), "chained",
     outputs=(3,))

# head dims 64 / 96 / 128 / 256 x query tiles 64 / 128, fp16 and bf16, causal and not (ragged sequences)
for _d, _bm, _bn, _dt, _causal in [(64, 128, 128, BF16, True), (96, 64, 64, BF16, False), (96, 128, 64, F16, True),
                                   (128, 128, 64, BF16, False), (128, 64, 128, F16, True),
                                   (256, 64, 64, F16, False), (256, 64, 64, BF16, True),
                                   (256, 128, 64, F16, False)]:
    _seq = 2 * _bm + 37
    _tile_d = 1 << (_d - 1).bit_length()  # cuTile's tiles are powers of two: d96 in a 128-wide tile, zero-padded
    _add(f"attn_textbook_d{_d}_bm{_bm}_bn{_bn}_{'bf16' if _dt == BF16 else 'f16'}{'_causal' if _causal else ''}",
         attn_textbook,
         _qkv((2, _seq, _d), (2, _seq, _d), _dt) + [((2, _seq, _d), _dt), LOG2E / math.sqrt(_d), _causal, _bm, _bn,
                                                    _tile_d],
         (3, 2), "chained", outputs=(3,))
