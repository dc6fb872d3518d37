"""The twenty-ninth user sweep (session 37): cuTile 1.7 programs as users write them, weighted to what sweeps 1-28
combined least: fp8 GEMMs (e4m3 x e4m3, e5m2 x e5m2) with per-tensor scales read from 1-element / 0-d arrays and
per-row scales, int8 x int8 -> int32 with a ragged K, tf32 through ``ct.matmul``, operands arriving through
``ct.transpose`` of an ``[N, K]`` weight tile, ``order=`` on A, a 3-D tile with a unit middle dim reshaped to 2-D
and a 3-D tile permuted to the operand's layout, ``ct.mma`` / ``@`` / ``ct.matmul`` / ``+=`` spellings, a MoE
grouped GEMM with per-expert row offsets from an array, split-K by atomic adds, GEMM + residual + a scaled fp8
output, a full-N softmax epilogue with masked columns, dots of 16- and 32-row tiles; without a dot: reductions along
axis 0 and over both axes, prefix sums along each axis of one tile, ``ct.where`` chains, integer ``//`` / ``%`` by
runtime scalars of either sign, bit operations and shifts on int32 / uint32, float -> int conversions of negative
values, bf16 <-> fp8 round trips, several outputs of different dtypes, nested ``for`` loops with runtime bounds and a
``while`` with a data-dependent exit; integer epilogues on the tier (a rounding shift, a saturating ``astype``,
``//`` / ``%`` by a runtime divisor), uint32 / int64 / float -> unsigned corners.

Found by this sweep: ``acc = acc + ct.matmul(a, b)`` of int8 tiles (:func:`int8_gemm_by_matmul_operator_wraps`) --
cuTile's ``ct.matmul`` of int8 tiles is an int8 tile, each K step's product wraps -- compiled with a tier warning
about "per-K-block scales, DeepSeek-style" and nothing saying the products wrap: now a located warning names the
truncation and ``ct.mma`` (narrow_int_dot_warnings.py) and the tier's refusal names it too; the tier's dropping of
cuTile's bf16 / f16 / tf32 rounding of a ``ct.matmul`` / ``@`` product before the add was silent: now a located
remark (fold_dot_accumulate.rounding_remarks); MLIR bytecode / gzip files given as the program were "invalid UTF-8
byte" (diagnostics.OTHER_BINARIES); in the CUTLASS-dialect inputs a sequence barrier's ``group_size(64)`` for warp
groups of 128 compiled silently (now a verifier error).  Left as they are (located reasons): a 3-D operand tile
with a unit middle dim (reshaped or permuted; sweep 26 met it too), two K tiles a step by hand.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep29_compile.py, tests/unit/test_user_sweep29_interp.py,
tests/unit/test_user_sweep29_emulated.py, tests/unit/test_user_sweep29_invalid.py (with :data:`INVALID` and
:data:`REJECTED_BY_CUTILE`), tests/unit/test_user_sweep29_cutlass.py and tests/gpu/test_user_sweep29_gpu.py.
Importing it needs ``cuda.tile``.
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
I8, I16, I32, I64, U8, U32, B = "int8", "int16", "int32", "int64", "uint8", "uint32", "bool_"
E4M3, E5M2 = "float8_e4m3fn", "float8_e5m2"


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


# ----------------------------------------------------------------------------------------------- GEMMs


@ct.kernel
def fp8_e4m3_gemm_tensor_scales_from_arrays_bf16(A, Bm, Sa, Sb, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """FP8 inference linear: e4m3 x e4m3, the per-tensor scales of A and B each read from a 1-element f32 array
    (``torch._scaled_mm``'s ``scale_a`` / ``scale_b``), bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    sa = ct.load(Sa, index=(0,), shape=(1,))
    sb = ct.load(Sb, index=(0,), shape=(1,))
    y = acc * (sa * sb).reshape((1, 1))
    ct.store(C, index=(bm, bn), tile=y.astype(C.dtype))


@ct.kernel
def fp8_e5m2_gemm_row_scales_f32(A, Bm, RowScale, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """e5m2 x e5m2 (gradients times gradients, a Gram matrix in FP8 training) with a per-row scale of A read as a
    ``(TM,)`` tile, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    s = ct.load(RowScale, index=(bm,), shape=(TM,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=acc * s[:, None])


@ct.kernel
def fp8_e4m3_gemm_scale_from_0d_array_f16(A, Bm, S, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """e4m3 x e4m3 with one dequantization scale held in a 0-d device array (read by ``ct.gather(S, ())``, the
    0-d read cuTile's tiled views do not offer), f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    s = ct.gather(S, ())
    ct.store(C, index=(bm, bn), tile=(acc * s).astype(ct.float16))


@ct.kernel
def int8_gemm_int32_ragged_k(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """int8 x int8 -> int32 (W8A8 before its requantization) with K = 100, not a multiple of ``TK`` = 64: the last
    K tile padded with zeros."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def int8_gemm_row_col_dequant_bf16_out(A, Bm, Sa, Sb, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """int8 x int8 -> int32 accumulated, then dequantized by a per-token (row) and per-channel (column) f32 scale
    into bf16 (SmoothQuant's linear)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    sa = ct.load(Sa, index=(bm,), shape=(TM,), padding_mode=ZERO)
    sb = ct.load(Sb, index=(bn,), shape=(TN,), padding_mode=ZERO)
    y = acc.astype(ct.float32) * sa[:, None] * sb[None, :]
    ct.store(C, index=(bm, bn), tile=y.astype(C.dtype))


@ct.kernel
def tf32_gemm_by_ct_matmul(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """f32 inputs cast to tf32 and multiplied by ``ct.matmul`` (no accumulator argument; its tf32 result widened
    to f32 by ``astype``, since cuTile refuses arithmetic on tf32), summed by ``acc +=``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc += ct.matmul(a.astype(ct.tfloat32), b.astype(ct.tfloat32)).astype(ct.float32)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_weight_nk_by_ct_transpose(A, W, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``x @ W.T`` with W stored ``[N, K]`` (nn.Linear): the weight tile loaded ``(TN, TK)`` and given to the dot
    as ``ct.transpose(w)``; bf16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        w = ct.load(W, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(a, ct.transpose(w), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_a_km_loaded_with_order(At, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``A.T @ B`` with A stored ``[K, M]`` (a weight gradient's activations): the A tile loaded ``(TM, TK)`` at
    index ``(bm, k)`` through ``order=(1, 0)``; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(At.shape[0], TK)):
        a = ct.load(At, index=(bm, k), shape=(TM, TK), order=(1, 0), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_a_3d_unit_head_dim_reshaped(X, W, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Per-head projection of ``x[M, H, K]``: head ``bid(2)``'s A tile loaded ``(TM, 1, TK)`` (a unit middle dim)
    and reshaped to ``(TM, TK)`` before the dot; the output ``[H, M, N]``; f16 in, f32 out."""
    bm, bn, h = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, h, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        b = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(h, bm, bn), tile=acc.reshape((1, TM, TN)))


@ct.kernel
def gemm_b_from_permuted_3d_tile(A, Wp, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A weight kept ``[N, 1, K]`` (a grouped conv's one group): its tile loaded ``(TN, 1, TK)`` and brought to
    ``(TK, TN)`` by ``ct.permute(w, (2, 1, 0))`` and a reshape; bf16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        w = ct.load(Wp, index=(bn, 0, k), shape=(TN, 1, TK), padding_mode=ZERO)
        b = ct.permute(w, (2, 1, 0)).reshape((TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_three_spellings_of_one_product(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Two K tiles per iteration in the two spellings a user mixes while porting: the even tile by ``ct.mma(a, b,
    acc)``, the odd one by ``acc = acc + a @ b`` (cuTile's ``@`` of f16 tiles: an f16 product, rounded to f16
    before the add); f16 in, f32 out (K = 128: four tiles).  Refused by the tier (a K loop unrolled by hand)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], 2 * TK)):
        a = ct.load(A, index=(bm, 2 * k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(2 * k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
        a2 = ct.load(A, index=(bm, 2 * k + 1), shape=(TM, TK), padding_mode=ZERO)
        b2 = ct.load(Bm, index=(2 * k + 1, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = acc + a2 @ b2
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_matmul_then_add_bf16_accumulator_f32(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``acc = acc + ct.matmul(a, b).astype(ct.float32)``: the product of bf16 tiles taken in the operands' type
    (cuTile's ``matmul`` result type) and widened before the sum; bf16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = acc + ct.matmul(a, b).astype(ct.float32)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def moe_grouped_gemm_expert_offsets(X, W, Offs, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A MoE expert GEMM: rows of expert ``e = bid(2)`` are ``Offs[e]:Offs[e+1]`` of the token-sorted X (offsets
    multiples of TM); a row tile ``bid(0)`` past its expert's rows returns early; W is ``[E, K, N]``."""
    bm, bn, e = ct.bid(0), ct.bid(1), ct.bid(2)
    start = ct.load(Offs, index=(e,), shape=(1,)).item()
    end = ct.load(Offs, index=(e + 1,), shape=(1,)).item()
    row_tile = start // TM + bm
    if row_tile * TM >= end:
        return
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        a = ct.load(X, index=(row_tile, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(W, index=(e, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(row_tile, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def split_k_gemm_atomic_add_bf16_in(A, Bm, C, SPLITS: ConstInt, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Split-K for a tall-K GEMM: split ``bid(2)`` multiplies its ``K / SPLITS`` range and adds its partial tile into
    the zero-initialized f32 C by ``ct.atomic_add`` with row / column index tiles; bf16 in."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    per = ct.cdiv(A.shape[1], TK * SPLITS)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(s * per, (s + 1) * per):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.atomic_add(C, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def gemm_residual_to_fp8_e4m3_scaled(A, Bm, R, InvScale, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A transformer block's output projection feeding an FP8 next layer: ``((A @ B + R) * inv_scale)`` cast to
    e4m3 (saturated to +-448 first), the residual f16, ``inv_scale`` from a 1-element array; f16 in."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    r = ct.load(R, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO).astype(ct.float32)
    inv = ct.load(InvScale, index=(0,), shape=(1,)).reshape((1, 1))
    y = ct.minimum(ct.maximum((acc + r) * inv, -448.0), 448.0)
    ct.store(Y, index=(bm, bn), tile=y.astype(ct.float8_e4m3fn))


@ct.kernel
def gemm_softmax_full_n_tile_masked_columns(A, Bm, P, N: ConstInt, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Scores ``A @ B`` of N = 100 columns in one ``TN`` = 128 tile, the row softmax in the epilogue with the 28
    padded columns masked to ``-inf`` by ``ct.where``; bf16 in, bf16 out."""
    bm = ct.bid(0)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, 0), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    cols = ct.arange(TN, dtype=ct.int32)
    z = ct.where(cols[None, :] < N, acc, -float("inf"))
    e = ct.exp(z - ct.max(z, axis=1, keepdims=True))
    ct.store(P, index=(bm, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(P.dtype))


@ct.kernel
def gemm_tiles_of_16_rows(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A decode step's 16 tokens times a weight: row tiles of 16 (``TM`` = 16), f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_tiles_of_32_rows_bf16(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Row tiles of 32 (``TM`` = 32, a small-batch GEMM), bf16 in and out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_k_72_one_ragged_tile_f16_out(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """K = 72 with ``TK`` = 64: one full and one ragged K tile (8 of 64 columns real), f16 out, M and N ragged."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(ct.float16))


@ct.kernel
def gemm_two_outputs_f32_and_bf16_relu(A, Bm, C, Cr, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """One GEMM, two outputs of different dtypes (the pre-activation kept for the backward pass in f32, the
    activation in bf16); f16 in."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)
    ct.store(Cr, index=(bm, bn), tile=ct.maximum(acc, 0.0).astype(ct.bfloat16))


@ct.kernel
def int8_gemm_by_matmul_operator_wraps(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An int8 GEMM written like an f16 one, ``acc = acc + ct.matmul(a, b)`` over an int32 accumulator: cuTile's
    ``ct.matmul`` of int8 tiles is an int8 tile, so each K step's product wraps modulo 256 before the add (the
    program computes that; a located warning says so and names ``ct.mma``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = acc + ct.matmul(a, b)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def int8_gemm_requant_by_rounding_shift(A, Bm, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """int8 x int8 -> int32, requantized to int8 by a rounding arithmetic shift ``(acc + 128) >> 8`` and a clamp
    (integer-only inference's fixed-point rescale) in the epilogue."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    q = ct.minimum(ct.maximum((acc + 128) >> 8, -128), 127)
    ct.store(Y, index=(bm, bn), tile=q.astype(ct.int8))


@ct.kernel
def int8_gemm_weight_nk_by_ct_transpose(A, W, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """int8 ``x @ W.T`` with the int8 weight stored ``[N, K]``: its ``(TN, TK)`` tile given to ``ct.mma`` as
    ``ct.transpose(w)``; int32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        w = ct.load(W, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(a, ct.transpose(w), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_leaky_relu_runtime_valid_columns(A, Bm, C, n_valid: int, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Leaky ReLU by ``ct.where(acc > 0, acc, 0.01 * acc)`` and the columns at or past a launch-time ``n_valid``
    zeroed by a second ``where`` on the global column index; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    y = ct.where(acc > 0.0, acc, 0.01 * acc)
    ct.store(C, index=(bm, bn), tile=ct.where(cols[None, :] < n_valid, y, 0.0))


@ct.kernel
def gemm_acc_astype_int8_saturating(A, Bm, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The f32 accumulator stored as int8 by a bare ``astype(ct.int8)`` (the Tile IR's float -> integer
    conversion: toward zero, saturating to [-128, 127])."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(ct.int8))


@ct.kernel
def gemm_scale_per_row_tile_by_item(A, Bm, S, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """One scale per row tile, read as a scalar: ``ct.load(S, index=(bm,), shape=(1,)).item()``; f16 in, f32
    out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    s = ct.load(S, index=(bm,), shape=(1,)).item()
    ct.store(C, index=(bm, bn), tile=acc * s)


@ct.kernel
def gemm_k_loop_range_step_tk(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The K loop over element offsets, ``for kk in range(0, K, TK)``, its tile index ``kk // TK``; f16 in, f32
    out, K = 80 (a ragged last tile)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for kk in range(0, A.shape[1], TK):
        a = ct.load(A, index=(bm, kk // TK), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(kk // TK, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def fp8_e4m3_gemm_rows_of_32(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """e4m3 x e4m3 with row tiles of 32 and K tiles of 32 (a decode batch in FP8), f32 out, M = 70."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_output_and_row_max_beside(A, Bm, C, RowMax, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Scores of one full-N tile and each row's maximum stored beside them as a 1-D array (the max a later softmax
    pass reads); f16 in, f32 out."""
    bm = ct.bid(0)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, 0), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, 0), tile=acc)
    ct.store(RowMax, index=(bm,), tile=ct.max(acc, axis=1))


@ct.kernel
def gemm_f16_to_e5m2_output(A, Bm, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A gradient GEMM whose output is stored in e5m2 by a bare ``astype`` (FP8 training's backward output)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(ct.float8_e5m2))


@ct.kernel
def uint8_activations_times_int8_weights(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """uint8 activations (after a ReLU, asymmetric quantization) times int8 weights into int32, dequantized by one
    constant scale; f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(ct.float32) * 0.5)


@ct.kernel
def int8_gemm_floordiv_mod_runtime_divisor(A, Bm, C, d: int, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The int32 accumulator through ``(acc // d) % 1000`` with a launch-time divisor (negative in the spec: Python's
    floor semantics on negative sums) in the epilogue."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=(acc // d) % 1000)


# ----------------------------------------------------------------------------------------------- without a dot


@ct.kernel
def column_sums_and_total(X, ColSum, Total, TR: ConstInt, TC: ConstInt):
    """A ``(TR, TC)`` tile's sums along axis 0 (per column, stored) and over both axes (one atomic add per
    program into a 1-element total)."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(TR, TC), padding_mode=ZERO)
    ct.atomic_add(ColSum, j * TC + ct.arange(TC, dtype=ct.int32), ct.sum(x, axis=0))
    ct.atomic_add(Total, 0, ct.sum(ct.sum(x, axis=1), axis=0))


@ct.kernel
def cumsum_along_each_axis_of_one_tile(X, Down, Across, RevAcross, TR: ConstInt, TC: ConstInt):
    """Prefix sums of one ``(TR, TC)`` tile down its columns (axis 0), along its rows (axis 1) and along its rows
    from the right (``reverse=True``)."""
    x = ct.load(X, index=(0, 0), shape=(TR, TC), padding_mode=ZERO)
    ct.store(Down, index=(0, 0), tile=ct.cumsum(x, axis=0))
    ct.store(Across, index=(0, 0), tile=ct.cumsum(x, axis=1))
    ct.store(RevAcross, index=(0, 0), tile=ct.cumsum(x, axis=1, reverse=True))


@ct.kernel
def int_cumsum_axis0_and_max_axis0(X, Cum, ColMax, TR: ConstInt, TC: ConstInt):
    """int32 running counts down the rows of a tile and the column maxima (axis-0 reductions of integers)."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(TR, TC), padding_mode=ZERO)
    ct.store(Cum, index=(0, j), tile=ct.cumsum(x, axis=0))
    ct.store(ColMax, index=(j,), tile=ct.max(x, axis=0))


@ct.kernel
def piecewise_by_where_chain(X, Y, BN: ConstInt):
    """A piecewise function by a chain of ``ct.where``: ``x < -2 -> -1``, ``< 0 -> x / 2``, ``< 1 -> x * x``,
    ``< 3 -> sqrt(x)``, else ``3``; NaN inputs stay NaN."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = ct.where(x < -2.0, -1.0,
                 ct.where(x < 0.0, x * 0.5,
                          ct.where(x < 1.0, x * x,
                                   ct.where(x < 3.0, ct.sqrt(ct.maximum(x, 0.0)), ct.where(x >= 3.0, 3.0, x)))))
    ct.store(Y, index=(i,), tile=y)


@ct.kernel
def int_floordiv_mod_by_runtime_scalars(X, Q, R, Q64, d: int, e: int, BN: ConstInt):
    """``x // d`` and ``x % d`` of int32 values of both signs by a launch-time int ``d`` (negative in the spec,
    Python's floor semantics), and ``x64 // e`` after a widening to int64."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Q, index=(i,), tile=x // d)
    ct.store(R, index=(i,), tile=x % d)
    ct.store(Q64, index=(i,), tile=x.astype(ct.int64) // e)


@ct.kernel
def bit_ops_and_shifts_int32_uint32(X, U, S, Mix, Lo, BN: ConstInt):
    """A hash's mixing step: ``(x >> 3) ^ (x << 5)`` of int32 values (arithmetic right shift of negatives), the
    same of the uint32 ``u`` (logical shift), ``~x & 0xFF | (u & 0xF0)``; shifts by a per-element amount ``s``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    u = ct.load(U, index=(i,), shape=(BN,), padding_mode=ZERO)
    s = ct.load(S, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Mix, index=(i,), tile=((x >> 3) ^ (x << 5)) + (x >> s))
    ct.store(Lo, index=(i,), tile=((u >> 3) ^ (u << 5)) | ((u >> s.astype(ct.uint32)) & 0xF0))


@ct.kernel
def uint32_xorshift_hash_wrapping_multiply(Seed, Out, BN: ConstInt):
    """A per-element uint32 hash (``x ^= x >> 16; x *= 0x45d9f3b; x ^= x >> 16``) whose multiplies wrap modulo
    2^32, then mapped to a float in [0, 1) by its top 24 bits."""
    i = ct.bid(0)
    x = ct.load(Seed, index=(i,), shape=(BN,), padding_mode=ZERO)
    x = x ^ (x >> 16)
    x = x * 0x45D9F3B
    x = x ^ (x >> 16)
    ct.store(Out, index=(i,), tile=(x >> 8).astype(ct.float32) * (1.0 / 16777216.0))


@ct.kernel
def float_to_int_truncate_floor_round(X, T, Fl, Rn, BN: ConstInt):
    """f32 -> int32 of negative and positive values three ways: ``astype`` (toward zero), ``ct.floor`` then
    ``astype``, and round-half-even via ``astype(..., rounding_mode=RN)`` of a float (``x + 0`` rounded first by
    ``floor(x + 0.5)`` for the reference's half-up is not what RN does: the spec avoids halves)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(T, index=(i,), tile=x.astype(ct.int32))
    ct.store(Fl, index=(i,), tile=ct.floor(x).astype(ct.int32))
    ct.store(Rn, index=(i,), tile=ct.floor(x + 0.5).astype(ct.int16))


@ct.kernel
def bf16_fp8_round_trips_both_formats(X, Y4, Y5, BN: ConstInt):
    """bf16 activations rounded through e4m3 and through e5m2 and back to bf16 (fake quantization of FP8 training),
    the inputs kept inside each format's range."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y4, index=(i,), tile=x.astype(ct.float8_e4m3fn).astype(ct.bfloat16))
    ct.store(Y5, index=(i,), tile=x.astype(ct.float8_e5m2).astype(ct.bfloat16))


@ct.kernel
def row_stats_four_outputs_four_dtypes(X, Mean, Arg, Pos, Count, TC: ConstInt):
    """One row per program, four outputs of four dtypes: the f16 mean, the int32 argmax, a bool "any positive"
    and the int64 count of positives."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(1, TC), padding_mode=NEG_INF)
    valid = ct.arange(TC, dtype=ct.int32)[None, :] < X.shape[1]
    xs = ct.where(valid, x, 0.0)
    ct.store(Mean, index=(i,), tile=(ct.sum(xs, axis=1) / X.shape[1]).astype(ct.float16))
    ct.store(Arg, index=(i,), tile=ct.argmax(x, axis=1).astype(ct.int32))
    pos = ct.where(xs > 0.0, 1, 0)
    n = ct.sum(pos.astype(ct.int64), axis=1)
    ct.store(Pos, index=(i,), tile=n > 0)
    ct.store(Count, index=(i,), tile=n)


@ct.kernel
def scale_by_scalar_in_0d_and_1_element_arrays(X, S0, S1, Y, BN: ConstInt):
    """``y = x * s0 + s1``: ``s0`` a 0-d device array read by ``ct.gather(S0, ())``, ``s1`` a 1-element array
    read as a ``(1,)`` tile and broadcast."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    s0 = ct.gather(S0, ())
    s1 = ct.load(S1, index=(0,), shape=(1,))
    ct.store(Y, index=(i,), tile=x * s0 + s1)


@ct.kernel
def nested_loops_runtime_bounds_banded_sum(X, Y, lo: int, hi: int, BN: ConstInt):
    """A banded sum with nested loops of runtime bounds: row ``r`` of Y is the sum of X's rows ``r + lo .. r + hi``
    (clipped to the array), each row a tile of BN; the inner loop's bounds depend on the outer's variable."""
    r = ct.bid(0)
    acc = ct.zeros((BN,), dtype=ct.float32)
    for j in range(ct.cdiv(X.shape[1], BN)):
        acc = ct.zeros((BN,), dtype=ct.float32)
        for t in range(max(r + lo, 0), min(r + hi + 1, X.shape[0])):
            acc = acc + ct.load(X, index=(t, j), shape=(1, BN), padding_mode=ZERO).reshape((BN,))
        ct.store(Y, index=(r, j), tile=acc.reshape((1, BN)))


@ct.kernel
def while_halving_until_below_tolerance(X, Y, Steps, tol: float, BN: ConstInt):
    """A data-dependent ``while``: halve the tile until its largest magnitude is below ``tol`` (at most 64 steps),
    store the result and the number of halvings."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    n = 0
    while ct.max(ct.abs(x), axis=0).item() >= tol and n < 64:
        x = x * 0.5
        n = n + 1
    ct.store(Y, index=(i,), tile=x)
    ct.store(Steps, index=(i,), tile=ct.full((1,), n, dtype=ct.int32))


@ct.kernel
def newton_reciprocal_while_residual(X, Y, Iters, BN: ConstInt):
    """Newton's iteration for ``1 / x`` (``y = y * (2 - x * y)``) from ``y = 0.1`` until the tile's largest residual
    ``|1 - x * y|`` is under 1e-6, x in [0.5, 8)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    x = ct.where(x == 0.0, 1.0, x)
    y = ct.full((BN,), 0.1, dtype=ct.float32)
    it = 0
    while ct.max(ct.abs(1.0 - x * y), axis=0).item() > 1e-6 and it < 100:
        y = y * (2.0 - x * y)
        it += 1
    ct.store(Y, index=(i,), tile=y)
    ct.store(Iters, index=(i,), tile=ct.full((1,), it, dtype=ct.int32))


@ct.kernel
def f32_to_fp8_e5m2_with_amax_and_scale(X, Q, Amax, BN: ConstInt):
    """Delayed-scaling FP8 cast: the tile's amax into a 1-element array by ``ct.atomic_max`` of its bits (positive
    floats order as int32), the values scaled by ``57344 / 4`` over a fixed range and cast to e5m2 (saturated)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    amax = ct.max(ct.abs(x), axis=0)
    ct.atomic_max(Amax, 0, ct.bitcast(amax, ct.int32))
    q = ct.minimum(ct.maximum(x * (57344.0 / 4.0), -57344.0), 57344.0)
    ct.store(Q, index=(i,), tile=q.astype(ct.float8_e5m2))


@ct.kernel
def int8_clamp_cast_and_uint8_wraparound(X, S8, W8, BN: ConstInt):
    """int32 values to int8 two ways: clamped to [-128, 127] first, and a plain ``astype`` of ``x & 0xFF`` as uint8
    (the low byte, the wrap a user means)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(S8, index=(i,), tile=ct.minimum(ct.maximum(x, -128), 127).astype(ct.int8))
    ct.store(W8, index=(i,), tile=(x & 0xFF).astype(ct.uint8))


@ct.kernel
def sum_of_squares_axis0_3d_keepdims(X, Y, TB: ConstInt, TR: ConstInt, TC: ConstInt):
    """A ``(TB, TR, TC)`` tile reduced over axes 0 and 1 (``keepdims``) into per-column sums of squares, stored as
    ``(1, 1, TC)`` at the program's column tile."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, 0, j), shape=(TB, TR, TC), padding_mode=ZERO)
    s = ct.sum(ct.sum(x * x, axis=0, keepdims=True), axis=1, keepdims=True)
    ct.store(Y, index=(0, 0, j), tile=s)


@ct.kernel
def divmod_tokens_into_pages(Pos, Page, Slot, page_size: int, BN: ConstInt):
    """A paged KV cache's page and slot of each token position: ``p // page_size`` and ``p % page_size`` of int64
    positions, page size a launch-time int (not a power of two in the spec)."""
    i = ct.bid(0)
    p = ct.load(Pos, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Page, index=(i,), tile=(p // page_size).astype(ct.int32))
    ct.store(Slot, index=(i,), tile=(p % page_size).astype(ct.int32))


@ct.kernel
def uint32_convert_compare_divide(U, V, F, Lt, Q, R, W, Mx, d: int, BN: ConstInt):
    """uint32 values across the sign bit: converted to f32 (unsigned: 3e9 stays 3e9), compared ``u < v``
    (unsigned order), divided and reduced by a launch-time int divisor cast to uint32 (cuTile does not promote
    uint32 with int32), widened to int64 (zero extension), and the
    tile's maximum (unsigned)."""
    i = ct.bid(0)
    u = ct.load(U, index=(i,), shape=(BN,), padding_mode=ZERO)
    v = ct.load(V, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(F, index=(i,), tile=u.astype(ct.float32))
    ct.store(Lt, index=(i,), tile=u < v)
    du = ct.astype(d, ct.uint32)
    ct.store(Q, index=(i,), tile=u // du)
    ct.store(R, index=(i,), tile=u % du)
    ct.store(W, index=(i,), tile=u.astype(ct.int64) + 1)
    ct.store(Mx, index=(i,), tile=ct.full((1,), 0, dtype=ct.uint32) + ct.max(u, axis=0))


@ct.kernel
def int64_shifts_past_32_and_products(X, Hi, Lo, P, BN: ConstInt):
    """int64 bit work: ``x >> 40`` (arithmetic, negatives), ``(x << 33) >> 33`` (the low 31 bits sign-extended
    back), and ``x * 3_000_000_007`` wrapping modulo 2^64."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Hi, index=(i,), tile=x >> 40)
    ct.store(Lo, index=(i,), tile=(x << 33) >> 33)
    ct.store(P, index=(i,), tile=x * 3000000007)


@ct.kernel
def float_to_unsigned_and_narrow_saturating(X, U8, U32, I16, H, BN: ConstInt):
    """f32 -> uint8 and -> uint32 (negative values to 0, large ones to the maximum: the Tile IR's saturating
    conversion), f32 -> int16 saturating, and int32 -> f16 of values past 65504 (to infinity)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(U8, index=(i,), tile=x.astype(ct.uint8))
    ct.store(U32, index=(i,), tile=x.astype(ct.uint32))
    ct.store(I16, index=(i,), tile=x.astype(ct.int16))
    ct.store(H, index=(i,), tile=x.astype(ct.int32).astype(ct.float16))


@ct.kernel
def cumsum_middle_axis_of_3d_tile(X, Y, TB: ConstInt, TR: ConstInt, TC: ConstInt):
    """A prefix sum along the middle axis of a ``(TB, TR, TC)`` tile (per batch, down the rows), the tile padded
    in all three dims."""
    x = ct.load(X, index=(0, 0, 0), shape=(TB, TR, TC), padding_mode=ZERO)
    ct.store(Y, index=(0, 0, 0), tile=ct.cumsum(x, axis=1))


@ct.kernel
def int8_tile_floordiv_mod_elementwise(X, Y, Q, R, BN: ConstInt):
    """int8 ``x // y`` and ``x % y`` of two tiles of either sign (no zero divisors), the int8 -128 // -1 wrap
    included."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = ct.load(Y, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Q, index=(i,), tile=x // y)
    ct.store(R, index=(i,), tile=x % y)


# ----------------------------------------------------------------------------------------------- the table

_add("fp8_e4m3_gemm_tensor_scales_from_arrays_bf16", fp8_e4m3_gemm_tensor_scales_from_arrays_bf16,
     [_a((128, 128), E4M3), _a((128, 96), E4M3), _a((1,)), _a((1,)), _a((128, 96), BF16), 64, 64, 64], (2, 2),
     "gemm", outputs=(4,))
_add("fp8_e5m2_gemm_row_scales_f32", fp8_e5m2_gemm_row_scales_f32,
     [_a((130, 128), E5M2), _a((128, 96), E5M2), _a((130,)), _a((130, 96)), 64, 64, 64], (3, 2), "gemm",
     outputs=(3,))
_add("fp8_e4m3_gemm_scale_from_0d_array_f16", fp8_e4m3_gemm_scale_from_0d_array_f16,
     [_a((100, 128), E4M3), _a((128, 80), E4M3), _a(()), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm",
     outputs=(3,))
_add("int8_gemm_int32_ragged_k", int8_gemm_int32_ragged_k,
     [_a((100, 100), I8), _a((100, 80), I8), _a((100, 80), I32), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("int8_gemm_row_col_dequant_bf16_out", int8_gemm_row_col_dequant_bf16_out,
     [_a((130, 128), I8), _a((128, 96), I8), _a((130,)), _a((96,)), _a((130, 96), BF16), 64, 64, 64], (3, 2), "gemm",
     outputs=(4,))
_add("tf32_gemm_by_ct_matmul", tf32_gemm_by_ct_matmul,
     [_a((100, 64)), _a((64, 80)), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_weight_nk_by_ct_transpose", gemm_weight_nk_by_ct_transpose,
     [_a((100, 64), BF16), _a((96, 64), BF16), _a((100, 96)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_a_km_loaded_with_order", gemm_a_km_loaded_with_order,
     [_a((64, 100), F16), _a((64, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_a_3d_unit_head_dim_reshaped", gemm_a_3d_unit_head_dim_reshaped,
     [_a((100, 3, 64), F16), _a((64, 80), F16), _a((3, 100, 80)), 64, 64, 32], (2, 2, 3), "gemm", outputs=(2,),
     notes="session 40: the tier takes A batched in its middle dimension (GemmConfig.batch_mid)")
_add("gemm_b_from_permuted_3d_tile", gemm_b_from_permuted_3d_tile,
     [_a((100, 64), BF16), _a((96, 1, 64), BF16), _a((100, 96)), 64, 64, 32], (2, 2), "simt", outputs=(2,),
     error="whose rows and columns are not its last two dimensions")
_add("gemm_three_spellings_of_one_product", gemm_three_spellings_of_one_product,
     [_a((100, 128), F16), _a((128, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "simt", outputs=(2,),
     error="2 dots in one K loop that do not read the same A tile")
_add("gemm_matmul_then_add_bf16_accumulator_f32", gemm_matmul_then_add_bf16_accumulator_f32,
     [_a((100, 64), BF16), _a((64, 80), BF16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("moe_grouped_gemm_expert_offsets", moe_grouped_gemm_expert_offsets,
     [_a((256, 64), F16), _a((3, 64, 96), F16), _a((4,), I32), _a((256, 96), F16), 64, 64, 32], (4, 2, 3), "gemm",
     outputs=(3,))
_add("split_k_gemm_atomic_add_bf16_in", split_k_gemm_atomic_add_bf16_in,
     [_a((100, 256), BF16), _a((256, 80), BF16), _a((100, 80)), 4, 64, 64, 32], (2, 2, 4), "gemm", outputs=(2,))
_add("gemm_residual_to_fp8_e4m3_scaled", gemm_residual_to_fp8_e4m3_scaled,
     [_a((100, 64), F16), _a((64, 96), F16), _a((100, 96), F16), _a((1,)), _a((100, 96), E4M3), 64, 64, 32], (2, 2),
     "gemm", outputs=(4,))
_add("gemm_softmax_full_n_tile_masked_columns", gemm_softmax_full_n_tile_masked_columns,
     [_a((100, 64), BF16), _a((64, 100), BF16), _a((100, 100), BF16), 100, 64, 128, 32], (2,), "gemm", outputs=(2,))
_add("gemm_tiles_of_16_rows", gemm_tiles_of_16_rows,
     [_a((40, 64), F16), _a((64, 96), F16), _a((40, 96)), 16, 64, 32], (3, 2), "gemm", outputs=(2,))
_add("gemm_tiles_of_32_rows_bf16", gemm_tiles_of_32_rows_bf16,
     [_a((70, 64), BF16), _a((64, 96), BF16), _a((70, 96), BF16), 32, 64, 32], (3, 2), "gemm", outputs=(2,))
_add("gemm_k_72_one_ragged_tile_f16_out", gemm_k_72_one_ragged_tile_f16_out,
     [_a((100, 72), F16), _a((72, 80), F16), _a((100, 80), F16), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_two_outputs_f32_and_bf16_relu", gemm_two_outputs_f32_and_bf16_relu,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), _a((100, 80), BF16), 64, 64, 32], (2, 2), "gemm",
     outputs=(2, 3))
_add("int8_gemm_by_matmul_operator_wraps", int8_gemm_by_matmul_operator_wraps,
     [_a((100, 128), I8), _a((128, 80), I8), _a((100, 80), I32), 64, 64, 32], (2, 2), "simt", outputs=(2,),
     error="its int32 product is truncated to 8 bits")

_add("int8_gemm_requant_by_rounding_shift", int8_gemm_requant_by_rounding_shift,
     [_a((100, 128), I8), _a((128, 80), I8), _a((100, 80), I8), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("int8_gemm_weight_nk_by_ct_transpose", int8_gemm_weight_nk_by_ct_transpose,
     [_a((100, 64), I8), _a((80, 64), I8), _a((100, 80), I32), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_leaky_relu_runtime_valid_columns", gemm_leaky_relu_runtime_valid_columns,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), 70, 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_acc_astype_int8_saturating", gemm_acc_astype_int8_saturating,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80), I8), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_scale_per_row_tile_by_item", gemm_scale_per_row_tile_by_item,
     [_a((100, 64), F16), _a((64, 80), F16), _a((2,)), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(3,))
_add("gemm_k_loop_range_step_tk", gemm_k_loop_range_step_tk,
     [_a((100, 80), F16), _a((80, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("fp8_e4m3_gemm_rows_of_32", fp8_e4m3_gemm_rows_of_32,
     [_a((70, 128), E4M3), _a((128, 80), E4M3), _a((70, 80)), 32, 64, 32], (3, 2), "gemm", outputs=(2,))
_add("gemm_output_and_row_max_beside", gemm_output_and_row_max_beside,
     [_a((100, 64), F16), _a((64, 64), F16), _a((100, 64)), _a((100,)), 64, 64, 32], (2,), "gemm", outputs=(2, 3))
_add("gemm_f16_to_e5m2_output", gemm_f16_to_e5m2_output,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80), E5M2), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("uint8_activations_times_int8_weights", uint8_activations_times_int8_weights,
     [_a((100, 128), U8), _a((128, 80), I8), _a((100, 80)), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("int8_gemm_floordiv_mod_runtime_divisor", int8_gemm_floordiv_mod_runtime_divisor,
     [_a((100, 64), I8), _a((64, 80), I8), _a((100, 80), I32), -7, 64, 64, 64], (2, 2), "gemm", outputs=(2,))

_add("column_sums_and_total", column_sums_and_total, [_a((50, 70)), _a((70,)), _a((1,)), 16, 32], (4, 3), "simt",
     outputs=(1, 2))
_add("cumsum_along_each_axis_of_one_tile", cumsum_along_each_axis_of_one_tile,
     [_a((16, 32)), _a((16, 32)), _a((16, 32)), _a((16, 32)), 16, 32], (1,), "simt", outputs=(1, 2, 3))
_add("int_cumsum_axis0_and_max_axis0", int_cumsum_axis0_and_max_axis0,
     [_a((20, 50), I32), _a((20, 50), I32), _a((50,), I32), 32, 16], (4,), "simt", outputs=(1, 2))
_add("piecewise_by_where_chain", piecewise_by_where_chain, [_a((200,)), _a((200,)), 64], (4,), "simt", outputs=(1,))
_add("int_floordiv_mod_by_runtime_scalars", int_floordiv_mod_by_runtime_scalars,
     [_a((100,), I32), _a((100,), I32), _a((100,), I32), _a((100,), I64), -7, 5, 64], (2,), "simt",
     outputs=(1, 2, 3))
_add("bit_ops_and_shifts_int32_uint32", bit_ops_and_shifts_int32_uint32,
     [_a((100,), I32), _a((100,), U32), _a((100,), I32), _a((100,), I32), _a((100,), U32), 64], (2,), "simt",
     outputs=(3, 4))
_add("uint32_xorshift_hash_wrapping_multiply", uint32_xorshift_hash_wrapping_multiply,
     [_a((100,), U32), _a((100,)), 64], (2,), "simt", outputs=(1,))
_add("float_to_int_truncate_floor_round", float_to_int_truncate_floor_round,
     [_a((100,)), _a((100,), I32), _a((100,), I32), _a((100,), I16), 64], (2,), "simt", outputs=(1, 2, 3))
_add("bf16_fp8_round_trips_both_formats", bf16_fp8_round_trips_both_formats,
     [_a((100,), BF16), _a((100,), BF16), _a((100,), BF16), 64], (2,), "simt", outputs=(1, 2))
_add("row_stats_four_outputs_four_dtypes", row_stats_four_outputs_four_dtypes,
     [_a((6, 100)), _a((6,), F16), _a((6,), I32), _a((6,), B), _a((6,), I64), 128], (6,), "simt",
     outputs=(1, 2, 3, 4))
_add("scale_by_scalar_in_0d_and_1_element_arrays", scale_by_scalar_in_0d_and_1_element_arrays,
     [_a((100,)), _a(()), _a((1,)), _a((100,)), 64], (2,), "simt", outputs=(3,))
_add("nested_loops_runtime_bounds_banded_sum", nested_loops_runtime_bounds_banded_sum,
     [_a((10, 50)), _a((10, 50)), -1, 2, 32], (10,), "simt", outputs=(1,))
_add("while_halving_until_below_tolerance", while_halving_until_below_tolerance,
     [_a((160,)), _a((160,)), _a((5,), I32), 0.25, 32], (5,), "simt", outputs=(1, 2))
_add("newton_reciprocal_while_residual", newton_reciprocal_while_residual,
     [_a((100,)), _a((100,)), _a((2,), I32), 64], (2,), "simt", outputs=(1, 2))
_add("f32_to_fp8_e5m2_with_amax_and_scale", f32_to_fp8_e5m2_with_amax_and_scale,
     [_a((100,)), _a((100,), E5M2), _a((1,), I32), 64], (2,), "simt", outputs=(1, 2))
_add("int8_clamp_cast_and_uint8_wraparound", int8_clamp_cast_and_uint8_wraparound,
     [_a((100,), I32), _a((100,), I8), _a((100,), U8), 64], (2,), "simt", outputs=(1, 2))
_add("sum_of_squares_axis0_3d_keepdims", sum_of_squares_axis0_3d_keepdims,
     [_a((3, 5, 40)), _a((1, 1, 40)), 4, 8, 16], (3,), "simt", outputs=(1,))
_add("uint32_convert_compare_divide", uint32_convert_compare_divide,
     [_a((100,), U32), _a((100,), U32), _a((100,)), _a((100,), B), _a((100,), U32), _a((100,), U32), _a((100,), I64),
      _a((2,), U32), 1000, 64], (2,), "simt", outputs=(2, 3, 4, 5, 6, 7))
_add("int64_shifts_past_32_and_products", int64_shifts_past_32_and_products,
     [_a((100,), I64), _a((100,), I64), _a((100,), I64), _a((100,), I64), 64], (2,), "simt", outputs=(1, 2, 3))
_add("float_to_unsigned_and_narrow_saturating", float_to_unsigned_and_narrow_saturating,
     [_a((100,)), _a((100,), U8), _a((100,), U32), _a((100,), I16), _a((100,), F16), 64], (2,), "simt",
     outputs=(1, 2, 3, 4))
_add("cumsum_middle_axis_of_3d_tile", cumsum_middle_axis_of_3d_tile, [_a((3, 10, 12)), _a((3, 10, 12)), 4, 16, 16],
     (1,), "simt", outputs=(1,))
_add("int8_tile_floordiv_mod_elementwise", int8_tile_floordiv_mod_elementwise,
     [_a((100,), I8), _a((100,), I8), _a((100,), I8), _a((100,), I8), 64], (2,), "simt", outputs=(2, 3))
_add("divmod_tokens_into_pages", divmod_tokens_into_pages,
     [_a((100,), I64), _a((100,), I32), _a((100,), I32), 24, 64], (2,), "simt", outputs=(1, 2))


# ----------------------------------------------------------------------------------------------- rejected by cuTile


@ct.kernel
def tf32_matmul_added_without_a_cast(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``acc += ct.matmul(a_tf32, b_tf32)``: the tf32 product added to the f32 accumulator as it is."""
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(ct.bid(0), k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
        acc += ct.matmul(a.astype(ct.tfloat32), b.astype(ct.tfloat32))
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc)


@ct.kernel
def float_to_int_rounded_to_nearest(X, Y, BN: ConstInt):
    """``ct.astype(x, ct.int32, rounding_mode=ct.RoundingMode.RN)`` (``__float2int_rn`` spelled as a user guesses)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.astype(x, ct.int32, rounding_mode=ct.RoundingMode.RN))


@ct.kernel
def flag_read_with_acquire_no_scope(X, Y, BN: ConstInt):
    """A consumer's flags read by ``ct.load(..., memory_order=ct.MemoryOrder.ACQUIRE)`` without a memory scope."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO, memory_order=ct.MemoryOrder.ACQUIRE)
    ct.store(Y, index=(ct.bid(0),), tile=x)


REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "tf32_matmul_added_without_a_cast": (tf32_matmul_added_without_a_cast, [_a((64, 64)), _a((64, 64)), _a((64, 64)),
                                                                            64, 64, 32],
                                         "Right-hand side has non-arithmetic dtype tfloat32",
                                         "acc += ct.matmul(a.astype(ct.tfloat32)"),
    "float_to_int_rounded_to_nearest": (float_to_int_rounded_to_nearest, [_a((64,)), _a((64,), I32), 64],
                                        "rounding_mode is only valid for float to float conversions",
                                        "rounding_mode=ct.RoundingMode.RN"),
    "flag_read_with_acquire_no_scope": (flag_read_with_acquire_no_scope, [_a((64,)), _a((64,)), 64],
                                        "tile_load with ACQUIRE memory ordering requires a memory scope",
                                        "memory_order=ct.MemoryOrder.ACQUIRE"),
}
"""Programs cuTile's front end refuses at the user's line (tileorch never sees them)."""


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def scale_from_0d_array_by_tile_load(X, S, Y, BN: ConstInt):
    """A 0-d scale read by ``ct.load(S, index=(), shape=())`` (a tiled view of a 0-d array: not valid CUDA Tile IR;
    the error names ``ct.gather``)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    s = ct.load(S, index=(), shape=())
    ct.store(Y, index=(ct.bid(0),), tile=x * s)


@ct.kernel
def cumprod_rounded_toward_zero(X, Y, BN: ConstInt):
    """A running product of discount factors with ``rounding_mode=ct.RoundingMode.RZ``."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.cumprod(x, axis=0, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def row_sum_rounded_toward_zero(X, Y, BN: ConstInt):
    """``ct.sum(x, rounding_mode=ct.RoundingMode.RZ)`` (a truncating reduction)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.sum(x, axis=0, keepdims=True, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def exchange_with_system_scope(X, Y, BN: ConstInt):
    """Slots swapped with ``ct.atomic_xchg(..., memory_scope=ct.MemoryScope.SYS)`` (host-mapped memory)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.atomic_xchg(Y, ct.arange(BN, dtype=ct.int32), x, memory_scope=ct.MemoryScope.SYS)


@ct.kernel
def fake_quantize_e5m3(X, Y, BN: ConstInt):
    """Activations rounded through ``ct.float8_e5m3fnu`` (an unsigned 8-bit float) and back."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x.astype(ct.float8_e5m3fnu).astype(ct.float32))


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("scale_from_0d_array_by_tile_load", scale_from_0d_array_by_tile_load, [_a((64,)), _a(()), _a((64,)), 64], (1,),
     "error", error="read a 0-d array with ct.gather(array, ())", notes="s = ct.load(S, index=(), shape=())")
_bad("cumprod_rounded_toward_zero", cumprod_rounded_toward_zero, [_a((64,)), _a((64,)), 64], (1,), "error",
     error="with rounding<zero> is not supported yet", notes="ct.cumprod(x, axis=0")
_bad("row_sum_rounded_toward_zero", row_sum_rounded_toward_zero, [_a((64,)), _a((1,)), 64], (1,), "error",
     error="with rounding<zero> is not supported yet", notes="ct.sum(x, axis=0")
_bad("exchange_with_system_scope", exchange_with_system_scope, [_a((64,)), _a((64,)), 64], (1,), "error",
     error="a system-scope atomic_rmw", notes="memory_scope=ct.MemoryScope.SYS")
_bad("fake_quantize_e5m3", fake_quantize_e5m3, [_a((64,)), _a((64,)), 64], (1,), "error",
     error="(cuTile's ct.float8_e5m3fnu), which is not supported yet by tileorch", notes="x.astype(ct.float8_e5m3fnu)")
