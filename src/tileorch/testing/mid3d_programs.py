"""GEMM programs whose operand or output tiles are 3-D with a unit *middle* dimension (issue 21 item 1, session 40):
``ct.load(X, index=(bm, b, k), shape=(tm, 1, tk))`` of a sequence-first ``[S, B, K]`` array (the batch in the
middle, at program id 2), brought to 2-D by ``reshape``, by ``permute`` then ``reshape``, or read through a view with
``order=``; B as ``(tk, 1, tn)`` tiles of ``[K, B, N]``; C stored as ``(tm, 1, tn)`` tiles of ``[M, B, N]``.  The
TileAS tier takes them (``GemmConfig.batch_mid``: 3-D tensor maps of the arrays' own row and batch pitches; C's
direct epilogue at column block ``l * N`` of rows ``L N`` apart) and says so at the tile (a located remark).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (shapes ragged in M, N and K;
each program's twin on contiguous 2-D / leading-batch arrays is :data:`TWINS`), driven by
tests/unit/test_mid3d_compile.py, tests/unit/test_mid3d_emulated.py and tests/gpu/test_mid3d_gpu.py.  Importing it
needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO
F16, BF16, F32, E4M3 = "float16", "bfloat16", "float32", "float8_e4m3fn"


@ct.kernel
def mid_a_reshape(X, W, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C[b] = X[:, b, :] @ W[b]``: A ``[M, B, K]`` read as ``(TM, 1, TK)`` tiles at ``(bm, b, k)`` and reshaped; B
    ``[B, K, N]`` and C ``[B, M, N]`` batched in their leading dimension."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(W, index=(b, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, bm, bn), tile=acc.reshape((1, TM, TN)).astype(C.dtype))


@ct.kernel
def mid_b_reshape(A, W, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C[b] = A[b] @ W[:, b, :]``: B ``[K, B, N]`` read as ``(TK, 1, TN)`` tiles at ``(k, b, bn)``; A ``[B, M, K]``
    and C ``[B, M, N]`` batched in their leading dimension."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(b, bm, k), shape=(1, TM, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(W, index=(k, b, bn), shape=(TK, 1, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, bm, bn), tile=acc.reshape((1, TM, TN)).astype(C.dtype))


@ct.kernel
def mid_a_c_shared_w(X, W, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A sequence-first projection ``Y[s, b, :] = X[s, b, :] @ W``: X ``[S, B, K]`` and Y ``[S, B, N]`` as ``(TM, 1,
    .)`` tiles at ``(bm, b, .)``, one 2-D W ``[K, N]`` for every batch."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, b, bn), tile=acc.astype(Y.dtype).reshape((TM, 1, TN)))


@ct.kernel
def mid_all_three(X, W, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``Y[:, b, :] = X[:, b, :] @ W[:, b, :]``: A ``[M, B, K]``, B ``[K, B, N]`` and C ``[M, B, N]``, every tile with a
    unit middle dimension at program id 2."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(W, index=(k, b, bn), shape=(TK, 1, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, b, bn), tile=acc.astype(Y.dtype).reshape((TM, 1, TN)))


@ct.kernel
def mid_b_k_major(X, Wt, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``Y[:, b, :] = X[:, b, :] @ Wt[:, b, :]^T``: a K-major B ``[N, B, K]`` read as ``(TN, 1, TK)`` tiles at ``(bn,
    b, k)``, reshaped and transposed (nn.Linear's layout per batch); X ``[M, B, K]``, Y ``[M, B, N]``."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(Wt, index=(bn, b, k), shape=(TN, 1, TK), padding_mode=ZERO).reshape((TN, TK))
        acc = ct.mma(a, ct.transpose(w), acc)
    ct.store(Y, index=(bm, b, bn), tile=acc.astype(Y.dtype).reshape((TM, 1, TN)))


@ct.kernel
def mid_a_permute(X, W, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """As :func:`mid_a_c_shared_w`, A's ``(TM, 1, TK)`` tile brought to ``(1, TM, TK)`` by ``ct.permute`` before the
    reshape; Y stored through a ``(1, TM, TN)`` tile permuted to ``(TM, 1, TN)``."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        x = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), padding_mode=ZERO)
        a = ct.permute(x, (1, 0, 2)).reshape((TM, TK))
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, b, bn), tile=ct.permute(acc.astype(Y.dtype).reshape((1, TM, TN)), (1, 0, 2)))


@ct.kernel
def mid_a_order(X, W, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """As :func:`mid_a_c_shared_w`, A read through a view with ``order=(1, 0, 2)`` (view dimension ``i`` is array
    dimension ``order[i]``): ``(1, TM, TK)`` tiles at ``(b, bm, k)`` of the ``[B, S, K]`` view of X ``[S, B, K]``."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(b, bm, k), shape=(1, TM, TK), order=(1, 0, 2), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, b, bn), tile=acc.astype(Y.dtype).reshape((TM, 1, TN)))


@ct.kernel
def mid_a_order_last_two(X, W, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A read as ``(TM, 1, TK)`` tiles at ``(bm, b, k)`` of the ``[S, B, K]`` view (``order=(0, 2, 1)``) of X ``[S,
    K, B]``: the view's middle dimension is the array's last (review H2: not the array's batch in its middle
    dimension, nor A stored M-major); refused by the tier at the load (located), the SIMT path runs it."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        a = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), order=(0, 2, 1), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, b, bn), tile=acc.reshape((TM, 1, TN)))


@ct.kernel
def mid_bias_relu(X, W, Bias, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A fused epilogue on the sequence-first projection: ``Y[s, b, :] = relu(X[s, b, :] @ W + bias)``, bias ``[N]``
    f32 read at the column tile, Y ``[S, B, N]``."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    bias = ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)
    out = ct.maximum(acc + bias[None, :], 0.0)
    ct.store(Y, index=(bm, b, bn), tile=out.astype(Y.dtype).reshape((TM, 1, TN)))


@ct.kernel
def mid_relu_and_preact(X, W, P, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The sequence-first projection with two outputs batched in their middle dimension: the pre-activation ``P[s,
    b, :] = X[s, b, :] @ W`` (f32, kept for the backward pass) and ``Y = relu(P)`` (f16), both ``(TM, 1, TN)``
    tiles at ``(bm, b, bn)`` (review M4: the second output took the SIMT path with a misleading reason)."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, b, bn), tile=ct.maximum(acc, 0.0).astype(Y.dtype).reshape((TM, 1, TN)))
    ct.store(P, index=(bm, b, bn), tile=acc.reshape((TM, 1, TN)))


@ct.kernel
def mid_relu_and_stacked_preact(X, W, P, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """:func:`mid_relu_and_preact` with the pre-activation in a batch-first ``[B, S, N]`` array (``(1, TM, TN)`` tiles
    at ``(b, bm, bn)``) beside Y ``[S, B, N]``: the same tile indices, each output at its own array's addresses."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, b, bn), tile=ct.maximum(acc, 0.0).astype(Y.dtype).reshape((TM, 1, TN)))
    ct.store(P, index=(b, bm, bn), tile=acc.reshape((1, TM, TN)))


@ct.kernel
def mid_a_fp8_bt(X, Wt, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An e4m3 sequence-first projection with a K-major weight ``Wt [N, K]`` (``ct.transpose`` of its ``(TN, TK)``
    tile): X ``[S, B, K]`` e4m3 at ``(bm, b, k)``, Y ``[S, B, N]`` f32."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(Wt, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(a, ct.transpose(w), acc)
    ct.store(Y, index=(bm, b, bn), tile=acc.reshape((TM, 1, TN)))


@ct.kernel
def mid_a_tf32_bt(X, Wt, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """:func:`mid_a_fp8_bt` on f32 arrays multiplied as tf32 (``astype(ct.tfloat32)``: the tensor cores' tf32)."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(Wt, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(a.astype(ct.tfloat32), ct.transpose(w).astype(ct.tfloat32), acc)
    ct.store(Y, index=(bm, b, bn), tile=acc.reshape((TM, 1, TN)))


@ct.kernel
def mid_a_reversed_batch(X, W, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The sequence-first projection with the batches taken last-first (``X[:, B - 1 - b, :]``): the middle index is
    computed from program id 2, not the batch the GEMM kernel's scheduler walks: refused by the tier at the load
    (located), the SIMT path runs it."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    r = X.shape[1] - 1 - b
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, r, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, b, bn), tile=acc.reshape((TM, 1, TN)))


@ct.kernel
def mid_two_dots_mid_bs(X, W1, W2, Y1, Y2, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Two products of one A with two Bs batched in their middle dimension (``[K, B, N]`` each): dots sharing A with
    such Bs are refused by the tier at the second B's load (located); the SIMT path runs it."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc1 = ct.zeros((TM, TN), dtype=ct.float32)
    acc2 = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], TK)):
        a = ct.load(X, index=(bm, b, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w1 = ct.load(W1, index=(k, b, bn), shape=(TK, 1, TN), padding_mode=ZERO).reshape((TK, TN))
        w2 = ct.load(W2, index=(k, b, bn), shape=(TK, 1, TN), padding_mode=ZERO).reshape((TK, TN))
        acc1 = ct.mma(a, w1, acc1)
        acc2 = ct.mma(a, w2, acc2)
    ct.store(Y1, index=(bm, b, bn), tile=acc1.reshape((TM, 1, TN)))
    ct.store(Y2, index=(bm, b, bn), tile=acc2.reshape((TM, 1, TN)))


@ct.kernel
def twin_2d(A, W, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The 2-D twin (a contiguous copy's plain GEMM ``C = A @ W``): what :func:`mid_a_c_shared_w` computes per batch,
    on ``[B S, K]`` rows (the benchmark's same-process comparison)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


def _a(shape, dt=F16):
    return (tuple(shape), dt)


# M = 100 rows, N = 80 columns, K = 72 (a partial K tile), B = 3: ragged in each; K and N whole 16-byte rows
M, N, K, L = 100, 80, 72, 3
_T = (64, 64, 32)
_G = (2, 2, L)
_add("mid_a_reshape", mid_a_reshape, [_a((M, L, K)), _a((L, K, N)), _a((L, M, N), F32), *_T], _G, "gemm",
     outputs=(2,))
_add("mid_b_reshape", mid_b_reshape, [_a((L, M, K)), _a((K, L, N)), _a((L, M, N), F32), *_T], _G, "gemm",
     outputs=(2,))
_add("mid_a_c_shared_w", mid_a_c_shared_w, [_a((M, L, K)), _a((K, N)), _a((M, L, N), F32), *_T], _G, "gemm",
     outputs=(2,))
_add("mid_a_c_shared_w_f16_out", mid_a_c_shared_w, [_a((M, L, K)), _a((K, N)), _a((M, L, N)), *_T], _G, "gemm",
     outputs=(2,))
_add("mid_all_three", mid_all_three, [_a((M, L, K)), _a((K, L, N)), _a((M, L, N), F32), *_T], _G, "gemm",
     outputs=(2,))
_add("mid_all_three_bf16", mid_all_three, [_a((M, L, K), BF16), _a((K, L, N), BF16), _a((M, L, N), BF16), *_T], _G,
     "gemm", outputs=(2,))
_add("mid_b_k_major", mid_b_k_major, [_a((M, L, K)), _a((N, L, K)), _a((M, L, N), F32), *_T], _G, "gemm",
     outputs=(2,))
_add("mid_a_permute", mid_a_permute, [_a((M, L, K)), _a((K, N)), _a((M, L, N), F32), *_T], _G, "gemm",
     outputs=(2,))
_add("mid_a_order", mid_a_order, [_a((M, L, K)), _a((K, N)), _a((M, L, N), F32), *_T], _G, "gemm", outputs=(2,))
_add("mid_bias_relu", mid_bias_relu, [_a((M, L, K)), _a((K, N)), _a((N,), F32), _a((M, L, N)), *_T], _G, "gemm",
     outputs=(3,))
_add("mid_relu_and_preact", mid_relu_and_preact, [_a((M, L, K)), _a((K, N)), _a((M, L, N), F32), _a((M, L, N)),
                                                  *_T], _G, "gemm", outputs=(2, 3))
_add("mid_relu_and_stacked_preact", mid_relu_and_stacked_preact, [_a((M, L, K)), _a((K, N)), _a((L, M, N), F32),
                                                                  _a((M, L, N)), *_T], _G, "gemm", outputs=(3, 2))
_add("mid_a_fp8_bt", mid_a_fp8_bt, [_a((M, L, 128), E4M3), _a((N, 128), E4M3), _a((M, L, N), F32), 64, 64, 128],
     _G, "gemm", outputs=(2,))
_add("mid_a_tf32_bt", mid_a_tf32_bt, [_a((M, L, K), F32), _a((N, K), F32), _a((M, L, N), F32), 64, 64, 32], _G,
     "gemm", outputs=(2,))
_add("mid_a_reversed_batch", mid_a_reversed_batch, [_a((M, L, K)), _a((K, N)), _a((M, L, N), F32), *_T], _G,
     "simt", outputs=(2,), error="a 3-D tile whose unit middle dimension is indexed by program id 2 is taken")
_add("mid_b_n_major_fp8", mid_all_three, [_a((M, L, 128), E4M3), _a((128, L, N), E4M3), _a((M, L, N), F32), 64, 64,
                                           128], _G, "simt", outputs=(2,),
     error="the launch-time K-major copy does not take an array batched in its middle dimension")
_add("mid_a_order_last_two", mid_a_order_last_two, [_a((64, 64, 64)), _a((64, 64)), _a((64, 64, 64), F32), *_T],
     (1, 1, 64), "simt", outputs=(2,), error="a 3-D tile with a unit middle dimension read through a view with "
     "dimension order [0, 2, 1]")
_add("mid_two_dots_mid_bs", mid_two_dots_mid_bs, [_a((M, L, K)), _a((K, L, N)), _a((K, L, N)), _a((M, L, N), F32),
                                                  _a((M, L, N), F32), *_T], _G, "simt", outputs=(3, 4),
     error="reading a 3-D tile with a unit middle dimension: not supported yet")

TWINS = {"mid_a_c_shared_w": twin_2d}
"""Program -> its 2-D twin on a contiguous ``[B S, K]`` copy (tests/gpu/test_mid3d_gpu.py's timing)."""

__all__ = ["PROGRAMS", "TWINS"]
