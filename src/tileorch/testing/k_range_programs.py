"""GEMM programs whose K loop is not ``range(num K tiles)`` (issue 18, ``tileas/k_range.py``):
runtime ``range(start, stop, step)``, an affine K tile index, a K window starting at a program id,
a constant range from tile 0 and split-K with an atomic-add epilogue.  Used by
tests/unit/test_k_range_gemm.py (the PTX emulator) and tests/gpu/test_k_range_gpu.py (the H200).
Importing it needs ``cuda.tile``."""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs2 import gemm_split_k

ZERO = ct.PaddingMode.ZERO


@ct.kernel
def mm_range(A, B, C, start: int, stop: int, step: int, tm: ct.Constant[int], tn: ct.Constant[int],
             tk: ct.Constant[int]):
    """``range(start, stop, step)`` of runtime arguments, the iv as the K tile index."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(start, stop, step):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def mm_odd_tiles(A, B, C, n: int, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The odd K tiles: ``range(n)`` with the tile index ``k * 2 + 1``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(n):
        acc = ct.mma(ct.load(A, index=(bm, k * 2 + 1), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k * 2 + 1, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def mm_window_from_bid(A, B, C, width: int, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A K window that starts at the row tile (``range(bm, bm + width)``), the tile ``k - bm + 1``
    of A and ``k - bm + 1`` of B: the start is a program id, the index subtracts it again."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(bm, bm + width):
        acc = ct.mma(ct.load(A, index=(bm, k - bm + 1), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k - bm + 1, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def mm_first_tiles(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A constant range from tile 0: ``range(2)`` reads K elements 0 .. 2 * tk - 1."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(2):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(C, index=(bm, bn), tile=acc)


mm_split_k = gemm_split_k
"""Split-K (program ``bid(2)`` sums every ``splits``-th K tile into C with ``ct.atomic_add``): the
user sweep's program, launched here with the WGMMA kernel's 128x64x64 tiles."""


@ct.function
def add_tile_atomically(C, pid_m, pid_n, acc, tm: ct.Constant[int], tn: ct.Constant[int]):
    """``ct.atomic_add`` of the ``tm x tn`` tile ``acc`` into C at tile (``pid_m``, ``pid_n``) (2-D
    index tiles): the split-K programs' partial sums."""
    rows = pid_m * tm + ct.arange(tm, dtype=ct.int32)[:, None]
    cols = pid_n * tn + ct.arange(tn, dtype=ct.int32)[None, :]
    ct.atomic_add(C, (rows, cols), acc)


@ct.kernel
def mm_split_k_linear(A, W, C, splits: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                      tk: ct.Constant[int]):
    """Split-K of ``A @ W^T`` with W stored ``[N, K]`` (a K-major B), atomic adds into C: with K tiles
    of 32 or 16 16-bit elements both operands' K rows are 64 or 32 bytes (their swizzle)."""
    pid_m, pid_n, s = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s, ct.num_tiles(A, axis=1, shape=(tm, tk)), splits):
        w = ct.load(W, index=(pid_n, k), shape=(tn, tk))
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.transpose(w), acc)
    add_tile_atomically(C, pid_m, pid_n, acc, tm, tn)


@ct.kernel
def mm_split_k_at(At, B, C, splits: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                  tk: ct.Constant[int]):
    """Split-K of ``At^T @ B`` with A stored ``[K, M]`` (an M-major A), atomic adds into C."""
    pid_m, pid_n, s = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s, ct.num_tiles(At, axis=0, shape=(tk, tm)), splits):
        at = ct.load(At, index=(k, pid_m), shape=(tk, tm))
        acc = ct.mma(ct.transpose(at), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    add_tile_atomically(C, pid_m, pid_n, acc, tm, tn)
