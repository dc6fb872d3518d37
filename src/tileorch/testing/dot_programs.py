"""cuTile dot programs as users write them: the GEMM family the tier compiles onto tensor cores.

Each entry of :data:`PROGRAMS` names a ``@ct.kernel``, how to build its arguments for an
``M x N x K`` problem (torch tensors on the GPU, outputs pre-filled with NaN, int32 outputs with
-2^31), the torch fp32 reference (exact int32 for integer programs) and the library call a user
would make instead (None where torch has none).  Tests (``tests/gpu``) and
benchmarks (``benchmarks/tile_programs.py``) import this one zoo.  Importing it needs
``cuda.tile``; building arguments needs torch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import cuda.tile as ct

GELU_C = math.sqrt(2.0 / math.pi)


@ct.kernel
def gemm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_persistent(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM with its persistent tile loop written in the program (a grid of any size walks
    all tiles, row-major raster)."""
    tiles_n = ct.num_tiles(C, axis=1, shape=(tm, tn))
    for t in range(ct.bid(0), ct.num_tiles(C, axis=0, shape=(tm, tn)) * tiles_n, ct.num_blocks(0)):
        bm, bn = t // tiles_n, t % tiles_n
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
        ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_grid_nm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM on the transposed grid: column tiles along program axis 0, row tiles along 1."""
    bn, bm = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_one_k_tile(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """One dot without a K loop: the first K tile of A and B only (K fits one tile)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.mma(ct.load(A, index=(bm, 0), shape=(tm, tk)), ct.load(B, index=(0, bn), shape=(tk, tn)),
                 ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_one_n_tile(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A 1-D grid over row tiles, N in one tile: B and C read at column tile 0 (a narrow projection)."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, 0), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, 0), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_softmax_rows(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = softmax(A @ B, axis=1)`` with N in one tile (logits of a small vocabulary / router)."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, 0), shape=(tk, tn)), acc)
    e = ct.exp(acc - ct.max(acc, axis=1, keepdims=True))
    ct.store(C, index=(bm, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(C.dtype))


@ct.kernel
def gemm_cdiv(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM with its K trip count written as ``ct.cdiv(A.shape[1], tk)``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_plus_matmul(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM written ``acc += ct.matmul(a, b)`` (a 16-bit product added into an f32 accumulator)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc += ct.matmul(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)))
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_linear_pid(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM on a 1-D grid: one program id split into tile coordinates."""
    pid = ct.bid(0)
    tiles_n = ct.num_tiles(C, axis=1, shape=(tm, tn))
    bm, bn = pid // tiles_n, pid % tiles_n
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


def _gemm_on_cluster(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


gemm_2cta = ct.kernel(num_ctas=2, num_worker_warps=8)(_gemm_on_cluster)
"""The GEMM with a 256-row tile split over a 2-CTA cluster and 8 worker warps."""


@ct.kernel
def gemm_bias_relu(A, B, bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    bv = ct.load(bias, index=(bn,), shape=(tn,)).astype(ct.float32)
    acc = ct.maximum(acc + ct.reshape(bv, (1, tn)), 0.0)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def linear_gelu(X, W, bias, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``Y = gelu_tanh(X @ W^T + bias)``: W stored [N, K] as ``nn.Linear`` keeps it."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(bn, k), shape=(tn, tk))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.transpose(w), acc)
    x = acc + ct.reshape(ct.load(bias, index=(bn,), shape=(tn,)).astype(ct.float32), (1, tn))
    y = 0.5 * x * (1.0 + ct.tanh(GELU_C * (x + 0.044715 * x * x * x)))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def swiglu(X, Wg, Wu, H, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The gated MLP's up projection ``H = silu(X @ Wg) * (X @ Wu)``: two dots in one K loop sharing
    the A tile, each with its own B and accumulator, combined elementwise after the loop."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc_g = ct.zeros((tm, tn), dtype=ct.float32)
    acc_u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        a = ct.load(X, index=(bm, k), shape=(tm, tk))
        wg = ct.load(Wg, index=(k, bn), shape=(tk, tn))
        wu = ct.load(Wu, index=(k, bn), shape=(tk, tn))
        acc_g = ct.mma(a, wg, acc_g)
        acc_u = ct.mma(a, wu, acc_u)
    h = acc_g / (1.0 + ct.exp(-acc_g)) * acc_u
    ct.store(H, index=(bm, bn), tile=h.astype(H.dtype))


@ct.kernel
def swiglu_linear(X, Wg, Wu, H, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """SwiGLU with ``nn.Linear`` weights (``Wg``, ``Wu`` stored [N, K], transposed before the dots)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc_g = ct.zeros((tm, tn), dtype=ct.float32)
    acc_u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        a = ct.load(X, index=(bm, k), shape=(tm, tk))
        wg = ct.load(Wg, index=(bn, k), shape=(tn, tk))
        wu = ct.load(Wu, index=(bn, k), shape=(tn, tk))
        acc_g = ct.mma(a, ct.transpose(wg), acc_g)
        acc_u = ct.mma(a, ct.transpose(wu), acc_u)
    h = acc_g * (1.0 / (1.0 + ct.exp(-acc_g))) * acc_u
    ct.store(H, index=(bm, bn), tile=h.astype(H.dtype))


@ct.kernel
def gated_three(X, W1, W2, W3, H, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Three dots sharing A: ``H = silu(X @ W1) * (X @ W2) + X @ W3`` (three accumulators: 64-column tiles)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc1 = ct.zeros((tm, tn), dtype=ct.float32)
    acc2 = ct.zeros((tm, tn), dtype=ct.float32)
    acc3 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        a = ct.load(X, index=(bm, k), shape=(tm, tk))
        acc1 = ct.mma(a, ct.load(W1, index=(k, bn), shape=(tk, tn)), acc1)
        acc2 = ct.mma(a, ct.load(W2, index=(k, bn), shape=(tk, tn)), acc2)
        acc3 = ct.mma(a, ct.load(W3, index=(k, bn), shape=(tk, tn)), acc3)
    h = acc1 / (1.0 + ct.exp(-acc1)) * acc2 + acc3
    ct.store(H, index=(bm, bn), tile=h.astype(H.dtype))


@ct.kernel
def gemm_scale_residual(A, B, R, C, alpha, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = alpha * (A @ B) + R`` (a scalar argument and a residual tile)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    r = ct.load(R, index=(bm, bn), shape=(tm, tn)).astype(ct.float32)
    ct.store(C, index=(bm, bn), tile=(alpha * acc + r).astype(C.dtype))


@ct.kernel
def gemm_rowscale_sigmoid_f32(A, B, s, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = sigmoid(s[:, None] * (A @ B))`` with an f32 output: a per-row (column-broadcast) vector."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    x = acc * ct.reshape(ct.load(s, index=(bm,), shape=(tm,)), (tm, 1))
    ct.store(C, index=(bm, bn), tile=1.0 / (1.0 + ct.exp(-x)))


@ct.kernel
def bmm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched GEMM on 3-D tiles (batch index = program id 2), the accumulator 3-D too."""
    bm, bn, bb = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(bb, bm, k), shape=(1, tm, tk))
        b = ct.load(B, index=(bb, k, bn), shape=(1, tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bb, bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def bmm_bias(A, B, bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched GEMM written with reshapes of unit dimensions to 2-D tiles, plus a bias row."""
    bm, bn, bb = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.reshape(ct.load(A, index=(bb, bm, k), shape=(1, tm, tk)), (tm, tk))
        b = ct.reshape(ct.load(B, index=(bb, k, bn), shape=(1, tk, tn)), (tk, tn))
        acc = ct.mma(a, b, acc)
    acc = acc + ct.reshape(ct.load(bias, index=(bn,), shape=(tn,)).astype(ct.float32), (1, tn))
    ct.store(C, index=(bb, bm, bn), tile=ct.reshape(acc.astype(C.dtype), (1, tm, tn)))


@ct.kernel
def gemm_at(AT, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = AT^T @ B`` with A given transposed (stored [K, M]): the A tile is loaded (k, bm) and
    transposed, an M-major WGMMA operand."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(AT, axis=0, shape=(tk, tm))):
        a = ct.transpose(ct.load(AT, index=(k, bm), shape=(tk, tm)))
        acc = ct.mma(a, ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_fp8_scaled(A, W, C, scale_a, scale_b, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = (A @ W^T) * scale_a * scale_b``: fp8 e4m3 inputs with per-tensor scales (W stored
    [N, K], both operands K-major as fp8 WGMMA reads them), bf16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(bn, k), shape=(tn, tk))
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.transpose(w), acc)
    ct.store(C, index=(bm, bn), tile=(acc * (scale_a * scale_b)).astype(C.dtype))


@ct.kernel
def linear_tf32(X, W, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``Y = X @ W^T`` of f32 arrays on tf32 tensor cores (operands ``astype(ct.tfloat32)``, as
    cuTile's samples ask for them), W stored [N, K]."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(bn, k), shape=(tn, tk)).astype(ct.tfloat32)
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)).astype(ct.tfloat32), ct.transpose(w), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_tf32(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM of f32 arrays on tf32 tensor cores (each operand tile ``astype(ct.tfloat32)``; a
    dot of f32 tiles itself is computed to f32 accuracy)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk)).astype(ct.tfloat32)
        acc = ct.mma(a, ct.load(B, index=(k, bn), shape=(tk, tn)).astype(ct.tfloat32), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def linear_view_order(X, W, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``Y = X @ W^T`` with the W tile read through a transposed view (``order=(1, 0)``), no permute."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(k, bn), shape=(tk, tn), order=(1, 0))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemm_at_view_order(AT, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = AT^T @ B`` with the A tile read through a transposed view of AT [K, M]."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(AT, axis=0, shape=(tk, tm))):
        a = ct.load(AT, index=(bm, k), shape=(tm, tk), order=(1, 0))
        acc = ct.mma(a, ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


def _grouped_tile(m_extent, n_extent, tm, tn, group, t):
    """Tile coordinates of linear index ``t`` in the grouped raster (``group`` rows of tiles per
    group, then along the columns), the L2-friendly order of cuTile's matmul samples."""
    tiles_m, tiles_n = ct.cdiv(m_extent, tm), ct.cdiv(n_extent, tn)
    per_group = group * tiles_n
    first = (t // per_group) * group
    rows = min(tiles_m - first, group)
    return first + t % rows, (t % per_group) // rows


@ct.kernel
def gemm_grouped(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The sample-style GEMM: a 1-D grid in grouped order, zero-padded loads, f32 inputs asked to
    run as tf32 (``astype(ct.tfloat32)``), the shape counts from ``A.shape``/``B.shape``."""
    bm, bn = _grouped_tile(A.shape[0], B.shape[1], tm, tn, 8, ct.bid(0))
    mma_type = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO).astype(mma_type)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO).astype(mma_type)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=ct.astype(acc, C.dtype))


@ct.kernel
def gemm_persistent_grouped(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The sample-style persistent GEMM: a static loop over tiles in grouped order."""
    mma_type = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    tiles = ct.cdiv(A.shape[0], tm) * ct.cdiv(B.shape[1], tn)
    for t in range(ct.bid(0), tiles, ct.num_blocks(0)):
        acc = ct.full((tm, tn), 0, dtype=ct.float32)
        bm, bn = _grouped_tile(A.shape[0], B.shape[1], tm, tn, 8, t)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO).astype(mma_type)
            b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO).astype(mma_type)
            acc = ct.mma(a, b, acc)
        ct.store(C, index=(bm, bn), tile=ct.astype(acc, C.dtype))


@ct.kernel
def bmm_batch_first(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched GEMM with the batch on program axis 0 and 3-D tiles reshaped to 2-D around the dot."""
    l, bm, bn = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.full((tm, tn), 0.0, dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], tk)):
        a = ct.reshape(ct.load(A, index=(l, bm, k), shape=(1, tm, tk), padding_mode=ct.PaddingMode.ZERO), (tm, tk))
        b = ct.reshape(ct.load(B, index=(l, k, bn), shape=(1, tk, tn), padding_mode=ct.PaddingMode.ZERO), (tk, tn))
        acc = ct.mma(a, b, acc=acc)
    ct.store(C, index=(l, bm, bn), tile=ct.reshape(ct.astype(acc, C.dtype), (1, tm, tn)))

@ct.kernel
def bmm_heads_4d(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int], H: ct.Constant[int]):
    """``[batch, heads, M, K] x [batch, heads, K, N]``: batch and head split from program id 2
    (``//`` and ``%`` by ``H``), 4-D tiles of extent 1 in both batch dimensions reshaped to 2-D."""
    bm, bn, bh = ct.bid(0), ct.bid(1), ct.bid(2)
    b, h = bh // H, bh % H
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=3, shape=(1, 1, tm, tk))):
        a = ct.load(A, index=(b, h, bm, k), shape=(1, 1, tm, tk), padding_mode=ct.PaddingMode.ZERO).reshape((tm, tk))
        w = ct.load(B, index=(b, h, k, bn), shape=(1, 1, tk, tn), padding_mode=ct.PaddingMode.ZERO).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, h, bm, bn), tile=acc.astype(C.dtype).reshape((1, 1, tm, tn)))


@ct.kernel
def linear_i8(X, W, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``Y = X @ W^T`` on int8 (W stored [N, K], K-major as int8 WGMMA reads both operands), exact
    int32 accumulation and output (``torch._int_mm``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(bn, k), shape=(tn, tk))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.transpose(w), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_i8(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = A @ B`` on 8-bit integers with B stored [K, N] (N-major: int8 WGMMA reads B K-major, so
    the launcher passes a K-major copy), int32 output.  (``ct.matmul`` of int8 tiles returns int8,
    the product truncated: integer programs accumulate with ``ct.mma``.)  The operands' signedness
    comes from their dtypes (``gemm_u8_i8``: uint8 A, int8 B)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def linear_i8_dequant(X, W, Y, sx, sw, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``Y = (X @ W^T) * sx[:, None] * sw[None, :]`` (int8 weights and activations with per-row and
    per-column f32 scales, the int32 accumulator converted to f32 in the epilogue), bf16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(bn, k), shape=(tn, tk))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.transpose(w), acc)
    rows = ct.reshape(ct.load(sx, index=(bm,), shape=(tm,)), (tm, 1))
    cols = ct.reshape(ct.load(sw, index=(bn,), shape=(tn,)), (1, tn))
    ct.store(Y, index=(bm, bn), tile=(acc.astype(ct.float32) * rows * cols).astype(Y.dtype))


@ct.kernel
def linear_w8a16(X, W, S, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Weight-only int8 ``nn.Linear``: f16 ``X [M, K]`` times an int8 weight ``W [N, K]`` converted to
    f16 in the K loop, the per-output-channel f32 scale ``S [N]`` after it; f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(bn, k), shape=(tn, tk)).astype(ct.float16)
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.transpose(w), acc)
    ct.store(Y, index=(bm, bn), tile=(acc * ct.load(S, index=(bn,), shape=(tn,))[None, :]).astype(Y.dtype))


@ct.kernel
def gemm_w8a16(A, W, S, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Weight-only int8 GEMM with the weight stored ``[K, N]`` (N-major B), as ``mm_weight_only_int8``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(k, bn), shape=(tk, tn)).astype(ct.float16)
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(C, index=(bm, bn), tile=(acc * ct.load(S, index=(bn,), shape=(tn,))[None, :]).astype(C.dtype))



@ct.kernel
def gemm_splitk_atomic(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int],
                       splits: ct.Constant[int]):
    """Split-K: program id 2 picks one of ``splits`` K ranges; the partial product is added into
    the f32 output with ``ct.atomic_add`` at the tile's element indices (C += A @ B)."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    k_tiles = ct.num_tiles(A, axis=1, shape=(tm, tk))
    per = ct.cdiv(k_tiles, splits)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s * per, min(s * per + per, k_tiles)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(C, (ct.reshape(rows, (tm, 1)), ct.reshape(cols, (1, tn))), acc)


@ct.kernel
def gemm_atomic_epilogue(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The whole K loop, the result accumulated into C with ``ct.atomic_add`` (C += A @ B)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(C, (ct.reshape(rows, (tm, 1)), ct.reshape(cols, (1, tn))), acc)


@ct.kernel
def gemm_persistent_atomic(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A persistent tile loop written in the program (tile counts from ``A.shape``/``B.shape``), each
    tile's result added into C with ``ct.atomic_add`` (C += A @ B)."""
    tiles_n = ct.cdiv(B.shape[1], tn)
    for t in range(ct.bid(0), ct.cdiv(A.shape[0], tm) * tiles_n, ct.num_blocks(0)):
        bm, bn = t // tiles_n, t % tiles_n
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
        rows = bm * tm + ct.arange(tm, dtype=ct.int32)
        cols = bn * tn + ct.arange(tn, dtype=ct.int32)
        ct.atomic_add(C, (ct.reshape(rows, (tm, 1)), ct.reshape(cols, (1, tn))), acc)


@ct.kernel
def bmm_batch_tile(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int],
                   tb: ct.Constant[int]):
    """Batched GEMM whose 3-D tiles hold ``tb`` matrices of the batch per program (program id 2)."""
    bm, bn, bb = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tb, tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(tb, tm, tk))):
        a = ct.load(A, index=(bb, bm, k), shape=(tb, tm, tk))
        b = ct.load(B, index=(bb, k, bn), shape=(tb, tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bb, bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_rowmax(A, B, C, P, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM and, beside it, each row's maximum over the tile's columns (``P[M, tiles_n]``,
    the partial row maxima a softmax or an amax scale starts from); B's padding is undetermined, so
    columns past N are not part of the maximum."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))
    ct.store(P, index=(bm, bn), tile=ct.reshape(ct.max(acc, axis=1), (tm, 1)))


@ct.kernel
def gemm_colsum(A, B, C, P, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM and each column's sum over the tile's rows (``P[tiles_m, N]``, partial column sums)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))
    ct.store(P, index=(bm, bn), tile=ct.reshape(ct.sum(acc, axis=0), (1, tn)))


@ct.kernel
def gemm_colmax(A, B, C, P, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM and each column's maximum over the tile's rows (``P[tiles_m, N]``); A's padding is
    undetermined, so rows past M are not part of the maximum."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))
    ct.store(P, index=(bm, bn), tile=ct.reshape(ct.max(acc, axis=0), (1, tn)))


@ct.kernel
def gemm_colmax_zero_pad(A, B, C, P, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """:func:`gemm_colmax` with A's padding zero: rows past M are rows of zeros of the tile, so a
    partial tile's column maximum is at least 0."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))
    ct.store(P, index=(bm, bn), tile=ct.reshape(ct.max(acc, axis=0), (1, tn)))


@ct.kernel
def gemm_bias_relu_two_outputs(A, B, bias, Z, Y, tm: ct.Constant[int], tn: ct.Constant[int],
                               tk: ct.Constant[int]):
    """Two outputs of the accumulator's shape: the pre-activation ``Z = A @ B + bias`` (f32, as a
    training forward keeps it) and ``Y = relu(Z)`` in the input type."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    z = acc + ct.reshape(ct.load(bias, index=(bn,), shape=(tn,)).astype(ct.float32), (1, tn))
    ct.store(Z, index=(bm, bn), tile=z)
    ct.store(Y, index=(bm, bn), tile=ct.maximum(z, 0.0).astype(Y.dtype))


@ct.kernel
def gemm_bias_relu_colsum(A, B, bias, C, P, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``relu(A @ B + bias)`` and its column sums over the tile's rows (``P[tiles_m, N]``): a
    reduction of an elementwise function of the accumulator, with a load in it."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    bv = ct.load(bias, index=(bn,), shape=(tn,)).astype(ct.float32)
    y = ct.maximum(acc + ct.reshape(bv, (1, tn)), 0.0)
    ct.store(C, index=(bm, bn), tile=y.astype(C.dtype))
    ct.store(P, index=(bm, bn), tile=ct.reshape(ct.sum(y, axis=0), (1, tn)))


@ct.kernel
def gemm_colmin_half(A, B, C, P, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM rounded to C's type and each column's minimum of the rounded tile, in that type
    (``P[tiles_m, N]``, f16): a reduction of the cast result."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    h = acc.astype(C.dtype)
    ct.store(C, index=(bm, bn), tile=h)
    ct.store(P, index=(bm, bn), tile=ct.reshape(ct.min(h, axis=0), (1, tn)))


@ct.kernel
def gemm_row_softmax(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The softmax of each row of the GEMM's tile (over the tile's columns: one tile spans N for class
    logits or attention scores): row reductions the stored value reads, one reading the other."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    p = ct.exp(acc - ct.max(acc, axis=1, keepdims=True))
    ct.store(C, index=(bm, bn), tile=(p / ct.sum(p, axis=1, keepdims=True)).astype(C.dtype))


@ct.kernel
def gemm_fp8_at(AT, W, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """fp8 with A stored transposed ``[K, M]`` (an M-major A, which fp8 WGMMA cannot read) and W
    ``[N, K]``; f16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(AT, axis=0, shape=(tk, tm))):
        a = ct.transpose(ct.load(AT, index=(k, bm), shape=(tk, tm)))
        acc = ct.mma(a, ct.transpose(ct.load(W, index=(bn, k), shape=(tn, tk))), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))

@dataclass(frozen=True)
class Program:
    """One zoo entry: ``make(m, n, k, dtype, gen)`` -> (kernel args before the tile constants,
    the output tensor, the fp32 reference, the library call as a thunk)."""

    kernel: Any
    dtype: str
    make: Callable
    tiles: tuple[int, int, int] = (128, 128, 64)
    library: str = ""
    batch: int = 1
    grid: tuple[int, int, int] | str | None = None
    """The launch grid when it is not the tile grid: a fixed grid (persistent programs),
    ``"linear"`` (one program per tile on a 1-D grid), ``"nm"`` (column tiles, row tiles) or ``"batch_first"`` (batch, row tiles,
    column tiles)."""
    bench: bool = True
    """In the default benchmark set (tile-shape variants of one computation are not)."""
    extra: tuple = ()
    """Constants after the tile sizes (split count, batch tile)."""
    dots: int = 1
    """Dots of ``m x n x k`` the program computes (dots sharing A: 2 or 3): the benchmark's flop count."""


def _t(dtype: str):
    import torch

    return {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2,
            "i8": torch.int8, "u8": torch.uint8, "i32": torch.int32}[dtype]


def _randn(shape, dtype, gen, scale=1.0):
    import torch

    return (torch.randn(*shape, device="cuda", generator=gen) * scale).to(_t(dtype))


def _nan(shape, dtype):
    import torch

    return torch.full(shape, float("nan"), device="cuda", dtype=_t(dtype))


def _make_gemm(m, n, k, dt, g):
    import torch

    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c = _nan((m, n), dt)
    return (a, b, c), c, a.float() @ b.float(), lambda: torch.matmul(a, b)


def _make_one_k_tile(m, n, k, dt, g, tk=64):
    """The reference of :func:`gemm_one_k_tile`: the product of the first ``tk`` columns of A and
    rows of B (K beyond them is not read)."""
    import torch

    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c = _nan((m, n), dt)
    return (a, b, c), c, a[:, :tk].float() @ b[:tk].float(), lambda: torch.matmul(a[:, :tk], b[:tk])


def _make_one_n_tile(m, n, k, dt, g, tn=128):
    """:func:`gemm_one_n_tile`'s problem: N = min(n, 128) - 8 (one partial column tile)."""
    import torch

    n = min(n, tn) - 8
    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c = _nan((m, n), dt)
    return (a, b, c), c, a.float() @ b.float(), lambda: torch.matmul(a, b)


def _make_softmax_rows(m, n, k, dt, g, tn=128):
    import torch

    n = min(n, tn) - 8
    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c = _nan((m, n), dt)
    return (a, b, c), c, torch.softmax(a.float() @ b.float(), dim=1), lambda: torch.softmax(torch.matmul(a, b), dim=1)


def _make_gemm_at(m, n, k, dt, g):
    import torch

    at, b = _randn((k, m), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c = _nan((m, n), dt)
    return (at, b, c), c, at.float().t() @ b.float(), lambda: torch.matmul(at.t(), b)


def _make_fp8_scaled(m, n, k, dt, g):
    import torch

    a, w = _randn((m, k), dt, g, 2.0), _randn((n, k), dt, g, 2.0)
    c = _nan((m, n), "bf16")
    sa, sb = 0.25, 0.5
    ref = (a.float() @ w.float().t()) * (sa * sb)
    ta, tb = torch.tensor(sa, device="cuda"), torch.tensor(sb, device="cuda")
    return (a, w, c, sa, sb), c, ref, lambda: torch._scaled_mm(a, w.t(), scale_a=ta, scale_b=tb,
                                                               out_dtype=torch.bfloat16)


def _make_linear_tf32(m, n, k, dt, g):
    import torch

    x, w = _randn((m, k), "f32", g, 0.5), _randn((n, k), "f32", g, 0.5)
    y = _nan((m, n), "f32")
    def library():  # what a user runs instead: F.linear with TF32 allowed (restored after)
        old = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            return torch.nn.functional.linear(x, w)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = old

    return (x, w, y), y, x @ w.t(), library


def _make_fp8_n_major_b(m, n, k, dt, g):
    import torch

    a, b = _randn((m, k), dt, g, 2.0), _randn((k, n), dt, g, 2.0)
    c = _nan((m, n), "f16")
    ref = a.float() @ b.float()
    one = torch.tensor(1.0, device="cuda")
    b_col = b.t().contiguous().t()  # _scaled_mm takes B column-major: converted once, outside the timing
    return (a, b, c), c, ref, lambda: torch._scaled_mm(a, b_col, scale_a=one, scale_b=one, out_dtype=torch.float16)


def _f32_gemm_case(m, n, k, g, tf32: bool):
    """f32 operands, the NaN-filled output, the reference and torch.matmul with TF32 on or off."""
    import torch

    a, b = _randn((m, k), "f32", g, 0.5), _randn((k, n), "f32", g, 0.5)
    c = _nan((m, n), "f32")

    def library():
        old = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        try:
            return torch.matmul(a, b)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = old

    return (a, b, c), c, a @ b if tf32 else (a.double() @ b.double()).float(), library


def _make_gemm_tf32(m, n, k, dt, g):
    return _f32_gemm_case(m, n, k, g, tf32=True)


def _make_gemm_f32(m, n, k, dt, g):
    """cuTile's f32 dot (no tf32 conversion): against torch.matmul in f32 (TF32 off)."""
    return _f32_gemm_case(m, n, k, g, tf32=False)


def _make_linear_f16(m, n, k, dt, g):
    import torch

    x, w = _randn((m, k), dt, g, 0.5), _randn((n, k), dt, g, 0.5)
    y = _nan((m, n), dt)
    return (x, w, y), y, x.float() @ w.float().t(), lambda: torch.nn.functional.linear(x, w)


def _make_bias_relu(m, n, k, dt, g):
    import torch

    a, b, bias = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5), _randn((n,), dt, g)
    c = _nan((m, n), dt)
    ref = torch.relu(a.float() @ b.float() + bias.float())
    return (a, b, bias, c), c, ref, lambda: torch.relu(torch.addmm(bias, a, b))


def _make_linear_gelu(m, n, k, dt, g):
    import torch

    x, w, bias = _randn((m, k), dt, g, 0.5), _randn((n, k), dt, g, 0.5), _randn((n,), dt, g)
    y = _nan((m, n), dt)
    ref = torch.nn.functional.gelu(x.float() @ w.float().t() + bias.float(), approximate="tanh")
    return (x, w, bias, y), y, ref, lambda: torch.nn.functional.gelu(
        torch.nn.functional.linear(x, w, bias), approximate="tanh")


def _make_swiglu(m, n, k, dt, g):
    import torch

    x, wg, wu = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.1), _randn((k, n), dt, g, 0.1)
    h = _nan((m, n), dt)
    ref = torch.nn.functional.silu(x.float() @ wg.float()) * (x.float() @ wu.float())
    return (x, wg, wu, h), h, ref, lambda: torch.nn.functional.silu(x @ wg) * (x @ wu)


def _make_gated_three(m, n, k, dt, g):
    import torch

    F = torch.nn.functional
    x = _randn((m, k), dt, g, 0.5)
    w1, w2, w3 = (_randn((k, n), dt, g, 0.1) for _ in range(3))
    h = _nan((m, n), dt)
    xf = x.float()
    ref = F.silu(xf @ w1.float()) * (xf @ w2.float()) + xf @ w3.float()
    return (x, w1, w2, w3, h), h, ref, lambda: F.silu(x @ w1) * (x @ w2) + x @ w3


def _make_swiglu_linear(m, n, k, dt, g):
    import torch

    F = torch.nn.functional
    x, wg, wu = _randn((m, k), dt, g, 0.5), _randn((n, k), dt, g, 0.1), _randn((n, k), dt, g, 0.1)
    h = _nan((m, n), dt)
    ref = F.silu(x.float() @ wg.float().t()) * (x.float() @ wu.float().t())
    return (x, wg, wu, h), h, ref, lambda: F.silu(F.linear(x, wg)) * F.linear(x, wu)


def _make_scale_residual(m, n, k, dt, g):
    import torch

    a, b, r = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5), _randn((m, n), dt, g)
    c = _nan((m, n), dt)
    alpha = 0.75
    ref = alpha * (a.float() @ b.float()) + r.float()
    return (a, b, r, c, alpha), c, ref, lambda: torch.addmm(r, a, b, alpha=alpha)


def _make_rowscale_sigmoid(m, n, k, dt, g):
    import torch

    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    s = torch.rand(m, device="cuda", generator=g) + 0.5
    c = _nan((m, n), "f32")
    ref = torch.sigmoid(s[:, None] * (a.float() @ b.float()))
    return (a, b, s, c), c, ref, lambda: torch.sigmoid(s[:, None] * torch.matmul(a, b))


def _make_bmm(m, n, k, dt, g, batch=4):
    import torch

    a, b = _randn((batch, m, k), dt, g, 0.5), _randn((batch, k, n), dt, g, 0.5)
    c = _nan((batch, m, n), dt)
    return (a, b, c), c, a.float() @ b.float(), lambda: torch.bmm(a, b)


def _make_bmm_heads(m, n, k, dt, g, batch=2, heads=4):
    import torch

    a, b = _randn((batch, heads, m, k), dt, g, 0.5), _randn((batch, heads, k, n), dt, g, 0.5)
    c = _nan((batch, heads, m, n), dt)
    return (a, b, c), c, a.float() @ b.float(), lambda: torch.matmul(a, b)


def _make_bmm_bias(m, n, k, dt, g, batch=4):
    import torch

    a, b, bias = _randn((batch, m, k), dt, g, 0.5), _randn((batch, k, n), dt, g, 0.5), _randn((n,), dt, g)
    c = _nan((batch, m, n), dt)
    return (a, b, bias, c), c, a.float() @ b.float() + bias.float(), lambda: torch.baddbmm(bias, a, b)


def _randint(shape, dtype, gen):
    """Uniform integers over the whole int8 / uint8 range."""
    import torch

    lo, hi = (-128, 128) if dtype == "i8" else (0, 256)
    return torch.randint(lo, hi, shape, device="cuda", generator=gen, dtype=torch.int32).to(_t(dtype))


def _int_reference(a, b):
    """``a @ b`` exactly, as int32: float64 holds every partial sum of 8-bit products exactly
    (|sum| <= 2^16 K < 2^53), and for K < 2^15 the result fits int32 (no wrap to model)."""
    import torch

    return (a.double() @ b.double()).to(torch.int32)


def _i32_nan_fill(shape):
    """An int32 output pre-filled with a sentinel (int32 has no NaN): -2^31, which no int8 x int8
    dot of K < 2^17 reaches, so an unwritten element shows."""
    import torch

    return torch.full(shape, -2**31, device="cuda", dtype=torch.int32)


def _make_linear_i8(m, n, k, dt, g):
    import torch

    x, w = _randint((m, k), "i8", g), _randint((n, k), "i8", g)
    y = _i32_nan_fill((m, n))
    return (x, w, y), y, _int_reference(x, w.t()), lambda: torch._int_mm(x, w.t())


def _make_gemm_i8(m, n, k, dt, g):
    import torch

    a, b = _randint((m, k), "i8", g), _randint((k, n), "i8", g)
    c = _i32_nan_fill((m, n))
    return (a, b, c), c, _int_reference(a, b), lambda: torch._int_mm(a, b)


def _make_gemm_u8_i8(m, n, k, dt, g):
    a, b = _randint((m, k), "u8", g), _randint((k, n), "i8", g)
    c = _i32_nan_fill((m, n))
    return (a, b, c), c, _int_reference(a, b), None


def _make_linear_i8_dequant(m, n, k, dt, g):
    import torch

    x, w = _randint((m, k), "i8", g), _randint((n, k), "i8", g)
    # scales that bring the int32 sums (~5e3 sqrt(K)) to O(1..100): the bf16 tolerance then tests them
    sx = torch.rand(m, device="cuda", generator=g) * 1e-2 + 5e-3
    sw = torch.rand(n, device="cuda", generator=g) * 1e-2 + 5e-3
    y = _nan((m, n), "bf16")
    ref = _int_reference(x, w.t()).double() * sx.double()[:, None] * sw.double()[None, :]

    def library():  # the int8 GEMM, then the dequantization as torch ops
        return (torch._int_mm(x, w.t()).float() * sx[:, None] * sw[None, :]).to(torch.bfloat16)

    return (x, w, y, sx, sw), y, ref.float(), library



def _make_w8a16(m, n, k, dt, g, k_major=True):
    """W8A16: f16 X, int8 W (``[N, K]`` when ``k_major``, else ``[K, N]``), per-column f32 scales; the
    fp32 reference and, as the library call, the f16 matmul of the dequantized weight (made once,
    outside the timing: the dense layer's speed)."""
    import torch

    x = _randn((m, k), "f16", g, 0.5)
    w = _randint((n, k) if k_major else (k, n), "i8", g)
    s = torch.rand(n, device="cuda", generator=g) * 1e-2 + 5e-3
    y = _nan((m, n), "f16")
    wt = w.t() if k_major else w  # [K, N]
    ref = (x.float() @ wt.float()) * s[None, :]
    wdq = (wt.float() * s[None, :]).to(torch.float16).contiguous()
    return (x, w, s, y), y, ref, lambda: torch.matmul(x, wdq)


def _make_accumulate(m, n, k, dt, g):
    """C (f32) starts at random values and receives A @ B by atomic adds: the reference is C0 + A @ B."""
    import torch

    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c = torch.randn(m, n, device="cuda", generator=g)
    ref = c.clone() + a.float() @ b.float()
    return (a, b, c), c, ref, lambda: torch.addmm(c, a.float(), b.float())


def _make_bmm8(m, n, k, dt, g):
    return _make_bmm(m, n, k, dt, g, batch=8)


def _make_rowmax(m, n, k, dt, g):
    import torch

    tn = 128
    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c = _nan((m, n), dt)
    tiles_n = math.ceil(n / tn)
    p = _nan((m, tiles_n), "f32")
    full = a.float() @ b.float()
    # columns past N are not part of the maximum (B's padding is undetermined)
    pad = torch.full((m, tiles_n * tn), float("-inf"), device="cuda")
    pad[:, :n] = full
    ref_p = pad.view(m, tiles_n, tn).amax(dim=2)
    return (a, b, c, p), (c, p), (full, ref_p), lambda: torch.matmul(a, b).amax(dim=1)


def _make_colsum(m, n, k, dt, g):
    import torch

    tm = 128
    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c = _nan((m, n), dt)
    tiles_m = math.ceil(m / tm)
    p = _nan((tiles_m, n), "f32")
    full = a.float() @ b.float()
    pad = torch.zeros((tiles_m * tm, n), device="cuda")
    pad[:m] = full
    return (a, b, c, p), (c, p), (full, pad.view(tiles_m, tm, n).sum(dim=1)), lambda: torch.matmul(a, b).sum(dim=0)


def _per_row_tile(x, tm: int, fill: float, reduce):
    """``reduce`` over each ``tm``-row tile of ``x`` (rows past the last full tile filled with ``fill``)."""
    import torch

    tiles = math.ceil(x.shape[0] / tm)
    pad = torch.full((tiles * tm, x.shape[1]), fill, device=x.device, dtype=x.dtype)
    pad[:x.shape[0]] = x
    return reduce(pad.view(tiles, tm, x.shape[1]))


def _make_colsum_f32_out(m, n, k, dt, g):
    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c, p = _nan((m, n), "f32"), _nan((math.ceil(m / 128), n), "f32")
    full = a.float() @ b.float()
    return (a, b, c, p), (c, p), (full, _per_row_tile(full, 128, 0.0, lambda t: t.sum(dim=1))), None


def _make_row_softmax(m, n, k, dt, g):
    import torch

    tn = 128
    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c = _nan((m, n), dt)
    tiles_n = math.ceil(n / tn)
    pad = torch.full((m, tiles_n * tn), float("-inf"), device="cuda")  # columns past N: not in the softmax
    pad[:, :n] = a.float() @ b.float()
    ref = torch.softmax(pad.view(m, tiles_n, tn), dim=2).view(m, tiles_n * tn)[:, :n]
    return (a, b, c), c, ref, None


def _make_colmax(m, n, k, dt, g):
    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c, p = _nan((m, n), dt), _nan((math.ceil(m / 128), n), "f32")
    full = a.float() @ b.float()
    ref_p = _per_row_tile(full, 128, float("-inf"), lambda t: t.amax(dim=1))
    return (a, b, c, p), (c, p), (full, ref_p), lambda: (a @ b).amax(dim=0)


def _make_colmax_zero_pad(m, n, k, dt, g):
    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c, p = _nan((m, n), dt), _nan((math.ceil(m / 128), n), "f32")
    full = a.float() @ b.float()
    ref_p = _per_row_tile(full, 128, 0.0, lambda t: t.amax(dim=1))
    return (a, b, c, p), (c, p), (full, ref_p), None


def _make_bias_relu_colsum(m, n, k, dt, g):
    import torch

    a, b, bias = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5), _randn((n,), dt, g)
    c, p = _nan((m, n), dt), _nan((math.ceil(m / 128), n), "f32")
    y = torch.relu(a.float() @ b.float() + bias.float())
    ref_p = _per_row_tile(y, 128, 0.0, lambda t: t.sum(dim=1))
    return (a, b, bias, c, p), (c, p), (y, ref_p), lambda: torch.relu(torch.addmm(bias, a, b)).sum(dim=0)


def _make_two_outputs(m, n, k, dt, g):
    import torch

    a, b, bias = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5), _randn((n,), dt, g)
    z, y = _nan((m, n), "f32"), _nan((m, n), dt)
    ref_z = a.float() @ b.float() + bias.float()
    return (a, b, bias, z, y), (z, y), (ref_z, torch.relu(ref_z)), lambda: torch.relu(torch.addmm(bias, a, b))


def _make_colmin_half(m, n, k, dt, g):
    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c, p = _nan((m, n), dt), _nan((math.ceil(m / 128), n), dt)
    full = a.float() @ b.float()
    ref_p = _per_row_tile(full.to(_t(dt)).float(), 128, float("inf"), lambda t: t.amin(dim=1))
    return (a, b, c, p), (c, p), (full, ref_p), lambda: (a @ b).amin(dim=0)


def _make_fp8_at(m, n, k, dt, g):
    import torch

    at, w = _randn((k, m), dt, g, 2.0), _randn((n, k), dt, g, 2.0)
    c = _nan((m, n), "f16")
    one = torch.tensor(1.0, device="cuda")
    a_row = at.t().contiguous()  # _scaled_mm takes A row-major: converted once, outside the timing
    return (at, w, c), c, at.float().t() @ w.float().t(), lambda: torch._scaled_mm(
        a_row, w.t(), scale_a=one, scale_b=one, out_dtype=torch.float16)


def _make_linear_e5m2(m, n, k, dt, g):
    import torch

    x, w = _randn((m, k), "e5m2", g, 2.0), _randn((n, k), "e5m2", g, 2.0)
    y = _nan((m, n), "bf16")
    ref = x.float() @ w.float().t()
    return (x, w, y, 1.0, 1.0), y, ref, None


PROGRAMS: dict[str, Program] = {
    "gemm_f16": Program(gemm, "f16", _make_gemm, library="torch.matmul"),
    "gemm_f16_tile64x128": Program(gemm, "f16", _make_gemm, tiles=(64, 128, 64), library="torch.matmul",
                                   bench=False),
    "gemm_f16_tile256x128_2cta": Program(gemm_2cta, "f16", _make_gemm, tiles=(256, 128, 64),
                                         library="torch.matmul", bench=False),
    "gemm_f16_tile128x32x32": Program(gemm, "f16", _make_gemm, tiles=(128, 32, 32), library="torch.matmul",
                                      bench=False),
    "gemm_grid_nm_f16": Program(gemm_grid_nm, "f16", _make_gemm, library="torch.matmul", grid="nm", bench=False),
    "gemm_one_k_tile_f16": Program(gemm_one_k_tile, "f16", _make_one_k_tile, library="torch.matmul (K = 64)",
                                   bench=False),
    "gemm_bias_relu_two_outputs_f16": Program(gemm_bias_relu_two_outputs, "f16", _make_two_outputs,
                                              library="torch.addmm + relu", bench=False),
    "gemm_bias_relu_two_outputs_bf16": Program(gemm_bias_relu_two_outputs, "bf16", _make_two_outputs,
                                               library="torch.addmm + relu", bench=False),
    "gemm_one_n_tile_f16": Program(gemm_one_n_tile, "f16", _make_one_n_tile, library="torch.matmul (N = 120)",
                                   bench=False),
    "gemm_softmax_rows_f16": Program(gemm_softmax_rows, "f16", _make_softmax_rows, library="matmul + softmax",
                                     bench=False),
    "gemm_cdiv_f16": Program(gemm_cdiv, "f16", _make_gemm, library="torch.matmul", bench=False),
    "gemm_plus_matmul_f16": Program(gemm_plus_matmul, "f16", _make_gemm, library="torch.matmul", bench=False),
    "gemm_linear_pid_f16": Program(gemm_linear_pid, "f16", _make_gemm, library="torch.matmul", bench=False,
                                   grid=None),
    "gemm_persistent_f16": Program(gemm_persistent, "f16", _make_gemm, library="torch.matmul", grid=(132, 1, 1)),
    "gemm_at_bf16": Program(gemm_at, "bf16", _make_gemm_at, library="torch.matmul(A^T)"),
    "gemm_fp8_e4m3_scaled": Program(gemm_fp8_scaled, "e4m3", _make_fp8_scaled, tiles=(128, 128, 128),
                                    library="torch._scaled_mm"),
    "linear_tf32": Program(linear_tf32, "tf32", _make_linear_tf32, tiles=(128, 128, 32), library="F.linear (tf32)"),
    "gemm_fp8_e4m3_n_major_b": Program(gemm, "e4m3", _make_fp8_n_major_b, tiles=(128, 128, 128),
                                       library="torch._scaled_mm (B transposed for it)"),
    "gemm_tf32_n_major_b": Program(gemm_tf32, "tf32", _make_gemm_tf32, tiles=(128, 128, 32), library="torch.matmul (tf32)"),
    "gemm_f32": Program(gemm, "f32", _make_gemm_f32, tiles=(128, 128, 32), library="torch.matmul (f32)"),
    "linear_view_order_f16": Program(linear_view_order, "f16", _make_linear_f16, library="F.linear", bench=False),
    "gemm_at_view_order_bf16": Program(gemm_at_view_order, "bf16", _make_gemm_at, library="torch.matmul(A^T)",
                                       bench=False),
    "gemm_bias_relu_f16": Program(gemm_bias_relu, "f16", _make_bias_relu, library="torch.addmm + relu"),
    "linear_gelu_bf16": Program(linear_gelu, "bf16", _make_linear_gelu, library="F.linear + gelu"),
    "gemm_scale_residual_bf16": Program(gemm_scale_residual, "bf16", _make_scale_residual,
                                        library="torch.addmm(alpha)"),
    "gemm_rowscale_sigmoid_f16_f32": Program(gemm_rowscale_sigmoid_f32, "f16", _make_rowscale_sigmoid,
                                             library="matmul * s + sigmoid"),
    "bmm_f16": Program(bmm, "f16", _make_bmm, library="torch.bmm", batch=4),
    "bmm_bias_bf16": Program(bmm_bias, "bf16", _make_bmm_bias, library="torch.baddbmm", batch=4),
    "gemm_grouped_f16": Program(gemm_grouped, "f16", _make_gemm, tiles=(128, 256, 64), library="torch.matmul",
                                grid="linear"),
    "gemm_grouped_tf32_32x32": Program(gemm_grouped, "tf32", _make_gemm_tf32, tiles=(32, 32, 32),
                                       library="torch.matmul (tf32)", grid="linear"),
    "gemm_persistent_grouped_f16": Program(gemm_persistent_grouped, "f16", _make_gemm, tiles=(128, 256, 64),
                                           library="torch.matmul", grid=(132, 1, 1)),
    "bmm_batch_first_f16": Program(bmm_batch_first, "f16", _make_bmm, library="torch.bmm", batch=4,
                                   grid="batch_first"),
    "bmm_heads_4d_f16": Program(bmm_heads_4d, "f16", _make_bmm_heads, library="torch.matmul (4-D)", batch=8,
                                extra=(4,)),
    "linear_i8_i32": Program(linear_i8, "i8", _make_linear_i8, tiles=(128, 128, 128), library="torch._int_mm"),
    "gemm_i8_n_major_b": Program(gemm_i8, "i8", _make_gemm_i8, tiles=(128, 128, 128),
                                 library="torch._int_mm (B row-major)"),
    "gemm_u8_i8_n_major_b": Program(gemm_i8, "u8", _make_gemm_u8_i8, tiles=(128, 128, 128), bench=False),
    "linear_i8_dequant_bf16": Program(linear_i8_dequant, "i8", _make_linear_i8_dequant, tiles=(128, 128, 128),
                                      library="torch._int_mm + scales"),
    "linear_w8a16_f16": Program(linear_w8a16, "f16", _make_w8a16, library="torch.matmul (dequantized f16 weight)"),
    "gemm_w8a16_f16": Program(gemm_w8a16, "f16", lambda m, n, k, dt, g: _make_w8a16(m, n, k, dt, g, False),
                              library="torch.matmul (dequantized f16 weight)"),
    "gemm_splitk_atomic_f16": Program(gemm_splitk_atomic, "f16", _make_accumulate, library="torch.addmm (f32)",
                                      grid="split", extra=(4,), bench=False),
    "gemm_atomic_epilogue_f16": Program(gemm_atomic_epilogue, "f16", _make_accumulate, library="torch.addmm (f32)",
                                        bench=False),
    "gemm_persistent_atomic_f16": Program(gemm_persistent_atomic, "f16", _make_accumulate,
                                          library="torch.addmm (f32)", grid=(132, 1, 1), bench=False),
    "bmm_batch_tile2_f16": Program(bmm_batch_tile, "f16", _make_bmm8, library="torch.bmm", batch=8, extra=(2,),
                                   bench=False),
    "gemm_rowmax_f16": Program(gemm_rowmax, "f16", _make_rowmax, library="matmul + amax", bench=False),
    "gemm_colsum_f16": Program(gemm_colsum, "f16", _make_colsum, library="matmul + sum(0)", bench=False),
    "gemm_colsum_f16_tile128x256": Program(gemm_colsum, "f16", _make_colsum, tiles=(128, 256, 64),
                                           library="matmul + sum(0)", bench=False),
    "gemm_colsum_f32_out": Program(gemm_colsum, "f16", _make_colsum_f32_out, bench=False),
    "gemm_row_softmax_f16": Program(gemm_row_softmax, "f16", _make_row_softmax, bench=False),
    "gemm_colmax_f16": Program(gemm_colmax, "f16", _make_colmax, library="matmul + amax(0)", bench=False),
    "gemm_colmax_zero_pad_f16": Program(gemm_colmax_zero_pad, "f16", _make_colmax_zero_pad, bench=False),
    "gemm_bias_relu_colsum_f16": Program(gemm_bias_relu_colsum, "f16", _make_bias_relu_colsum,
                                         library="addmm + relu + sum(0)", bench=False),
    "gemm_colmin_half_f16": Program(gemm_colmin_half, "f16", _make_colmin_half, library="matmul + amin(0)",
                                    bench=False),
    "gemm_fp8_e4m3_at": Program(gemm_fp8_at, "e4m3", _make_fp8_at, tiles=(128, 128, 128),
                                library="torch._scaled_mm (A made row-major for it)"),
    "linear_fp8_e5m2_scaled": Program(gemm_fp8_scaled, "e5m2", _make_linear_e5m2, tiles=(128, 128, 128),
                                      bench=False),
    "swiglu_f16": Program(swiglu, "f16", _make_swiglu, library="F.silu(x@wg)*(x@wu)", dots=2),
    "swiglu_bf16": Program(swiglu, "bf16", _make_swiglu, library="F.silu(x@wg)*(x@wu)", bench=False, dots=2),
    "gated_three_f16": Program(gated_three, "f16", _make_gated_three, tiles=(128, 64, 64),
                               library="F.silu(x@w1)*(x@w2)+x@w3", bench=False, dots=3),
    "swiglu_linear_bf16": Program(swiglu_linear, "bf16", _make_swiglu_linear,
                                  library="F.silu(F.linear(x, wg))*F.linear(x, wu)", dots=2),
    "gemm_f16_tile256x128": Program(gemm, "f16", _make_gemm, tiles=(256, 128, 64), library="torch.matmul",
                                    bench=False),
    "gemm_f16_tile64x64": Program(gemm, "f16", _make_gemm, tiles=(64, 64, 64), library="torch.matmul",
                                  bench=False),
}


KNOWN_REFUSED: dict[str, str] = {
    "gemm_f32": "cuTile's f32 dot is computed to f32 accuracy: 3xTF32 on the SIMT path's mma.sync (the WGMMA "
                "kernels multiply tf32; TILEORCH_F32_DOT=tf32 sends it there)",
}
"""Zoo programs the tensor-core path still refuses (with a located remark; the SIMT path runs them):
the CPU zoo test expects them to fail (strict xfail), so supporting one flips that test."""


def refill(out) -> None:
    """Pre-fill an output again before another compiler writes it: NaN, or for an int32 output
    the sentinel -2^31 (:func:`_i32_nan_fill`)."""
    import torch

    if isinstance(out, tuple):
        for x in out:
            refill(x)
        return
    out.fill_(-2**31 if out.dtype == torch.int32 else float("nan"))


def unwritten(out):
    """The elements still holding the pre-fill (NaN, or -2^31 in an int32 output)."""
    import torch

    if isinstance(out, tuple):
        return torch.cat([unwritten(x).flatten() for x in out])
    return out == -2**31 if out.dtype == torch.int32 else torch.isnan(out)


def build(name: str, m: int, n: int, k: int, seed: int = 0):
    """(kernel, args with the tile constants, grid, output, reference, library thunk); batched
    programs multiply ``PROGRAMS[name].batch`` matrices of ``m x n x k``."""
    import torch

    p = PROGRAMS[name]
    g = torch.Generator(device="cuda").manual_seed(seed)
    args, out, ref, lib = p.make(m, n, k, p.dtype, g)
    tm, tn, tk = p.tiles
    grid = p.grid or (math.ceil(m / tm), math.ceil(n / tn), p.batch)
    if p.grid == "split":  # the split-K programs: (row tiles, column tiles, splits)
        grid = (math.ceil(m / tm), math.ceil(n / tn), p.extra[0])
    elif p.kernel is gemm_linear_pid or p.grid == "linear":
        grid = (math.ceil(m / tm) * math.ceil(n / tn), 1, 1)
    elif p.grid == "nm":  # column tiles along axis 0
        grid = (math.ceil(n / tn), math.ceil(m / tm), 1)
    elif p.grid == "batch_first":
        grid = (p.batch, math.ceil(m / tm), math.ceil(n / tn))
    if p.kernel is bmm_batch_tile:  # tb matrices of the batch per program
        grid = (math.ceil(m / tm), math.ceil(n / tn), math.ceil(p.batch / p.extra[0]))
    return p.kernel, (*args, tm, tn, tk, *p.extra), grid, out, ref, lib


__all__ = ["KNOWN_REFUSED", "PROGRAMS", "Program", "build", "refill", "unwritten"]


# -- transposed stores of the accumulator: C^T = A @ B into a row-major [N, M] array ----------


@ct.kernel
def gemm_store_transposed(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = (A @ B)^T`` with C of shape [N, M]: the accumulator stored transposed at tile (bn, bm)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bn, bm), tile=ct.transpose(acc).astype(C.dtype))


@ct.kernel
def gemm_bias_relu_store_permuted(A, B, bias, C, tm: ct.Constant[int], tn: ct.Constant[int],
                                  tk: ct.Constant[int]):
    """``C = relu(A @ B + bias)^T`` (C [N, M]): the epilogue's bias, activation and cast, then a
    ``permute`` of the result stored at tile (bn, bm)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    bv = ct.load(bias, index=(bn,), shape=(tn,)).astype(ct.float32)
    y = ct.maximum(acc + ct.reshape(bv, (1, tn)), 0.0).astype(C.dtype)
    ct.store(C, index=(bn, bm), tile=ct.permute(y, (1, 0)))


def _make_store_transposed(m, n, k, dt, g):
    import torch

    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c = _nan((n, m), dt)
    return (a, b, c), c, (a.float() @ b.float()).t(), lambda: torch.matmul(a, b).t().contiguous()


def _make_bias_relu_permuted(m, n, k, dt, g):
    import torch

    a, b, bias = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5), _randn((n,), dt, g)
    c = _nan((n, m), dt)
    ref = torch.relu(a.float() @ b.float() + bias.float()).t()
    return (a, b, bias, c), c, ref, lambda: torch.relu(torch.addmm(bias, a, b)).t().contiguous()


def _make_gemm_c_column_major(m, n, k, dt, g):
    """The plain GEMM with C passed column-major: ``torch.empty(N, M).t()`` (a transposed view)."""
    import torch

    a, b = _randn((m, k), dt, g, 0.5), _randn((k, n), dt, g, 0.5)
    c = _nan((n, m), dt).t()
    return (a, b, c), c, a.float() @ b.float(), lambda: torch.matmul(b.t(), a.t()).t()


PROGRAMS.update({
    "gemm_store_transposed_f16": Program(gemm_store_transposed, "f16", _make_store_transposed,
                                         library="torch.matmul(...).t()", bench=False),
    "gemm_store_transposed_bf16": Program(gemm_store_transposed, "bf16", _make_store_transposed,
                                          library="torch.matmul(...).t()", bench=False),
    "gemm_bias_relu_store_permuted_f16": Program(gemm_bias_relu_store_permuted, "f16", _make_bias_relu_permuted,
                                                 library="torch.addmm + relu, transposed", bench=False),
    "gemm_bias_relu_store_permuted_bf16": Program(gemm_bias_relu_store_permuted, "bf16", _make_bias_relu_permuted,
                                                  library="torch.addmm + relu, transposed", bench=False),
    "gemm_c_column_major_f16": Program(gemm, "f16", _make_gemm_c_column_major, library="torch.matmul",
                                       bench=False),
    "gemm_c_column_major_bf16": Program(gemm, "bf16", _make_gemm_c_column_major, library="torch.matmul",
                                        bench=False),
})


# -- computed dot operands on the GEMM tier (session 17): a B with per-channel / per-group scales, a computed A --


def _make_w8a16_channel_scale(m, n, k, dt, g):
    """nn.Linear W8A16 with the per-output-channel f16 scale applied to the weight in the loop
    (``computed_b_programs.w8a16_channel_scale_nk``); reference: the f16-rounded dequantized weight in fp32."""
    import torch

    x = _randn((m, k), "f16", g, 0.5)
    w = _randint((n, k), "i8", g)
    s = (torch.rand(n, device="cuda", generator=g) * 1e-2 + 5e-3).half()
    y = _nan((m, n), "f16")
    wdq = (w.half() * s[:, None]).t().contiguous()  # [K, N], rounded as the program's f16 multiply
    return (x, w, s, y), y, x.float() @ wdq.float(), lambda: torch.matmul(x, wdq)


def _make_w8a16_group(m, n, k, dt, g, group=128):
    """Group-wise W8A16: int8 ``W [K, N]``, f32 scales ``S [ceil(K / group), N]`` loaded per K step."""
    import torch

    a = _randn((m, k), "f16", g, 0.5)
    w = _randint((k, n), "i8", g)
    s = torch.rand((k + group - 1) // group, n, device="cuda", generator=g) * 1e-2 + 5e-3
    c = _nan((m, n), "f32")
    wdq = (w.float() * s.repeat_interleave(group, 0)[:k]).half()
    return (a, w, s, c), c, a.float() @ wdq.float(), lambda: torch.matmul(a, wdq)


def _make_relu_a(m, n, k, dt, g):
    import torch

    a, b = _randn((m, k), "f16", g), _randn((k, n), "f16", g, 0.5)
    c = _nan((m, n), "f32")
    return (a, b, c), c, torch.relu(a.float()) @ b.float(), lambda: torch.matmul(torch.relu(a), b)


def _make_a8_dequant(m, n, k, dt, g):
    import torch

    a, b = _randint((m, k), "i8", g), _randn((k, n), "f16", g, 0.5)
    c = _nan((m, n), "f32")
    adq = (a.float() * 0.02).half()
    return (a, b, c, 0.02), c, adq.float() @ b.float(), lambda: torch.matmul((a.half() * 0.02), b)


def _make_a_times_gamma(m, n, k, dt, g):
    import torch

    a, b = _randn((m, k), "f16", g), _randn((k, n), "f16", g, 0.5)
    gamma = (torch.rand(k, device="cuda", generator=g) + 0.5).half()
    c = _nan((m, n), "f32")
    return (a, gamma, b, c), c, (a * gamma[None, :]).float() @ b.float(), lambda: torch.matmul(a * gamma, b)


def _computed_operand_programs() -> dict:
    from tileorch.testing import computed_b_programs as cbp

    dq = "torch.matmul (dequantized f16 weight, made outside the timing)"
    return {
        "linear_w8a16_channel_scale_f16": Program(cbp.w8a16_channel_scale_nk, "f16", _make_w8a16_channel_scale,
                                                  library=dq),
        "gemm_w8a16_group128_f16": Program(cbp.w8a16_group_scale, "f16", _make_w8a16_group, extra=(128,),
                                           library=dq),
        "relu_a_gemm_f16": Program(cbp.relu_a, "f16", _make_relu_a, library="torch.relu + torch.matmul"),
        "a8_dequant_gemm_f16": Program(cbp.a8_dequant, "f16", _make_a8_dequant,
                                       library="int8 -> f16 * scale + torch.matmul"),
        "rmsnorm_gamma_gemm_f16": Program(cbp.a_times_gamma, "f16", _make_a_times_gamma,
                                          library="a * gamma + torch.matmul"),
    }


PROGRAMS.update(_computed_operand_programs())
