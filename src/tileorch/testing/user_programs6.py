"""The sixth user sweep (session 14): cuTile 1.7 programs in shapes the first five sweeps
(:mod:`tileorch.testing.user_programs` .. ``user_programs5``) do not have, weighted toward what
issue 20's and 21's acceptance is likely to run: attention-shaped and two-dot programs.

Attention: ``[B, H, S, D]`` on a three-axis grid (query tile, head, batch) with causal 128 x 64
tiles in two loops at head dim 128, a causal sliding window with attention-sink keys, a bf16 bias
tile read from memory over ragged keys, bf16 soft-capping at head dim 128, GQA with a KV group's
query heads packed into one tile, cross attention whose ragged last key tile is peeled after the
loop, split-KV decoding (partial O and LSE per split, a combine program), head dim 512, a
compile-time scale with natural exp, a natural-log LSE beside O in bf16, a V head dim below the
QK head dim, K stored ``[BH, D, S]``, document (segment id) masks, a prefix-LM mask, per-row
temperatures, causal linear attention (no softmax), bf16 causal at head dim 256, a bool mask
tensor, a KV-cache length passed at launch, ``[B, S, H, D]`` bf16 on a three-axis grid, and the
backward's dV (``P^T dO``: the first dot's result transposed into the second), 16-row GQA decoding,
QK-norm, Triton's ``range(0, Sk, BN)`` key loop with the scale after the max, K^T by load order,
32-key tiles, 1-D row state with a flat LSE, a causal mask from ``ct.greater_equal``, the Triton
tutorial's two causal stages (a helper called twice; 128 x 64 and 64 x 128 tiles), a persistent
(head, query tile) loop, V loaded before K on a swapped grid, a mask under ``if j == n - 1``, FA2's
M and L side outputs, a peeled last key tile whose updated max the LSE reads, head dims 80 (padded
to 128) and 8, 256-row query tiles.

Two dots and GEMMs: an MLP whose up projection has its own K loop nested in the hidden loop, a
GEMM with a row-softmax epilogue over ragged columns, a batch on the middle axis of A, uint8 x
int8 (cuTile refuses e4m3 x e5m2 itself), two outputs from two accumulators sharing A, split-K by
strided K tiles into an atomic add over ragged edges, a fused LoRA (base GEMM and the down
projection in one K loop, the up projection after it), both operands transposed by load order, a
batched GEMM the GPU test runs on a strided batch (a ``transpose(0, 1)`` view), an MLP with a
512-wide X tile.

Found by this sweep (the entries' ``notes``): the Triton tutorial's two-stage causal attention and
a ragged last key tile peeled after the loop were refused (now fused into one loop by
tileas-fuse-split-loops and run on the chained tier); refusals in the tier's terms instead of the
user's (a chain's dot before or after its loop, an MLP's K loop nested in the hidden loop, a
16-row or 8-deep tile's MMA atom) now name the reason at the dot or loop; the GEMM emulation
harness mapped an M-major A wrongly (a test-harness bug).  Lifted in session 15 (now on the chained tier):
GQA heads packed into one ``(1, G, BM, D)`` tile (one TMA box of G x BM rows), 8-, 16- and 32-row
decode tiles (the WGMMA's M padded to 64; ``attn_decode_gqa_rows4``: session 16), a peeled first
(sink) key step (the loop's first iteration: tileas-fuse-split-loops), QK-norm (rowwise prologues
applied in place to Q and to each K tile in shared memory), a persistent attention work loop (the
chained tier's persistent kernel).  Still refused by the tiers, with the
reason at the user's line (the SIMT path runs them): learned sink K/V arrays before the loop
(``attn_learned_sink_kv``), the backward's ``P^T`` as a dot operand, a nested-K MLP, a batch on A's
middle axis, a LoRA up projection after the loop, head dims 512 and 8, 256-row query tiles with
128-wide key tiles (256 x 64 runs on the chained tier since session 17: four consumer warp groups), a
512-wide X tile.

Reductions and normalisations: Gemma's RMSNorm (``1 + w``) in bf16 over a padded ragged row,
a two-pass chunked log-softmax, column argmax over row chunks with ties, row cumsums over column
chunks, a softmax under a bool mask with a fully masked row, layer norm f16 -> bf16 with its
statistics, log-cumsum-exp, int8 sums of squares, a masked mean pool.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep6_*.py (CPU compile, the SIMT interpreter, the PTX emulator) and
tests/gpu/test_user_sweep6_gpu.py (the H200 against torch).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, ZERO, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

MASKED = -1.0e30  # a finite "minus infinity"
NEG_INF = -math.inf


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_bhsd_grid3_causal_d128(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                                D: ct.Constant[int]):
    """``[B, H, S, D]`` with (query tile, head, batch) = ``bid(0), bid(1), bid(2)``; causal with
    128-row query tiles and 64-key tiles in two loops (the key tiles wholly below the diagonal
    unmasked, then the two diagonal tiles masked); head dim 128, exp2."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    full = (qt * BM) // BN
    for j in range(full):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    for j in range(full, ((qt + 1) * BM) // BN):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qi, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, h, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_sink_window(Q, K, V, O, qk_scale: float, W: ct.Constant[int], SINK: ct.Constant[int],
                     BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """StreamingLLM: causal, query ``i`` sees keys ``i - W < k <= i`` and the first ``SINK`` keys.
    Key tile 0 first (sink or window), then the window's tiles from ``max(1, (qt BM - W + 1) // BN)``;
    the mask with the finite minimum."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    k0 = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D)).reshape((BN, D))
    s = ct.mma(q, ct.transpose(k0), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
    kj = ct.arange(BN, dtype=ct.int32)[None, :]
    s = ct.where((kj <= qi) & ((kj < SINK) | (kj > qi - W)), s, MASKED)
    m = ct.max(s, axis=1, keepdims=True)
    p = ct.exp2(s - m)
    den = ct.sum(p, axis=1, keepdims=True)
    o = ct.mma(p.astype(V.dtype), ct.load(V, index=(bh, 0, 0), shape=(1, BN, D)).reshape((BN, D)),
               ct.zeros((BM, D), dtype=ct.float32))
    for j in range(max(1, (qt * BM - W + 1) // BN), ((qt + 1) * BM - 1) // BN + 1):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kj = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kj <= qi) & (kj > qi - W), s, MASKED)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_learned_sink_kv(Q, K, V, KS, VS, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """Learned sink keys and values (their own ``[BH, BN, D]`` arrays) computed before the key loop:
    the step's loads read other arrays than the loop's (session 44: still the loop's first iteration,
    each of its tiles read from its own array there)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    ks = ct.load(KS, index=(bh, 0, 0), shape=(1, BN, D)).reshape((BN, D))
    s = ct.mma(q, ct.transpose(ks), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
    m = ct.max(s, axis=1, keepdims=True)
    p = ct.exp2(s - m)
    den = ct.sum(p, axis=1, keepdims=True)
    o = ct.mma(p.astype(V.dtype), ct.load(VS, index=(bh, 0, 0), shape=(1, BN, D)).reshape((BN, D)),
               ct.zeros((BM, D), dtype=ct.float32))
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bias_bf16_ragged_keys(Q, K, V, Bias, O, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                               D: ct.Constant[int]):
    """bf16 Q/K/V and an additive bf16 bias ``[BH, Sq, Sk]`` read per (query, key) tile, ``Sk``
    ragged (the last key tile's padded keys masked by ``k < K.shape[1]``), natural exp."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    sk = K.shape[1]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(sk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        bias = ct.load(Bias, index=(bh, qt, j), shape=(1, BM, BN), padding_mode=ZERO).reshape((BM, BN))
        s = s + bias.astype(ct.float32)
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < sk, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_softcap_bf16_d128(Q, K, V, O, scale: float, cap: float, BM: ct.Constant[int], BN: ct.Constant[int],
                           D: ct.Constant[int]):
    """Gemma-2 soft-capping in bf16 at head dim 128: ``cap * tanh(s * scale / cap)``, then exp2 of
    the capped logits times log2(e)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = ct.tanh(s * (scale / cap)) * (cap * LOG2E)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_gqa_packed_heads(Q, K, V, O, qk_scale: float, G: ct.Constant[int], BM: ct.Constant[int],
                          BN: ct.Constant[int], D: ct.Constant[int]):
    """GQA with a KV group's ``G`` query heads packed into one ``(G * BM, D)`` tile: Q / O
    ``[B, H, S, D]``, K / V ``[B, HKV, S, D]`` with ``H = G * HKV``; program ``(qt, b * HKV + g)``
    loads the ``(1, G, BM, D)`` block ``g`` of axis 1 (query heads ``g G .. g G + G - 1``)."""
    qt, bg = ct.bid(0), ct.bid(1)
    hkv = K.shape[1]
    b, g = bg // hkv, bg % hkv
    q = ct.load(Q, index=(b, g, qt, 0), shape=(1, G, BM, D)).reshape((G * BM, D))
    m = ct.full((G * BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((G * BM, 1), dtype=ct.float32)
    o = ct.zeros((G * BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, g, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((G * BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, g, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, g, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, G, BM, D)))


@ct.kernel
def attn_gqa_packed_causal(Q, K, V, O, qk_scale: float, G: ct.Constant[int], BM: ct.Constant[int],
                           BN: ct.Constant[int], D: ct.Constant[int]):
    """GQA's packed ``(1, G, BM, D)`` query tile with a causal mask: each packed row's query
    position is its row in the head's tile (``arange(BM)`` over the group, reshaped with the rows),
    key tiles up to the diagonal."""
    qt, bg = ct.bid(0), ct.bid(1)
    hkv = K.shape[1]
    b, g = bg // hkv, bg % hkv
    q = ct.load(Q, index=(b, g, qt, 0), shape=(1, G, BM, D)).reshape((G * BM, D))
    qi = ct.reshape(ct.broadcast_to((qt * BM + ct.arange(BM, dtype=ct.int32))[None, :], (G, BM)), (G * BM, 1))
    m = ct.full((G * BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((G * BM, 1), dtype=ct.float32)
    o = ct.zeros((G * BM, D), dtype=ct.float32)
    for j in range(((qt + 1) * BM + BN - 1) // BN):
        k = ct.load(K, index=(b, g, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((G * BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qi, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, g, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, g, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, G, BM, D)))


@ct.kernel
def attn_cross_peeled_last_tile(Q, K, V, O, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                                D: ct.Constant[int]):
    """Cross attention, ``Sq = 100``, ``Sk = 170``: the whole key tiles in the loop without a mask,
    the ragged last tile peeled after it and masked (``-inf``), natural exp.  (``math.sqrt(D)`` in
    the kernel is refused by cuTile itself: the scale is an argument.)"""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    sk = K.shape[1]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    whole = sk // BN
    for j in range(whole):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    k = ct.load(K, index=(bh, whole, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
    s = ct.where((whole * BN + ct.arange(BN, dtype=ct.int32))[None, :] < sk, s, -math.inf)
    m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
    p = ct.exp(s - m2)
    c = ct.exp(m - m2)
    den = den * c + ct.sum(p, axis=1, keepdims=True)
    v = ct.load(V, index=(bh, whole, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    o = ct.mma(p.astype(V.dtype), v, o * c)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_decode_split_kv(Q, K, V, OP, LP, qk_scale: float, CH: ct.Constant[int], BM: ct.Constant[int],
                         BN: ct.Constant[int], D: ct.Constant[int]):
    """Flash decoding, the split step: program ``(split, bh)`` attends the ``Sq = 8`` query rows
    (a 64-row tile, zero padded) to keys ``[split CH, (split + 1) CH)`` and writes the unnormalised
    partial O (``OP [NS, BH, Sq, D]``, f32) and the split's LSE (``LP [NS, BH, Sq]``, log2 units)."""
    sp, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    per = CH // BN
    for j in range(sp * per, sp * per + per):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(OP, index=(sp, bh, 0, 0), tile=(o / den).reshape((1, 1, BM, D)))
    ct.store(LP, index=(sp, bh, 0), tile=(m + ct.log2(den)).reshape((1, 1, BM)))


@ct.kernel
def attn_decode_combine(OP, LP, O, NS: ct.Constant[int], SQ: ct.Constant[int], D: ct.Constant[int]):
    """Flash decoding, the combine step: per bh the splits' partial outputs weighted by
    ``exp2(lse_s - max lse)`` and normalised (``(NS, SQ, D)`` tiles), f16 out."""
    bh = ct.bid(0)
    op = ct.load(OP, index=(0, bh, 0, 0), shape=(NS, 1, SQ, D)).reshape((NS, SQ, D))
    lp = ct.load(LP, index=(0, bh, 0), shape=(NS, 1, SQ)).reshape((NS, SQ, 1))
    mx = ct.max(lp, axis=0, keepdims=True)
    w = ct.exp2(lp - mx)
    out = ct.sum(op * w, axis=0) / ct.sum(w, axis=0)
    ct.store(O, index=(bh, 0, 0), tile=out.astype(O.dtype).reshape((1, SQ, D)))


@ct.kernel
def attn_head512(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Head dim 512 (a 64 x 512 f32 O accumulator: 128 KiB), f16, exp2."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_const_scale_exp(Q, K, V, O, SCALE: ct.Constant[float], BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """The scale a compile-time ``float`` constant, natural ``ct.exp``, 64-row query tiles against
    128-key tiles."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * SCALE
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_lse_natural_bf16(Q, K, V, O, L, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                          D: ct.Constant[int]):
    """bf16 at head dim 128, natural exp; beside O the natural-log LSE ``m + log(l)`` into
    ``L [BH, S]`` (a 1-D tile of the row vector)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))
    ct.store(L, index=(bh, qt), tile=(m + ct.log(den)).reshape((1, BM)))


@ct.kernel
def attn_dv_below_dqk(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                      DK: ct.Constant[int], DV: ct.Constant[int]):
    """Q / K head dim 128, V / O head dim 64 (MLA-like): the two dots of different widths."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DK)).reshape((BM, DK))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, DV), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, DK))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DK)).reshape((BN, DK))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DV)).reshape((BN, DV))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, DV)))


@ct.kernel
def attn_k_dmajor(Q, KT, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """K stored ``[BH, D, S]`` (a KV cache laid out key-minor): the ``(D, BN)`` tile is the first
    dot's B operand as loaded, no transpose."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(KT, axis=2, shape=(1, D, BN))):
        kt = ct.load(KT, index=(bh, 0, j), shape=(1, D, BN)).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_segment_ids_causal(Q, K, V, Seg, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                            D: ct.Constant[int]):
    """Packed documents: ``Seg [B, S]`` int32 document ids; query ``i`` sees key ``k`` when
    ``k <= i`` and ``Seg[k] == Seg[i]`` (the key loop up to the diagonal).  Masked scores take the
    finite minimum: a key tile wholly outside a row's document (every tile before the document's
    first) would give ``exp2(-inf - -inf)`` = NaN with ``-inf`` (found writing this sweep: the
    program's bug, the compiler's NaN was right)."""
    qt, b = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(b, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    sq = ct.load(Seg, index=(b, qt), shape=(1, BM)).reshape((BM, 1))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(qt + 1):
        k = ct.load(K, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        skey = ct.load(Seg, index=(b, j), shape=(1, BN))
        keep = ((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qi) & (skey == sq)
        s = ct.where(keep, s, MASKED)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_prefix_lm(Q, K, V, O, qk_scale: float, prefix: int, BM: ct.Constant[int], BN: ct.Constant[int],
                   D: ct.Constant[int]):
    """Prefix-LM: the first ``prefix`` keys (a launch-time ``int``) are seen by every query, the
    rest causally; the key loop to ``max(qt + 1, cdiv(prefix, BN))``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(max(qt + 1, ct.cdiv(prefix, BN))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kj = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kj < prefix) | (kj <= qi), s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_row_temperature(Q, K, V, T, O, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """A per-query temperature ``T [BH, S]`` (f32, log2 units folded in by the caller): the scores
    of row ``i`` scaled by ``T[i]`` (a ``(BM, 1)`` column loaded once)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    t = ct.load(T, index=(bh, qt), shape=(1, BM)).reshape((BM, 1))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * t
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def linear_attn_causal(Q, K, V, O, scale: float, BM: ct.Constant[int], D: ct.Constant[int]):
    """Causal linear attention without softmax: ``O = (mask * (Q K^T) * scale) V`` tile by tile, the
    masked score tile cast to f16 as the second dot's A operand (no max, no normaliser)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(qt + 1):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BM), dtype=ct.float32)) * scale
        s = ct.where((j * BM + ct.arange(BM, dtype=ct.int32))[None, :] <= qi, s, 0.0)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        o = ct.mma(s.astype(V.dtype), v, o)
    ct.store(O, index=(bh, qt, 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bf16_causal_d256(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], D: ct.Constant[int]):
    """bf16 causal at head dim 256 with 64 x 64 tiles: every visited tile masked (the mask is true
    below the diagonal), the loop to the diagonal tile."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(qt + 1):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BM), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BM + ct.arange(BM, dtype=ct.int32))[None, :] <= qi, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bool_mask_tensor(Q, K, V, Mask, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                          D: ct.Constant[int]):
    """An arbitrary bool mask ``[B, Sq, Sk]`` read per (query, key) tile; masked scores the finite
    minimum (a tile wholly masked for a row adds ``exp2(MASKED - m)``, zero once a kept key is seen)."""
    qt, b = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(b, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), MASKED, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        keep = ct.load(Mask, index=(b, qt, j), shape=(1, BM, BN)).reshape((BM, BN))
        s = ct.where(keep, s, MASKED)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_kv_cache_len(Q, K, V, O, qk_scale: float, kv_len: int, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """A KV cache longer than its filled part: the valid length ``kv_len`` a launch-time ``int``; the
    loop over ``cdiv(kv_len, BN)`` tiles, keys at or past ``kv_len`` masked in the last one."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(kv_len, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < kv_len, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bshd_grid3_bf16(Q, K, V, O, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """``[B, S, H, D]`` bf16 (the layout of most checkpoints) with (query tile, head, batch) on the
    three grid axes: ``(1, BM, 1, D)`` tiles, natural exp with the scale a float argument."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, 1, D))):
        k = ct.load(K, index=(b, j, h, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, h, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, qt, h, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def attn_bwd_dv(Q, K, dO, LSE, dV, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                D: ct.Constant[int]):
    """FlashAttention backward, dV only: program ``(kt, bh)`` loops over the query tiles,
    ``P = exp2(Q K^T * scale - lse)`` (LSE ``[BH, S]`` in log2 units) and ``dV += P^T dO``: the first
    dot's result transposed into the second's A operand."""
    kt, bh = ct.bid(0), ct.bid(1)
    k = ct.load(K, index=(bh, kt, 0), shape=(1, BN, D)).reshape((BN, D))
    dv = ct.zeros((BN, D), dtype=ct.float32)
    for i in range(ct.num_tiles(Q, axis=1, shape=(1, BM, D))):
        q = ct.load(Q, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        lse = ct.load(LSE, index=(bh, i), shape=(1, BM)).reshape((BM, 1))
        p = ct.exp2(s - lse)
        do = ct.load(dO, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        dv = ct.mma(ct.transpose(p.astype(dO.dtype)), do, dv)
    ct.store(dV, index=(bh, kt, 0), tile=dv.reshape((1, BN, D)))


@ct.kernel
def attn_decode_gqa_rows(Q, K, V, O, qk_scale: float, G: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """Decoding with GQA: one new token, Q / O ``[B, H, D]``; program ``b * HKV + g`` takes the
    ``G = 16`` query heads of KV head ``g`` as the rows of a ``(G, D)`` tile against the
    ``[B, HKV, S, D]`` cache (16 rows: below a WGMMA's 64)."""
    bg = ct.bid(0)
    hkv = K.shape[1]
    b, g = bg // hkv, bg % hkv
    q = ct.load(Q, index=(b, g, 0), shape=(1, G, D)).reshape((G, D))
    m = ct.full((G, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((G, 1), dtype=ct.float32)
    o = ct.zeros((G, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, g, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((G, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, g, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, g, 0), tile=(o / den).astype(O.dtype).reshape((1, G, D)))


@ct.kernel
def attn_qk_norm(Q, K, V, WQ, WK, O, qk_scale: float, eps: float, BM: ct.Constant[int], BN: ct.Constant[int],
                 D: ct.Constant[int]):
    """QK-norm (Qwen3, OLMo-2): q and each key tile RMS-normalised over the head dim with their
    weights before the scores (the K operand computed in the loop, not loaded), exp2."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D)).astype(ct.float32)
    q = q * ct.rsqrt(ct.sum(q * q, axis=1, keepdims=True) / D + eps) * ct.load(WQ, index=(0,), shape=(D,))[None, :]
    q = q.astype(Q.dtype)
    wk = ct.load(WK, index=(0,), shape=(D,))[None, :]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D)).astype(ct.float32)
        k = (k * ct.rsqrt(ct.sum(k * k, axis=1, keepdims=True) / D + eps) * wk).astype(K.dtype)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_range_step_bn(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Triton's loop form: ``for start in range(0, Sk, BN)`` over key positions, the tile index
    ``start // BN``; the scale folded in after the max (``exp2(s * scale - m)``, FA2 / Triton) and
    the output normalised by a reciprocal multiply."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for start in range(0, K.shape[1], BN):
        k = ct.load(K, index=(bh, start // BN, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, start // BN, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o * (1.0 / den)).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_k_order_load(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """K^T read by the load itself: a ``(1, D, BN)`` tile of ``[BH, S, D]`` with ``order=(0, 2, 1)``,
    the first dot's B as loaded (no ``ct.transpose``)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        kt = ct.load(K, index=(bh, 0, j), shape=(1, D, BN), order=(0, 2, 1)).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def mlp_x_once_d512(X, W1, W2, Y, TM: ct.Constant[int], TH: ct.Constant[int], D: ct.Constant[int],
                    DO: ct.Constant[int]):
    """A ReLU MLP with X ``(64, 512)`` loaded once (model dim 512) and the hidden loop over 64-wide
    W1 / W2 tiles: the first dot's operands wider than one 256-element TMA box."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(TM, D))
    y = ct.zeros((TM, DO), dtype=ct.float32)
    for t in range(ct.num_tiles(W1, axis=1, shape=(D, TH))):
        h = ct.mma(x, ct.load(W1, index=(0, t), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        g = ct.maximum(h, 0.0)
        y = ct.mma(g.astype(X.dtype), ct.load(W2, index=(t, 0), shape=(TH, DO)), y)
    ct.store(Y, index=(i, 0), tile=y.astype(Y.dtype))


@ct.kernel
def attn_bn32(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """32-key tiles (a narrow score tile: ``N = 32`` WGMMAs) against 128-row query tiles."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_lse_flat(Q, K, V, O, L, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Row state as 1-D ``(BM,)`` tiles broadcast by ``[:, None]``; the LSE (log2) stored into a flat
    ``L [BH * S]`` at tile ``bh * (S / BM) + qt`` computed from ``Q.shape``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM,), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM,), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1))
        p = ct.exp2(s - m2[:, None])
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c[:, None])
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den[:, None]).astype(O.dtype).reshape((1, BM, D)))
    nq = Q.shape[1] // BM
    ct.store(L, index=(bh * nq + qt,), tile=m + ct.log2(den))


@ct.kernel
def attn_causal_greater_equal(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], D: ct.Constant[int]):
    """Causal with the mask from ``ct.greater_equal(offs_m[:, None], offs_n[None, :])`` on 1-D offset
    vectors (Triton's ``offs_m`` / ``offs_n``), ``range(0, qt + 1)``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    offs_m = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(0, qt + 1):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BM), dtype=ct.float32)) * qk_scale
        offs_n = j * BM + ct.arange(BM, dtype=ct.int32)
        s = ct.where(ct.greater_equal(offs_m[:, None], offs_n[None, :]), s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


def _stage(q, K, V, bh, m, den, o, qk_scale, lo, hi, qt, STAGE: int, BM: int, BN: int, D: int):
    """One stage of the Triton tutorial's ``_attn_fwd_inner`` (STAGE 1: off-diagonal, 2: diagonal)."""
    for j in range(lo, hi):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        if STAGE == 2:
            offs_n = j * BN + ct.arange(BN, dtype=ct.int32)
            keep = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None] >= offs_n[None, :]
            s = s * qk_scale + ct.where(keep, 0.0, -1.0e6)
            m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
            s = s - m2
        else:
            m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True) * qk_scale)
            s = s * qk_scale - m2
        p = ct.exp2(s)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    return m, den, o


@ct.kernel
def attn_triton_stages(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """The Triton tutorial's causal forward: one helper ``_stage`` called for the key tiles below the
    diagonal (STAGE 1: the scale applied after the max, ``exp2(s * scale - m)``) and for the diagonal
    ones (STAGE 2: a ``-1e6`` mask added to the scaled scores before the max), ``l`` starting at 1."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.full((BM, 1), 1.0, dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    m, den, o = _stage(q, K, V, bh, m, den, o, qk_scale, 0, qt * BM // BN, qt, 1, BM, BN, D)
    m, den, o = _stage(q, K, V, bh, m, den, o, qk_scale, qt * BM // BN, (qt + 1) * BM // BN, qt, 2, BM, BN,
                       D)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_persistent(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Persistent attention: ``range(bid(0), B H * Sq / BM, num_blocks(0))`` over (head, query tile)
    work items, the key loop nested inside."""
    nq = ct.cdiv(Q.shape[1], BM)
    total = nq * Q.shape[0]
    for t in range(ct.bid(0), total, ct.num_blocks(0)):
        bh, qt = t // nq, t % nq
        q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
        m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
        den = ct.zeros((BM, 1), dtype=ct.float32)
        o = ct.zeros((BM, D), dtype=ct.float32)
        for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
            k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
            s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
            m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
            p = ct.exp2(s - m2)
            c = ct.exp2(m - m2)
            den = den * c + ct.sum(p, axis=1, keepdims=True)
            v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
            o = ct.mma(p.astype(V.dtype), v, o * c)
            m = m2
        ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_swapped_grid_v_first(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                              D: ct.Constant[int]):
    """(head, query tile) on grid axes 0 and 1 (swapped), V loaded before K in the body, ``o = o * c``
    as its own statement before the second dot, ``l`` starting at 1."""
    bh, qt = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.full((BM, 1), 1.0, dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        o = o * c
        o = ct.mma(p.astype(V.dtype), v, o)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_if_last_tile(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Ragged keys (200 of 256) masked under ``if j == n - 1`` inside the loop (only the last key tile
    pays for the mask), zero-padded K / V loads."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    sk = K.shape[1]
    n = ct.cdiv(sk, BN)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(n):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        if j == n - 1:
            s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < sk, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_m_and_l_out(Q, K, V, O, M, L, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                     D: ct.Constant[int]):
    """FA2's side outputs: the running max ``M`` and the normaliser ``L`` (``[BH, S]`` each, from the
    ``(BM, 1)`` state) beside O."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))
    ct.store(M, index=(bh, qt), tile=m.reshape((1, BM)))
    ct.store(L, index=(bh, qt), tile=den.reshape((1, BM)))


@ct.kernel
def attn_triton_stages_bm64_bn128(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                                  D: ct.Constant[int]):
    """The Triton tutorial's two stages with 64-row query tiles against 128-key tiles: stage 2 runs
    to ``cdiv((qt + 1) BM, BN)`` (a key tile shared by two query tiles, half of it masked for one)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.full((BM, 1), 1.0, dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    m, den, o = _stage(q, K, V, bh, m, den, o, qk_scale, 0, (qt * BM) // BN, qt, 1, BM, BN, D)
    m, den, o = _stage(q, K, V, bh, m, den, o, qk_scale, (qt * BM) // BN, ct.cdiv((qt + 1) * BM, BN), qt, 2,
                       BM, BN, D)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_peeled_with_lse(Q, K, V, O, L, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """The ragged last key tile peeled after a loop to ``cdiv(Sk, BN) - 1``, the state (max included)
    updated there and the LSE (log2) stored after it from the updated max."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    sk = K.shape[1]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    last = ct.cdiv(sk, BN) - 1
    for j in range(last):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    k = ct.load(K, index=(bh, last, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
    s = ct.where((last * BN + ct.arange(BN, dtype=ct.int32))[None, :] < sk, s, -math.inf)
    m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
    p = ct.exp2(s - m2)
    c = ct.exp2(m - m2)
    den = den * c + ct.sum(p, axis=1, keepdims=True)
    v = ct.load(V, index=(bh, last, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    o = ct.mma(p.astype(V.dtype), v, o * c)
    m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))
    ct.store(L, index=(bh, qt), tile=(m + ct.log2(den)).reshape((1, BM)))


@ct.kernel
def attn_head_padded(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], DP: ct.Constant[int]):
    """A head dim that is not a power of two (80: cuTile's tiles are) in ``DP``-wide tiles, every
    load zero-padded (the padded columns add zero to the scores and are never stored); the same
    program at head dim 8 (a reduction extent below a WGMMA's 16) and with 256-row query tiles."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DP), padding_mode=ZERO).reshape((BM, DP))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, DP), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, DP))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DP), padding_mode=ZERO).reshape((BN, DP))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DP), padding_mode=ZERO).reshape((BN, DP))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, DP)))


def _qkv(q, k, dt="float16"):
    return [(q, dt), (k, dt), (k, dt)]


_S = 0.125 * LOG2E
_S128 = LOG2E / math.sqrt(128)
_add("attn_bhsd_grid3_causal_d128", attn_bhsd_grid3_causal_d128,
     _qkv((1, 2, 256, 128), (1, 2, 256, 128)) + [((1, 2, 256, 128), "float16"), _S128, 128, 64, 128], (2, 2, 1),
     "chained", outputs=(3,))
_add("attn_sink_window", attn_sink_window, _qkv((2, 384, 64), (2, 384, 64)) + [((2, 384, 64), "float16"),
                                                                               _S, 100, 4, 64, 64, 64],
     (6, 2), "chained", outputs=(3,),
     notes="found by this sweep: the peeled sink step was refused as 'the epilogue op nv_tileas.dot', then "
           "(session 14) as 'this one before the loop that holds the others'; session 15: "
           "tileas-fuse-split-loops runs the step as the loop's first iteration (peeled_first_step.py)")
_add("attn_learned_sink_kv", attn_learned_sink_kv,
     _qkv((2, 128, 64), (2, 256, 64)) + [((2, 64, 64), "float16"), ((2, 64, 64), "float16"),
                                          ((2, 128, 64), "float16"), _S, 64, 64, 64],
     (2, 2), "chained", outputs=(5,),
     notes="the step before the loop reads learned sink K/V arrays, not the loop's: refused ('this one before the "
           "loop that holds the others') until session 44; now the loop's first iteration with the step's tiles "
           "read through their own tensor maps (peeled_first_step.py, chained_dots._selected_operand)")
_add("attn_bias_bf16_ragged_keys", attn_bias_bf16_ragged_keys,
     _qkv((2, 128, 64), (2, 200, 64), "bfloat16") + [((2, 128, 200), "bfloat16"), ((2, 128, 64), "bfloat16"),
                                                     0.125, 64, 64, 64], (2, 2), "chained", outputs=(4,))
_add("attn_softcap_bf16_d128", attn_softcap_bf16_d128,
     _qkv((2, 128, 128), (2, 256, 128), "bfloat16") + [((2, 128, 128), "bfloat16"), 1 / math.sqrt(128), 20.0,
                                                       128, 64, 128], (1, 2), "chained", outputs=(3,))
_add("attn_gqa_packed_heads", attn_gqa_packed_heads,
     _qkv((2, 4, 64, 64), (2, 2, 256, 64)) + [((2, 4, 64, 64), "float16"), _S, 2, 32, 64, 64], (2, 4), "chained",
     outputs=(3,), notes="refused in session 14 ('2-D tiles (with unit dimensions elsewhere) are supported'); "
     "session 15: the (1, G, BM, D) tile is one TMA box of G x BM rows (G BM rows in shared memory), stored "
     "back at (r // BM, r % BM)")
_add("attn_gqa_packed_causal", attn_gqa_packed_causal,
     _qkv((2, 4, 128, 64), (2, 2, 128, 64)) + [((2, 4, 128, 64), "float16"), _S, 2, 32, 64, 64], (4, 4), "chained",
     outputs=(3,), notes="packed GQA heads with a causal mask: the query position reshaped with the rows")
_add("attn_gqa_packed_heads_bm16", attn_gqa_packed_heads,
     _qkv((2, 4, 64, 64), (2, 2, 256, 64)) + [((2, 4, 64, 64), "float16"), _S, 2, 16, 64, 64], (4, 4), "chained",
     outputs=(3,), notes="2 heads of 16 rows (32 rows) padded to the WGMMA's 64: the Q box takes 4 heads (the "
     "next group's, zero past the array), the padded rows never stored")
_add("attn_cross_peeled_last_tile", attn_cross_peeled_last_tile,
     _qkv((2, 100, 64), (2, 170, 64)) + [((2, 100, 64), "float16"), 0.125, 64, 64, 64], (2, 2), "chained", outputs=(3,),
     notes="found by this sweep: refused as '4 dots in one K loop that do not read the same A tile'; "
           "tileas-fuse-split-loops now takes the peeled step as the loop's last iteration")
_add("attn_decode_split_kv", attn_decode_split_kv,
     _qkv((4, 8, 64), (4, 512, 64)) + [((4, 4, 8, 64), "float32"), ((4, 4, 8), "float32"), _S, 128, 64, 64, 64],
     (4, 4), "chained", outputs=(3, 4))
_add("attn_decode_combine", attn_decode_combine, [((4, 4, 8, 64), "float32"), ((4, 4, 8), "float32"),
                                                  ((4, 8, 64), "float16"), 4, 8, 64], (4,), "simt", outputs=(2,))
_add("attn_head512", attn_head512, _qkv((1, 128, 512), (1, 128, 512)) + [((1, 128, 512), "float16"),
                                                                         LOG2E / math.sqrt(512), 64, 64, 512],
     (2, 1), "simt", outputs=(3,), error="dot extent 512: multiples of 16 up to 256 are supported")
_add("attn_const_scale_exp", attn_const_scale_exp, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), "float16"),
                                                                                       0.125, 64, 128, 64],
     (4, 2), "chained", outputs=(3,))
_add("attn_lse_natural_bf16", attn_lse_natural_bf16,
     _qkv((2, 256, 128), (2, 256, 128), "bfloat16") + [((2, 256, 128), "bfloat16"), ((2, 256), "float32"),
                                                       1 / math.sqrt(128), 128, 64, 128], (2, 2), "chained",
     outputs=(3, 4))
_add("attn_dv_below_dqk", attn_dv_below_dqk, [((2, 256, 128), "float16"), ((2, 256, 128), "float16"),
                                              ((2, 256, 64), "float16"), ((2, 256, 64), "float16"), _S128,
                                              128, 64, 128, 64], (2, 2), "chained", outputs=(3,))
_add("attn_k_dmajor", attn_k_dmajor, [((2, 256, 64), "float16"), ((2, 64, 256), "float16"),
                                      ((2, 256, 64), "float16"), ((2, 256, 64), "float16"), _S, 128, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_segment_ids_causal", attn_segment_ids_causal,
     _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256), "int32"), ((2, 256, 64), "float16"), _S, 64, 64, 64], (4, 2),
     "chained", outputs=(4,))
_add("attn_prefix_lm", attn_prefix_lm, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), "float16"), _S, 150,
                                                                           64, 64, 64], (4, 2), "chained",
     outputs=(3,))
_add("attn_row_temperature", attn_row_temperature,
     _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256), "float32"), ((2, 256, 64), "float16"), 128, 64, 64], (2, 2),
     "chained", outputs=(4,))
_add("linear_attn_causal", linear_attn_causal, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), "float32"),
                                                                                   1 / 64, 64, 64],
     (4, 2), "chained", outputs=(3,))
_add("attn_bf16_causal_d256", attn_bf16_causal_d256,
     _qkv((2, 192, 256), (2, 192, 256), "bfloat16") + [((2, 192, 256), "bfloat16"), LOG2E / 16, 64, 256], (3, 2),
     "chained", outputs=(3,))
_add("attn_bool_mask_tensor", attn_bool_mask_tensor,
     _qkv((2, 128, 64), (2, 256, 64)) + [((2, 128, 256), "bool_"), ((2, 128, 64), "float16"), _S, 64, 64, 64],
     (2, 2), "chained", outputs=(4,))
_add("attn_kv_cache_len", attn_kv_cache_len, _qkv((2, 128, 64), (2, 512, 64)) + [((2, 128, 64), "float16"), _S,
                                                                                 300, 128, 64, 64],
     (1, 2), "chained", outputs=(3,))
_add("attn_bshd_grid3_bf16", attn_bshd_grid3_bf16,
     _qkv((2, 256, 2, 64), (2, 256, 2, 64), "bfloat16") + [((2, 256, 2, 64), "bfloat16"), 0.125, 128, 64, 64],
     (2, 2, 2), "chained", outputs=(3,))
_add("attn_bwd_dv", attn_bwd_dv, [((2, 256, 64), "float16"), ((2, 256, 64), "float16"), ((2, 256, 64), "float16"),
                                  ((2, 256), "float32"), ((2, 256, 64), "float32"), _S, 64, 64, 64], (4, 2),
     "chained", outputs=(4,),
     notes="P^T as the second dot's A: refused ('the first dot's A must be a [tm, K] tile loaded once before the "
           "loop') until session 22's tileas-transpose-computed-operand computed the chain transposed (S^T = K Q^T)")

_add("attn_decode_gqa_rows", attn_decode_gqa_rows, [((2, 32, 64), "float16"), ((2, 2, 256, 64), "float16"),
                                                    ((2, 2, 256, 64), "float16"), ((2, 32, 64), "float16"), _S,
                                                    16, 64, 64], (4,), "chained", outputs=(3,),
     notes="refused in session 14 ('16 tile rows: a WGMMA takes 64 or 128'); session 15: the WGMMA's M padded "
     "to 64 (the Q box reads 64 rows), rows past 16 never stored")
_add("attn_decode_gqa_rows_spare_heads", attn_decode_gqa_rows,
     [((2, 48, 64), "float16"), ((2, 2, 256, 64), "float16"), ((2, 2, 256, 64), "float16"), ((2, 48, 64), "float16"),
      _S, 16, 64, 64], (4,), "chained", outputs=(3,),
     notes="48 query heads of which the grid's programs read 32: the heads 32..47 a padded tile's rows cover "
           "stay unwritten")
_add("attn_decode_gqa_rows8", attn_decode_gqa_rows,
     [((2, 16, 64), "float16"), ((2, 2, 256, 64), "float16"), ((2, 2, 256, 64), "float16"), ((2, 16, 64), "float16"),
      _S, 8, 64, 64], (4,), "chained", outputs=(3,),
     notes="8 query heads per KV head (Llama-2/3 70B's 64 / 8): an 8-row tile padded to the WGMMA's 64")
_add("attn_decode_gqa_rows4", attn_decode_gqa_rows,
     [((2, 8, 64), "float16"), ((2, 2, 256, 64), "float16"), ((2, 2, 256, 64), "float16"), ((2, 8, 64), "float16"),
      _S, 4, 64, 64], (4,), "chained", outputs=(3,),
     notes="4 query heads per KV head: a 4-row tile (below TMA's 8-row swizzle atom) was refused until session "
           "16; now padded to the WGMMA's 64 like the 8-row tile (the Q box reads 64 rows)")
_add("attn_decode_gqa_rows32", attn_decode_gqa_rows,
     [((2, 64, 64), "float16"), ((2, 2, 256, 64), "float16"), ((2, 2, 256, 64), "float16"), ((2, 64, 64), "float16"),
      _S, 32, 64, 64], (4,), "chained", outputs=(3,),
     notes="32 query heads per KV head (a 32-row tile padded to 64)")
_add("attn_qk_norm", attn_qk_norm, _qkv((2, 128, 64), (2, 256, 64)) + [((64,), "float32"), ((64,), "float32"),
                                                                       ((2, 128, 64), "float16"), _S, 1e-6, 64,
                                                                       64, 64], (2, 2), "chained", outputs=(5,),
     notes="refused until session 15 ('is computed from its tile by nv_tileaa.reduce'); now Q's RMS norm is applied "
           "in place to the Q tile after its load and K's to each K tile in its ring stage (row reductions over "
           "16-byte shares of a row, shfl.xor, the weights per column; fence.proxy.async and a barrier before the "
           "WGMMAs)")
_add("attn_gqa_packed_heads_g4", attn_gqa_packed_heads,
     _qkv((2, 8, 64, 64), (2, 2, 256, 64)) + [((2, 8, 64, 64), "float16"), _S, 4, 32, 64, 64], (2, 4), "chained",
     outputs=(3,), notes="4 heads of 32 rows: a 128-row packed tile, two consumer warp groups")
_add("attn_decode_gqa_rows_d128", attn_decode_gqa_rows,
     [((2, 32, 128), "float16"), ((2, 2, 256, 128), "float16"), ((2, 2, 256, 128), "float16"),
      ((2, 32, 128), "float16"), _S128, 16, 64, 128], (4,), "chained", outputs=(3,),
     notes="16-row decode tile at head dim 128 (two 64-wide boxes per row)")
_add("attn_sink_window_bm128", attn_sink_window, _qkv((2, 384, 64), (2, 384, 64)) + [((2, 384, 64), "float16"),
                                                                                     _S, 100, 4, 128, 64, 64],
     (3, 2), "chained", outputs=(3,), notes="the sink step before the loop with 128-row query tiles")
_add("attn_qk_norm_d128", attn_qk_norm, _qkv((2, 128, 128), (2, 256, 128)) + [((128,), "float32"),
                                                                              ((128,), "float32"),
                                                                              ((2, 128, 128), "float16"), _S128,
                                                                              1e-6, 64, 64, 128],
     (2, 2), "chained", outputs=(5,), notes="QK-norm at head dim 128 (two boxes per row)")
_add("attn_qk_norm_bm128", attn_qk_norm, _qkv((2, 256, 64), (2, 200, 64)) + [((64,), "float32"), ((64,), "float32"),
                                                                             ((2, 256, 64), "float16"), _S, 1e-6,
                                                                             128, 64, 64], (2, 2), "chained",
     outputs=(5,), notes="QK-norm with 128-row query tiles (two consumer warp groups: four threads per K row) "
     "over 200 keys (the last K tile's rows past the array are zero: their norm is 0 * rsqrt(eps))")
_add("attn_range_step_bn", attn_range_step_bn, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), "float16"), _S,
                                                                                   128, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_k_order_load", attn_k_order_load, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), "float16"), _S,
                                                                                 128, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("mlp_x_once_d512", mlp_x_once_d512, [((128, 512), "float16"), ((512, 256), "float16"), ((256, 128), "float16"),
                                          ((128, 128), "float16"), 64, 64, 512, 128], (2,), "simt", outputs=(3,),
     error="the contiguous extent must be 16, 32 or a multiple of 64",
     notes="a 64 x 512 X tile: wider than one TMA box; the chained tier splits the contiguous extent only up to 256")
_add("attn_bn32", attn_bn32, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), "float16"), _S, 128, 32, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_lse_flat", attn_lse_flat, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), "float16"),
                                                                         ((512,), "float32"), _S, 128, 64, 64],
     (2, 2), "chained", outputs=(3, 4))
_add("attn_causal_greater_equal", attn_causal_greater_equal, _qkv((2, 256, 64), (2, 256, 64)) + [
    ((2, 256, 64), "float16"), _S, 64, 64], (4, 2), "chained", outputs=(3,))
_add("attn_triton_stages", attn_triton_stages, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), "float16"), _S,
                                                                                   128, 64, 64],
     (2, 2), "chained", outputs=(3,),
     notes="found by this sweep: refused ('2 loops with dots one after another'): the two stages' bodies differ "
           "in more than added pure ops; tileas-fuse-split-loops now fuses bodies with the same side effects")
_add("attn_persistent", attn_persistent, _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), "float16"), _S,
                                                                             128, 64, 64],
     (2,), "chained", outputs=(3,),
     notes="refused until session 15 ('the tile is stored inside a loop around its computation'); now the work "
           "loop runs as the chained tier's persistent kernel (chained_work_loop.py: its work items the "
           "instances, their count computed in the kernel)")
_add("attn_swapped_grid_v_first", attn_swapped_grid_v_first, _qkv((2, 256, 64), (2, 256, 64)) + [
    ((2, 256, 64), "float16"), _S, 128, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_if_last_tile", attn_if_last_tile, _qkv((2, 256, 64), (2, 200, 64)) + [((2, 256, 64), "float16"), _S,
                                                                                 128, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_m_and_l_out", attn_m_and_l_out, _qkv((2, 256, 64), (2, 256, 64)) + [
    ((2, 256, 64), "float16"), ((2, 256), "float32"), ((2, 256), "float32"), _S, 128, 64, 64], (2, 2), "chained",
     outputs=(3, 4, 5))
_add("attn_triton_stages_bm64_bn128", attn_triton_stages_bm64_bn128,
     _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), "float16"), _S, 64, 128, 64], (4, 2), "chained", outputs=(3,))
_add("attn_peeled_with_lse", attn_peeled_with_lse, _qkv((2, 128, 64), (2, 300, 64)) + [
    ((2, 128, 64), "float16"), ((2, 128), "float32"), _S, 64, 64, 64], (2, 2), "chained", outputs=(3, 4))
_add("attn_head80_padded", attn_head_padded, _qkv((2, 256, 80), (2, 256, 80)) + [((2, 256, 80), "float16"), _S,
                                                                                 128, 64, 128],
     (2, 2), "chained", outputs=(3,))
_add("attn_head8", attn_head_padded, _qkv((2, 256, 8), (2, 256, 8)) + [((2, 256, 8), "float16"), _S, 128, 64, 8],
     (2, 2), "simt", outputs=(3,), error="a K tile of 8 (f16 operands) has no WGMMA shape")
_add("attn_bm256", attn_head_padded, _qkv((2, 512, 64), (2, 512, 64)) + [((2, 512, 64), "float16"), _S, 256, 64, 64],
     (2, 2), "chained", outputs=(3,), notes="256-row query tiles: four consumer warp groups of 112 registers")
_add("attn_bm256_bn128", attn_head_padded, _qkv((2, 512, 64), (2, 512, 64)) + [((2, 512, 64), "float16"), _S, 256,
                                                                              128, 64],
     (2, 2), "simt", outputs=(3,), error="tile rows 256: four consumer warp groups of 112 registers, and S, P and "
     "the carried tiles need 164")

# ----------------------------------------------------------------------------------------------- two dots and GEMMs


@ct.kernel
def mlp_nested_k_gelu(X, W1, W2, Y, TM: ct.Constant[int], TK: ct.Constant[int], TH: ct.Constant[int],
                      DO: ct.Constant[int]):
    """``Y = gelu_tanh(X W1) W2``: per hidden tile of ``TH`` the up projection runs its own K loop
    (``D / TK`` steps, nested in the hidden loop), gelu by its tanh form, then the down dot."""
    i = ct.bid(0)
    y = ct.zeros((TM, DO), dtype=ct.float32)
    for hh in range(ct.num_tiles(W1, axis=1, shape=(TK, TH))):
        h = ct.zeros((TM, TH), dtype=ct.float32)
        for k in range(ct.num_tiles(X, axis=1, shape=(TM, TK))):
            h = ct.mma(ct.load(X, index=(i, k), shape=(TM, TK)), ct.load(W1, index=(k, hh), shape=(TK, TH)), h)
        g = 0.5 * h * (1.0 + ct.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h)))
        y = ct.mma(g.astype(X.dtype), ct.load(W2, index=(hh, 0), shape=(TH, DO)), y)
    ct.store(Y, index=(i, 0), tile=y.astype(Y.dtype))


@ct.kernel
def mm_row_softmax_epilogue(A, B, C, scale: float, tm: ct.Constant[int], tn: ct.Constant[int],
                            tk: ct.Constant[int]):
    """``C = softmax(scale A @ B)`` along the rows, all ``N = 200`` columns in one 256-wide tile
    (the padded columns masked with ``-inf``), f16 out."""
    i = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)),
                     ct.load(B, index=(k, 0), shape=(tk, tn), padding_mode=ZERO), acc)
    s = ct.where(ct.arange(tn, dtype=ct.int32)[None, :] < B.shape[1], acc * scale, -math.inf)
    e = ct.exp(s - ct.max(s, axis=1, keepdims=True))
    ct.store(C, index=(i, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(C.dtype))


@ct.kernel
def mm_batch_middle_axis(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A batched GEMM whose A is ``[M, Bt, K]`` (the batch on the middle axis, a strided batch):
    ``(tm, 1, tk)`` tiles reshaped; B ``[Bt, K, N]``, C ``[Bt, M, N]``; the batch is ``bid(2)``."""
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(tm, 1, tk))):
        a = ct.load(A, index=(i, b, k), shape=(tm, 1, tk)).reshape((tm, tk))
        w = ct.load(B, index=(b, k, j), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, i, j), tile=acc.astype(C.dtype).reshape((1, tm, tn)))


@ct.kernel
def mm_u8_x_i8(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """uint8 activations times int8 weights into int32 (cuTile's one mixed-type dot; e4m3 x e5m2
    is refused by cuTile itself), stored int32."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def mm_two_outputs_shared_a(A, B1, B2, C1, C2, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Two products of one A (``A B1`` and ``A B2``, e.g. the K and V projections) in one K loop,
    stored to two outputs."""
    i, j = ct.bid(0), ct.bid(1)
    c1 = ct.zeros((tm, tn), dtype=ct.float32)
    c2 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(i, k), shape=(tm, tk))
        c1 = ct.mma(a, ct.load(B1, index=(k, j), shape=(tk, tn)), c1)
        c2 = ct.mma(a, ct.load(B2, index=(k, j), shape=(tk, tn)), c2)
    ct.store(C1, index=(i, j), tile=c1.astype(C1.dtype))
    ct.store(C2, index=(i, j), tile=c2.astype(C2.dtype))


@ct.kernel
def mm_splitk_strided_atomic(A, B, C, splits: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                             tk: ct.Constant[int]):
    """Split-K with split ``bid(2)`` taking K tiles ``z, z + splits, ...`` over f16 operands with
    ragged M, N and K (zero padding), the partial products added into a pre-zeroed f32 C by
    ``ct.atomic_add`` (the out-of-range rows and columns dropped by the bounds check)."""
    i, j, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(z, ct.cdiv(A.shape[1], tk), splits):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rows = i * tm + ct.arange(tm, dtype=ct.int32)
    cols = j * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(C, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def mm_lora_fused(X, W, LA, LB, Y, alpha: float, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int],
                  R: ct.Constant[int]):
    """A fused LoRA layer ``Y = X W + alpha (X A) B``: the base product and the rank-``R`` down
    projection ``X A`` accumulated in one K loop (two dots sharing the X tile), the up projection
    ``(X A) B`` (a second-level dot on the f16-cast result) after it."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    xa = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(i, k), shape=(tm, tk))
        acc = ct.mma(x, ct.load(W, index=(k, j), shape=(tk, tn)), acc)
        xa = ct.mma(x, ct.load(LA, index=(k, 0), shape=(tk, R)), xa)
    up = ct.mma((xa * alpha).astype(X.dtype), ct.load(LB, index=(0, j), shape=(R, tn)),
                ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(i, j), tile=(acc + up).astype(Y.dtype))


@ct.kernel
def mm_both_order_loads(AT, BT, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = AT^T @ BT^T`` with both operands read transposed by the loads themselves
    (``order=(1, 0)`` on A stored ``[K, M]`` and on B stored ``[N, K]``), ragged K (zero padding)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(AT.shape[0], tk)):
        a = ct.load(AT, index=(i, k), shape=(tm, tk), order=(1, 0), padding_mode=ZERO)
        b = ct.load(BT, index=(k, j), shape=(tk, tn), order=(1, 0), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def mm_batched_strided_batch(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A batched GEMM ``[Bt, M, K] x [Bt, K, N]`` with the batch on ``bid(2)``, written for any
    strides: the GPU test passes A as a ``transpose(0, 1)`` view of ``[M, Bt, K]`` storage (a
    strided batch, as ``x.view(M, Bt, K).transpose(0, 1)`` gives) and C as a view too."""
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(b, i, k), shape=(1, tm, tk)).reshape((tm, tk))
        w = ct.load(B, index=(b, k, j), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, i, j), tile=acc.astype(C.dtype).reshape((1, tm, tn)))


_add("mlp_nested_k_gelu", mlp_nested_k_gelu, [((128, 256), "float16"), ((256, 256), "float16"),
                                              ((256, 128), "float16"), ((128, 128), "float16"), 64, 64, 64, 128],
     (2,), "simt", outputs=(3,), error="carries on the result of a K loop nested in it",
     notes="found by this sweep: refused as 'a value computed by the warp-specialized loop or its epilogue is "
           "used outside the agents'")
_add("mm_row_softmax_epilogue", mm_row_softmax_epilogue, [((192, 128), "float16"), ((128, 200), "float16"),
                                                          ((192, 200), "float16"), 0.25, 64, 256, 64],
     (3,), "gemm", outputs=(2,))
_add("mm_batch_middle_axis", mm_batch_middle_axis, [((128, 2, 128), "float16"), ((2, 128, 256), "float16"),
                                                    ((2, 128, 256), "float16"), 128, 128, 64], (1, 2, 2), "gemm",
     outputs=(2,), notes="session 40: the tier takes A batched in its middle dimension (GemmConfig.batch_mid)")
_add("mm_u8_x_i8", mm_u8_x_i8, [((128, 256), "uint8"), ((256, 256), "int8"), ((128, 256), "int32"), 128, 128, 64],
     (1, 2), "gemm", outputs=(2,))
_add("mm_two_outputs_shared_a", mm_two_outputs_shared_a,
     [((128, 128), "float16"), ((128, 256), "float16"), ((128, 256), "float16"), ((128, 256), "float16"),
      ((128, 256), "float32"), 128, 128, 64], (1, 2), "gemm", outputs=(3, 4))
_add("mm_splitk_strided_atomic", mm_splitk_strided_atomic, [((200, 300), "float16"), ((300, 136), "float16"),
                                                            ((200, 136), "float32"), 3, 128, 128, 64], (2, 2, 3),
     "gemm", outputs=(2,))
_add("mm_both_order_loads", mm_both_order_loads, [((200, 128), "float16"), ((256, 200), "float16"),
                                                  ((128, 256), "float32"), 128, 128, 64], (1, 2), "gemm",
     outputs=(2,))
_add("mm_batched_strided_batch", mm_batched_strided_batch, [((2, 128, 128), "float16"), ((2, 128, 256), "float16"),
                                                            ((2, 128, 256), "float16"), 128, 128, 64], (1, 2, 2),
     "gemm", outputs=(2,))
_add("mm_lora_fused", mm_lora_fused, [((128, 256), "float16"), ((256, 256), "float16"), ((256, 64), "float16"),
                                      ((64, 256), "float16"), ((128, 256), "float16"), 0.5, 128, 128, 64, 64],
     (1, 2), "gemm", outputs=(4,),
     notes="found by this sweep: the up projection after the loop was refused as 'both dots must be in one loop'; "
           "since session 25 the GEMM tier's LoRA form (epilogue_dot.py: the low-rank dot beside the main one in the K "
           "loop, its product the register A of a second WGMMA after it)")


# ----------------------------------------------------------------------------------------------- reductions


@ct.kernel
def rmsnorm_gemma_bf16(X, Wt, Y, eps: float, N: ct.Constant[int]):
    """Gemma's RMSNorm on a bf16 row of 300 in a 512 tile (zero padding): ``x rsqrt(mean(x^2) + eps)
    (1 + w)`` with the f32 weight, the mean over the true width, bf16 out."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=ZERO).astype(ct.float32)
    ms = ct.sum(x * x, axis=1, keepdims=True) / X.shape[1]
    w = ct.load(Wt, index=(0,), shape=(N,), padding_mode=ZERO)
    ct.store(Y, index=(r, 0), tile=(x * ct.rsqrt(ms + eps) * (1.0 + w[None, :])).astype(ct.bfloat16))


@ct.kernel
def log_softmax_two_pass(X, Y, BC: ct.Constant[int]):
    """Log-softmax over a 700-wide f16 row in ``BC`` chunks: an online max / sum pass, then a pass
    that writes ``x - lse`` (f32 out; the tail chunk's padding ``-inf``)."""
    r = ct.bid(0)
    m = ct.full((1,), -math.inf, dtype=ct.float32)
    s = ct.zeros((1,), dtype=ct.float32)
    n = ct.num_tiles(X, axis=1, shape=(1, BC))
    for c in range(n):
        x = ct.load(X, index=(r, c), shape=(1, BC), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
        m2 = ct.maximum(m, ct.max(x, axis=1))
        s = s * ct.exp(m - m2) + ct.sum(ct.exp(x - m2[:, None]), axis=1)
        m = m2
    lse = m + ct.log(s)
    for c in range(n):
        x = ct.load(X, index=(r, c), shape=(1, BC), padding_mode=ZERO).astype(ct.float32)
        ct.store(Y, index=(r, c), tile=x - lse[:, None])


@ct.kernel
def argmax_cols_chunks_ties(X, Idx, BR: ct.Constant[int], BC: ct.Constant[int]):
    """Column argmax of an f16 ``[R, C]`` over ``BR``-row chunks (the ragged tail chunk ``-inf``
    padded): per chunk ``ct.argmax(axis=0)``, merged keeping the earlier row on a tie (strict ``>``)."""
    c = ct.bid(0)
    best = ct.full((BC,), -math.inf, dtype=ct.float32)
    idx = ct.zeros((BC,), dtype=ct.int32)
    for r in range(ct.num_tiles(X, axis=0, shape=(BR, BC))):
        x = ct.load(X, index=(r, c), shape=(BR, BC), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
        cm = ct.max(x, axis=0)
        ci = ct.argmax(x, axis=0).astype(ct.int32) + r * BR
        better = cm > best
        idx = ct.where(better, ci, idx)
        best = ct.where(better, cm, best)
    ct.store(Idx, index=(c,), tile=idx)


@ct.kernel
def cumsum_rows_chunks(X, Y, BR: ct.Constant[int], BC: ct.Constant[int]):
    """Row prefix sums of an f16 ``[R, 150]`` in ``BC``-column chunks, f32 accumulation, the row
    totals carried from chunk to chunk (a ``(BR, 1)`` column), f32 out."""
    r = ct.bid(0)
    carry = ct.zeros((BR, 1), dtype=ct.float32)
    for c in range(ct.num_tiles(X, axis=1, shape=(BR, BC))):
        x = ct.load(X, index=(r, c), shape=(BR, BC), padding_mode=ZERO).astype(ct.float32)
        y = ct.cumsum(x, axis=1) + carry
        ct.store(Y, index=(r, c), tile=y)
        carry = ct.extract(y, index=(0, BC - 1), shape=(BR, 1))


@ct.kernel
def softmax_bool_mask_rows(X, Mask, Y, N: ct.Constant[int]):
    """Softmax over the kept entries of a row (``Mask`` bool), a fully masked row all zeros (not
    NaN): the max over ``where(mask, x, -inf)``, a safe max of zero for an empty row, and the sum
    guarded by ``maximum(sum, tiny)``."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=ZERO).astype(ct.float32)
    keep = ct.load(Mask, index=(r, 0), shape=(1, N), padding_mode=ZERO)
    xs = ct.where(keep, x, -math.inf)
    mx = ct.max(xs, axis=1, keepdims=True)
    mx = ct.where(mx == -math.inf, 0.0, mx)
    e = ct.where(keep, ct.exp(xs - mx), 0.0)
    ct.store(Y, index=(r, 0), tile=e / ct.maximum(ct.sum(e, axis=1, keepdims=True), 1e-30))


@ct.kernel
def layernorm_f16_bf16_stats(X, Wt, Bs, Y, Mean, Rstd, eps: float, BR: ct.Constant[int], N: ct.Constant[int]):
    """Layer norm of ``BR`` f16 rows of width 96 (a 128 tile, zero padded, the variance over the
    true width with the padding masked), f32 weight and bias, bf16 out, mean and rstd stored."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(BR, N), padding_mode=ZERO).astype(ct.float32)
    n = X.shape[1]
    mu = ct.sum(x, axis=1, keepdims=True) / n
    d = ct.where(ct.arange(N, dtype=ct.int32)[None, :] < n, x - mu, 0.0)
    rs = ct.rsqrt(ct.sum(d * d, axis=1, keepdims=True) / n + eps)
    w = ct.load(Wt, index=(0,), shape=(N,), padding_mode=ZERO)[None, :]
    b = ct.load(Bs, index=(0,), shape=(N,), padding_mode=ZERO)[None, :]
    ct.store(Y, index=(r, 0), tile=(d * rs * w + b).astype(ct.bfloat16))
    ct.store(Mean, index=(r,), tile=mu.reshape((BR,)))
    ct.store(Rstd, index=(r,), tile=rs.reshape((BR,)))


@ct.kernel
def logcumsumexp_rows(X, Y, N: ct.Constant[int]):
    """``log(cumsum(exp(x)))`` along a row of 100 (a 128 tile), stabilised by the row max."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=ct.PaddingMode.NEG_INF)
    mx = ct.max(x, axis=1, keepdims=True)
    ct.store(Y, index=(r, 0), tile=ct.log(ct.cumsum(ct.exp(x - mx), axis=1)) + mx)


@ct.kernel
def int8_sum_squares(X, Y, BR: ct.Constant[int], N: ct.Constant[int]):
    """int8 rows of 77 (a 128 tile, zero padded): the sum of squares in int32."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(BR, N), padding_mode=ZERO).astype(ct.int32)
    ct.store(Y, index=(r,), tile=ct.sum(x * x, axis=1))


@ct.kernel
def masked_mean_pool(X, Lens, Y, S: ct.Constant[int], D: ct.Constant[int]):
    """Mean over the first ``Lens[b]`` positions of ``[B, S, D]`` bf16 (a ``(1, S, D)`` tile, the
    positions past the length masked by ``where``), f32 out ``[B, D]``."""
    b = ct.bid(0)
    n = ct.gather(Lens, b)
    x = ct.load(X, index=(b, 0, 0), shape=(1, S, D), padding_mode=ZERO).reshape((S, D)).astype(ct.float32)
    x = ct.where(ct.arange(S, dtype=ct.int32)[:, None] < n, x, 0.0)
    ct.store(Y, index=(b, 0), tile=(ct.sum(x, axis=0, keepdims=True) / n.astype(ct.float32)))


_add("rmsnorm_gemma_bf16", rmsnorm_gemma_bf16, [((5, 300), "bfloat16"), ((300,), "float32"),
                                                ((5, 300), "bfloat16"), 1e-6, 512], (5,), "simt", outputs=(2,))
_add("log_softmax_two_pass", log_softmax_two_pass, [((3, 700), "float16"), ((3, 700), "float32"), 256], (3,),
     "simt", outputs=(1,))
_add("argmax_cols_chunks_ties", argmax_cols_chunks_ties, [((50, 40), "float16"), ((40,), "int32"), 16, 32], (2,),
     "simt", outputs=(1,))
_add("cumsum_rows_chunks", cumsum_rows_chunks, [((6, 150), "float16"), ((6, 150), "float32"), 4, 64], (2,), "simt",
     outputs=(1,))
_add("softmax_bool_mask_rows", softmax_bool_mask_rows, [((4, 100), "float32"), ((4, 100), "bool_"),
                                                        ((4, 100), "float32"), 128], (4,), "simt", outputs=(2,))
_add("layernorm_f16_bf16_stats", layernorm_f16_bf16_stats,
     [((10, 96), "float16"), ((96,), "float32"), ((96,), "float32"), ((10, 96), "bfloat16"), ((10,), "float32"),
      ((10,), "float32"), 1e-5, 4, 128], (3,), "simt", outputs=(3, 4, 5))
_add("logcumsumexp_rows", logcumsumexp_rows, [((3, 100), "float32"), ((3, 100), "float32"), 128], (3,), "simt",
     outputs=(1,))
_add("int8_sum_squares", int8_sum_squares, [((9, 77), "int8"), ((9,), "int32"), 4, 128], (3,), "simt",
     outputs=(1,))
_add("masked_mean_pool", masked_mean_pool, [((3, 20, 16), "bfloat16"), ((3,), "int32"), ((3, 16), "float32"),
                                            32, 16], (3,), "simt", outputs=(2,))
