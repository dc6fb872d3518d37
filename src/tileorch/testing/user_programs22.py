"""The twenty-second user sweep (session 31, the principal issue: "every dot program on tensor cores, correct"):
cuTile 1.7 dot programs written the ways users write them, in the variants the dot zoo, the epilogue /
computed-B / gathered / K-range / operand-view collections and sweeps 3-20 do not hold.

On the WGMMA tier (``path`` "gemm", results checked on the PTX emulator or, for fp8 and the launcher's staged
/ strided operands, on the GPU): the cuTile samples' matmul as users copy it (a plain ``swizzle_2d`` helper,
GROUP_SIZE_M 8 with a short group, ``ct.tfloat32 if A.dtype == ct.float32 else A.dtype``,
``num_ctas=ct.ByTarget(sm_100=2)``) on f32 (tf32) and f16 arrays; M = 129, N = 67, K = 93 in f16 (rows that
are not 16-byte multiples); A as a column-major ``x.t()`` view; ``A^T`` read by ``order="F"``; ``C^T`` stored
by ``ct.store(..., order="F")``; K made a compile-time constant by ``ct.ArrayAnnotation
(static_shape_dims=(1,))`` with an int64-indexed output; two batches per ``(2, tm, tk)`` tile against one 2-D
B (``ct.mma`` broadcasting); W8A8 with nn.Linear's ``[N, K]`` int8 weight (K = 100) and bf16 dequantised
output; uint8 x uint8 -> int32; e4m3 x e4m3 with ``[N, K]`` B by ``ct.permute`` and per-tensor scales from 0-d
loads to bf16; e4m3 into an f16 accumulator; bf16 A with f16 B converted to bf16; an f16 accumulator plus an
f16 bias after the loop; ``R + gamma * gelu_tanh(X W + b)`` into bf16; a
log-softmax classifier head over a masked full-N tile; ``relu(X W1 + b1) W2 + b2`` in one kernel; a
shared-prompt A ``[1, M, K]`` read at batch 0 against a batched B; a runtime logical K below A's width with
A's tail masked by ``ct.where(k * tk + ct.arange(tk) < K, a, 0)`` (Triton's K mask), on K tiles of 64 and 32,
and the same mask on a K loop over all of A's tiles.

Refused by the tensor-core tiers, each with a located warning, on the SIMT path's mma.sync (results on the
SIMT interpreter): f32 tiles by ``@`` (the documented f32 rule: 3xTF32, a located remark); a full K loop
masked past a runtime K on K tiles of 32 (the mask reads the program's K tile, which the kernel's 64-deep
stages are not); a GEMV by 1-D ``ct.matmul``; a grouped GEMM over ragged offsets by ``Array.slice`` with early
returns; LayerNorm fused into the K loop (A computed from row statistics an earlier loop computes); RMSNorm
rows as A with no K loop; split-K whose last program (an ``atomic_add`` ticket) reduces the partials; SwiGLU
from one fused ``[2N, K]`` gate-up weight. :data:`REJECTED_BY_CUTILE`: bf16 x f16 by ``ct.matmul`` and by
``ct.mma`` (cuTile's own errors).

Found by this sweep (the entries' ``notes``; each fix has a test that failed before it): a kernel annotated
with ``ct.ArrayAnnotation(static_shape_dims=...)`` failed every launch with cuTile's "no constant shape value
is available" (the launcher passed no constants; now the signature's, calling convention v2); an f16
accumulator plus an f16 tile after the K loop crashed with an unlocated verifier error (the tier's epilogue
read the f32 registers; now rounded to f16); an f16 accumulator started from a tile stays refused
by the tier (moving the start after the loop overflows where the products' sum passes f16's 65504 and the
start cancels it: tried this session, reverted on review); an A read at the constant batch index 0 beside a batched B and C was refused (the mirror
of sweep 18's shared B; now a batch expression); the K-tail mask reading the loop's index and ``ct.arange``
was refused at the mask (now the computed operand's map reads the consumer's K tile and the element's
position, the program's K tile the kernel's).  No program computed a wrong result on the emulator or the
interpreter.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep22_compile.py (path, located reason, ptxas spills, cuTile's rejections),
tests/unit/test_user_sweep22_emulated.py (the PTX emulator against numpy),
tests/unit/test_user_sweep22_interp.py (the SIMT interpreter against numpy) and
tests/gpu/test_user_sweep22_gpu.py (the GPU, the same references). Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

from typing import Annotated

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
C = ct.Constant
ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO
F16, BF16, F32, I32, I8, U8 = "float16", "bfloat16", "float32", "int32", "int8", "uint8"
E4M3 = "float8_e4m3fn"


def _a(shape, dt=F16, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


# ----------------------------------------------------------------------------------------------- the samples' GEMM


def swizzle_2d(M, N, tm, tn, GROUP_SIZE_M):
    """The cuTile samples' helper (a plain Python function the kernel calls): the 1-D program id to a
    (row tile, column tile) pair, GROUP_SIZE_M row tiles per group, Triton's ``bid % group_size_m``."""
    bid = ct.bid(0)
    num_bid_m = ct.cdiv(M, tm)
    num_bid_n = ct.cdiv(N, tn)
    num_bid_in_group = GROUP_SIZE_M * num_bid_n
    group_id = bid // num_bid_in_group
    first_bid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_bid_m - first_bid_m, GROUP_SIZE_M)
    bid_m = first_bid_m + (bid % group_size_m)
    bid_n = (bid % num_bid_in_group) // group_size_m
    return bid_m, bid_n


@ct.kernel(num_ctas=ct.ByTarget(sm_100=2))
def samples_matmul_swizzle_helper(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The samples' matmul as a user copies it: ``swizzle_2d`` helper with GROUP_SIZE_M = 8 (a local
    constant; 4 row tiles: one short group), ``ct.full(..., 0)``, the operand type chosen by
    ``ct.tfloat32 if A.dtype == ct.float32 else A.dtype``, ``ct.astype(acc, C.dtype)``; f32 arrays
    (tf32 on the tensor cores), ragged M, N and K."""
    GROUP_SIZE_M = 8
    M = A.shape[0]
    N = B.shape[1]
    bidx, bidy = swizzle_2d(M, N, tm, tn, GROUP_SIZE_M)
    num_tiles_k = ct.num_tiles(A, axis=1, shape=(tm, tk))
    accumulator = ct.full((tm, tn), 0, dtype=ct.float32)
    zero_pad = ct.PaddingMode.ZERO
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    for k in range(num_tiles_k):
        a = ct.load(A, index=(bidx, k), shape=(tm, tk), padding_mode=zero_pad).astype(dtype)
        b = ct.load(B, index=(k, bidy), shape=(tk, tn), padding_mode=zero_pad).astype(dtype)
        accumulator = ct.mma(a, b, accumulator)
    accumulator = ct.astype(accumulator, C.dtype)
    ct.store(C, index=(bidx, bidy), tile=accumulator)


# ----------------------------------------------------------------------------------------------- ragged and strided


@ct.kernel
def gemm_unaligned_row_strides(A, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """M = 129, N = 67, K = 93 in f16: neither A's row (186 bytes) nor B's and Y's (134 bytes) is a
    multiple of 16 bytes (what a user's odd shapes give); K not a multiple of the K tile."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_a_column_major_view(A, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A plain ``A @ B`` launched with A a column-major view (``x.t()`` of a row-major ``[K, M]``
    buffer: strides ``(1, M)``), ragged M and N."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = acc + ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO) @ ct.load(
            B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_at_b_load_order_f(At, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """``A^T @ B`` with A stored ``[K, M]``: its tile read as ``(tm, tk)`` by ``order="F"`` (the array's
    axes reversed before tiling, so the index is (row tile, K tile) of the transposed matrix)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(At.shape[0], tk)):
        a = ct.load(At, index=(bm, k), shape=(tm, tk), order="F", padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_store_order_f_transposed(A, B, Yt, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """``C^T`` stored ``[N, M]`` by ``ct.store(..., order="F")`` of the ``(tm, tn)`` accumulator (the
    store's index in C's tile space), bf16 output, ragged M and N."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Yt, index=(bm, bn), tile=acc.astype(Yt.dtype), order="F")


@ct.kernel
def gemm_static_k_annotated(A: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(1,))], B,
                            Y: Annotated[ct.Array, ct.ArrayAnnotation(index_dtype=ct.int64)],
                            tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A's K made a compile-time constant by ``ct.ArrayAnnotation(static_shape_dims=(1,))`` (the K loop's
    trip count a constant) and Y indexed with int64 (``index_dtype=ct.int64``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_runtime_k_masked_tail(A, B, Y, K: int, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The logical K a runtime scalar below A's width (the caller's arrays are wider): ``range(cdiv(K,
    tk))`` and A's columns ``>= K`` zeroed by ``ct.where`` on an ``arange`` of the K tile."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(K, tk)):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        a = ct.where(cols[None, :] < K, a, 0.0)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_full_k_loop_masked_past_k(A, B, Y, K: int, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The K loop over all of A's K tiles, A's columns ``>= K`` (a runtime scalar) zeroed in every tile by
    ``ct.where(k * tk + ct.arange(tk) < K, a, 0)`` (a mask a user writes instead of shortening the loop)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        a = ct.where(k * tk + ct.arange(tk, dtype=ct.int32)[None, :] < K, a, 0.0)
        acc = ct.mma(a, ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- batches


@ct.kernel
def bmm_two_batches_per_tile_shared_b(A, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Two batches of A per tile ``(2, tm, tk)`` against one 2-D weight tile ``(tk, tn)``: ``ct.mma``
    broadcasting B over the batch axis (cuTile broadcasts the leading axes)."""
    bm, bn, bb = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((2, tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], tk)):
        a = ct.load(A, index=(bb, bm, k), shape=(2, tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bb, bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def bmm_shared_a_batched_b(A, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A ``[1, M, K]`` shared by every batch (read at batch 0, a shared prompt) against a batched B
    ``[Bt, K, N]``; 3-D tiles reshaped to 2-D for ``ct.mma``."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], tk)):
        a = ct.reshape(ct.load(A, index=(0, bm, k), shape=(1, tm, tk), padding_mode=ZERO), (tm, tk))
        w = ct.reshape(ct.load(B, index=(b, k, bn), shape=(1, tk, tn), padding_mode=ZERO), (tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(b, bm, bn), tile=ct.reshape(acc.astype(Y.dtype), (1, tm, tn)))


# ----------------------------------------------------------------------------------------------- split-K


@ct.kernel
def splitk_last_program_reduces(A, B, Work, Count, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Split-K without a second kernel: split ``s = bid(2)`` stores its partial into ``Work[s]``, then
    takes a ticket for its output tile by ``ct.atomic_add(Count, tile, 1)``; the program that draws the
    last ticket sums the ``S`` partials and stores Y (the "last one reduces" pattern)."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    S = ct.num_blocks(2)
    nk = ct.cdiv(A.shape[1], tk)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s, nk, S):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Work, index=(s, bm, bn), tile=ct.reshape(acc, (1, tm, tn)))
    ticket = ct.atomic_add(Count, (bm * ct.num_blocks(1) + bn,), 1,
                           memory_order=ct.MemoryOrder.ACQ_REL, memory_scope=ct.MemoryScope.DEVICE)
    if ticket == S - 1:
        total = ct.zeros((tm, tn), dtype=ct.float32)
        for j in range(S):
            total = total + ct.reshape(ct.load(Work, index=(j, bm, bn), shape=(1, tm, tn), padding_mode=ZERO),
                                       (tm, tn))
        ct.store(Y, index=(bm, bn), tile=total.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- element types


@ct.kernel
def gemm_int8_odd_k_weight_nk_dequant_bf16(X, W, SX, SW, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """W8A8 with nn.Linear's weight ``[N, K]`` turned by ``ct.transpose``, K = 100 (rows of 100 bytes, a
    ragged last K tile), int32 accumulator, per-token and per-channel f32 scales, bf16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        w = ct.transpose(ct.load(W, index=(bn, k), shape=(tn, tk), padding_mode=ZERO))
        acc = ct.mma(x, w, acc)
    sx = ct.load(SX, index=(bm,), shape=(tm,), padding_mode=ZERO)
    sw = ct.load(SW, index=(bn,), shape=(tn,), padding_mode=ZERO)
    y = ct.astype(acc, ct.float32) * sx[:, None] * sw[None, :]
    ct.store(Y, index=(bm, bn), tile=y.astype(ct.bfloat16))


@ct.kernel
def gemm_uint8_uint8_int32(A, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """uint8 x uint8 accumulated in int32 (values to 255: products past 2**15, sums past 2**22)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_fp8_e4m3_weight_nk_tensor_scales_bf16(X, W, SX, SW, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """e4m3 x e4m3 with W ``[N, K]`` turned by ``ct.permute(w, (1, 0))``, per-tensor scales read from
    one-element arrays (a 0-d tile each: ``ct.load(..., shape=())``), bf16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        w = ct.permute(ct.load(W, index=(bn, k), shape=(tn, tk), padding_mode=ZERO), (1, 0))
        acc = ct.mma(x, w, acc)
    scale = ct.load(SX, index=(0,), shape=()) * ct.load(SW, index=(0,), shape=())
    ct.store(Y, index=(bm, bn), tile=(acc * scale).astype(ct.bfloat16))


@ct.kernel
def gemm_fp8_e4m3_f16_accumulator(A, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """e4m3 x e4m3 into an f16 accumulator (the table's "f8e4m3fn -> f16 or f32"), widened to f32 for the
    store."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float16)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(ct.float32))


@ct.kernel
def gemm_f32_operator_no_cast(A, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """f32 tiles multiplied by ``@`` as loaded (no ``astype``): ``acc = acc + a @ b`` (the f32 rule the
    compiler documents decides tf32 or f32), ragged M, N and K."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = acc + ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO) @ ct.load(
            B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_bf16_a_f16_b_matmul(A, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """bf16 A and f16 B given to ``ct.matmul`` (which promotes both to a common type first, unlike
    ``ct.mma``), accumulated in f32."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = acc + ct.matmul(a, b).astype(ct.float32)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_bf16_a_f16_b_mma(A, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """bf16 A and f16 B given to ``ct.mma`` as loaded (``ct.mma`` documents that it does not promote)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_bf16_a_f16_b_cast_to_bf16(A, B, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """bf16 A and f16 B, B converted to bf16 in the K loop (``ct.mma`` does not promote), f32 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO).astype(ct.bfloat16)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_f16_acc_from_bias(A, B, bias, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """``ct.mma`` accumulating into an f16 accumulator that starts from the f16 bias row broadcast to
    the tile (``ct.broadcast_to``), stored as f16."""
    bm, bn = ct.bid(0), ct.bid(1)
    row = ct.load(bias, index=(bn,), shape=(tn,), padding_mode=ZERO)
    acc = ct.broadcast_to(ct.reshape(row, (1, tn)), (tm, tn))
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_f16_acc_plus_f16_bias_after_loop(A, B, bias, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """An f16 accumulator from zeros, the f16 bias row added to it after the K loop in f16 (``acc + bias``
    of two f16 tiles), stored as f16."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float16)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    acc = acc + ct.load(bias, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    ct.store(Y, index=(bm, bn), tile=acc)


# ----------------------------------------------------------------------------------------------- epilogues


@ct.kernel
def gemm_gelu_tanh_bias_layer_scale_residual_bf16(X, W, bias, gamma, R, Y, tm: ConstInt, tn: ConstInt,
                                                  tk: ConstInt):
    """A transformer block's output: ``R + gamma * gelu_tanh(X @ W + bias)`` (layer scale per column),
    bf16 residual and output, ragged N."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    h = acc + ct.load(bias, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    g = 0.5 * h * (1.0 + ct.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h)))
    g = g * ct.load(gamma, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    r = ct.load(R, index=(bm, bn), shape=(tm, tn), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(bm, bn), tile=(r + g).astype(ct.bfloat16))


@ct.kernel
def gemm_masked_log_softmax_full_row(X, W, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Classifier head: logits over all N = 100 classes in one 128-wide tile, the padded columns masked
    to ``-inf`` by the user (``ct.where`` on an ``arange``), log-softmax by ``ct.log`` / ``ct.exp``."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, 0), shape=(tk, tn), padding_mode=ZERO), acc)
    cols = ct.arange(tn, dtype=ct.int32)
    z = ct.where(cols[None, :] < W.shape[1], acc, -float("inf"))
    mx = ct.max(z, axis=1, keepdims=True)
    lse = mx + ct.log(ct.sum(ct.exp(z - mx), axis=1, keepdims=True))
    ct.store(Y, index=(bm, 0), tile=z - lse)


# ----------------------------------------------------------------------------------------------- several dots


@ct.kernel
def swiglu_dual_gemm_fused_weight_nk(X, Wgu, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """``silu(X @ Wg^T) * (X @ Wu^T)`` with the gate and up weights one nn.Linear ``[2N, K]`` (gate rows
    first): the gate tile at row tile ``bn``, the up tile at ``bn + N / tn``, each turned by
    ``ct.transpose``; two accumulators sharing A."""
    bm, bn = ct.bid(0), ct.bid(1)
    up0 = Y.shape[1] // tn
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        g = ct.mma(x, ct.transpose(ct.load(Wgu, index=(bn, k), shape=(tn, tk), padding_mode=ZERO)), g)
        u = ct.mma(x, ct.transpose(ct.load(Wgu, index=(bn + up0, k), shape=(tn, tk), padding_mode=ZERO)), u)
    y = g / (1.0 + ct.exp(-g)) * u
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def mlp_relu_two_dots_biases(X, W1, b1, W2, b2, Y, tm: ConstInt, th: ConstInt, tn: ConstInt, tk: ConstInt):
    """``relu(X @ W1 + b1) @ W2 + b2`` in one kernel, the hidden width one tile (``th`` = H = 64), the
    second dot after the K loop on the f16 hidden tile, ragged M and N."""
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, th), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                   ct.load(W1, index=(k, 0), shape=(tk, th), padding_mode=ZERO), h)
    h = ct.maximum(h + ct.load(b1, index=(0,), shape=(th,), padding_mode=ZERO)[None, :], 0.0)
    y = ct.mma(h.astype(ct.float16), ct.load(W2, index=(0, bn), shape=(th, tn), padding_mode=ZERO),
               ct.zeros((tm, tn), dtype=ct.float32))
    y = y + ct.load(b2, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def layernorm_then_linear_k_loop(X, gamma, beta, W, Y, eps: float, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Fused LayerNorm + Linear: a first K loop for each row's mean and mean square (f32), then the GEMM's
    K loop normalising each A tile (``(x - mean) * rstd * gamma + beta``, to f16) before ``ct.mma``; K = 200
    ragged (the padded columns' normalised value zeroed by the user)."""
    bm, bn = ct.bid(0), ct.bid(1)
    K = X.shape[1]
    nk = ct.cdiv(K, tk)
    s1 = ct.zeros((tm,), dtype=ct.float32)
    s2 = ct.zeros((tm,), dtype=ct.float32)
    for k in range(nk):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO).astype(ct.float32)
        s1 = s1 + ct.sum(x, axis=1)
        s2 = s2 + ct.sum(x * x, axis=1)
    mean = s1 / K
    rstd = ct.rsqrt(s2 / K - mean * mean + eps)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(nk):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO).astype(ct.float32)
        g = ct.load(gamma, index=(k,), shape=(tk,), padding_mode=ZERO)
        bt = ct.load(beta, index=(k,), shape=(tk,), padding_mode=ZERO)
        xn = (x - mean[:, None]) * rstd[:, None] * g[None, :] + bt[None, :]
        xn = ct.where(cols[None, :] < K, xn, 0.0)
        acc = ct.mma(xn.astype(ct.float16), ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def rmsnorm_rows_then_dot_one_tile(X, g, W, Y, eps: float, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """RMSNorm of whole rows (K = 128, one tile) computed in the kernel and fed as ``ct.mma``'s A, no K
    loop: ``(x * rsqrt(mean(x^2) + eps) * g) @ W``."""
    bm, bn = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(bm, 0), shape=(tm, tk), padding_mode=ZERO).astype(ct.float32)
    r = ct.rsqrt(ct.sum(x * x, axis=1, keepdims=True) / X.shape[1] + eps)
    a = (x * r * ct.load(g, index=(0,), shape=(tk,), padding_mode=ZERO)[None, :]).astype(ct.float16)
    acc = ct.mma(a, ct.load(W, index=(0, bn), shape=(tk, tn), padding_mode=ZERO), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- groups, GEMV


@ct.kernel
def grouped_gemm_offsets_early_return(A, W, Offs, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Grouped GEMM on a (row tile, group, column tile) grid: group ``g = bid(1)`` owns rows
    ``Offs[g] .. Offs[g + 1]`` of A and Y (per-group M from the offsets array, not tile-aligned, one group
    empty) and its weight ``W[g]``; a row tile past its group's rows returns early; A and Y sliced by
    ``Array.slice`` at the group's offsets."""
    bm, g, bn = ct.bid(0), ct.bid(1), ct.bid(2)
    start = ct.load(Offs, index=(g,), shape=())
    stop = ct.load(Offs, index=(g + 1,), shape=())
    if bm * tm >= stop - start:
        return
    Ag = A.slice(axis=0, start=start, stop=stop)
    Yg = Y.slice(axis=0, start=start, stop=stop)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(Ag, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        w = ct.reshape(ct.load(W, index=(g, k, bn), shape=(1, tk, tn), padding_mode=ZERO), (tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(Yg, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemv_1d_tile_matmul(x, W, y, tn: ConstInt, tk: ConstInt):
    """A GEMV written with a 1-D tile: ``acc += ct.matmul(x_k, W_k)`` with ``x_k`` of shape ``(tk,)`` and
    ``W_k`` ``(tk, tn)`` (cuTile's 1-D x 2-D matmul), ragged N and K, f32 out."""
    bn = ct.bid(0)
    acc = ct.zeros((tn,), dtype=ct.float32)
    for k in range(ct.cdiv(x.shape[0], tk)):
        xk = ct.load(x, index=(k,), shape=(tk,), padding_mode=ZERO)
        wk = ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = acc + ct.matmul(xk, wk).astype(ct.float32)
    ct.store(y, index=(bn,), tile=acc)


# ----------------------------------------------------------------------------------------------- the table

_add("samples_matmul_swizzle_helper", samples_matmul_swizzle_helper,
     [_a((200, 100), F32), _a((100, 136), F32), _a((200, 136), F32), 64, 64, 32], (4 * 3,), "gemm", outputs=(2,))
_add("samples_matmul_swizzle_helper_f16", samples_matmul_swizzle_helper,
     [_a((300, 128)), _a((128, 200)), _a((300, 200)), 64, 64, 64], (5 * 4,), "gemm", outputs=(2,))
_add("gemm_unaligned_row_strides", gemm_unaligned_row_strides,
     [_a((129, 93)), _a((93, 67)), _a((129, 67)), 128, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_a_column_major_view", gemm_a_column_major_view,
     [_a((200, 128), F16, (1, 200)), _a((128, 136)), _a((200, 136), F32), 128, 64, 64], (2, 3), "gemm",
     outputs=(2,))
_add("gemm_at_b_load_order_f", gemm_at_b_load_order_f,
     [_a((128, 200)), _a((128, 136)), _a((200, 136), F32), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("gemm_store_order_f_transposed", gemm_store_order_f_transposed,
     [_a((200, 128)), _a((128, 136)), _a((136, 200), BF16), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("gemm_static_k_annotated", gemm_static_k_annotated,
     [_a((200, 192)), _a((192, 136)), _a((200, 136), F32), 128, 64, 64], (2, 3), "gemm", outputs=(2,),
     notes="found by this sweep: every launch raised cuTile's TypeError 'Axis 1 is annotated in static_shape_dims, "
           "but no constant shape value is available there' (tileorch's signature passed no constants); now "
           "launchers/cutile.py passes the annotated extents (calling convention v2)")
_add("gemm_runtime_k_masked_tail", gemm_runtime_k_masked_tail,
     [_a((200, 256)), _a((256, 136)), _a((200, 136), F32), 150, 128, 64, 64], (2, 3), "gemm", outputs=(2,),
     notes="found by this sweep: refused at the mask ('computed from its tile by nv_tileaa.muli, a scalar other than "
           "constants and kernel arguments: a block argument ...'); now operand_prologue takes the K loop's index and "
           "element positions (the consumer's K tile and the element's coordinates) on the GEMM tier")
_add("gemm_runtime_k_masked_tail_tk32", gemm_runtime_k_masked_tail,
     [_a((200, 256)), _a((256, 136)), _a((200, 136), F32), 150, 128, 64, 32], (2, 3), "gemm", outputs=(2,))
_add("gemm_full_k_loop_masked_past_k", gemm_full_k_loop_masked_past_k,
     [_a((200, 256)), _a((256, 136)), _a((200, 136), F32), 150, 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("gemm_full_k_loop_masked_past_k_tk32", gemm_full_k_loop_masked_past_k,
     [_a((200, 256)), _a((256, 136)), _a((200, 136), F32), 150, 128, 64, 32], (2, 3), "simt",
     error="and the program's K tile (32) is not the WGMMA kernel's (64", outputs=(2,))
_add("bmm_two_batches_per_tile_shared_b", bmm_two_batches_per_tile_shared_b,
     [_a((4, 100, 128)), _a((128, 136)), _a((4, 100, 136), F32), 64, 64, 64], (2, 3, 2), "gemm", outputs=(2,))
_add("bmm_shared_a_batched_b", bmm_shared_a_batched_b,
     [_a((1, 200, 128)), _a((3, 128, 136)), _a((3, 200, 136), F32), 128, 64, 64], (2, 3, 3), "gemm",
     notes="found by this sweep: refused ('a 3-D operand tile at the constant batch index 0 is taken for B only'); "
           "now A's constant batch index is one of the batch expressions each agent evaluates (the 2-D A's route)",
     outputs=(2,))
_add("splitk_last_program_reduces", splitk_last_program_reduces,
     [_a((200, 320)), _a((320, 136)), _a((3, 200, 136), F32), _a((6,), I32), _a((200, 136), F32), 128, 64, 64],
     (2, 3, 3), "simt",
     error='found 2 tile stores and 1 atomic updates', outputs=(2, 3, 4))
_add("gemm_int8_odd_k_weight_nk_dequant_bf16", gemm_int8_odd_k_weight_nk_dequant_bf16,
     [_a((200, 100), I8), _a((136, 100), I8), _a((200,), F32), _a((136,), F32), _a((200, 136), BF16), 128, 64, 64],
     (2, 3), "gemm", outputs=(4,))
_add("gemm_uint8_uint8_int32", gemm_uint8_uint8_int32,
     [_a((200, 192), U8), _a((192, 136), U8), _a((200, 136), I32), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("gemm_fp8_e4m3_weight_nk_tensor_scales_bf16", gemm_fp8_e4m3_weight_nk_tensor_scales_bf16,
     [_a((200, 192), E4M3), _a((136, 192), E4M3), _a((1,), F32), _a((1,), F32), _a((200, 136), BF16), 128, 64, 64],
     (2, 3), "gemm", outputs=(4,))
_add("gemm_fp8_e4m3_f16_accumulator", gemm_fp8_e4m3_f16_accumulator,
     [_a((200, 192), E4M3), _a((192, 136), E4M3), _a((200, 136), F32), 128, 64, 64], (2, 3), "gemm",
     outputs=(2,))
_add("gemm_f32_operator_no_cast", gemm_f32_operator_no_cast,
     [_a((200, 100), F32), _a((100, 136), F32), _a((200, 136), F32), 64, 64, 32], (4, 3), "simt",
     error='this dot multiplies f32 tiles, which cuTile computes in f32', outputs=(2,))
_add("gemm_bf16_a_f16_b_cast_to_bf16", gemm_bf16_a_f16_b_cast_to_bf16,
     [_a((200, 128), BF16), _a((128, 136)), _a((200, 136), F32), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("gemm_f16_acc_from_bias", gemm_f16_acc_from_bias,
     [_a((200, 128)), _a((128, 136)), _a((136,)), _a((200, 136)), 128, 64, 64], (2, 3), "simt",
     error="the K loop's accumulator starts from a value other than zeros", outputs=(3,),
     notes="refused by the tier: an f16 accumulator accumulates from its start (moving the start after the loop "
           "overflows where the products' sum passes 65504 and the start cancels it: the session 31 review)")
_add("gemm_f16_acc_plus_f16_bias_after_loop", gemm_f16_acc_plus_f16_bias_after_loop,
     [_a((200, 128)), _a((128, 136)), _a((136,)), _a((200, 136)), 128, 64, 64], (2, 3), "gemm", outputs=(3,),
     notes="found by this sweep: an internal verifier error with no location ('operand rhs ... attribute f32 "
           "expected ... but got f16 (after reconcile-unrealized-casts)'): the tier's epilogue read the f16 "
           "accumulator as its f32 registers beside the f16 bias; now rounded to f16 where the program reads it "
           "(tileas/epilogue.py)")
_add("gemm_gelu_tanh_bias_layer_scale_residual_bf16", gemm_gelu_tanh_bias_layer_scale_residual_bf16,
     [_a((200, 128)), _a((128, 136)), _a((136,), F32), _a((136,), F32), _a((200, 136), BF16), _a((200, 136), BF16),
      128, 64, 64], (2, 3), "gemm", outputs=(5,))
_add("gemm_masked_log_softmax_full_row", gemm_masked_log_softmax_full_row,
     [_a((200, 128)), _a((128, 100)), _a((200, 100), F32), 64, 128, 64], (4,), "gemm", outputs=(2,))
_add("swiglu_dual_gemm_fused_weight_nk", swiglu_dual_gemm_fused_weight_nk,
     [_a((200, 128)), _a((256, 128)), _a((200, 128)), 128, 64, 64], (2, 2), "simt",
     error='read their B tiles at different column tile indices', outputs=(2,))
_add("mlp_relu_two_dots_biases", mlp_relu_two_dots_biases,
     [_a((200, 128)), _a((128, 64)), _a((64,), F32), _a((64, 136)), _a((136,), F32), _a((200, 136), F32),
      128, 64, 64, 64], (2, 3), "gemm", outputs=(5,))
_add("layernorm_then_linear_k_loop", layernorm_then_linear_k_loop,
     [_a((200, 200)), _a((200,), F32), _a((200,), F32), _a((200, 136)), _a((200, 136), F32), 1e-5, 128, 64, 64],
     (2, 3), "simt",
     error="'scf.for', a tile the program computes in a loop or branch of its own", outputs=(4,))
_add("rmsnorm_rows_then_dot_one_tile", rmsnorm_rows_then_dot_one_tile,
     [_a((200, 128)), _a((128,), F32), _a((128, 136)), _a((200, 136), F32), 1e-6, 128, 64, 128], (2, 3), "simt",
     error='this dot is not in a loop',
     outputs=(3,))
_add("grouped_gemm_offsets_early_return", grouped_gemm_offsets_early_return,
     [_a((300, 128)), _a((4, 128, 136)), _a((5,), I32), _a((300, 136), F32), 64, 64, 64], (3, 4, 3), "simt",
     error='its base pointer is computed',
     outputs=(3,))
_add("gemv_1d_tile_matmul", gemv_1d_tile_matmul,
     [_a((200,)), _a((200, 136)), _a((136,), F32), 64, 64], (3,), "simt",
     error='has no WGMMA shape', outputs=(2,))

REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "gemm_bf16_a_f16_b_matmul": (gemm_bf16_a_f16_b_matmul,
                                 [_a((200, 128), BF16), _a((128, 136)), _a((200, 136), F32), 128, 64, 64],
                                 "Implicit promotion of bfloat16 and float16 is not supported",
                                 "ct.matmul(a, b)"),
    "gemm_bf16_a_f16_b_mma": (gemm_bf16_a_f16_b_mma,
                              [_a((200, 128), BF16), _a((128, 136)), _a((200, 136), F32), 128, 64, 64],
                              "x and y must have the same dtype unless they are int8/uint8", "acc = ct.mma(a, b, acc)"),
}
"""Mixed 16-bit operands (the brief's "bf16 A, fp16 B: what does cuTile say?"): cuTile's front end refuses
both spellings at the user's line, so no tileorch input exists; the user converts one operand
(:func:`gemm_bf16_a_f16_b_cast_to_bf16`)."""
