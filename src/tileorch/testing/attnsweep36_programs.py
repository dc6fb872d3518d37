"""Session 36's attention-shaped sweep (issue 20: "acceptance runs attention-shaped programs you will not see"):
programs written the way users port attention to cuTile (the cuTile FlashAttention sample's spelling, Triton's
tutorial, FlashAttention / xformers variants), in the shapes and masks the earlier sets test least.

Shapes: head dims 80 and 96 in 128-wide zero-padded tiles, 48 in a 64-wide tile, 160 in a 256-wide tile; query and
key lengths that differ with neither a multiple of the tile (cross attention); ``[B, S, H, D]`` arrays whose K and V
are strided views of a packed ``[B, S, 2, H, D]`` buffer; separate batch and head grid axes (3-D grid); key tiles
32 / 64 / 128 / 256; K read as a ``[S, D]`` tile, through a transposing view (``order=``) and from a pre-transposed
``[D, S]`` array; V stored ``[BH, D, S]``; Q, K and V strided views of one packed QKV buffer; O stored transposed
``[BH, D, S]`` (with the cast before or after the transpose, an LSE beside it); a persistent loop over work items
written by the user.

Masks: a sliding window with both bounds (runtime scalars; the key loop ``range(lo, hi)``); a prefix-LM mask (a
runtime prefix length); a document mask from a per-token segment-id array; key padding from a lengths array;
dropout from a hashed seed (an int32 hash of the seed and the query / key positions).

Softmax spellings: the scale a runtime scalar on the scores with natural ``exp``; the scale folded into ``exp``'s
argument (max in raw units); Q pre-scaled before the loop; Triton's tutorial (1-D row state, max in scaled units);
LSE in log2 and natural log; fp32 and bf16 outputs; the two-pass softmax (a max pass then a sum pass, two loops).

Each entry is a :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (``path``: what the compiler
does with it; ``error``: the located refusal's text where the tensor-core tier refuses); driven by
tests/unit/test_attnsweep36_compile.py, tests/unit/test_attnsweep36_emulated.py, tests/gpu/test_attnsweep36_gpu.py
and benchmarks/attnsweep36.py.  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
HASH_MUL = 0x2C1B3C6D
"""The dropout hash's multiplier (:func:`dropout_keep` and the references)."""


def _state(rows, d):
    return (ct.full((rows, 1), -math.inf, dtype=ct.float32), ct.zeros((rows, 1), dtype=ct.float32),
            ct.zeros((rows, d), dtype=ct.float32))


def _step2(s, m_i, l_i, acc, v, dt):
    """One online-softmax step in ``exp2`` (scores in log2 units)."""
    m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
    p = ct.exp2(s - m_new)
    alpha = ct.exp2(m_i - m_new)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    return m_new, l_i, ct.mma(p.astype(dt), v, acc * alpha)


def _kpos(j, BN):
    return (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]


def _qpos(qt, BM):
    return (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]


def _tile3(A, h, j, rows, D):
    return ct.load(A, index=(h, j, 0), shape=(1, rows, D), padding_mode=ZERO).reshape((rows, D))


# ----------------------------------------------------------------------------------------------- shapes, layouts


@ct.kernel
def s36_plain(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """``[BH, S, D]``, the scale (log2 units) on the scores, ``exp2``; ragged keys masked; ``D`` the tile's width
    (a head dim below it zero-padded); used at several head dims and key tiles."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = _tile3(K, bh, j, BN, D)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s36_causal(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal ``[BH, S, D]`` (keys up to the diagonal), ragged, ``exp2``."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    qpos = _qpos(qt, BM)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = _tile3(K, bh, j, BN, D)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s36_bshd_cross_grid3(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Cross attention on sequence-major ``[B, S, H, D]`` arrays (K and V strided views of a packed
    ``[B, Sk, 2, H, D]`` buffer in the spec), program ``(query tile, head, batch)`` on a 3-D grid; ``Sq != Sk``,
    both ragged."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    sk = K.shape[1]
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(sk, BN)):
        k = ct.load(K, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < sk, s, -math.inf)
        v = ct.load(V, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def s36_sample_kt_view_causal(Q, K, V, Out, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int],
                              CAUSAL: C[bool]):
    """The cuTile FlashAttention sample's spelling: ``[B, H, S, D]``, program ``(query tile, b H + h)``, the scale
    turned into log2 units in the kernel, K read as ``[D, BN]`` through ``order=(0, 1, 3, 2)``, the running max in
    scaled units (``max(m, max(qk) scale)``), the mask added as ``where(ok, 0, -inf)`` in a branch for the tiles that
    need it, ``exp2(..., flush_to_zero=True)``, an approximate final divide."""
    bx, by = ct.bid(0), ct.bid(1)
    b, h = by // H, by % H
    seq = K.shape[2]
    scale = qk_scale * LOG2E
    qpos = _qpos(bx, BM)
    m_i, l_i, acc = _state(BM, D)
    q = ct.load(Q, index=(b, h, bx, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    hi = min((bx + 1) * BM, seq) if CAUSAL else seq
    n_tiles = ct.cdiv(hi, BN)
    first_masked = (bx * BM) // BN if CAUSAL else seq // BN
    for j in range(0, n_tiles):
        k = ct.load(K, index=(b, h, 0, j), shape=(1, 1, D, BN), order=(0, 1, 3, 2), padding_mode=ZERO)
        qk = ct.mma(q, k.reshape((D, BN)), ct.full((BM, BN), 0.0, dtype=ct.float32))
        if j >= first_masked:
            kpos = _kpos(j, BN)
            ok = (kpos <= qpos) & (kpos < seq) if CAUSAL else kpos < seq
            qk = qk + ct.where(ok, 0.0, -math.inf)
        m_ij = ct.maximum(m_i, ct.max(qk, axis=-1, keepdims=True) * scale)
        qk = qk * scale - m_ij
        p = ct.exp2(qk, flush_to_zero=True)
        l_ij = ct.sum(p, axis=-1, keepdims=True)
        alpha = ct.exp2(m_i - m_ij, flush_to_zero=True)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc)
        m_i = m_ij
    acc = ct.truediv(acc, l_i, flush_to_zero=True, rounding_mode=ct.RoundingMode.APPROX)
    ct.store(Out, index=(b, h, bx, 0), tile=acc.reshape((1, 1, BM, D)).astype(Out.dtype))


@ct.kernel
def s36_kt_array_cross(Q, KT, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """K stored pre-transposed ``KT [BH, D, Sk]`` (a ``[D, BN]`` tile is the dot's B as loaded), cross attention
    ``Sq != Sk``, both ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    sk = KT.shape[2]
    q = _tile3(Q, bh, qt, BM, D)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(sk, BN)):
        kt = ct.load(KT, index=(bh, 0, j), shape=(1, D, BN), padding_mode=ZERO).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < sk, s, -math.inf)
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s36_o_transposed(Q, K, V, OT, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """O stored transposed: ``OT [BH, D, Sq]`` gets the ``[D, BM]`` transpose of the normalised accumulator;
    ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = _tile3(K, bh, j, BN, D)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
    o = ct.transpose((acc / l_i).astype(OT.dtype))
    ct.store(OT, index=(bh, 0, qt), tile=o.reshape((1, D, BM)))


@ct.kernel
def s36_o_transposed_lse(Q, K, V, OT, LSE, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """O stored transposed with the cast after the transpose (``ct.transpose(o).astype(..)``), the log2 LSE
    ``[BH, Sq]`` stored beside it; causal, ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    qpos = _qpos(qt, BM)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = _tile3(K, bh, j, BN, D)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
    ct.store(OT, index=(bh, 0, qt), tile=ct.transpose(acc / l_i).astype(OT.dtype).reshape((1, D, BM)))
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log2(l_i)).reshape((1, BM)))


@ct.kernel
def s36_v_transposed_cross(Q, K, VT, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """V stored transposed ``VT [BH, D, Sk]``: its ``[D, BN]`` tile ``ct.transpose``d for ``P V``; cross
    attention, both ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    sk = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(sk, BN)):
        s = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < sk, s, -math.inf)
        vt = ct.load(VT, index=(bh, 0, j), shape=(1, D, BN), padding_mode=ZERO).reshape((D, BN))
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, ct.transpose(vt), VT.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))

@ct.kernel
def s36_packed_qkv_causal(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Self-attention on one packed ``QKV [B, S, 3, H, D]`` buffer (Q, K, V its strided views ``[B, S, H, D]`` in
    the spec), causal, 3-D grid ``(query tile, head, batch)``; ragged."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = K.shape[1]
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    qpos = _qpos(qt, BM)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        v = ct.load(V, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))

@ct.kernel
def s36_user_persistent(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """A persistent kernel written by the user: each program walks the (head, query tile) work items
    ``bid(0), bid(0) + num_blocks(0), ..`` and runs the whole chain for each; ragged keys."""
    seq = K.shape[1]
    nq = ct.cdiv(Q.shape[1], BM)
    total = nq * Q.shape[0]
    for t in range(ct.bid(0), total, ct.num_blocks(0)):
        bh, qt = t // nq, t % nq
        q = _tile3(Q, bh, qt, BM, D)
        m_i, l_i, acc = _state(BM, D)
        for j in range(ct.cdiv(seq, BN)):
            s = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
            s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
            m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
        ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- masks


@ct.kernel
def s36_window_two_bounds(Q, K, V, O, qk_scale: float, WL: int, WR: int, BM: C[int], BN: C[int], D: C[int]):
    """A local (sliding-window) mask with both bounds, runtime scalars: query ``i`` sees keys
    ``i - WL <= k <= i + WR``; the key loop ``range(lo, hi)`` over the tiles the block's window touches (a row may
    see no key of a tile: FlashAttention's guard, the max taken as 0 while it is ``-inf``); ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    qpos = _qpos(qt, BM)
    m_i, l_i, acc = _state(BM, D)
    lo = max(qt * BM - WL, 0) // BN
    hi = ct.cdiv(min((qt + 1) * BM + WR, seq), BN)
    for j in range(lo, hi):
        k = _tile3(K, bh, j, BN, D)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos >= qpos - WL) & (kpos <= qpos + WR) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        m_use = ct.where(m_new == -math.inf, 0.0, m_new)  # a row with no key in this tile yet: exp2(-inf) = 0
        p = ct.exp2(s - m_use)
        alpha = ct.exp2(m_i - m_use)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), _tile3(V, bh, j, BN, D), acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s36_prefix_lm(Q, K, V, O, qk_scale: float, prefix: int, BM: C[int], BN: C[int], D: C[int]):
    """A prefix-LM mask: keys below ``prefix`` (a runtime scalar) are seen by every query, the rest causally; the
    loop runs to the farther of the prefix and the block's diagonal; ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    qpos = _qpos(qt, BM)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min(max((qt + 1) * BM, prefix), seq), BN)):
        k = _tile3(K, bh, j, BN, D)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where(((kpos < prefix) | (kpos <= qpos)) & (kpos < seq), s, -math.inf)
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s36_document_mask(Q, K, V, Seg, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Packed documents: ``Seg [B, S]`` holds each token's document id; a query sees the keys of its own document
    up to itself (causal); ``[B, H, S, D]`` on a 3-D grid ``(query tile, head, batch)``; the running max starts
    at a finite ``-1e30`` (a key tile of an earlier document gives its rows ``exp2(-inf) = 0``, not NaN); ragged."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = K.shape[2]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = _qpos(qt, BM)
    qseg = ct.load(Seg, index=(b, qt), shape=(1, BM), padding_mode=ZERO).reshape((BM, 1))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)  # finite: a row whose document starts later sees no key
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kseg = ct.load(Seg, index=(b, j), shape=(1, BN), padding_mode=ZERO)
        kpos = _kpos(j, BN)
        s = ct.where((kseg == qseg) & (kpos <= qpos) & (kpos < seq), s, -math.inf)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def s36_key_padding_lens(Q, K, V, Lens, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Key padding from a lengths array: batch ``b`` has ``Lens[b]`` valid keys (the rest of its cache rows hold
    garbage); ``[B, H, S, D]``, the loop over every key tile of the cache with the mask; 3-D grid."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    n = ct.load(Lens, index=(b,), shape=(1,)).reshape((1, 1))
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < n, s, -math.inf)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def s36_dropout_hashed(Q, K, V, O, qk_scale: float, seed: int, keep_min: int, BM: C[int], BN: C[int], D: C[int]):
    """Attention dropout from a hashed seed: ``x = (i 65599 + k) ^ (seed + bh 977)``, ``x = x * HASH_MUL``,
    ``x ^= x >> 15`` (int32, wrapping, arithmetic shift); the pair is kept where ``x & 0xFFFF >= keep_min`` and its
    P scaled by ``65536 / (65536 - keep_min)``; the denominator sums the undropped P (FlashAttention's dropout);
    ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    qpos = _qpos(qt, BM)
    inv_keep = 65536.0 / (65536 - keep_min)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = _tile3(K, bh, j, BN, D)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where(kpos < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        x = ct.bitwise_xor(qpos * 65599 + kpos, seed + bh * 977)
        x = x * HASH_MUL
        x = ct.bitwise_xor(x, ct.bitwise_rshift(x, 15))
        keep = ct.bitwise_and(x, 0xFFFF) >= keep_min
        pd = ct.where(keep, p * inv_keep, 0.0)
        acc = ct.mma(pd.astype(V.dtype), _tile3(V, bh, j, BN, D), acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- softmax spellings


@ct.kernel
def s36_runtime_scale_exp(Q, K, V, O, sm_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The scale (natural units, ``1 / sqrt(d)`` or any) a runtime scalar multiplied into the scores, natural
    ``exp``; bf16; cross attention, both ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    sk = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(sk, BN)):
        s = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32))
        s = ct.where(_kpos(j, BN) < sk, s * sm_scale, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), _tile3(V, bh, j, BN, D), acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s36_scale_in_exp(Q, K, V, O, sm_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The scale folded into ``exp``'s argument: the running max kept over raw scores, ``p = exp((s - m) scale)``,
    ``alpha = exp((m_old - m) scale)``; causal, ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    qpos = _qpos(qt, BM)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        s = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32))
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp((s - m_new) * sm_scale)
        alpha = ct.exp((m_i - m_new) * sm_scale)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), _tile3(V, bh, j, BN, D), acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s36_q_prescaled(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Q pre-scaled once before the loop (``q * scale`` in f32, cast back to the input type; scale in log2 units),
    the scores used as they come out of the dot; ``exp2``; ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = (_tile3(Q, bh, qt, BM, D).astype(ct.float32) * qk_scale).astype(Q.dtype)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        s = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32))
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s36_triton_tutorial(Q, K, V, O, sm_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Triton's fused-attention tutorial: ``qk_scale = sm_scale * 1.44269504``, 1-D row state, the max in scaled
    units (``m_ij = maximum(m_i, max(qk, 1) * qk_scale)``, ``qk = qk * qk_scale - m_ij[:, None]``), the
    accumulator rescaled before the dot; causal, ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    qk_scale = sm_scale * 1.44269504
    offs_m = qt * BM + ct.arange(BM, dtype=ct.int32)
    m_i = ct.full((BM,), -math.inf, dtype=ct.float32)
    l_i = ct.full((BM,), 1.0, dtype=ct.float32) - 1.0
    acc = ct.zeros((BM, D), dtype=ct.float32)
    q = _tile3(Q, bh, qt, BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        qk = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32))
        offs_n = j * BN + ct.arange(BN, dtype=ct.int32)
        qk = ct.where((offs_m[:, None] >= offs_n[None, :]) & (offs_n[None, :] < seq), qk, -1.0e6)
        m_ij = ct.maximum(m_i, ct.max(qk, axis=1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = ct.exp2(qk)
        l_ij = ct.sum(p, axis=1)
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        acc = ct.mma(p.astype(V.dtype), _tile3(V, bh, j, BN, D), acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    ct.store(O, index=(bh, qt, 0), tile=acc.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s36_lse_log2(Q, K, V, O, LSE, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The training forward with the LSE in log2 units (``m + log2 l``, scores already scaled by ``log2 e``),
    ``LSE [BH, Sq]``; cross attention, both ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    sk = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(sk, BN)):
        s = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < sk, s, -math.inf)
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log2(l_i)).reshape((1, BM)))


@ct.kernel
def s36_lse_natural_f32out(Q, K, V, O, LSE, sm_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The training forward in natural units: ``exp``, the LSE ``m + ln l``; O stored in fp32; causal, ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    qpos = _qpos(qt, BM)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        s = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), _tile3(V, bh, j, BN, D), acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).reshape((1, BM, D)))
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log(l_i)).reshape((1, BM)))


@ct.kernel
def s36_two_pass(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The two-pass softmax written as two loops: a max pass over every key tile (one dot each), then a sum pass
    with the row max fixed (``p = exp2(s - m)``, no rescaling); ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        s = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        m_i = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        s = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        p = ct.exp2(s - m_i)
        l_i = l_i + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), _tile3(V, bh, j, BN, D), acc)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s36_causal_bottom_right(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal cross attention aligned bottom-right (query ``i`` of ``Sq`` sits at key position ``i + Sk - Sq``: a
    prefill chunk after a cached prefix), ``Sq != Sk``, both ragged; the loop stops at the block's last key."""
    qt, bh = ct.bid(0), ct.bid(1)
    sq, sk = Q.shape[1], K.shape[1]
    off = sk - sq
    q = _tile3(Q, bh, qt, BM, D)
    qpos = _qpos(qt, BM) + off
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM + off, sk), BN)):
        k = _tile3(K, bh, j, BN, D)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos < sk), s, -math.inf)
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, _tile3(V, bh, j, BN, D), V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def s36_gqa_bshd_docs(Q, K, V, Seg, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int], D: C[int]):
    """GQA on sequence-major arrays (``Q / O [B, S, H, D]``, ``K / V [B, S, HKV, D]``, head ``h`` reads KV head
    ``h // G``) with a document mask from ``Seg [B, S]`` (not causal: a token sees its whole document); 3-D grid
    ``(query tile, head, batch)``; the running max starts finite; ragged."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = K.shape[1]
    kvh = h // G
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    qseg = ct.load(Seg, index=(b, qt), shape=(1, BM), padding_mode=ZERO).reshape((BM, 1))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, j, kvh, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kseg = ct.load(Seg, index=(b, j), shape=(1, BN), padding_mode=ZERO)
        s = ct.where((kseg == qseg) & (_kpos(j, BN) < seq), s, -math.inf)
        v = ct.load(V, index=(b, j, kvh, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _step2(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def s36_window_lse_1d(Q, K, V, O, LSE, qk_scale: float, W: C[int], BM: C[int], BN: C[int], D: C[int]):
    """A causal sliding window of ``W`` keys (a constant) with Triton-style 1-D row state, the log2 LSE stored as
    the 1-D ``[BM]`` tile itself; rows guarded as FlashAttention does (the max taken as 0 while ``-inf``);
    ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = _tile3(Q, bh, qt, BM, D)
    qpos = _qpos(qt, BM)
    m_i = ct.full((BM,), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM,), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(max(qt * BM - W + 1, 0) // BN, ct.cdiv(min((qt + 1) * BM, seq), BN)):
        s = ct.mma(q, ct.transpose(_tile3(K, bh, j, BN, D)), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos > qpos - W) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1))
        m_use = ct.where(m_new == -math.inf, 0.0, m_new)
        p = ct.exp2(s - m_use[:, None])
        alpha = ct.exp2(m_i - m_use)
        l_i = l_i * alpha + ct.sum(p, axis=1)
        acc = ct.mma(p.astype(V.dtype), _tile3(V, bh, j, BN, D), acc * alpha[:, None])
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i[:, None]).astype(O.dtype).reshape((1, BM, D)))
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log2(l_i)).reshape((1, BM)))


@ct.kernel
def s36_sample_gqa_bshd(Q, K, V, Out, qk_scale: float, H: C[int], G: C[int], BM: C[int], BN: C[int], D: C[int]):
    """The cuTile sample's loop on sequence-major arrays with grouped KV heads: ``Q / Out [B, S, H, D]``,
    ``K / V [B, S, H / G, D]``, K read ``[D, BN]`` through ``order=(0, 3, 2, 1)`` (the view's last two dimensions
    swapped after the head dimension: a 4-D order other than a swap of the array's last two), program
    ``(query tile, b H + h)``, ragged keys masked in a branch."""
    bx, by = ct.bid(0), ct.bid(1)
    b, h = by // H, by % H
    kvh = h // G
    seq = K.shape[1]
    scale = qk_scale * LOG2E
    m_i, l_i, acc = _state(BM, D)
    q = ct.load(Q, index=(b, bx, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    for j in range(0, ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, 0, kvh, j), shape=(1, D, 1, BN), order=(0, 3, 2, 1), padding_mode=ZERO)
        qk = ct.mma(q, k.reshape((D, BN)), ct.full((BM, BN), 0.0, dtype=ct.float32))
        if j >= seq // BN:
            qk = qk + ct.where(_kpos(j, BN) < seq, 0.0, -math.inf)
        m_ij = ct.maximum(m_i, ct.max(qk, axis=-1, keepdims=True) * scale)
        qk = qk * scale - m_ij
        p = ct.exp2(qk, flush_to_zero=True)
        alpha = ct.exp2(m_i - m_ij, flush_to_zero=True)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.load(V, index=(b, j, kvh, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_ij
    ct.store(Out, index=(b, bx, h, 0), tile=(acc / l_i).reshape((1, BM, 1, D)).astype(Out.dtype))


# ----------------------------------------------------------------------------------------------- the table

F16, BF16, F32, I32 = "float16", "bfloat16", "float32", "int32"


def scale2(d):
    """``log2 e / sqrt(d)``: the scores' scale in log2 units for head dim ``d``."""
    return LOG2E / math.sqrt(d)


def _bhsd(bh, sq, sk, d, dt=F16, o_dt=None):
    return [((bh, sq, d), dt), ((bh, sk, d), dt), ((bh, sk, d), dt), ((bh, sq, d), o_dt or dt)]


def _grid(sq, bm, bh):
    return (-(-sq // bm), bh)


def _reg(name, kernel, spec, grid, notes, path="chained", error="", outputs=(3,)):
    _add(name, kernel, spec, grid, path, error=error, notes=notes, outputs=outputs)


# head dims (the array's d below the tile's D: zero-padded)
NATURAL = {s36_sample_kt_view_causal, s36_sample_gqa_bshd, s36_runtime_scale_exp, s36_scale_in_exp,
           s36_triton_tutorial, s36_lse_natural_f32out}
"""The kernels whose scale argument is in natural units (``1 / sqrt(d)``); the others take it in log2 units."""

_reg("s36_d80_plain", s36_plain, _bhsd(4, 150, 150, 80) + [scale2(80), 64, 64, 128], _grid(150, 64, 4),
     "head dim 80 in a 128-wide tile, ragged")
_reg("s36_d80_causal_bm128", s36_causal, _bhsd(2, 300, 300, 80) + [scale2(80), 128, 64, 128], _grid(300, 128, 2),
     "head dim 80, causal, 128-row query tiles (two consumer warp groups)")
_reg("s36_d96_causal_bf16", s36_causal, _bhsd(4, 150, 150, 96, BF16) + [scale2(96), 64, 64, 128],
     _grid(150, 64, 4), "head dim 96, bf16, causal, ragged")
_reg("s36_d48_plain", s36_plain, _bhsd(4, 150, 170, 48) + [scale2(48), 64, 64, 64], _grid(150, 64, 4),
     "head dim 48 in a 64-wide tile, Sq != Sk")
_reg("s36_d48_causal_bn32", s36_causal, _bhsd(2, 150, 150, 48) + [scale2(48), 64, 32, 64], _grid(150, 64, 2),
     "head dim 48, 32-wide key tiles, causal")
_reg("s36_d160_cross_bn32", s36_plain, _bhsd(2, 100, 170, 160) + [scale2(160), 64, 32, 256], _grid(100, 64, 2),
     "head dim 160 in a 256-wide tile, 32-wide key tiles, cross attention")
# key tiles
_reg("s36_bn32_plain", s36_plain, _bhsd(2, 150, 170, 64) + [scale2(64), 64, 32, 64], _grid(150, 64, 2),
     "32-wide key tiles")
_reg("s36_bn128_bm128", s36_plain, _bhsd(2, 200, 300, 64) + [scale2(64), 128, 128, 64], _grid(200, 128, 2),
     "128 x 128 tiles, Sq != Sk")
_reg("s36_bn256_plain", s36_plain, _bhsd(2, 150, 300, 64) + [scale2(64), 64, 256, 64], _grid(150, 64, 2),
     "256-wide key tiles (the WGMMA's widest N)")
# layouts, grids, operand views
_PACKED_KV = (2, 170, 2, 3, 80)  # [B, Sk, 2, H, D]: K = [:, :, 0], V = [:, :, 1]
_KV_STRIDES = (170 * 2 * 3 * 80, 2 * 3 * 80, 80, 1)
_reg("s36_d80_bshd_cross_strided", s36_bshd_cross_grid3,
     [((2, 100, 3, 80), F16), ((2, 170, 3, 80), F16, _KV_STRIDES), ((2, 170, 3, 80), F16, _KV_STRIDES),
      ((2, 100, 3, 80), F16), scale2(80), 64, 64, 128], (2, 3, 2),
     "[B, S, H, D], K and V strided views of a packed KV buffer, head dim 80, 3-D grid, Sq != Sk")
_reg("s36_sample_kt_view_causal", s36_sample_kt_view_causal,
     [((2, 2, 150, 64), F16)] * 4 + [1 / 8.0, 2, 64, 64, 64, True], (3, 4),
     "the cuTile sample's spelling: K through order=(0, 1, 3, 2), the mask in a branch, causal")
_reg("s36_sample_kt_view_d96", s36_sample_kt_view_causal,
     [((1, 2, 150, 96), F16)] * 4 + [1 / math.sqrt(96), 2, 64, 64, 128, False], (3, 2),
     "the cuTile sample's spelling at head dim 96, not causal (ragged keys in the branch)")
# (176 keys in the two K- / V-stored-transposed cross attentions: the transposed array's rows must be a 16-byte
# multiple for its tensor map; with 170 f16 keys (340 bytes, the specs before session 41) every launch ran the SIMT
# path, which session 41's launch-path check found)
_reg("s36_kt_array_cross_d96", s36_kt_array_cross,
     [((2, 100, 96), F16), ((2, 96, 176), F16), ((2, 176, 96), F16), ((2, 100, 96), F16), scale2(96), 64, 64, 128],
     _grid(100, 64, 2), "K stored [BH, D, Sk], head dim 96, cross attention")
_reg("s36_o_transposed", s36_o_transposed,
     [((2, 150, 64), F16)] * 3 + [((2, 64, 150), F16), scale2(64), 64, 64, 64], _grid(150, 64, 2),
     "O stored transposed [BH, D, Sq] (tileas/transposed_store.py: refused before session 36)")
_reg("s36_o_transposed_bm128", s36_o_transposed,
     [((2, 300, 64), F16)] + [((2, 170, 64), F16)] * 2 + [((2, 64, 300), F16), scale2(64), 128, 64, 64],
     _grid(300, 128, 2), "O stored transposed, 128-row tiles (a [64, 128] stored tile), Sq != Sk")
_reg("s36_o_transposed_d80_bf16", s36_o_transposed,
     [((2, 150, 80), BF16)] * 3 + [((2, 80, 150), BF16), scale2(80), 64, 64, 128], _grid(150, 64, 2),
     "O stored transposed at head dim 80 in a 128-wide tile (a [128, 64] stored tile, rows past 80 clipped), bf16")
# masks
_reg("s36_window_two_bounds", s36_window_two_bounds, _bhsd(2, 300, 300, 64) + [scale2(64), 70, 40, 64, 64, 64],
     _grid(300, 64, 2), "a sliding window 70 keys back and 40 ahead (runtime bounds), range(lo, hi)")
_reg("s36_prefix_lm", s36_prefix_lm, _bhsd(2, 200, 200, 64) + [scale2(64), 90, 64, 64, 64], _grid(200, 64, 2),
     "a prefix-LM mask: the first 90 keys seen by all")
_reg("s36_document_mask", s36_document_mask,
     [((2, 2, 200, 64), F16)] * 3 + [((2, 200), I32), ((2, 2, 200, 64), F16), scale2(64), 64, 64, 64], (4, 2, 2),
     "document ids per token (a segment array read in the loop), causal within a document",
     outputs=(4,))
_reg("s36_key_padding_lens", s36_key_padding_lens,
     [((2, 2, 150, 64), F16)] + [((2, 2, 256, 64), F16)] * 2 + [((2,), I32), ((2, 2, 150, 64), F16), scale2(64),
                                                                64, 64, 64], (3, 2, 2),
     "key padding from a lengths array, the loop over the whole cache", outputs=(4,))
_reg("s36_dropout_hashed", s36_dropout_hashed, _bhsd(2, 150, 150, 64) + [scale2(64), 1234, 6554, 64, 64, 64],
     _grid(150, 64, 2), "dropout (10 %) from an int32 hash of the seed and the positions")
# softmax spellings
_reg("s36_runtime_scale_exp_bf16", s36_runtime_scale_exp, _bhsd(2, 150, 170, 64, BF16) + [0.125, 64, 64, 64],
     _grid(150, 64, 2), "the natural scale a runtime scalar, natural exp, bf16, cross attention")
_reg("s36_scale_in_exp", s36_scale_in_exp, _bhsd(2, 150, 150, 64) + [0.125, 64, 64, 64], _grid(150, 64, 2),
     "the scale folded into exp's argument, causal")
_reg("s36_q_prescaled_d96", s36_q_prescaled, _bhsd(2, 150, 150, 96) + [scale2(96), 64, 64, 128], _grid(150, 64, 2),
     "Q pre-scaled before the loop, head dim 96")
_reg("s36_triton_tutorial", s36_triton_tutorial, _bhsd(2, 150, 150, 64) + [0.125, 64, 64, 64], _grid(150, 64, 2),
     "Triton's tutorial: 1-D row state, max in scaled units, causal")
_reg("s36_lse_log2_cross", s36_lse_log2,
     _bhsd(2, 150, 170, 64) + [((2, 150), F32), scale2(64), 64, 64, 64], _grid(150, 64, 2),
     "O and the log2 LSE, cross attention", outputs=(3, 4))
_reg("s36_lse_natural_f32out_d80", s36_lse_natural_f32out,
     _bhsd(2, 150, 150, 80, F16, F32) + [((2, 150), F32), 1 / math.sqrt(80), 64, 64, 128], _grid(150, 64, 2),
     "O in fp32 and the natural LSE, exp, causal, head dim 80", outputs=(3, 4))
_reg("s36_two_pass", s36_two_pass, _bhsd(2, 150, 150, 64) + [scale2(64), 64, 64, 64], _grid(150, 64, 2),
     "the two-pass softmax: a max loop, then a sum loop (the tier's kernels run one loop of dots)", path="simt",
     error="a two-pass softmax")

# second batch: combinations
_reg("s36_causal_bottom_right_d80", s36_causal_bottom_right, _bhsd(2, 100, 230, 80) + [scale2(80), 64, 64, 128],
     _grid(100, 64, 2), "causal cross attention aligned bottom-right (a chunk after a cached prefix), head dim 80")
_reg("s36_gqa_bshd_docs", s36_gqa_bshd_docs,
     [((2, 150, 4, 64), F16), ((2, 150, 2, 64), F16), ((2, 150, 2, 64), F16), ((2, 150), I32),
      ((2, 150, 4, 64), F16), scale2(64), 2, 64, 64, 64], (3, 4, 2),
     "GQA on [B, S, H, D] with a (non-causal) document mask, 3-D grid", outputs=(4,))
_reg("s36_window_lse_1d_bn32", s36_window_lse_1d,
     _bhsd(2, 300, 300, 64) + [((2, 300), F32), scale2(64), 100, 128, 32, 64], _grid(300, 128, 2),
     "a causal window of 100 keys, 1-D row state, the log2 LSE stored as its 1-D tile, 128 x 32 tiles",
     outputs=(3, 4))
_reg("s36_sample_gqa_bshd_order", s36_sample_gqa_bshd,
     [((2, 150, 4, 64), F16), ((2, 150, 2, 64), F16), ((2, 150, 2, 64), F16), ((2, 150, 4, 64), F16), 1 / 8.0, 4,
      2, 64, 64, 64], (3, 8), "the cuTile sample on [B, S, H, D] with GQA, K through order=(0, 3, 2, 1)")
_reg("s36_dropout_d96_bf16", s36_dropout_hashed,
     _bhsd(2, 150, 170, 96, BF16) + [scale2(96), 99, 13107, 64, 64, 128], _grid(150, 64, 2),
     "dropout (20 %) at head dim 96, bf16, Sq != Sk")
_reg("s36_prefix_lm_d48_bn128", s36_prefix_lm, _bhsd(2, 300, 300, 48) + [scale2(48), 130, 128, 128, 64],
     _grid(300, 128, 2), "prefix-LM at head dim 48, 128 x 128 tiles")
_reg("s36_key_padding_d160", s36_key_padding_lens,
     [((2, 2, 100, 160), F16)] + [((2, 2, 192, 160), F16)] * 2 + [((2,), I32), ((2, 2, 100, 160), F16), scale2(160),
                                                                 64, 64, 256], (2, 2, 2),
     "key padding from lengths at head dim 160", outputs=(4,))
_reg("s36_d80_bn256", s36_plain, _bhsd(2, 150, 300, 80) + [scale2(80), 64, 256, 128], _grid(150, 64, 2),
     "head dim 80 with 256-wide key tiles")
_reg("s36_d80_bm16", s36_plain, _bhsd(4, 20, 170, 80) + [scale2(80), 16, 64, 128], _grid(20, 16, 4),
     "16-row query tiles (a short chunk; padded to the WGMMA's 64 rows), head dim 80")
_reg("s36_window_bf16_f32out", s36_window_two_bounds,
     _bhsd(2, 200, 200, 96, BF16, F32) + [scale2(96), 0, 63, 64, 64, 128], _grid(200, 64, 2),
     "a forward-only window (0 back, 63 ahead), bf16 in, fp32 out, head dim 96")
_reg("s36_o_transposed_lse_causal", s36_o_transposed_lse,
     [((2, 150, 64), F16)] * 3 + [((2, 64, 150), F16), ((2, 150), F32), scale2(64), 64, 64, 64], _grid(150, 64, 2),
     "O stored transposed (cast after the transpose) with the log2 LSE beside it, causal", outputs=(3, 4))
_reg("s36_v_transposed_cross", s36_v_transposed_cross,
     [((2, 100, 64), F16), ((2, 176, 64), F16), ((2, 64, 176), F16), ((2, 100, 64), F16), scale2(64), 64, 64, 64],
     _grid(100, 64, 2), "V stored transposed [BH, D, Sk] (the second dot's B K-major), cross attention")
_QKV_STRIDES = (150 * 3 * 2 * 96, 3 * 2 * 96, 96, 1)  # [B, S, 3, H, D] = (2, 150, 3, 2, 96): Q / K / V = [:, :, i]
_reg("s36_packed_qkv_causal_d96", s36_packed_qkv_causal,
     [((2, 150, 2, 96), F16, _QKV_STRIDES)] * 3 + [((2, 150, 2, 96), F16), scale2(96), 64, 64, 128], (3, 2, 2),
     "Q, K, V strided views of one packed QKV buffer, causal, head dim 96")
_reg("s36_user_persistent", s36_user_persistent, [((2, 150, 64), F16)] * 4 + [scale2(64), 64, 64, 64], (4,),
     "a persistent loop over (head, query tile) written by the user, 4 programs for 6 work items")
_reg("s36_bn16_plain", s36_plain, _bhsd(2, 150, 170, 64) + [scale2(64), 64, 16, 64], _grid(150, 64, 2),
     "16-wide key tiles (the second dot's K one WGMMA step)")
_reg("s36_d160_causal_bm32", s36_causal, _bhsd(2, 100, 100, 160) + [scale2(160), 32, 64, 256], _grid(100, 32, 2),
     "32-row query tiles (padded to 64) at head dim 160, causal")
_reg("s36_d48_bm128_bn256", s36_plain, _bhsd(2, 300, 600, 48) + [scale2(48), 128, 256, 64], _grid(300, 128, 2),
     "128 x 256 tiles at head dim 48, Sq != Sk")
