"""Session 30's attention zoo (issue 20: "acceptance runs attention-shaped programs you will not
see"): forward attention written the ways cuTile users write it and the earlier sets
(``attention_programs`` .. ``attention_programs4``, the user sweeps) do not, each combining
features those sets test one at a time or using a spelling they never use.

Heads and layouts: GQA in the sequence-major layout ``[B, S, H, D]`` for a 1000 x 777 cross
attention at head dim 96; MQA whose program loops over the query heads; K stored transposed
``[B, HKV, D, S]`` with GQA; GQA with a program per KV head (two score dots sharing K); a GQA group's
query heads as the rows of one Q tile; Q / O head-major beside a sequence-major KV cache; the fused QKV
projection's output read in place with O stored merged ``[B, S, H D]``; the heads on the grid's first
axis; the query tiles taken in reverse (heavy causal tiles first); f32 arrays cast to bf16 in the
kernel; fp8 (e4m3) operands; V twice Q's head dim with a bf16 O from f16 inputs; O stored transposed.

Masks and scores: a causal sliding window whose loop starts at the window's first tile; causal
bottom-right aligned with the offset read off the arrays' shapes; an additive f32 bias ``[H, Sq, Sk]``
broadcast over the batch; ALiBi computed from the head index in the causal, sequence-major form; a
soft cap with key padding from a per-batch length array and the natural LSE; T5's relative-position
bias gathered from a ``[H, 2R + 1]`` table by bucket; the "safe softmax" guard for rows whose tiles
are all masked (``where(m == -inf, 0, m)``); dropout from a hash of the positions; causal by a run-time
``int`` flag.

Softmax forms: two passes over the keys (the row max by ``ct.max`` first, then ``exp``, ``ct.sum``
and ``P V`` without rescaling); Triton's two-stage causal loop (the unmasked tiles below the
diagonal, then the masked diagonal tiles, one running state); Q scaled before the first dot with
natural ``exp`` at head dim 32; the log2 LSE at head dim 256; natural LSE beside a sequence-major O;
the accumulator kept normalized every step; Q loaded inside the key loop.

Found by this set: ``ct.num_blocks`` in a chained kernel without a work loop was refused ("reads the
grid size (num_blocks) in a kernel whose work tiles are not the launch grid's programs"): every chained
kernel reads the program grid now; the two-pass softmax's refusal named a GEMM remedy (it names the row
statistic and the online softmax now); the f32-array refusal says the kernel converts the tile.  Still
refused, located: the two-pass softmax, f32 arrays cast in the kernel, fp8 operands, O stored
transposed (their SIMT runs: tests/unit/test_attnzoo30_interp.py).  No program of the set computes a
wrong result on the PTX emulator.

Each entry is a :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (``path``:
what the compiler does with it; ``error``: the located refusal's text where the tensor-core tier
refuses); driven by tests/unit/test_attnzoo30_compile.py (path, located remarks),
tests/unit/test_attnzoo30_emulated.py (the chained kernels' PTX on the emulator against numpy,
NaN-prefilled outputs), tests/unit/test_attnzoo30_interp.py (the refused ones on the SIMT interpreter)
and tests/gpu/test_attnzoo30_gpu.py (torch fp32).  Importing it needs
``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.attention_programs4 import _online
from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

C = ct.Constant
ZERO = ct.PaddingMode.ZERO


def _state(rows, d):
    """The online softmax's running max (``-inf``), denominator and accumulator."""
    return (ct.full((rows, 1), -math.inf, dtype=ct.float32), ct.zeros((rows, 1), dtype=ct.float32),
            ct.zeros((rows, d), dtype=ct.float32))


def _online_exp(s, m_i, l_i, acc, v, dt):
    """One online-softmax step in natural ``exp``."""
    m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
    p = ct.exp(s - m_new)
    alpha = ct.exp(m_i - m_new)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    return m_new, l_i, ct.mma(p.astype(dt), v, acc * alpha)


# ----------------------------------------------------------------------------------------------- heads, layouts


@ct.kernel
def zoo_gqa_bshd_cross(Q, K, V, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int], D: C[int]):
    """GQA cross attention in ``[B, S, H, D]``: query head ``h`` reads KV head ``h // G``; ``Sq`` and
    ``Sk`` ragged; head dim 96 in a 128-wide zero-padded tile; grid (query tile, head, batch)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    kh = h // G
    seq_k = K.shape[1]
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq_k, BN)):
        k = ct.load(K, index=(b, j, kh, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq_k, s, -math.inf)
        v = ct.load(V, index=(b, j, kh, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def zoo_mqa_loop_over_heads(Q, K, V, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """MQA with the query heads looped in the program: program ``(qt, b)`` runs the key loop once per
    head of ``Q [B, H, S, D]`` against the batch's single K / V ``[B, S, D]``."""
    qt, b = ct.bid(0), ct.bid(1)
    for h in range(H):
        q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
        m_i, l_i, acc = _state(BM, D)
        for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
            k = ct.load(K, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
            s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
            v = ct.load(V, index=(b, j, 0), shape=(1, BN, D)).reshape((BN, D))
            m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
        ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def zoo_kt_stored_gqa(Q, KT, V, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int], D: C[int]):
    """K stored transposed ``[B, HKV, D, Sk]`` (a ``[D, BN]`` tile is the dot's B as loaded), GQA
    ``h // G`` on the grid; ragged keys masked."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq_k = KT.shape[3]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq_k, BN)):
        kt = ct.load(KT, index=(b, h // G, 0, j), shape=(1, 1, D, BN), padding_mode=ZERO).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq_k, s, -math.inf)
        v = ct.load(V, index=(b, h // G, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


def _causal_query_tile(Q, K, V, O, qk_scale, bh, qt, BM, BN, D):
    """Query tile ``qt`` of head ``bh`` of ``[BH, S, D]`` arrays, causal, the ragged sequence masked (the body
    of :func:`zoo_heads_on_axis0` and :func:`zoo_reversed_q_tiles_causal`, which differ in how they read
    ``bh`` and ``qt`` off the grid)."""
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_heads_on_axis0(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The grid transposed: ``bh = bid(0)``, the query tile ``bid(1)``; causal, ragged."""
    _causal_query_tile(Q, K, V, O, qk_scale, ct.bid(0), ct.bid(1), BM, BN, D)


@ct.kernel
def zoo_reversed_q_tiles_causal(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal with the query tiles taken last-first (``qt = num_blocks(0) - 1 - bid(0)``: the
    longest rows start first), ragged."""
    qt = ct.num_blocks(0) - 1 - ct.bid(0)
    _causal_query_tile(Q, K, V, O, qk_scale, ct.bid(1), qt, BM, BN, D)


@ct.kernel
def zoo_f32_arrays_cast_bf16(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """f32 Q / K / V cast to bf16 in the kernel before each dot; O stored f32."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D)).astype(ct.bfloat16)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D)).astype(ct.bfloat16)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D)).astype(ct.bfloat16)
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, ct.bfloat16)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).reshape((1, BM, D)))


@ct.kernel
def zoo_gqa_two_heads_per_program(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """GQA with a program per KV head (group of 2): each K / V tile read once for both query heads
    (two score dots sharing K, two online states, two ``P V`` dots sharing V); grid (query tile,
    KV head, batch)."""
    qt, kh, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q0 = ct.load(Q, index=(b, 2 * kh, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    q1 = ct.load(Q, index=(b, 2 * kh + 1, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m0, l0, acc0 = _state(BM, D)
    m1, l1, acc1 = _state(BM, D)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, kh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        v = ct.load(V, index=(b, kh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s0 = ct.mma(q0, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s1 = ct.mma(q1, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m0, l0, acc0 = _online(s0, m0, l0, acc0, v, V.dtype)
        m1, l1, acc1 = _online(s1, m1, l1, acc1, v, V.dtype)
    ct.store(O, index=(b, 2 * kh, qt, 0), tile=(acc0 / l0).astype(O.dtype).reshape((1, 1, BM, D)))
    ct.store(O, index=(b, 2 * kh + 1, qt, 0), tile=(acc1 / l1).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def zoo_fused_qkv_hidden(QKV, O, LSE, sm_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """The fused QKV projection's output ``[B, S, 3 H D]`` read in place (head ``h``'s Q at column
    tile ``h``, K at ``H + h``, V at ``2 H + h``), O stored merged ``[B, S, H D]`` for the output
    projection, the natural LSE ``[B, S, H]`` (a column of the head); natural ``exp``, ragged."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = QKV.shape[1]
    q = ct.load(QKV, index=(b, qt, h), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(QKV, index=(b, j, H + h), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        v = ct.load(QKV, index=(b, j, 2 * H + h), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, v, QKV.dtype)
    ct.store(O, index=(b, qt, h), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    ct.store(LSE, index=(b, qt, h), tile=(m_i + ct.log(l_i)).reshape((1, BM, 1)))


# ----------------------------------------------------------------------------------------------- masks, scores


@ct.kernel
def zoo_window_causal_from_lo(Q, K, V, O, qk_scale: float, W: int, BM: C[int], BN: C[int], D: C[int]):
    """Causal sliding window of ``W`` keys (``qpos - W < kpos <= qpos``): the loop starts at the
    window's first tile ``max(qt * BM - W + 1, 0) // BN`` (the tile's first row's) and ends at the
    diagonal; the masked scores a finite ``-1e30`` (a later row's first tiles are all masked: with
    ``-inf`` its max would be ``-inf`` and ``exp2(-inf - -inf)`` NaN); ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    lo = max(qt * BM - W + 1, 0) // BN
    for j in range(lo, ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos > qpos - W) & (kpos < seq), s, -1.0e30)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_causal_bottom_right_shapes(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal aligned bottom-right (``Sk > Sq``: query ``i`` sees keys ``<= i + Sk - Sq``), the offset
    read off the arrays' shapes; both ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq_k = K.shape[1]
    off = seq_k - Q.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (off + qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min(off + (qt + 1) * BM, seq_k), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_bias_heads_broadcast_batch(Q, K, V, Bias, O, sm_scale: float, H: C[int], BM: C[int], BN: C[int],
                                   D: C[int]):
    """An additive f32 bias ``[H, Sq, Sk]`` shared by the batch (``Q [B*H, Sq, D]``), read per key tile,
    natural ``exp``; ragged (the bias's padding masks nothing: the keys past ``Sk`` are masked)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq_k = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq_k, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = s + ct.load(Bias, index=(bh % H, qt, j), shape=(1, BM, BN), padding_mode=ZERO).reshape((BM, BN))
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq_k, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_alibi_causal_bshd(Q, K, V, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """Causal ALiBi (BLOOM) in ``[B, S, H, D]``: slope ``2 ** (-8 (h + 1) / H)`` from the grid's head,
    the bias ``slope * (kpos - qpos)`` in log2 units added to the scaled scores."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = K.shape[1]
    slope = ct.exp2(ct.full((1, 1), -8.0, dtype=ct.float32) * (h + 1) / H) * LOG2E
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = s + slope * (kpos - qpos).astype(ct.float32)
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        v = ct.load(V, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def zoo_softcap_lens_lse(Q, K, V, Lens, O, LSE, sm_scale: float, cap: float, H: C[int], BM: C[int], BN: C[int],
                         D: C[int]):
    """Gemma-2's soft cap ``cap * tanh(s / cap)`` with key padding from ``Lens [B]`` (the loop runs to
    the batch's length), natural ``exp``, the natural log-sum-exp stored beside O."""
    qt, bh = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, bh // H)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(n, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = ct.tanh(s / cap) * cap
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    ct.store(LSE, index=(bh, qt), tile=(m_i + ct.log(l_i)).reshape((1, BM)))


@ct.kernel
def zoo_t5_bucket_bias_gather(Q, K, V, Table, O, qk_scale: float, R: C[int], H: C[int], BM: C[int], BN: C[int],
                              D: C[int]):
    """T5-style relative-position bias: bucket ``clamp(kpos - qpos, -R, R) + R`` of the head's row of
    ``Table [H, 2R + 1]`` (f32, log2 units) gathered per score element; bidirectional, ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        bucket = ct.minimum(ct.maximum(kpos - qpos, -R), R) + R
        s = s + ct.gather(Table, (bh % H, bucket))
        s = ct.where(kpos < seq, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_window_safe_max_from_zero(Q, K, V, O, qk_scale: float, W: int, BM: C[int], BN: C[int], D: C[int]):
    """A causal window whose loop starts at key tile 0 (the early tiles of a late query tile are all
    masked): the exponent's max guarded as ``where(m == -inf, 0, m)`` (FlashAttention's safe softmax)."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (qpos - kpos < W) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        m_use = ct.where(m_new == -math.inf, 0.0, m_new)
        p = ct.exp2(s - m_use)
        alpha = ct.exp2(m_i - m_use)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_hash_dropout(Q, K, V, O, qk_scale: float, seed: int, BM: C[int], BN: C[int], D: C[int]):
    """Dropout on P from a hash of the (query, key) positions and a seed (no random array):
    ``h = 7919 q + 104729 k + seed``, dropped where ``(h ^ (h >> 5)) & 7 == 0`` (1/8), kept ``p``
    scaled by 8/7; the denominator from the undropped ``p``; ragged keys masked."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        h = qpos * 7919 + kpos * 104729 + seed
        keep = ct.bitwise_and(ct.bitwise_xor(h, ct.bitwise_rshift(h, 5)), 7) != 0
        pd = ct.where(keep, p * (8.0 / 7.0), 0.0)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(pd.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_mixed_layouts_causal(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Q and O ``[B, H, S, D]``, K and V ``[B, S, H, D]`` (a KV cache kept sequence-major); causal,
    ragged."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq = K.shape[1]
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        v = ct.load(V, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


# ----------------------------------------------------------------------------------------------- softmax forms


@ct.kernel
def zoo_two_pass_max_then_sum(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Two passes over the keys: the row max by ``ct.max`` (``Q K^T`` alone), then ``p = exp2(s - m)``,
    ``l += ct.sum(p)``, ``acc += p V`` with no rescaling; ragged keys masked."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    n = ct.cdiv(seq, BN)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    for j in range(n):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(n):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        p = ct.exp2(s - m)
        l_i = l_i + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_causal_two_stage_loops(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Triton's two-stage causal forward: the key tiles wholly below the diagonal unmasked, then the
    diagonal's tiles masked, one running state across both loops (``BM`` a multiple of ``BN``)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(qt * BM // BN):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    for j in range(qt * BM // BN, (qt + 1) * BM // BN):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_q_prescaled_exp(Q, K, V, O, sm_scale: float, CAUSAL: C[bool], BM: C[int], BN: C[int], D: C[int]):
    """The scale applied to Q before the first dot (``(q * scale).astype(Q.dtype)``), natural ``exp``;
    causal or not, ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    q = (q.astype(ct.float32) * sm_scale).astype(Q.dtype)
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    n = ct.cdiv(min((qt + 1) * BM, seq), BN) if CAUSAL else ct.cdiv(seq, BN)
    for j in range(n):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        ok = kpos < seq
        if CAUSAL:
            ok = ok & (kpos <= qpos)
        s = ct.where(ok, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_log2_lse(Q, K, V, O, M, qk_scale: float, CAUSAL: C[bool], BM: C[int], BN: C[int], D: C[int]):
    """The textbook forward returning the log2-unit LSE ``m + log2(l)`` (what FlashAttention-2's
    backward reads) beside O; causal or not, ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    n = ct.cdiv(min((qt + 1) * BM, seq), BN) if CAUSAL else ct.cdiv(seq, BN)
    for j in range(n):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        ok = kpos < seq
        if CAUSAL:
            ok = ok & (kpos <= qpos)
        s = ct.where(ok, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    ct.store(M, index=(bh, qt), tile=(m_i + ct.log2(l_i)).reshape((1, BM)))


@ct.kernel
def zoo_lse_natural_bshd(Q, K, V, O, LSE, sm_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """``[B, S, H, D]`` arrays, natural ``exp`` on ``s * scale``, the natural LSE ``[B, H, Sq]`` stored
    beside O; ragged queries and keys."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    seq_k = K.shape[1]
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq_k, BN)):
        k = ct.load(K, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * sm_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq_k, s, -math.inf)
        v = ct.load(V, index=(b, j, h, 0), shape=(1, BN, 1, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online_exp(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, qt, h, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, 1, D)))
    ct.store(LSE, index=(b, h, qt), tile=(m_i + ct.log(l_i)).reshape((1, 1, BM)))


@ct.kernel
def zoo_q_loaded_in_loop(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The Q tile loaded inside the key loop (the same tile every step: a loop-invariant load the user
    did not hoist); ragged keys masked."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_normalized_online(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The accumulator kept normalized at every step (``acc = acc * (l alpha / l_new) + (p / l_new) V``,
    FlashAttention-1's form): no division after the loop; causal, ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(min((qt + 1) * BM, seq), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos < seq), s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_new = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma((p / l_new).astype(V.dtype), v, acc * (l_i * alpha / l_new))
        m_i, l_i = m_new, l_new
    ct.store(O, index=(bh, qt, 0), tile=acc.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_dv_wider_than_dqk(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], DQK: C[int], DV: C[int]):
    """V's head dim (128) twice Q / K's (64); O stored bf16 from f16 inputs; ragged keys masked."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DQK), padding_mode=ZERO).reshape((BM, DQK))
    m_i, l_i, acc = _state(BM, DV)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DQK), padding_mode=ZERO).reshape((BN, DQK))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DV), padding_mode=ZERO).reshape((BN, DV))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, DV)))


@ct.kernel
def zoo_gqa_group_rows_causal(Q, K, V, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int], D: C[int]):
    """GQA with the group's ``G`` query heads stacked as the rows of one ``(1, G, BM, D)`` tile of
    ``Q [B, H, S, D]`` (reshaped to ``(G BM, D)``): row ``r`` is query ``qt BM + r % BM`` of head
    ``G kh + r // BM``; causal from those positions; grid (query tile, KV head, batch)."""
    qt, kh, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, kh, qt, 0), shape=(1, G, BM, D)).reshape((G * BM, D))
    qpos = (qt * BM + ct.arange(G * BM, dtype=ct.int32) % BM)[:, None]
    m_i, l_i, acc = _state(G * BM, D)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(b, kh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((G * BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        v = ct.load(V, index=(b, kh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(b, kh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, G, BM, D)))


@ct.kernel
def zoo_runtime_causal_flag(Q, K, V, O, qk_scale: float, causal: int, BM: C[int], BN: C[int], D: C[int]):
    """Causal or not by a run-time ``int`` argument (not a constant): the mask ``kpos < seq and (kpos <=
    qpos or causal == 0)`` and the loop bound chosen by ``ct.where``-free scalar math; ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    hi = min((qt + 1) * BM, seq) * causal + seq * (1 - causal)
    for j in range(ct.cdiv(hi, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos < seq) & ((kpos <= qpos) | (causal == 0)), s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_fp8_e4m3(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """FP8 (e4m3) Q / K / V as FlashAttention-3's fp8 forward takes them: P cast to e4m3 for ``P V``,
    f16 O; the descale folded into ``qk_scale``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def zoo_o_stored_transposed(Q, K, V, OT, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """O stored transposed into ``OT [BH, D, S]`` (``ct.transpose`` of the normalized tile); ragged keys."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m_i, l_i, acc = _online(s, m_i, l_i, acc, v, V.dtype)
    ct.store(OT, index=(bh, 0, qt), tile=ct.transpose((acc / l_i).astype(OT.dtype)).reshape((1, D, BM)))


# ----------------------------------------------------------------------------------------------- the table

F16, BF16, F32, I32 = "float16", "bfloat16", "float32", "int32"
_S64 = 0.125 * LOG2E


def _qkv(q, k, dt=F16):
    return [(q, dt), (k, dt), (k, dt)]


_add("zoo_gqa_bshd_cross_1000x777_d96", zoo_gqa_bshd_cross,
     [((1, 1000, 2, 96), F16), ((1, 777, 1, 96), F16), ((1, 777, 1, 96), F16), ((1, 1000, 2, 96), F16),
      LOG2E / math.sqrt(96), 2, 128, 64, 128], (8, 2, 1), "chained", outputs=(3,))
_add("zoo_mqa_loop_over_heads", zoo_mqa_loop_over_heads,
     [((2, 2, 128, 64), F16), ((2, 128, 64), F16), ((2, 128, 64), F16), ((2, 2, 128, 64), F16), _S64, 2, 64, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("zoo_kt_stored_gqa_bf16", zoo_kt_stored_gqa,
     [((2, 4, 100, 64), BF16), ((2, 2, 64, 200), BF16), ((2, 2, 200, 64), BF16), ((2, 4, 100, 64), BF16), _S64, 2,
      64, 64, 64], (2, 4, 2), "chained", outputs=(3,))
_add("zoo_heads_on_axis0_causal", zoo_heads_on_axis0,
     _qkv((4, 150, 64), (4, 150, 64)) + [((4, 150, 64), F16), _S64, 64, 64, 64], (4, 3), "chained", outputs=(3,))
_add("zoo_reversed_q_tiles_causal", zoo_reversed_q_tiles_causal,
     _qkv((2, 200, 64), (2, 200, 64)) + [((2, 200, 64), F16), _S64, 64, 64, 64], (4, 2), "chained", outputs=(3,),
     notes="found by this set: refused ('reads the grid size (num_blocks) in a kernel whose work tiles are not the "
           "launch grid's programs'): every chained kernel now reads the program grid (grid parameters, or nctaid)")
_add("zoo_f32_arrays_cast_bf16", zoo_f32_arrays_cast_bf16,
     _qkv((2, 128, 64), (2, 128, 64), F32) + [((2, 128, 64), F32), _S64, 64, 64, 64], (2, 2), "simt",
     outputs=(3,),
     error="the first dot's A element type f32: f16/bf16 operands are supported (converted to bf16 in the kernel",
     notes="the tier's WGMMA reads the tiles TMA loads as stored; an in-kernel f32 -> bf16 conversion of the "
           "operand tiles is not built (found by this set: the refusal now says the kernel converts the tile)")
_add("zoo_window_causal_from_lo_bf16_d128", zoo_window_causal_from_lo,
     _qkv((2, 200, 128), (2, 200, 128), BF16) + [((2, 200, 128), BF16), LOG2E / math.sqrt(128), 70, 64, 64, 128],
     (4, 2), "chained", outputs=(3,))
_add("zoo_causal_bottom_right_shapes", zoo_causal_bottom_right_shapes,
     _qkv((2, 150, 64), (2, 333, 64)) + [((2, 150, 64), F16), _S64, 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("zoo_bias_heads_broadcast_batch", zoo_bias_heads_broadcast_batch,
     _qkv((4, 130, 64), (4, 190, 64)) + [((2, 130, 190), F32), ((4, 130, 64), F16), 0.125, 2, 64, 64, 64],
     (3, 4), "chained", outputs=(4,))
_add("zoo_alibi_causal_bshd_bf16", zoo_alibi_causal_bshd,
     _qkv((2, 190, 4, 64), (2, 190, 4, 64), BF16) + [((2, 190, 4, 64), BF16), _S64, 4, 64, 64, 64], (3, 4, 2),
     "chained", outputs=(3,))
_add("zoo_softcap_lens_lse_bf16_d128", zoo_softcap_lens_lse,
     _qkv((4, 128, 128), (4, 200, 128), BF16) + [((2,), I32), ((4, 128, 128), BF16), ((4, 128), F32),
                                                 1 / math.sqrt(128), 30.0, 2, 64, 64, 128], (2, 4), "chained",
     outputs=(4, 5))
_add("zoo_t5_bucket_bias_gather", zoo_t5_bucket_bias_gather,
     _qkv((4, 120, 64), (4, 170, 64)) + [((2, 33), F32), ((4, 120, 64), F16), _S64, 16, 2, 64, 64, 64], (2, 4),
     "chained", outputs=(4,))
_add("zoo_window_safe_max_from_zero", zoo_window_safe_max_from_zero,
     _qkv((2, 200, 64), (2, 200, 64)) + [((2, 200, 64), F16), _S64, 50, 64, 64, 64], (4, 2), "chained", outputs=(3,))
_add("zoo_two_pass_max_then_sum", zoo_two_pass_max_then_sum,
     _qkv((2, 128, 64), (2, 200, 64)) + [((2, 128, 64), F16), _S64, 64, 64, 64], (2, 2), "simt", outputs=(3,),
     error="the second loop reads a row statistic the first loop reduces from its dot's result (a two-pass softmax",
     notes="found by this set: the refusal named a GEMM remedy ('write the second loop's index as the grid's axis "
           "1'); it now says the second loop reads the first loop's row max and that the online softmax takes the "
           "tensor cores (the two-stage causal form fuses: its loops carry one state)")
_add("zoo_causal_two_stage_loops", zoo_causal_two_stage_loops,
     _qkv((2, 256, 64), (2, 256, 64)) + [((2, 256, 64), F16), _S64, 128, 64, 64], (2, 2), "chained", outputs=(3,))
_add("zoo_q_prescaled_exp_d32_causal", zoo_q_prescaled_exp,
     _qkv((2, 100, 32), (2, 100, 32)) + [((2, 100, 32), F16), 1 / math.sqrt(32), True, 64, 64, 32], (2, 2),
     "chained", outputs=(3,))
_add("zoo_q_prescaled_exp_d32_bf16", zoo_q_prescaled_exp,
     _qkv((2, 100, 32), (2, 180, 32), BF16) + [((2, 100, 32), BF16), 1 / math.sqrt(32), False, 64, 64, 32], (2, 2),
     "chained", outputs=(3,))
_add("zoo_log2_lse_d256_causal", zoo_log2_lse,
     _qkv((2, 150, 256), (2, 150, 256)) + [((2, 150, 256), F16), ((2, 150), F32), LOG2E / 16, True, 64, 64, 256],
     (3, 2), "chained", outputs=(3, 4))
_add("zoo_log2_lse_d64_bf16", zoo_log2_lse,
     _qkv((2, 200, 64), (2, 170, 64), BF16) + [((2, 200, 64), BF16), ((2, 200), F32), _S64, False, 128, 64, 64],
     (2, 2), "chained", outputs=(3, 4))
_add("zoo_lse_natural_bshd", zoo_lse_natural_bshd,
     _qkv((2, 100, 2, 64), (2, 150, 2, 64)) + [((2, 100, 2, 64), F16), ((2, 2, 100), F32), 0.125, 64, 64, 64],
     (2, 2, 2), "chained", outputs=(3, 4))
_add("zoo_gqa_two_heads_per_program", zoo_gqa_two_heads_per_program,
     [((2, 4, 128, 64), F16), ((2, 2, 192, 64), F16), ((2, 2, 192, 64), F16), ((2, 4, 128, 64), F16), _S64, 64, 64,
      64], (2, 2, 2), "chained", outputs=(3,))
_add("zoo_fused_qkv_hidden", zoo_fused_qkv_hidden,
     [((2, 150, 3 * 2 * 64), F16), ((2, 150, 2 * 64), F16), ((2, 150, 2), F32), 0.125, 2, 64, 64, 64], (3, 2, 2),
     "chained", outputs=(1, 2))
_add("zoo_hash_dropout", zoo_hash_dropout,
     _qkv((2, 128, 64), (2, 180, 64)) + [((2, 128, 64), F16), _S64, 1234, 64, 64, 64], (2, 2), "chained",
     outputs=(3,))
_add("zoo_mixed_layouts_causal_bf16", zoo_mixed_layouts_causal,
     [((2, 2, 160, 64), BF16), ((2, 160, 2, 64), BF16), ((2, 160, 2, 64), BF16), ((2, 2, 160, 64), BF16), _S64, 64,
      64, 64], (3, 2, 2), "chained", outputs=(3,))
_add("zoo_q_loaded_in_loop", zoo_q_loaded_in_loop,
     _qkv((2, 128, 64), (2, 170, 64)) + [((2, 128, 64), F16), _S64, 64, 64, 64], (2, 2), "chained", outputs=(3,))
_add("zoo_normalized_online", zoo_normalized_online,
     _qkv((2, 190, 64), (2, 190, 64)) + [((2, 190, 64), F16), _S64, 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("zoo_dv_wider_than_dqk", zoo_dv_wider_than_dqk,
     [((2, 128, 64), F16), ((2, 150, 64), F16), ((2, 150, 128), F16), ((2, 128, 128), BF16), _S64, 64, 64, 64, 128],
     (2, 2), "chained", outputs=(3,))
_add("zoo_gqa_group_rows_causal", zoo_gqa_group_rows_causal,
     [((2, 4, 128, 64), F16), ((2, 2, 128, 64), F16), ((2, 2, 128, 64), F16), ((2, 4, 128, 64), F16), _S64, 2, 64,
      64, 64], (2, 2, 2), "chained", outputs=(3,))
_add("zoo_runtime_causal_flag", zoo_runtime_causal_flag,
     _qkv((2, 150, 64), (2, 150, 64)) + [((2, 150, 64), F16), _S64, 1, 64, 64, 64], (3, 2), "chained", outputs=(3,))
_add("zoo_fp8_e4m3", zoo_fp8_e4m3,
     _qkv((2, 128, 64), (2, 128, 64), "float8_e4m3fn") + [((2, 128, 64), F16), _S64, 64, 64, 64], (2, 2), "chained",
     outputs=(3,), notes="session 43: the chained tier's first dot takes e4m3 / e5m2 Q and K (k32 WGMMA); session 45: "
     "the fp8 P @ V too (P in the fp8 register fragment in the accumulator's order, V read through the launch's "
     "key-major copy, keys permuted alike)")
_add("zoo_o_stored_transposed", zoo_o_stored_transposed,
     _qkv((2, 128, 64), (2, 170, 64)) + [((2, 64, 128), F16), _S64, 64, 64, 64], (2, 2), "chained", outputs=(3,),
     notes="refused before session 36 ('the epilogue reads a register tile at coordinates other than its own'); "
     "now stored element by element at the stored tile's (col, row) (tileas/transposed_store.py)")
