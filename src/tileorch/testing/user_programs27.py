"""The twenty-seventh user sweep (session 35): cuTile 1.7 programs ported from Triton tutorials and real code
bases, weighted to what the earlier sweeps covered least: a persistent GEMM whose tile order is grouped from
``pid``, split-K accumulating with atomics, GEMMs of K not a multiple of the tile and of M / N of 1 to 7, int8 x
int8 -> int32, fp8 with per-row / per-column scales, a 4-D batched GEMM with a broadcast batch, ``ct.assert_`` in a
GEMM, epilogues that read a second matrix (a residual, a bool mask), early returns under a scalar condition,
``IndexedWithInt64`` operands; without a dot: layernorm backward (dX, and dW / dB partial sums by a grid-stride loop
and by atomics), Triton's low-memory seeded dropout (a hash of seed and offsets, a variable shift per element),
softmax over a dimension that is not the last, row-wise top-k by repeated max with int64 indices, segment sums by
offsets (empty segments), 2-D stencils (zero and clamped edges), int64 indices and int64 arithmetic past 2**32,
bool tiles loaded and stored, tile sizes 1 and 2, grids of 3, 5 and 7, programs that return early.

Found by this sweep: a split-K GEMM whose K range reads the grid's extent (``per = cdiv(k_tiles, ct.num_blocks(2))``)
was refused by the tier ("the epilogue reads the grid size (num_blocks) in a kernel whose work tiles are not the
launch grid's programs") and ran on mma.sync; now such a kernel walks the launch grid (a program-grid kernel, as a
guard or computed tile coordinates make it: ``DotKernel.k_grid``) on TMA + WGMMA (:func:`split_k_gemm_atomic_add_axis2`).
The tier's pass dropped a ``ct.assert_`` in a GEMM's work tile when run directly (``tileorch-opt``: the driver
refuses it before the tier, with a located warning, and runs the SIMT path): ``convert_to_cutlass.UNLOWERED_WRITES``
now refuses it at its line (:func:`gemm_assert_no_nan_in_operands`).  cuTile's ``float8_e5m3fnu`` stopped tileorch
at the bytecode's type table ("offset 627: unknown type tag 130"); now at the conversion's line, naming the type
(:func:`quantize_to_fp8_e5m3`).  A list passed for a ``ct.Constant`` was refused as "tuple parameters are not
supported yet"; now as a ``ct.Constant`` taking a bool, int or float.  Left as they are: the layernorm dW / dB by
atomics asks ptxas for 32 resident CTAs and spills under it until the driver's ptxas step drops the hint; a GEMM of
rows not whole 16-byte units (N = 5 f16) is for the launcher's padded copies (``gemm_host.StagingPlan``), which the
emulator's runner does not make: it runs on the GPU only, as does the e4m3 WGMMA the emulator does not model.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep27_compile.py, tests/unit/test_user_sweep27_interp.py,
tests/unit/test_user_sweep27_emulated.py, tests/unit/test_user_sweep27_invalid.py (with :data:`INVALID` and
:data:`REJECTED_BY_CUTILE`), tests/unit/test_user_sweep27_cutlass.py (CUTLASS-dialect inputs) and
tests/gpu/test_user_sweep27_gpu.py.  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF
F16, BF16, F32, F64 = "float16", "bfloat16", "float32", "float64"
I8, I16, I32, I64, U8, U32, B = "int8", "int16", "int32", "int64", "uint8", "uint32", "bool_"
E4M3 = "float8_e4m3fn"


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


# ----------------------------------------------------------------------------------------------- GEMMs


@ct.kernel
def persistent_gemm_grouped_from_pid(A, Bm, C, GROUP_M: ConstInt, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Triton tutorial 09's persistent GEMM as a user ports it: ``pid = ct.bid(0)``, ``for tile in range(pid,
    num_tiles, ct.num_blocks(0))``, the tile order grouped ``GROUP_M`` row tiles at a time (L2 reuse); f16 in and
    out, M, N and K ragged, 5 programs for 25 tiles."""
    pid = ct.bid(0)
    num_pid_m = ct.cdiv(A.shape[0], TM)
    num_pid_n = ct.cdiv(Bm.shape[1], TN)
    num_tiles = num_pid_m * num_pid_n
    width = GROUP_M * num_pid_n
    for tile in range(pid, num_tiles, ct.num_blocks(0)):
        group = tile // width
        first_m = group * GROUP_M
        size_m = min(num_pid_m - first_m, GROUP_M)
        pid_m = first_m + (tile % width) % size_m
        pid_n = (tile % width) // size_m
        acc = ct.zeros((TM, TN), dtype=ct.float32)
        for k in range(ct.cdiv(A.shape[1], TK)):
            a = ct.load(A, index=(pid_m, k), shape=(TM, TK), padding_mode=ZERO)
            b = ct.load(Bm, index=(k, pid_n), shape=(TK, TN), padding_mode=ZERO)
            acc = ct.mma(a, b, acc)
        ct.store(C, index=(pid_m, pid_n), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_swizzled_1d_grid_triton03(A, Bm, C, GROUP_M: ConstInt, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Triton tutorial 03's matmul: a 1-D grid of one program per tile, ``pid`` mapped to ``(pid_m, pid_n)`` in
    groups of ``GROUP_M`` rows; bf16 in, f32 out."""
    pid = ct.bid(0)
    num_pid_m = ct.cdiv(A.shape[0], TM)
    num_pid_n = ct.cdiv(Bm.shape[1], TN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(pid_m, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, pid_n), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(pid_m, pid_n), tile=acc)


@ct.kernel
def split_k_gemm_atomic_add_axis2(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Split-K: grid axis 2 splits the K tiles into ``ct.num_blocks(2)`` ranges (the last one short), each
    program's partial product added into the zeroed f32 C by ``ct.atomic_add`` at C's element indices."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    k_tiles = ct.cdiv(A.shape[1], TK)
    per = ct.cdiv(k_tiles, ct.num_blocks(2))
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(s * per, min(s * per + per, k_tiles)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.atomic_add(C, (rows[:, None], cols[None, :]), acc, check_bounds=True)


@ct.kernel
def gemm_k104_last_k_tile_partial(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """K = 104 with a K tile of 32: the fourth K tile holds 8 columns, the rest zero-padded; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_tiny_m_rows(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A decode-time GEMM of 7 rows (a batch of 7 tokens) against a 72 x 96 weight: one 64-row tile, 57 rows of
    it padding; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_n5_columns_k100(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A classifier head of 5 classes: ``[64, 100] @ [100, 5]`` (K not a multiple of the tile; rows of B 10
    bytes, of A 200 bytes: no TMA can describe them); f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def int8_gemm_int32_out(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A W8A8 GEMM's integer core: int8 x int8 accumulated in int32 (``ct.mma`` with an int32 accumulator), the
    int32 result stored as it is; B ``[K, N]`` row-major."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def fp8_gemm_rowwise_colwise_scales(A, W, ScaleA, ScaleW, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``torch._scaled_mm`` with row-wise scales: e4m3 A ``[M, K]`` and W ``[N, K]`` (the weight as ``nn.Linear``
    stores it, each tile transposed), f32 accumulation, ``acc * sa[:, None] * sw[None, :]``, bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        w = ct.load(W, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(a, ct.transpose(w), acc)
    sa = ct.load(ScaleA, index=(bm,), shape=(TM,), padding_mode=ZERO)
    sw = ct.load(ScaleW, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=(acc * sa[:, None] * sw[None, :]).astype(C.dtype))


@ct.kernel
def bmm_4d_heads_weight_broadcast_over_batch(A, W, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``torch.matmul(a[B, H, M, K], w[1, H, K, N])``: a 4-D batched GEMM whose weight's batch dimension is 1
    (broadcast: always index 0), (batch, head) flattened on grid axis 2; f16 in, f32 out."""
    bm, bn, bh = ct.bid(0), ct.bid(1), ct.bid(2)
    b, h = bh // A.shape[1], bh % A.shape[1]
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[3], TK)):
        a = ct.load(A, index=(b, h, bm, k), shape=(1, 1, TM, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(W, index=(0, h, k, bn), shape=(1, 1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, h, bm, bn), tile=acc.reshape((1, 1, TM, TN)))


@ct.kernel
def gemm_assert_no_nan_in_operands(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GEMM checking its A tiles for NaN with ``ct.assert_`` inside the K loop (a user's debug check left in):
    the assert must be evaluated or the kernel refused with a located word, never dropped."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        ct.assert_(a == a, "NaN in A")
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_residual_add_epilogue(A, Bm, R, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A transformer block's output projection with the residual added in the epilogue: ``C = A @ W + R``, the
    residual a second ``[M, N]`` f16 matrix read at C's tile; f16 in and out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    r = ct.load(R, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=(acc + r.astype(ct.float32)).astype(C.dtype))


@ct.kernel
def gemm_masked_fill_by_bool_matrix(A, Bm, Mask, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Attention-score style masking in a GEMM's epilogue: ``where(mask, A @ B, -1e4)`` with the mask a bool
    ``[M, N]`` matrix read at C's tile; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    keep = ct.load(Mask, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=ct.where(keep, acc, -1e4))


@ct.kernel
def gemm_early_return_past_valid_rows(A, Bm, C, m_valid: int, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GEMM launched on a grid rounded up to a bucket size: row tiles at or past ``m_valid`` rows return at
    once (their C tiles left as they were); f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    if bm * TM >= m_valid:
        return
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_int64_indexed_operands(A: ct.IndexedWithInt64, Bm: ct.IndexedWithInt64, C, TM: ConstInt, TN: ConstInt,
                                TK: ConstInt):
    """A GEMM whose operands are declared ``ct.IndexedWithInt64`` (a library marking every large input so);
    f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_grid_3x5_tn32(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A 3 x 5 grid (neither a power of two) of 64 x 32 tiles with a K tile of 64; bf16 in and out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def w8a8_gemm_nk_weight_dequant_scales(A, W, ScaleA, ScaleW, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A W8A8 linear layer as SmoothQuant runs it: int8 activations ``[M, K]`` and int8 weights stored as
    ``nn.Linear`` stores them (``[N, K]``: each tile transposed, K-major as the s8 WGMMA reads B), int32
    accumulation, dequantized in the epilogue by a per-token and a per-channel f32 scale; f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        w = ct.load(W, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(a, ct.transpose(w), acc)
    sa = ct.load(ScaleA, index=(bm,), shape=(TM,), padding_mode=ZERO)
    sw = ct.load(ScaleW, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=(acc.astype(ct.float32) * sa[:, None] * sw[None, :]).astype(C.dtype))


@ct.kernel
def gemm_epilogue_reads_transposed_matrix(A, Bm, Rt, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An epilogue reading a second matrix stored the other way round: ``C = A @ B + Rt.T`` with ``Rt`` an
    ``[N, M]`` f32 matrix, its ``(TN, TM)`` tile at ``(bn, bm)`` transposed; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    r = ct.load(Rt, index=(bn, bm), shape=(TN, TM), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=acc + ct.transpose(r))


# ----------------------------------------------------------------------------------------------- normalization


@ct.kernel
def layernorm_backward_dx(X, DY, W, Mean, Rstd, DX, N: ConstInt, BN: ConstInt):
    """Triton tutorial 05's layernorm backward, dX: ``xhat = (x - mean) * rstd``, ``wdy = w * dy``, ``dx = (wdy -
    (xhat * mean(xhat * wdy) + mean(wdy))) * rstd`` per row (N = 100 of a 128 tile)."""
    r = ct.bid(0)
    cols = ct.arange(BN, dtype=ct.int32)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).reshape((BN,))
    dy = ct.load(DY, index=(r, 0), shape=(1, BN), padding_mode=ZERO).reshape((BN,))
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO)
    mean = ct.load(Mean, index=(r,), shape=())
    rstd = ct.load(Rstd, index=(r,), shape=())
    xhat = ct.where(cols < N, (x - mean) * rstd, 0.0)
    wdy = w * dy
    c1 = ct.sum(xhat * wdy) / N
    c2 = ct.sum(wdy) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    ct.store(DX, index=(r, 0), tile=dx.reshape((1, BN)))


@ct.kernel
def layernorm_backward_dw_db_partials(X, DY, Mean, Rstd, PDW, PDB, BN: ConstInt):
    """Layernorm backward's dW / dB, first stage: program ``g`` of G sums ``dy * xhat`` and ``dy`` over rows
    ``g, g + G, ...`` (a grid-stride loop of a runtime trip count) into row ``g`` of the ``[G, N]`` partials."""
    g = ct.bid(0)
    dw = ct.zeros((BN,), dtype=ct.float32)
    db = ct.zeros((BN,), dtype=ct.float32)
    for r in range(g, X.shape[0], ct.num_blocks(0)):
        x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).reshape((BN,))
        dy = ct.load(DY, index=(r, 0), shape=(1, BN), padding_mode=ZERO).reshape((BN,))
        xhat = (x - ct.load(Mean, index=(r,), shape=())) * ct.load(Rstd, index=(r,), shape=())
        dw = dw + dy * xhat
        db = db + dy
    ct.store(PDW, index=(g, 0), tile=dw.reshape((1, BN)))
    ct.store(PDB, index=(g, 0), tile=db.reshape((1, BN)))


@ct.kernel
def layernorm_backward_dw_db_atomic(X, DY, Mean, Rstd, DW, DB, TR: ConstInt, BN: ConstInt):
    """Layernorm backward's dW / dB in one pass: each program a ``(TR, BN)`` block of rows, its column sums of
    ``dy * xhat`` and ``dy`` added into the zeroed dW / dB by ``ct.atomic_add``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(TR, BN), padding_mode=ZERO)
    dy = ct.load(DY, index=(i, 0), shape=(TR, BN), padding_mode=ZERO)
    mean = ct.load(Mean, index=(i,), shape=(TR,), padding_mode=ZERO)
    rstd = ct.load(Rstd, index=(i,), shape=(TR,), padding_mode=ZERO)
    xhat = (x - mean[:, None]) * rstd[:, None]
    cols = ct.arange(BN, dtype=ct.int32)
    ct.atomic_add(DW, cols, ct.sum(dy * xhat, axis=0), check_bounds=True)
    ct.atomic_add(DB, cols, ct.sum(dy, axis=0), check_bounds=True)


@ct.kernel
def fused_add_rmsnorm_residual_out(X, Res, W, ResOut, Y, eps: float, N: ConstInt, BN: ConstInt):
    """vLLM's fused add + RMSNorm: ``r = x + residual`` written back (bf16) and ``y = r * rsqrt(mean(r^2) + eps)
    * w``, N = 96 of a 128 tile."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    r = x + ct.load(Res, index=(i, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    rb = r.astype(ct.bfloat16)
    ct.store(ResOut, index=(i, 0), tile=rb)
    rf = rb.astype(ct.float32)
    inv = ct.rsqrt(ct.sum(rf * rf, axis=1, keepdims=True) / N + eps)
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(i, 0), tile=(rf * inv * w[None, :]).astype(ct.bfloat16))


# ----------------------------------------------------------------------------------------------- random, softmax


@ct.kernel
def seeded_dropout_pcg_hash(X, Y, Keep, seed: int, p: float, BN: ConstInt):
    """Triton tutorial 04's low-memory dropout: the random number of element ``off`` from ``seed`` and ``off``
    alone (a PCG hash in uint32: ``s = off * 747796405 + 2891336453 + seed``, ``w = ((s >> ((s >> 28) + 4)) ^ s)
    * 277803737``, ``u = (w >> 22) ^ w``: a shift by a per-element amount), kept where ``u / 2**32 > p``; the
    kept mask stored as bool."""
    i = ct.bid(0)
    off = (i * BN + ct.arange(BN, dtype=ct.int32)).astype(ct.uint32)
    s = off * ct.full((BN,), 747796405, dtype=ct.uint32) + ct.full((BN,), 2891336453, dtype=ct.uint32) \
        + ct.full((BN,), seed, dtype=ct.uint32)
    w = ((s >> ((s >> 28) + ct.full((BN,), 4, dtype=ct.uint32))) ^ s) * ct.full((BN,), 277803737, dtype=ct.uint32)
    u = ((w >> 22) ^ w).astype(ct.float32) * (1.0 / 4294967296.0)
    keep = u > p
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.where(keep, x / (1.0 - p), 0.0))
    ct.store(Keep, index=(i,), tile=keep)


@ct.kernel
def softmax_over_dim0_columns(X, Y, TR: ConstInt, TN: ConstInt):
    """``torch.softmax(x, dim=0)`` of a ``[50, 70]`` matrix: each program a block of 16 columns over all rows
    (one 64-row tile, padding ``-inf``), reduced along axis 0."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(TR, TN), padding_mode=NEG_INF)
    e = ct.exp(x - ct.max(x, axis=0, keepdims=True))
    ct.store(Y, index=(0, j), tile=e / ct.sum(e, axis=0, keepdims=True))


@ct.kernel
def softmax_middle_dim_of_3d(X, Y, TS: ConstInt, TD: ConstInt):
    """``torch.softmax(x, dim=1)`` of ``[B, S, D]`` (attention over the sequence axis of a channels-last
    tensor): program ``(b, d)`` loads a ``(1, TS, TD)`` slab and reduces its middle axis."""
    b, d = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(b, 0, d), shape=(1, TS, TD), padding_mode=NEG_INF)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(b, 0, d), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def topk_rows_repeated_max_int64_ids(X, Vals, Ids, K: ConstInt, KP: ConstInt, BN: ConstInt):
    """Row-wise top-k (k = 5) by repeated max: each pick's value and its column (int64, as ``torch.topk`` gives)
    recorded in a slot of an 8-wide tile (tiles are powers of two: the store of ``(1, 8)`` into the ``[R, 5]``
    outputs keeps the first 5), the picked column masked to ``-inf``; N = 100 of a 128 tile (padding ``-inf``)."""
    r = ct.bid(0)
    z = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF).reshape((BN,))
    cols = ct.arange(BN, dtype=ct.int64)
    slots = ct.arange(KP, dtype=ct.int32)
    vals = ct.zeros((KP,), dtype=ct.float32)
    ids = ct.zeros((KP,), dtype=ct.int64)
    for j in ct.static_iter(range(K)):
        m = ct.max(z, axis=0)
        at = ct.min(ct.where(z == m, cols, BN), axis=0)
        vals = ct.where(slots == j, m, vals)
        ids = ct.where(slots == j, at, ids)
        z = ct.where(cols == at, -float("inf"), z)
    ct.store(Vals, index=(r, 0), tile=vals.reshape((1, KP)))
    ct.store(Ids, index=(r, 0), tile=ids.reshape((1, KP)))


@ct.kernel
def cross_entropy_int64_targets_ignore_index(Logits, Targets, Loss, V: ConstInt, BN: ConstInt):
    """Per-row cross entropy with int64 targets and ``ignore_index = -100`` (loss 0 there): ``logsumexp(z) -
    z[t]``, the target's logit picked by ``where(cols == t)``; V = 100 of a 128 tile."""
    r = ct.bid(0)
    z = ct.load(Logits, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF).reshape((BN,)).astype(ct.float32)
    t = ct.load(Targets, index=(r,), shape=())
    cols = ct.arange(BN, dtype=ct.int64)
    m = ct.max(z, axis=0)
    lse = m + ct.log(ct.sum(ct.exp(z - m), axis=0))
    zt = ct.sum(ct.where(cols == t, z, 0.0), axis=0)
    ct.store(Loss, index=(r,), tile=ct.where(t == -100, 0.0, lse - zt).reshape((1,)))


# ----------------------------------------------------------------------------------------------- segments, stencils


@ct.kernel
def segment_sum_and_max_by_offsets(X, Offs, Sums, Maxs, BN: ConstInt):
    """CSR-style segment reduction: segment ``s`` is ``X[offs[s]:offs[s + 1]]`` (some empty), summed and maxed
    over chunks of BN by a loop of a runtime trip count; an empty segment gives 0 and ``-inf``."""
    s = ct.bid(0)
    start = ct.load(Offs, index=(s,), shape=())
    stop = ct.load(Offs, index=(s + 1,), shape=())
    total = ct.zeros((BN,), dtype=ct.float32)
    best = ct.full((BN,), -float("inf"), dtype=ct.float32)
    for c in range(ct.cdiv(stop - start, BN)):
        idx = start + c * BN + ct.arange(BN, dtype=ct.int32)
        x = ct.gather(X, idx, mask=idx < stop, padding_value=0.0)
        total = total + x
        best = ct.maximum(best, ct.where(idx < stop, x, -float("inf")))
    ct.store(Sums, index=(s,), tile=ct.sum(total, axis=0).reshape((1,)))
    ct.store(Maxs, index=(s,), tile=ct.max(best, axis=0).reshape((1,)))


@ct.kernel
def stencil_5point_laplacian_zero_edges(X, Y, TH: ConstInt, TW: ConstInt):
    """A 2-D five-point Laplacian ``4 x - up - down - left - right`` with zeros outside the grid, each
    ``(TH, TW)`` tile gathering its four shifted neighbours by index math."""
    bi, bj = ct.bid(0), ct.bid(1)
    r = bi * TH + ct.arange(TH, dtype=ct.int32)[:, None]
    c = bj * TW + ct.arange(TW, dtype=ct.int32)[None, :]
    H, W = X.shape[0], X.shape[1]
    x = ct.load(X, index=(bi, bj), shape=(TH, TW), padding_mode=ZERO)
    up = ct.gather(X, (r - 1, c), mask=(r >= 1) & (c < W), padding_value=0.0)
    down = ct.gather(X, (r + 1, c), mask=(r + 1 < H) & (c < W), padding_value=0.0)
    left = ct.gather(X, (r, c - 1), mask=(r < H) & (c >= 1), padding_value=0.0)
    right = ct.gather(X, (r, c + 1), mask=(r < H) & (c + 1 < W), padding_value=0.0)
    ct.store(Y, index=(bi, bj), tile=4.0 * x - up - down - left - right)


@ct.kernel
def stencil_3x3_box_mean_clamped_edges(X, Y, TH: ConstInt, TW: ConstInt):
    """A 3 x 3 box blur with replicated edges (each neighbour's index clamped into the grid), the nine
    neighbours by ``ct.static_iter`` over the offsets."""
    bi, bj = ct.bid(0), ct.bid(1)
    H, W = X.shape[0], X.shape[1]
    r = bi * TH + ct.arange(TH, dtype=ct.int32)[:, None]
    c = bj * TW + ct.arange(TW, dtype=ct.int32)[None, :]
    acc = ct.zeros((TH, TW), dtype=ct.float32)
    for d in ct.static_iter(range(9)):
        rr = ct.minimum(ct.maximum(r + (d // 3 - 1), 0), H - 1)
        cc = ct.minimum(ct.maximum(c + (d % 3 - 1), 0), W - 1)
        acc = acc + ct.gather(X, (rr + 0 * cc, cc + 0 * rr))
    ct.store(Y, index=(bi, bj), tile=acc * (1.0 / 9.0))


@ct.kernel
def maxpool_2x2_by_reshape(X, Y, TH: ConstInt, TW: ConstInt):
    """2 x 2 max pooling: an ``(TH, TW)`` tile reshaped to ``(TH/2, 2, TW/2, 2)`` and maxed over axes 3 and 1
    (a 4-D tile of a 2-D array), ragged edges padded ``-inf``."""
    bi, bj = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(bi, bj), shape=(TH, TW), padding_mode=NEG_INF)
    q = ct.max(ct.max(x.reshape((TH // 2, 2, TW // 2, 2)), axis=3), axis=1)
    ct.store(Y, index=(bi, bj), tile=q)


# ----------------------------------------------------------------------------------------------- int64, bool, sizes


@ct.kernel
def embedding_gather_int64_token_ids(Ids, Table, Out, TT: ConstInt, D: ConstInt):
    """An embedding lookup with int64 token ids (as torch gives them): ``Out[t, :] = Table[ids[t], :]`` by a 2-D
    gather, ids past the table (a padding id of -1) giving zeros."""
    i = ct.bid(0)
    ids = ct.load(Ids, index=(i,), shape=(TT,), padding_mode=ZERO)
    cols = ct.arange(D, dtype=ct.int64)
    ok = (ids[:, None] >= 0) & (ids[:, None] < Table.shape[0]) & (cols[None, :] < Table.shape[1])
    ct.store(Out, index=(i, 0), tile=ct.gather(Table, (ids[:, None], cols[None, :]), mask=ok, padding_value=0.0))


@ct.kernel
def bincount_weighted_int64_ids_atomic(Ids, Wts, Out, BN: ConstInt):
    """``torch.bincount(ids, weights)`` with int64 ids: each weight added into its bin by ``ct.atomic_add`` at
    int64 indices; ids out of range (negative, or past the bins) dropped by ``check_bounds``."""
    i = ct.bid(0)
    ids = ct.load(Ids, index=(i,), shape=(BN,), padding_mode=ZERO)
    w = ct.load(Wts, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.atomic_add(Out, ids, w, check_bounds=True)


@ct.kernel
def int64_arithmetic_past_2_pow_32(X, Y, base: ct.ScalarInt64, BN: ConstInt):
    """Global element ids as int64 past 2**32: ``y = x * 3 + base + i`` with ``base`` a ``ct.ScalarInt64`` of
    2**40 + 5 and int64 inputs of 2**33 and more."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    idx = (i * BN + ct.arange(BN, dtype=ct.int32)).astype(ct.int64)
    ct.store(Y, index=(i,), tile=x * 3 + base + idx)


@ct.kernel
def bool_tiles_xor_and_count(A, Bb, X, Y, Z, Count, BN: ConstInt):
    """Bool tiles in and out: ``y = where(a ^ b, x, -x)``, ``z = a & ~b`` stored as bool, and the number of true
    ``a`` added into ``Count`` by an atomic."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.load(Bb, index=(i,), shape=(BN,), padding_mode=ZERO)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.where(a ^ b, x, -x))
    ct.store(Z, index=(i,), tile=a & ~b)
    ct.atomic_add(Count, ct.zeros((1,), dtype=ct.int32), ct.sum(a.astype(ct.int32), axis=0).reshape((1,)))


@ct.kernel
def tile_of_one_grid_of_seven(X, Y, BN: ConstInt):
    """One element a program (a tile of 1) on a grid of 7: ``y = x * x + 1``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,))
    ct.store(Y, index=(i,), tile=x * x + 1.0)


@ct.kernel
def tile_of_two_pair_swap(X, Y, BN: ConstInt):
    """Swapping neighbours ``(x[2i], x[2i+1])`` with tiles of 2 on a grid of 5: the pair gathered in reverse."""
    i = ct.bid(0)
    ct.store(Y, index=(i,), tile=ct.gather(X, i * BN + (BN - 1 - ct.arange(BN, dtype=ct.int32))))


@ct.kernel
def transpose_2x2_tiles_grid_3x5(X, Y, T: ConstInt):
    """A transpose by 2 x 2 tiles on a 3 x 5 grid: tile ``(i, j)`` of X stored transposed as tile ``(j, i)`` of
    Y."""
    i, j = ct.bid(0), ct.bid(1)
    ct.store(Y, index=(j, i), tile=ct.transpose(ct.load(X, index=(i, j), shape=(T, T))))


@ct.kernel
def argmax_dim0_int64_out(X, Out, TR: ConstInt, TN: ConstInt):
    """``torch.argmax(x, dim=0)`` (int64) of a ``[40, 50]`` matrix: a block of 16 columns over all rows."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(TR, TN), padding_mode=NEG_INF)
    ct.store(Out, index=(j,), tile=ct.argmax(x, axis=0).astype(ct.int64))


@ct.kernel
def cumsum_dim0_not_last(X, Y, TR: ConstInt, TN: ConstInt):
    """``torch.cumsum(x, dim=0)`` of ``[30, 20]``: an inclusive scan down the rows of a ``(32, 8)`` tile."""
    j = ct.bid(0)
    ct.store(Y, index=(0, j), tile=ct.cumsum(ct.load(X, index=(0, j), shape=(TR, TN), padding_mode=ZERO), axis=0))


@ct.kernel
def early_return_when_disabled(X, Y, enabled: bool, BN: ConstInt):
    """A kernel with a runtime on/off switch: ``if not enabled: return`` before anything is written (the output
    left as it was)."""
    if not enabled:
        return
    i = ct.bid(0)
    ct.store(Y, index=(i,), tile=ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO) * 2.0)


@ct.kernel
def early_return_on_empty_row(X, Lens, Y, BN: ConstInt):
    """Variable-length rows: a row of length 0 returns at once (its output row untouched); the others store the
    prefix mean of their first ``len`` values, broadcast over the row."""
    r = ct.bid(0)
    n = ct.load(Lens, index=(r,), shape=())
    if n == 0:
        return
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    mean = ct.sum(ct.where(cols < n, x, 0.0)) / n.astype(ct.float32)
    ct.store(Y, index=(r, 0), tile=ct.full((1, BN), 0.0, dtype=ct.float32) + mean)


# ----------------------------------------------------------------------------------------------- the table

_add("persistent_gemm_grouped_from_pid", persistent_gemm_grouped_from_pid,
     [_a((300, 200), F16), _a((200, 264), F16), _a((300, 264), F16), 2, 64, 64, 32], (5,), "gemm", outputs=(2,))
_add("gemm_swizzled_1d_grid_triton03", gemm_swizzled_1d_grid_triton03,
     [_a((200, 96), BF16), _a((96, 328), BF16), _a((200, 328)), 4, 64, 64, 32], (24,), "gemm", outputs=(2,))
_add("split_k_gemm_atomic_add_axis2", split_k_gemm_atomic_add_axis2,
     [_a((130, 320), F16), _a((320, 96), F16), _a((130, 96)), 64, 64, 32], (3, 2, 3), "gemm", outputs=(2,))
_add("gemm_k104_last_k_tile_partial", gemm_k104_last_k_tile_partial,
     [_a((100, 104), F16), _a((104, 72), F16), _a((100, 72)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_tiny_m_rows", gemm_tiny_m_rows,
     [_a((7, 72), F16), _a((72, 96), F16), _a((7, 96)), 64, 64, 32], (1, 2), "gemm", outputs=(2,))
_add("gemm_n5_columns_k100", gemm_n5_columns_k100,
     [_a((64, 100), F16), _a((100, 5), F16), _a((64, 5)), 64, 64, 32], (1, 1), "gemm", outputs=(2,))
_add("int8_gemm_int32_out", int8_gemm_int32_out,
     [_a((130, 96), I8), _a((96, 72), I8), _a((130, 72), I32), 64, 64, 32], (3, 2), "gemm", outputs=(2,))
_add("fp8_gemm_rowwise_colwise_scales", fp8_gemm_rowwise_colwise_scales,
     [_a((128, 128), E4M3), _a((96, 128), E4M3), _a((128,)), _a((96,)), _a((128, 96), BF16), 64, 64, 64], (2, 2),
     "gemm", outputs=(4,))
_add("bmm_4d_heads_weight_broadcast_over_batch", bmm_4d_heads_weight_broadcast_over_batch,
     [_a((2, 3, 70, 64), F16), _a((1, 3, 64, 80), F16), _a((2, 3, 70, 80)), 64, 64, 32], (2, 2, 6), "gemm",
     outputs=(2,))
_add("gemm_assert_no_nan_in_operands", gemm_assert_no_nan_in_operands,
     [_a((100, 64), F16), _a((64, 72), F16), _a((100, 72), F16), 64, 64, 32], (2, 2), "simt", outputs=(2,),
     error="ct.assert_ is checked on the SIMT path only")
_add("gemm_residual_add_epilogue", gemm_residual_add_epilogue,
     [_a((130, 64), F16), _a((64, 96), F16), _a((130, 96), F16), _a((130, 96), F16), 64, 64, 32], (3, 2), "gemm",
     outputs=(3,))
_add("gemm_masked_fill_by_bool_matrix", gemm_masked_fill_by_bool_matrix,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80), B), _a((100, 80)), 64, 64, 32], (2, 2), "gemm",
     outputs=(3,))
_add("gemm_early_return_past_valid_rows", gemm_early_return_past_valid_rows,
     [_a((256, 64), F16), _a((64, 80), F16), _a((256, 80)), 130, 64, 64, 32], (4, 2), "gemm", outputs=(2,))
_add("gemm_int64_indexed_operands", gemm_int64_indexed_operands,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_grid_3x5_tn32", gemm_grid_3x5_tn32,
     [_a((150, 128), BF16), _a((128, 160), BF16), _a((150, 160), BF16), 64, 32, 64], (3, 5), "gemm", outputs=(2,))
_add("w8a8_gemm_nk_weight_dequant_scales", w8a8_gemm_nk_weight_dequant_scales,
     [_a((130, 128), I8), _a((96, 128), I8), _a((130,)), _a((96,)), _a((130, 96), F16), 64, 64, 64], (3, 2), "gemm",
     outputs=(4,))
_add("gemm_epilogue_reads_transposed_matrix", gemm_epilogue_reads_transposed_matrix,
     [_a((100, 64), F16), _a((64, 80), F16), _a((80, 100)), _a((100, 80)), 64, 64, 32], (2, 2), "gemm",
     outputs=(3,))

_add("layernorm_backward_dx", layernorm_backward_dx,
     [_a((9, 100)), _a((9, 100)), _a((100,)), _a((9,)), _a((9,)), _a((9, 100)), 100, 128], (9,), "simt",
     outputs=(5,))
_add("layernorm_backward_dw_db_partials", layernorm_backward_dw_db_partials,
     [_a((23, 100)), _a((23, 100)), _a((23,)), _a((23,)), _a((5, 100)), _a((5, 100)), 128], (5,), "simt",
     outputs=(4, 5))
_add("layernorm_backward_dw_db_atomic", layernorm_backward_dw_db_atomic,
     [_a((23, 100)), _a((23, 100)), _a((23,)), _a((23,)), _a((100,)), _a((100,)), 8, 128], (3,), "simt",
     outputs=(4, 5))
_add("fused_add_rmsnorm_residual_out", fused_add_rmsnorm_residual_out,
     [_a((6, 96), BF16), _a((6, 96), BF16), _a((96,), BF16), _a((6, 96), BF16), _a((6, 96), BF16), 1e-6, 96, 128],
     (6,), "simt", outputs=(3, 4))
_add("seeded_dropout_pcg_hash", seeded_dropout_pcg_hash,
     [_a((300,)), _a((300,)), _a((300,), B), 20260, 0.3, 128], (3,), "simt", outputs=(1, 2))
_add("softmax_over_dim0_columns", softmax_over_dim0_columns,
     [_a((50, 70)), _a((50, 70)), 64, 16], (5,), "simt", outputs=(1,))
_add("softmax_middle_dim_of_3d", softmax_middle_dim_of_3d,
     [_a((3, 20, 24)), _a((3, 20, 24)), 32, 8], (3, 3), "simt", outputs=(1,))
_add("topk_rows_repeated_max_int64_ids", topk_rows_repeated_max_int64_ids,
     [_a((7, 100)), _a((7, 5)), _a((7, 5), I64), 5, 8, 128], (7,), "simt", outputs=(1, 2))
_add("cross_entropy_int64_targets_ignore_index", cross_entropy_int64_targets_ignore_index,
     [_a((6, 100), F16), _a((6,), I64), _a((6,)), 100, 128], (6,), "simt", outputs=(2,))
_add("segment_sum_and_max_by_offsets", segment_sum_and_max_by_offsets,
     [_a((300,)), _a((6,), I32), _a((5,)), _a((5,)), 64], (5,), "simt", outputs=(2, 3))
_add("stencil_5point_laplacian_zero_edges", stencil_5point_laplacian_zero_edges,
     [_a((20, 30)), _a((20, 30)), 8, 16], (3, 2), "simt", outputs=(1,))
_add("stencil_3x3_box_mean_clamped_edges", stencil_3x3_box_mean_clamped_edges,
     [_a((20, 30)), _a((20, 30)), 8, 16], (3, 2), "simt", outputs=(1,))
_add("maxpool_2x2_by_reshape", maxpool_2x2_by_reshape,
     [_a((12, 20)), _a((6, 10)), 8, 16], (2, 2), "simt", outputs=(1,))
_add("embedding_gather_int64_token_ids", embedding_gather_int64_token_ids,
     [_a((10,), I64), _a((50, 32)), _a((10, 32)), 8, 32], (2,), "simt", outputs=(2,))
_add("bincount_weighted_int64_ids_atomic", bincount_weighted_int64_ids_atomic,
     [_a((200,), I64), _a((200,)), _a((20,)), 64], (4,), "simt", outputs=(2,))
_add("int64_arithmetic_past_2_pow_32", int64_arithmetic_past_2_pow_32,
     [_a((100,), I64), _a((100,), I64), 2**40 + 5, 64], (2,), "simt", outputs=(1,))
_add("bool_tiles_xor_and_count", bool_tiles_xor_and_count,
     [_a((100,), B), _a((100,), B), _a((100,)), _a((100,)), _a((100,), B), _a((1,), I32), 64], (2,), "simt",
     outputs=(3, 4, 5))
_add("tile_of_one_grid_of_seven", tile_of_one_grid_of_seven, [_a((7,)), _a((7,)), 1], (7,), "simt", outputs=(1,))
_add("tile_of_two_pair_swap", tile_of_two_pair_swap, [_a((10,)), _a((10,)), 2], (5,), "simt", outputs=(1,))
_add("transpose_2x2_tiles_grid_3x5", transpose_2x2_tiles_grid_3x5, [_a((6, 10)), _a((10, 6)), 2], (3, 5), "simt",
     outputs=(1,))
_add("argmax_dim0_int64_out", argmax_dim0_int64_out, [_a((40, 50)), _a((50,), I64), 64, 16], (4,), "simt",
     outputs=(1,))
_add("cumsum_dim0_not_last", cumsum_dim0_not_last, [_a((30, 20)), _a((30, 20)), 32, 8], (3,), "simt",
     outputs=(1,))
_add("early_return_when_disabled", early_return_when_disabled, [_a((100,)), _a((100,)), False, 64], (2,), "simt",
     outputs=(1,))
_add("early_return_on_empty_row", early_return_on_empty_row, [_a((6, 50)), _a((6,), I32), _a((6, 50)), 64], (6,),
     "simt", outputs=(2,))


@ct.kernel
def u8_activations_s8_weights_gemm(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Asymmetric int8 quantization's GEMM: uint8 activations (zero point 128 folded later) times int8 weights,
    accumulated in int32 (cuTile takes a uint8 / int8 pair); B ``[K, N]``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


_add("u8_activations_s8_weights_gemm", u8_activations_s8_weights_gemm,
     [_a((100, 128), U8), _a((128, 64), I8), _a((100, 64), I32), 64, 64, 32], (2, 1), "gemm", outputs=(2,))


# ----------------------------------------------------------------------------------------------- rejected by cuTile


@ct.kernel
def topk_five_slots(X, Vals, K: ConstInt, BN: ConstInt):
    """A top-5 written with a 5-wide slot tile (``ct.arange(5)``): cuTile's tiles are powers of two."""
    r = ct.bid(0)
    z = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF).reshape((BN,))
    slots = ct.arange(K, dtype=ct.int32)
    ct.store(Vals, index=(r, 0), tile=ct.where(slots == 0, ct.max(z, axis=0), 0.0).reshape((1, K)))


@ct.kernel
def gemm_b_tile_k_twice_a(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GEMM whose B tile is loaded ``(2 * TK, TN)`` (a typo for ``(TK, TN)``): the product's K do not agree."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(2 * TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_int8_times_f16_weights(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """int8 activations multiplied by f16 weights directly (without a conversion): mixed operand types."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def zero_the_first_element_in_place(X, Y, BN: ConstInt):
    """``t[0] = 0`` on a loaded tile (a NumPy habit): cuTile's tiles are immutable."""
    t = ct.load(X, index=(ct.bid(0),), shape=(BN,))
    t[0] = 0.0
    ct.store(Y, index=(ct.bid(0),), tile=t)


@ct.kernel
def branch_on_a_tile_condition(X, Y, BN: ConstInt):
    """``if x.sum() > 0`` written as ``if x > 0`` on the whole tile: an ``if`` takes a scalar."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,))
    if x > 0.0:
        x = x * 2.0
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def python_math_in_the_kernel(X, Y, BN: ConstInt):
    """``math.exp`` of a tile (the host's math module) in device code."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,))
    ct.store(Y, index=(ct.bid(0),), tile=x * math.exp(x))


@ct.kernel
def atomic_add_into_int8_counts(X, Counts, BN: ConstInt):
    """Byte-sized counters bumped by ``ct.atomic_add``: cuTile's atomics take 32- and 64-bit (and f16 / bf16 add)
    elements."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,))
    ct.atomic_add(Counts, ct.arange(BN, dtype=ct.int32), x)


@ct.kernel
def cat_of_three_tiles(X, Y, BN: ConstInt):
    """``ct.cat((a, b, c))`` of three tiles at once: cuTile's ``cat`` joins two."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.cat((x, x, x), axis=0))


REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "topk_five_slots": (topk_five_slots, [_a((7, 100)), _a((7, 5)), 5, 128], "Result tile shape must be power of 2, "
                        "got 5", "slots = ct.arange(K"),
    "gemm_b_tile_k_twice_a": (gemm_b_tile_k_twice_a, [_a((128, 64), F16), _a((64, 64), F16), _a((128, 64)), 64, 64,
                                                      32], "Incompatible shapes for matrix mul on tiles",
                              "acc = ct.mma(a, b, acc)"),
    "gemm_int8_times_f16_weights": (gemm_int8_times_f16_weights,
                                    [_a((128, 64), I8), _a((64, 64), F16), _a((128, 64)), 64, 64, 32],
                                    "x and y must have the same dtype unless they are int8/uint8",
                                    "acc = ct.mma(a, b, acc)"),
    "zero_the_first_element_in_place": (zero_the_first_element_in_place, [_a((64,)), _a((64,)), 64],
                                        "Tiles are immutable: item assignment is not supported", "t[0] = 0.0"),
    "branch_on_a_tile_condition": (branch_on_a_tile_condition, [_a((64,)), _a((64,)), 64],
                                   "Expected a scalar value, but given value has type Tile[bool_,(64)]",
                                   "if x > 0.0:"),
    "python_math_in_the_kernel": (python_math_in_the_kernel, [_a((64,)), _a((64,)), 64],
                                  "exp() is not supported in device code", "x * math.exp(x)"),
    "atomic_add_into_int8_counts": (atomic_add_into_int8_counts, [_a((64,), I8), _a((64,), I8), 64],
                                    "Unsupported array dtype: int8", "ct.atomic_add(Counts"),
    "cat_of_three_tiles": (cat_of_three_tiles, [_a((64,)), _a((192,)), 64], "cat() supports at most 2 tiles, got 3",
                           "ct.cat((x, x, x)"),
}
"""Programs cuTile's front end refuses at the user's line (tileorch never sees them)."""


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def quantize_to_fp8_e5m3(X, Y, BN: ConstInt):
    """Activations rounded through cuTile's ``float8_e5m3fnu`` (an unsigned 8-bit float of bytecode 13.4) and
    back: found by this sweep, tileorch stopped at the bytecode's type table ("offset 627: unknown type tag
    130"), naming no line; now the conversion's line, naming the type."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=x.astype(ct.float8_e5m3fnu).astype(ct.float32))


@ct.kernel
def mx_block_scaled_mma(A, Bm, SA, SB, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An MXFP8 GEMM by ``ct.mma_scaled`` (e4m3 operands, one e8m0 scale per 32 K elements)."""
    a = ct.load(A, index=(0, 0), shape=(TM, TK))
    b = ct.load(Bm, index=(0, 0), shape=(TK, TN))
    sa = ct.load(SA, index=(0, 0), shape=(TM, TK // 32))
    sb = ct.load(SB, index=(0, 0), shape=(TK // 32, TN))
    ct.store(C, index=(0, 0), tile=ct.mma_scaled(a, sa, b, sb, ct.zeros((TM, TN), dtype=ct.float32)))


@ct.kernel
def e8m0_scales_rounded_toward_zero(X, Y, BN: ConstInt):
    """MX scales as e8m0 by ``astype(..., rounding_mode=RZ)`` (the rounding cuTile allows)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=x.astype(ct.float8_e8m0fnu, rounding_mode=ct.RoundingMode.RZ))


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("quantize_to_fp8_e5m3", quantize_to_fp8_e5m3, [_a((64,)), _a((64,)), 64], (1,), "error",
     error="makes a value of element type f8E5M3FNU (cuTile's ct.float8_e5m3fnu), which is not supported yet",
     notes="x.astype(ct.float8_e5m3fnu)")
_bad("mx_block_scaled_mma", mx_block_scaled_mma,
     [_a((64, 64), E4M3), _a((64, 64), E4M3), _a((64, 2), "float8_e8m0fnu"), _a((2, 64), "float8_e8m0fnu"),
      _a((64, 64)), 64, 64, 64], (1,), "error", error="'cuda_tile.mmaf_scaled' is not supported yet",
     notes="ct.mma_scaled(a, sa, b, sb")
_bad("e8m0_scales_rounded_toward_zero", e8m0_scales_rounded_toward_zero, [_a((64,)), _a((64,), "float8_e8m0fnu"), 64],
     (1,), "error", error="with rounding<zero> from f32 to f8E8M0FNU is not supported yet",
     notes="rounding_mode=ct.RoundingMode.RZ")
