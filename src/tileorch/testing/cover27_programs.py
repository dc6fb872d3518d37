"""Session 27's cover set (the principal issue: every dot program on tensor cores): the two dot-program
shapes session 26 located as still refused, written the ways users write them.

Dots with different A operands in one K loop: a GEMM over a concatenated K written as two operand pairs
(``acc = ct.mma(x2, w2, ct.mma(x1, w1, acc))``, nn.Linear's transposed weights, bf16), the same as a sum of
products (``acc += x @ w1 + z @ w2``), a dual-input layer with two accumulators combined in the epilogue
(``silu(x @ wg) * (z @ wu)``) over a batch grid dimension, three operand pairs.  The TileAS tier's WGMMA
kernel holds an A tile per dot in every stage (``GemmConfig.a_operands``: one TMA per operand tile on the
stage's full barrier, one WGMMA batch per pair, into one accumulator or one each).

Two K loops one after the other: over the same K tiles (the same bound value), two independent accumulators
combined in the epilogue or the second loop continuing the first's accumulator: ``tileas-fuse-split-loops`` makes
them one loop (:mod:`tileorch.transforms.tileas.same_range_loops`) and the kernel is the one above; each loop
bounded by its own operand's K (``cdiv(X1.shape[1], tk)``, ``cdiv(X2.shape[1], tk)``, K1 = 128 and K2 = 200 in
``two_k_lengths_difference_bt``): K segments of one pipeline (pair 0's K tiles, then pair 1's:
``GemmConfig.k_segments``).  Still refused, with the located reason at the second loop: loops over ranges that
are not the same function of the operands' extents (a scalar trip count per loop).  A second loop that reads the
first's result over the output's column tiles (``two_k_loops_second_reads_first``) was refused until session 29,
its refusal naming the rewrite (the second loop's index as the grid's axis 1: ``second_loop_as_column_tiles``);
``tileas-column-loop-to-tiles`` now makes that rewrite itself.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` ("gemm" = TMA + WGMMA,
"simt" with ``error`` = the located remark saying why not), driven by tests/unit/test_cover27_compile.py (path,
remark, ptxas without spills, ``tileorch check``), tests/unit/test_cover27_emulated.py (the PTX emulator
against numpy, NaN-prefilled outputs, ragged shapes) and tests/gpu/test_cover27_gpu.py (the GPU against torch
fp32).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
C = ct.Constant
ZERO = ct.PaddingMode.ZERO
F16, BF16, F32 = "float16", "bfloat16", "float32"


def _a(shape, dt=F16):
    return (tuple(shape), dt)


# ----------------------------------------------------------------------------------------------- an A per dot


@ct.kernel
def concat_k_linear_bt(X1, W1, X2, W2, Bias, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``y = x1 @ W1^T + x2 @ W2^T + bias`` over one K (nn.Linear's ``[N, K]`` weights, a GEMM over a
    concatenated K written as two operand pairs), one accumulator: ``acc = mma(x2, w2^T, mma(x1, w1^T, acc))``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X1.shape[1], tk)):
        w1 = ct.load(W1, index=(bn, k), shape=(tn, tk), padding_mode=ZERO)
        w2 = ct.load(W2, index=(bn, k), shape=(tn, tk), padding_mode=ZERO)
        acc = ct.mma(ct.load(X1, index=(bm, k), shape=(tm, tk), padding_mode=ZERO), ct.transpose(w1), acc)
        acc = ct.mma(ct.load(X2, index=(bm, k), shape=(tm, tk), padding_mode=ZERO), ct.transpose(w2), acc)
    b = ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(bm, bn), tile=(acc + b[None, :]).astype(Y.dtype))


@ct.kernel
def summed_products_relu(X, W1, Z, W2, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``acc += x @ w1 + z @ w2`` written with the operator, then ``relu`` (two products summed each K step)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        z = ct.load(Z, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        w1 = ct.load(W1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        w2 = ct.load(W2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = acc + (x @ w1 + z @ w2)
    ct.store(Y, index=(bm, bn), tile=ct.maximum(acc, 0.0).astype(Y.dtype))


@ct.kernel
def dual_input_gated_batched(X, Wg, Z, Wu, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A dual-input gated layer over a batch grid dimension: ``silu(x[b] @ wg[b]) * (z[b] @ wu[b])``, two
    accumulators combined in the epilogue (``[L, M, K]`` operands at program id 2)."""
    bm, bn, bl = ct.bid(0), ct.bid(1), ct.bid(2)
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], tk)):
        x = ct.load(X, index=(bl, bm, k), shape=(1, tm, tk), padding_mode=ZERO).reshape((tm, tk))
        z = ct.load(Z, index=(bl, bm, k), shape=(1, tm, tk), padding_mode=ZERO).reshape((tm, tk))
        wg = ct.load(Wg, index=(bl, k, bn), shape=(1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
        wu = ct.load(Wu, index=(bl, k, bn), shape=(1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
        g = ct.mma(x, wg, g)
        u = ct.mma(z, wu, u)
    y = g / (1.0 + ct.exp(-g)) * u
    ct.store(Y, index=(bl, bm, bn), tile=y.astype(Y.dtype).reshape((1, tm, tn)))


@ct.kernel
def three_operand_pairs(X1, W1, X2, W2, X3, W3, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Three operand pairs into one accumulator (``x1 @ w1 + x2 @ w2 + x3 @ w3``: three inputs of one layer)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X1.shape[1], tk)):
        acc = ct.mma(ct.load(X1, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
        acc = ct.mma(ct.load(X2, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
        acc = ct.mma(ct.load(X3, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W3, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- K loops in sequence


@ct.kernel
def two_k_loops_two_accumulators(X, W1, Z, W2, Y, alpha: float, tm: C[int], tn: C[int], tk: C[int]):
    """Two K loops one after the other over the same K tiles, each its own accumulator, combined in the
    epilogue: ``y = alpha * (x @ w1) + z @ w2``."""
    bm, bn = ct.bid(0), ct.bid(1)
    nk = ct.cdiv(X.shape[1], tk)
    acc1 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(nk):
        acc1 = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                      ct.load(W1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc1)
    acc2 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(nk):
        acc2 = ct.mma(ct.load(Z, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                      ct.load(W2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc2)
    ct.store(Y, index=(bm, bn), tile=(alpha * acc1 + acc2).astype(Y.dtype))


@ct.kernel
def two_k_loops_continued_bt(X1, W1, X2, W2, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``y = x1 @ W1^T + x2 @ W2^T`` as two K loops over the same K tiles, the second continuing the first's
    accumulator (bf16, nn.Linear's ``[N, K]`` weights)."""
    bm, bn = ct.bid(0), ct.bid(1)
    nk = ct.cdiv(X1.shape[1], tk)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(nk):
        w = ct.load(W1, index=(bn, k), shape=(tn, tk), padding_mode=ZERO)
        acc = ct.mma(ct.load(X1, index=(bm, k), shape=(tm, tk), padding_mode=ZERO), ct.transpose(w), acc)
    for k in range(nk):
        w = ct.load(W2, index=(bn, k), shape=(tn, tk), padding_mode=ZERO)
        acc = ct.mma(ct.load(X2, index=(bm, k), shape=(tm, tk), padding_mode=ZERO), ct.transpose(w), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def two_k_loops_own_bounds(X1, W1, X2, W2, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``y = x1 @ w1 + x2 @ w2`` as two K loops, each bounded by its own A's K (``cdiv(X1.shape[1], tk)``, then
    ``cdiv(X2.shape[1], tk)``): one K at the spec's shapes."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X1.shape[1], tk)):
        acc = ct.mma(ct.load(X1, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    for k in range(ct.cdiv(X2.shape[1], tk)):
        acc = ct.mma(ct.load(X2, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def two_k_lengths_difference_bt(X1, W1, X2, W2, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Two K loops of two K lengths (K1 = 128, K2 = 200), nn.Linear's ``[N, K]`` weights, bf16, their accumulators
    combined in the epilogue: ``y = x1 @ W1^T - x2 @ W2^T``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc1 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X1.shape[1], tk)):
        w = ct.load(W1, index=(bn, k), shape=(tn, tk), padding_mode=ZERO)
        acc1 = ct.mma(ct.load(X1, index=(bm, k), shape=(tm, tk), padding_mode=ZERO), ct.transpose(w), acc1)
    acc2 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X2.shape[1], tk)):
        w = ct.load(W2, index=(bn, k), shape=(tn, tk), padding_mode=ZERO)
        acc2 = ct.mma(ct.load(X2, index=(bm, k), shape=(tm, tk), padding_mode=ZERO), ct.transpose(w), acc2)
    ct.store(Y, index=(bm, bn), tile=(acc1 - acc2).astype(Y.dtype))


@ct.kernel
def two_k_loops_scalar_trip_counts(X1, W1, X2, W2, Y, n1: int, n2: int, tm: C[int], tn: C[int], tk: C[int]):
    """``y = x1 @ w1 + x2 @ w2`` as two K loops whose trip counts are scalar arguments (``range(n1)``, ``range(n2)``:
    two K lengths the program does not tie to its operands)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(n1):
        acc = ct.mma(ct.load(X1, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    for k in range(n2):
        acc = ct.mma(ct.load(X2, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def two_k_loops_second_reads_first(X, W1, W2, Y, tm: C[int], tk: C[int]):
    """The second K loop reads the first's result: ``h = relu(x @ w1)`` over K, then ``y = h @ w2`` over the
    hidden tiles ``w2[j]`` (``acc2 += h[:, j] @ w2[j]`` needs all of ``h``'s K steps first)."""
    bm = ct.bid(0)
    h = ct.zeros((tm, tk), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                   ct.load(W1, index=(k, 0), shape=(tk, tk), padding_mode=ZERO), h)
    a = ct.maximum(h, 0.0).astype(ct.float16)
    acc = ct.zeros((tm, tk), dtype=ct.float32)
    for j in range(ct.cdiv(W2.shape[1], tk)):
        acc = ct.mma(a, ct.load(W2, index=(0, j), shape=(tk, tk), padding_mode=ZERO), acc)
        ct.store(Y, index=(bm, j), tile=acc.astype(Y.dtype))
        acc = ct.zeros((tm, tk), dtype=ct.float32)


@ct.kernel
def second_loop_as_column_tiles(X, W1, W2, Y, tm: C[int], tk: C[int]):
    """``two_k_loops_second_reads_first`` written as its refusal says: the second loop's index is the grid's axis 1
    (``j = ct.bid(1)``), one dot of ``relu(h)`` with ``W2``'s tile ``j`` after the K loop and its store (the WGMMA
    kernel computes ``h`` once per row tile and loops the second dot over ``Y``'s column tiles itself)."""
    bm, j = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, tk), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                   ct.load(W1, index=(k, 0), shape=(tk, tk), padding_mode=ZERO), h)
    a = ct.maximum(h, 0.0).astype(ct.float16)
    y = ct.mma(a, ct.load(W2, index=(0, j), shape=(tk, tk), padding_mode=ZERO), ct.zeros((tm, tk), dtype=ct.float32))
    ct.store(Y, index=(bm, j), tile=y.astype(Y.dtype))


_M, _K, _N = 200, 200, 192  # ragged M and K against the 128 x 64 x 64 tiles; N two whole tiles and a half
_add("concat_k_linear_bt", concat_k_linear_bt,
     [_a((_M, _K), BF16), _a((_N + 40, _K), BF16), _a((_M, _K), BF16), _a((_N + 40, _K), BF16), _a((_N + 40,), BF16),
      _a((_M, _N + 40), BF16), 128, 64, 64], (2, 4), "gemm", outputs=(5,))
_add("summed_products_relu", summed_products_relu,
     [_a((_M, _K)), _a((_K, _N)), _a((_M, _K)), _a((_K, _N)), _a((_M, _N)), 128, 64, 64], (2, 3), "gemm",
     outputs=(4,))
_add("dual_input_gated_batched", dual_input_gated_batched,
     [_a((3, _M, _K)), _a((3, _K, _N)), _a((3, _M, _K)), _a((3, _K, _N)), _a((3, _M, _N)), 128, 64, 64], (2, 3, 3),
     "gemm", outputs=(4,))
_add("three_operand_pairs", three_operand_pairs,
     [_a((_M, 136)), _a((136, 128)), _a((_M, 136)), _a((136, 128)), _a((_M, 136)), _a((136, 128)), _a((_M, 128), F32),
      128, 64, 64], (2, 2), "gemm", outputs=(6,))
_add("two_k_loops_two_accumulators", two_k_loops_two_accumulators,
     [_a((_M, _K)), _a((_K, _N)), _a((_M, _K)), _a((_K, _N)), _a((_M, _N)), 0.5, 128, 64, 64], (2, 3), "gemm",
     outputs=(4,))
_add("two_k_loops_continued_bt", two_k_loops_continued_bt,
     [_a((_M, _K), BF16), _a((_N, _K), BF16), _a((_M, _K), BF16), _a((_N, _K), BF16), _a((_M, _N), BF16), 128, 64,
      64], (2, 3), "gemm", outputs=(4,))
_add("two_k_loops_own_bounds", two_k_loops_own_bounds,
     [_a((_M, _K)), _a((_K, _N)), _a((_M, _K)), _a((_K, _N)), _a((_M, _N)), 128, 64, 64], (2, 3), "gemm",
     outputs=(4,))
_add("two_k_lengths_difference_bt", two_k_lengths_difference_bt,
     [_a((_M, 128), BF16), _a((_N, 128), BF16), _a((_M, _K), BF16), _a((_N, _K), BF16), _a((_M, _N), BF16), 128, 64,
      64], (2, 3), "gemm", outputs=(4,))
_add("two_k_loops_scalar_trip_counts", two_k_loops_scalar_trip_counts,
     [_a((_M, 128)), _a((128, _N)), _a((_M, _K)), _a((_K, _N)), _a((_M, _N)), 2, 4, 128, 64, 64], (2, 3), "simt",
     error="they run different ranges of K tiles", outputs=(4,))
_add("two_k_loops_second_reads_first", two_k_loops_second_reads_first,
     [_a((_M, _K)), _a((_K, 64)), _a((64, _N)), _a((_M, _N)), 128, 64], (2,), "gemm", outputs=(3,),
     notes="refused until session 29; tileas-column-loop-to-tiles makes its second loop the grid's axis 1 "
           "(the epilogue dot over column tiles, as second_loop_as_column_tiles)")
_add("second_loop_as_column_tiles", second_loop_as_column_tiles,
     [_a((_M, _K)), _a((_K, 64)), _a((64, _N)), _a((_M, _N)), 128, 64], (2, 3), "gemm", outputs=(3,),
     notes="the rewrite two_k_loops_second_reads_first's refusal names: a second dot on the K loop's result per "
           "column tile (the epilogue dot, GemmConfig.epi_n)")
