"""Session 26's cover set (the principal issue: every dot program on tensor cores): cuTile 1.7 dot
programs written the ways users write them that session 25's sweep 20 and review left off the
tensor-core tiers, each with the path it takes now.

A float dot's output quantised to int8 (``(acc * s).astype(int8)``) or converted to fp8 e4m3; two dots
in one K loop reading different A tiles, into two accumulators (``acc1 += x @ w1; acc2 += z @ w2``) or
into one (``acc += x @ w1 + z @ w2``); two K loops one after the other (``y = x1 @ w1 + x2 @ w2`` as two
loops); single-key-tile attention without a loop; GQA over the query heads inside one program; two
dots sharing an A computed from its tile; LoRA at ``tn`` = 256.

Taken now (each entry's ``notes`` says what refused it): the int8 and fp8 outputs (the direct epilogue
stores the program's converted values), LoRA at tn 256 (the low-rank accumulator counted at its rank),
the shared computed A (one register A per K step, a copy of its registers for the second B), GQA over the
group's heads (:func:`~tileorch.transforms.tileas.chained_work_loop.flatten_inner_work_loop`) and the
loop-less attention (:mod:`~tileorch.transforms.tileas.loopless_chain`), and since session 27 the two dots
reading different A tiles in one K loop (an A tile per dot in each stage: ``GemmConfig.a_operands``) and the two
K loops one after the other (K segments of one pipeline: ``GemmConfig.k_segments``).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (``path``:
"gemm" = TMA + WGMMA, "chained" = the chained tensor-core tier, "simt" with ``error`` = the located
remark saying why not), driven by tests/unit/test_cover26_compile.py (path, remark, ptxas without
spills), tests/unit/test_cover26_emulated.py (the PTX emulator against numpy, NaN-prefilled outputs)
and tests/gpu/test_cover26_gpu.py (the GPU against torch fp32).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar
from tileorch.testing.user_programs20 import lora_linear_two_products

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
C = ct.Constant
ZERO = ct.PaddingMode.ZERO
F16, F32, I8, F8 = "float16", "float32", "int8", "float8_e4m3fn"
NEG = -1.0e30  # a finite "minus infinity"
S64 = 1.0 / math.sqrt(64) * LOG2E


def _a(shape, dt=F16):
    return (tuple(shape), dt)


# ----------------------------------------------------------------------------------------------- output types


@ct.kernel
def gemm_f16_quantised_int8_out(A, B, Y, inv_scale: float, tm: C[int], tn: C[int], tk: C[int]):
    """A float GEMM whose output is quantised to int8: ``(acc * inv_scale).astype(int8)`` (a per-tensor
    scale; the conversion rounds to nearest and saturates), K = 200 ragged."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=(acc * inv_scale).astype(ct.int8))


@ct.kernel
def gemm_f16_fp8_e4m3_out(A, B, Y, inv_scale: float, tm: C[int], tn: C[int], tk: C[int]):
    """A float GEMM whose output is stored as fp8 e4m3 (``(acc * inv_scale).astype(float8_e4m3fn)``:
    the next layer's fp8 input)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=(acc * inv_scale).astype(ct.float8_e4m3fn))


# ----------------------------------------------------------------------------------------------- two A operands


@ct.kernel
def two_dots_two_a_two_accumulators(X, W1, Z, W2, Y1, Y2, tm: C[int], tn: C[int], tk: C[int]):
    """Two products over one K loop, each with its own A: ``acc1 += x @ w1; acc2 += z @ w2``, two
    outputs."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc1 = ct.zeros((tm, tn), dtype=ct.float32)
    acc2 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc1 = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                      ct.load(W1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc1)
        acc2 = ct.mma(ct.load(Z, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                      ct.load(W2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc2)
    ct.store(Y1, index=(bm, bn), tile=acc1.astype(Y1.dtype))
    ct.store(Y2, index=(bm, bn), tile=acc2.astype(Y2.dtype))


@ct.kernel
def two_dots_two_a_one_accumulator(X, W1, Z, W2, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``y = x @ w1 + z @ w2`` in one K loop: ``acc = ct.mma(z, w2, ct.mma(x, w1, acc))``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
        acc = ct.mma(ct.load(Z, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def two_dots_two_a_summed_products(X, W1, Z, W2, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``acc += x @ w1 + z @ w2`` written with the operator (two products summed, then added)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        z = ct.load(Z, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        w1 = ct.load(W1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        w2 = ct.load(W2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = acc + (x @ w1 + z @ w2)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- K loops in sequence


@ct.kernel
def two_k_loops_one_accumulator(X1, W1, X2, W2, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``y = x1 @ w1 + x2 @ w2`` written as two K loops (K1 = 128, K2 = 200), the second continuing
    the first's accumulator."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X1.shape[1], tk)):
        acc = ct.mma(ct.load(X1, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    for k in range(ct.cdiv(X2.shape[1], tk)):
        acc = ct.mma(ct.load(X2, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- computed A


@ct.kernel
def two_dots_share_computed_a(X, Wg, Wu, Y, s: float, tm: C[int], tn: C[int], tk: C[int]):
    """Two dots sharing an A computed from its tile (``a = (x * s).astype(f16)``): ``g += a @ wg;
    u += a @ wu``, then ``g * u``."""
    bm, bn = ct.bid(0), ct.bid(1)
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        a = (ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO) * s).astype(ct.float16)
        g = ct.mma(a, ct.load(Wg, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), g)
        u = ct.mma(a, ct.load(Wu, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), u)
    ct.store(Y, index=(bm, bn), tile=(g * u).astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_one_key_tile_no_loop(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Attention over at most one key tile written without a loop (S = 100 keys in a 128-wide tile):
    ``S = q k^T``, the padded keys masked, softmax, ``O = P v``."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
    s = ct.where(ct.arange(BN, dtype=ct.int32)[None, :] < nk, s, NEG)
    p = ct.exp2(s - ct.max(s, axis=1, keepdims=True))
    v = ct.load(V, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    o = ct.mma(p.astype(ct.float16), v, ct.zeros((BM, D), dtype=ct.float32)) / ct.sum(p, axis=1, keepdims=True)
    ct.store(O, index=(bh, qt, 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_gqa_heads_loop(Q, K, V, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int], D: C[int]):
    """GQA: one program per (query tile, KV head) loops over the ``G`` query heads sharing that KV
    head (``for g in range(G)``), each an online-softmax key loop."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, kvh = bh // K.shape[1], bh % K.shape[1]
    nk = K.shape[2]
    for g in range(G):
        h = kvh * G + g
        q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
        m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
        l_i = ct.zeros((BM, 1), dtype=ct.float32)
        acc = ct.zeros((BM, D), dtype=ct.float32)
        for j in range(ct.cdiv(nk, BN)):
            k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
            s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
            s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
            m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
            p = ct.exp2(s - m_new)
            alpha = ct.exp2(m_i - m_new)
            l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
            v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
            acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
            m_i = m_new
        ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


_add("gemm_f16_quantised_int8_out", gemm_f16_quantised_int8_out,
     [_a((200, 200)), _a((200, 192)), _a((200, 192), I8), 0.5, 128, 64, 64], (2, 3), "gemm", outputs=(2,),
     notes="was refused ('an i8 output is supported for integer (i8) dots only'); now the direct epilogue stores the "
           "program's i32 values (converted, clamped) as bytes")
_add("gemm_f16_fp8_e4m3_out", gemm_f16_fp8_e4m3_out,
     [_a((200, 200)), _a((200, 192)), _a((200, 192), F8), 0.5, 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("two_dots_two_a_two_accumulators", two_dots_two_a_two_accumulators,
     [_a((200, 200)), _a((200, 192)), _a((200, 200)), _a((200, 192)), _a((200, 192)), _a((200, 192), F32), 128, 64,
      64], (2, 3), "gemm", outputs=(4, 5),
     notes="was refused ('2 dots in one K loop that do not read the same A tile'); since session 27 the WGMMA kernel's stages hold an A tile per dot "
           "(GemmConfig.a_operands)")
_add("two_dots_two_a_one_accumulator", two_dots_two_a_one_accumulator,
     [_a((200, 200)), _a((200, 192)), _a((200, 200)), _a((200, 192)), _a((200, 192)), 128, 64, 64], (2, 3), "gemm",
     outputs=(4,),
     notes="was refused ('this dot adds its product to the result of the dot at line'); since session 27 the WGMMA kernel's stages hold an A tile per dot "
           "(GemmConfig.a_operands), the chain into one accumulator")
_add("two_dots_two_a_summed_products", two_dots_two_a_summed_products,
     [_a((200, 200)), _a((200, 192)), _a((200, 200)), _a((200, 192)), _a((200, 192)), 128, 64, 64], (2, 3), "gemm",
     outputs=(4,),
     notes="was refused ('2 dots in one K loop that do not read the same A tile'); since session 27 the WGMMA kernel's stages hold an A tile per dot "
           "(GemmConfig.a_operands) and tileas-fold-dot-accumulate chains the summed products into one accumulator")
_add("two_k_loops_one_accumulator", two_k_loops_one_accumulator,
     [_a((200, 128)), _a((128, 192)), _a((200, 200)), _a((200, 192)), _a((200, 192)), 128, 64, 64], (2, 3), "gemm",
     outputs=(4,),
     notes="was refused ('2 loops with dots one after another'); since session 27 the loops, each bounded by its own "
           "A's K, are the WGMMA kernel's K segments (GemmConfig.k_segments: pair 0's 2 K tiles, then pair 1's 4, "
           "through one pipeline)")
_add("two_dots_share_computed_a", two_dots_share_computed_a,
     [_a((200, 200)), _a((200, 192)), _a((200, 192)), _a((200, 192)), 0.5, 128, 64, 64], (2, 3), "gemm", outputs=(3,),
     notes="was refused ('2 dots in one K loop that do not read the same A tile': the dots read the computed A "
           "through a layout conversion each); now WGMMA's register A, computed once per K step, feeds both Bs")
_add("lora_tn256", lora_linear_two_products,  # (sweep 20's LoRA program, at rank 64 on 128 x 256 tiles)
     [_a((200, 128)), _a((128, 296)), _a((128, 64)), _a((64, 296)), _a((200, 296)), 0.5, 128, 256, 64, 64], (2, 2),
     "gemm", outputs=(4,),
     notes="was refused ('2 accumulators of 128x256 need 256 registers': the rank-64 accumulator counted 256 wide); "
           "now 160 (128 + 32, GemmConfig's low-rank allowance)")
_add("attn_one_key_tile_no_loop", attn_one_key_tile_no_loop,
     [_a((2, 200, 64)), _a((2, 100, 64)), _a((2, 100, 64)), _a((2, 200, 64)), S64, 64, 128, 64], (4, 2), "chained",
     outputs=(3,),
     notes="was refused ('this dot is not in a loop'); now tileas-program-loop-to-tiles gives the chain a key loop of "
           "one trip (loopless_chain.wrap_loopless_chain)")
_add("attn_gqa_heads_loop", attn_gqa_heads_loop,
     [_a((2, 4, 128, 64)), _a((2, 2, 192, 64)), _a((2, 2, 192, 64)), _a((2, 4, 128, 64)), S64, 2, 64, 64, 64],
     (2, 4), "chained", outputs=(3,),
     notes="was refused ('the tile is stored inside a loop around its computation'); now the static loop over "
           "the group's heads becomes G times as many instances of the chained tier's persistent kernel "
           "(chained_work_loop.flatten_inner_work_loop)")
