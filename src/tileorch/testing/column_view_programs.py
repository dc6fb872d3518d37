"""cuTile GEMM programs as users write them for a fused projection's output and for an MoE expert's
gate/up pair: C stored into a column slice of a wider output (``Out[:, off:off + N]``: by a tile
offset in the store's index, by ``Array.slice`` of the output, or by the caller passing a column
slice of a torch tensor), and several dots sharing A whose operands are views (``X @ W1[e]`` beside
``X @ W3[e]``; ``X[e]`` shared by two weights).  Driven by tests/unit/test_column_views.py (CPU) and
tests/gpu/test_column_views_gpu.py (the H200 against torch).  Importing it needs ``cuda.tile``."""

from __future__ import annotations

import cuda.tile as ct

C = ct.Constant


@ct.kernel
def mm_plain(A, B, Out, tm: C[int], tn: C[int], tk: C[int]):
    """``Out = A @ B``; launched with ``Out`` a column slice ``Y[:, off:off + N]`` of a wider torch tensor
    (the caller's view: row stride ``Y.shape[1]``, not N)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Out, index=(bm, bn), tile=acc.astype(Out.dtype))


@ct.kernel
def mm_into_column_slice(A, B, Out, col0: int, tm: C[int], tn: C[int], tk: C[int]):
    """The product written into columns ``col0 .. col0 + N`` of a wider ``Out`` (``col0`` a runtime scalar):
    ``Out.slice(axis=1, ...)`` as the store's array."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    dst = Out.slice(axis=1, start=col0, stop=col0 + B.shape[1])
    ct.store(dst, index=(bm, bn), tile=acc.astype(Out.dtype))


@ct.kernel
def mm_into_column_tiles(A, B, Out, col_tile: int, tm: C[int], tn: C[int], tk: C[int]):
    """A QKV projection's part: ``Out[:, col_tile * tn + (0 .. N)] = A @ B`` (the store's column tile index
    offset by a runtime scalar)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Out, index=(bm, bn + col_tile), tile=acc.astype(Out.dtype))


@ct.kernel
def moe_gate_up_expert(X, W1, W3, H, e: int, tm: C[int], tn: C[int], tk: C[int]):
    """An MoE expert's gated MLP ``H = silu(X @ W1[e]) * (X @ W3[e])``: two dots sharing A, each B one
    matrix of a 3-D ``[E, K, N]`` weight picked by the scalar ``e``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc_g = ct.zeros((tm, tn), dtype=ct.float32)
    acc_u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk))
        wg = ct.load(W1, index=(e, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        wu = ct.load(W3, index=(e, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc_g = ct.mma(x, wg, acc_g)
        acc_u = ct.mma(x, wu, acc_u)
    h = acc_g / (1.0 + ct.exp(-acc_g)) * acc_u
    ct.store(H, index=(bm, bn), tile=h.astype(H.dtype))


@ct.kernel
def gate_up_viewed_a(X, Wg, Wu, H, e: int, tm: C[int], tn: C[int], tk: C[int]):
    """``H = silu(X[e] @ Wg) * (X[e] @ Wu)``: A one matrix of a 3-D ``[E, M, K]`` array picked by ``e``,
    shared by two dots."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc_g = ct.zeros((tm, tn), dtype=ct.float32)
    acc_u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(Wg, axis=0, shape=(tk, tn))):
        x = ct.load(X, index=(e, bm, k), shape=(1, tm, tk)).reshape((tm, tk))
        acc_g = ct.mma(x, ct.load(Wg, index=(k, bn), shape=(tk, tn)), acc_g)
        acc_u = ct.mma(x, ct.load(Wu, index=(k, bn), shape=(tk, tn)), acc_u)
    h = acc_g / (1.0 + ct.exp(-acc_g)) * acc_u
    ct.store(H, index=(bm, bn), tile=h.astype(H.dtype))


@ct.kernel
def moe_gate_up_into_column_slice(X, W1, W3, Out, e: int, col0: int, tm: C[int], tn: C[int], tk: C[int]):
    """Both at once: the expert's gated MLP written into columns ``col0 .. col0 + N`` of a wider output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc_g = ct.zeros((tm, tn), dtype=ct.float32)
    acc_u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk))
        acc_g = ct.mma(x, ct.load(W1, index=(e, k, bn), shape=(1, tk, tn)).reshape((tk, tn)), acc_g)
        acc_u = ct.mma(x, ct.load(W3, index=(e, k, bn), shape=(1, tk, tn)).reshape((tk, tn)), acc_u)
    h = acc_g / (1.0 + ct.exp(-acc_g)) * acc_u
    dst = Out.slice(axis=1, start=col0, stop=col0 + W1.shape[2])
    ct.store(dst, index=(bm, bn), tile=h.astype(Out.dtype))


@ct.kernel
def mm_into_row_slice(A, B, Out, row0: int, tm: C[int], tn: C[int], tk: C[int]):
    """The product written into rows ``row0 .. row0 + M`` of a taller ``Out`` (a slice along axis 0:
    still refused, located)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    dst = Out.slice(axis=0, start=row0, stop=row0 + A.shape[0])
    ct.store(dst, index=(bm, bn), tile=acc.astype(Out.dtype))


SPECS = {
    # (spec, grid): ragged M / N / K where the program allows; Out wider than N
    "mm_plain": ([((200, 136), "float16"), ((136, 72), "float16"), ((200, 72), "float32"), 128, 64, 64], (2, 2)),
    "mm_into_column_slice": ([((200, 136), "float16"), ((136, 72), "float16"), ((200, 264), "float32"), 96,
                              128, 64, 64], (2, 2)),
    "mm_into_column_tiles": ([((200, 136), "float16"), ((136, 128), "float16"), ((200, 384), "float32"), 2,
                              128, 64, 64], (2, 2)),
    "moe_gate_up_expert": ([((200, 136), "float16"), ((3, 136, 72), "float16"), ((3, 136, 72), "float16"),
                            ((200, 72), "float32"), 2, 128, 64, 64], (2, 2)),
    "gate_up_viewed_a": ([((3, 200, 136), "float16"), ((136, 72), "float16"), ((136, 72), "float16"),
                          ((200, 72), "float32"), 1, 128, 64, 64], (2, 2)),
    "moe_gate_up_into_column_slice": ([((200, 136), "float16"), ((3, 136, 72), "float16"),
                                       ((3, 136, 72), "float16"), ((200, 264), "float32"), 2, 96, 128, 64, 64],
                                      (2, 2)),
    "mm_into_row_slice": ([((200, 136), "float16"), ((136, 72), "float16"), ((400, 72), "float32"), 96,
                           128, 64, 64], (2, 2)),
}
KERNELS = {name: globals()[name] for name in SPECS}
