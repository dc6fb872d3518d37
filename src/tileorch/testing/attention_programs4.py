"""A fourth set of attention-shaped cuTile programs (session 22, issue 20: "acceptance runs
attention-shaped programs you will not see"): the FlashAttention *backward* as cuTile users port it
from Triton's tutorial / FlashAttention-2 (a preprocess kernel ``delta = rowsum(dO * O)``, a dK/dV
kernel looping over query tiles, a dQ kernel looping over key tiles; causal and not, head dims
64 / 128, fp16 / bf16), and serving-side forwards in spellings the earlier sets
(``attention_programs`` .. ``attention_programs3``, ``user_programs`` .. ``user_programs13``) do
not use: a paged KV cache whose page number is a scalar ``ct.load(...).item()`` of a block table
(GQA rows), varlen batches whose offsets come from ``cu_seqlens`` (token-packed ``[T, H, D]``
arrays), split-KV flash decoding with the splits on the grid (partial O and natural-log LSE per
split) and its combine kernel, an MLA-style latent cache whose V is the first ``d_v`` columns of
the K array (``d_qk`` 192 in a 256-wide tile, ``d_v`` 128), document masks from segment ids with
the key range read per query tile, and the three ``while`` forms session 21 left refused (``and``
in the condition, the ``break`` after the body, a run-time step).

Found by this set (each a general pass, the program's test failing before it): a page number read
with ``ct.load(Table, (b, j), (1, 1)).item()`` was refused ("a TMA load depends on
'nv_tileas.tiled_load', which the producer agent cannot replay"): ``tileas-scalar-tile-loads`` makes
it the scalar load a gather spells, which the producer replays; ``ct.transpose(p)`` as the second
dot's A (dV in the forward's orientation) was refused ("the first dot's A must be a [tm, K] tile
loaded once before the loop"): ``tileas-transpose-computed-operand`` computes the chain transposed;
the dK/dV kernel's refusal named a GEMM rule (an accumulator shape, or "do not read the same A
tile"): it names the chain's two second dots now.  Session 23 took the dK/dV and dQ kernels onto the
tensor cores (first dots with their own loop-invariant A tiles: K and V, or Q and dO; a second dot's B read
in a first dot's stage: dQ's K, dK/dV's Q and dO; a chain feeding two accumulators: dK/dV).  Still refused,
at the user's line: FlashAttention-2's fused backward, ``Array.slice`` varlen, a ``while`` stepped by a run-time value
(its sign is unknown: a step of 0 never ends).  A do-while (``while True:`` body, ``j += 1``, ``if j >= n:
break``) was refused too: ``tileas-while-to-for`` runs it as ``range(j0, max(n, j0 + 1))``.  ``while j < n and j * BN < m`` (cuTile exports the ``and`` as a
short-circuit ``if``) was refused as "this dot is in a while loop": ``tileas-while-to-for`` folds
the short-circuit (its second test is a pure comparison) and runs the loop to the least bound.

Each entry is a :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`: ``path``
is what the compiler does with it today (``chained``: TMA + WGMMA; ``simt``: the SIMT path's
mma.sync, with ``error`` naming the located refusal of the tensor-core tier). Driven by
tests/unit/test_attention_programs4_compile.py (path, located remarks, ptxas),
tests/unit/test_attention_programs4_emulated.py (chained kernels on the PTX emulator, SIMT ones on
the SIMT interpreter, against numpy) and tests/gpu/test_attention_programs4.py (torch fp32,
NaN-prefilled). Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

C = ct.Constant
LN2 = 0.6931471805599453


# ----------------------------------------------------------------------------------------------- backward


@ct.kernel
def bwd_preprocess(O, dO, Delta, BM: C[int], D: C[int]):
    """``delta = rowsum(O * dO)`` per query row (f32), the backward's first kernel."""
    qt, bh = ct.bid(0), ct.bid(1)
    o = ct.load(O, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    do = ct.load(dO, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    delta = ct.sum(o.astype(ct.float32) * do.astype(ct.float32), axis=1)
    ct.store(Delta, index=(bh, qt), tile=delta.reshape((1, BM)))


@ct.kernel
def bwd_dkdv(Q, K, V, dO, M, Delta, dK, dV, sm_scale: float, CAUSAL: C[bool], BM: C[int], BN: C[int], D: C[int]):
    """Triton's tutorial dK/dV kernel ported: program ``(kt, bh)`` holds its K and V tiles and loops
    over the query tiles (from the diagonal when causal): ``qkT = K Q^T``, ``pT = exp2(qkT * scale
    * log2e - M)`` (``M`` the forward's log2-unit LSE, a per-column vector here), the causal mask on
    ``pT``, ``dV += pT dO``, ``dpT = V dO^T``, ``dsT = pT (dpT - delta)``, ``dK += dsT Q``; dK
    scaled by ``sm_scale`` at the end."""
    kt, bh = ct.bid(0), ct.bid(1)
    k = ct.load(K, index=(bh, kt, 0), shape=(1, BN, D)).reshape((BN, D))
    v = ct.load(V, index=(bh, kt, 0), shape=(1, BN, D)).reshape((BN, D))
    dk = ct.zeros((BN, D), dtype=ct.float32)
    dv = ct.zeros((BN, D), dtype=ct.float32)
    kpos = (kt * BN + ct.arange(BN, dtype=ct.int32))[:, None]
    start = (kt * BN) // BM if CAUSAL else 0
    for i in range(start, ct.num_tiles(Q, axis=1, shape=(1, BM, D))):
        q = ct.load(Q, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        m = ct.load(M, index=(bh, i), shape=(1, BM))
        qkT = ct.mma(k, ct.transpose(q), ct.zeros((BN, BM), dtype=ct.float32))
        pT = ct.exp2(qkT * (sm_scale * LOG2E) - m)
        if CAUSAL:
            pT = ct.where((i * BM + ct.arange(BM, dtype=ct.int32))[None, :] >= kpos, pT, 0.0)
        do = ct.load(dO, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        dv = ct.mma(pT.astype(dO.dtype), do, dv)
        di = ct.load(Delta, index=(bh, i), shape=(1, BM))
        dpT = ct.mma(v, ct.transpose(do), ct.zeros((BN, BM), dtype=ct.float32))
        dsT = pT * (dpT - di)
        dk = ct.mma(dsT.astype(Q.dtype), q, dk)
    ct.store(dK, index=(bh, kt, 0), tile=(dk * sm_scale).astype(dK.dtype).reshape((1, BN, D)))
    ct.store(dV, index=(bh, kt, 0), tile=dv.astype(dV.dtype).reshape((1, BN, D)))


@ct.kernel
def bwd_dq(Q, K, V, dO, M, Delta, dQ, sm_scale: float, CAUSAL: C[bool], BM: C[int], BN: C[int], D: C[int]):
    """Triton's tutorial dQ kernel ported: program ``(qt, bh)`` holds Q, dO, M and delta and loops
    over the key tiles (to the diagonal when causal): ``qk = Q K^T``, ``p = exp2(qk * scale * log2e
    - M)``, the causal mask on ``p``, ``dp = dO V^T``, ``ds = p (dp - delta)``, ``dQ += ds K``; dQ
    scaled by ``sm_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    do = ct.load(dO, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.load(M, index=(bh, qt), shape=(1, BM)).reshape((BM, 1))
    di = ct.load(Delta, index=(bh, qt), shape=(1, BM)).reshape((BM, 1))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    dq = ct.zeros((BM, D), dtype=ct.float32)
    n = ct.cdiv((qt + 1) * BM, BN) if CAUSAL else ct.num_tiles(K, axis=1, shape=(1, BN, D))
    for j in range(n):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        qk = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        p = ct.exp2(qk * (sm_scale * LOG2E) - m)
        if CAUSAL:
            p = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, p, 0.0)
        dp = ct.mma(do, ct.transpose(v), ct.zeros((BM, BN), dtype=ct.float32))
        ds = p * (dp - di)
        dq = ct.mma(ds.astype(K.dtype), k, dq)
    ct.store(dQ, index=(bh, qt, 0), tile=(dq * sm_scale).astype(dQ.dtype).reshape((1, BM, D)))


@ct.kernel
def bwd_dv_transposed_p(Q, K, dO, M, dV, sm_scale: float, CAUSAL: C[bool], BM: C[int], BN: C[int], D: C[int]):
    """dV alone written in the forward's orientation: ``s = Q K^T`` with the query tile loaded in the
    loop, ``p = exp2(s * scale * log2e - M)`` (``M`` a per-row vector), ``dV += p^T dO`` with the
    transpose of the computed tile as the dot's A (``ct.transpose(p)``)."""
    kt, bh = ct.bid(0), ct.bid(1)
    k = ct.load(K, index=(bh, kt, 0), shape=(1, BN, D)).reshape((BN, D))
    kpos = (kt * BN + ct.arange(BN, dtype=ct.int32))[None, :]
    dv = ct.zeros((BN, D), dtype=ct.float32)
    start = (kt * BN) // BM if CAUSAL else 0
    for i in range(start, ct.num_tiles(Q, axis=1, shape=(1, BM, D))):
        q = ct.load(Q, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        m = ct.load(M, index=(bh, i), shape=(1, BM)).reshape((BM, 1))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        p = ct.exp2(s * (sm_scale * LOG2E) - m)
        if CAUSAL:
            p = ct.where((i * BM + ct.arange(BM, dtype=ct.int32))[:, None] >= kpos, p, 0.0)
        do = ct.load(dO, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        dv = ct.mma(ct.transpose(p.astype(dO.dtype)), do, dv)
    ct.store(dV, index=(bh, kt, 0), tile=dv.astype(dV.dtype).reshape((1, BN, D)))


@ct.kernel
def bwd_dkdv_atomic_dq(Q, K, V, dO, M, Delta, dK, dV, dQ, sm_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """FlashAttention-2's single backward kernel: the dK/dV loop also computes ``dQ_i += dS K`` and
    adds it to an f32 ``dQ`` with ``ct.atomic_add`` (non-causal)."""
    kt, bh = ct.bid(0), ct.bid(1)
    k = ct.load(K, index=(bh, kt, 0), shape=(1, BN, D)).reshape((BN, D))
    v = ct.load(V, index=(bh, kt, 0), shape=(1, BN, D)).reshape((BN, D))
    dk = ct.zeros((BN, D), dtype=ct.float32)
    dv = ct.zeros((BN, D), dtype=ct.float32)
    rows = ct.arange(BM, dtype=ct.int32)[:, None]
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    for i in range(ct.num_tiles(Q, axis=1, shape=(1, BM, D))):
        q = ct.load(Q, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        do = ct.load(dO, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        m = ct.load(M, index=(bh, i), shape=(1, BM)).reshape((BM, 1))
        di = ct.load(Delta, index=(bh, i), shape=(1, BM)).reshape((BM, 1))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        p = ct.exp2(s * (sm_scale * LOG2E) - m)
        dv = ct.mma(ct.transpose(p.astype(dO.dtype)), do, dv)
        dp = ct.mma(do, ct.transpose(v), ct.zeros((BM, BN), dtype=ct.float32))
        ds = (p * (dp - di)).astype(Q.dtype)
        dk = ct.mma(ct.transpose(ds), q, dk)
        dqi = ct.mma(ds, k, ct.zeros((BM, D), dtype=ct.float32)) * sm_scale
        ct.atomic_add(dQ, (bh, i * BM + rows, cols), dqi)
    ct.store(dK, index=(bh, kt, 0), tile=(dk * sm_scale).astype(dK.dtype).reshape((1, BN, D)))
    ct.store(dV, index=(bh, kt, 0), tile=dv.astype(dV.dtype).reshape((1, BN, D)))


# ----------------------------------------------------------------------------------------------- serving forwards


def _online(s, m_i, l_i, acc, v, dt):
    m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
    p = ct.exp2(s - m_new)
    alpha = ct.exp2(m_i - m_new)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    acc = ct.mma(p.astype(dt), v, acc * alpha)
    return m_new, l_i, acc


@ct.kernel
def paged_gqa_item(Q, Kc, Vc, Table, Lens, O, qk_scale: float, G: C[int], BN: C[int], D: C[int]):
    """Paged decode with GQA rows: program ``(g, b)`` takes the ``G`` query heads of KV head ``g`` of
    sequence ``b`` as the rows of a ``[G, D]`` tile; K / V caches ``[pages, HKV, BN, D]``; the page of
    key tile ``j`` is ``ct.load(Table, (b, j), (1, 1)).item()``; the length ``Lens[b]`` the same way;
    the ragged last page masked."""
    g, b = ct.bid(0), ct.bid(1)
    n = ct.load(Lens, index=(b,), shape=(1,)).item()
    q = ct.load(Q, index=(b, g, 0), shape=(1, G, D)).reshape((G, D))
    m_i = ct.full((G, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((G, 1), dtype=ct.float32)
    acc = ct.zeros((G, D), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        page = ct.load(Table, index=(b, j), shape=(1, 1)).item()
        k = ct.load(Kc, index=(page, g, 0, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((G, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n, s, -math.inf)
        v = ct.load(Vc, index=(page, g, 0, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, Vc.dtype)
    ct.store(O, index=(b, g, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, G, D)))


@ct.kernel
def paged_prefill_causal(Q, Kc, Vc, Table, O, qk_scale: float, ctx: int, BM: C[int], BN: C[int], D: C[int]):
    """Chunked prefill against a paged cache: the chunk's queries sit at ``ctx ..`` of the sequence
    (bottom-right causal), program ``(qt, h, b)``; K / V caches ``[pages, BN, H, D]`` (vLLM's
    token-major page), the page from ``ct.gather(Table, (b, j))``."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    qpos = (ctx + qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(ctx + (qt + 1) * BM, BN)):
        page = ct.gather(Table, (b, j))
        k = ct.load(Kc, index=(page, 0, h, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        v = ct.load(Vc, index=(page, 0, h, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, Vc.dtype)
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def varlen_cu_seqlens_sliced(Q, K, V, CuQ, CuK, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Varlen (FlashAttention's ``cu_seqlens``): token-packed ``[T, H, D]`` arrays, sequence ``b``'s
    queries at ``CuQ[b] .. CuQ[b+1]``, keys at ``CuK[b] ..``; each sequence's rows cut out with
    ``Array.slice`` and tiled from its start; ragged keys masked, ragged query rows not stored."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q0 = ct.gather(CuQ, b)
    q1 = ct.gather(CuQ, b + 1)
    k0 = ct.gather(CuK, b)
    k1 = ct.gather(CuK, b + 1)
    nk = k1 - k0
    Qb = Q.slice(axis=0, start=q0, stop=q1)
    Kb = K.slice(axis=0, start=k0, stop=k1)
    Vb = V.slice(axis=0, start=k0, stop=k1)
    Ob = O.slice(axis=0, start=q0, stop=q1)
    q = ct.load(Qb, index=(qt, h, 0), shape=(BM, 1, D), padding_mode=ct.PaddingMode.ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(Kb, index=(j, h, 0), shape=(BN, 1, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, -math.inf)
        v = ct.load(Vb, index=(j, h, 0), shape=(BN, 1, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(Ob, index=(qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((BM, 1, D)))


def varlen_query_tile(Q, K, V, O, h, q0, k0, qt, nk, qk_scale, BM, BN, D):
    """Query tile ``qt`` of head ``h`` of the sequence whose rows start at ``q0`` (keys at ``k0``, ``nk`` of
    them), causal (top-left) inside the sequence, ragged ends masked: the chain of
    :func:`varlen_cu_seqlens_tiles` (also called under other branches by the review's guard tests)."""
    q = ct.load(Q, index=(h, q0 // BM + qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, nk), BN)):
        k = ct.load(K, index=(h, k0 // BN + j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos < nk), s, -math.inf)
        v = ct.load(V, index=(h, k0 // BN + j, 0), shape=(1, BN, D)).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(h, q0 // BM + qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def varlen_cu_seqlens_tiles(Q, K, V, CuQ, CuK, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """Varlen with ``cu_seqlens`` over ``[H, T, D]`` arrays whose sequences start on tile boundaries
    (the packer pads each to a multiple of the tile): program ``(qt, h, b)`` reads its row offsets
    from ``CuQ`` / ``CuK`` and loads tiles at ``offset // BM + qt``; causal (top-left) inside the
    sequence, ragged ends masked, programs past the sequence's query tiles return at once."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q0 = ct.gather(CuQ, b)
    nq = ct.gather(CuQ, b + 1) - q0
    k0 = ct.gather(CuK, b)
    nk = ct.gather(CuK, b + 1) - k0
    if qt * BM < nq:
        varlen_query_tile(Q, K, V, O, h, q0, k0, qt, nk, qk_scale, BM, BN, D)


@ct.kernel
def split_kv_partials(Q, K, V, OP, LP, qk_scale: float, tiles_per_split: int, G: C[int], BN: C[int], D: C[int]):
    """Flash decoding, split-KV: program ``(split, g, b)`` runs key tiles ``[split * tps, min((split +
    1) * tps, n))`` for the ``G`` query heads of KV head ``g`` (GQA rows), and stores its unnormalised
    partial ``O / l`` (f32) and the natural-log LSE ``m ln2 + ln l`` of its rows; a split without keys
    stores ``-inf``."""
    sp, g, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = K.shape[2]
    q = ct.load(Q, index=(b, g, 0), shape=(1, G, D)).reshape((G, D))
    m_i = ct.full((G, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((G, 1), dtype=ct.float32)
    acc = ct.zeros((G, D), dtype=ct.float32)
    lo = sp * tiles_per_split
    hi = min(lo + tiles_per_split, ct.cdiv(seq, BN))
    for j in range(lo, hi):
        k = ct.load(K, index=(b, g, j, 0), shape=(1, 1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((G, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        v = ct.load(V, index=(b, g, j, 0), shape=(1, 1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(OP, index=(b, g, sp, 0, 0), tile=(acc / l_i).reshape((1, 1, 1, G, D)))
    ct.store(LP, index=(b, g, sp, 0), tile=(m_i * LN2 + ct.log(l_i)).reshape((1, 1, 1, G)))


@ct.kernel
def split_kv_combine(OP, LP, O, NS: C[int], G: C[int], D: C[int]):
    """The combine kernel: ``O = sum_s exp(lse_s - lse) O_s`` with ``lse = logsumexp_s lse_s`` per
    row, cast to O's type (splits without keys carry ``-inf`` and weigh 0)."""
    g, b = ct.bid(0), ct.bid(1)
    lse = ct.load(LP, index=(b, g, 0, 0), shape=(1, 1, NS, G)).reshape((NS, G))
    mx = ct.max(lse, axis=0, keepdims=True)
    w = ct.exp(lse - mx)
    w = w / ct.sum(w, axis=0, keepdims=True)
    o = ct.zeros((G, D), dtype=ct.float32)
    for s in range(NS):
        part = ct.load(OP, index=(b, g, s, 0, 0), shape=(1, 1, 1, G, D)).reshape((G, D))
        ws = ct.extract(w, index=(s, 0), shape=(1, G)).reshape((G, 1))
        o = o + ct.where(ws > 0.0, part * ws, 0.0)
    ct.store(O, index=(b, g, 0), tile=o.astype(O.dtype).reshape((1, G, D)))


@ct.kernel
def mla_latent_cache(Q, KV, O, qk_scale: float, BM: C[int], BN: C[int], DQK: C[int], DV: C[int]):
    """MLA over a latent cache: Q ``[BH, S, 192]`` and one cache ``KV [B, S, 192]`` shared by the
    heads (128 latent + 64 RoPE columns) read as K through a zero-padded 256-wide tile; V is the
    first ``DV = 128`` columns of the same array (``d_qk != d_v``); causal, ``H`` heads per batch
    from the grid's second axis."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // (Q.shape[0] // KV.shape[0])
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DQK), padding_mode=ct.PaddingMode.ZERO).reshape((BM, DQK))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, DV), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(KV, index=(b, j, 0), shape=(1, BN, DQK), padding_mode=ct.PaddingMode.ZERO).reshape((BN, DQK))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        v = ct.load(KV, index=(b, j, 0), shape=(1, BN, DV)).reshape((BN, DV))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, KV.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, DV)))


@ct.kernel
def document_mask_ranges(Q, K, V, Seg, Lo, Hi, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Packed documents (bidirectional inside a document): ``Seg [B, S]`` segment ids, the key tiles a
    query tile can touch ``[Lo, Hi)`` read per query tile (``.item()``), the mask ``seg_q == seg_k``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // (Q.shape[0] // Seg.shape[0])
    lo = ct.load(Lo, index=(b, qt), shape=(1, 1)).item()
    hi = ct.load(Hi, index=(b, qt), shape=(1, 1)).item()
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    sq = ct.load(Seg, index=(b, qt), shape=(1, BM)).reshape((BM, 1))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(lo, hi):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        sk = ct.load(Seg, index=(b, j), shape=(1, BN))
        s = ct.where(sq == sk, s, -1.0e30)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def prefix_lm_segments_causal(Q, K, V, Seg, O, qk_scale: float, prefix: int, BM: C[int], BN: C[int], D: C[int]):
    """Prefix-LM inside packed segments: a key is visible when it is in the query's segment and either
    in the bidirectional prefix (``kpos < prefix``) or not after the query (causal); the loop runs to
    ``max`` of the diagonal and the prefix's tiles."""
    qt, bh = ct.bid(0), ct.bid(1)
    b = bh // (Q.shape[0] // Seg.shape[0])
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    sq = ct.load(Seg, index=(b, qt), shape=(1, BM)).reshape((BM, 1))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    n = min(max(ct.cdiv((qt + 1) * BM, BN), ct.cdiv(prefix, BN)), ct.num_tiles(K, axis=1, shape=(1, BN, D)))
    for j in range(n):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        sk = ct.load(Seg, index=(b, j), shape=(1, BN))
        s = ct.where((sq == sk) & ((kpos < prefix) | (kpos <= qpos)), s, -1.0e30)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- while forms


@ct.kernel
def while_and_condition(Q, K, V, O, qk_scale: float, kv_len: int, BM: C[int], BN: C[int], D: C[int]):
    """``while j < n and j * BN < kv_len`` (two bounds joined by ``and``: the tile count of the array
    and a cache length), ragged keys masked."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    n = ct.num_tiles(K, axis=1, shape=(1, BN, D))
    j = 0
    while j < n and j * BN < kv_len:
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < kv_len, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
        j += 1
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def while_true_break_last(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """A do-while: ``while True:`` body, ``j += 1``, then ``if j >= n: break`` (at least one key tile;
    causal, ``n`` the diagonal's tile count)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    n = ct.cdiv((qt + 1) * BM, BN)
    j = 0
    while True:
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
        j += 1
        if j >= n:
            break
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def while_runtime_step(Q, K, V, O, qk_scale: float, step: int, BM: C[int], BN: C[int], D: C[int]):
    """Dilated (strided) attention: ``while j < n: ...; j += step`` with ``step`` a kernel argument
    (every ``step``-th key tile), ragged keys masked."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    n = ct.cdiv(seq, BN)
    j = 0
    while j < n:
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ct.PaddingMode.ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
        j += step
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- the table

F16, BF16, F32, I32 = "float16", "bfloat16", "float32", "int32"
_S64 = 0.125 * LOG2E


def _bwd_spec(bh, s, d, dt, outs):
    return [((bh, s, d), dt)] * 4 + [((bh, s), F32), ((bh, s), F32)] + [((bh, s, d), o) for o in outs]


# the backward: causal and not, d64 / d128, fp16 / bf16
for _d, _dt, _causal in [(64, F16, False), (64, F16, True), (128, BF16, False), (128, F16, True), (64, BF16, True)]:
    _sfx = f"d{_d}_{'bf16' if _dt == BF16 else 'f16'}{'_causal' if _causal else ''}"
    _add(f"bwd_dkdv_{_sfx}", bwd_dkdv, _bwd_spec(2, 192, _d, _dt, (_dt, _dt)) + [1 / math.sqrt(_d), _causal, 64, 64, _d],
         (3, 2), "chained", outputs=(6, 7),
         notes="found by this set: refused as '4 dots in one K loop that do not read the same A tile: 2 of them' (two "
               "accumulators over four dots, two first dots with different loop-invariant A: K and V); session 23: "
               "first dots with their own A tiles, two second dots whose B tiles are the first dots' (Q, dO)")
    _add(f"bwd_dq_{_sfx}", bwd_dq, _bwd_spec(2, 192, _d, _dt, (F32,)) + [1 / math.sqrt(_d), _causal, 64, 64, _d],
         (3, 2), "chained", outputs=(6,),
         notes="found by this set: refused as 'first dots with different A operands' (two first dots with "
               "different loop-invariant A: Q and dO); session 23: each first dot its own A tile and WGMMA chain, "
               "the second dot's B read in the first dot's K tile (one load)")
_add("bwd_preprocess", bwd_preprocess, [((2, 200, 64), F16), ((2, 200, 64), F16), ((2, 200), F32), 64, 64], (4, 2),
     "simt", outputs=(2,))
_add("bwd_dv_transposed_p", bwd_dv_transposed_p,
     [((2, 192, 64), F16), ((2, 192, 64), F16), ((2, 192, 64), F16), ((2, 192), F32), ((2, 192, 64), F32),
      0.125, False, 64, 64, 64], (3, 2), "chained", outputs=(4,),
     notes="found by this set: refused as 'the first dot's A must be a [tm, K] tile loaded once before the loop'; "
           "tileas-transpose-computed-operand computes the chain transposed (P^T = exp2(K Q^T c - m^T))")
_add("bwd_dv_transposed_p_causal_bf16", bwd_dv_transposed_p,
     [((2, 192, 64), BF16), ((2, 192, 64), BF16), ((2, 192, 64), BF16), ((2, 192), F32), ((2, 192, 64), F32),
      0.125, True, 64, 64, 64], (3, 2), "chained", outputs=(4,))
_add("bwd_dkdv_atomic_dq", bwd_dkdv_atomic_dq,
     _bwd_spec(2, 128, 64, F16, (F16, F16, F32)) + [0.125, 64, 64, 64], (2, 2), "simt", outputs=(6, 7, 8),
     error="the first dot's A must be a [tm, K] tile loaded once before the loop",
     notes="refused as '5 dots in one K loop that do not read the same A tile: 3 of them' until session 23; the "
           "chain feeding three accumulators (dV, dK, dQ) now reaches the chained analysis, whose first dot here "
           "reads Q tiles of the loop as its A (S = Q K^T: a computed transpose), and dQ leaves by atomic_add")

_add("paged_gqa_item", paged_gqa_item,
     [((2, 64, 64), F16), ((10, 4, 64, 64), F16), ((10, 4, 64, 64), F16), ((2, 5), I32), ((2,), I32),
      ((2, 64, 64), F16), _S64, 16, 64, 64], (4, 2), "chained", outputs=(5,))
_add("paged_prefill_causal", paged_prefill_causal,
     [((2, 2, 100, 64), F16), ((12, 64, 2, 64), F16), ((12, 64, 2, 64), F16), ((2, 6), I32),
      ((2, 2, 100, 64), F16), _S64, 150, 64, 64, 64], (2, 2, 2), "chained", outputs=(4,))
_add("varlen_cu_seqlens_sliced", varlen_cu_seqlens_sliced,
     [((300, 2, 64), F16), ((400, 2, 64), F16), ((400, 2, 64), F16), ((4,), I32), ((4,), I32), ((300, 2, 64), F16),
      _S64, 64, 64, 64], (3, 2, 3), "simt", outputs=(5,), error="slice")
_add("varlen_cu_seqlens_tiles", varlen_cu_seqlens_tiles,
     [((2, 384, 64), F16), ((2, 384, 64), F16), ((2, 384, 64), F16), ((4,), I32), ((4,), I32), ((2, 384, 64), F16),
      _S64, 2, 64, 64, 64], (3, 2, 3), "chained", outputs=(5,))
_add("split_kv_partials", split_kv_partials,
     [((2, 64, 64), F16), ((2, 4, 500, 64), F16), ((2, 4, 500, 64), F16), ((2, 4, 4, 16, 64), F32),
      ((2, 4, 4, 16), F32), _S64, 2, 16, 64, 64], (4, 4, 2), "chained", outputs=(3, 4))
_add("split_kv_combine", split_kv_combine,
     [((2, 4, 4, 16, 64), F32), ((2, 4, 4, 16), F32), ((2, 64, 64), F16), 4, 16, 64], (4, 2), "simt", outputs=(2,))
_add("mla_latent_cache", mla_latent_cache,
     [((4, 192, 192), F16), ((2, 192, 192), F16), ((4, 192, 128), F16), LOG2E / math.sqrt(192), 64, 64, 256, 128],
     (3, 4), "chained", outputs=(2,))
_add("document_mask_ranges", document_mask_ranges,
     [((4, 256, 64), F16), ((4, 256, 64), F16), ((4, 256, 64), F16), ((2, 256), I32), ((2, 4), I32), ((2, 4), I32),
      ((4, 256, 64), F16), _S64, 64, 64, 64], (4, 4), "chained", outputs=(6,))
_add("prefix_lm_segments_causal", prefix_lm_segments_causal,
     [((4, 256, 64), F16), ((4, 256, 64), F16), ((4, 256, 64), F16), ((2, 256), I32), ((4, 256, 64), F16), _S64, 100,
      64, 64, 64], (4, 4), "chained", outputs=(4,))
_add("while_and_condition", while_and_condition,
     [((2, 128, 64), F16), ((2, 256, 64), F16), ((2, 256, 64), F16), ((2, 128, 64), F16), _S64, 150, 64, 64, 64],
     (2, 2), "chained", outputs=(3,),
     notes="found by this set: refused as 'this dot is in a while loop'; tileas-while-to-for folds cuTile's "
           "short-circuit 'and' and runs the loop to the least of the bounds")
_add("while_true_break_last", while_true_break_last,
     [((2, 192, 64), F16), ((2, 192, 64), F16), ((2, 192, 64), F16), ((2, 192, 64), F16), _S64, 64, 64, 64],
     (3, 2), "chained", outputs=(3,),
     notes="found by this set: refused as 'this dot is in a while loop'; tileas-while-to-for runs the do-while "
           "(body, step, then the break) as range(j0, max(n, j0 + step))")
_add("while_runtime_step", while_runtime_step,
     [((2, 128, 64), F16), ((2, 300, 64), F16), ((2, 300, 64), F16), ((2, 128, 64), F16), _S64, 2, 64, 64, 64],
     (2, 2), "simt", outputs=(3,), error="while")
