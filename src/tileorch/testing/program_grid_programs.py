"""Program-grid GEMMs (issue 18) shared by the CPU emulator tests (tests/unit/test_program_grid_gemm.py)
and the H200 tests (tests/gpu/test_program_grid_gpu.py): tile coordinates that are expressions of
program ids and grid sizes, the GEMM under a condition on them.  Importing it needs ``cuda.tile``."""

from __future__ import annotations

import cuda.tile as ct
import numpy as np

ZERO = ct.PaddingMode.ZERO


@ct.kernel
def pg_rotated_if(A, B, C, rows_used: int, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """C tile (i, j) = A row tile (i + 1) % gx @ B column tile gy - 1 - j, for i * tm < rows_used."""
    i, j = ct.bid(0), ct.bid(1)
    ra = (i + 1) % ct.num_blocks(0)
    cb = ct.num_blocks(1) - 1 - j
    if i * tm < rows_used:
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(ra, k), shape=(tm, tk), padding_mode=ZERO),
                         ct.load(B, index=(k, cb), shape=(tk, tn), padding_mode=ZERO), acc)
        ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def pg_rotated_return_bias_relu(A, B, bias, C, rows_used: int, tm: ct.Constant[int], tn: ct.Constant[int],
                                tk: ct.Constant[int]):
    """:func:`pg_rotated_if` with an early return and ``relu(acc + bias[column tile cb])`` stored."""
    i, j = ct.bid(0), ct.bid(1)
    if i * tm >= rows_used:
        return
    ra = (i + 1) % ct.num_blocks(0)
    cb = ct.num_blocks(1) - 1 - j
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(ra, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, cb), shape=(tk, tn), padding_mode=ZERO), acc)
    b = ct.load(bias, index=(cb,), shape=(tn,), padding_mode=ZERO).astype(ct.float32)
    ct.store(C, index=(i, j), tile=ct.maximum(acc + b[None, :], 0.0).astype(C.dtype))


def rotated_reference(a, b, rows_used, grid, tm, tn, bias=None):
    """The rotated programs' C (``pg_rotated_*``; numpy float64): tile (i, j) = A's row tile
    (i + 1) % gx @ B's column tile gy - 1 - j (+ the bias of that column tile, then relu, with
    ``bias``) where i * tm < rows_used; NaN elsewhere."""
    m, n = a.shape[0], b.shape[1]
    ap = np.zeros((grid[0] * tm, a.shape[1]))
    ap[:m] = a
    bp = np.zeros((b.shape[0], grid[1] * tn))
    bp[:, :n] = b
    vp = np.zeros(grid[1] * tn)
    if bias is not None:
        vp[:n] = bias
    ref = np.full((grid[0] * tm, grid[1] * tn), np.nan)
    for i in range(grid[0]):
        if i * tm >= rows_used:
            continue
        ra = (i + 1) % grid[0]
        for j in range(grid[1]):
            cb = grid[1] - 1 - j
            t = ap[ra * tm:(ra + 1) * tm] @ bp[:, cb * tn:(cb + 1) * tn]
            if bias is not None:
                t = np.maximum(t + vp[None, cb * tn:(cb + 1) * tn], 0.0)
            ref[i * tm:(i + 1) * tm, j * tn:(j + 1) * tn] = t
    return ref[:m, :n]
