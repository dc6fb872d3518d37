"""cuTile GEMMs whose B operand is computed in the K loop from its tile (weight-only int8, a zero
point, a scalar scale): the programs the GEMM tier's computed-B path (``GemmConfig.b_raw``) is tested
on, on the CPU emulator (tests/unit/test_computed_b_gemm.py) and on the GPU
(tests/gpu/test_computed_b_gpu.py).  Importing it needs ``cuda.tile``."""

from __future__ import annotations

import cuda.tile as ct


@ct.kernel
def w8a16_linear(X, W, S, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``nn.Linear`` with an int8 weight ``W [N, K]`` (K-major B): converted to f16 and transposed in
    the loop, the per-output-channel scale after it."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(j, k), shape=(tn, tk)).astype(ct.float16)
        acc = ct.mma(ct.load(X, index=(i, k), shape=(tm, tk)), ct.transpose(w), acc)
    ct.store(Y, index=(i, j), tile=(acc * ct.load(S, index=(j,), shape=(tn,))[None, :]).astype(Y.dtype))


@ct.kernel
def w8a16_zero_point(A, W, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """An int8 weight ``[K, N]`` with a zero point: ``astype(f16) - 3`` in the loop (the element-by-element
    evaluation of the program's ops on the raw int8 tile, not the bare astype's pair conversion)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(k, j), shape=(tk, tn)).astype(ct.float16) - 3.0
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), w, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def b_times_scalar(A, B, C, alpha: float, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """B scaled by a launch-time scalar in f32 in the loop, then rounded back to B's type (B [K, N],
    N-major)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        b = (ct.load(B, index=(k, j), shape=(tk, tn)).astype(ct.float32) * alpha).astype(B.dtype)
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), b, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def fp8_b_upcast(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """An fp8 weight ``[N, K]`` upcast to A's 16-bit type in the loop (``astype``), then transposed."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        b = ct.load(B, index=(j, k), shape=(tn, tk)).astype(A.dtype)
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.transpose(b), acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def w8a16_batched_shared_weight(X, W, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A batch of activations ``X [L, M, K]`` (program id 2) times one int8 weight ``W [N, K]``."""
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=2, shape=(1, tm, tk))):
        x = ct.load(X, index=(b, i, k), shape=(1, tm, tk)).reshape((tm, tk))
        w = ct.load(W, index=(j, k), shape=(tn, tk)).astype(ct.float16)
        acc = ct.mma(x, ct.transpose(w), acc)
    ct.store(Y, index=(b, i, j), tile=acc.astype(Y.dtype).reshape((1, tm, tn)))
