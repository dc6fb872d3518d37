"""The sixteenth user sweep (session 23, issues 20 and 22: dot and attention-shaped programs acceptance
runs that we will not see): cuTile 1.7 programs written the ways users write them, combining what
the dot zoo, the attention sets 1-4 and sweeps 6-15 do not.

GEMMs: ``[B, H, M, K] @ [H, K, N]`` with a per-head bias and with the head-major batch order and a
per-head ``[H, N, K]`` weight read transposed (per-operand batch counts), sorted-token MoE whose
expert is read per row tile from a table (``ct.gather`` of a scalar feeding the weight's index),
MoE with the rows of A gathered *and* the expert from the table, the expert table with ``-1`` padding
tiles that store zeros and return, a grouped GEMM walking a
(group, row tile) table from a 1-D program id, bias + residual + an 8-bit dropout keep-mask
epilogue, a row softmax and a row L2 normalisation over the full N tile, a row cumulative sum
epilogue, dual-GEMM SwiGLU (two accumulators sharing A), a low-rank chain ``(x @ A) @ B``, e4m3 with
per-row and per-column scales and B given ``[K, N]``, ``A^T @ B^T`` stored as ``C^T``, K = 72 on
K tiles of 32 in bf16, N = 1 (a column GEMV) and M = 1 per program, int8 requantised to int8
through per-row/per-column scales, the K loop run backwards, the K loop unrolled by two by hand,
and a batched B turned by ``ct.permute`` on a 3-D tile.

Attention: a cross attention whose QK head dim (128) is not V's (64), ALiBi slopes computed from the
program id, causal aligned bottom-right from the arrays' lengths, chunked local attention (a query
sees its own chunk), sigmoid attention (no softmax), causal linear attention with its cumulative
K^T V state, differential attention (two softmax chains subtracted), an 8-bit dropout keep-mask on
P, varlen query tiles past their batch's length storing zeros and returning, a query pre-scaled in bf16 on 64-row tiles at head dim 128, and a prefix KV cache followed by
the new keys in a second key loop.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (``path``: "gemm"
= TMA + WGMMA, "chained" = the chained tensor-core tier, "simt" with ``error`` = the located remark
saying why not), driven by tests/unit/test_user_sweep16_compile.py (path, remark, ptxas without
spills), tests/unit/test_user_sweep16_emulated.py (the PTX emulator against numpy, f16 operands) and
tests/gpu/test_user_sweep16_gpu.py (the GPU against torch fp32, NaN-prefilled).  Importing it needs
``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
C = ct.Constant
ZERO = ct.PaddingMode.ZERO
F16, BF16, F32, I32, I8, U8 = "float16", "bfloat16", "float32", "int32", "int8", "uint8"
E4M3 = "float8_e4m3fn"
NEG = -1.0e30  # a finite "minus infinity"


def _a(shape, dt=F16):
    return (tuple(shape), dt)


# ----------------------------------------------------------------------------------------------- batches per operand


@ct.kernel
def bmm_bhmk_hkn_head_bias(A, W, Bias, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """``Y[b, h] = A[b, h] @ W[h] + Bias[h]``: a 4-D activation against one weight per head shared by
    the batch (``bid(2) = b * H + h``), a per-head bias row, f16 output."""
    bm, bn, bh = ct.bid(0), ct.bid(1), ct.bid(2)
    b, h = bh // H, bh % H
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=3, shape=(1, 1, tm, tk))):
        a = ct.load(A, index=(b, h, bm, k), shape=(1, 1, tm, tk), padding_mode=ZERO).reshape((tm, tk))
        w = ct.load(W, index=(h, k, bn), shape=(1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    acc = acc + ct.load(Bias, index=(h, bn), shape=(1, tn))
    ct.store(Y, index=(b, h, bm, bn), tile=acc.astype(Y.dtype).reshape((1, 1, tm, tn)))


@ct.kernel
def bmm_bhmk_hnk_head_major(A, Wt, Y, NB: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """The head-major batch order (``bid(2) = h * NB + b``) and the per-head weight given ``[H, N, K]``
    (nn.Linear's layout per head) turned by ``ct.transpose``."""
    bm, bn, hb = ct.bid(0), ct.bid(1), ct.bid(2)
    h, b = hb // NB, hb % NB
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=3, shape=(1, 1, tm, tk))):
        a = ct.load(A, index=(b, h, bm, k), shape=(1, 1, tm, tk)).reshape((tm, tk))
        w = ct.load(Wt, index=(h, bn, k), shape=(1, tn, tk)).reshape((tn, tk))
        acc = ct.mma(a, ct.transpose(w), acc)
    ct.store(Y, index=(b, h, bm, bn), tile=acc.astype(Y.dtype).reshape((1, 1, tm, tn)))


@ct.kernel
def bmm_permute_3d_b(A, Bt, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A batched product on 3-D tiles: B given ``[L, N, K]``, its ``(1, tn, tk)`` tile turned by
    ``ct.permute(b, (0, 2, 1))`` and fed to ``ct.matmul`` with A's ``(1, tm, tk)`` tile."""
    bm, bn, l = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        b = ct.permute(ct.load(Bt, index=(l, bn, k), shape=(1, tn, tk)), (0, 2, 1))
        acc = acc + ct.matmul(ct.load(A, index=(l, bm, k), shape=(1, tm, tk)), b)
    ct.store(Y, index=(l, bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- MoE / grouped


@ct.kernel
def moe_sorted_expert_per_tile(X, W, TileExpert, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Tokens sorted by expert and padded to the row tile (vLLM's fused-MoE layout): row tile ``bm``'s
    expert read from ``TileExpert[bm]`` (``ct.gather`` of one element) selects ``W[e]``; A's rows
    are the tile's own (no gather)."""
    bm, bn = ct.bid(0), ct.bid(1)
    e = ct.gather(TileExpert, bm)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(e, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def moe_expert_table_skip_invalid(X, W, TileExpert, Y, tm: C[int], tn: C[int], tk: C[int]):
    """vLLM's padded expert table: a row tile whose expert is ``-1`` (padding blocks) stores zeros and
    returns; the others as :func:`moe_sorted_expert_per_tile`."""
    bm, bn = ct.bid(0), ct.bid(1)
    e = ct.gather(TileExpert, bm)
    if e < 0:
        ct.store(Y, index=(bm, bn), tile=ct.zeros((tm, tn), dtype=Y.dtype))
        return
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(e, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def moe_gathered_rows_expert_table(X, SortedTok, TileExpert, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """vLLM's fused MoE as written: A's rows gathered through the sorted token ids (``X[tok, :]``, a
    ``(tm, 1)`` x ``(1, tk)`` index pair), the expert of the row tile from a table, the rows stored
    in sorted order."""
    bm, bn = ct.bid(0), ct.bid(1)
    tok = ct.load(SortedTok, index=(bm,), shape=(tm,))
    e = ct.gather(TileExpert, bm)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (tok[:, None], cols[None, :]))
        w = ct.load(W, index=(e, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def grouped_tile_table_1d(X, W, TileGroup, TileRow, Y, tiles_n: int, tm: C[int], tn: C[int], tk: C[int]):
    """A grouped GEMM over a host-built tile table: program ``pid`` reads its group and its row tile
    (of the concatenated rows) from two tables, its column tile ``pid % tiles_n``."""
    pid = ct.bid(0)
    t, bn = pid // tiles_n, pid % tiles_n
    g = ct.gather(TileGroup, t)
    bm = ct.gather(TileRow, t)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(g, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- epilogues


@ct.kernel
def epi_bias_dropout_residual(A, B, Bias, Keep, R, Y, inv_keep: float, tm: C[int], tn: C[int], tk: C[int]):
    """``y = (acc + bias) * keep * (1 / (1 - p)) + residual`` with the keep mask a uint8 ``[M, N]`` array
    (as a training step's dropout writes it), f16 output, ragged M and N."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    keep = ct.load(Keep, index=(bm, bn), shape=(tm, tn)).astype(ct.float32)
    h = (acc + ct.load(Bias, index=(bn,), shape=(tn,))[None, :]) * keep * inv_keep
    y = h + ct.load(R, index=(bm, bn), shape=(tm, tn)).astype(ct.float32)
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def epi_row_softmax_full_n(X, W, P, tm: C[int], tn: C[int], tk: C[int]):
    """Logits then their row softmax over the whole (one-tile, ragged: N = 100 of 128) row: the padded
    columns masked to ``-inf`` before the max, f16 probabilities."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)),
                     ct.load(W, index=(k, 0), shape=(tk, tn), padding_mode=ZERO), acc)
    cols = ct.arange(tn, dtype=ct.int32)[None, :]
    s = ct.where(cols < W.shape[1], acc, -math.inf)
    e = ct.exp(s - ct.max(s, axis=1, keepdims=True))
    ct.store(P, index=(bm, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(P.dtype))


@ct.kernel
def epi_row_l2_normalize(X, W, Y, eps: float, tm: C[int], tn: C[int], tk: C[int]):
    """An embedding projection L2-normalised per row over the full N tile (``acc * rsqrt(sum(acc^2) +
    eps)``), f16 output."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W, index=(k, 0), shape=(tk, tn)), acc)
    y = acc * ct.rsqrt(ct.sum(acc * acc, axis=1, keepdims=True) + eps)
    ct.store(Y, index=(bm, 0), tile=y.astype(Y.dtype))


@ct.kernel
def epi_row_cumsum(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The product's running sum along each row (``ct.cumsum(acc, axis=1)``; N one tile), f32 output."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W, index=(k, 0), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, 0), tile=ct.cumsum(acc, axis=1))


# ----------------------------------------------------------------------------------------------- two dots


@ct.kernel
def dual_gemm_swiglu(X, Wg, Wu, Y, tm: C[int], tn: C[int], tk: C[int]):
    """SwiGLU's two projections in one K loop sharing X's tile: gate and up accumulators, then
    ``silu(g) * u`` (``g * sigmoid(g)`` written with ``exp``), f16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk))
        g = ct.mma(x, ct.load(Wg, index=(k, bn), shape=(tk, tn)), g)
        u = ct.mma(x, ct.load(Wu, index=(k, bn), shape=(tk, tn)), u)
    ct.store(Y, index=(bm, bn), tile=(g / (1.0 + ct.exp(-g)) * u).astype(Y.dtype))


@ct.kernel
def lowrank_chain_xa_b(X, La, Lb, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """A LoRA-style low-rank chain ``(x @ A) @ B`` with rank ``R`` one tile: the ``[tm, R]`` product over
    K, rounded to f16, then one dot with ``B``'s ``[R, tn]`` tile."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    y = ct.mma(t.astype(ct.float16), ct.load(Lb, index=(0, bn), shape=(R, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def k_unrolled_by_two(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The K loop unrolled by hand: two K tiles per trip (``2 * i`` and ``2 * i + 1``) into one
    accumulator (K a multiple of ``2 * tk``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for i in range(ct.num_tiles(A, axis=1, shape=(tm, 2 * tk))):
        acc = ct.mma(ct.load(A, index=(bm, 2 * i), shape=(tm, tk)), ct.load(B, index=(2 * i, bn), shape=(tk, tn)), acc)
        acc = ct.mma(ct.load(A, index=(bm, 2 * i + 1), shape=(tm, tk)),
                     ct.load(B, index=(2 * i + 1, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def k_loop_backwards(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The K tiles visited last to first (``k = nk - 1 - i``: cuTile refuses ``range(nk - 1, -1, -1)``,
    "Step must be positive"), ragged K (the first trip is the partial tile)."""
    bm, bn = ct.bid(0), ct.bid(1)
    nk = ct.num_tiles(A, axis=1, shape=(tm, tk))
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for i in range(nk):
        k = nk - 1 - i
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- dtypes, layouts, shapes


@ct.kernel
def fp8_e4m3_row_col_scales_bkn(A, B, Sa, Sb, Y, tm: C[int], tn: C[int], tk: C[int]):
    """e4m3 x e4m3 with a per-row activation scale and a per-column weight scale, B given ``[K, N]``
    (row-major, as a user stores it), bf16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    y = acc * ct.load(Sa, index=(bm,), shape=(tm,))[:, None] * ct.load(Sb, index=(bn,), shape=(tn,))[None, :]
    ct.store(Y, index=(bm, bn), tile=y.astype(ct.bfloat16))


@ct.kernel
def at_bt_store_ct(At, Bt, Ct, tm: C[int], tn: C[int], tk: C[int]):
    """``C^T = (A^T)^T (B^T)^T`` turned around: A given ``[K, M]``, B given ``[N, K]``, both
    ``ct.transpose``d, and the tile stored transposed into ``[N, M]``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(At, axis=0, shape=(tk, tm))):
        a = ct.transpose(ct.load(At, index=(k, bm), shape=(tk, tm)))
        b = ct.transpose(ct.load(Bt, index=(bn, k), shape=(tn, tk)))
        acc = ct.mma(a, b, acc)
    ct.store(Ct, index=(bn, bm), tile=ct.transpose(acc).astype(Ct.dtype))


@ct.kernel
def k72_tk32_bf16_64x128(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """K = 72 on K tiles of 32 (the third tile 8 wide), bf16, 64 x 128 program tiles, ragged M and N."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemv_column_n1(X, Wc, Y, tm: C[int], tk: C[int]):
    """``y = X @ w`` written as a dot with a one-column ``(tk, 1)`` B tile (Mx1 output tiles), f32."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, 1), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(Wc, index=(k, 0), shape=(tk, 1)), acc)
    ct.store(Y, index=(bm, 0), tile=acc)


@ct.kernel
def row_per_program_m1(X, W, Y, tn: C[int], tk: C[int]):
    """One row of X per program (``(1, tk)`` tiles at row ``bid(0)``; a decode batch of 5 tokens), a
    column tile per ``bid(1)``, f16 output."""
    r, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((1, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, tk))):
        acc = ct.mma(ct.load(X, index=(r, k), shape=(1, tk)), ct.load(W, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(r, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def i8_requant_row_col(A, Bt, Sa, Sb, Y, tm: C[int], tn: C[int], tk: C[int]):
    """int8 x int8 -> int32 (B given ``[N, K]``), requantised: ``acc * sa[m] * sb[n]`` rounded to int8
    by the saturating cast."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)),
                     ct.transpose(ct.load(Bt, index=(bn, k), shape=(tn, tk))), acc)
    y = acc.astype(ct.float32) * ct.load(Sa, index=(bm,), shape=(tm,))[:, None] \
        * ct.load(Sb, index=(bn,), shape=(tn,))[None, :]
    ct.store(Y, index=(bm, bn), tile=y.astype(ct.int8))


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_cross_dqk128_dv64(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], DQK: C[int], DV: C[int]):
    """Cross attention whose score head dim (128) is not the value head dim (64); keys ragged (200),
    exp2 with the scale folded in."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DQK)).reshape((BM, DQK))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, DV), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DQK), padding_mode=ZERO).reshape((BN, DQK))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DV), padding_mode=ZERO).reshape((BN, DV))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, DV)))


@ct.kernel
def attn_alibi_slope_from_bid(Q, K, V, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """Causal ALiBi with the head's slope computed in the program from its program id
    (``2 ** (-8 (h + 1) / H)``), the bias ``slope * (j - i)`` added in log2 units."""
    qt, bh = ct.bid(0), ct.bid(1)
    h = bh % H
    slope = ct.exp2(-8.0 * (h + 1) / H) * 1.4426950408889634
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos <= qpos, s + slope * (kpos - qpos).astype(ct.float32), NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_bottom_right_bf16(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal aligned bottom-right (query ``i`` sees keys ``j <= i + Sk - Sq``, the offset from the
    arrays' own lengths), fewer queries (100, ragged) than keys (300, ragged), bf16."""
    qt, bh = ct.bid(0), ct.bid(1)
    sq, sk = Q.shape[1], K.shape[1]
    off = sk - sq
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + off + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM + off, sk), BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos < sk), s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_chunked_local(Q, K, V, O, qk_scale: float, CH: C[int], BM: C[int], BN: C[int], D: C[int]):
    """Chunked local attention (Llama 4's): query ``i`` sees keys ``j <= i`` of its own chunk of ``CH``
    positions; the key loop starts at the chunk's first tile."""
    qt, bh = ct.bid(0), ct.bid(1)
    chunk0 = (qt * BM // CH) * CH
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(chunk0 // BN, ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos // CH == qpos // CH), s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_sigmoid(Q, K, V, O, qk_scale: float, bias: float, BM: C[int], BN: C[int], D: C[int]):
    """Sigmoid attention (no softmax, no running max): ``O = sigmoid(QK^T * scale + b) V`` with the
    bias ``b = -log(n)``, keys ragged."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale + bias
        p = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, 1.0 / (1.0 + ct.exp(-s)), 0.0)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc)
    ct.store(O, index=(bh, qt, 0), tile=acc.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def linear_attn_causal_state(Q, K, V, O, BM: C[int], D: C[int]):
    """Causal linear attention, chunked: the earlier chunks' keys and values summed into the state
    ``S = sum_j K_j^T V_j`` (a ``[D, D]`` f32 accumulator, A = ``K_j^T``), then
    ``O_i = Q_i S + tril(Q_i K_i^T) V_i`` for the query chunk ``i``."""
    qt, bh = ct.bid(0), ct.bid(1)
    st = ct.zeros((D, D), dtype=ct.float32)
    for j in range(qt):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        v = ct.load(V, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        st = ct.mma(ct.transpose(k), v, st)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    k = ct.load(K, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    v = ct.load(V, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BM), dtype=ct.float32))
    r = ct.arange(BM, dtype=ct.int32)
    s = ct.where(r[None, :] <= r[:, None], s, 0.0)
    o = ct.mma(q, st.astype(ct.float16), ct.mma(s.astype(ct.float16), v, ct.zeros((BM, D), dtype=ct.float32)))
    ct.store(O, index=(bh, qt, 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_differential(Q1, K1, Q2, K2, V, O, qk_scale: float, lam: float, BM: C[int], BN: C[int], D: C[int]):
    """Differential attention: two softmax attentions over the same V (separate Q/K pairs) subtracted,
    ``O = softmax(Q1 K1^T) V - lam * softmax(Q2 K2^T) V``, both chains in one key loop."""
    qt, bh = ct.bid(0), ct.bid(1)
    q1 = ct.load(Q1, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    q2 = ct.load(Q2, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m1 = ct.full((BM, 1), NEG, dtype=ct.float32)
    m2 = ct.full((BM, 1), NEG, dtype=ct.float32)
    l1 = ct.zeros((BM, 1), dtype=ct.float32)
    l2 = ct.zeros((BM, 1), dtype=ct.float32)
    a1 = ct.zeros((BM, D), dtype=ct.float32)
    a2 = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K1, axis=1, shape=(1, BN, D))):
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        k1 = ct.load(K1, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s1 = ct.mma(q1, ct.transpose(k1), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        n1 = ct.maximum(m1, ct.max(s1, axis=1, keepdims=True))
        p1 = ct.exp2(s1 - n1)
        c1 = ct.exp2(m1 - n1)
        l1 = l1 * c1 + ct.sum(p1, axis=1, keepdims=True)
        a1 = ct.mma(p1.astype(ct.float16), v, a1 * c1)
        m1 = n1
        k2 = ct.load(K2, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s2 = ct.mma(q2, ct.transpose(k2), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        n2 = ct.maximum(m2, ct.max(s2, axis=1, keepdims=True))
        p2 = ct.exp2(s2 - n2)
        c2 = ct.exp2(m2 - n2)
        l2 = l2 * c2 + ct.sum(p2, axis=1, keepdims=True)
        a2 = ct.mma(p2.astype(ct.float16), v, a2 * c2)
        m2 = n2
    ct.store(O, index=(bh, qt, 0), tile=(a1 / l1 - lam * (a2 / l2)).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_dropout_keep_mask(Q, K, V, Keep, O, qk_scale: float, inv_keep: float, BM: C[int], BN: C[int],
                           D: C[int]):
    """Training-time attention dropout: the softmax statistics from the full P, then P multiplied by
    a uint8 keep mask ``[BH, Sq, Sk]`` and ``1 / (1 - p)`` before the PV dot."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        keep = ct.load(Keep, index=(bh, qt, j), shape=(1, BM, BN)).reshape((BM, BN)).astype(ct.float32)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma((p * keep * inv_keep).astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_prescaled_q_bf16_d128_bm64(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The query pre-scaled once in bf16 (``(q * scale).astype(bf16)``, the scale in log2 units) before
    the key loop, head dim 128, 64-row query tiles, natural softmax state in exp2."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = (ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D)).astype(ct.float32)
         * qk_scale).astype(ct.bfloat16)
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.bfloat16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_varlen_zero_past_end(Q, K, V, Lens, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Varlen batches padded to one length: a query tile past its batch's length (``Lens[bh]``, read with
    ``ct.gather``) stores zeros and returns; the others attend to the batch's keys (the rest masked)."""
    qt, bh = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, bh)
    if qt * BM >= n:
        ct.store(O, index=(bh, qt, 0), tile=ct.zeros((1, BM, D), dtype=O.dtype))
        return
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_prefix_cache_then_new(Q, Kc, Vc, Kn, Vn, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Prefill against a KV cache: first the cached prefix (``Kc``/``Vc``, all visible), then the new
    keys (``Kn``/``Vn``, causal against the queries) in a second loop feeding the same softmax state."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(Kc, axis=1, shape=(1, BN, D))):
        k = ct.load(Kc, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(Vc, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(Kn, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(Vn, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- the table

S64 = 0.125 * LOG2E
S128 = LOG2E / math.sqrt(128)

# (paths: the probe of session 23; "simt" entries carry the located remark's text in ``error``)
_add("bmm_bhmk_hkn_head_bias", bmm_bhmk_hkn_head_bias,
     [_a((2, 3, 200, 128)), _a((3, 128, 192)), _a((3, 192), F32), _a((2, 3, 200, 192)), 3, 128, 64, 64], (2, 3, 6),
     "gemm", outputs=(3,),
     notes="found by sweep 14, launched by this one: the host built A's, B's and C's tensor maps with C's batch count "
           "(B has H matrices) and refused the launch; now each map holds its operand's own matrices")
_add("bmm_bhmk_hnk_head_major", bmm_bhmk_hnk_head_major,
     [_a((2, 3, 128, 128)), _a((3, 192, 128)), _a((2, 3, 128, 192)), 2, 128, 64, 64], (1, 3, 6), "gemm", outputs=(2,))
_add("bmm_permute_3d_b", bmm_permute_3d_b,
     [_a((3, 200, 128)), _a((3, 192, 128)), _a((3, 200, 192)), 128, 64, 64], (2, 3, 3), "gemm", outputs=(2,))
_add("moe_sorted_expert_per_tile", moe_sorted_expert_per_tile,
     [_a((384, 128)), _a((3, 128, 192)), _a((6,), I32), _a((384, 192)), 64, 64, 64], (6, 3), "gemm", outputs=(3,),
     notes="found by this sweep: refused as 'B is one matrix of a 3-D array picked by the program ... while C is "
           "2-D'; now B's batch index is evaluated per work tile and C is the kernel's one matrix")
_add("moe_expert_table_skip_invalid", moe_expert_table_skip_invalid,
     [_a((384, 128)), _a((3, 128, 192)), _a((6,), I32), _a((384, 192)), 64, 64, 64], (6, 3), "simt",
     error="tiled_store outside the GEMM's work tile", outputs=(3,),
     notes="found by this sweep (wrong code): compiled to the WGMMA kernel with the early return as its tile guard, "
           "the branch's zero store dropped (the skipped tiles' rows left unwritten on the PTX emulator); now a "
           "located refusal of any store outside the schedule's agent switch")
_add("moe_gathered_rows_expert_table", moe_gathered_rows_expert_table,
     [_a((300, 128)), _a((384,), I32), _a((6,), I32), _a((3, 128, 192)), _a((384, 192)), 64, 64, 64], (6, 3), "gemm",
     outputs=(4,), notes="refused as 'this dot operand is gathered' until session 25: now the GEMM tier's gathered A "
                         "(the expert's W per work tile, the rows loaded by the consumers)")
_add("grouped_tile_table_1d", grouped_tile_table_1d,
     [_a((320, 128)), _a((3, 128, 192)), _a((5,), I32), _a((5,), I32), _a((320, 192)), 3, 64, 64, 64], (15,), "gemm",
     outputs=(4,), notes="found by this sweep: refused as moe_sorted_expert_per_tile was")
_add("epi_bias_dropout_residual", epi_bias_dropout_residual,
     [_a((200, 128)), _a((128, 192)), _a((192,), F32), _a((200, 192), U8), _a((200, 192)), _a((200, 192)), 1.25,
      128, 64, 64], (2, 3), "gemm", outputs=(5,))
_add("epi_row_softmax_full_n", epi_row_softmax_full_n,
     [_a((200, 128)), _a((128, 100)), _a((200, 100)), 128, 128, 64], (2,), "gemm", outputs=(2,))
_add("epi_row_l2_normalize", epi_row_l2_normalize,
     [_a((200, 128)), _a((128, 128)), _a((200, 128)), 1e-6, 128, 128, 64], (2,), "gemm", outputs=(2,))
_add("epi_row_cumsum", epi_row_cumsum,
     [_a((200, 128)), _a((128, 64)), _a((200, 64), F32), 128, 64, 64], (2,), "simt",
     error="not supported yet in the accumulator's register layout: the epilogue op 'nv_tileaa.scan'", outputs=(2,))
_add("dual_gemm_swiglu", dual_gemm_swiglu,
     [_a((200, 128)), _a((128, 192)), _a((128, 192)), _a((200, 192)), 128, 64, 64], (2, 3), "gemm", outputs=(3,))
_add("lowrank_chain_xa_b", lowrank_chain_xa_b,
     [_a((200, 256)), _a((256, 64)), _a((64, 192)), _a((200, 192)), 64, 128, 64, 64], (2, 3), "gemm", outputs=(3,),
     notes="was refused (\"this one after the loop that holds the others\") until session 24's second dot on the "
           "accumulator")
_add("k_unrolled_by_two", k_unrolled_by_two,
     [_a((200, 256)), _a((256, 192)), _a((200, 192)), 128, 64, 64], (2, 3), "simt",
     error="two K tiles per iteration: a K loop unrolled by hand", outputs=(2,))
_add("k_loop_backwards", k_loop_backwards,
     [_a((200, 200)), _a((200, 192)), _a((200, 192)), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("fp8_e4m3_row_col_scales_bkn", fp8_e4m3_row_col_scales_bkn,
     [_a((200, 256), E4M3), _a((256, 192), E4M3), _a((200,), F32), _a((192,), F32), _a((200, 192), BF16), 128, 64, 64],
     (2, 3), "gemm", outputs=(4,))
_add("at_bt_store_ct", at_bt_store_ct,
     [_a((128, 256)), _a((192, 128)), _a((192, 256)), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("k72_tk32_bf16_64x128", k72_tk32_bf16_64x128,
     [_a((100, 72), BF16), _a((72, 200), BF16), _a((100, 200), BF16), 64, 128, 32], (2, 2), "gemm", outputs=(2,))
_add("gemv_column_n1", gemv_column_n1,
     [_a((200, 256)), _a((256, 1)), _a((200, 1), F32), 128, 64], (2,), "simt", error="a WGMMA's N is a multiple of 8",
     outputs=(2,))
_add("row_per_program_m1", row_per_program_m1,
     [_a((5, 256)), _a((256, 192)), _a((5, 192)), 64, 64], (5, 3), "simt", error="has no WGMMA shape", outputs=(2,))
_add("i8_requant_row_col", i8_requant_row_col,
     [_a((200, 256), I8), _a((192, 256), I8), _a((200,), F32), _a((192,), F32), _a((200, 192), I8), 128, 64, 64],
     (2, 3), "gemm", outputs=(4,),
     notes="refused as 'output element type i8 is not supported yet by the WGMMA lowering' until session 25 (sweep "
           "20): an i8 C truncated from the epilogue's i32 math is now stored by the tier's direct epilogue")
_add("attn_cross_dqk128_dv64", attn_cross_dqk128_dv64,
     [_a((2, 128, 128)), _a((2, 200, 128)), _a((2, 200, 64)), _a((2, 128, 64)), S128, 64, 64, 128, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_alibi_slope_from_bid", attn_alibi_slope_from_bid,
     [_a((4, 192, 64))] * 4 + [S64, 2, 64, 64, 64], (3, 4), "chained", outputs=(3,))
_add("attn_causal_bottom_right_bf16", attn_causal_bottom_right_bf16,
     [_a((2, 100, 64), BF16), _a((2, 300, 64), BF16), _a((2, 300, 64), BF16), _a((2, 100, 64), BF16), S64, 64, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_chunked_local", attn_chunked_local,
     [_a((2, 256, 64))] * 4 + [S64, 128, 64, 64, 64], (4, 2), "chained", outputs=(3,))
_add("attn_sigmoid", attn_sigmoid,
     [_a((2, 128, 64)), _a((2, 200, 64)), _a((2, 200, 64)), _a((2, 128, 64)), 0.125, -math.log(200.0), 64, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("linear_attn_causal_state", linear_attn_causal_state,
     [_a((2, 256, 64))] * 4 + [64, 64], (4, 2), "simt", error="this one after the loop that holds the others",
     outputs=(3,))
_add("attn_differential", attn_differential,
     [_a((2, 128, 64))] * 5 + [_a((2, 128, 64)), S64, 0.5, 64, 64, 64], (2, 2), "chained", outputs=(5,))
_add("attn_dropout_keep_mask", attn_dropout_keep_mask,
     [_a((2, 128, 64)), _a((2, 192, 64)), _a((2, 192, 64)), _a((2, 128, 192), U8), _a((2, 128, 64)), S64, 1.25,
      64, 64, 64], (2, 2), "chained", outputs=(4,))
_add("attn_prescaled_q_bf16_d128_bm64", attn_prescaled_q_bf16_d128_bm64,
     [_a((2, 256, 128), BF16)] * 4 + [S128, 64, 64, 128], (4, 2), "chained", outputs=(3,))
_add("attn_prefix_cache_then_new", attn_prefix_cache_then_new,
     [_a((2, 128, 64)), _a((2, 192, 64)), _a((2, 192, 64)), _a((2, 128, 64)), _a((2, 128, 64)), _a((2, 128, 64)),
      S64, 64, 64, 64], (2, 2), "simt", error="2 loops with dots one after another", outputs=(5,))
_add("attn_varlen_zero_past_end", attn_varlen_zero_past_end,
     [_a((2, 256, 64))] * 3 + [_a((2,), I32), _a((2, 256, 64)), S64, 64, 64, 64], (4, 2), "simt",
     error="chained dots: a second store of a [1, 64, 64] tile", outputs=(4,))
