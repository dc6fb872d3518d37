"""Session 32's attention zoo (issue 20: "acceptance runs attention-shaped programs you will not
see"): attention-shaped programs in spellings the earlier sets (``attention_programs`` ..
``attention_programs4``, ``attnzoo30_programs``, the user sweeps) do not use.

Decode and serving: GQA decode in Hugging Face's sequence-major cache ``[B, Smax, HKV, D]`` with the
group's 8 query heads as the rows of one tile and the valid length a scalar; flash-decoding whose split
count is the grid's (``ct.num_blocks(0)``, an empty last split) and its combine kernel written as a
running (online) merge in log2 units; a paged cache of 16-token pages narrower than the key tile
(the slot of each key gathered row by row, ``ct.gather``); batched chunked prefill whose bottom-right
offset is each sequence's ``KLens[b] - QLens[b]``; Mixture-of-Depths' routed queries gathered by index;
cascade attention (a shared prefix cache without a batch axis, then the sequence's own keys, one running
state); StreamingLLM's sink tile peeled before the loop plus a causal window.

Scores and masks: ALiBi from loaded position ids of a left-padded batch; Hugging Face's additive f16
mask ``[B, 1, 1, Sk]``; a per-query temperature read as a column; the off-by-one softmax (a virtual zero
logit: ``m`` starts at 0, ``l`` at 1); the key loop walked last tile first.

Shapes: head dims 112 (bf16, f32 out, cross attention ragged both ways) and 160 (causal) in
power-of-two tiles; two independent MHA heads per program (four dots, two chains); DeepSeek's MLA
decode with absorbed projections (two score dots summed, V the latent itself); q-k RMSNorm of the Q
tile and each K tile before the dot; an int8 KV cache with per-token scales (on the dequantised tiles, and moved
onto the scores and P).

Backward pieces and statistics: the natural LSE alone (no V); ``dS = P (dO V^T - delta)`` per
(query tile, key tile) with P recomputed from the LSE; ``delta = rowsum(dO O)`` from sequence-major
bf16.

Found by this set (each test failing before its fix): the slot-gathered paged cache fell to the SIMT path
with only an unlocated "the TileAS tier left a kernel unlowered" (no TMA load left in its loop): now a
warning at the user's ``ct.gather`` naming the paged-cache remedy; a chained operand read by ``ct.gather``
(the routed queries; a gathered V) was refused as "computed from its tile by 'nv_tileaa.load'" or "not a
TMA tile load" at the dot: now "is gathered (ct.gather)" at the gather; the LSE alone was refused with the
tier's "expected a producer agent with 2 TMA tile loads": now "this dot's product is not accumulated over
its loop" at the dot; an int8 K cast to f16 was refused without the conversion clause (a staged B no
longer reads its load); a computed operand's refusal names the user's ``ct.load`` / ``ct.gather``, not
the tier's op.  No chained program computes a wrong result on the PTX emulator.

Each entry is a :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (``path``:
what the compiler does with it today; ``error``: the located refusal's text where the tensor-core tier
refuses); driven by tests/unit/test_attnzoo32_compile.py, tests/unit/test_attnzoo32_emulated.py and
tests/gpu/test_attnzoo32_gpu.py.  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

C = ct.Constant
ZERO = ct.PaddingMode.ZERO


def _state(rows, d):
    """The online softmax's running max (``-inf``), denominator and accumulator."""
    return (ct.full((rows, 1), -math.inf, dtype=ct.float32), ct.zeros((rows, 1), dtype=ct.float32),
            ct.zeros((rows, d), dtype=ct.float32))


def _online(s, m_i, l_i, acc, v, dt):
    """One online-softmax step in ``exp2`` (scores already in log2 units)."""
    m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
    p = ct.exp2(s - m_new)
    alpha = ct.exp2(m_i - m_new)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    return m_new, l_i, ct.mma(p.astype(dt), v, acc * alpha)


def _online_exp(s, m_i, l_i, acc, v, dt):
    """One online-softmax step in natural ``exp``."""
    m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
    p = ct.exp(s - m_new)
    alpha = ct.exp(m_i - m_new)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    return m_new, l_i, ct.mma(p.astype(dt), v, acc * alpha)


def _kpos(j, BN):
    return (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]


# ----------------------------------------------------------------------------------------------- decode, serving


@ct.kernel
def z32_decode_gqa8_bshd_lens(Q, K, V, Lens, O, qk_scale: float, G: C[int], BN: C[int], D: C[int]):
    """GQA decode in Hugging Face's sequence-major layout: Q ``[B, 1, H, D]`` (one new token), caches
    ``[B, Smax, HKV, D]``; program ``(g, b)`` takes the ``G`` query heads of KV head ``g`` as the rows of a
    ``(1, 1, G, D)`` tile; the valid length ``Lens[b]`` a scalar; cache rows past it masked."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.load(Lens, index=(b,), shape=(1,)).item()
    q = ct.load(Q, index=(b, 0, g, 0), shape=(1, 1, G, D)).reshape((G, D))
    m_i, l_i, acc = _state(G, D)
    for j in range(ct.cdiv(n, BN)):
        k = ct.load(K, index=(b, j, g, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((G, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < n, s, -math.inf)
        v = ct.load(V, index=(b, j, g, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, 0, g, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, G, D)))


@ct.kernel
def z32_split_kv_grid_splits(Q, K, V, OP, LP, qk_scale: float, BN: C[int], D: C[int]):
    """Flash-decoding's split kernel, one query row per program ``(split, h, b)``: the split count is the
    grid's first axis (``ct.num_blocks(0)``), each split takes ``cdiv(tiles, splits)`` key tiles (the last
    may have none); Q ``[B, H, D]``, K / V ``[B, H, S, D]`` ragged; the split's normalised partial O ``[B, H,
    NS, D]`` f32 (0 when empty) and its log2 LSE ``[B, H, NS]`` (``-inf`` when empty)."""
    sp, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = K.shape[2]
    nt = ct.cdiv(seq, BN)
    per = ct.cdiv(nt, ct.num_blocks(0))
    lo = sp * per
    q = ct.load(Q, index=(b, h, 0), shape=(1, 1, D)).reshape((1, D))
    m_i, l_i, acc = _state(1, D)
    for j in range(lo, min(lo + per, nt)):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((1, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(OP, index=(b, h, sp, 0), tile=(acc / ct.maximum(l_i, 1.0e-30)).reshape((1, 1, 1, D)))
    ct.store(LP, index=(b, h, sp), tile=(m_i + ct.log2(l_i)).reshape((1, 1, 1)))


@ct.kernel
def z32_split_kv_combine_online(OP, LP, O, NS: C[int], D: C[int]):
    """The combine kernel as a running merge over the splits (log2 units): ``m = max(m, lse_s)``, the
    running sum and output rescaled by ``2^(m_old - m)``, split ``s`` weighed ``2^(lse_s - m)``; empty
    splits (``-inf``) weigh 0 (the max guarded while every split so far is empty); O ``[B, H, D]``."""
    h, b = ct.bid(0), ct.bid(1)
    m = ct.full((1, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((1, 1), dtype=ct.float32)
    o = ct.zeros((1, D), dtype=ct.float32)
    for s in range(NS):
        lse = ct.load(LP, index=(b, h, s), shape=(1, 1, 1)).reshape((1, 1))
        part = ct.load(OP, index=(b, h, s, 0), shape=(1, 1, 1, D)).reshape((1, D))
        m_new = ct.maximum(m, lse)
        m_safe = ct.where(m_new == -math.inf, 0.0, m_new)
        alpha = ct.exp2(m - m_safe)
        w = ct.exp2(lse - m_safe)
        den = den * alpha + w
        o = o * alpha + part * w
        m = m_new
    ct.store(O, index=(b, h, 0), tile=(o / den).astype(O.dtype).reshape((1, 1, D)))


@ct.kernel
def z32_paged_slot_gather(Q, Kc, Vc, Table, Lens, O, qk_scale: float, PAGE: C[int], BN: C[int], D: C[int]):
    """Paged decode with ``PAGE = 16``-token pages narrower than the ``BN``-key tile: caches ``[H, slots,
    D]``; key ``t`` of sequence ``b`` lives in slot ``Table[b, t // PAGE] * PAGE + t % PAGE``; each key
    tile's K and V rows gathered by slot (``ct.gather``); one query row per program ``(h, b)``, Q / O
    ``[B, H, D]``; keys past ``Lens[b]`` masked."""
    h, b = ct.bid(0), ct.bid(1)
    n = ct.load(Lens, index=(b,), shape=(1,)).item()
    q = ct.load(Q, index=(b, h, 0), shape=(1, 1, D)).reshape((1, D))
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    m_i, l_i, acc = _state(1, D)
    for j in range(ct.cdiv(n, BN)):
        tok = j * BN + ct.arange(BN, dtype=ct.int32)
        page = ct.gather(Table, (b, tok // PAGE))
        slot = (page * PAGE + tok % PAGE)[:, None]
        k = ct.gather(Kc, (h, slot, cols))
        s = ct.mma(q, ct.transpose(k), ct.zeros((1, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(tok[None, :] < n, s, -math.inf)
        v = ct.gather(Vc, (h, slot, cols))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, Vc.dtype)
    ct.store(O, index=(b, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, D)))


@ct.kernel
def z32_chunk_prefill_lens(Q, K, V, QLens, KLens, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int],
                           D: C[int]):
    """Batched chunked prefill: sequence ``b`` has ``QLens[b]`` new queries at the end of its ``KLens[b]``
    keys (bottom-right causal, offset ``KLens[b] - QLens[b]`` per sequence, read as scalars); ``[B*H, S,
    D]`` arrays padded to the longest; programs past the sequence's query tiles return at once."""
    qt, bh = ct.bid(0), ct.bid(1)
    nq = ct.load(QLens, index=(bh // H,), shape=(1,)).item()
    nk = ct.load(KLens, index=(bh // H,), shape=(1,)).item()
    if qt * BM < nq:
        off = nk - nq
        q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
        qpos = (off + qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
        m_i, l_i, acc = _state(BM, D)
        for j in range(ct.cdiv(min(off + (qt + 1) * BM, nk), BN)):
            k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
            s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
            kpos = _kpos(j, BN)
            s = ct.where((kpos <= qpos) & (kpos < nk), s, -math.inf)
            v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
            m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
        ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def z32_cascade_shared_prefix(Q, KP, VP, K, V, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """Cascade attention: every sequence's queries see a shared prompt prefix ``KP / VP [H, P, D]`` (one
    copy, no batch axis) and then their own suffix ``K / V [B*H, S, D]`` causally (query ``i`` sees suffix
    keys ``<= i``); two key loops over different arrays carrying one running state; both ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    h = bh % H
    npre = KP.shape[1]
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(npre, BN)):
        k = ct.load(KP, index=(h, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < npre, s, -math.inf)
        v = ct.load(VP, index=(h, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def z32_sink_tile_peeled_window(Q, K, V, O, qk_scale: float, W: int, BM: C[int], BN: C[int], D: C[int]):
    """StreamingLLM: each query sees the first ``BN`` keys (the attention sinks, key tile 0: its step
    peeled before the loop, causal) and a causal window of ``W`` keys (the loop from the window's first
    tile, at least 1, to the diagonal; ``-1e30`` masks: a window tile can be wholly masked for a row)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    k0 = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s0 = ct.mma(q, ct.transpose(k0), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
    s0 = ct.where((_kpos(0, BN) <= qpos) & (_kpos(0, BN) < seq), s0, -1.0e30)
    v0 = ct.load(V, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    m_i, l_i, acc = _online(s0, m_i, l_i, acc, v0, V.dtype)
    lo = max(max(qt * BM - W + 1, 0) // BN, 1)
    for j in range(lo, ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos > qpos - W) & (kpos < seq), s, -1.0e30)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))



@ct.kernel
def z32_mod_routed_queries(Q, K, V, Idx, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Mixture-of-Depths: the ``C`` routed tokens ``Idx [C]`` (ascending positions) attend causally to every key;
    each query tile's rows gathered from ``Q [BH, S, D]`` by ``ct.gather``, O stored compact ``[BH, C, D]``."""
    ci, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    rows = ct.load(Idx, index=(ci,), shape=(BM,), padding_mode=ZERO)[:, None]
    q = ct.gather(Q, (bh, rows, ct.arange(D, dtype=ct.int32)[None, :]))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= rows) & (kpos < seq), s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, ci, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))

# ----------------------------------------------------------------------------------------------- scores, masks


@ct.kernel
def z32_alibi_position_ids(Q, K, V, Pos, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """A left-padded batch: position ids ``Pos [B, S]`` int32 (``-1`` on pad tokens) loaded for the query
    tile (a column) and each key tile (a row); ALiBi ``slope_h (pos_k - pos_q)`` (log2 units), causal by
    position, pad keys masked (``-1e30``: a row's first key tiles can be all padding); Q ``[B, H, S, D]``."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = K.shape[2]
    slope = ct.exp2(ct.full((1, 1), -8.0, dtype=ct.float32) * (h + 1) / H) * LOG2E
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qp = ct.load(Pos, index=(b, qt), shape=(1, BM), padding_mode=ZERO).reshape((BM, 1))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kp = ct.load(Pos, index=(b, j), shape=(1, BN), padding_mode=ZERO).reshape((1, BN))
        s = s + slope * (kp - qp).astype(ct.float32)
        s = ct.where((kp >= 0) & (kp <= qp) & (_kpos(j, BN) < seq), s, -1.0e30)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def z32_hf_additive_mask_f16(Q, K, V, Mask, O, sm_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """Hugging Face's extended attention mask ``[B, 1, 1, Sk]`` in f16 (0 keep, ``finfo(f16).min`` drop)
    broadcast over heads and rows, added in f32 to the natural-scaled scores; ``[B*H, S, D]`` arrays;
    keys past ``Sk`` masked by index."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        bias = ct.load(Mask, index=(bh // H, 0, 0, j), shape=(1, 1, 1, BN), padding_mode=ZERO).reshape((1, BN))
        s = ct.where(_kpos(j, BN) < seq, s + bias.astype(ct.float32), -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def z32_row_temperature(Q, K, V, Tau, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """A per-query temperature ``Tau [BH, Sq]`` f32 loaded once as a ``(BM, 1)`` column dividing each
    row's scores; ragged keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    tau = ct.load(Tau, index=(bh, qt), shape=(1, BM), padding_mode=ct.PaddingMode.ZERO).reshape((BM, 1))
    inv = qk_scale / ct.maximum(tau, 1.0e-6)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * inv
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def z32_softmax_off_by_one(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The off-by-one ("quiet") softmax ``exp(s) / (1 + sum exp(s))``: a virtual zero logit, so the running
    max starts at 0 and the running sum at 1 (``2^(0 - 0)``); causal, ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.zeros((BM, 1), dtype=ct.float32)
    l_i = ct.ones((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def z32_keys_last_tile_first(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The key loop walked from the last tile down (``jj = n - 1 - j``: the ragged tile first); ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    n = ct.cdiv(seq, BN)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(n):
        jj = n - 1 - j
        k = ct.load(K, index=(bh, jj, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(jj, BN) < seq, s, -math.inf)
        v = ct.load(V, index=(bh, jj, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- shapes, operands


@ct.kernel
def z32_cross_d112_bf16_f32out(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Cross attention, head dim 112 in a 128-wide zero-padded tile, bf16 in, f32 O; ``Sq != Sk``, both
    ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).reshape((1, BM, D)))


@ct.kernel
def z32_causal_d160(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal, head dim 160 in a 256-wide zero-padded tile; ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = _kpos(j, BN)
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def z32_two_mha_heads(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Two independent MHA heads per program (heads ``2p`` and ``2p + 1``, each with its own K / V tiles:
    four dots, two chains in one key loop); ``[B, H, S, D]``; grid (query tile, head pair, batch)."""
    qt, p, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q0 = ct.load(Q, index=(b, 2 * p, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    q1 = ct.load(Q, index=(b, 2 * p + 1, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m0, l0, acc0 = _state(BM, D)
    m1, l1, acc1 = _state(BM, D)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k0 = ct.load(K, index=(b, 2 * p, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        k1 = ct.load(K, index=(b, 2 * p + 1, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s0 = ct.mma(q0, ct.transpose(k0), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s1 = ct.mma(q1, ct.transpose(k1), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v0 = ct.load(V, index=(b, 2 * p, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        v1 = ct.load(V, index=(b, 2 * p + 1, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        m0, l0, acc0 = _online(s0, m0, l0, acc0, v0, V.dtype)
        m1, l1, acc1 = _online(s1, m1, l1, acc1, v1, V.dtype)
    ct.store(O, index=(b, 2 * p, qt, 0), tile=(acc0 / l0).astype(O.dtype).reshape((1, 1, BM, D)))
    ct.store(O, index=(b, 2 * p + 1, qt, 0), tile=(acc1 / l1).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def z32_mla_absorbed_decode(Q, QPE, CKV, KPE, O, sm_scale: float, HB: C[int], BN: C[int], DC: C[int],
                            DR: C[int]):
    """DeepSeek's MLA decode with the projections absorbed: ``HB`` query heads as the rows of a tile;
    scores ``q_nope c^T + q_pe k_pe^T`` (two score dots summed: the latent ``DC`` and the RoPE ``DR``
    columns), V the latent ``c`` itself; Q ``[B, H, DC]``, QPE ``[B, H, DR]``, CKV ``[B, S, DC]``, KPE
    ``[B, S, DR]``, O ``[B, H, DC]``; natural exp, ragged S."""
    hb, b = ct.bid(0), ct.bid(1)
    seq = CKV.shape[1]
    q = ct.load(Q, index=(b, hb, 0), shape=(1, HB, DC)).reshape((HB, DC))
    qp = ct.load(QPE, index=(b, hb, 0), shape=(1, HB, DR)).reshape((HB, DR))
    m_i, l_i, acc = _state(HB, DC)
    for j in range(ct.cdiv(seq, BN)):
        c = ct.load(CKV, index=(b, j, 0), shape=(1, BN, DC), padding_mode=ZERO).reshape((BN, DC))
        kp = ct.load(KPE, index=(b, j, 0), shape=(1, BN, DR), padding_mode=ZERO).reshape((BN, DR))
        s = ct.mma(qp, ct.transpose(kp), ct.mma(q, ct.transpose(c), ct.zeros((HB, BN), dtype=ct.float32)))
        s = ct.where(_kpos(j, BN) < seq, s * sm_scale, -math.inf)
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, c, CKV.dtype)
    ct.store(O, index=(b, hb, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, HB, DC)))


@ct.kernel
def z32_qk_rmsnorm(Q, K, V, WQ, WK, O, qk_scale: float, eps: float, BM: C[int], BN: C[int], D: C[int]):
    """q-k norm (OLMo-2 / Qwen3): Q's and each K tile's rows RMS-normalised in f32 with weights ``WQ / WK
    [D]`` before the score dot (Q once, K in the loop), cast back to the input type; ragged keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    wq = ct.load(WQ, index=(0,), shape=(D,)).reshape((1, D))
    wk = ct.load(WK, index=(0,), shape=(D,)).reshape((1, D))
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D)).astype(ct.float32)
    q = (q * ct.rsqrt(ct.sum(q * q, axis=1, keepdims=True) / D + eps) * wq).astype(Q.dtype)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D)).astype(ct.float32)
        k = (k * ct.rsqrt(ct.sum(k * k, axis=1, keepdims=True) / D + eps) * wk).astype(K.dtype)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def z32_int8_kv_token_scales(Q, K8, V8, KS, VS, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """An int8 KV cache with per-token f32 scales ``KS / VS [BH, S]``: each K / V tile dequantised in the
    loop (``k8 * ks`` as f16) before its dot; ragged keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K8.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        ks = ct.load(KS, index=(bh, j), shape=(1, BN), padding_mode=ZERO).reshape((BN, 1))
        vs = ct.load(VS, index=(bh, j), shape=(1, BN), padding_mode=ZERO).reshape((BN, 1))
        k8 = ct.load(K8, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        k = (k8.astype(ct.float32) * ks).astype(Q.dtype)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        v8 = ct.load(V8, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        v = (v8.astype(ct.float32) * vs).astype(Q.dtype)
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, Q.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))



@ct.kernel
def z32_int8_scales_on_scores(Q, K8, V8, KS, VS, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The int8 cache of :func:`z32_int8_kv_token_scales` written the KIVI way: the tiles only cast to f16 in the
    loop, the per-token scales moved off the operands (K's onto the scores' columns, ``s * ks``; V's onto P's
    columns, ``(p * vs) V``); ragged keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K8.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        ks = ct.load(KS, index=(bh, j), shape=(1, BN), padding_mode=ZERO)
        vs = ct.load(VS, index=(bh, j), shape=(1, BN), padding_mode=ZERO)
        k = ct.load(K8, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D)).astype(Q.dtype)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * (ks * qk_scale)
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        v = ct.load(V8, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D)).astype(Q.dtype)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma((p * vs).astype(Q.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))

# ----------------------------------------------------------------------------------------------- backward, statistics


@ct.kernel
def z32_lse_only(Q, K, LSE, sm_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The natural-log LSE of the scaled scores alone (recomputed for a backward; no V, one dot): the
    running max and sum over the key tiles, ``m + log(l)`` stored ``[BH, Sq]``; ragged both."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = ct.where(_kpos(j, BN) < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        l_i = l_i * ct.exp(m_i - m_new) + ct.sum(ct.exp(s - m_new), axis=1, keepdims=True)
        m_i = m_new
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log(l_i)).reshape((1, BM)))


@ct.kernel
def z32_bwd_ds_tile(Q, K, V, dO, LSE, Delta, dS, sm_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """A split backward's score-gradient tile per program ``(query tile, key tile, bh)``: ``P = exp(Q K^T
    scale - lse)``, ``dP = dO V^T``, ``dS = P (dP - delta)`` stored f16 ``[BH, Sq, Sk]`` (the dQ / dK
    GEMMs read it); natural LSE and delta ``[BH, Sq]``; both ragged."""
    qt, kt, bh = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    do = ct.load(dO, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, kt, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    v = ct.load(V, index=(bh, kt, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    lse = ct.load(LSE, index=(bh, qt), shape=(1, BM), padding_mode=ZERO).reshape((BM, 1))
    delta = ct.load(Delta, index=(bh, qt), shape=(1, BM), padding_mode=ZERO).reshape((BM, 1))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
    p = ct.exp(s - lse)
    dp = ct.mma(do, ct.transpose(v), ct.zeros((BM, BN), dtype=ct.float32))
    ct.store(dS, index=(bh, qt, kt), tile=(p * (dp - delta)).astype(dS.dtype).reshape((1, BM, BN)))


@ct.kernel
def z32_bwd_delta_bshd(O, dO, Delta, BM: C[int], D: C[int]):
    """The backward's preprocess ``delta[b, h, s] = sum_d dO O`` in f32 from sequence-major ``[B, S, H,
    D]`` bf16 arrays into ``[B, H, S]``; grid (row tile, head, batch); ragged S."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    o = ct.load(O, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    do = ct.load(dO, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    d = ct.sum(o.astype(ct.float32) * do.astype(ct.float32), axis=1)
    ct.store(Delta, index=(b, h, qt), tile=d.reshape((1, 1, BM)))


# ----------------------------------------------------------------------------------------------- the table

F16, BF16, F32, I32, I8 = "float16", "bfloat16", "float32", "int32", "int8"
_S64 = 0.125 * LOG2E


def _qkv(q, k, dt=F16):
    return [(q, dt), (k, dt), (k, dt)]


_add("z32_decode_gqa8_bshd_lens", z32_decode_gqa8_bshd_lens,
     [((2, 1, 16, 128), BF16), ((2, 300, 2, 128), BF16), ((2, 300, 2, 128), BF16), ((2,), I32),
      ((2, 1, 16, 128), BF16), LOG2E / math.sqrt(128), 8, 64, 128], (2, 2), "chained", outputs=(4,))
_add("z32_split_kv_grid_splits", z32_split_kv_grid_splits,
     [((2, 2, 64), F16), ((2, 2, 1000, 64), F16), ((2, 2, 1000, 64), F16), ((2, 2, 5, 64), F32),
      ((2, 2, 5), F32), _S64, 64, 64], (5, 2, 2), "chained", outputs=(3, 4))
_add("z32_split_kv_combine_online", z32_split_kv_combine_online,
     [((2, 2, 5, 64), F32), ((2, 2, 5), F32), ((2, 2, 64), F16), 5, 64], (2, 2), "simt", outputs=(2,))
_add("z32_paged_slot_gather", z32_paged_slot_gather,
     [((2, 2, 64), F16), ((2, 512, 64), F16), ((2, 512, 64), F16), ((2, 16), I32), ((2,), I32),
      ((2, 2, 64), F16), _S64, 16, 64, 64], (2, 2), "chained", outputs=(5,),
     notes="found by this set: an unlocated 'the TileAS tier left a kernel unlowered' (every operand tile of the loop "
           "gathered: no TMA load, no pipeline); then a warning at the gather naming the paged-cache remedy; session "
           "37: tileas-paged-gather loads the 16-slot pages of each 64-key tile as four TMA tiles (chained kernel)")
_add("z32_chunk_prefill_lens", z32_chunk_prefill_lens,
     _qkv((4, 150, 64), (4, 300, 64)) + [((2,), I32), ((2,), I32), ((4, 150, 64), F16), _S64, 2, 64, 64, 64],
     (3, 4), "chained", outputs=(5,))
_add("z32_cascade_shared_prefix", z32_cascade_shared_prefix,
     [((4, 130, 64), F16), ((2, 100, 64), F16), ((2, 100, 64), F16), ((4, 130, 64), F16), ((4, 130, 64), F16),
      ((4, 130, 64), F16), _S64, 2, 64, 64, 64], (3, 4), "simt", outputs=(5,),
     error="2 loops with dots one after another",
     notes="two key loops over different arrays (other bounds) carrying one state: not fused by the tier")
_add("z32_mod_routed_queries", z32_mod_routed_queries,
     _qkv((2, 200, 64), (2, 200, 64)) + [((64,), I32), ((2, 64, 64), F16), _S64, 64, 64, 64], (1, 2), "chained",
     outputs=(4,),
     notes="found by this set: refused as 'computed from its tile by 'nv_tileaa.load', which depends on the "
           "element's position' (the tier's op, a prologue's words); then the gather named at its line; session 44: "
           "the chained kernel's consumers read the gathered rows into the Q tile (chained_dots._Kernel.q_gather)")
_add("z32_sink_tile_peeled_window", z32_sink_tile_peeled_window,
     _qkv((2, 300, 64), (2, 300, 64)) + [((2, 300, 64), F16), _S64, 100, 64, 64, 64], (5, 2), "chained",
     outputs=(3,))
_add("z32_alibi_position_ids_bf16", z32_alibi_position_ids,
     _qkv((2, 2, 160, 64), (2, 2, 160, 64), BF16) + [((2, 160), I32), ((2, 2, 160, 64), BF16), _S64, 2, 64, 64,
                                                      64], (3, 2, 2), "chained", outputs=(4,))
_add("z32_hf_additive_mask_f16", z32_hf_additive_mask_f16,
     _qkv((4, 100, 64), (4, 170, 64)) + [((2, 1, 1, 170), F16), ((4, 100, 64), F16), 0.125, 2, 64, 64, 64],
     (2, 4), "chained", outputs=(4,))
_add("z32_row_temperature", z32_row_temperature,
     _qkv((2, 128, 64), (2, 150, 64)) + [((2, 128), F32), ((2, 128, 64), F16), _S64, 64, 64, 64], (2, 2),
     "chained", outputs=(4,))
_add("z32_softmax_off_by_one", z32_softmax_off_by_one,
     _qkv((2, 150, 64), (2, 150, 64)) + [((2, 150, 64), F16), _S64, 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("z32_keys_last_tile_first", z32_keys_last_tile_first,
     _qkv((2, 128, 64), (2, 170, 64)) + [((2, 128, 64), F16), _S64, 64, 64, 64], (2, 2), "chained", outputs=(3,))
_add("z32_cross_d112_bf16_f32out", z32_cross_d112_bf16_f32out,
     _qkv((2, 300, 112), (2, 170, 112), BF16) + [((2, 300, 112), F32), LOG2E / math.sqrt(112), 64, 64, 128],
     (5, 2), "chained", outputs=(3,))
_add("z32_causal_d160", z32_causal_d160,
     _qkv((2, 150, 160), (2, 150, 160)) + [((2, 150, 160), F16), LOG2E / math.sqrt(160), 64, 64, 256], (3, 2),
     "chained", outputs=(3,))
_add("z32_two_mha_heads", z32_two_mha_heads,
     _qkv((2, 4, 128, 64), (2, 4, 192, 64)) + [((2, 4, 128, 64), F16), _S64, 64, 64, 64], (2, 2, 2), "chained",
     outputs=(3,),
     notes="was refused ('second dots reading different B tiles of their own': the stage holds one V tile); since "
           "session 33 the two independent chains run as two programs of one chain each (tileas-split-chains)")
_add("z32_mla_absorbed_decode", z32_mla_absorbed_decode,
     [((2, 32, 128), BF16), ((2, 32, 64), BF16), ((2, 300, 128), BF16), ((2, 300, 64), BF16),
      ((2, 32, 128), BF16), 1 / math.sqrt(192), 16, 64, 128, 64], (2, 2), "simt", outputs=(4,),
     error="this dot adds its product to the result of the dot at line",
     notes="one product split over two operand pairs along K (latent + RoPE parts): not taken by the tensor-core "
           "tiers (concatenating the parts along the head dim in memory is the remedy the refusal names)")
_add("z32_qk_rmsnorm", z32_qk_rmsnorm,
     _qkv((2, 128, 64), (2, 150, 64)) + [((64,), F32), ((64,), F32), ((2, 128, 64), F16), _S64, 1e-6, 64, 64, 64],
     (2, 2), "chained", outputs=(5,))
_add("z32_int8_kv_token_scales", z32_int8_kv_token_scales,
     [((2, 128, 64), F16), ((2, 150, 64), I8), ((2, 150, 64), I8), ((2, 150), F32), ((2, 150), F32),
      ((2, 128, 64), F16), _S64, 64, 64, 64], (2, 2), "simt", outputs=(5,),
     error="the first dot's B (K) is computed from its tile by a ct.load, a per-column vector loaded",
     notes="an int8 tile dequantised by a per-key scale tile loaded in the loop: a computed B with a loaded vector")
_add("z32_int8_scales_on_scores", z32_int8_scales_on_scores,
     [((2, 128, 64), F16), ((2, 150, 64), I8), ((2, 150, 64), I8), ((2, 150), F32), ((2, 150), F32),
      ((2, 128, 64), F16), _S64, 64, 64, 64], (2, 2), "simt", outputs=(5,),
     error="the first dot's B element type i8: f16/bf16 operands are supported (converted to f16 in the kernel",
     notes="found by this set: the refusal of a B tile converted in the kernel lacked the conversion's words (the "
           "staged B no longer reads its load); the tier's WGMMA converts no operand tile")
_add("z32_lse_only", z32_lse_only,
     [((2, 150, 64), F16), ((2, 170, 64), F16), ((2, 150), F32), 0.125, 64, 64, 64], (3, 2), "chained",
     outputs=(2,),
     notes="found by this set: refused as 'expected a producer agent with 2 TMA tile loads (A and 1 B); found 1 "
           "staged loads' (the tier's words), then (session 32) 'this dot's product is not accumulated over its "
           "loop' at the dot; since session 33 the chained kernel runs it with a second dot over the same K tile "
           "whose result nothing reads (tileas-row-statistics-chain), storing the row vector alone")
_add("z32_bwd_ds_tile", z32_bwd_ds_tile,
     _qkv((2, 150, 64), (2, 130, 64)) + [((2, 150, 64), F16), ((2, 150), F32), ((2, 150), F32),
                                         ((2, 150, 130), F16), 0.125, 64, 64, 64], (3, 3, 2), "simt",
     outputs=(6,), error="this dot is not in a loop")
_add("z32_bwd_delta_bshd_bf16", z32_bwd_delta_bshd,
     [((2, 150, 2, 128), BF16), ((2, 150, 2, 128), BF16), ((2, 2, 150), F32), 64, 128], (3, 2, 2), "simt",
     outputs=(2,))
