"""The third user sweep (session 11): cuTile 1.7 programs written the way a demanding new user
writes them, in code shapes the first two sweeps (:mod:`tileorch.testing.user_programs`,
:mod:`tileorch.testing.user_programs2`) and the zoos do not have: GEMMs read through
``Array.tiled_view`` / ``Array.slice`` / ``ct.load(order=...)``, a 1-D grid split with ``divmod``,
the grid's axes in other orders, C accumulated in place, epilogues with a scalar ``where``
(leaky ReLU), swish with a runtime beta, a per-row scale and per-column bias, a clamp, fp8 and
int32 outputs, int8 and tf32 operands, 64 x 256 / 256 x 128 / 64 x 64 tiles with K tiles of
32 / 128; attention with packed QKV, a ragged key length (cross attention), rows held as 1-D
vectors, the causal loop bound from ``ct.cdiv``, the heads on a third grid axis, bf16 with head
dim 128, a SwiGLU MLP (three dots); memory-bound programs with ``ct.reduce`` (a custom
combiner, a tuple arg-max), ``ct.scan`` chunked prefix sums, a layer norm looping over column
chunks, an RMSNorm on a ``(1, N)`` tile, an online logsumexp, a 3-D permute, overlapping
windows from ``tiled_view(traversal_steps=...)``, row gathers with ``load_advanced_indexing``, a
byte histogram with ``ct.atomic_add``, and fp8 e5m2 / e4m3 conversions.

Found by this sweep (the entries' ``notes``): a sliced GEMM computed over the whole arrays, ``C +=
A @ B`` dropped C, strided views did not lower, fp8 GEMM outputs / packed-QKV attention / f16
``ct.matmul`` scores / 1-D softmax state were refused by the tensor-core tiers.  Head dim 96 as a
96-wide tile is refused by cuTile itself (:data:`CUTILE_REFUSES`: tile dimensions are powers of
two; ``user_programs2.fmha_padded_head`` pads it to 128).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (path
``gemm`` / ``chained`` / ``simt`` / ``error``), driven by tests/unit/test_user_sweep3_*.py (CPU
compile, the SIMT interpreter, the PTX emulator) and tests/gpu/test_user_sweep3_gpu.py (the H200
against torch).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, NEG_INF, ZERO, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)


# ----------------------------------------------------------------------------------------------- GEMM: how the
# ----------------------------------------------------------------------------------------------- operands are read


@ct.kernel
def mm_tiled_view(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A, B and C read and written through ``Array.tiled_view`` (the K trip count from the view)."""
    av = A.tiled_view((tm, tk), padding_mode=ZERO)
    bv = B.tiled_view((tk, tn), padding_mode=ZERO)
    cv = C.tiled_view((tm, tn))
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(av.num_tiles(1)):
        acc = ct.mma(av.load((i, k)), bv.load((k, j)), acc)
    cv.store((i, j), acc.astype(C.dtype))


@ct.kernel
def mm_load_order_bt(A, W, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = A @ W^T`` with W ``[N, K]`` read transposed by the load itself (``order=(1, 0)``)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(W, index=(k, j), shape=(tk, tn), order=(1, 0), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def mm_k_slice(A, B, C, k0: int, k1: int, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Only columns ``[k0, k1)`` of A (rows of B) contribute: both operands sliced with ``Array.slice``."""
    a_sub = A.slice(axis=1, start=k0, stop=k1)
    b_sub = B.slice(axis=0, start=k0, stop=k1)
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a_sub, axis=1, shape=(tm, tk))):
        a = ct.load(a_sub, index=(i, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(b_sub, index=(k, j), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def mm_divmod_grid(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A 1-D grid: the tile's row and column from ``divmod(bid, column tiles)``; ``a @ b`` added."""
    tiles_n = ct.cdiv(C.shape[1], tn)
    i, j = divmod(ct.bid(0), tiles_n)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc += ct.load(A, index=(i, k), shape=(tm, tk)) @ ct.load(B, index=(k, j), shape=(tk, tn))
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def mm_grid_nm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The column tile on grid axis 0 and the row tile on axis 1 (the other order)."""
    j, i = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(B, axis=0, shape=(tk, tn))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def mm_batched_bid0(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched ``[L, M, K] @ [L, K, N]``: the batch on grid axis 0, N tiles on 1, M tiles on 2;
    3-D tiles ``(1, tm, tk)`` reshaped to 2-D."""
    b, j, i = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.reshape(ct.load(A, index=(b, i, k), shape=(1, tm, tk)), (tm, tk))
        w = ct.reshape(ct.load(B, index=(b, k, j), shape=(1, tk, tn)), (tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, i, j), tile=ct.reshape(acc.astype(C.dtype), (1, tm, tn)))


@ct.kernel
def mm_accumulate_into_c(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C += A @ B``: C read before the K loop as the accumulator's start, then written back."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.load(C, index=(i, j), shape=(tm, tn)).astype(ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def mm_f16_acc_into_c(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C += A @ B`` with the f16 C tile itself as the (f16) accumulator: the f16 sum's roundings
    depend on the start, so the tier (whose accumulators start at zero) refuses it."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.load(C, index=(i, j), shape=(tm, tn))
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def mm_tf32(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """f32 operands rounded to tf32 by the program (``astype(ct.tfloat32)``) before the mma."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(i, k), shape=(tm, tk)).astype(ct.tfloat32)
        b = ct.load(B, index=(k, j), shape=(tk, tn)).astype(ct.tfloat32)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def mm_int8_i32(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """int8 x int8 with an int32 accumulator, stored as int32 (no dequant)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def mm_overlapping_rows(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Row tiles of A that overlap by half (``tiled_view(traversal_steps=(tm // 2, tk))``): C's
    row tile ``i`` is A's rows ``[i * tm / 2, i * tm / 2 + tm)`` times B.  The tensor-core kernel
    reads A through a tensor map of whole tiles: refused there, the SIMT path runs it."""
    av = A.tiled_view((tm, tk), padding_mode=ZERO, traversal_steps=(tm // 2, tk))
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(B, axis=0, shape=(tk, tn))):
        acc = ct.mma(av.load((i, k)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


_F16 = [((256, 256), "float16"), ((256, 256), "float16")]
_SMALL = [((128, 128), "float16"), ((128, 256), "float16")]  # A [128, 128], B [128, 256]: C [128, 256]
_add("mm_tiled_view", mm_tiled_view, [((200, 192), "float16"), ((192, 320), "float16"), ((200, 320), "float16"),
                                      128, 64, 64], (2, 5), "gemm", outputs=(2,))
_add("mm_load_order_bt", mm_load_order_bt, [((256, 192), "float16"), ((256, 192), "float16"),
                                            ((256, 256), "float16"), 128, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("mm_k_slice", mm_k_slice, [((128, 128), "float16"), ((128, 128), "float16"), ((128, 128), "float32"), 32, 96,
                                64, 64, 32], (2, 2), "simt",
     error="A's view: its base pointer is computed (nv_tileaa.offset", outputs=(2,),
     notes="found by this sweep: the tier read the whole arrays (A @ B over all of K), ignoring the slices")
_add("mm_overlapping_rows", mm_overlapping_rows, [((128, 64), "float16"), ((64, 64), "float16"),
                                                  ((192, 64), "float32"), 64, 64, 64], (3, 1), "simt",
     error="tiles [64, 64] start [32, 64] elements apart", outputs=(2,))
_add("mm_divmod_grid", mm_divmod_grid, [((256, 128), "float16"), ((128, 384), "float16"), ((256, 384), "float16"),
                                        128, 128, 64], (6,), "gemm", outputs=(2,))
_add("mm_grid_nm", mm_grid_nm, [((384, 128), "float16"), ((128, 256), "float16"), ((384, 256), "float16"),
                                128, 256, 32], (1, 3), "gemm", outputs=(2,))
_add("mm_batched_bid0", mm_batched_bid0, [((2, 128, 128), "bfloat16"), ((2, 128, 128), "bfloat16"),
                                          ((2, 128, 128), "bfloat16"), 64, 64, 64], (2, 2, 2), "gemm", outputs=(2,))
_add("mm_accumulate_into_c", mm_accumulate_into_c, _SMALL + [((128, 256), "float32"), 128, 128, 64], (1, 2), "gemm",
     notes="found by this sweep: the tier dropped C's start (computed A @ B); tileas-fold-dot-accumulate now adds "
           "it in the epilogue", outputs=(2,))
_add("mm_f16_acc_into_c", mm_f16_acc_into_c, [((128, 128), "float16"), ((128, 128), "float16"),
                                              ((128, 128), "float16"), 64, 64, 64], (2, 2), "simt",
     error="the K loop's accumulator starts from a value other than zeros", outputs=(2,),
     notes="found by this sweep: the tier dropped the start (computed A @ B)")
_add("mm_tf32", mm_tf32, [((128, 128), "float32"), ((128, 128), "float32"), ((128, 128), "float32"), 128, 128, 32],
     (1, 1), "gemm", outputs=(2,))
_add("mm_int8_i32", mm_int8_i32, [((128, 256), "int8"), ((256, 128), "int8"), ((128, 128), "int32"), 128, 128, 128],
     (1, 1), "gemm", outputs=(2,))


# ----------------------------------------------------------------------------------------------- GEMM epilogues


@ct.kernel
def mm_leaky_relu(A, B, C, slope: float, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Leaky ReLU written as ``where(acc > 0, acc, slope * acc)`` with a runtime scalar slope."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=ct.where(acc > 0.0, acc, slope * acc).astype(C.dtype))


@ct.kernel
def mm_where_scalar_zero(A, B, C, thresh: float, tm: ct.Constant[int], tn: ct.Constant[int],
                         tk: ct.Constant[int]):
    """Small values zeroed: ``where(|acc| < thresh, 0.0, acc)`` (a scalar on the true side)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=ct.where(ct.abs(acc) < thresh, 0.0, acc).astype(C.dtype))


@ct.kernel
def mm_swish_beta(A, B, C, beta: float, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Swish with a runtime beta: ``x * sigmoid(beta * x)``, sigmoid from ``exp2``; bf16 out."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    sig = 1.0 / (1.0 + ct.exp2(-beta * LOG2E * acc))
    ct.store(C, index=(i, j), tile=(acc * sig).astype(ct.bfloat16))


@ct.kernel
def mm_rowscale_colbias(A, B, rscale, cbias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = (A @ B) * rscale[:, None] + cbias[None, :]``: a per-row scale (M) and a per-column bias (N),
    each a 1-D load indexed by its own program id, broadcast with ``[:, None]`` / ``[None, :]``."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    r = ct.load(rscale, index=(i,), shape=(tm,), padding_mode=ZERO)
    c = ct.load(cbias, index=(j,), shape=(tn,), padding_mode=ZERO)
    ct.store(C, index=(i, j), tile=(acc * r[:, None] + c[None, :]).astype(C.dtype))


@ct.kernel
def mm_clamp_scalars(A, B, C, lo: float, hi: float, tm: ct.Constant[int], tn: ct.Constant[int],
                     tk: ct.Constant[int]):
    """``clamp(acc, lo, hi)`` as ``ct.minimum(ct.maximum(acc, lo), hi)``; 256 x 128 tiles, K tile 128."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=ct.minimum(ct.maximum(acc, lo), hi).astype(C.dtype))


@ct.kernel
def mm_residual_gate(A, B, R, G, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = R + G * (A @ B)``: a residual matrix and a gate matrix (two extra tile loads)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    r = ct.load(R, index=(i, j), shape=(tm, tn)).astype(ct.float32)
    g = ct.load(G, index=(i, j), shape=(tm, tn)).astype(ct.float32)
    ct.store(C, index=(i, j), tile=(r + g * acc).astype(C.dtype))


@ct.kernel
def mm_fp8_out(A, B, C, inv_scale: float, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """fp16 operands, the product scaled and stored as fp8 e4m3 (a quantizing linear layer)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=(acc * inv_scale).astype(ct.float8_e4m3fn))


@ct.kernel
def mm_e5m2_out(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The accumulator cast to fp8 e5m2 and stored as it is (the fragment store converts it)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def mm_bias_as_start(A, B, bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The accumulator starts from the bias row broadcast to the tile (not from zeros)."""
    i, j = ct.bid(0), ct.bid(1)
    b = ct.load(bias, index=(j,), shape=(tn,)).astype(ct.float32)
    acc = ct.broadcast_to(b[None, :], (tm, tn))
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def mm_lower_triangle(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Only the lower triangle of C kept: ``where(row >= col, acc, 0)`` from ``ct.arange`` offsets."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    rows = i * tm + ct.arange(tm, dtype=ct.int32)
    cols = j * tn + ct.arange(tn, dtype=ct.int32)
    ct.store(C, index=(i, j), tile=ct.where(rows[:, None] >= cols[None, :], acc, 0.0))


@ct.kernel
def mm_pre_and_post(A, B, H, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Two outputs: the pre-activation (f16) and ``relu`` of it (f32)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(H, index=(i, j), tile=acc.astype(H.dtype))
    ct.store(Y, index=(i, j), tile=ct.maximum(acc, 0.0))


@ct.kernel
def mm_small_tiles_sigmoid(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """64 x 64 tiles, a sigmoid epilogue from ``ct.exp`` of the negated accumulator, f32 out."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=1.0 / (1.0 + ct.exp(-acc)))


_add("mm_leaky_relu", mm_leaky_relu, _SMALL + [((128, 256), "float16"), 0.01, 128, 128, 64], (1, 2), "gemm",
     outputs=(2,))
_add("mm_where_scalar_zero", mm_where_scalar_zero, _SMALL + [((128, 256), "float32"), 4.0, 128, 128, 64], (1, 2),
     "gemm", outputs=(2,))
_add("mm_swish_beta", mm_swish_beta, _F16 + [((256, 256), "bfloat16"), 1.7, 64, 256, 64], (4, 1), "gemm",
     outputs=(2,))
_add("mm_rowscale_colbias", mm_rowscale_colbias, [((200, 128), "float16"), ((128, 256), "float16"), ((200,), "float32"),
                                                  ((256,), "float32"), ((200, 256), "float32"), 128, 128, 64], (2, 2),
     "gemm", outputs=(4,))
_add("mm_clamp_scalars", mm_clamp_scalars, [((256, 256), "float16"), ((256, 256), "float16"), ((256, 256), "float16"),
                                            -2.0, 3.0, 256, 128, 128], (1, 2), "gemm", outputs=(2,))
_add("mm_residual_gate", mm_residual_gate, _SMALL + [((128, 256), "float16"), ((128, 256), "float32"),
                                                     ((128, 256), "float16"), 128, 128, 64], (1, 2), "gemm",
     outputs=(4,))
_add("mm_fp8_out", mm_fp8_out, _SMALL + [((128, 256), "float8_e4m3fn"), 0.125, 128, 128, 64], (1, 2), "gemm",
     notes="found by this sweep: an fp8 output was refused by the tier (the SIMT path's mma.sync ran it)", outputs=(2,))
_add("mm_e5m2_out", mm_e5m2_out, [((200, 128), "float16"), ((128, 256), "float16"), ((200, 256), "float8_e5m2"),
                                  128, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("mm_bias_as_start", mm_bias_as_start, [((256, 128), "float16"), ((128, 256), "float16"), ((256,), "float32"),
                                            ((256, 256), "float32"), 128, 128, 64], (2, 2), "gemm", outputs=(3,))
_add("mm_lower_triangle", mm_lower_triangle, _SMALL + [((128, 256), "float32"), 128, 64, 64], (1, 4), "gemm",
     outputs=(2,))
_add("mm_pre_and_post", mm_pre_and_post, _SMALL + [((128, 256), "float16"), ((128, 256), "float32"), 128, 128, 64],
     (1, 2), "gemm", outputs=(2, 3))
_add("mm_small_tiles_sigmoid", mm_small_tiles_sigmoid, [((192, 128), "float16"), ((128, 192), "float16"),
                                                        ((192, 192), "float32"), 64, 64, 64], (3, 3), "gemm",
     outputs=(2,))


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_packed_qkv(QKV, O, qk_scale: float, H: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int],
                    D: ct.Constant[int]):
    """Q, K and V from one packed ``[B, S, 3, H, D]`` tensor (as a fused QKV projection writes it);
    O ``[B, S, H, D]``; 5-D loads reshaped to 2-D; ``exp2``."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    q = ct.load(QKV, index=(b, qt, 0, h, 0), shape=(1, BM, 1, 1, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(QKV, axis=1, shape=(1, BN, 1, 1, D))):
        k = ct.load(QKV, index=(b, j, 1, h, 0), shape=(1, BN, 1, 1, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(QKV, index=(b, j, 2, h, 0), shape=(1, BN, 1, 1, D)).reshape((BN, D))
        o = ct.mma(p.astype(QKV.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, qt, h, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def attn_cross_ragged_kv(Q, K, V, O, scale: float, kv_len: int, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """Cross attention: 128 queries against ``kv_len`` keys (not a multiple of the key tile): the
    trip count ``ct.cdiv(kv_len, BN)``, keys past ``kv_len`` masked with ``where``; natural exp."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(kv_len, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(kpos[None, :] < kv_len, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_rowvec_state(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """The online-softmax state kept as 1-D row vectors (``ct.max(s, axis=1)`` without keepdims,
    broadcast back with ``[:, None]``); 2-D ``[S, D]`` per head via the batch-head index on Q's rows."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM,), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM,), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.matmul(q, ct.transpose(k)).astype(ct.float32) * qk_scale
        m_new = ct.maximum(m, ct.max(s, axis=1))
        p = ct.exp2(s - m_new[:, None])
        alpha = ct.exp2(m - m_new)
        den = den * alpha + ct.sum(p, axis=1)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = o * alpha[:, None] + ct.matmul(p.astype(V.dtype), v).astype(ct.float32)
        m = m_new
    ct.store(O, index=(bh, qt, 0), tile=(o / den[:, None]).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_cdiv_heads3(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                            D: ct.Constant[int]):
    """Causal on ``[B, H, S, D]`` with the query tile, head and batch on grid axes 0, 1, 2; the key
    loop bound ``ct.cdiv((qt + 1) * BM, BN)``, the mask on every tile from ``ct.arange`` compares."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    rows = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.permute(k, (1, 0)), ct.zeros((BM, BN), dtype=ct.float32))
        cols = j * BN + ct.arange(BN, dtype=ct.int32)
        s = ct.where(ct.greater_equal(rows[:, None], cols[None, :]), s * qk_scale, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, h, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_bf16_d128(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """bf16, head dim 128, 128 x 64 tiles; the final normalisation by a reciprocal multiply."""
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
        o = ct.mma(p.astype(ct.bfloat16), v, o * c)
        m = m2
    inv = 1.0 / den
    ct.store(O, index=(bh, qt, 0), tile=(o * inv).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_alibi_iota_gqa(Q, K, V, O, scale: float, H: ct.Constant[int], G: ct.Constant[int], BM: ct.Constant[int],
                        BN: ct.Constant[int], D: ct.Constant[int]):
    """ALiBi with the head's slope computed in the program (``2 ** (-8 (h + 1) / H)``, scalar math on
    the program id), the distance from two ``ct.arange`` vectors; grouped K/V heads (``h // G``) on
    ``[H, S, D]`` / ``[H // G, S, D]`` arrays; natural ``exp``; non-causal."""
    qt, h = ct.bid(0), ct.bid(1)
    slope = ct.exp2(-8.0 * (h + 1) / H)
    q = ct.load(Q, index=(h, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32)).astype(ct.float32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(h // G, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32)).astype(ct.float32)
        s = s - slope * ct.abs(kpos[None, :] - qpos[:, None])
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(h // G, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(h, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_head96_unpadded(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """Head dim 96 loaded as a 96-wide tile (not a power of two): cuTile refuses the tile shape."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(ct.exp2(s).astype(V.dtype), v, o)
    ct.store(O, index=(bh, qt, 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def mlp_swiglu(X, W1, W3, W2, Y, TM: ct.Constant[int], TH: ct.Constant[int], D: ct.Constant[int],
               DO: ct.Constant[int]):
    """SwiGLU MLP: ``(silu(x W1) * (x W3)) W2`` over hidden tiles: three dots per step."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(TM, D), padding_mode=ZERO)
    y = ct.zeros((TM, DO), dtype=ct.float32)
    for h in range(ct.num_tiles(W1, axis=1, shape=(D, TH))):
        g = ct.mma(x, ct.load(W1, index=(0, h), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        u = ct.mma(x, ct.load(W3, index=(0, h), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        a = g / (1.0 + ct.exp(-g)) * u
        y = ct.mma(a.astype(X.dtype), ct.load(W2, index=(h, 0), shape=(TH, DO)), y)
    ct.store(Y, index=(i, 0), tile=y.astype(Y.dtype))


@ct.kernel
def mlp_swiglu_wt(X, W1T, W3T, W2, Y, TM: ct.Constant[int], TH: ct.Constant[int], D: ct.Constant[int],
                  DO: ct.Constant[int]):
    """SwiGLU MLP with the gate and up weights stored transposed (``[hidden, D]``, nn.Linear's
    layout): the first dots' B tiles are K-major."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(TM, D), padding_mode=ZERO)
    y = ct.zeros((TM, DO), dtype=ct.float32)
    for h in range(ct.num_tiles(W1T, axis=0, shape=(TH, D))):
        g = ct.mma(x, ct.transpose(ct.load(W1T, index=(h, 0), shape=(TH, D))), ct.zeros((TM, TH), dtype=ct.float32))
        u = ct.mma(x, ct.transpose(ct.load(W3T, index=(h, 0), shape=(TH, D))), ct.zeros((TM, TH), dtype=ct.float32))
        a = g * (1.0 / (1.0 + ct.exp2(g * -LOG2E))) * u
        y = ct.mma(a.astype(X.dtype), ct.load(W2, index=(h, 0), shape=(TH, DO)), y)
    ct.store(Y, index=(i, 0), tile=y.astype(Y.dtype))


@ct.kernel
def mlp_three_gates(X, W1, W3, W4, W2, Y, TM: ct.Constant[int], TH: ct.Constant[int], D: ct.Constant[int],
                    DO: ct.Constant[int]):
    """Three first dots sharing x (``relu(x W1) * (x W3) + (x W4)``, then ``@ W2``): one WGMMA of
    three hidden tiles' width."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(TM, D), padding_mode=ZERO)
    y = ct.zeros((TM, DO), dtype=ct.float32)
    for h in range(ct.num_tiles(W1, axis=1, shape=(D, TH))):
        g = ct.mma(x, ct.load(W1, index=(0, h), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        u = ct.mma(x, ct.load(W3, index=(0, h), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        v = ct.mma(x, ct.load(W4, index=(0, h), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        a = ct.maximum(g, 0.0) * u + v
        y = ct.mma(a.astype(X.dtype), ct.load(W2, index=(h, 0), shape=(TH, DO)), y)
    ct.store(Y, index=(i, 0), tile=y.astype(Y.dtype))


@ct.kernel
def mlp_geglu_two_inputs(X, Z, W1, W3, W2, Y, TM: ct.Constant[int], TH: ct.Constant[int], D: ct.Constant[int],
                         DO: ct.Constant[int]):
    """A gated MLP whose two first dots read different A tiles (``x W1`` and ``z W3``): refused by the
    tier until session 23 (the chained kernel loaded one A tile); now each first dot reads its own A
    tile, loaded once, with its own WGMMA chain."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(TM, D), padding_mode=ZERO)
    z = ct.load(Z, index=(i, 0), shape=(TM, D), padding_mode=ZERO)
    y = ct.zeros((TM, DO), dtype=ct.float32)
    for h in range(ct.num_tiles(W1, axis=1, shape=(D, TH))):
        g = ct.mma(x, ct.load(W1, index=(0, h), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        u = ct.mma(z, ct.load(W3, index=(0, h), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        y = ct.mma((ct.maximum(g, 0.0) * u).astype(X.dtype), ct.load(W2, index=(h, 0), shape=(TH, DO)), y)
    ct.store(Y, index=(i, 0), tile=y.astype(Y.dtype))


@ct.kernel
def mlp_relu_sq_chain(X, W1, W2, Y, TM: ct.Constant[int], TH: ct.Constant[int], D: ct.Constant[int],
                      DO: ct.Constant[int]):
    """Two-GEMM MLP with squared ReLU between (``relu(h) ** 2`` as a product)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(TM, D), padding_mode=ZERO)
    y = ct.zeros((TM, DO), dtype=ct.float32)
    for h in range(ct.num_tiles(W1, axis=1, shape=(D, TH))):
        t = ct.mma(x, ct.load(W1, index=(0, h), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        r = ct.maximum(t, 0.0)
        y = ct.mma((r * r).astype(X.dtype), ct.load(W2, index=(h, 0), shape=(TH, DO)), y)
    ct.store(Y, index=(i, 0), tile=y.astype(Y.dtype))


_QKV = ((2, 256, 3, 2, 64), "float16")
_add("attn_packed_qkv", attn_packed_qkv, [_QKV, ((2, 256, 2, 64), "float16"), 0.125 * LOG2E, 2, 128, 64, 64], (2, 4),
     "chained", notes="found by this sweep: tiles with unit dimensions between the rows and the columns were "
                      "refused by the chained kernel ('2-D tiles (with leading unit dimensions)')", outputs=(1,))
_add("attn_cross_ragged_kv", attn_cross_ragged_kv,
     [((2, 128, 64), "float16"), ((2, 200, 64), "float16"), ((2, 200, 64), "float16"), ((2, 128, 64), "float16"),
      0.125, 200, 64, 64, 64], (2, 2), "chained", outputs=(3,))
_add("attn_rowvec_state", attn_rowvec_state,
     [((2, 256, 64), "float16"), ((2, 256, 64), "float16"), ((2, 256, 64), "float16"), ((2, 256, 64), "float16"),
      0.125 * LOG2E, 128, 64, 64], (2, 2), "chained",
     notes="found by this sweep: ct.matmul of f16 tiles is an f16 dot (refused: 'the accumulator must be f32'; "
           "tileas-fold-dot-accumulate widens it), and 1-D [tm] running max / sum were refused by the chained "
           "kernel", outputs=(3,))
_add("attn_causal_cdiv_heads3", attn_causal_cdiv_heads3,
     [((2, 2, 256, 64), "float16"), ((2, 2, 256, 64), "float16"), ((2, 2, 256, 64), "float16"),
      ((2, 2, 256, 64), "float16"), 0.125 * LOG2E, 128, 64, 64], (2, 2, 2), "chained", outputs=(3,))
_add("attn_bf16_d128", attn_bf16_d128,
     [((2, 256, 128), "bfloat16"), ((2, 256, 128), "bfloat16"), ((2, 256, 128), "bfloat16"),
      ((2, 256, 128), "bfloat16"), LOG2E / math.sqrt(128), 128, 64, 128], (2, 2), "chained", outputs=(3,))
_add("attn_alibi_iota_gqa", attn_alibi_iota_gqa,
     [((4, 192, 32), "float16"), ((2, 192, 32), "float16"), ((2, 192, 32), "float16"), ((4, 192, 32), "float16"),
      1 / math.sqrt(32), 4, 2, 64, 32, 32], (3, 4), "chained", outputs=(3,))
_add("mlp_swiglu", mlp_swiglu, [((128, 64), "float16"), ((64, 128), "float16"), ((64, 128), "float16"),
                                ((128, 64), "float16"), ((128, 64), "float16"), 128, 64, 64, 64], (1,), "chained",
     notes="was refused ('3 dots in one K loop that do not read the same A tile', the SIMT path's mma.sync): the "
           "chained kernel now takes several first dots sharing their A tile", outputs=(4,))
_add("mlp_swiglu_bf16", mlp_swiglu, [((256, 64), "bfloat16"), ((64, 192), "bfloat16"), ((64, 192), "bfloat16"),
                                     ((192, 128), "bfloat16"), ((256, 128), "bfloat16"), 128, 64, 64, 128], (2,),
     "chained", outputs=(4,))
_add("mlp_swiglu_tm64", mlp_swiglu, [((192, 128), "float16"), ((128, 96), "float16"), ((128, 96), "float16"),
                                     ((96, 128), "float16"), ((192, 128), "float16"), 64, 32, 128, 128], (3,),
     "chained", outputs=(4,))
_add("mlp_swiglu_wt", mlp_swiglu_wt, [((200, 128), "float16"), ((192, 128), "float16"), ((192, 128), "float16"),
                                      ((192, 64), "float16"), ((200, 64), "float16"), 128, 64, 128, 64], (2,),
     "chained", outputs=(4,))
_add("mlp_swiglu_wide", mlp_swiglu, [((128, 64), "float16"), ((64, 256), "float16"), ((64, 256), "float16"),
                                     ((256, 128), "float16"), ((128, 128), "float16"), 128, 128, 64, 128], (1,),
     "simt", error="first dots of [128, 128] tiles: their accumulators", outputs=(4,))
_add("mlp_three_gates", mlp_three_gates,
     [((128, 64), "float16"), ((64, 96), "float16"), ((64, 96), "float16"), ((64, 96), "float16"),
      ((96, 64), "float16"), ((128, 64), "float16"), 64, 32, 64, 64], (2,), "chained", outputs=(5,))
_add("mlp_geglu_two_inputs", mlp_geglu_two_inputs,
     [((128, 64), "float16"), ((128, 64), "float16"), ((64, 128), "float16"), ((64, 128), "float16"),
      ((128, 64), "float16"), ((128, 64), "float16"), 128, 64, 64, 64], (1,), "chained", outputs=(5,),
     notes="refused as 'first dots with different A operands' until session 23 (first dots with their own A tiles)")
_add("mlp_relu_sq_chain", mlp_relu_sq_chain, [((192, 64), "float16"), ((64, 128), "float16"),
                                              ((128, 64), "float16"), ((192, 64), "float16"), 64, 64, 64, 64],
     (3,), "chained", outputs=(3,))

# head dim 96 as a 96-wide tile: cuTile's own export refuses it (tile dimensions are powers of two)
CUTILE_REFUSES = {
    "attn_head96_unpadded": (attn_head96_unpadded,
                             [((1, 128, 96), "float16"), ((1, 128, 96), "float16"), ((1, 128, 96), "float16"),
                              ((1, 128, 96), "float16"), 0.1, 64, 64, 96], "is not a power of two"),
}


# ----------------------------------------------------------------------------------------------- memory-bound


@ct.kernel
def softmax_custom_reduce(X, Y, N: ct.Constant[int]):
    """Row softmax with ``ct.reduce``: the max with a ``lambda`` combiner, the sum with ``+``."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=NEG_INF).astype(ct.float32)
    mx = ct.reduce(x, axis=1, func=lambda a, b: ct.maximum(a, b), identity=-math.inf, keepdims=True)
    e = ct.exp(x - mx)
    s = ct.reduce(e, axis=1, func=lambda a, b: a + b, identity=0.0, keepdims=True)
    ct.store(Y, index=(r, 0), tile=(e / s).astype(Y.dtype))


@ct.kernel
def argmax_tuple_reduce(X, Idx, N: ct.Constant[int]):
    """Arg-max of each row with a tuple ``ct.reduce`` (value, index), the first index on ties."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=NEG_INF).reshape((N,))
    ids = ct.arange(N, dtype=ct.int32)

    def pick(v0, i0, v1, i1):
        take1 = (v1 > v0) | ((v1 == v0) & (i1 < i0))
        return ct.where(take1, v1, v0), ct.where(take1, i1, i0)

    _, best = ct.reduce((x, ids), axis=0, func=pick, identity=(-math.inf, 2147483647))
    ct.store(Idx, index=(r,), tile=best.reshape((1,)))


@ct.kernel
def chunked_cumsum_scan(X, Y, T: ct.Constant[int]):
    """Prefix sum of a long row in chunks of ``T``: ``ct.scan`` per chunk plus the carry of the
    chunks before it (a loop-carried scalar tile)."""
    r = ct.bid(0)
    carry = ct.zeros((1, 1), dtype=ct.float32)
    for c in range(ct.num_tiles(X, axis=1, shape=(1, T))):
        x = ct.load(X, index=(r, c), shape=(1, T), padding_mode=ZERO)
        s = ct.scan(x, axis=1, func=lambda a, b: a + b, identity=0.0) + carry
        ct.store(Y, index=(r, c), tile=s)
        carry = s.extract((0, T - 1), shape=(1, 1))


@ct.kernel
def layernorm_chunked(X, W, B, Y, eps: float, N: ct.Constant[int], T: ct.Constant[int]):
    """Layer norm of rows longer than one tile: a first loop over column chunks for the sum and
    the sum of squares, a second that normalises and applies the weight and bias; bf16 in and out."""
    r = ct.bid(0)
    s1 = ct.zeros((1, T), dtype=ct.float32)
    s2 = ct.zeros((1, T), dtype=ct.float32)
    for c in range(ct.cdiv(N, T)):
        x = ct.load(X, index=(r, c), shape=(1, T), padding_mode=ZERO).astype(ct.float32)
        s1 = s1 + x
        s2 = s2 + x * x
    mean = ct.sum(s1) / N
    var = ct.sum(s2) / N - mean * mean
    rstd = ct.rsqrt(var + eps)
    for c in range(ct.cdiv(N, T)):
        x = ct.load(X, index=(r, c), shape=(1, T), padding_mode=ZERO).astype(ct.float32)
        w = ct.load(W, index=(c,), shape=(T,), padding_mode=ZERO).astype(ct.float32)
        b = ct.load(B, index=(c,), shape=(T,), padding_mode=ZERO).astype(ct.float32)
        y = (x - mean) * rstd * w[None, :] + b[None, :]
        ct.store(Y, index=(r, c), tile=y.astype(Y.dtype))


@ct.kernel
def rmsnorm_2d_tile(X, W, Y, eps: float, N: ct.Constant[int]):
    """RMSNorm on a ``(1, N)`` tile: ``x * rsqrt(mean(x^2) + eps) * w`` with ``ct.rsqrt``, bf16."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=ZERO).astype(ct.float32)
    ms = ct.sum(x * x, axis=1, keepdims=True) / X.shape[1]
    w = ct.load(W, index=(0,), shape=(N,), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(r, 0), tile=(x * ct.rsqrt(ms + eps) * w[None, :]).astype(Y.dtype))


@ct.kernel
def logsumexp_online(X, L, T: ct.Constant[int]):
    """``log(sum(exp(x)))`` of each row over column chunks with a running max (online rescaling)."""
    r = ct.bid(0)
    m = ct.full((1,), -math.inf, dtype=ct.float32)
    s = ct.zeros((1,), dtype=ct.float32)
    for c in range(ct.num_tiles(X, axis=1, shape=(1, T))):
        x = ct.load(X, index=(r, c), shape=(1, T), padding_mode=NEG_INF).reshape((T,))
        m_new = ct.maximum(m, ct.max(x))
        s = s * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new))
        m = m_new
    ct.store(L, index=(r,), tile=m + ct.log(s))


@ct.kernel
def argmin_cols_keepdims(X, Idx, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Arg-min down each column (axis 0) of a ``(BM, BN)`` tile, ``keepdims=True`` then reshaped."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(BM, BN), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(Idx, index=(j,), tile=ct.argmin(x, axis=0, keepdims=True).reshape((BN,)))


@ct.kernel
def permute_3d_201(X, Y, A: ct.Constant[int], B: ct.Constant[int], C: ct.Constant[int]):
    """``Y = X.permute(2, 0, 1)`` of a ``[A, B, C]`` block, one block per program along C."""
    t = ct.bid(0)
    x = ct.load(X, index=(0, 0, t), shape=(A, B, C))
    ct.store(Y, index=(t, 0, 0), tile=ct.permute(x, (2, 0, 1)))


@ct.kernel
def window_mean_overlap(X, Y, W: ct.Constant[int]):
    """A moving sum over windows of ``W`` that overlap by half (``traversal_steps=(W // 2,)``)."""
    tv = X.tiled_view((W,), padding_mode=ZERO, traversal_steps=(W // 2,))
    i = ct.bid(0)
    ct.store(Y, index=(i,), tile=ct.sum(tv.load((i,))).reshape((1,)) / W)


@ct.kernel
def window_count_tiles(X, Y, W: ct.Constant[int]):
    """The number of overlapping windows asked of the view (``TiledView.num_tiles``): not supported
    yet (a located error; the tile count of a strided view is not implemented)."""
    tv = X.tiled_view((W,), padding_mode=ZERO, traversal_steps=(W // 2,))
    for i in range(tv.num_tiles(0)):
        ct.store(Y, index=(i,), tile=ct.sum(tv.load((i,))).reshape((1,)))


@ct.kernel
def gather_rows_advanced(Table, Ids, Out, D: ct.Constant[int], R: ct.Constant[int]):
    """Rows of a table gathered with ``ct.load_advanced_indexing`` (the row ids a 1-D tile, the
    columns a ``ct.Slice``), scaled and stored as a dense tile."""
    i = ct.bid(0)
    ids = ct.load(Ids, index=(i,), shape=(R,))
    rows = ct.load_advanced_indexing(Table, (ids, ct.Slice(0, D)), padding_mode=ZERO)
    ct.store(Out, index=(i, 0), tile=rows * 2.0)


@ct.kernel
def scatter_masked_rows(Src, Dst, Perm, valid: int, N: ct.Constant[int]):
    """``Dst[perm[i]] = Src[i]`` for ``i < valid`` only (a 1-D masked ``ct.scatter``)."""
    b = ct.bid(0)
    i = b * N + ct.arange(N, dtype=ct.int32)
    p = ct.gather(Perm, i, mask=i < valid, padding_value=0)
    v = ct.gather(Src, i, mask=i < valid, padding_value=0.0)
    ct.scatter(Dst, p, v, mask=i < valid)


@ct.kernel
def byte_histogram(Data, Hist, N: ct.Constant[int]):
    """A 256-bin histogram of uint8 data with ``ct.atomic_add`` of ones at the byte values."""
    b = ct.bid(0)
    i = b * N + ct.arange(N, dtype=ct.int32)
    v = ct.gather(Data, i, mask=i < Data.shape[0], padding_value=0).astype(ct.int32)
    ones = ct.where(i < Data.shape[0], 1, 0)
    ct.atomic_add(Hist, v, ones)


@ct.kernel
def clamp_where_chain(X, Y, Z, lo: float, hi: float, N: ct.Constant[int]):
    """An elementwise chain on f16: clamp, ``where`` on NaN, a sign from ``where``, an f16 / f32 mix."""
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(N,), padding_mode=ZERO)
    y = ct.load(Y, index=(b,), shape=(N,), padding_mode=ZERO)
    c = ct.minimum(ct.maximum(x, lo), hi)
    c = ct.where(ct.isnan(x), 0.0, c)
    sgn = ct.where(y >= 0.0, 1.0, -1.0)
    ct.store(Z, index=(b,), tile=(c.astype(ct.float32) * sgn + y.astype(ct.float32) * 0.5).astype(Z.dtype))


@ct.kernel
def fp8_roundtrip(X, E5, E4, Back, N: ct.Constant[int]):
    """f32 to fp8 e5m2 and e4m3 (stored), and e5m2 back to f32 (stored)."""
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(N,), padding_mode=ZERO)
    e5 = x.astype(ct.float8_e5m2)
    ct.store(E5, index=(b,), tile=e5)
    ct.store(E4, index=(b,), tile=x.astype(ct.float8_e4m3fn))
    ct.store(Back, index=(b,), tile=e5.astype(ct.float32))


@ct.kernel
def dtype_ladder(X, H, I, U, N: ct.Constant[int]):
    """bf16 to f16 (stored), f32 to int16 by truncation (stored) and to uint8 of the low byte."""
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(N,), padding_mode=ZERO)
    ct.store(H, index=(b,), tile=x.astype(ct.float16))
    xi = x.astype(ct.float32).astype(ct.int16)
    ct.store(I, index=(b,), tile=xi)
    ct.store(U, index=(b,), tile=(xi.astype(ct.int32) & 255).astype(ct.uint8))


_add("softmax_custom_reduce", softmax_custom_reduce, [((6, 300), "float16"), ((6, 300), "float16"), 512], (6,), "simt",
     outputs=(1,))
_add("argmax_tuple_reduce", argmax_tuple_reduce, [((5, 200), "float32"), ((5,), "int32"), 256], (5,), "simt",
     outputs=(1,))
_add("chunked_cumsum_scan", chunked_cumsum_scan, [((3, 500), "float32"), ((3, 500), "float32"), 128], (3,), "simt",
     outputs=(1,))
_add("layernorm_chunked", layernorm_chunked, [((4, 700), "bfloat16"), ((700,), "bfloat16"), ((700,), "bfloat16"),
                                              ((4, 700), "bfloat16"), 1e-5, 700, 256], (4,), "simt", outputs=(3,))
_add("rmsnorm_2d_tile", rmsnorm_2d_tile, [((5, 384), "bfloat16"), ((384,), "bfloat16"), ((5, 384), "bfloat16"), 1e-6,
                                          512], (5,), "simt", outputs=(2,))
_add("logsumexp_online", logsumexp_online, [((4, 1000), "float32"), ((4,), "float32"), 256], (4,), "simt",
     outputs=(1,))
_add("argmin_cols_keepdims", argmin_cols_keepdims, [((30, 64), "float32"), ((64,), "int32"), 32, 16], (4,), "simt",
     outputs=(1,))
_add("permute_3d_201", permute_3d_201, [((4, 8, 64), "float16"), ((64, 4, 8), "float16"), 4, 8, 16], (4,), "simt",
     outputs=(1,))
_add("window_mean_overlap", window_mean_overlap, [((512,), "float32"), ((15,), "float32"), 64], (15,), "simt",
     notes="found by this sweep: make_strided_view was 'not supported yet'", outputs=(1,))
_add("window_count_tiles", window_count_tiles, [((512,), "float32"), ((15,), "float32"), 64], (1,), "error",
     error="overlapping tiles (step different from the tile)", outputs=(1,))
_add("gather_rows_advanced", gather_rows_advanced, [((40, 32), "float32"), ((64,), "int32"), ((64, 32), "float32"),
                                                    32, 16], (4,), "simt", outputs=(2,))
_add("scatter_masked_rows", scatter_masked_rows, [((300,), "float32"), ((300,), "float32"), ((300,), "int32"), 250,
                                                  128], (3,), "simt", outputs=(1,))
_add("byte_histogram", byte_histogram, [((1000,), "uint8"), ((256,), "int32"), 256], (4,), "simt", outputs=(1,))
_add("clamp_where_chain", clamp_where_chain, [((1000,), "float16"), ((1000,), "float16"), ((1000,), "float16"),
                                              -1.5, 2.0, 256], (4,), "simt", outputs=(2,))
_add("fp8_roundtrip", fp8_roundtrip, [((300,), "float32"), ((300,), "float8_e5m2"), ((300,), "float8_e4m3fn"),
                                      ((300,), "float32"), 128], (3,), "simt", outputs=(1, 2, 3))
_add("dtype_ladder", dtype_ladder, [((300,), "bfloat16"), ((300,), "float16"), ((300,), "int16"), ((300,), "uint8"),
                                    128], (3,), "simt", outputs=(1, 2, 3))

__all__ = ["CUTILE_REFUSES", "PROGRAMS"]
