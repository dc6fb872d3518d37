"""cuTile GEMM programs whose A or B is one matrix of a larger array argument, picked at leading
indices (:mod:`tileorch.transforms.tileas.operand_views`): by a runtime scalar, by two of them, by
a constant, or by a value the kernel computes (still refused: the launcher does not evaluate
kernel arithmetic).  Driven by tests/unit/test_operand_views.py (CPU) and
tests/gpu/test_operand_views_gpu.py (the H200 against torch).  Importing it needs ``cuda.tile``."""

from __future__ import annotations

import cuda.tile as ct

C = ct.Constant


@ct.kernel
def mm_expert_a_by_scalar(X, W, Y, e: int, tm: C[int], tn: C[int], tk: C[int]):
    """``Y = X[e] @ W``: A one matrix of a 3-D ``[E, M, K]`` array picked by the scalar ``e``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(W, axis=0, shape=(tk, tn))):
        x = ct.load(X, index=(e, bm, k), shape=(1, tm, tk)).reshape((tm, tk))
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def mm_weight_4d_two_scalars(X, W, Y, g: int, e: int, tm: C[int], tn: C[int], tk: C[int]):
    """``Y = X @ W[g, e]`` of a 4-D ``[G, E, K, N]`` weight (a layer ``g`` and an expert ``e``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(g, e, k, bn), shape=(1, 1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def mm_weight_constant_matrix(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``Y = X @ W[1]``: B a matrix of a 3-D weight at a constant index."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(1, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def mm_weight_computed_index(X, W, Y, e: int, tm: C[int], tn: C[int], tk: C[int]):
    """``Y = X @ W[(e + 1) % E]``: the matrix index computed in the kernel (refused: located)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=((e + 1) % W.shape[0], k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def mm_weight_index_from_memory(X, W, Ids, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``Y = X @ W[Ids[0]]``: the matrix index read from device memory (refused: located)."""
    bm, bn = ct.bid(0), ct.bid(1)
    e = ct.load(Ids, index=(0,), shape=(1,)).item()
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(e, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


SPECS = {
    # (spec, grid): ragged M / N / K where the program allows
    "mm_expert_a_by_scalar": ([((3, 200, 136), "float16"), ((136, 72), "float16"), ((200, 72), "float32"), 2,
                               128, 64, 64], (2, 2)),
    "mm_weight_4d_two_scalars": ([((200, 136), "float16"), ((2, 3, 136, 72), "float16"), ((200, 72), "float32"),
                                  1, 2, 128, 64, 64], (2, 2)),
    "mm_weight_constant_matrix": ([((256, 128), "float16"), ((2, 128, 128), "float16"), ((256, 128), "float32"),
                                   128, 64, 64], (2, 2)),
    "mm_weight_computed_index": ([((256, 128), "float16"), ((3, 128, 128), "float16"), ((256, 128), "float32"),
                                  1, 128, 64, 64], (2, 2)),
    "mm_weight_index_from_memory": ([((256, 128), "float16"), ((3, 128, 128), "float16"), ((1,), "int32"),
                                     ((256, 128), "float32"), 128, 64, 64], (2, 2)),
}
KERNELS = {"mm_expert_a_by_scalar": mm_expert_a_by_scalar, "mm_weight_4d_two_scalars": mm_weight_4d_two_scalars,
           "mm_weight_constant_matrix": mm_weight_constant_matrix, "mm_weight_computed_index": mm_weight_computed_index,
           "mm_weight_index_from_memory": mm_weight_index_from_memory}
