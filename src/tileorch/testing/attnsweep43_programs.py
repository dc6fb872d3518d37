"""Session 43's attention-shaped sweep (issue 20: "acceptance runs attention-shaped programs you will not see"):
attention forwards written the way users port FlashAttention-2/3 tutorials, the cuTile samples and vLLM / xformers
kernels to cuTile, in forms the earlier sets (attention_programs*, attnzoo*, attnsweep36, attnpaged37, fp8attn43)
spell differently.

Forms: ALiBi (per-head slopes read from an array, the bias ``slope (k - q)`` built from positions); tanh softcap;
GQA / MQA with the KV head computed from the program id; O written ``[B, S, H, D]`` from ``[B, H, S, D]`` inputs;
sliding window + causal (the loop's lower bound from the window); cross attention ``Sq != Sk`` returning the natural
LSE; decode (``Sq`` = 1, 4, 16 rows in a 16-row tile) with split KV (partial O and LSE per split); a prefix-LM mask
with per-sequence prefix lengths from an array; an additive bias tensor ``[B, H, Sq, Sk]`` loaded per key tile;
Q pre-scaled; natural ``exp`` with the running max initialised to -1e30; an additive penalty mask
``s - 1e9 (1 - ok)``; a chunked prefill over a paged KV cache read through a block table (bottom-right causal);
gpt-oss's learned sink as the softmax state's initial value; a sink key / value block computed by a dot before
the loop; the LSE stored by ``ct.scatter`` (session 43's tileas-scatter-row-store: the chained tier); varlen
batches (``cu_seqlens``) with rows gathered, and with each
sequence padded to whole tiles in the packed buffer (an early exit for the tiles past a sequence's end).
Head dims 64 / 80 / 96 / 128 / 192 / 256, f16 and bf16.

Scales: ``qk_scale`` is in log2 units (``log2 e / sqrt(d)``, ``exp2``) unless the kernel is in :data:`NATURAL`
(``sm_scale = 1 / sqrt(d)``, natural ``exp``).  Each entry is a :class:`tileorch.testing.user_programs.UserProgram`
in :data:`PROGRAMS` (``path``: what the compiler does with it; ``error``: the located refusal's text); references in
:mod:`tileorch.testing.attnsweep43_refs`.  Driven by tests/unit/test_attnsweep43_compile.py,
tests/unit/test_attnsweep43_emulated.py, tests/gpu/test_attnsweep43_gpu.py.  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
INF = math.inf


def _kpos(j, BN):
    return (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]


def _qpos(qt, BM):
    return (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]


def _bhsd(A, b, h, t, rows, D):
    """Tile ``t`` (``rows`` rows) of head ``h`` of batch ``b`` of a ``[B, H, S, D]`` array, as ``[rows, D]``."""
    return ct.load(A, index=(b, h, t, 0), shape=(1, 1, rows, D), padding_mode=ZERO).reshape((rows, D))


def _bshd(A, b, h, t, rows, D):
    """Tile ``t`` of head ``h`` of batch ``b`` of a sequence-major ``[B, S, H, D]`` array, as ``[rows, D]``."""
    return ct.load(A, index=(b, t, h, 0), shape=(1, rows, 1, D), padding_mode=ZERO).reshape((rows, D))


def _qk(q, k):
    return ct.mma(q, ct.transpose(k), ct.zeros((q.shape[0], k.shape[0]), dtype=ct.float32))


# ----------------------------------------------------------------------------------------------- biases, caps


@ct.kernel
def a43_alibi_causal(Q, K, V, Slopes, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """ALiBi, causal, ``[B, H, S, D]``: program ``(query tile, b H + h)``; the head's slope read from ``Slopes[h]``
    (f32) with ``ct.gather``; scores (natural units) ``q.k / sqrt(d) + slope (k - q)``, taken to log2 units for
    ``exp2``; keys ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    seq = K.shape[2]
    slope = ct.gather(Slopes, h) * LOG2E
    qpos = _qpos(qt, BM)
    q = _bhsd(Q, b, h, qt, BM, D)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = _kpos(j, BN)
        s = _qk(q, _bhsd(K, b, h, j, BN, D)) * qk_scale + slope * (kpos - qpos).astype(ct.float32)
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), _bhsd(V, b, h, j, BN, D), acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def a43_softcap(Q, K, V, O, sm_scale: float, cap: float, BM: C[int], BN: C[int], D: C[int]):
    """Gemma-2's tanh softcap: ``s = cap tanh(q.k sm_scale / cap)`` (natural units), natural ``exp``, the running
    max initialised to -1e30 and masked keys set to -1e30 (``[BH, S, D]``, ragged keys)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = cap * ct.tanh(_qk(q, k) * (sm_scale / cap))
        s = ct.where(_kpos(j, BN) < seq, s, -1.0e30)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def a43_bias_tile(Q, K, V, Bias, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """An additive bias tensor ``Bias [B, H, Sq, Sk]`` (natural units) loaded per key tile and added to the scores
    (xformers' ``attn_bias``): ``s = q.k qk_scale + bias log2 e``, ``exp2``; keys ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    seq = K.shape[2]
    q = _bhsd(Q, b, h, qt, BM, D)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        bias = ct.load(Bias, index=(b, h, qt, j), shape=(1, 1, BM, BN), padding_mode=ZERO).reshape((BM, BN))
        s = _qk(q, _bhsd(K, b, h, j, BN, D)) * qk_scale + bias.astype(ct.float32) * LOG2E
        s = ct.where(_kpos(j, BN) < seq, s, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), _bhsd(V, b, h, j, BN, D), acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


# ----------------------------------------------------------------------------------------------- heads, layouts


@ct.kernel
def a43_gqa_causal(Q, K, V, O, qk_scale: float, HQ: C[int], HKV: C[int], BM: C[int], BN: C[int], D: C[int]):
    """GQA, causal: ``Q / O [B, HQ, S, D]``, ``K / V [B, HKV, S, D]``, program ``(query tile, b HQ + h)``, the KV
    head ``h // (HQ // HKV)``; the mask added as ``where(ok, 0, -inf)``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // HQ
    h = bh - b * HQ
    kvh = h // (HQ // HKV)
    seq = K.shape[2]
    qpos = _qpos(qt, BM)
    q = _bhsd(Q, b, h, qt, BM, D)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = _kpos(j, BN)
        s = _qk(q, _bhsd(K, b, kvh, j, BN, D)) * qk_scale + ct.where((kpos <= qpos) & (kpos < seq), 0.0, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), _bhsd(V, b, kvh, j, BN, D), acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def a43_mqa_out_bshd(Q, K, V, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """MQA: ``Q [B, H, Sq, D]``, one KV head ``K / V [B, Sk, D]``, O written sequence-major ``[B, Sq, H, D]``
    (the layout the next projection reads); cross attention, keys ragged; program ``(query tile, h, b)``."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = K.shape[1]
    q = _bhsd(Q, b, h, qt, BM, D)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.where(_kpos(j, BN) < seq, _qk(q, k) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def a43_out_bshd_lse(Q, K, V, O, LSE, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """``[B, H, S, D]`` in, O out sequence-major ``[B, S, H, D]`` and the log2 LSE ``[B, H, S]`` (FlashAttention-2's
    forward for training: ``m + log2 l``); causal, 1-D row state (Triton's spelling)."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    seq = K.shape[2]
    qpos = _qpos(qt, BM)
    q = _bhsd(Q, b, h, qt, BM, D)
    m_i = ct.full((BM,), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM,), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos < seq), _qk(q, _bhsd(K, b, h, j, BN, D)) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1))
        p = ct.exp2(s - m_new[:, None])
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1)
        acc = ct.mma(p.astype(V.dtype), _bhsd(V, b, h, j, BN, D), acc * alpha[:, None])
        m_i = m_new
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i[:, None]).astype(O.dtype).reshape((1, BM, 1, D)))
    ct.store(LSE, index=(b, h, qt), tile=(m_i + ct.log2(l_i)).reshape((1, 1, BM)))


# ----------------------------------------------------------------------------------------------- masks


@ct.kernel
def a43_window_causal(Q, K, V, O, qk_scale: float, window: int, BM: C[int], BN: C[int], D: C[int]):
    """Sliding window + causal (Mistral): query ``i`` sees keys ``(i - window, i]``; the loop starts at the first
    key tile the window reaches and ends at the diagonal (``[BH, S, D]``, ragged).  The first tiles can hold no key
    of a row's window (all ``-inf``): the running max starts at -1e30, so such a tile adds ``exp2(-inf) = 0`` (a
    ``-inf`` start would give ``exp2(-inf + inf)`` = NaN there)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    qpos = _qpos(qt, BM)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    lo = max(qt * BM - window + 1, 0) // BN
    hi = ct.cdiv(min((qt + 1) * BM, seq), BN)
    for j in range(lo, hi):
        kpos = _kpos(j, BN)
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        ok = (kpos <= qpos) & (kpos > qpos - window) & (kpos < seq)
        s = ct.where(ok, _qk(q, k) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def a43_prefix_lm_lens(Q, K, V, Prefix, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """Prefix-LM with a prefix length per sequence (``Prefix [B]`` int32): query ``i`` sees keys ``k <= i`` and every
    key ``k < prefix[b]``; the loop runs over every key tile (``[B, H, S, D]``, ragged)."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    seq = K.shape[2]
    pre = ct.gather(Prefix, b)
    qpos = _qpos(qt, BM)
    q = _bhsd(Q, b, h, qt, BM, D)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        kpos = _kpos(j, BN)
        ok = ((kpos <= qpos) | (kpos < pre)) & (kpos < seq)
        s = ct.where(ok, _qk(q, _bhsd(K, b, h, j, BN, D)) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), _bhsd(V, b, h, j, BN, D), acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def a43_penalty_mask(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal with an additive penalty instead of a select: ``s = s - 1e9 (1 - ok)`` (``ok`` made float), the
    running max initialised to -1e30 (``[BH, S, D]``, ragged)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    qpos = _qpos(qt, BM)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = _kpos(j, BN)
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        ok = ((kpos <= qpos) & (kpos < seq)).astype(ct.float32)
        s = _qk(q, k) * qk_scale - 1.0e9 * (1.0 - ok)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- softmax spellings


@ct.kernel
def a43_cross_lse_natural(Q, K, V, O, LSE, sm_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Cross attention ``Sq != Sk`` (both ragged), natural ``exp`` with the scale folded into its argument (max in
    raw units), O and the natural LSE ``m sm_scale + ln l`` (``[BH, Sq]``) stored."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.where(_kpos(j, BN) < seq, _qk(q, k), -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp((s - m_new) * sm_scale)
        alpha = ct.exp((m_i - m_new) * sm_scale)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    ct.store(LSE, index=(bh, qt), tile=(m_i * sm_scale + ct.log(l_i)).reshape((1, BM)))


@ct.kernel
def a43_q_prescaled(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Q pre-scaled in the kernel (``q = (q qk_scale).astype(Q.dtype)``, log2 units) so the scores need no multiply;
    ``exp2``; causal, ragged (``[BH, S, D]``)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    qpos = _qpos(qt, BM)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    q = (q.astype(ct.float32) * qk_scale).astype(Q.dtype)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = _kpos(j, BN)
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.where((kpos <= qpos) & (kpos < seq), _qk(q, k), -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def a43_sink_state(Q, K, V, Sinks, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """gpt-oss's learned attention sink: one logit per head (``Sinks [H]`` f32, natural units) in the softmax's
    denominator and not in O, spelt as the state's initial value (``m = sink log2 e``, ``l = 1``); causal,
    ``[B, H, S, D]``, ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    seq = K.shape[2]
    qpos = _qpos(qt, BM)
    q = _bhsd(Q, b, h, qt, BM, D)
    m_i = ct.full((BM, 1), 0.0, dtype=ct.float32) + ct.gather(Sinks, h) * LOG2E
    l_i = ct.full((BM, 1), 1.0, dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos < seq), _qk(q, _bhsd(K, b, h, j, BN, D)) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), _bhsd(V, b, h, j, BN, D), acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def a43_sink_block_dot_before(Q, K, V, KS, VS, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """StreamingLLM-style sink tokens kept in their own ``KS / VS [BH, BN, D]`` arrays: their scores and P V
    computed by a dot before the key loop (the loop's state starts from them); ``[BH, S, D]``, ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    ks = ct.load(KS, index=(bh, 0, 0), shape=(1, BN, D)).reshape((BN, D))
    s0 = _qk(q, ks) * qk_scale
    m_i = ct.max(s0, axis=1, keepdims=True)
    p0 = ct.exp2(s0 - m_i)
    l_i = ct.sum(p0, axis=1, keepdims=True)
    acc = ct.mma(p0.astype(V.dtype), ct.load(VS, index=(bh, 0, 0), shape=(1, BN, D)).reshape((BN, D)),
                 ct.zeros((BM, D), dtype=ct.float32))
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.where(_kpos(j, BN) < seq, _qk(q, k) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def a43_lse_scatter(Q, K, V, O, LSE, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """O and the log2 LSE, the LSE (``[B, H, S]``) written by ``ct.scatter`` at (b, h, row) element indices (a port
    of a Triton kernel's pointer store); ``[B, H, S, D]``, keys ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    seq = K.shape[2]
    q = _bhsd(Q, b, h, qt, BM, D)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        s = ct.where(_kpos(j, BN) < seq, _qk(q, _bhsd(K, b, h, j, BN, D)) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), _bhsd(V, b, h, j, BN, D), acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))
    rows = qt * BM + ct.arange(BM, dtype=ct.int32)
    zero = ct.full((BM,), 0, dtype=ct.int32)
    ct.scatter(LSE, (zero + b, zero + h, rows), (m_i + ct.log2(l_i)).reshape((BM,)))


# ----------------------------------------------------------------------------------------------- decode, paged, varlen


@ct.kernel
def a43_decode_split_kv(Q, K, V, OP, LP, qk_scale: float, tiles_per_split: int, BM: C[int], BN: C[int],
                        D: C[int]):
    """Decode with split KV (flash decoding): ``Q [BH, Sq, D]`` with ``Sq`` = 1..16 new tokens in a ``BM``-row tile
    (rows past ``Sq`` zero), program ``(split, bh)`` runs key tiles ``[split tps, min((split + 1) tps, cdiv(Sk, BN)))``
    and stores its normalised partial O (f32, ``OP [BH, NS, Sq, D]``) and log2 LSE (``LP [BH, NS, Sq]``); every
    query sees every key (the new tokens' keys already appended)."""
    sp, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    lo = sp * tiles_per_split
    for j in range(lo, min(lo + tiles_per_split, ct.cdiv(seq, BN))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.where(_kpos(j, BN) < seq, _qk(q, k) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(OP, index=(bh, sp, 0, 0), tile=(acc / l_i).reshape((1, 1, BM, D)))
    ct.store(LP, index=(bh, sp, 0), tile=(m_i + ct.log2(l_i)).reshape((1, 1, BM)))


@ct.kernel
def a43_paged_prefill(Q, Kc, Vc, Table, O, qk_scale: float, ctx: int, H: C[int], G: C[int], BM: C[int],
                      BS: C[int], D: C[int]):
    """Chunked prefill over a paged KV cache (vLLM's ``[num_blocks, BS, H_kv, D]``), one page a key tile: ``Sq`` new
    queries (``Q / O [B, Sq, H, D]``) after ``ctx`` cached tokens, query ``i`` at position ``ctx + i`` sees keys
    ``<= ctx + i`` (bottom-right causal); the page of key tile ``j`` is ``Table[b, j]``; KV head ``h // G``;
    program ``(query tile, h, b)``."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    sq = Q.shape[1]
    kvh = h // G
    qpos = _qpos(qt, BM) + ctx
    q = _bshd(Q, b, h, qt, BM, D)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min(ctx + (qt + 1) * BM, ctx + sq), BS)):
        page = ct.gather(Table, (b, j))
        k = ct.load(Kc, index=(page, 0, kvh, 0), shape=(1, BS, 1, D)).reshape((BS, D))
        v = ct.load(Vc, index=(page, 0, kvh, 0), shape=(1, BS, 1, D)).reshape((BS, D))
        kpos = _kpos(j, BS)
        s = ct.where(kpos <= qpos, _qk(q, k) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(Vc.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def a43_varlen_padded_tiles(Q, K, V, CuTiles, Lens, O, qk_scale: float, BM: C[int], D: C[int]):
    """Varlen batch, each sequence padded to whole ``BM``-row tiles in the packed ``[T, H, D]`` buffers:
    ``CuTiles [B + 1]`` the sequences' first tiles, ``Lens [B]`` their lengths; program ``(query tile, h, b)`` on a
    grid sized for the longest sequence, the tiles past a sequence's end leaving early; causal within a sequence
    (``BN = BM``)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    n = ct.gather(Lens, b)
    if qt * BM >= n:
        return
    t0 = ct.gather(CuTiles, b)
    qpos = _qpos(qt, BM)
    q = ct.load(Q, index=(t0 + qt, h, 0), shape=(BM, 1, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(qt + 1):
        k = ct.load(K, index=(t0 + j, h, 0), shape=(BM, 1, D)).reshape((BM, D))
        kpos = _kpos(j, BM)
        s = ct.where((kpos <= qpos) & (kpos < n), _qk(q, k) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(t0 + j, h, 0), shape=(BM, 1, D)).reshape((BM, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(t0 + qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((BM, 1, D)))


@ct.kernel
def a43_varlen_gathered(Q, K, V, CuSeq, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Varlen batch on packed ``[T, H, D]`` buffers with ``cu_seqlens`` (``CuSeq [B + 1]``, sequences start at any
    row): Q, K and V rows gathered with ``ct.gather`` at ``start + positions`` (a Triton port's pointer loads), O
    scattered back; causal within a sequence; program ``(query tile, h, b)``, tiles past the end leaving early."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    start = ct.gather(CuSeq, b)
    n = ct.gather(CuSeq, b + 1) - start
    if qt * BM >= n:
        return
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    qrow = qt * BM + ct.arange(BM, dtype=ct.int32)
    qvalid = (qrow < n)[:, None]
    q = ct.gather(Q, (start + qrow[:, None], h, cols), mask=qvalid, padding_value=0.0)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, n), BN)):
        krow = j * BN + ct.arange(BN, dtype=ct.int32)
        kvalid = (krow < n)[:, None]
        k = ct.gather(K, (start + krow[:, None], h, cols), mask=kvalid, padding_value=0.0)
        v = ct.gather(V, (start + krow[:, None], h, cols), mask=kvalid, padding_value=0.0)
        ok = (krow[None, :] <= qrow[:, None]) & (krow[None, :] < n)
        s = ct.where(ok, _qk(q, k) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.scatter(O, (start + qrow[:, None], h, cols), (acc / l_i).astype(O.dtype), mask=qvalid)


# ----------------------------------------------------------------------------------------------- the table

F16, BF16, F32, I32 = "float16", "bfloat16", "float32", "int32"
NATURAL = {a43_softcap, a43_cross_lse_natural}
"""The kernels whose scale argument is in natural units (``1 / sqrt(d)``); the others take it in log2 units."""


def scale2(d):
    """``log2 e / sqrt(d)``: the scores' scale in log2 units for head dim ``d``."""
    return LOG2E / math.sqrt(d)


def _tile_d(d):
    return 64 if d <= 64 else 128 if d <= 128 else 256


def _cd(a, b):
    return -(-a // b)


def _bhsd4(b, h, sq, sk, d, dt=F16, o_dt=None, hkv=None):
    return [((b, h, sq, d), dt), ((b, hkv or h, sk, d), dt), ((b, hkv or h, sk, d), dt)], ((b, h, sq, d), o_dt or dt)


def _reg(name, kernel, spec, grid, notes, path="chained", error="", outputs=(3,)):
    _add(name, kernel, spec, grid, path, error=error, notes=notes, outputs=outputs)


def _bhs3(bh, sq, sk, d, dt=F16, o_dt=None):
    return [((bh, sq, d), dt), ((bh, sk, d), dt), ((bh, sk, d), dt), ((bh, sq, d), o_dt or dt)]


# biases, caps
for _n, _d, _dt, _bm in (("a43_alibi_causal_d128_bf16", 128, BF16, 64), ("a43_alibi_causal_d64", 64, F16, 128)):
    _qkv, _o = _bhsd4(2, 4, 200, 200, _d, _dt)
    _reg(_n, a43_alibi_causal, _qkv + [((4,), F32), _o, scale2(_d), 4, _bm, 64, _tile_d(_d)], (_cd(200, _bm), 8),
         f"ALiBi, causal, head dim {_d}, {_dt}, {_bm}-row query tiles", outputs=(4,))
_reg("a43_softcap_d64", a43_softcap, _bhs3(4, 150, 170, 64) + [1 / 8.0, 20.0, 64, 64, 64], (3, 4),
     "tanh softcap 20, natural exp, -1e30 state, Sq != Sk")
_reg("a43_softcap_d256_bf16", a43_softcap, _bhs3(2, 100, 130, 256, BF16) + [1 / 16.0, 30.0, 64, 64, 256], (2, 2),
     "tanh softcap 30 at head dim 256, bf16")
_qkv, _o = _bhsd4(2, 2, 150, 170, 64)
_reg("a43_bias_tile_d64", a43_bias_tile, _qkv + [((2, 2, 150, 176), F16), _o, scale2(64), 2, 64, 64, 64], (3, 4),
     "an additive f16 bias [B, H, Sq, Sk] loaded per key tile (its rows padded to 176 keys: 16-byte rows for the "
     "tensor map)", outputs=(4,))
_qkv, _o = _bhsd4(1, 2, 150, 150, 128)
_reg("a43_bias_tile_f32_d128", a43_bias_tile, _qkv + [((1, 2, 150, 152), F32), _o, scale2(128), 2, 64, 64, 128],
     (3, 2), "an additive f32 bias loaded per key tile at head dim 128 (its rows padded to 152 keys)",
     outputs=(4,))
# heads, layouts
_qkv, _o = _bhsd4(2, 8, 150, 150, 128, hkv=2)
_reg("a43_gqa_causal_h8kv2_d128", a43_gqa_causal, _qkv + [_o, scale2(128), 8, 2, 64, 64, 128], (3, 16),
     "GQA 8 query heads on 2 KV heads, causal, head dim 128")
_qkv, _o = _bhsd4(1, 4, 200, 200, 80, BF16, hkv=1)
_reg("a43_gqa_causal_d80_bf16", a43_gqa_causal, _qkv + [_o, scale2(80), 4, 1, 64, 64, 128], (4, 4),
     "GQA 4:1 (one KV head), causal, head dim 80 in a 128-wide tile, bf16")
_reg("a43_mqa_out_bshd_d96", a43_mqa_out_bshd,
     [((2, 3, 100, 96), F16), ((2, 170, 96), F16), ((2, 170, 96), F16), ((2, 100, 3, 96), F16), scale2(96), 3, 64,
      64, 128], (2, 3, 2), "MQA (one KV head), O written [B, S, H, D], head dim 96, Sq != Sk")
_qkv, _o = _bhsd4(2, 2, 150, 150, 128)
_reg("a43_out_bshd_lse_d128", a43_out_bshd_lse, _qkv + [((2, 150, 2, 128), F16), ((2, 2, 150), F32), scale2(128),
                                                         2, 64, 64, 128], (3, 4),
     "O written [B, S, H, D] and the log2 LSE [B, H, S], causal, 1-D row state, head dim 128", outputs=(3, 4))
# masks
_reg("a43_window_causal_d64", a43_window_causal, _bhs3(2, 300, 300, 64) + [scale2(64), 100, 64, 64, 64], (5, 2),
     "sliding window of 100 keys + causal, the loop's lower bound from the window")
_reg("a43_window_causal_d192", a43_window_causal, _bhs3(2, 200, 200, 192) + [scale2(192), 70, 64, 64, 256],
     (4, 2), "sliding window of 70 + causal at head dim 192 in a 256-wide tile")
_qkv, _o = _bhsd4(2, 2, 200, 200, 64)
_reg("a43_prefix_lm_lens_d64", a43_prefix_lm_lens, _qkv + [((2,), I32), _o, scale2(64), 2, 64, 64, 64], (4, 4),
     "prefix-LM with per-sequence prefix lengths from an array", outputs=(4,))
_reg("a43_penalty_mask_d64", a43_penalty_mask, _bhs3(2, 150, 150, 64) + [scale2(64), 64, 64, 64], (3, 2),
     "causal as an additive -1e9 (1 - ok) penalty, -1e30 state")
_reg("a43_penalty_mask_d128_bm128", a43_penalty_mask, _bhs3(2, 300, 300, 128) + [scale2(128), 128, 64, 128],
     (3, 2), "the penalty mask with 128-row query tiles at head dim 128 (two consumer warp groups)")
# softmax spellings
_reg("a43_cross_lse_natural_d128", a43_cross_lse_natural,
     _bhs3(2, 100, 230, 128) + [((2, 100), F32), 1 / math.sqrt(128), 64, 64, 128], (2, 2),
     "cross attention, natural exp with the scale in its argument, the natural LSE, head dim 128", outputs=(3, 4))
_reg("a43_cross_lse_f32out_d64_bn32", a43_cross_lse_natural,
     _bhs3(2, 150, 100, 64, F16, F32) + [((2, 150), F32), 1 / 8.0, 64, 32, 64], (3, 2),
     "cross attention Sk < Sq, fp32 O, 32-wide key tiles, the natural LSE", outputs=(3, 4))
_reg("a43_q_prescaled_d128_bf16", a43_q_prescaled, _bhs3(2, 150, 150, 128, BF16) + [scale2(128), 64, 64, 128],
     (3, 2), "Q pre-scaled in the kernel, causal, head dim 128, bf16")
_qkv, _o = _bhsd4(2, 2, 150, 150, 64)
_reg("a43_sink_state_d64", a43_sink_state, _qkv + [((2,), F32), _o, scale2(64), 2, 64, 64, 64], (3, 4),
     "gpt-oss's learned sink as the softmax state's initial value, causal", outputs=(4,))
_qkv, _o = _bhsd4(1, 4, 200, 200, 96, BF16)
_reg("a43_sink_state_d96_bf16", a43_sink_state, _qkv + [((4,), F32), _o, scale2(96), 4, 64, 64, 128], (4, 4),
     "gpt-oss's sink at head dim 96, bf16", outputs=(4,))
_reg("a43_sink_block_dot_before", a43_sink_block_dot_before,
     _bhs3(2, 150, 150, 64)[:3] + [((2, 64, 64), F16), ((2, 64, 64), F16), ((2, 150, 64), F16), scale2(64), 64, 64,
                                   64], (3, 2),
     "sink tokens in their own arrays, a dot before the loop (session 44: the step runs as the loop's first "
     "iteration, its tiles read through their own tensor maps; refused before, 'this one before the loop that holds "
     "the others')", outputs=(5,))
_reg("a43_sink_block_dot_before_d128_bm128", a43_sink_block_dot_before,
     _bhs3(2, 150, 170, 128)[:3] + [((2, 64, 128), F16), ((2, 64, 128), F16), ((2, 150, 128), F16), scale2(128), 128,
                                    64, 128], (2, 2),
     "sink tokens in their own arrays at head dim 128, 128-row query tiles (two consumer warp groups), Sq != Sk "
     "(session 44)", outputs=(5,))
_qkv, _o = _bhsd4(2, 2, 128, 150, 64)
_reg("a43_lse_scatter_d64", a43_lse_scatter, _qkv + [_o, ((2, 2, 128), F32), scale2(64), 2, 64, 64, 64], (2, 4),
     "the LSE stored by ct.scatter (session 43: tileas-scatter-row-store makes it the row-vector tile store it is; "
     "refused before, 'a store at computed element indices')", outputs=(3, 4))
# decode, paged, varlen


def _decode(bh, sq, sk, d, ns, bm, bn):
    return [((bh, sq, d), F16), ((bh, sk, d), F16), ((bh, sk, d), F16), ((bh, ns, sq, d), F32), ((bh, ns, sq), F32),
            scale2(d), _cd(_cd(sk, bn), ns), bm, bn, _tile_d(d)]


_reg("a43_decode_split_sq1_d128", a43_decode_split_kv, _decode(4, 1, 1000, 128, 4, 16, 64), (4, 4),
     "decode, one query token, 4 KV splits, head dim 128", outputs=(3, 4))
_reg("a43_decode_split_sq4_d64", a43_decode_split_kv, _decode(4, 4, 700, 64, 3, 16, 128), (3, 4),
     "decode, 4 query tokens (speculative), 3 KV splits, 128-wide key tiles", outputs=(3, 4))
_reg("a43_decode_split_sq16_d256", a43_decode_split_kv, _decode(2, 16, 500, 256, 2, 16, 64), (2, 2),
     "decode, 16 query tokens, 2 KV splits, head dim 256", outputs=(3, 4))
PAGED_NB, PAGED_BS, PAGED_CTX, PAGED_SQ = 16, 64, 150, 100
_reg("a43_paged_prefill_d128", a43_paged_prefill,
     [((2, PAGED_SQ, 4, 128), F16), ((PAGED_NB, PAGED_BS, 2, 128), F16), ((PAGED_NB, PAGED_BS, 2, 128), F16),
      ((2, 6), I32), ((2, PAGED_SQ, 4, 128), F16), scale2(128), PAGED_CTX, 4, 2, 64, PAGED_BS, 128], (2, 4, 2),
     "chunked prefill over a paged cache (block table), bottom-right causal, GQA 2:1, head dim 128", outputs=(4,))
VARLEN = (150, 64, 200)
"""The varlen programs' sequence lengths."""
_T = sum(_cd(n, 64) * 64 for n in VARLEN)
_reg("a43_varlen_padded_tiles_d64", a43_varlen_padded_tiles,
     [((_T, 2, 64), F16)] * 3 + [((4,), I32), ((3,), I32), ((_T, 2, 64), F16), scale2(64), 64, 64], (4, 2, 3),
     "varlen, sequences padded to whole tiles, causal, early exit past a sequence's end", outputs=(5,))
_reg("a43_varlen_gathered_d64", a43_varlen_gathered,
     [((sum(VARLEN), 2, 64), F16)] * 3 + [((4,), I32), ((sum(VARLEN), 2, 64), F16), scale2(64), 64, 64, 64],
     (4, 2, 3), "varlen with cu_seqlens, rows gathered (sequences start at any row), O scattered", outputs=(4,))
