"""Session 43's fp8 attention programs (issue 20: attention-shaped programs we have not seen): the
FlashAttention forward with 8-bit float (e4m3 / e5m2) queries and keys, written the ways a cuTile user
writes it after quantizing Q and K per tensor: ``S = Q K^T`` as an fp8 dot with an f32 accumulator, the
per-tensor descale factors ``q_scale * k_scale`` multiplied into S (one folded scalar, or two multiplies
beside the softmax scale), the online softmax in exp2, and ``P V`` in 16 bits (P cast to V's f16 / bf16
type) or, FlashAttention-3's fp8 forward, with V in e4m3 and P cast to e4m3.

The table's ``path`` says what the compiler does with each program, ``error`` the located refusal's text
where the tensor-core tier refuses (the SIMT path then runs it).  Driven by tests/unit/test_fp8attn43_compile.py
(path, remarks, the WGMMA kind, no spills), tests/unit/test_fp8attn43_emulated.py (the chained kernels' PTX on
the emulator against numpy float64 of the fp8-rounded inputs) and tests/gpu/test_fp8_attention_gpu.py (torch
fp32 SDPA of the dequantized inputs).  Importing it needs ``cuda.tile``.
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
    return (ct.full((rows, 1), -math.inf, dtype=ct.float32), ct.zeros((rows, 1), dtype=ct.float32),
            ct.zeros((rows, d), dtype=ct.float32))


@ct.kernel
def fp8qk_descaled(Q, K, V, O, descale: float, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """e4m3 / e5m2 Q and K ``[BH, S, D]``, f16 / bf16 V and O: ``S = (Q K^T) * (q_scale k_scale)`` (the
    host's product of the two per-tensor descales), exp2 softmax with ``qk_scale = sm_scale log2 e``,
    ``P`` cast to V's type; ragged keys masked."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * descale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def fp8qk_textbook(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The textbook forward (``attention_programs.attention_fwd``'s softmax: the row max of the unscaled scores, then
    ``exp2(s qk_scale - m)``) with e4m3 Q / K and the host folding the descales into ``qk_scale = q_scale k_scale
    sm_scale log2 e``: one fused multiply-add per score, as the f16 program; P cast to V's type."""
    qt, bh = ct.bid(0), ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def fp8qk_two_scales_causal(Q, K, V, O, q_scale: float, k_scale: float, sm_scale: float, BM: C[int],
                            BN: C[int], D: C[int]):
    """Causal, the two descales and the softmax scale multiplied into ``Q @ K^T`` one after the other
    (``q @ ct.transpose(k)`` with the result widened to f32), the causal loop stopping at the diagonal;
    ``[B, H, S, D]`` arrays."""
    qt, b, h = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = s * q_scale * k_scale * (sm_scale * LOG2E)
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos <= qpos, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def fp8qk_gqa_lse(Q, K, V, O, Lse, descale: float, qk_scale: float, G: C[int], BM: C[int], BN: C[int],
                  D: C[int]):
    """GQA (``G`` query heads per KV head) with e4m3 Q / K, bf16 V, the log2 LSE stored beside O."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
    seq = K.shape[2]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, h // G, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * (descale * qk_scale)
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h // G, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.bfloat16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))
    ct.store(Lse, index=(b, h, qt), tile=(m_i + ct.log2(l_i)).reshape((1, 1, BM)))


@ct.kernel
def fp8qkv_p_fp8(Q, K, V, O, descale_qk: float, descale_v: float, qk_scale: float, BM: C[int], BN: C[int],
                 D: C[int]):
    """FlashAttention-3's fp8 forward: e4m3 Q, K and V, P cast to e4m3 (``P`` in [0, 1]) for ``P V``, V's
    descale applied to the output."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * (descale_qk * qk_scale)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc * descale_v / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def fp8qkv_p_fp8_causal(Q, K, V, O, descale_qk: float, descale_v: float, qk_scale: float, BM: C[int], BN: C[int],
                        D: C[int]):
    """Causal FlashAttention-3 fp8 forward (session 45): e4m3 Q, K, V zero-padded past a ragged sequence, the loop
    stopping at the diagonal, P cast to V's 8-bit type for ``P V``, V's descale applied to the output."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * (descale_qk * qk_scale)
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc * descale_v / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def fp8qk_v_widened(Q, K, V, O, descale: float, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """e4m3 Q / K / V with V widened to f16 in the kernel (``v.astype(ct.float16)``) for an f16 ``P V``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * (descale * qk_scale)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D)).astype(ct.float16)
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def fp8_kt_stored(Q, KT, V, O, descale: float, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """e4m3 Q with K stored transposed ``[BH, D, S]`` (``S = Q KT`` reads an N-major fp8 B tile), f16 V."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.num_tiles(KT, axis=2, shape=(1, D, BN))):
        kt = ct.load(KT, index=(bh, 0, j), shape=(1, D, BN)).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * (descale * qk_scale)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def fp8qk_widened_to_f16(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """An fp8 KV cache dequantized in the kernel: e4m3 Q and K widened to f16 after their loads, an f16 first dot."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D)).astype(ct.float16)
    m_i, l_i, acc = _state(BM, D)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D)).astype(ct.float16)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def fp8qk_gqa_group_rows(Q, K, V, O, descale: float, qk_scale: float, G: C[int], BM: C[int], BN: C[int],
                         D: C[int]):
    """Speculative decoding with GQA: the ``G`` query heads of a KV head, ``BM`` draft tokens each, as the rows of one
    e4m3 ``(1, G, BM, D)`` tile of ``Q [B, H, BM, D]`` reshaped to ``(G BM, D)``; ragged keys; grid (KV head,
    batch)."""
    kh, b = ct.bid(0), ct.bid(1)
    seq = K.shape[2]
    q = ct.load(Q, index=(b, kh, 0, 0), shape=(1, G, BM, D)).reshape((G * BM, D))
    m_i, l_i, acc = _state(G * BM, D)
    for j in range(ct.cdiv(seq, BN)):
        k = ct.load(K, index=(b, kh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((G * BM, BN), dtype=ct.float32)) * (descale * qk_scale)
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < seq, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, kh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, kh, 0, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, G, BM, D)))


# ----------------------------------------------------------------------------------------------- the table

E4M3, E5M2, F16, BF16, F32 = "float8_e4m3fn", "float8_e5m2", "float16", "bfloat16", "float32"
_S64, _S128 = 0.125 * LOG2E, LOG2E / math.sqrt(128)

_add("fp8qk_descaled_e4m3_d64", fp8qk_descaled,
     [((2, 150, 64), E4M3), ((2, 200, 64), E4M3), ((2, 200, 64), F16), ((2, 150, 64), F16), 0.5, _S64, 64, 64, 64],
     (3, 2), "chained", outputs=(3,))
_add("fp8qk_descaled_e4m3_d128_bm128", fp8qk_descaled,
     [((2, 256, 128), E4M3), ((2, 190, 128), E4M3), ((2, 190, 128), F16), ((2, 256, 128), F16), 0.25, _S128,
      128, 64, 128], (2, 2), "chained", outputs=(3,))
_add("fp8qk_two_scales_e5m2_causal_bf16", fp8qk_two_scales_causal,
     [((1, 2, 192, 64), E5M2), ((1, 2, 192, 64), E5M2), ((1, 2, 192, 64), BF16), ((1, 2, 192, 64), BF16), 0.5, 2.0,
      0.125, 64, 64, 64], (3, 1, 2), "chained", outputs=(3,))
_add("fp8qk_gqa_lse_d128", fp8qk_gqa_lse,
     [((1, 4, 128, 128), E4M3), ((1, 2, 170, 128), E4M3), ((1, 2, 170, 128), BF16), ((1, 4, 128, 128), BF16),
      ((1, 4, 128), F32), 0.75, _S128, 2, 64, 64, 128], (2, 4, 1), "chained", outputs=(3, 4))
_add("fp8qkv_p_e4m3", fp8qkv_p_fp8,
     [((2, 128, 64), E4M3), ((2, 128, 64), E4M3), ((2, 128, 64), E4M3), ((2, 128, 64), F16), 0.5, 2.0, _S64, 64, 64,
      64], (2, 2), "chained", outputs=(3,),
     notes="FlashAttention-3's fp8 P V (session 45): P converted to e4m3 in registers in the accumulator's element "
     "order, V read K-major from the launch's key-major copy with each 16 keys permuted alike")
_add("fp8qkv_p_e4m3_d128_bm128", fp8qkv_p_fp8,
     [((2, 256, 128), E4M3), ((2, 192, 128), E4M3), ((2, 192, 128), E4M3), ((2, 256, 128), F16), 0.25, 2.0, _S128,
      128, 64, 128], (2, 2), "chained", outputs=(3,),
     notes="fp8 P V at head dim 128, two consumer warp groups: 2 m64n128k32 register-A WGMMAs per key tile")
_add("fp8qkv_p_e5m2_v", fp8qkv_p_fp8,
     [((2, 128, 64), E4M3), ((2, 128, 64), E4M3), ((2, 128, 64), E5M2), ((2, 128, 64), F16), 0.5, 2.0, _S64, 64, 64,
      64], (2, 2), "chained", outputs=(3,),
     notes="e4m3 scores, e5m2 V: P cast to e5m2 (p.astype(V.dtype)), the second dot m64n64k32.f32.e5m2.e5m2")
_add("fp8qkv_p_e4m3_causal_ragged", fp8qkv_p_fp8_causal,
     [((2, 200, 64), E4M3), ((2, 200, 64), E4M3), ((2, 200, 64), E4M3), ((2, 200, 64), BF16), 0.5, 2.0, _S64, 64, 64,
      64], (4, 2), "chained", outputs=(3,),
     notes="causal, 200 keys: V's key-major copy holds 208 keys (zeros past 200), TMA's zero fill past them")
_add("fp8qk_v_widened_in_kernel", fp8qk_v_widened,
     [((2, 128, 64), E4M3), ((2, 128, 64), E4M3), ((2, 128, 64), E4M3), ((2, 128, 64), F16), 0.5, _S64, 64, 64, 64],
     (2, 2), "simt", outputs=(3,),
     error="the second dot's B is its tile load converted from f8E4M3FN to f16 (nv_tileaa.fp_to_fp)",
     notes="a V stage converted to f16 in shared memory would need a second buffer: refused at the conversion")
_add("fp8_kt_stored_n_major", fp8_kt_stored,
     [((2, 128, 64), E4M3), ((2, 64, 128), E4M3), ((2, 128, 64), F16), ((2, 128, 64), F16), 0.5, _S64, 64, 64, 64],
     (2, 2), "simt", outputs=(3,),
     error="the first dot's B (K), a tile of f8E4M3FN, is read N-major ([d, tn]: K stored transposed",
     notes="an fp8 WGMMA reads B K-major only; the chained kernel has no in-smem transpose")
_add("fp8qk_widened_to_f16", fp8qk_widened_to_f16,
     [((2, 128, 64), E4M3), ((2, 128, 64), E4M3), ((2, 128, 64), F16), ((2, 128, 64), F16), _S64, 64, 64, 64],
     (2, 2), "simt", outputs=(3,),
     error="the first dot's A element type f8E4M3FN: f16/bf16 operands are supported (converted to f16 in the kernel",
     notes="the tier converts no operand tile in shared memory; without the astype the e4m3 dot takes the tier")
_add("fp8qk_descaled_e4m3_d96_in_128", fp8qk_descaled,
     [((2, 150, 96), E4M3), ((2, 200, 96), E4M3), ((2, 200, 96), F16), ((2, 150, 96), F16), 0.5, LOG2E / math.sqrt(96),
      64, 64, 128], (3, 2), "chained", outputs=(3,),
     notes="head dim 96 in a 128-wide tile: the dots run 96 columns (head_dim_width.py), the e4m3 boxes 32 wide")
_add("fp8qk_descaled_e4m3_d32", fp8qk_descaled,
     [((2, 100, 32), E4M3), ((2, 130, 32), E4M3), ((2, 130, 32), F16), ((2, 100, 32), F16), 0.5, LOG2E / math.sqrt(32),
      64, 64, 32], (2, 2), "chained", outputs=(3,),
     notes="head dim 32: one 32-byte e4m3 box a row (32B swizzle), one k32 WGMMA per key tile")
_add("fp8qk_descaled_e4m3_bm256_d64", fp8qk_descaled,
     [((2, 300, 64), E4M3), ((2, 200, 64), E4M3), ((2, 200, 64), F16), ((2, 300, 64), F16), 0.5, _S64, 256, 64, 64],
     (2, 2), "chained", outputs=(3,), notes="256-row tiles: four consumer warp groups")
_add("fp8qk_descaled_e4m3_d256", fp8qk_descaled,
     [((1, 100, 256), E4M3), ((1, 150, 256), E4M3), ((1, 150, 256), F16), ((1, 100, 256), F16), 0.25, LOG2E / 16.0,
      64, 64, 256], (2, 1), "chained", outputs=(3,),
     notes="head dim 256: two 128-byte e4m3 boxes a row, 8 k32 WGMMAs per key tile (the fifth in the second box)")
_add("fp8qk_descaled_e4m3_d80_in_128", fp8qk_descaled,
     [((2, 150, 80), E4M3), ((2, 200, 80), E4M3), ((2, 200, 80), F16), ((2, 150, 80), F16), 0.5, LOG2E / math.sqrt(80),
      64, 64, 128], (3, 2), "chained", outputs=(3,),
     notes="head dim 80 in a 128-wide tile: the launcher's head-dim variant runs the e4m3 first dot over 96 columns "
     "(K steps of 32: three 32-byte boxes a row), the second dot over 80")
_add("fp8qk_gqa_group_rows_decode", fp8qk_gqa_group_rows,
     [((2, 8, 16, 128), E4M3), ((2, 2, 300, 128), E4M3), ((2, 2, 300, 128), F16), ((2, 8, 16, 128), F16), 0.5,
      LOG2E / math.sqrt(128), 4, 16, 64, 128], (2, 2), "chained", outputs=(3,),
     notes="4 query heads x 16 draft tokens of one KV head as one 64-row e4m3 Q box (group rows)")
_add("fp8qk_textbook_e4m3_d64", fp8qk_textbook,
     [((2, 150, 64), E4M3), ((2, 200, 64), E4M3), ((2, 200, 64), F16), ((2, 150, 64), F16), 0.5 * _S64, 64, 64, 64],
     (3, 2), "chained", outputs=(3,), notes="the descale folded into qk_scale by the host: the f16 textbook's ops")
