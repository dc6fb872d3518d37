"""The twentieth user sweep (session 25, issue 20 and the principal tier: dot and attention-shaped
programs acceptance runs that we will not see): cuTile 1.7 programs written the ways users write
them, in the combinations the dot zoo, the attention sets 1-4 and sweeps 6-18 do not hold.

GEMMs: a persistent loop written by the user over a GROUP_M-swizzled raster with ragged M and N, a
persistent loop with the tile index decoded column-major, a user-written GROUP_M swizzle of a 1-D grid
(the last group short), split-K on contiguous K ranges (a runtime split length) and strided split-K
with the bias added by the first split alone (``if s == 0``), both adding partial tiles by
``ct.atomic_add``, int8 x int8 -> int32 stored as int32, as f16 after per-row and per-column scales
and requantised to int8, f32 x f32 as tf32 with the weight turned by ``ct.transpose``, f32 operands
converted to bf16 inside the K loop, an f16 accumulator widened at the end, 3-D ``[1, tm, tk]`` tiles
multiplied as 3-D tiles by ``ct.mma``, ``a @ b`` and ``ct.mma`` on the two halves of one K step, the
K loop inside an ``if`` on a runtime flag, a dot under ``if k < k_stop`` inside the K loop, the K
tiles visited last to first, a K step unrolled by ``ct.static_iter``, a K range passed at launch,
per-batch K lengths read from an array (the tail masked), block-sparse K tiles from an index table;
epilogues storing the row max and row sum of a full-row tile, a softmax over a full row, a row L2
norm, per-column-tile row max / argmax without the product, column sums added atomically,
``alpha * A @ B + beta * C``, the accumulator started from a residual tile, f32 and f16 copies of
one accumulator; two unchained GEMMs in one kernel, LoRA's ``x @ W + (x @ A) @ B``, a persistent
batched bf16 GEMM with a per-batch bias and ReLU.

Attention: a dropout mask read from a uint8 array, a key padding mask from per-batch lengths, the
output scaled by ``acc * (1 / l)``, flash-decoding's split over keys (q length 1; partial O, max and
sum per split, combined in numpy), multi-query decode with the query heads as the rows of one tile,
paged KV (cache blocks from a block table read in the key loop), per-batch key tile ranges from
arrays, bottom-right causal cross attention, head dim 32 on 128 x 128 tiles, bf16 with 128-row query
tiles and the natural-log LSE, GQA looping over the group inside one program, one key tile and no
loop (the probabilities stored), sigmoid attention, the scale folded into Q, the causal loop split
into unmasked tiles and the diagonal tile, a two-pass softmax; the backward's dV alone, causal dV from
the diagonal, and dK with dV (four dots per step); a boolean mask array shared by the heads (rows
that see no key of a tile), the output added to a residual in the epilogue.

Found by this sweep (the entries' ``notes``; no program computed a wrong result on the emulator or the SIMT
interpreter):
a K loop under a runtime ``if`` and a dot under ``if k < k_stop`` in the K loop fell to the SIMT
path (refused as "a value ... used outside the agents" and "the epilogue reads a tile that the K
loop computes beside the dot"); now ``tileas-guarded-k-loop`` runs both on the tier.  A K-tail mask
reading the loop's induction variable was refused at the dot, naming 'nv_tileas.dot'; now at the
user's expression.  An int8 C requantised in the epilogue fell to the SIMT path ("output element
type i8 is not supported yet", as sweeps 8 and 16's); now the tier's direct epilogue stores it.  The PTX
emulator modelled f16 WGMMAs only and converted bf16 TMA boxes to f16
values (and took ``cvt.rn.bf16x2.f32`` for the f16 one); now bf16, tf32 and int8 WGMMAs run on it.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (``path``: "gemm"
= TMA + WGMMA, "chained" = the chained tensor-core tier, "simt" with ``error`` = the located remark
saying why not), driven by tests/unit/test_user_sweep20_compile.py (path, remark, ptxas without
spills), tests/unit/test_user_sweep20_emulated.py (the PTX emulator against numpy),
tests/unit/test_user_sweep20_interp.py (the SIMT interpreter on the refused programs) and
tests/gpu/test_user_sweep20_gpu.py (the GPU, the same numpy references).  Importing it needs
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
NEG = -1.0e30  # a finite "minus infinity"


def _a(shape, dt=F16):
    return (tuple(shape), dt)


# ----------------------------------------------------------------------------------------------- GEMMs: rasters


@ct.kernel
def gemm_persistent_group_m_swizzle(A, B, Y, GM: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """A persistent loop written by the user (``range(bid(0), tiles, num_blocks(0))``) over a GROUP_M
    raster (groups of ``GM`` row tiles, the last group short), ragged M and N, f32 output."""
    tiles_m = ct.cdiv(A.shape[0], tm)
    tiles_n = ct.cdiv(B.shape[1], tn)
    for t in range(ct.bid(0), tiles_m * tiles_n, ct.num_blocks(0)):
        per_group = GM * tiles_n
        first_m = (t // per_group) * GM
        rows = min(tiles_m - first_m, GM)
        bm = first_m + (t % per_group) % rows
        bn = (t % per_group) // rows
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.cdiv(A.shape[1], tk)):
            a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
            b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
            acc = ct.mma(a, b, acc)
        ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_persistent_column_major_tiles(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A persistent loop whose tile index is decoded column-major (``bm = t % tiles_m``), the grid
    smaller than the tile count, ``a @ b`` accumulated."""
    tiles_m = ct.num_tiles(Y, axis=0, shape=(tm, tn))
    tiles_n = ct.num_tiles(Y, axis=1, shape=(tm, tn))
    for t in range(ct.bid(0), tiles_m * tiles_n, ct.num_blocks(0)):
        bm = t % tiles_m
        bn = t // tiles_m
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = acc + ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO) @ ct.load(
                B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_group_m_swizzle_1d_grid(A, B, Y, GM: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """A 1-D grid remapped to (row tile, column tile) by a GROUP_M swizzle computed by the user (the
    group size a constant, 5 row tiles in groups of 2: the last group has one)."""
    pid = ct.bid(0)
    tiles_m = ct.cdiv(Y.shape[0], tm)
    tiles_n = ct.cdiv(Y.shape[1], tn)
    width = GM * tiles_n
    group = pid // width
    first = group * GM
    size = min(tiles_m - first, GM)
    bm = first + (pid % width) % size
    bn = (pid % width) // size
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- GEMMs: split-K


@ct.kernel
def gemm_splitk_contiguous_atomic_add(A, B, Cacc, per: int, tm: C[int], tn: C[int], tk: C[int]):
    """Split-K: split ``s = bid(2)`` takes the contiguous K tiles ``s * per .. s * per + per - 1`` (a
    runtime ``per``, the last split short) and adds its partial tile into the f32 C (zeroed by the
    caller) by ``ct.atomic_add`` at its tile's positions."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    nk = ct.cdiv(A.shape[1], tk)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s * per, min(s * per + per, nk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(Cacc, (rows[:, None], cols[None, :]), acc)


# ----------------------------------------------------------------------------------------------- GEMMs: element types


@ct.kernel
def gemm_int8_int32_out(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """int8 x int8 accumulated in int32 (``ct.zeros(..., int32)``), stored as int32; K = 200 ragged."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_int8_row_col_scales_f16(A, B, SA, SB, Y, tm: C[int], tn: C[int], tk: C[int]):
    """W8A8: int8 x int8 -> int32, then ``acc * sa[:, None] * sb[None, :]`` in f32 (per-token and
    per-channel scales) stored as f16."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    sa = ct.load(SA, index=(bm,), shape=(tm,), padding_mode=ZERO)
    sb = ct.load(SB, index=(bn,), shape=(tn,), padding_mode=ZERO)
    y = acc.astype(ct.float32) * sa[:, None] * sb[None, :]
    ct.store(Y, index=(bm, bn), tile=y.astype(ct.float16))


@ct.kernel
def gemm_tf32_weight_nk_transposed(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """f32 x f32 as tf32: ``X [M, K] @ W^T`` with W ``[N, K]`` (nn.Linear), the W tile turned by
    ``ct.transpose`` before its ``astype(ct.tfloat32)``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO).astype(ct.tfloat32)
        w = ct.transpose(ct.load(W, index=(bn, k), shape=(tn, tk), padding_mode=ZERO)).astype(ct.tfloat32)
        acc = ct.mma(x, w, acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_f32_in_bf16_in_loop(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """f32 arrays converted to bf16 inside the K loop (``.astype(ct.bfloat16)``) before ``ct.mma``, f32
    out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO).astype(ct.bfloat16)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO).astype(ct.bfloat16)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_f16_acc_widened_at_end(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """An f16 accumulator (``ct.zeros(..., float16)``) widened to f32 for the store."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float16)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(ct.float32))


# ----------------------------------------------------------------------------------------------- GEMMs: shapes and loops


@ct.kernel
def bmm_3d_tiles_mma_no_reshape(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A batched GEMM on 3-D tiles ``[1, tm, tk] x [1, tk, tn]`` handed to ``ct.mma`` as 3-D tiles (no
    reshape), the batch on grid axis 2, a 3-D ``[1, tm, tn]`` store."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], tk)):
        a = ct.load(A, index=(b, bm, k), shape=(1, tm, tk), padding_mode=ZERO)
        w = ct.load(B, index=(b, k, bn), shape=(1, tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(b, bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_matmul_and_mma_halves(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Each K step loads a ``2 * tk`` wide slab as two tiles and adds ``a0 @ b0`` with the operator and
    ``a1, b1`` through ``ct.mma``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], 2 * tk)):
        a0 = ct.load(A, index=(bm, 2 * k), shape=(tm, tk), padding_mode=ZERO)
        b0 = ct.load(B, index=(2 * k, bn), shape=(tk, tn), padding_mode=ZERO)
        a1 = ct.load(A, index=(bm, 2 * k + 1), shape=(tm, tk), padding_mode=ZERO)
        b1 = ct.load(B, index=(2 * k + 1, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = acc + a0 @ b0
        acc = ct.mma(a1, b1, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_k_loop_inside_runtime_if(A, B, Bias, Y, use_mm: int, tm: C[int], tn: C[int], tk: C[int]):
    """The whole K loop inside ``if use_mm != 0`` (a runtime flag); otherwise the output is the bias
    broadcast.  The bias is added in both branches."""
    bm, bn = ct.bid(0), ct.bid(1)
    bias = ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    if use_mm != 0:
        for k in range(ct.cdiv(A.shape[1], tk)):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                         ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=(acc + bias[None, :]).astype(Y.dtype))


@ct.kernel
def gemm_k_loop_counting_down(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The K tiles visited last to first (``k = nk - 1 - i``: cuTile 1.7 refuses ``range(nk - 1, -1,
    -1)``, "Step must be positive"), K = 200 ragged (the first tile visited is the zero-padded one)."""
    bm, bn = ct.bid(0), ct.bid(1)
    nk = ct.cdiv(A.shape[1], tk)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for i in range(nk):
        k = nk - 1 - i
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_k_step_static_iter_two(A, B, Y, U: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Each K step unrolled by ``ct.static_iter(range(U))`` over ``U`` sub-tiles of ``tk`` (K = 256, a
    multiple of ``U * tk``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(A.shape[1] // (U * tk)):
        for u in ct.static_iter(range(U)):
            acc = ct.mma(ct.load(A, index=(bm, k * U + u), shape=(tm, tk), padding_mode=ZERO),
                         ct.load(B, index=(k * U + u, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_k_range_from_args(A, B, Y, k_lo: int, k_hi: int, tm: C[int], tn: C[int], tk: C[int]):
    """Only the K tiles ``[k_lo, k_hi)`` passed at launch (a sub-range of K: ``A[:, k_lo*tk:k_hi*tk] @
    B[k_lo*tk:k_hi*tk]``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(k_lo, k_hi):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- GEMMs: epilogues


@ct.kernel
def gemm_row_max_row_sum_full_row(A, B, Y, RowMax, RowSum, tm: C[int], tn: C[int], tk: C[int]):
    """N = 100 in one 128-wide column tile: the output stored, and its row max (the padded columns
    masked to -inf) and row sum stored into two vectors."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, 0), shape=(tk, tn), padding_mode=ZERO), acc)
    ok = ct.arange(tn, dtype=ct.int32)[None, :] < Y.shape[1]
    ct.store(Y, index=(bm, 0), tile=acc.astype(Y.dtype))
    ct.store(RowMax, index=(bm,), tile=ct.max(ct.where(ok, acc, -math.inf), axis=1))
    ct.store(RowSum, index=(bm,), tile=ct.sum(acc, axis=1))


@ct.kernel
def gemm_softmax_after_full_row(X, W, P, tm: C[int], tn: C[int], tk: C[int]):
    """Logits ``X @ W`` for a full row (N = 100 in one 128-wide tile) turned into softmax probabilities
    in the epilogue (padded columns masked to -inf, natural ``ct.exp``), stored as f32."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, 0), shape=(tk, tn), padding_mode=ZERO), acc)
    s = ct.where(ct.arange(tn, dtype=ct.int32)[None, :] < P.shape[1], acc, -math.inf)
    e = ct.exp(s - ct.max(s, axis=1, keepdims=True))
    ct.store(P, index=(bm, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def gemm_column_sums_atomic(A, B, Y, ColSum, tm: C[int], tn: C[int], tk: C[int]):
    """The output stored and its column sums over the tile's valid rows added into a vector by
    ``ct.atomic_add`` (every row tile adds to the same columns)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))
    rows_ok = (bm * tm + ct.arange(tm, dtype=ct.int32))[:, None] < Y.shape[0]
    ct.atomic_add(ColSum, bn * tn + ct.arange(tn, dtype=ct.int32), ct.sum(ct.where(rows_ok, acc, 0.0), axis=0))


@ct.kernel
def gemm_alpha_ab_plus_beta_c(A, B, Cin, Y, alpha: float, beta: float, tm: C[int], tn: C[int], tk: C[int]):
    """BLAS ``alpha * A @ B + beta * C``: the accumulator started from ``beta * C`` (an f16 C tile read
    before the loop) and ``alpha`` applied to each product (``ct.mma(a * alpha, ...)`` is not written:
    the accumulator is scaled at the end after subtracting the start, the user's way)."""
    bm, bn = ct.bid(0), ct.bid(1)
    c0 = ct.load(Cin, index=(bm, bn), shape=(tm, tn), padding_mode=ZERO).astype(ct.float32) * beta
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=(acc * alpha + c0).astype(Y.dtype))


@ct.kernel
def gemm_acc_init_from_residual(A, B, R, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The accumulator initialised from a residual tile (``acc = R tile as f32``) instead of zeros, then
    the K loop (``Y = R + A @ B``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.load(R, index=(bm, bn), shape=(tm, tn), padding_mode=ZERO).astype(ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def two_gemms_one_kernel_unchained(A1, B1, Y1, A2, B2, Y2, tm: C[int], tn: C[int], tk: C[int]):
    """Two independent GEMMs in one kernel on the same program's tile (``Y1 = A1 @ B1`` then ``Y2 = A2
    @ B2``, different K), not chained."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A1.shape[1], tk)):
        acc = ct.mma(ct.load(A1, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y1, index=(bm, bn), tile=acc.astype(Y1.dtype))
    acc2 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A2.shape[1], tk)):
        acc2 = ct.mma(ct.load(A2, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                      ct.load(B2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc2)
    ct.store(Y2, index=(bm, bn), tile=acc2.astype(Y2.dtype))


@ct.kernel
def lora_linear_two_products(X, W, La, Lb, Y, scale: float, tm: C[int], tn: C[int], tk: C[int], R: C[int]):
    """LoRA: ``Y = X @ W + scale * (X @ A) @ B`` with rank ``R`` = 16: the K loop accumulates both
    ``X @ W`` and ``X @ A`` ([tm, R]), then one more product by B ([R, tn])."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    xa = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
        xa = ct.mma(x, ct.load(La, index=(k, 0), shape=(tk, R), padding_mode=ZERO), xa)
    lb = ct.load(Lb, index=(0, bn), shape=(R, tn), padding_mode=ZERO)
    acc = ct.mma((xa * scale).astype(ct.float16), lb, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_dropout_mask_array(Q, K, V, Keep, O, qk_scale: float, inv_keep: float, BM: C[int], BN: C[int],
                            D: C[int]):
    """Attention dropout from a uint8 keep mask ``[BH, S, S]``: P multiplied by ``keep * 1 / (1 - p)``
    before ``P V``; the row sum ``l`` from the undropped P (as the reference does), exp2."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(K.shape[1], BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        keep = ct.load(Keep, index=(bh, qt, j), shape=(1, BM, BN), padding_mode=ZERO).reshape((BM, BN))
        pd = p * keep.astype(ct.float32) * inv_keep
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(pd.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_key_padding_lengths(Q, K, V, Lens, O, qk_scale: float, H: C[int], BM: C[int], BN: C[int], D: C[int]):
    """A key padding mask from per-batch lengths (``Lens[b]``, ``bh = b * H + h``): keys ``>= len``
    masked, the key loop running over every key tile (lengths 150 and 37 of 192)."""
    qt, bh = ct.bid(0), ct.bid(1)
    n = ct.load(Lens, index=(bh // H,), shape=(1,)).reshape((1, 1))
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(K.shape[1], BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_out_times_reciprocal_l(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The output normalised by ``acc * (1.0 / l)`` (the reciprocal first), natural ``ct.exp`` with the
    scale applied to the scores, keys ragged (200)."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc * (1.0 / l_i)).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_flash_decode_split_kv(Q, K, V, Op, Mp, Lp, qk_scale: float, KS: C[int], BM: C[int], BN: C[int],
                               D: C[int]):
    """Flash-decoding's first kernel: one query (q length 1 in a 16-row tile), split ``s = bid(0)`` of
    the keys (``KS`` keys each, 300 keys in 3 splits of 128, the last ragged) stores its unnormalised
    ``O``, its row max and its row sum (log2 units) per split; the tests combine them in numpy."""
    s_id, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for jj in range(KS // BN):
        j = s_id * (KS // BN) + jj
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(Op, index=(bh, s_id, 0, 0), tile=acc.reshape((1, 1, BM, D)))
    ct.store(Mp, index=(bh, s_id, 0), tile=m_i.reshape((1, 1, BM)))
    ct.store(Lp, index=(bh, s_id, 0), tile=l_i.reshape((1, 1, BM)))


@ct.kernel
def attn_mqa_decode_heads_as_rows(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Multi-query decode: the ``G`` = 6 query heads sharing one KV head, one token each, packed as the
    rows of one 16-row Q tile (``Q [B, G, D]``), keys ragged (300)."""
    b = ct.bid(0)
    nk = K.shape[1]
    q = ct.load(Q, index=(b, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, 0, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bwd_dv_only(Q, K, dO, Lse, dV, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The backward's dV alone: per key tile, over query tiles, ``S^T = K Q^T``, ``P^T = exp2(S^T *
    scale - lse)`` from the saved log2-unit LSE, ``dV += P^T dO`` (no causal mask)."""
    kt, bh = ct.bid(0), ct.bid(1)
    k = ct.load(K, index=(bh, kt, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    dv = ct.zeros((BN, D), dtype=ct.float32)
    for i in range(ct.cdiv(Q.shape[1], BM)):
        q = ct.load(Q, index=(bh, i, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
        lse = ct.load(Lse, index=(bh, i), shape=(1, BM), padding_mode=ZERO).reshape((1, BM))
        st = ct.mma(k, ct.transpose(q), ct.zeros((BN, BM), dtype=ct.float32))
        pt = ct.exp2(st * qk_scale - lse)
        do = ct.load(dO, index=(bh, i, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
        dv = ct.mma(pt.astype(ct.float16), do, dv)
    ct.store(dV, index=(bh, kt, 0), tile=dv.reshape((1, BN, D)))


@ct.kernel
def attn_causal_two_key_loops(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal attention written as two key loops (BM == BN): the tiles strictly below the diagonal
    unmasked, then the diagonal tile alone with the mask."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(qt):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    k = ct.load(K, index=(bh, qt, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
    s = ct.where(ct.arange(BN, dtype=ct.int32)[None, :] <= ct.arange(BM, dtype=ct.int32)[:, None], s, NEG)
    m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
    p = ct.exp2(s - m_new)
    alpha = ct.exp2(m_i - m_new)
    l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
    v = ct.load(V, index=(bh, qt, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_sigmoid_no_softmax(Q, K, V, O, qk_scale: float, bias: float, BM: C[int], BN: C[int], D: C[int]):
    """Sigmoid attention: ``P = sigmoid(S * scale + bias)`` (written ``1 / (1 + exp(-x))``), no row
    state, ``acc += P V``; keys ragged (200), the padded keys masked to 0."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale + bias
        p = 1.0 / (1.0 + ct.exp(-s))
        p = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, p, 0.0)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc)
    ct.store(O, index=(bh, qt, 0), tile=acc.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_scale_folded_into_q(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The scale (times log2 e) folded into Q before the loop (``q = (q * scale).astype(f16)``), the
    scores used as they come out of the product, causal, ``S = 256``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    q = (q.astype(ct.float32) * (qk_scale * LOG2E)).astype(ct.float16)
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_two_pass_softmax(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """A two-pass softmax: a first key loop computes the row max and sum (online), a second computes
    ``P V`` with the final statistics (no rescaling of the accumulator); keys ragged (200)."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        l_i = l_i * ct.exp2(m_i - m_new) + ct.sum(ct.exp2(s - m_new), axis=1, keepdims=True)
        m_i = m_new
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        p = ct.exp2(s - m_i) / l_i
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc)
    ct.store(O, index=(bh, qt, 0), tile=acc.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_bm128_bn64_bf16_lse(Q, K, V, O, Lse, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """bf16 causal attention on 128-row query tiles and 64-key tiles (two key tiles per diagonal), the
    natural-log LSE ``m * ln 2 + log(l)`` stored into ``[BH, S]``, ragged S = 200."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(min(ct.cdiv((qt + 1) * BM, BN), ct.cdiv(nk, BN))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((kpos <= qpos) & (kpos < nk), s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(v.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    ct.store(Lse, index=(bh, qt), tile=(m_i / LOG2E + ct.log(l_i)).reshape((1, BM)))


@ct.kernel
def attn_gqa_group_loop_inside(Q, K, V, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int], D: C[int]):
    """GQA with the ``G`` query heads of one KV head handled by one program: a static loop over the
    group (``ct.static_iter``) around the key loop, each head's output stored; ``Q [B, H, S, D]``."""
    qt, kh, b = ct.bid(0), ct.bid(1), ct.bid(2)
    for g in ct.static_iter(range(G)):
        h = kh * G + g
        q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D), padding_mode=ZERO).reshape((BM, D))
        m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
        l_i = ct.zeros((BM, 1), dtype=ct.float32)
        acc = ct.zeros((BM, D), dtype=ct.float32)
        for j in range(ct.cdiv(K.shape[2], BN)):
            k = ct.load(K, index=(b, kh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
            s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
            m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
            p = ct.exp2(s - m_new)
            alpha = ct.exp2(m_i - m_new)
            l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
            v = ct.load(V, index=(b, kh, j, 0), shape=(1, 1, BN, D), padding_mode=ZERO).reshape((BN, D))
            acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
            m_i = m_new
        ct.store(O, index=(b, h, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_scores_to_probs_then_pv_f32_out(Q, K, V, O, P, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Attention over at most one key tile (S = 100 keys in a 128-wide tile, no key loop): the
    probabilities stored (f16) and ``P V`` stored as f32, natural exp."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    k = ct.load(K, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
    s = ct.where(ct.arange(BN, dtype=ct.int32)[None, :] < nk, s, -math.inf)
    e = ct.exp(s - ct.max(s, axis=1, keepdims=True))
    p = (e / ct.sum(e, axis=1, keepdims=True)).astype(ct.float16)
    v = ct.load(V, index=(bh, 0, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    o = ct.mma(p, v, ct.zeros((BM, D), dtype=ct.float32))
    ct.store(P, index=(bh, qt, 0), tile=p.reshape((1, BM, BN)))
    ct.store(O, index=(bh, qt, 0), tile=o.reshape((1, BM, D)))



# ----------------------------------------------------------------------------------------------- second batch


@ct.kernel
def attn_paged_kv_block_table(Q, Kc, Vc, Table, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Paged attention (decode-like, 16-row query tiles): the keys of batch ``b`` live in cache blocks
    of ``BN`` rows listed by ``Table[b, j]`` (``Kc [num_blocks, BN, D]``), the block read inside the key
    loop; the sequence length is the table's width times ``BN``."""
    b = ct.bid(0)
    q = ct.load(Q, index=(b, 0, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(Table.shape[1]):
        blk = ct.load(Table, index=(b, j), shape=(1, 1)).item()
        k = ct.load(Kc, index=(blk, 0, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(Vc, index=(blk, 0, 0), shape=(1, BN, D)).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, 0, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def gemm_row_max_argmax_per_column_tile(X, W, Mx, Am, tm: C[int], tn: C[int], tk: C[int]):
    """Greedy sampling's first pass: logits ``X @ W`` never stored; per (row, column tile) the max and
    its column (``ct.argmax`` plus the tile's offset) stored into ``[M, tiles_n]`` arrays; V = 500
    ragged (padded columns masked to -inf)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    s = ct.where(cols[None, :] < W.shape[1], acc, -math.inf)
    ct.store(Mx, index=(bm, bn), tile=ct.max(s, axis=1, keepdims=True))
    ct.store(Am, index=(bm, bn), tile=ct.argmax(s, axis=1, keepdims=True).astype(ct.int32) + bn * tn)


@ct.kernel
def gemm_int8_requant_int8_out(A, B, Bias, Y, scale: float, tm: C[int], tn: C[int], tk: C[int]):
    """W8A8 requantisation: int32 accumulator plus an int32 bias, times a scale, rounded half up
    (``ct.floor(x + 0.5)``), clamped to [-128, 127] and stored as int8."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    bias = ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)
    y = ct.floor((acc + bias[None, :]).astype(ct.float32) * scale + 0.5)
    ct.store(Y, index=(bm, bn), tile=ct.minimum(ct.maximum(y, -128.0), 127.0).astype(ct.int8))


@ct.kernel
def attn_bwd_dk_dv(Q, K, V, dO, Lse, Delta, dK, dV, qk_scale: float, sm_scale: float, BM: C[int], BN: C[int],
                   D: C[int]):
    """The backward's dK and dV together (FlashAttention-2's key-tile loop over query tiles, no mask):
    ``S^T = K Q^T``, ``P^T = exp2(S^T * scale - lse)``, ``dV += P^T dO``, ``dP^T = V dO^T``, ``dS^T =
    P^T (dP^T - delta)``, ``dK += dS^T Q``; four dots per step, two accumulators."""
    kt, bh = ct.bid(0), ct.bid(1)
    k = ct.load(K, index=(bh, kt, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    v = ct.load(V, index=(bh, kt, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    dk = ct.zeros((BN, D), dtype=ct.float32)
    dv = ct.zeros((BN, D), dtype=ct.float32)
    for i in range(ct.cdiv(Q.shape[1], BM)):
        q = ct.load(Q, index=(bh, i, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
        do = ct.load(dO, index=(bh, i, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
        lse = ct.load(Lse, index=(bh, i), shape=(1, BM), padding_mode=ZERO).reshape((1, BM))
        delta = ct.load(Delta, index=(bh, i), shape=(1, BM), padding_mode=ZERO).reshape((1, BM))
        pt = ct.exp2(ct.mma(k, ct.transpose(q), ct.zeros((BN, BM), dtype=ct.float32)) * qk_scale - lse)
        dv = ct.mma(pt.astype(ct.float16), do, dv)
        dpt = ct.mma(v, ct.transpose(do), ct.zeros((BN, BM), dtype=ct.float32))
        dst = pt * (dpt - delta)
        dk = ct.mma(dst.astype(ct.float16), q, dk)
    ct.store(dK, index=(bh, kt, 0), tile=(dk * sm_scale).reshape((1, BN, D)))
    ct.store(dV, index=(bh, kt, 0), tile=dv.reshape((1, BN, D)))


@ct.kernel
def attn_cross_causal_bottom_right(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal attention aligned bottom-right (query ``i`` of ``nq`` sees keys ``<= i + nk - nq``: the
    queries are the last ``nq`` positions), 100 queries on 300 keys, the key loop bounded by the last
    query of the tile."""
    qt, bh = ct.bid(0), ct.bid(1)
    nq, nk = Q.shape[1], K.shape[1]
    off = nk - nq
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    qpos = (off + qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(min(ct.cdiv(off + (qt + 1) * BM, BN), ct.cdiv(nk, BN))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qpos, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def gemm_store_f32_and_f16_copies(A, B, Y32, Y16, tm: C[int], tn: C[int], tk: C[int]):
    """The accumulator stored twice: as f32 and rounded to f16 (a master copy and a compute copy)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y32, index=(bm, bn), tile=acc)
    ct.store(Y16, index=(bm, bn), tile=acc.astype(ct.float16))


@ct.kernel
def gemm_l2_normalize_rows_full_row(X, W, Y, eps: float, tm: C[int], tn: C[int], tk: C[int]):
    """Embeddings ``X @ W`` (N = 96 in one 128-wide tile) L2-normalised per row in the epilogue
    (``y / sqrt(sum(y^2) + eps)``, the padded columns are zero), stored as f16."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, 0), shape=(tk, tn), padding_mode=ZERO), acc)
    norm = ct.sqrt(ct.sum(acc * acc, axis=1, keepdims=True) + eps)
    ct.store(Y, index=(bm, 0), tile=(acc / norm).astype(Y.dtype))


@ct.kernel
def attn_head_dim_32_tiles_128(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Head dim 32 (one K step of the first dot is two WGMMA K steps) on 128 x 128 score tiles, keys
    ragged (300)."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def bmm_varlen_k_from_array(A, B, Klen, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A batched GEMM whose batch ``b`` uses only its first ``Klen[b]`` columns of A / rows of B (the
    rest of the stored K is garbage): the K loop runs ``cdiv(Klen[b], tk)`` tiles and the last tile's
    columns past ``Klen[b]`` are masked to zero in A."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    klen = ct.load(Klen, index=(b,), shape=(1,)).item()
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(klen, tk)):
        a = ct.load(A, index=(b, bm, k), shape=(1, tm, tk), padding_mode=ZERO).reshape((tm, tk))
        a = ct.where((k * tk + ct.arange(tk, dtype=ct.int32))[None, :] < klen, a, 0.0)
        w = ct.load(B, index=(b, k, bn), shape=(1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(b, bm, bn), tile=acc.astype(Y.dtype).reshape((1, tm, tn)))



# ----------------------------------------------------------------------------------------------- third batch


@ct.kernel
def attn_kv_tile_range_from_arrays(Q, K, V, Lo, Hi, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Each batch attends to the key tiles ``[Lo[b], Hi[b])`` (read from arrays: a per-sequence window
    of whole tiles), no mask."""
    qt, b = ct.bid(0), ct.bid(1)
    lo = ct.load(Lo, index=(b,), shape=(1,)).item()
    hi = ct.load(Hi, index=(b,), shape=(1,)).item()
    q = ct.load(Q, index=(b, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(lo, hi):
        k = ct.load(K, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(b, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def gemm_block_sparse_k_index_table(A, B, Cnt, Idx, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Block-sparse A: row tile ``bm`` has ``Cnt[bm]`` nonzero K tiles listed in ``Idx[bm, :]``; the K
    loop reads each tile's index from the table (a scalar load in the loop) and skips the others."""
    bm, bn = ct.bid(0), ct.bid(1)
    cnt = ct.load(Cnt, index=(bm,), shape=(1,)).item()
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for t in range(cnt):
        k = ct.load(Idx, index=(bm, t), shape=(1, 1)).item()
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_dot_under_if_in_k_loop(A, B, Y, k_stop: int, tm: C[int], tn: C[int], tk: C[int]):
    """The dot inside an ``if k < k_stop`` in the K loop (a runtime limit on the K tiles, the loop over
    every tile), so tiles ``>= k_stop`` add nothing."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        if k < k_stop:
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                         ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_splitk_bias_by_first_split(A, B, Bias, Cacc, S: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Strided split-K (split ``s = bid(2)`` takes K tiles ``s, s + S, ...``) whose first split alone
    adds the bias (``if s == 0:`` around the epilogue's add), partials added by ``ct.atomic_add``."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s, ct.cdiv(A.shape[1], tk), S):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    if s == 0:
        acc = acc + ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(Cacc, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def attn_bwd_dv_causal_from_diagonal(Q, K, dO, Lse, dV, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Causal dV: key tile ``kt`` visits the query tiles from its diagonal on (``range(kt * BN // BM,
    nq_tiles)``), the mask ``key <= query`` on ``P^T``, S = 200 ragged."""
    kt, bh = ct.bid(0), ct.bid(1)
    k = ct.load(K, index=(bh, kt, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
    kpos = (kt * BN + ct.arange(BN, dtype=ct.int32))[:, None]
    dv = ct.zeros((BN, D), dtype=ct.float32)
    for i in range(kt * BN // BM, ct.cdiv(Q.shape[1], BM)):
        q = ct.load(Q, index=(bh, i, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
        lse = ct.load(Lse, index=(bh, i), shape=(1, BM), padding_mode=ZERO).reshape((1, BM))
        st = ct.mma(k, ct.transpose(q), ct.zeros((BN, BM), dtype=ct.float32))
        qpos = (i * BM + ct.arange(BM, dtype=ct.int32))[None, :]
        pt = ct.where(kpos <= qpos, ct.exp2(st * qk_scale - lse), 0.0)
        do = ct.load(dO, index=(bh, i, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
        dv = ct.mma(pt.astype(ct.float16), do, dv)
    ct.store(dV, index=(bh, kt, 0), tile=dv.reshape((1, BN, D)))



# ----------------------------------------------------------------------------------------------- fourth batch


@ct.kernel
def bmm_persistent_bias_relu_bf16(A, B, Bias, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A persistent loop over every (batch, row tile, column tile) of a batched bf16 GEMM, the batch the
    slowest index, with a per-batch column bias (``Bias [L, N]``) and ReLU, bf16 out."""
    tiles_m = ct.cdiv(Y.shape[1], tm)
    tiles_n = ct.cdiv(Y.shape[2], tn)
    per = tiles_m * tiles_n
    for t in range(ct.bid(0), Y.shape[0] * per, ct.num_blocks(0)):
        b = t // per
        bm = (t % per) // tiles_n
        bn = t % tiles_n
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.cdiv(A.shape[2], tk)):
            a = ct.load(A, index=(b, bm, k), shape=(1, tm, tk), padding_mode=ZERO).reshape((tm, tk))
            w = ct.load(B, index=(b, k, bn), shape=(1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
            acc = ct.mma(a, w, acc)
        bias = ct.load(Bias, index=(b, bn), shape=(1, tn), padding_mode=ZERO)
        y = ct.maximum(acc + bias, 0.0)
        ct.store(Y, index=(b, bm, bn), tile=y.astype(Y.dtype).reshape((1, tm, tn)))


@ct.kernel
def attn_mask_array_shared_by_heads(Q, K, V, Mask, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """An arbitrary boolean attention mask ``[S, S]`` (uint8, 1 = attend) shared by every head, read per
    score tile: some rows see no key of a whole tile (their running max stays the finite minus
    infinity), every row sees at least one key."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(K.shape[1], BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        ok = ct.load(Mask, index=(qt, j), shape=(BM, BN), padding_mode=ZERO)
        s = ct.where(ok != 0, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_output_added_to_residual(Q, K, V, R, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The attention output added to a residual read in the epilogue (``O = R + softmax(Q K^T) V``, R
    f32), keys ragged (200)."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), NEG, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, NEG)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    r = ct.load(R, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    ct.store(O, index=(bh, qt, 0), tile=(r + acc / l_i).reshape((1, BM, D)))


S64 = 1.0 / math.sqrt(64) * LOG2E

_add("gemm_persistent_group_m_swizzle", gemm_persistent_group_m_swizzle,
     [_a((300, 128)), _a((128, 330)), _a((300, 330), F32), 2, 64, 64, 64], (7,), "gemm", outputs=(2,))
_add("gemm_persistent_column_major_tiles", gemm_persistent_column_major_tiles,
     [_a((200, 128)), _a((128, 200)), _a((200, 200)), 128, 64, 64], (3,), "gemm", outputs=(2,))
_add("gemm_group_m_swizzle_1d_grid", gemm_group_m_swizzle_1d_grid,
     [_a((300, 128)), _a((128, 200)), _a((300, 200)), 2, 64, 64, 64], (5 * 4,), "gemm", outputs=(2,))
_add("gemm_splitk_contiguous_atomic_add", gemm_splitk_contiguous_atomic_add,
     [_a((200, 320)), _a((320, 192)), _a((200, 192), F32), 2, 128, 64, 64], (2, 3, 3), "gemm", outputs=(2,))
_add("gemm_int8_int32_out", gemm_int8_int32_out,
     [_a((200, 200), I8), _a((200, 192), I8), _a((200, 192), I32), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("gemm_int8_row_col_scales_f16", gemm_int8_row_col_scales_f16,
     [_a((200, 256), I8), _a((256, 192), I8), _a((200,), F32), _a((192,), F32), _a((200, 192)), 128, 64, 64],
     (2, 3), "gemm", outputs=(4,))
_add("gemm_tf32_weight_nk_transposed", gemm_tf32_weight_nk_transposed,
     [_a((200, 96), F32), _a((100, 96), F32), _a((200, 100), F32), 64, 64, 32], (4, 2), "gemm", outputs=(2,))
_add("gemm_f32_in_bf16_in_loop", gemm_f32_in_bf16_in_loop,
     [_a((200, 128), F32), _a((128, 192), F32), _a((200, 192), F32), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("gemm_f16_acc_widened_at_end", gemm_f16_acc_widened_at_end,
     [_a((200, 128)), _a((128, 192)), _a((200, 192), F32), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("bmm_3d_tiles_mma_no_reshape", bmm_3d_tiles_mma_no_reshape,
     [_a((3, 200, 128)), _a((3, 128, 192)), _a((3, 200, 192)), 128, 64, 64], (2, 3, 3), "gemm", outputs=(2,))
_add("gemm_matmul_and_mma_halves", gemm_matmul_and_mma_halves,
     [_a((200, 256)), _a((256, 192)), _a((200, 192)), 128, 64, 64], (2, 3), "simt",
     error="2 dots in one K loop that do not read the same A tile", outputs=(2,))
_add("gemm_k_loop_inside_runtime_if", gemm_k_loop_inside_runtime_if,
     [_a((200, 128)), _a((128, 192)), _a((192,), F32), _a((200, 192), F32), 1, 128, 64, 64], (2, 3), "gemm",
     outputs=(3,), notes="found by this sweep: refused as 'failed to run agent dispatcher: a value computed by the "
                         "warp-specialized loop or its epilogue is used outside the agents' (the K loop inside an "
                         "scf.if); now tileas-guarded-k-loop runs it as the loop to select(flag != 0, nk, 0)")
_add("gemm_k_loop_counting_down", gemm_k_loop_counting_down,
     [_a((200, 200)), _a((200, 192)), _a((200, 192)), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("gemm_k_step_static_iter_two", gemm_k_step_static_iter_two,
     [_a((200, 256)), _a((256, 192)), _a((200, 192)), 2, 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("gemm_k_range_from_args", gemm_k_range_from_args,
     [_a((200, 320)), _a((320, 192)), _a((200, 192)), 1, 4, 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("gemm_row_max_row_sum_full_row", gemm_row_max_row_sum_full_row,
     [_a((200, 128)), _a((128, 100)), _a((200, 100), F32), _a((200,), F32), _a((200,), F32), 64, 128, 64], (4,),
     "gemm", outputs=(2, 3, 4))
_add("gemm_softmax_after_full_row", gemm_softmax_after_full_row,
     [_a((200, 128)), _a((128, 100)), _a((200, 100), F32), 64, 128, 64], (4,), "gemm", outputs=(2,))
_add("gemm_column_sums_atomic", gemm_column_sums_atomic,
     [_a((200, 128)), _a((128, 192)), _a((200, 192), F32), _a((192,), F32), 128, 64, 64], (2, 3), "gemm",
     outputs=(2, 3), notes="refused ('added atomically beside C is not supported yet') until sweep 33 (session 41): "
                           "a reduction of the result added atomically beside C is now a side output of the tier")
_add("gemm_alpha_ab_plus_beta_c", gemm_alpha_ab_plus_beta_c,
     [_a((200, 128)), _a((128, 192)), _a((200, 192)), _a((200, 192), F32), 0.5, -2.0, 128, 64, 64], (2, 3), "gemm",
     outputs=(3,))
_add("gemm_acc_init_from_residual", gemm_acc_init_from_residual,
     [_a((200, 128)), _a((128, 192)), _a((200, 192)), _a((200, 192)), 128, 64, 64], (2, 3), "gemm", outputs=(3,))
_add("two_gemms_one_kernel_unchained", two_gemms_one_kernel_unchained,
     [_a((200, 128)), _a((128, 192)), _a((200, 192)), _a((200, 64)), _a((64, 192)), _a((200, 192), F32), 128, 64,
      64], (2, 3), "simt", error="2 loops with dots one after another", outputs=(2, 5))
_add("lora_linear_two_products", lora_linear_two_products,
     [_a((200, 128)), _a((128, 192)), _a((128, 16)), _a((16, 192)), _a((200, 192)), 0.5, 128, 64, 64, 16], (2, 3),
     "simt", error="the first dot's N (the second dot's K) is 16", outputs=(4,))
_add("attn_dropout_mask_array", attn_dropout_mask_array,
     [_a((2, 128, 64)), _a((2, 192, 64)), _a((2, 192, 64)), _a((2, 128, 192), U8), _a((2, 128, 64)), S64, 1.25, 64,
      64, 64], (2, 2), "chained", outputs=(4,))
_add("attn_key_padding_lengths", attn_key_padding_lengths,
     [_a((4, 128, 64)), _a((4, 192, 64)), _a((4, 192, 64)), _a((2,), I32), _a((4, 128, 64)), S64, 2, 64, 64, 64],
     (2, 4), "chained", outputs=(4,))
_add("attn_out_times_reciprocal_l", attn_out_times_reciprocal_l,
     [_a((2, 128, 64)), _a((2, 200, 64)), _a((2, 200, 64)), _a((2, 128, 64)), 0.125, 64, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_flash_decode_split_kv", attn_flash_decode_split_kv,
     [_a((4, 1, 64)), _a((4, 300, 64)), _a((4, 300, 64)), _a((4, 3, 1, 64), F32), _a((4, 3, 1), F32),
      _a((4, 3, 1), F32), S64, 128, 16, 64, 64], (3, 4), "chained", outputs=(3, 4, 5))
_add("attn_mqa_decode_heads_as_rows", attn_mqa_decode_heads_as_rows,
     [_a((4, 6, 64)), _a((4, 300, 64)), _a((4, 300, 64)), _a((4, 6, 64)), S64, 16, 64, 64], (4,), "chained",
     outputs=(3,))
_add("attn_bwd_dv_only", attn_bwd_dv_only,
     [_a((2, 200, 64)), _a((2, 128, 64)), _a((2, 200, 64)), _a((2, 200), F32), _a((2, 128, 64), F32), S64, 64, 64,
      64], (2, 2), "chained", outputs=(4,))
_add("attn_causal_two_key_loops", attn_causal_two_key_loops,
     [_a((2, 256, 64))] * 4 + [S64, 64, 64, 64], (4, 2), "chained", outputs=(3,))
_add("attn_sigmoid_no_softmax", attn_sigmoid_no_softmax,
     [_a((2, 128, 64)), _a((2, 200, 64)), _a((2, 200, 64)), _a((2, 128, 64), F32), 0.125, -2.0, 64, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_scale_folded_into_q", attn_scale_folded_into_q,
     [_a((2, 256, 64))] * 4 + [0.125, 64, 64, 64], (4, 2), "chained", outputs=(3,))
_add("attn_two_pass_softmax", attn_two_pass_softmax,
     [_a((2, 128, 64)), _a((2, 200, 64)), _a((2, 200, 64)), _a((2, 128, 64)), S64, 64, 64, 64], (2, 2), "simt",
     error="2 loops with dots one after another", outputs=(3,))
_add("attn_causal_bm128_bn64_bf16_lse", attn_causal_bm128_bn64_bf16_lse,
     [_a((2, 200, 64), BF16)] * 4 + [_a((2, 200), F32), S64, 128, 64, 64], (2, 2), "chained", outputs=(3, 4))
_add("attn_gqa_group_loop_inside", attn_gqa_group_loop_inside,
     [_a((2, 4, 128, 64)), _a((2, 2, 192, 64)), _a((2, 2, 192, 64)), _a((2, 4, 128, 64)), S64, 2, 64, 64, 64],
     (2, 2, 2), "chained", outputs=(3,),
     notes="session 26: was refused ('the tile is stored inside a loop around its computation'); now the static "
           "loop over the group's heads runs as G times as many instances of the chained tier's persistent kernel "
           "(chained_work_loop.flatten_inner_work_loop)")
_add("attn_scores_to_probs_then_pv_f32_out", attn_scores_to_probs_then_pv_f32_out,
     [_a((2, 200, 64)), _a((2, 100, 64)), _a((2, 100, 64)), _a((2, 200, 64), F32), _a((2, 200, 100)), 0.125, 64,
      128, 64], (4, 2), "simt", error="a second store of a [1, 64, 128] tile", outputs=(3, 4),
     notes="session 26: was refused as 'this dot is not in a loop'; the chain now gets a key loop of one trip, "
           "and the chained tier refuses the probabilities' store beside O")
_add("attn_paged_kv_block_table", attn_paged_kv_block_table,
     [_a((3, 6, 64)), _a((10, 64, 64)), _a((10, 64, 64)), _a((3, 4), I32), _a((3, 6, 64)), S64, 16, 64, 64], (3,),
     "chained", outputs=(4,))
_add("gemm_row_max_argmax_per_column_tile", gemm_row_max_argmax_per_column_tile,
     [_a((200, 128)), _a((128, 500)), _a((200, 4), F32), _a((200, 4), I32), 128, 128, 64], (2, 4), "simt",
     error="the product tile is not stored", outputs=(2, 3))
_add("gemm_int8_requant_int8_out", gemm_int8_requant_int8_out,
     [_a((200, 256), I8), _a((256, 192), I8), _a((192,), I32), _a((200, 192), I8), 0.002, 128, 64, 64], (2, 3),
     "gemm", outputs=(3,),
     notes="found by this sweep: refused as 'output element type i8 is not supported yet by the WGMMA lowering'; "
           "now an i8 C truncated from the epilogue's i32 math is stored by the direct epilogue (out dtype s8: "
           "each value's low byte)")
_add("attn_bwd_dk_dv", attn_bwd_dk_dv,
     [_a((2, 200, 64)), _a((2, 128, 64)), _a((2, 128, 64)), _a((2, 200, 64)), _a((2, 200), F32), _a((2, 200), F32),
      _a((2, 128, 64), F32), _a((2, 128, 64), F32), S64, 0.125, 64, 64, 64], (2, 2), "chained", outputs=(6, 7))
_add("attn_cross_causal_bottom_right", attn_cross_causal_bottom_right,
     [_a((2, 100, 64)), _a((2, 300, 64)), _a((2, 300, 64)), _a((2, 100, 64)), S64, 64, 64, 64], (2, 2), "chained",
     outputs=(3,))
_add("gemm_store_f32_and_f16_copies", gemm_store_f32_and_f16_copies,
     [_a((200, 128)), _a((128, 192)), _a((200, 192), F32), _a((200, 192)), 128, 64, 64], (2, 3), "gemm",
     outputs=(2, 3))
_add("gemm_l2_normalize_rows_full_row", gemm_l2_normalize_rows_full_row,
     [_a((200, 128)), _a((128, 96)), _a((200, 96)), 1e-6, 64, 128, 64], (4,), "gemm", outputs=(2,))
_add("attn_head_dim_32_tiles_128", attn_head_dim_32_tiles_128,
     [_a((2, 256, 32)), _a((2, 300, 32)), _a((2, 300, 32)), _a((2, 256, 32)), 1.0 / math.sqrt(32) * LOG2E, 128, 128,
      32], (2, 2), "chained", outputs=(3,))
_add("bmm_varlen_k_from_array", bmm_varlen_k_from_array,
     [_a((3, 200, 256)), _a((3, 256, 192)), _a((3,), I32), _a((3, 200, 192), F32), 128, 64, 64], (2, 3, 3), "simt",
     error="a scalar other than constants and kernel arguments", outputs=(3,),
     notes="found by this sweep: the refusal named 'nv_tileas.dot' as the op computing A from its tile (the "
           "K-tail mask reads the loop's induction variable, a block argument); now the op reading it, at the "
           "user's k * tk.  Session 31: the GEMM tier's computed operands read the K loop's index and ct.arange "
           "(sweep 22's K-tail masks); this mask's bound is still refused: Klen[b] is loaded from memory (at the "
           "user's ct.load(Klen, ...).item())")
_add("attn_kv_tile_range_from_arrays", attn_kv_tile_range_from_arrays,
     [_a((3, 128, 64)), _a((3, 320, 64)), _a((3, 320, 64)), _a((3,), I32), _a((3,), I32), _a((3, 128, 64)), S64, 64,
      64, 64], (2, 3), "chained", outputs=(5,))
_add("gemm_block_sparse_k_index_table", gemm_block_sparse_k_index_table,
     [_a((256, 384)), _a((384, 192)), _a((2,), I32), _a((2, 6), I32), _a((256, 192), F32), 128, 64, 64], (2, 3),
     "simt", error="at (program id 0, an expression) does not feed a 128x64x64 dot", outputs=(4,))
_add("gemm_dot_under_if_in_k_loop", gemm_dot_under_if_in_k_loop,
     [_a((200, 320)), _a((320, 192)), _a((200, 192), F32), 3, 128, 64, 64], (2, 3), "gemm", outputs=(2,),
     notes="found by this sweep: refused as 'the epilogue reads a tile that the K loop computes beside the dot' "
           "(cuTile splits the loop at k_stop: a dot loop, then an empty loop over the rest); now "
           "tileas-guarded-k-loop drops the empty loop")
_add("gemm_splitk_bias_by_first_split", gemm_splitk_bias_by_first_split,
     [_a((200, 320)), _a((320, 192)), _a((192,), F32), _a((200, 192), F32), 2, 128, 64, 64], (2, 3, 2), "gemm",
     outputs=(3,))
_add("attn_bwd_dv_causal_from_diagonal", attn_bwd_dv_causal_from_diagonal,
     [_a((2, 200, 64)), _a((2, 200, 64)), _a((2, 200, 64)), _a((2, 200), F32), _a((2, 200, 64), F32), S64, 64, 64,
      64], (4, 2), "chained", outputs=(4,))
_add("bmm_persistent_bias_relu_bf16", bmm_persistent_bias_relu_bf16,
     [_a((3, 200, 128), BF16), _a((3, 128, 192), BF16), _a((3, 192), F32), _a((3, 200, 192), BF16), 128, 64, 64],
     (5,), "gemm", outputs=(3,))
_add("attn_mask_array_shared_by_heads", attn_mask_array_shared_by_heads,
     [_a((4, 192, 64)), _a((4, 192, 64)), _a((4, 192, 64)), _a((192, 192), U8), _a((4, 192, 64)), S64, 64, 64, 64],
     (3, 4), "chained", outputs=(4,))
_add("attn_output_added_to_residual", attn_output_added_to_residual,
     [_a((2, 128, 64)), _a((2, 200, 64)), _a((2, 200, 64)), _a((2, 128, 64), F32), _a((2, 128, 64), F32), S64, 64,
      64, 64], (2, 2), "chained", outputs=(4,))
