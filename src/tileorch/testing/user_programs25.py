"""The twenty-fifth user sweep (session 33: acceptance runs cuTile programs nobody here has seen): cuTile 1.7
programs written as users write them, weighted to what the earlier sweeps covered least -- dots of every kind
-- and, without a dot, reductions, integer math, conversions, control flow, memory and launch shapes.

Dots: a GEMM whose K is no multiple of its K tile, B read transposed through ``ct.permute`` of an ``[N, K]``
tile, A read transposed (``ct.transpose`` of a ``[K, M]`` tile), a batched GEMM on 3-D tiles, fp8 (e4m3 x e4m3
and e5m2 x e4m3) to f32 and to f16, int8 x int8 to int32, an epilogue with a row and a column scale vector, bias
+ GELU + residual, split-K written by the user with ``ct.atomic_add`` (program axis 2 over K slices), a dot
inside an ``if`` on a kernel argument, two dots summed into one accumulator, a K loop whose trip count is a
kernel argument, a one-row tile (a GEMV row), 16 x 16 x 16 and 256-row tiles, an f16 accumulator.

Without a dot: argmin with ties (first index) along each axis, ``ct.prod`` with and without keepdims, any / all
of bool tiles (``ct.max`` / ``ct.min`` of bool), a reduction over axis 0 of a 3-D tile, scans (a running max by
``ct.scan`` with ``ct.maximum``, a reversed int32 cumsum), int64 floor division / modulo of negatives by
negative divisors and ``divmod``, int64 / uint64 shifts and bitwise ops, uint8 / uint16 min / max across the sign
bit, f32 -> e4m3 / e5m2 (saturating), bf16 <-> f16, float <-> int (truncation toward zero, 2**24 + 1, int64 ->
f64), bool <-> numbers, a ``while`` loop leaving on a data-dependent condition, nested loops with a dependent
inner bound (a lower triangle), an early ``return``, masked gather / scatter, ``atomic_cas`` (first program
wins), ``atomic_xchg``, ``atomic_min`` / ``atomic_max`` on int32 and uint32, ``atomic_and`` / ``or`` / ``xor``,
a column tile ``(BM, 1)``, an every-other-column view, every padding mode, 1-D / 2-D / 3-D grids and a grid of
4000 programs (more than the machine holds at once).

Found by this sweep (each silent before, now said where the user looks; no program computed a wrong result on
the SIMT interpreter or the PTX emulator -- the fp8 GEMMs and the column-major B view run on the GPU only):
``x.astype(ct.bool_)`` of a float is cuTile's ``ftoi`` to ``i1`` (truncation saturating to [0, 1]: 0.5 and
negatives false, not ``x != 0``): a located warning (``bool_cast_warnings.py``); an f16 accumulator
(``ct.zeros(..., dtype=ct.float16)``) is kept in f32 by the WGMMA kernel: a located remark at the dot; a float
given to a parameter annotated ``int`` compiles a float32 variant (cuTile types scalars by value): a launch
warning naming the parameter.  The sweep's bytecode fuzz (one byte changed at a time, ``tileorch compile``):
a tier GEMM's epilogue vector with a static stride past 2**31 was read with 32-bit index arithmetic (2**31 + 8:
a negative stride, silently; 2**48 + 1: an internal error) -- now refused at the view's line
(tests/unit/test_user_sweep25_invalid.py).  cuTile's own: :data:`REJECTED_BY_CUTILE` (e5m2 x e4m3 in one
``mma``).
:data:`INVALID`: an MX ``mma_scaled`` and a 4M-element tile, located errors.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep25_compile.py (path, remarks, ptxas), tests/unit/test_user_sweep25_interp.py (the
SIMT interpreter against numpy), tests/unit/test_user_sweep25_emulated.py (the PTX emulator; the tier's GEMMs on
its WGMMA), tests/unit/test_user_sweep25_invalid.py (the invalid inputs) and tests/gpu/test_user_sweep25_gpu.py
(the GPU, the same references).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF
F16, BF16, F32, F64 = "float16", "bfloat16", "float32", "float64"
I8, I16, I32, I64, U8, U16, U32, U64, B = "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", \
    "bool_"
E4M3, E5M2 = "float8_e4m3fn", "float8_e5m2"


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


# ----------------------------------------------------------------------------------------------- GEMMs


@ct.kernel
def gemm_k_not_a_multiple_of_the_tile(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C = A @ B`` with K = 100 and a K tile of 32 (the last K tile a partial one, zero padded), M and N ragged
    too; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_b_stored_nk_permuted(A, W, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``y = x @ W^T`` with W as nn.Linear stores it (``[N, K]``): each ``(TN, TK)`` tile of W read and turned by
    ``ct.permute(w, (1, 0))``; bf16 in, f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        w = ct.load(W, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(a, ct.permute(w, (1, 0)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_a_stored_km_transposed(AT, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C = A^T @ B`` with ``A^T`` stored ``[K, M]`` (a weight gradient's ``x^T dy``): the ``(TK, TM)`` tile
    turned by ``ct.transpose``; f16 in, f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(AT.shape[0], TK)):
        at = ct.load(AT, index=(k, bm), shape=(TK, TM), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(ct.transpose(at), b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def bmm_three_d_tiles(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``torch.bmm`` on ``[L, M, K] @ [L, K, N]`` with 3-D tiles ``(1, TM, TK)`` and ``(1, TK, TN)`` multiplied
    as they are (a batch of one per tile), the batch on grid axis 2."""
    bm, bn, l = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(l, bm, k), shape=(1, TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(l, k, bn), shape=(1, TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(l, bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def fp8_e4m3_gemm_scaled_f32_out(A, Bm, C, scale: float, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An fp8 GEMM as a quantized linear layer runs it: e4m3 x e4m3 into f32, times the product of the two
    per-tensor scales (a kernel argument), f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc * scale)


@ct.kernel
def fp8_e5m2_gemm_f16_out(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A backward-pass fp8 GEMM with both operands in e5m2 (gradients' range), f32 accumulation, f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(ct.float16))


@ct.kernel
def fp8_e5m2_by_e4m3_gemm_f16_out(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Gradients in e5m2 times weights in e4m3 (mixed fp8 formats in one ``mma``): cuTile refuses it at the
    user's line (operands of one dtype, int8 / uint8 aside)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(ct.float16))


@ct.kernel
def int8_gemm_int32_accumulate(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An int8 x int8 GEMM accumulating in int32 (W8A8 before its dequantizing epilogue), int32 out; K = 160."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_row_and_column_scale_vectors(A, Bm, RowS, ColS, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A dequantizing epilogue: ``C = (A @ B) * row_scale[:, None] * col_scale[None, :]`` (per-token and
    per-channel scales), bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rs = ct.load(RowS, index=(bm,), shape=(TM,), padding_mode=ZERO)
    cs = ct.load(ColS, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=(acc * rs[:, None] * cs[None, :]).astype(C.dtype))


@ct.kernel
def gemm_bias_gelu_residual(A, Bm, Bias, R, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An MLP block's first half fused: ``gelu_tanh(x @ W + b) + residual``, f16 in and out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    h = acc + ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)[None, :].astype(ct.float32)
    g = 0.5 * h * (1.0 + ct.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
    r = ct.load(R, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO).astype(ct.float32)
    ct.store(C, index=(bm, bn), tile=(g + r).astype(C.dtype))


@ct.kernel
def split_k_by_user_atomics(A, Bm, C, SPLIT: ConstInt, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Split-K written by the user: program axis 2 takes every ``SPLIT``-th K tile and adds its partial product
    into the zero-initialised f32 C with ``ct.atomic_add`` at the tile's row / column indices."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(s, ct.cdiv(A.shape[1], TK), SPLIT):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.atomic_add(C, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def dot_inside_an_if_on_an_argument(A, Bm, C, use_b: int, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C = A @ B if use_b else 0`` decided by an int argument inside the kernel (a LoRA branch switched off):
    the dot loop under an ``if``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    if use_b != 0:
        for k in range(ct.cdiv(A.shape[1], TK)):
            a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
            b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
            acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def two_dots_summed_one_accumulator(A1, B1, A2, B2, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C = A1 @ B1 + A2 @ B2`` (a gated unit's two projections summed) in one K loop: both dots into the same
    accumulator each iteration; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A1.shape[1], TK)):
        a1 = ct.load(A1, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b1 = ct.load(B1, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a1, b1, acc)
        a2 = ct.load(A2, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b2 = ct.load(B2, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a2, b2, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def k_loop_bound_from_an_argument(A, Bm, C, k_tiles: int, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The K loop's trip count is a kernel argument (``k_tiles``, the user's ``cdiv(K, TK)`` computed on the
    host), not a shape; ``@`` for the product."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(k_tiles):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = acc + a @ b
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def decode_gemv_one_row_tile(X, W, Y, TN: ConstInt, TK: ConstInt):
    """A decode step's GEMV ``y = x @ W`` with x one row: ``(1, TK) @ (TK, TN)`` tiles, one program per column
    block."""
    bn = ct.bid(0)
    acc = ct.zeros((1, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        x = ct.load(X, index=(0, k), shape=(1, TK), padding_mode=ZERO)
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    ct.store(Y, index=(0, bn), tile=acc)


@ct.kernel
def gemm_tiny_tiles_16(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A small GEMM with 16 x 16 x 16 tiles (a user's first try), ``ct.matmul`` then ``+``; bf16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = acc + ct.matmul(a, b)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_256_row_tiles(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A large-tile GEMM: 256 x 128 x 64 tiles, f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_f16_accumulator(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An f16 accumulator (``ct.zeros(..., dtype=ct.float16)``: the fast, less accurate accumulation some
    inference kernels choose), f16 out; K = 64."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float16)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_b_column_major_view(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``x @ w.t()`` where ``w.t()`` (a column-major ``[K, N]`` view, strides ``(1, K)``) is handed over without
    ``.contiguous()``; the kernel loads it as if row-major."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def bmm_batch_tile_of_two(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A batched GEMM whose tiles hold two matrices of the batch, ``(2, TM, TK) @ (2, TK, TN)`` (an odd batch of
    5: the last tile's second matrix padding)."""
    bm, bn, l = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((2, TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(l, bm, k), shape=(2, TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(l, k, bn), shape=(2, TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(l, bm, bn), tile=acc)


@ct.kernel
def gemm_fp8_e4m3_output_clamped(A, Bm, C, inv_scale: float, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GEMM writing its output in e4m3 for the next fp8 layer: ``clamp(acc * inv_scale, -448, 448)`` cast to
    e4m3; f16 in."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    y = ct.minimum(ct.maximum(acc * inv_scale, -448.0), 448.0)
    ct.store(C, index=(bm, bn), tile=y.astype(ct.float8_e4m3fn))


@ct.kernel
def gemm_32_by_256_tiles_relu_bf16(A, Bm, Bias, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """32-row by 256-column tiles (a wide, short tile a user picks for N = 256), ``relu(x @ W + b)`` by
    ``ct.maximum(..., 0)``, bf16 in and out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    bias = ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO).astype(ct.float32)
    ct.store(C, index=(bm, bn), tile=ct.maximum(acc + bias[None, :], 0.0).astype(C.dtype))


@ct.kernel
def gemm_one_column_tile(A, Bm, C, TM: ConstInt, TK: ConstInt):
    """A matrix-vector product ``A @ v`` with v a ``[K, 1]`` column: ``(TM, TK) @ (TK, 1)`` tiles."""
    bm = ct.bid(0)
    acc = ct.zeros((TM, 1), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        v = ct.load(Bm, index=(k, 0), shape=(TK, 1), padding_mode=ZERO)
        acc = ct.mma(a, v, acc)
    ct.store(C, index=(bm, 0), tile=acc)


@ct.kernel
def gemm_alpha_beta_in_place(A, Bm, C, alpha: float, beta: float, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """BLAS's ``C = alpha * A @ B + beta * C`` in place: the epilogue reads the tile of C it then overwrites."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    c = ct.load(C, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=alpha * acc + beta * c)


@ct.kernel
def gemm_grid_axis0_over_columns(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GEMM whose grid axis 0 walks the column tiles and axis 1 the row tiles (the reverse of the samples)."""
    bn, bm = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_lower_triangle_where_epilogue(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``torch.tril(A @ B)``: the epilogue keeps the elements on or below the diagonal by ``ct.where`` on the
    global row and column indices (a causal mask)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.store(C, index=(bm, bn), tile=ct.where(rows[:, None] >= cols[None, :], acc, 0.0))


@ct.kernel
def int8_gemm_dequant_epilogue_f16(A, Bm, SA, SB, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """W8A8: int8 x int8 into int32, then ``acc.astype(f32) * sa[:, None] * sb[None, :]`` to f16 (the per-token
    and per-channel scales)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    sa = ct.load(SA, index=(bm,), shape=(TM,), padding_mode=ZERO)
    sb = ct.load(SB, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=(acc.astype(ct.float32) * sa[:, None] * sb[None, :]).astype(ct.float16))


@ct.kernel
def gemm_bias_as_a_column_tile(A, Bm, Bias, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A per-row bias loaded as a ``(TM, 1)`` tile of a ``[M, 1]`` array and broadcast along the columns."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    bias = ct.load(Bias, index=(bm, 0), shape=(TM, 1), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=acc + bias)


# ----------------------------------------------------------------------------------------------- reductions


@ct.kernel
def argmin_ties_both_axes(X, RowArg, ColArg, BM: ConstInt, BN: ConstInt):
    """``torch.argmin`` of a small-integer int32 matrix (ties everywhere: the first index wins) along axis 1 and
    along axis 0, one program holding the whole ragged matrix (the padding ``int32`` max, by ``ct.where``)."""
    rows = ct.arange(BM, dtype=ct.int32)
    cols = ct.arange(BN, dtype=ct.int32)
    x = ct.load(X, index=(0, 0), shape=(BM, BN), padding_mode=ZERO)
    inside = (rows[:, None] < X.shape[0]) & (cols[None, :] < X.shape[1])
    x = ct.where(inside, x, 2147483647)
    ct.store(RowArg, index=(0,), tile=ct.argmin(x, axis=1).astype(ct.int32))
    ct.store(ColArg, index=(0,), tile=ct.argmin(x, axis=0).astype(ct.int32))


@ct.kernel
def prod_rows_keepdims_and_not(X, P, Y, BN: ConstInt):
    """Row products of values near 1 (a survival probability): ``ct.prod(axis=1)`` stored per row, and
    ``x / prod(x, keepdims=True)``; padding 1 by ``ct.where``."""
    r = ct.bid(0)
    cols = ct.arange(BN, dtype=ct.int32)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    x = ct.where(cols[None, :] < X.shape[1], x, 1.0)
    ct.store(P, index=(r,), tile=ct.prod(x, axis=1))
    ct.store(Y, index=(r, 0), tile=x / ct.prod(x, axis=1, keepdims=True))


@ct.kernel
def any_all_of_bool_rows(M, AnyOut, AllOut, BN: ConstInt):
    """``mask.any(1)`` and ``mask.all(1)`` of a bool matrix as ``ct.max`` / ``ct.min`` of the bool tile (padded
    columns: False for any, True for all)."""
    r = ct.bid(0)
    cols = ct.arange(BN, dtype=ct.int32)
    m = ct.load(M, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    inside = cols[None, :] < M.shape[1]
    ct.store(AnyOut, index=(r,), tile=ct.max(m & inside, axis=1).astype(ct.bool_))
    ct.store(AllOut, index=(r,), tile=ct.min(m | ~inside, axis=1).astype(ct.bool_))


@ct.kernel
def reduce_axis0_of_a_3d_tile(X, S, Mn, BA: ConstInt, BB: ConstInt, BC: ConstInt):
    """``x.sum(0)`` and ``x.amin(0)`` of an ``[A, B, C]`` tensor (an ensemble's members on axis 0) without
    keepdims: one ``(BA, BB, BC)`` tile per program over B, stored as ``(BB, BC)``."""
    b = ct.bid(0)
    x = ct.load(X, index=(0, b, 0), shape=(BA, BB, BC), padding_mode=ZERO)
    ct.store(S, index=(b, 0), tile=ct.sum(x, axis=0))
    y = ct.load(X, index=(0, b, 0), shape=(BA, BB, BC), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(Mn, index=(b, 0), tile=ct.min(y, axis=0))


@ct.kernel
def running_max_scan_and_reverse_int_cumsum(X, Cnt, RunMax, Suffix, BN: ConstInt):
    """``torch.cummax(x, 1).values`` by ``ct.scan`` with ``ct.maximum`` (identity ``-inf``) and the suffix sums of
    int32 counts (``cumsum(reverse=True)``: items at or after each position)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    ct.store(RunMax, index=(r, 0), tile=ct.scan(x, 1, ct.maximum, -float("inf")))
    c = ct.load(Cnt, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Suffix, index=(r, 0), tile=ct.cumsum(c, axis=1, reverse=True))


# ----------------------------------------------------------------------------------------------- integers


@ct.kernel
def int64_floordiv_mod_negative_divisors(A, Bv, Q, R, DQ, BLOCK: ConstInt):
    """int64 ``a // b`` and ``a % b`` (Python's floor semantics) with negative dividends and divisors, and
    ``divmod``'s quotient stored by the same program."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    b = ct.load(Bv, index=(i,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.where(b == 0, 1, b)
    ct.store(Q, index=(i,), tile=a // b)
    ct.store(R, index=(i,), tile=a % b)
    q, _ = divmod(a, b)
    ct.store(DQ, index=(i,), tile=q - 1)


@ct.kernel
def uint64_and_int64_shifts_bitwise(A, Sh, Lsh, Rsh, Ash, Mix, BLOCK: ConstInt):
    """64-bit hashing steps: uint64 ``a << s`` and ``a >> s`` (logical) for shifts 0..63, an int64 arithmetic
    ``>> s`` of the same bits, and ``(a ^ (a >> 33)) & ~mask | 1``."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    s = ct.load(Sh, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.store(Lsh, index=(i,), tile=a << s)
    ct.store(Rsh, index=(i,), tile=a >> s)
    ct.store(Ash, index=(i,), tile=ct.bitcast(a, ct.int64) >> s.astype(ct.int64))
    mask = ct.full((BLOCK,), 0xFF00, dtype=ct.uint64)
    ct.store(Mix, index=(i,), tile=((a ^ (a >> 33)) & ~mask) | 1)


@ct.kernel
def uint8_uint16_min_max_across_the_sign_bit(A8, B8, A16, B16, Mn8, Mx8, Mn16, Mx16, BLOCK: ConstInt):
    """uint8 and uint16 ``minimum`` / ``maximum`` with values across 128 and 32768 (a signed compare of the bits
    would pick the other operand)."""
    i = ct.bid(0)
    a8 = ct.load(A8, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    b8 = ct.load(B8, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    a16 = ct.load(A16, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    b16 = ct.load(B16, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.store(Mn8, index=(i,), tile=ct.minimum(a8, b8))
    ct.store(Mx8, index=(i,), tile=ct.maximum(a8, b8))
    ct.store(Mn16, index=(i,), tile=ct.minimum(a16, b16))
    ct.store(Mx16, index=(i,), tile=ct.maximum(a16, b16))


@ct.kernel
def narrow_int_div_mod_and_unsigned_div(A8, B8, A16, B16, AU, BU, Q8, R8, Q16, R16, QU, RU, BLOCK: ConstInt):
    """Python ``//`` and ``%`` of int8 and int16 negatives (-128 // -1 wraps to -128 in int8, as torch), and uint32
    ``//`` / ``%`` of values above 2**31 (an unsigned division)."""
    i = ct.bid(0)
    a8 = ct.load(A8, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    b8 = ct.load(B8, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    a16 = ct.load(A16, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    b16 = ct.load(B16, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    au = ct.load(AU, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    bu = ct.load(BU, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    b8 = ct.where(b8 == 0, 1, b8)
    b16 = ct.where(b16 == 0, 1, b16)
    bu = ct.where(bu == 0, 1, bu)
    ct.store(Q8, index=(i,), tile=a8 // b8)
    ct.store(R8, index=(i,), tile=a8 % b8)
    ct.store(Q16, index=(i,), tile=a16 // b16)
    ct.store(R16, index=(i,), tile=a16 % b16)
    ct.store(QU, index=(i,), tile=au // bu)
    ct.store(RU, index=(i,), tile=au % bu)


@ct.kernel
def float_mod_floordiv_pow_atan2(X, Y, Md, Fd, Pw, At, BLOCK: ConstInt):
    """Float ``x % y`` and ``x // y`` with negative operands (Python's: the remainder takes the divisor's sign),
    ``x ** 3.0`` and ``x ** 0.5`` of negatives, ``atan2(y, x)`` in every quadrant and at signed zeros."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    y = ct.load(Y, index=(i,), shape=(BLOCK,), padding_mode=ct.PaddingMode.NAN)
    ct.store(Md, index=(i,), tile=x % y)
    ct.store(Fd, index=(i,), tile=x // y)
    ct.store(Pw, index=(i, 0), tile=ct.reshape(x ** 3.0, (BLOCK, 1)))
    ct.store(Pw, index=(i, 1), tile=ct.reshape(x ** 0.5, (BLOCK, 1)))
    ct.store(At, index=(i,), tile=ct.atan2(y, x))


@ct.kernel
def float_to_narrow_ints_saturating(X, I8o, U8o, I64o, BLOCK: ConstInt):
    """f32 to int8 and uint8 (saturating: 300 -> 127 / 255, -300 -> -128 / 0, NaN -> 0, toward zero) and f32 to
    int64 past 2**31."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.store(I8o, index=(i,), tile=x.astype(ct.int8))
    ct.store(U8o, index=(i,), tile=x.astype(ct.uint8))
    ct.store(I64o, index=(i,), tile=x.astype(ct.int64))


@ct.kernel
def floor_ceil_abs_min_signed_zeros(X, Fl, Ce, Ab, Mn, BLOCK: ConstInt):
    """``floor`` / ``ceil`` of negatives and -0.5 (-0.0 for ceil), int32 ``abs`` of -2**31 (wraps, as torch), f32
    ``minimum(x, 0.0)`` (a ReLU's mirror)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.store(Fl, index=(i,), tile=ct.floor(x))
    ct.store(Ce, index=(i,), tile=ct.ceil(x))
    ct.store(Ab, index=(i,), tile=ct.abs(ct.bitcast(x, ct.int32)))
    ct.store(Mn, index=(i,), tile=ct.minimum(x, 0.0))


# ----------------------------------------------------------------------------------------------- conversions


@ct.kernel
def f32_to_fp8_both_formats_saturating(X, Q4, Q5, BLOCK: ConstInt):
    """f32 to e4m3 and to e5m2, the values clamped first as fp8 recipes do (+-448, +-57344) so that nothing
    overflows; values between the formats' steps rounded to nearest even, tiny ones to subnormals or 0."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.store(Q4, index=(i,), tile=ct.minimum(ct.maximum(x, -448.0), 448.0).astype(ct.float8_e4m3fn))
    ct.store(Q5, index=(i,), tile=ct.minimum(ct.maximum(x, -57344.0), 57344.0).astype(ct.float8_e5m2))


@ct.kernel
def bf16_f16_round_trips(Bf, H, BfToH, HToBf, BLOCK: ConstInt):
    """bf16 -> f16 (values past 65504 become inf, tiny ones f16 subnormals or 0) and f16 -> bf16 (rounded to
    8 bits of mantissa), each directly by ``astype``."""
    i = ct.bid(0)
    b = ct.load(Bf, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    h = ct.load(H, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.store(BfToH, index=(i,), tile=b.astype(ct.float16))
    ct.store(HToBf, index=(i,), tile=h.astype(ct.bfloat16))


@ct.kernel
def int_float_conversions_rounding(X, N, L, ToInt, ToF32, ToF64, BLOCK: ConstInt):
    """``x.int()`` of f32 (toward zero, negatives too), int32 -> f32 around 2**24 (nearest even), int64 -> f64
    around 2**53."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    n = ct.load(N, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    l = ct.load(L, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.store(ToInt, index=(i,), tile=x.astype(ct.int32))
    ct.store(ToF32, index=(i,), tile=n.astype(ct.float32))
    ct.store(ToF64, index=(i,), tile=l.astype(ct.float64))


@ct.kernel
def bool_to_and_from_numbers(X, K, F, NZ, BLOCK: ConstInt):
    """``keep.float() * x`` (bool -> f32) and ``x.astype(ct.bool_)`` the way a user ports ``x.bool()``: cuTile
    writes it as the Tile IR's ``ftoi`` to ``i1`` (truncation saturating to [0, 1]: 0.5, negatives and NaN
    false), which tileorch computes as written and warns about at the line (found by this sweep: silent
    before)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    k = ct.load(K, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.store(F, index=(i,), tile=k.astype(ct.float32) * x)
    ct.store(NZ, index=(i,), tile=x.astype(ct.bool_))


# ----------------------------------------------------------------------------------------------- control flow


@ct.kernel
def newton_sqrt_while_until_converged(X, Y, Iters, BLOCK: ConstInt):
    """A ``while`` loop a user writes for an iteration: Newton steps for ``sqrt`` of a block until every element
    moved less than 1e-6 relative (the loop leaves on that data-dependent condition, capped at 60 steps); the
    step count stored."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO) + 1.0
    y = x
    n = 0
    moved = 1.0
    while moved > 1e-6 and n < 60:
        nxt = 0.5 * (y + x / y)
        moved = ct.max(ct.abs(nxt - y) / nxt)
        y = nxt
        n = n + 1
    ct.store(Y, index=(i,), tile=y)
    ct.store(Iters, index=(i,), tile=ct.full((1,), n, dtype=ct.int32))


@ct.kernel
def lower_triangle_nested_dependent_bounds(X, Y, D: ConstInt):
    """Prefix means over a program's rows, ``y[i] = mean(x[0..i])`` for rows of D columns: an outer loop over
    the rows and an inner loop ``range(i + 1)`` whose bound depends on the outer index."""
    n = X.shape[0]
    for i in range(n):
        s = ct.zeros((1, D), dtype=ct.float32)
        for j in range(i + 1):
            s = s + ct.load(X, index=(j, 0), shape=(1, D), padding_mode=ZERO)
        ct.store(Y, index=(i, 0), tile=s / (i + 1))


@ct.kernel
def early_return_past_the_rows(X, Y, limit: int, BN: ConstInt):
    """Programs past ``limit`` rows return at once (a grid rounded up on the host); the others double their
    row.  The rows past ``limit`` stay as the caller left them."""
    r = ct.bid(0)
    if r >= limit:
        return
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Y, index=(r, 0), tile=2.0 * x)


# ----------------------------------------------------------------------------------------------- memory


@ct.kernel
def masked_gather_scatter_permutation(X, Perm, Keep, Y, Z, BLOCK: ConstInt):
    """``y[i] = x[perm[i]] if keep[i] else -7.5`` by ``ct.gather(..., mask=, padding_value=)`` and
    ``z[perm[i]] = x[i] * 2`` where keep by ``ct.scatter(..., mask=)``."""
    i = ct.bid(0)
    idx = i * BLOCK + ct.arange(BLOCK, dtype=ct.int32)
    p = ct.load(Perm, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    k = ct.load(Keep, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    inside = idx < X.shape[0]
    ct.store(Y, index=(i,), tile=ct.gather(X, p, mask=k & inside, padding_value=-7.5))
    x = ct.gather(X, idx)
    ct.scatter(Z, p, x * 2.0, mask=k & inside)


@ct.kernel
def atomic_cas_first_wins_and_xchg_last(Slot, Last, Won, BLOCK: ConstInt):
    """Every program tries ``atomic_cas(slot[j], -1, pid)`` on the slots of its block (the first program to get
    there owns the slot), records whether it won, and ``atomic_xchg``es its id into ``last[j]``."""
    pid = ct.bid(0)
    j = ct.arange(BLOCK, dtype=ct.int32)
    me = ct.full((BLOCK,), pid, dtype=ct.int32)
    old = ct.atomic_cas(Slot, j, ct.full((BLOCK,), -1, dtype=ct.int32), me)
    ct.store(Won, index=(pid, 0), tile=ct.reshape((old == -1).astype(ct.int32), (1, BLOCK)))
    ct.atomic_xchg(Last, j, me)


@ct.kernel
def atomic_min_max_signed_and_unsigned(X, U, Mn, Mx, UMn, UMx, BLOCK: ConstInt):
    """Per-bucket min / max of int32 values with negatives and of uint32 values above 2**31 by ``atomic_min`` /
    ``atomic_max`` into 4 buckets (index ``i % 4``), the tables starting at their identities."""
    i = ct.bid(0)
    idx = i * BLOCK + ct.arange(BLOCK, dtype=ct.int32)
    inside = idx < X.shape[0]
    bucket = ct.where(inside, idx % 4, 4)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    u = ct.load(U, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.atomic_min(Mn, bucket, x)
    ct.atomic_max(Mx, bucket, x)
    ct.atomic_min(UMn, bucket, u)
    ct.atomic_max(UMx, bucket, u)


@ct.kernel
def atomic_bit_sets_and_or_xor(Bits, Flags, AndOut, OrOut, XorOut, BLOCK: ConstInt):
    """Building bit sets: every element ORs ``1 << (bits % 32)`` into its row's word, ANDs ``~(1 << ...)`` into
    another and XORs the bit into a parity word (row ``flags[i]``)."""
    i = ct.bid(0)
    b = ct.load(Bits, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    f = ct.load(Flags, index=(i,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    idx = i * BLOCK + ct.arange(BLOCK, dtype=ct.int32)
    row = ct.where(idx < Bits.shape[0], f, 8)
    bit = ct.full((BLOCK,), 1, dtype=ct.int32) << (b % 32)
    ct.atomic_or(OrOut, row, bit)
    ct.atomic_and(AndOut, row, ~bit)
    ct.atomic_xor(XorOut, row, bit)


@ct.kernel
def atomic_add_f16_and_uint64_counters(X, T16, Cnt, BLOCK: ConstInt):
    """Scatter-add of f16 values (small integers: exact in any order) into 4 f16 bins by ``atomic_add``, and a
    uint64 count per bin."""
    i = ct.bid(0)
    idx = i * BLOCK + ct.arange(BLOCK, dtype=ct.int32)
    bins = ct.where(idx < X.shape[0], idx % 4, 4)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.atomic_add(T16, bins, x)
    ct.atomic_add(Cnt, bins, ct.ones((BLOCK,), dtype=ct.uint64))


@ct.kernel
def atomic_cas_f32_and_xchg_f64(F, D, Old, BLOCK: ConstInt):
    """``atomic_cas`` on f32 slots (expected 0.0, the value stored where it matched: only the slots that held 0
    change, compared bit for bit as the hardware's ``atom.cas.b32`` compares, so a -0.0 slot keeps its value) and
    ``atomic_xchg`` of f64 values returning the old ones."""
    i = ct.bid(0)
    j = i * BLOCK + ct.arange(BLOCK, dtype=ct.int32)
    ct.atomic_cas(F, j, ct.zeros((BLOCK,), dtype=ct.float32), j.astype(ct.float32) + 0.5)
    old = ct.atomic_xchg(D, j, j.astype(ct.float64) * -2.0)
    ct.store(Old, index=(i,), tile=old)


@ct.kernel
def cumsum_axis0_of_a_3d_tile(X, Y, BA: ConstInt, BB: ConstInt, BC: ConstInt):
    """``torch.cumsum(x, 0)`` of an ``[A, B, C]`` tensor held whole along axis 0 in each program's tile."""
    b = ct.bid(0)
    x = ct.load(X, index=(0, b, 0), shape=(BA, BB, BC), padding_mode=ZERO)
    ct.store(Y, index=(0, b, 0), tile=ct.cumsum(x, axis=0))


@ct.kernel
def column_tiles_normalize(X, Y, BM: ConstInt):
    """Each program one column of a row-major matrix as a ``(BM, 1)`` tile (the whole column, ragged): the
    column divided by its L2 norm."""
    c = ct.bid(0)
    x = ct.load(X, index=(0, c), shape=(BM, 1), padding_mode=ZERO)
    ct.store(Y, index=(0, c), tile=x * ct.rsqrt(ct.sum(x * x, axis=0, keepdims=True) + 1e-12))


@ct.kernel
def every_other_column_view(X, Y, BM: ConstInt, BN: ConstInt):
    """``x[:, ::2] * 3`` on a view with column stride 2 (handed over without ``.contiguous()``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(bm, bn), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=x * 3.0)


@ct.kernel
def every_padding_mode(X, Z, NZ, NA, PI, NI, BN: ConstInt):
    """One ragged row loaded with each padding mode and stored in full (the output as wide as the tile): zero,
    negative zero (visible as ``1 / x``), NaN, +inf and -inf past the row's end."""
    r = ct.bid(0)
    ct.store(Z, index=(r, 0), tile=ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO))
    nz = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.NEG_ZERO)
    ct.store(NZ, index=(r, 0), tile=1.0 / nz)
    ct.store(NA, index=(r, 0), tile=ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.NAN))
    ct.store(PI, index=(r, 0), tile=ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.POS_INF))
    ct.store(NI, index=(r, 0), tile=ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF))


# ----------------------------------------------------------------------------------------------- launch shapes


@ct.kernel
def three_axis_grid_ids(Y, BW: ConstInt):
    """Each program of a ``(3, 4, 5)`` grid writes ``100 * z + 10 * y + x`` and its ``num_blocks`` product into
    its slot: the grid axes as the user numbers them."""
    x, y, z = ct.bid(0), ct.bid(1), ct.bid(2)
    n = ct.num_blocks(0) * ct.num_blocks(1) * ct.num_blocks(2)
    v = ct.full((1, 1, BW), 100 * z + 10 * y + x, dtype=ct.int32)
    v = v + ct.reshape(ct.arange(BW, dtype=ct.int32), (1, 1, BW)) * n
    ct.store(Y, index=(z, y, x), tile=v)


@ct.kernel
def two_axis_grid_swapped_roles(X, Y, BM: ConstInt, BN: ConstInt):
    """A 2-D grid whose axis 0 walks columns and axis 1 rows (the reverse of the usual), ``y = x^2``."""
    bn, bm = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(bm, bn), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=x * x)


@ct.kernel
def grid_larger_than_the_machine(X, Y, BLOCK: ConstInt):
    """4000 programs of 32 elements (more than an H100 holds at once): ``y = x + pid``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=x + i.astype(ct.float32))


# ----------------------------------------------------------------------------------------------- the table

_add("gemm_k_not_a_multiple_of_the_tile", gemm_k_not_a_multiple_of_the_tile,
     [_a((200, 100), F16), _a((100, 136), F16), _a((200, 136)), 64, 64, 32], (4, 3), "gemm", outputs=(2,))
_add("gemm_b_stored_nk_permuted", gemm_b_stored_nk_permuted,
     [_a((130, 128), BF16), _a((96, 128), BF16), _a((130, 96), F16), 64, 64, 64], (3, 2), "gemm", outputs=(2,))
_add("gemm_a_stored_km_transposed", gemm_a_stored_km_transposed,
     [_a((96, 128), F16), _a((96, 80), F16), _a((128, 80), F16), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("bmm_three_d_tiles", bmm_three_d_tiles,
     [_a((3, 70, 64), F16), _a((3, 64, 72), F16), _a((3, 70, 72), F16), 64, 64, 32], (2, 2, 3), "gemm",
     outputs=(2,))
_add("fp8_e4m3_gemm_scaled_f32_out", fp8_e4m3_gemm_scaled_f32_out,
     [_a((128, 128), E4M3), _a((128, 128), E4M3), _a((128, 128)), 0.25, 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("fp8_e5m2_gemm_f16_out", fp8_e5m2_gemm_f16_out,
     [_a((128, 192), E5M2), _a((192, 128), E5M2), _a((128, 128), F16), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("int8_gemm_int32_accumulate", int8_gemm_int32_accumulate,
     [_a((96, 160), I8), _a((160, 64), I8), _a((96, 64), I32), 64, 64, 32], (2, 1), "gemm", outputs=(2,))
_add("gemm_row_and_column_scale_vectors", gemm_row_and_column_scale_vectors,
     [_a((150, 96), F16), _a((96, 130), F16), _a((150,)), _a((130,)), _a((150, 130), BF16), 64, 64, 32], (3, 3),
     "gemm", outputs=(4,))
_add("gemm_bias_gelu_residual", gemm_bias_gelu_residual,
     [_a((100, 64), F16), _a((64, 128), F16), _a((128,), F16), _a((100, 128), F16), _a((100, 128), F16), 64, 64, 32],
     (2, 2), "gemm", outputs=(4,))
_add("split_k_by_user_atomics", split_k_by_user_atomics,
     [_a((64, 256), F16), _a((256, 64), F16), _a((64, 64)), 2, 64, 64, 32], (1, 1, 2), "gemm", outputs=(2,))
_add("dot_inside_an_if_on_an_argument", dot_inside_an_if_on_an_argument,
     [_a((128, 64), F16), _a((64, 64), F16), _a((128, 64)), 1, 64, 64, 32], (2, 1), "gemm", outputs=(2,))
_add("two_dots_summed_one_accumulator", two_dots_summed_one_accumulator,
     [_a((128, 96), F16), _a((96, 64), F16), _a((128, 96), F16), _a((96, 64), F16), _a((128, 64)), 64, 64, 32],
     (2, 1), "gemm", outputs=(4,))
_add("k_loop_bound_from_an_argument", k_loop_bound_from_an_argument,
     [_a((128, 96), F16), _a((96, 64), F16), _a((128, 64)), 3, 64, 64, 32], (2, 1), "gemm", outputs=(2,))
_add("decode_gemv_one_row_tile", decode_gemv_one_row_tile,
     [_a((1, 200), F16), _a((200, 96), F16), _a((1, 96)), 32, 64], (3,), "simt", outputs=(2,),
     error="has no WGMMA shape")
_add("gemm_tiny_tiles_16", gemm_tiny_tiles_16,
     [_a((40, 50), BF16), _a((50, 36), BF16), _a((40, 36)), 16, 16, 16], (3, 3), "gemm", outputs=(2,))
_add("gemm_256_row_tiles", gemm_256_row_tiles,
     [_a((300, 128), F16), _a((128, 256), F16), _a((300, 256), F16), 256, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_f16_accumulator", gemm_f16_accumulator,
     [_a((128, 64), F16), _a((64, 64), F16), _a((128, 64), F16), 64, 64, 32], (2, 1), "gemm", outputs=(2,))

_add("gemm_b_column_major_view", gemm_b_column_major_view,
     [_a((100, 96), F16), _a((96, 80), F16, (1, 96)), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("bmm_batch_tile_of_two", bmm_batch_tile_of_two,
     [_a((5, 64, 64), F16), _a((5, 64, 64), F16), _a((5, 64, 64)), 64, 64, 32], (1, 1, 3), "gemm", outputs=(2,))
_add("gemm_fp8_e4m3_output_clamped", gemm_fp8_e4m3_output_clamped,
     [_a((128, 64), F16), _a((64, 128), F16), _a((128, 128), E4M3), 2.0, 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_32_by_256_tiles_relu_bf16", gemm_32_by_256_tiles_relu_bf16,
     [_a((70, 64), BF16), _a((64, 256), BF16), _a((256,), BF16), _a((70, 256), BF16), 32, 256, 64], (3, 1), "gemm",
     outputs=(3,))
_add("gemm_one_column_tile", gemm_one_column_tile,
     [_a((100, 64), F16), _a((64, 1), F16), _a((100, 1)), 64, 32], (2,), "simt", outputs=(2,),
     error="a matrix-vector product")

_add("gemm_alpha_beta_in_place", gemm_alpha_beta_in_place,
     [_a((130, 64), F16), _a((64, 100), F16), _a((130, 100)), 1.5, -0.5, 64, 64, 32], (3, 2), "gemm", outputs=(2,))
_add("gemm_grid_axis0_over_columns", gemm_grid_axis0_over_columns,
     [_a((130, 64), F16), _a((64, 200), F16), _a((130, 200)), 64, 64, 32], (4, 3), "gemm", outputs=(2,))
_add("gemm_lower_triangle_where_epilogue", gemm_lower_triangle_where_epilogue,
     [_a((150, 64), F16), _a((64, 150), F16), _a((150, 150)), 64, 64, 32], (3, 3), "gemm", outputs=(2,))
_add("int8_gemm_dequant_epilogue_f16", int8_gemm_dequant_epilogue_f16,
     [_a((100, 128), I8), _a((128, 96), I8), _a((100,)), _a((96,)), _a((100, 96), F16), 64, 64, 32], (2, 2), "gemm",
     outputs=(4,))
_add("gemm_bias_as_a_column_tile", gemm_bias_as_a_column_tile,
     [_a((100, 64), F16), _a((64, 96), F16), _a((100, 1)), _a((100, 96)), 64, 64, 32], (2, 2), "gemm", outputs=(3,))

_add("argmin_ties_both_axes", argmin_ties_both_axes,
     [_a((13, 21), I32), _a((16,), I32), _a((32,), I32), 16, 32], (1,), "simt", outputs=(1, 2))
_add("prod_rows_keepdims_and_not", prod_rows_keepdims_and_not,
     [_a((9, 45)), _a((9,)), _a((9, 45)), 64], (9,), "simt", outputs=(1, 2))
_add("any_all_of_bool_rows", any_all_of_bool_rows,
     [_a((10, 40), B), _a((10,), B), _a((10,), B), 64], (10,), "simt", outputs=(1, 2))
_add("reduce_axis0_of_a_3d_tile", reduce_axis0_of_a_3d_tile,
     [_a((5, 12, 24)), _a((12, 24)), _a((12, 24)), 8, 4, 32], (3,), "simt", outputs=(1, 2))
_add("running_max_scan_and_reverse_int_cumsum", running_max_scan_and_reverse_int_cumsum,
     [_a((7, 50)), _a((7, 50), I32), _a((7, 50)), _a((7, 50), I32), 64], (7,), "simt", outputs=(2, 3))
_add("int64_floordiv_mod_negative_divisors", int64_floordiv_mod_negative_divisors,
     [_a((150,), I64), _a((150,), I64), _a((150,), I64), _a((150,), I64), _a((150,), I64), 64], (3,), "simt",
     outputs=(2, 3, 4))
_add("uint64_and_int64_shifts_bitwise", uint64_and_int64_shifts_bitwise,
     [_a((100,), U64), _a((100,), U64), _a((100,), U64), _a((100,), U64), _a((100,), I64), _a((100,), U64), 64],
     (2,), "simt", outputs=(2, 3, 4, 5))
_add("uint8_uint16_min_max_across_the_sign_bit", uint8_uint16_min_max_across_the_sign_bit,
     [_a((90,), U8), _a((90,), U8), _a((90,), U16), _a((90,), U16), _a((90,), U8), _a((90,), U8), _a((90,), U16),
      _a((90,), U16), 64], (2,), "simt", outputs=(4, 5, 6, 7))
_add("narrow_int_div_mod_and_unsigned_div", narrow_int_div_mod_and_unsigned_div,
     [_a((100,), I8), _a((100,), I8), _a((100,), I16), _a((100,), I16), _a((100,), U32), _a((100,), U32),
      _a((100,), I8), _a((100,), I8), _a((100,), I16), _a((100,), I16), _a((100,), U32), _a((100,), U32), 64], (2,),
     "simt", outputs=(6, 7, 8, 9, 10, 11))
_add("float_mod_floordiv_pow_atan2", float_mod_floordiv_pow_atan2,
     [_a((100,)), _a((100,)), _a((100,)), _a((100,)), _a((100, 2)), _a((100,)), 64], (2,), "simt",
     outputs=(2, 3, 4, 5))
_add("float_to_narrow_ints_saturating", float_to_narrow_ints_saturating,
     [_a((100,)), _a((100,), I8), _a((100,), U8), _a((100,), I64), 64], (2,), "simt", outputs=(1, 2, 3))
_add("floor_ceil_abs_min_signed_zeros", floor_ceil_abs_min_signed_zeros,
     [_a((100,)), _a((100,)), _a((100,)), _a((100,), I32), _a((100,)), 64], (2,), "simt", outputs=(1, 2, 3, 4))
_add("f32_to_fp8_both_formats_saturating", f32_to_fp8_both_formats_saturating,
     [_a((120,)), _a((120,), E4M3), _a((120,), E5M2), 64], (2,), "simt", outputs=(1, 2))
_add("bf16_f16_round_trips", bf16_f16_round_trips,
     [_a((100,), BF16), _a((100,), F16), _a((100,), F16), _a((100,), BF16), 64], (2,), "simt", outputs=(2, 3))
_add("int_float_conversions_rounding", int_float_conversions_rounding,
     [_a((100,)), _a((100,), I32), _a((100,), I64), _a((100,), I32), _a((100,)), _a((100,), F64), 64], (2,), "simt",
     outputs=(3, 4, 5))
_add("bool_to_and_from_numbers", bool_to_and_from_numbers,
     [_a((80,)), _a((80,), B), _a((80,)), _a((80,), B), 64], (2,), "simt", outputs=(2, 3))
_add("newton_sqrt_while_until_converged", newton_sqrt_while_until_converged,
     [_a((200,)), _a((200,)), _a((4,), I32), 64], (4,), "simt", outputs=(1, 2))
_add("lower_triangle_nested_dependent_bounds", lower_triangle_nested_dependent_bounds,
     [_a((12, 16)), _a((12, 16)), 16], (1,), "simt", outputs=(1,))
_add("early_return_past_the_rows", early_return_past_the_rows,
     [_a((10, 30)), _a((10, 30)), 7, 32], (10,), "simt", outputs=(1,))
_add("masked_gather_scatter_permutation", masked_gather_scatter_permutation,
     [_a((100,)), _a((100,), I32), _a((100,), B), _a((100,)), _a((100,)), 64], (2,), "simt", outputs=(3, 4))
_add("atomic_cas_first_wins_and_xchg_last", atomic_cas_first_wins_and_xchg_last,
     [_a((32,), I32), _a((32,), I32), _a((6, 32), I32), 32], (6,), "simt", outputs=(0, 1, 2))
_add("atomic_min_max_signed_and_unsigned", atomic_min_max_signed_and_unsigned,
     [_a((150,), I32), _a((150,), U32), _a((4,), I32), _a((4,), I32), _a((4,), U32), _a((4,), U32), 64], (3,),
     "simt", outputs=(2, 3, 4, 5))
_add("atomic_bit_sets_and_or_xor", atomic_bit_sets_and_or_xor,
     [_a((130,), I32), _a((130,), I32), _a((8,), I32), _a((8,), I32), _a((8,), I32), 64], (3,), "simt",
     outputs=(2, 3, 4))
_add("atomic_add_f16_and_uint64_counters", atomic_add_f16_and_uint64_counters,
     [_a((150,), F16), _a((4,), F16), _a((4,), U64), 64], (3,), "simt", outputs=(1, 2))
_add("atomic_cas_f32_and_xchg_f64", atomic_cas_f32_and_xchg_f64,
     [_a((100,)), _a((100,), F64), _a((100,), F64), 64], (2,), "simt", outputs=(0, 1, 2))
_add("cumsum_axis0_of_a_3d_tile", cumsum_axis0_of_a_3d_tile,
     [_a((6, 10, 20)), _a((6, 10, 20)), 8, 4, 32], (3,), "simt", outputs=(1,))
_add("column_tiles_normalize", column_tiles_normalize,
     [_a((50, 7)), _a((50, 7)), 64], (7,), "simt", outputs=(1,))
_add("every_other_column_view", every_other_column_view,
     [_a((20, 30), F32, (60, 2)), _a((20, 30)), 16, 16], (2, 2), "simt", outputs=(1,))
_add("every_padding_mode", every_padding_mode,
     [_a((3, 20)), _a((3, 32)), _a((3, 32)), _a((3, 32)), _a((3, 32)), _a((3, 32)), 32], (3,), "simt",
     outputs=(1, 2, 3, 4, 5))
_add("three_axis_grid_ids", three_axis_grid_ids,
     [_a((5, 4, 24), I32), 8], (3, 4, 5), "simt", outputs=(0,))
_add("two_axis_grid_swapped_roles", two_axis_grid_swapped_roles,
     [_a((40, 70)), _a((40, 70)), 16, 32], (3, 3), "simt", outputs=(1,))
_add("grid_larger_than_the_machine", grid_larger_than_the_machine,
     [_a((128000,)), _a((128000,)), 32], (4000,), "simt", outputs=(1,))

REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "fp8_e5m2_by_e4m3_gemm_f16_out": (fp8_e5m2_by_e4m3_gemm_f16_out,
                                      [_a((128, 128), E5M2), _a((128, 128), E4M3), _a((128, 128), F16), 64, 64, 64],
                                      "x and y must have the same dtype", "acc = ct.mma(a, b, acc)"),
}
"""Mixed fp8 operand formats in one ``mma``: cuTile's front end refuses it at the user's line (tileorch never
sees it)."""


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def mx_block_scaled_mma_on_hopper(A, Bm, SA, SB, Cc, BM: ConstInt):
    """An MX block-scaled fp8 product by ``ct.mma_scaled`` (e8m0 scales per 32 elements of K): a Blackwell
    tensor-core instruction; tileorch's sm_90a paths have no lowering for it."""
    a = ct.load(A, index=(0, 0), shape=(BM, 64))
    b = ct.load(Bm, index=(0, 0), shape=(64, BM))
    sa = ct.load(SA, index=(0, 0), shape=(BM, 2))
    sb = ct.load(SB, index=(0, 0), shape=(2, BM))
    ct.store(Cc, index=(0, 0), tile=ct.mma_scaled(a, sa, b, sb, ct.zeros((BM, BM), dtype=ct.float32)))


@ct.kernel
def whole_vector_in_one_tile(X, Y, BN: ConstInt):
    """A user's "one program does everything": the whole 4M-element vector as one tile (32 MB of registers)."""
    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(BN,)) * 2.0)


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("mx_block_scaled_mma_on_hopper", mx_block_scaled_mma_on_hopper,
     [_a((64, 64), E4M3), _a((64, 64), E4M3), _a((64, 2), "float8_e8m0fnu"), _a((2, 64), "float8_e8m0fnu"),
      _a((64, 64)), 64], (1,), "error", error="'cuda_tile.mmaf_scaled' is not supported yet",
     notes="ct.mma_scaled(a, sa, b, sb")
_bad("whole_vector_in_one_tile", whole_vector_in_one_tile, [_a((1 << 22,)), _a((1 << 22,)), 1 << 22], (1,), "error",
     error="a tile of 4194304 elements is too large", notes="ct.load(X, index=(0,), shape=(BN,))")
