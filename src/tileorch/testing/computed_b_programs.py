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


@ct.kernel
def w8a16_channel_scale_kn(A, W, S, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """An int8 weight ``[K, N]`` dequantized in the loop with its per-output-channel scale ``S [N]``
    (loaded before the loop), in f32 and rounded to f16: ``(w * s[n]).astype(f16)``."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    s = ct.load(S, index=(j,), shape=(tn,))
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        w = (ct.load(W, index=(k, j), shape=(tk, tn)).astype(ct.float32) * s[None, :]).astype(ct.float16)
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), w, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def w8a16_channel_scale_nk(X, W, S, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``nn.Linear`` with an int8 weight ``W [N, K]`` and its per-output-channel f16 scale ``S [N]``
    applied to the weight in the loop (one value per row of the ``[tn, tk]`` tile), then transposed."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    s = ct.load(S, index=(j,), shape=(tn,))
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(j, k), shape=(tn, tk)).astype(ct.float16) * s[:, None]
        acc = ct.mma(ct.load(X, index=(i, k), shape=(tm, tk)), ct.transpose(w), acc)
    ct.store(Y, index=(i, j), tile=acc.astype(Y.dtype))


@ct.kernel
def w8a16_group_scale(A, W, S, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int],
                      group: ct.Constant[int]):
    """Group-wise W8A16: ``W [K, N]`` int8, ``S [K // group, N]`` f32 scales, the scale row of K tile
    ``k`` (``k * tk // group``) loaded in the loop: ``w * S[k // group, n]``."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        s = ct.load(S, index=(k * tk // group, j), shape=(1, tn))
        w = (ct.load(W, index=(k, j), shape=(tk, tn)).astype(ct.float32) * s).astype(ct.float16)
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), w, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def b_times_k_row_vector(A, B, R, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """B ``[K, N]`` f16 scaled by a per-K-row vector ``R [K]`` loaded in the loop (one value per row of
    the ``[tk, tn]`` tile)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        r = ct.load(R, index=(k,), shape=(tk,))
        b = ct.load(B, index=(k, j), shape=(tk, tn)) * r[:, None]
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), b, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def relu_a(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``relu(a) @ b``: A computed in the loop by ``maximum(a, 0)``."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.maximum(ct.load(A, index=(i, k), shape=(tm, tk)), 0.0)
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def a8_dequant(A, B, C, scale: float, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """int8 activations ``A [M, K]`` dequantized in the loop by a per-tensor scale: ``(a * scale).astype(f16)``."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = (ct.load(A, index=(i, k), shape=(tm, tk)).astype(ct.float32) * scale).astype(ct.float16)
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def a_times_gamma(A, G, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """An RMSNorm weight folded into the next GEMM: ``(a * gamma[k]) @ b``, ``gamma`` loaded per K tile."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        g = ct.load(G, index=(k,), shape=(tk,))
        a = ct.load(A, index=(i, k), shape=(tm, tk)) * g[None, :]
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def a_and_b_computed(A, W, S, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Both operands computed: ``relu(a) @ (w.astype(f16) * s[n])`` with an int8 ``W [N, K]``."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    s = ct.load(S, index=(j,), shape=(tn,))
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.maximum(ct.load(A, index=(i, k), shape=(tm, tk)), 0.0)
        w = ct.load(W, index=(j, k), shape=(tn, tk)).astype(ct.float16) * s[:, None]
        acc = ct.mma(a, ct.transpose(w), acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))
