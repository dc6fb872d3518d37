"""The second user sweep (session 7): cuTile 1.7 programs written the way NVIDIA's cuTile samples
and model code write them, unlike the first sweep (:mod:`tileorch.testing.user_programs`):
GEMMs with a bias row vector, per-channel scales, a residual matrix, SiLU / GELU(tanh) epilogues,
ragged K, ``range(0, K, tk)`` loops, an alpha read from a device array, batched 3-D tiles,
split-K with ``ct.atomic_add``; FlashAttention variants (grouped K/V heads, ALiBi slopes, a
sliding window, an additive bias tile, a padded head dim, a natural-log LSE output, the scale
folded into Q); layer norm forward with its statistics, multi-row softmax with ``NEG_INF``
padding, variance with ``keepdims``, reverse scans, products, integer and bool elementwise code,
3-D / 4-D tiles, ``expand_dims`` / ``broadcast_to`` / ``reshape`` / ``cat`` / ``astile``,
constants of several dtypes, runtime bool scalars, ``range(start, stop, step)``, ``while``
loops, nested ifs, ``ct.static_iter`` and plain Python helper functions.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep2.py (CPU compile and the SIMT interpreter) and
tests/gpu/test_user_sweep2_gpu.py (the H200 against torch).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, NEG_INF, ZERO, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)


# ----------------------------------------------------------------------------------------------- GEMM epilogues


@ct.kernel
def gemm_bias_relu(A, B, bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``relu(A @ B + bias)`` with the bias a 1-D array loaded per column tile and reshaped to a row."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(pid_m, k), shape=(tm, tk))
        b = ct.load(B, index=(k, pid_n), shape=(tk, tn))
        acc = ct.mma(a, b, acc)
    row = ct.reshape(ct.load(bias, index=(pid_n,), shape=(tn,)).astype(ct.float32), (1, tn))
    out = ct.maximum(acc + row, 0.0)
    ct.store(C, index=(pid_m, pid_n), tile=out.astype(C.dtype))


@ct.kernel
def gemm_channel_scale_bf16(A, B, scale, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Per-output-channel scales (1-D f32) multiplied into the accumulator, stored as bf16."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    s = ct.load(scale, index=(pid_n,), shape=(tn,))
    ct.store(C, index=(pid_m, pid_n), tile=(acc * s[None, :]).astype(ct.bfloat16))


@ct.kernel
def gemm_residual(A, B, R, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = A @ B + R``: the residual read from a second matrix of C's shape."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    r = ct.load(R, index=(pid_m, pid_n), shape=(tm, tn))
    ct.store(C, index=(pid_m, pid_n), tile=(acc + r.astype(ct.float32)).astype(C.dtype))


@ct.kernel
def gemm_silu(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """SiLU written out: ``x / (1 + exp(-x))``."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    y = acc / (1.0 + ct.exp(-acc))
    ct.store(C, index=(pid_m, pid_n), tile=y.astype(C.dtype))


@ct.kernel
def gemm_gelu_tanh(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """GELU, tanh approximation, in f32 then stored f32."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    inner = 0.7978845608028654 * (acc + 0.044715 * acc * acc * acc)
    ct.store(C, index=(pid_m, pid_n), tile=0.5 * acc * (1.0 + ct.tanh(inner)))


@ct.kernel
def gemm_ragged_k(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """K = 200 with 64-wide K tiles: the last K tile is zero-padded on both operands."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(pid_m, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, pid_n), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(pid_m, pid_n), tile=acc)


@ct.kernel
def gemm_range_step(A, B, C, K: int, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The K loop over element offsets, ``for k0 in range(0, K, tk)``, the tile index ``k0 // tk``."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k0 in range(0, K, tk):
        a = ct.load(A, index=(pid_m, k0 // tk), shape=(tm, tk))
        b = ct.load(B, index=(k0 // tk, pid_n), shape=(tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(pid_m, pid_n), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_alpha_array(A, B, alpha, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``alpha`` lives on the device (a 1-element array, ``ct.gather(alpha, 0)``)."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    a = ct.gather(alpha, 0)
    ct.store(C, index=(pid_m, pid_n), tile=(acc * a).astype(C.dtype))


@ct.kernel
def gemm_alpha_0d(A, B, alpha, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``alpha`` a 0-d device array read with ``ct.load(alpha, index=(), shape=())``."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    a = ct.load(alpha, index=(), shape=())
    ct.store(C, index=(pid_m, pid_n), tile=(acc * a).astype(C.dtype))


@ct.kernel
def gemm_a_transposed(AT, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = AT^T @ B`` with A stored K-major ([K, M]): the [tk, tm] tile turned by ``ct.transpose``."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(B, axis=0, shape=(tk, tn))):
        at = ct.load(AT, index=(k, pid_m), shape=(tk, tm))
        acc = ct.mma(ct.transpose(at), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    ct.store(C, index=(pid_m, pid_n), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_bf16_f32out(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """bf16 operands, an f32 output, the product through the ``@`` operator and ``+=``."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(pid_m, k), shape=(tm, tk))
        b = ct.load(B, index=(k, pid_n), shape=(tk, tn))
        acc += a @ b
    ct.store(C, index=(pid_m, pid_n), tile=acc)


@ct.kernel
def gemm_batched_3d(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched GEMM on 3-D tiles: ``[1, tm, tk] x [1, tk, tn]`` with the batch from ``bid(2)``."""
    pid_m, pid_n, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(b, pid_m, k), shape=(1, tm, tk))
        w = ct.load(B, index=(b, k, pid_n), shape=(1, tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, pid_m, pid_n), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_batched_reshape(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Batched GEMM whose 3-D tiles are reshaped to 2-D around the mma."""
    pid_m, pid_n, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.reshape(ct.load(A, index=(b, pid_m, k), shape=(1, tm, tk)), (tm, tk))
        w = ct.reshape(ct.load(B, index=(b, k, pid_n), shape=(1, tk, tn)), (tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, pid_m, pid_n), tile=ct.reshape(acc.astype(C.dtype), (1, tm, tn)))


@ct.kernel
def gemm_split_k(A, B, C, splits: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                 tk: ct.Constant[int]):
    """Split-K: program ``bid(2)`` sums every ``splits``-th K tile and adds its partial product into
    the f32 output with ``ct.atomic_add`` at 2-D index tiles."""
    pid_m, pid_n, s = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s, ct.num_tiles(A, axis=1, shape=(tm, tk)), splits):
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    rows = pid_m * tm + ct.arange(tm, dtype=ct.int32)[:, None]
    cols = pid_n * tn + ct.arange(tn, dtype=ct.int32)[None, :]
    ct.atomic_add(C, (rows, cols), acc)


@ct.kernel
def gemm_grouped_raster(A, B, C, group: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                        tk: ct.Constant[int]):
    """The samples' 1-D grid with GROUP_SIZE_M rasterisation (tile coordinates from ``bid(0)``)."""
    pid = ct.bid(0)
    n_m = ct.cdiv(A.shape[0], tm)
    n_n = ct.cdiv(B.shape[1], tn)
    per_group = group * n_n
    first_m = (pid // per_group) * group
    size_m = min(n_m - first_m, group)
    pid_m = first_m + (pid % per_group) % size_m
    pid_n = (pid % per_group) // size_m
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    ct.store(C, index=(pid_m, pid_n), tile=acc.astype(C.dtype))


_F16_GEMM = [((256, 192), "float16"), ((192, 256), "float16")]
_add("gemm_bias_relu", gemm_bias_relu, _F16_GEMM + [((256,), "float16"), ((256, 256), "float16"), 128, 128, 64],
     (2, 2), "gemm", outputs=(3,))
_add("gemm_channel_scale_bf16", gemm_channel_scale_bf16,
     _F16_GEMM + [((256,), "float32"), ((256, 256), "bfloat16"), 128, 128, 64], (2, 2), "gemm", outputs=(3,))
_add("gemm_residual", gemm_residual, _F16_GEMM + [((256, 256), "float16"), ((256, 256), "float16"), 128, 128, 64],
     (2, 2), "gemm", outputs=(3,))
_add("gemm_silu", gemm_silu, _F16_GEMM + [((256, 256), "float16"), 128, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_gelu_tanh", gemm_gelu_tanh, _F16_GEMM + [((256, 256), "float32"), 128, 128, 64], (2, 2), "gemm",
     outputs=(2,))
_add("gemm_ragged_k", gemm_ragged_k, [((256, 200), "float16"), ((200, 256), "float16"), ((256, 256), "float32"),
                                      128, 128, 64], (2, 2), "gemm", outputs=(2,))
# the K tile index computed from an element offset (k0 // tk): the tier's coordinate analysis
# does not follow it (the SIMT path with mma.sync takes it; session 7's s7-coords works there)
_add("gemm_range_step", gemm_range_step, _F16_GEMM + [((256, 256), "float16"), 192, 128, 128, 64], (2, 2), "gemm",
     outputs=(2,))
_add("gemm_alpha_array", gemm_alpha_array, _F16_GEMM + [((1,), "float32"), ((256, 256), "float16"), 128, 128, 64],
     (2, 2), "gemm", outputs=(3,))
# cuTile 1.7 writes ct.load of a 0-d array as a 0-d partition view, which CUDA Tile IR rejects
_add("gemm_alpha_0d", gemm_alpha_0d, _F16_GEMM + [((), "float32"), ((256, 256), "float16"), 128, 128, 64],
     (2, 2), "error", error="0-dimension tile shape is not supported", outputs=(3,))
_add("gemm_a_transposed", gemm_a_transposed, [((192, 256), "float16"), ((192, 256), "float16"),
                                              ((256, 256), "float16"), 128, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_bf16_f32out", gemm_bf16_f32out, [((256, 128), "bfloat16"), ((128, 384), "bfloat16"),
                                            ((256, 384), "float32"), 128, 128, 32], (2, 3), "gemm", outputs=(2,))
_add("gemm_batched_3d", gemm_batched_3d, [((3, 128, 128), "float16"), ((3, 128, 128), "float16"),
                                          ((3, 128, 128), "float16"), 64, 64, 32], (2, 2, 3), "gemm", outputs=(2,))
_add("gemm_batched_reshape", gemm_batched_reshape, [((3, 128, 128), "float16"), ((3, 128, 128), "float16"),
                                                    ((3, 128, 128), "float16"), 64, 64, 32], (2, 2, 3), "gemm",
     outputs=(2,))
_add("gemm_split_k", gemm_split_k, [((128, 512), "float16"), ((512, 128), "float16"), ((128, 128), "float32"),
                                    4, 64, 64, 32], (2, 2, 4), "gemm", outputs=(2,))
# tile coordinates from a 1-D grid (GROUP_SIZE_M raster): the tier evaluates the program's own
# coordinate expressions per work tile (a program-grid GEMM)
_add("gemm_grouped_raster", gemm_grouped_raster, [((512, 256), "float16"), ((256, 384), "float16"),
                                                  ((512, 384), "float16"), 2, 128, 128, 64], (12,), "gemm",
     outputs=(2,))


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def fmha_gqa(Q, K, V, O, qk_scale: float, H: ct.Constant[int], GROUP: ct.Constant[int], BM: ct.Constant[int],
             BN: ct.Constant[int], D: ct.Constant[int]):
    """Grouped-query attention on ``[B, H, S, D]`` queries and ``[B, H // GROUP, S, D]`` keys and
    values: the key/value head is ``head // GROUP``; ``exp2`` with ``qk_scale = scale * log2(e)``."""
    qt, bh = ct.bid(0), ct.bid(1)
    batch, head = bh // H, bh % H
    kvh = head // GROUP
    q = ct.load(Q, index=(batch, head, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(batch, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.permute(k, (1, 0)), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(batch, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(batch, head, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def fmha_alibi(Q, K, V, O, slopes, scale: float, H: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int],
               D: ct.Constant[int]):
    """ALiBi: the score gets ``slope[head] * (key - query)`` added, the slope a gather from a 1-D
    array; causal mask with ``ct.arange`` + ``ct.where``; ``exp`` (natural)."""
    qt, bh = ct.bid(0), ct.bid(1)
    head = bh % H
    slope = ct.gather(slopes, head)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = qt * BM + ct.arange(BM, dtype=ct.int32)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range((qt + 1) * BM // BN):
        kpos = j * BN + ct.arange(BN, dtype=ct.int32)
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        dist = (kpos[None, :] - qpos[:, None]).astype(ct.float32)
        s = s + slope * dist
        s = ct.where(kpos[None, :] <= qpos[:, None], s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def fmha_sliding_window(Q, K, V, O, qk_scale: float, window: int, BM: ct.Constant[int], BN: ct.Constant[int],
                        D: ct.Constant[int]):
    """Causal attention limited to the last ``window`` keys: the loop starts at the first key
    tile the window reaches (``range(lo, hi)``); keys outside ``(q - window, q]`` are masked;
    the running max of a row that has seen no key yet is taken as 0 in the exponentials."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    lo = max(qt * BM - window + 1, 0) // BN
    hi = (qt + 1) * BM // BN
    for j in range(lo, hi):
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        keep = (kpos <= qpos) & (kpos > qpos - window)
        s = ct.where(keep, s * qk_scale, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        # a row whose keys in this tile are all masked (its window starts in a later tile) has
        # max -inf so far: exp2(-inf - -inf) would be NaN
        m_safe = ct.where(m2 == -math.inf, 0.0, m2)
        p = ct.exp2(s - m_safe)
        c = ct.exp2(m - m_safe)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def fmha_bias_tile(Q, K, V, Bias, O, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                   D: ct.Constant[int]):
    """An additive attention bias ``Bias [S, S]`` (f32) loaded per (query tile, key tile)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * scale
        s = s + ct.load(Bias, index=(qt, j), shape=(BM, BN))
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def fmha_padded_head(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                     DP: ct.Constant[int]):
    """Head dim 96 held in a 128-wide tile (tiles are powers of two): Q, K, V loaded zero-padded to
    ``DP``, O stored through the same padded tile (the store drops columns past 96)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DP), padding_mode=ZERO).reshape((BM, DP))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, DP), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, DP))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DP), padding_mode=ZERO).reshape((BN, DP))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DP), padding_mode=ZERO).reshape((BN, DP))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, DP)))


@ct.function
def attend_key_tiles(q, K, V, bh, tiles, seq_len, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """A helper function of FlashAttention programs: the online softmax of the Q tile ``q`` over
    ``tiles`` key tiles of head ``bh`` of ``[BH, S, D]`` K and V (natural-log exponentials); the
    keys at or past ``seq_len`` masked to -inf unless it is ``None`` (a compile-time choice).
    Returns the unnormalised O accumulator, the row maxima and the row sums."""
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    for j in range(tiles):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        if seq_len is not None:
            s = ct.where(j * BN + cols < seq_len, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    return o, m, den


@ct.kernel
def fmha_q_prescaled_lse(Q, K, V, O, L, scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """The softmax scale folded into Q once (``q * scale`` cast back to bf16) and a natural-log LSE
    ``[BH, S]`` stored as a 1-D row slice after the loop (through the helper function
    :func:`attend_key_tiles`)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    q = (q.astype(ct.float32) * scale).astype(Q.dtype)
    o, m, den = attend_key_tiles(q, K, V, bh, ct.num_tiles(K, axis=1, shape=(1, BN, D)), None, BM, BN, D)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))
    ct.store(L, index=(bh, qt), tile=(m + ct.log(den)).reshape((1, BM)))


_add("fmha_gqa", fmha_gqa, [((2, 4, 256, 64), "float16"), ((2, 2, 256, 64), "float16"), ((2, 2, 256, 64), "float16"),
                            ((2, 4, 256, 64), "float16"), 0.125 * LOG2E, 4, 2, 128, 64, 64], (2, 8), "chained",
     outputs=(3,))
_add("fmha_alibi", fmha_alibi, [((4, 256, 64), "float16"), ((4, 256, 64), "float16"), ((4, 256, 64), "float16"),
                                ((4, 256, 64), "float16"), ((2,), "float32"), 0.125, 2, 128, 64, 64], (2, 4),
     "chained", outputs=(4,))
_add("fmha_sliding_window", fmha_sliding_window,
     [((2, 256, 64), "bfloat16"), ((2, 256, 64), "bfloat16"), ((2, 256, 64), "bfloat16"), ((2, 256, 64), "bfloat16"),
      0.125 * LOG2E, 100, 64, 32, 64], (4, 2), "chained", outputs=(3,))
_add("fmha_bias_tile", fmha_bias_tile, [((2, 256, 32), "float16"), ((2, 256, 32), "float16"),
                                        ((2, 256, 32), "float16"), ((256, 256), "float32"), ((2, 256, 32), "float16"),
                                        1 / math.sqrt(32), 128, 64, 32], (2, 2), "chained", outputs=(4,))
_add("fmha_padded_head", fmha_padded_head, [((2, 256, 96), "float16"), ((2, 256, 96), "float16"),
                                            ((2, 256, 96), "float16"), ((2, 256, 96), "float16"),
                                            LOG2E / math.sqrt(96), 128, 64, 128], (2, 2), "chained", outputs=(3,))
_add("fmha_q_prescaled_lse", fmha_q_prescaled_lse,
     [((2, 256, 64), "bfloat16"), ((2, 256, 64), "bfloat16"), ((2, 256, 64), "bfloat16"),
      ((2, 256, 64), "bfloat16"), ((2, 256), "float32"), 1 / math.sqrt(64), 64, 32, 64], (4, 2), "chained",
     notes="the scale folded into Q: a Q prologue applied in place to the Q tile in shared memory", outputs=(3, 4))


# ----------------------------------------------------------------------------------------------- rows and reductions


@ct.kernel
def vector_add_tail(a, b, c, TILE: ct.Constant[int]):
    """The samples' first kernel: ``c = a + b`` on 1-D arrays whose length is not a multiple of TILE."""
    pid = ct.bid(0)
    x = ct.load(a, index=(pid,), shape=(TILE,))
    y = ct.load(b, index=(pid,), shape=(TILE,))
    ct.store(c, index=(pid,), tile=x + y)


@ct.kernel
def layernorm_fwd(X, W, B, Y, Mean, Rstd, eps: float, N: ct.Constant[int]):
    """LayerNorm forward of one row: mean and biased variance with ``keepdims``, ``y = (x - mean) *
    rstd * w + b``; mean and rstd stored per row (1-D outputs written with ``ct.store`` of a
    1-element tile)."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, N), padding_mode=ZERO).astype(ct.float32)
    n_valid = X.shape[1]
    mean = ct.sum(x, axis=1, keepdims=True) / n_valid
    cols = ct.arange(N, dtype=ct.int32)[None, :]
    xc = ct.where(cols < n_valid, x - mean, 0.0)
    var = ct.sum(xc * xc, axis=1, keepdims=True) / n_valid
    rstd = 1.0 / ct.sqrt(var + eps)
    w = ct.load(W, index=(0,), shape=(N,), padding_mode=ZERO).astype(ct.float32)
    b = ct.load(B, index=(0,), shape=(N,), padding_mode=ZERO).astype(ct.float32)
    y = xc * rstd * ct.expand_dims(w, axis=0) + ct.expand_dims(b, axis=0)
    ct.store(Y, index=(row, 0), tile=y.astype(Y.dtype))
    ct.store(Mean, index=(row,), tile=ct.reshape(mean, (1,)))
    ct.store(Rstd, index=(row,), tile=ct.reshape(rstd, (1,)))


@ct.kernel
def softmax_rows_block(X, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Softmax of BM rows at once (a 2-D tile), the ragged columns padded with ``NEG_INF``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, BN), padding_mode=NEG_INF)
    x = x - ct.max(x, axis=1, keepdims=True)
    num = ct.exp(x)
    ct.store(Y, index=(i, 0), tile=num / ct.sum(num, axis=1, keepdims=True))


@ct.kernel
def col_mean_var(X, Mean, Var, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Per-column mean and unbiased variance over a whole (BM, BN) column block (``keepdims`` then
    a reshape to 1-D for the store)."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(BM, BN))
    mu = ct.sum(x, axis=0, keepdims=True) / BM
    d = x - mu
    var = ct.sum(d * d, axis=0, keepdims=True) / (BM - 1)
    ct.store(Mean, index=(j,), tile=ct.reshape(mu, (BN,)))
    ct.store(Var, index=(j,), tile=ct.reshape(var, (BN,)))


@ct.kernel
def row_argmin_i64(X, Idx, Val, BN: ct.Constant[int]):
    """Row argmin into an int64 array and the row minimum; ragged rows padded with +inf."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(Idx, index=(r,), tile=ct.argmin(x, axis=1).astype(ct.int64))
    ct.store(Val, index=(r,), tile=ct.min(x, axis=1))


@ct.kernel
def cumsum_reverse_cols(X, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """A suffix sum down each column (``ct.cumsum(axis=0, reverse=True)``) of f32 values."""
    j = ct.bid(0)
    x = ct.load(X, index=(0, j), shape=(BM, BN))
    ct.store(Y, index=(0, j), tile=ct.cumsum(x, axis=0, reverse=True))


@ct.kernel
def prod_and_max_axis(X, P, M, A: ct.Constant[int], B: ct.Constant[int]):
    """``ct.prod`` over axis 1 and ``ct.max`` over axis 0 of one f32 tile."""
    x = ct.load(X, index=(0, 0), shape=(A, B))
    ct.store(P, index=(0,), tile=ct.prod(x, axis=1))
    ct.store(M, index=(0,), tile=ct.max(x, axis=0))


@ct.kernel
def row_l2_normalize(X, Y, eps: float, BN: ct.Constant[int]):
    """``x / max(||x||, eps)`` per row, bf16 in and out."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    nrm = ct.sqrt(ct.sum(x * x, axis=1, keepdims=True))
    ct.store(Y, index=(r, 0), tile=(x / ct.maximum(nrm, eps)).astype(ct.bfloat16))


_add("vector_add_tail", vector_add_tail, [((1000,), "float32"), ((1000,), "float32"), ((1000,), "float32"), 256],
     (4,), "simt", outputs=(2,))
_add("layernorm_fwd", layernorm_fwd, [((5, 200), "float16"), ((200,), "float16"), ((200,), "float16"),
                                      ((5, 200), "float16"), ((5,), "float32"), ((5,), "float32"), 1e-5, 256],
     (5,), "simt", outputs=(3, 4, 5))
_add("softmax_rows_block", softmax_rows_block, [((10, 100), "float32"), ((10, 100), "float32"), 4, 128], (3,),
     "simt", outputs=(1,))
_add("col_mean_var", col_mean_var, [((32, 64), "float32"), ((64,), "float32"), ((64,), "float32"), 32, 16], (4,),
     "simt", outputs=(1, 2))
_add("row_argmin_i64", row_argmin_i64, [((6, 90), "float32"), ((6,), "int64"), ((6,), "float32"), 128], (6,),
     "simt", outputs=(1, 2))
_add("cumsum_reverse_cols", cumsum_reverse_cols, [((16, 64), "float32"), ((16, 64), "float32"), 16, 32], (2,),
     "simt", outputs=(1,))
_add("prod_and_max_axis", prod_and_max_axis, [((8, 16), "float32"), ((8,), "float32"), ((16,), "float32"), 8, 16],
     (1,), "simt", outputs=(1, 2))
_add("row_l2_normalize", row_l2_normalize, [((4, 300), "bfloat16"), ((4, 300), "bfloat16"), 1e-12, 512], (4,),
     "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- types and shapes


@ct.kernel
def transpose_permute(X, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """``Y = X^T`` by tiles: the tile (i, j) of X turned by ``ct.permute`` and stored at (j, i)."""
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(X, index=(i, j), shape=(BM, BN))
    ct.store(Y, index=(j, i), tile=ct.permute(t, (1, 0)))


@ct.kernel
def int16_saturate(a, b, out, n: ct.Constant[int]):
    """int16 addition in int32 then clamped to the int16 range (``ct.minimum``/``ct.maximum`` with
    int constants) and narrowed back."""
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(n,)).astype(ct.int32)
    y = ct.load(b, index=(i,), shape=(n,)).astype(ct.int32)
    s = ct.minimum(ct.maximum(x + y, -32768), 32767)
    ct.store(out, index=(i,), tile=s.astype(ct.int16))


@ct.kernel
def bool_mask_store(x, thresh: float, mask, count, n: ct.Constant[int]):
    """A bool output ``x > thresh`` and the int32 number of set elements per tile (``sum`` of the
    mask cast to int32), stored per program."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,), padding_mode=ZERO)
    m = t > thresh
    ct.store(mask, index=(i,), tile=m)
    ct.store(count, index=(i,), tile=ct.reshape(ct.sum(m.astype(ct.int32)), (1,)))


@ct.kernel
def where_broadcast(x, rowflag, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """``where(rowflag[:, None] != 0, x, -1)``: a column of conditions against a 2-D tile and a scalar."""
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, BN))
    f = ct.load(rowflag, index=(i,), shape=(BM,))
    ct.store(y, index=(i, 0), tile=ct.where(f[:, None] != 0, t, -1.0))


@ct.kernel
def tile_4d_sum(x, y, A: ct.Constant[int], B: ct.Constant[int], C: ct.Constant[int], D: ct.Constant[int]):
    """A 4-D tile (one batch per program) summed over its last axis and scaled by its axis-1 index."""
    b = ct.bid(0)
    t = ct.load(x, index=(b, 0, 0, 0), shape=(1, B, C, D))
    s = ct.sum(t, axis=3)
    w = ct.arange(B, dtype=ct.float32).reshape((1, B, 1))
    ct.store(y, index=(b, 0, 0), tile=s * w)


@ct.kernel
def outer_product(u, v, out, BM: ct.Constant[int], BN: ct.Constant[int]):
    """``out = u v^T`` from two 1-D tiles with ``expand_dims`` and ``broadcast_to``."""
    i, j = ct.bid(0), ct.bid(1)
    a = ct.expand_dims(ct.load(u, index=(i,), shape=(BM,)), axis=1)
    b = ct.expand_dims(ct.load(v, index=(j,), shape=(BN,)), axis=0)
    ct.store(out, index=(i, j), tile=ct.broadcast_to(a, (BM, BN)) * ct.broadcast_to(b, (BM, BN)))


@ct.kernel
def cat_halves(x, y, n: ct.Constant[int]):
    """Swap the halves of each tile with ``ct.cat`` of two 1-D tiles (``extract`` of each half)."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(2 * n,))
    lo = ct.extract(t, index=(0,), shape=(n,))
    hi = ct.extract(t, index=(1,), shape=(n,))
    ct.store(y, index=(i,), tile=ct.cat((hi, lo), axis=0))


@ct.kernel
def constants_mixed(x, y, z, n: ct.Constant[int]):
    """Constants of several dtypes: an int8 ``full``, an f16 ``ones``, a bool ``full``, and
    ``astile`` tables (f32 weights repeating every 4 elements, a 2 x 2 int32 pattern) applied
    elementwise."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    k8 = ct.full((n,), 3, dtype=ct.int8)
    h = ct.ones((n,), dtype=ct.float16)
    yes = ct.full((n,), True, dtype=ct.bool_)
    w = ct.astile((1.0, -1.0, 0.5, 2.0), dtype=ct.float32)
    u = (t * k8.astype(ct.float32) + h.astype(ct.float32)).reshape((n // 4, 4)) * w[None, :]
    ct.store(y, index=(i,), tile=ct.where(yes, u.reshape((n,)), 0.0))
    lut = ct.astile(((10, 20), (30, 40)), dtype=ct.int32)
    tiles = ct.broadcast_to(lut[None, :, :], (n // 4, 2, 2))
    ct.store(z, index=(i,), tile=tiles.reshape((n,)) + ct.arange(n, dtype=ct.int32))


@ct.kernel
def mixed_promotion(a, b, out, s: float, n: ct.Constant[int]):
    """Mixed types: an f16 tile times an f32 tile, an int32 tile plus a float scalar."""
    i = ct.bid(0)
    h = ct.load(a, index=(i,), shape=(n,))
    k = ct.load(b, index=(i,), shape=(n,))
    ct.store(out, index=(i,), tile=h.astype(ct.float32) * (k.astype(ct.float32) + s))


@ct.kernel
def pow_isnan(x, y, n: ct.Constant[int]):
    """``pow`` with an integer exponent and a negative one; NaNs of the input replaced by 0 via ``ct.isnan``."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    t = ct.where(ct.isnan(t), 0.0, t)
    ct.store(y, index=(i,), tile=t ** 3 + ct.pow(ct.abs(t) + 1.0, -0.5))


# ----------------------------------------------------------------------------------------------- control flow


@ct.kernel
def strided_tile_sum(x, y, start: int, step: int, n: ct.Constant[int]):
    """Sum of tiles ``start, start + step, ...`` below the tile count (``range(start, stop, step)``
    with runtime start and step)."""
    acc = ct.zeros((n,), dtype=ct.float32)
    for t in range(start, ct.num_tiles(x, axis=0, shape=(n,)), step):
        acc = acc + ct.load(x, index=(t,), shape=(n,), padding_mode=ZERO)
    ct.store(y, index=(0,), tile=acc)


@ct.kernel
def newton_rsqrt_while(x, y, tol: float, n: ct.Constant[int]):
    """Newton iterations for ``1/sqrt(x)`` in a ``while`` loop that stops when the largest update
    is below ``tol`` (a runtime condition from a reduction), at most 50 steps."""
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(n,))
    g = ct.full((n,), 1.0, dtype=ct.float32)
    delta = tol + 1.0
    it = 0
    while delta > tol and it < 50:
        g_new = g * (1.5 - 0.5 * a * g * g)
        delta = ct.max(ct.abs(g_new - g))
        g = g_new
        it += 1
    ct.store(y, index=(i,), tile=g)


@ct.kernel
def nested_if_modes(x, y, mode: int, negate: bool, n: ct.Constant[int]):
    """Nested ifs on a runtime int and a runtime bool scalar: mode 0 copy, 1 square, else abs;
    then negated if ``negate``."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    if mode == 0:
        r = t
    else:
        if mode == 1:
            r = t * t
        else:
            r = ct.abs(t)
    if negate:
        if mode != 0:
            r = -r
    ct.store(y, index=(i,), tile=r)


def _gelu(v):
    """A plain Python helper called from the kernel (cuTile inlines it)."""
    return 0.5 * v * (1.0 + ct.tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)))


@ct.kernel
def helper_and_static_iter(x, y, n: ct.Constant[int], parts: ct.Constant[int]):
    """A helper function and a ``ct.static_iter`` loop over ``parts`` sub-tiles (unrolled)."""
    i = ct.bid(0)
    acc = ct.zeros((n,), dtype=ct.float32)
    for p in ct.static_iter(range(parts)):
        acc = acc + _gelu(ct.load(x, index=(i * parts + p,), shape=(n,)))
    ct.store(y, index=(i,), tile=acc)


@ct.kernel
def loop_tail_mask(x, y, total: int, n: ct.Constant[int]):
    """A grid-stride loop (``range(bid, tiles, num_blocks)``) with the tail masked by ``ct.arange``:
    ``y = 2x`` where the global index is below ``total``, 0 beyond (in the last tile)."""
    for t in range(ct.bid(0), ct.cdiv(total, n), ct.num_blocks(0)):
        pos = t * n + ct.arange(n, dtype=ct.int32)
        v = ct.load(x, index=(t,), shape=(n,), padding_mode=ZERO)
        ct.store(y, index=(t,), tile=ct.where(pos < total, 2.0 * v, 0.0))


@ct.kernel
def row_gather_scatter_add(src, idx, out, BN: ct.Constant[int]):
    """Rows gathered by index (``ct.gather`` with a scalar row and an ``arange`` column tile) and
    added into ``out`` rows with ``ct.atomic_add`` (index-add / embedding backward)."""
    i = ct.bid(0)
    r = ct.gather(idx, i)
    cols = ct.arange(BN, dtype=ct.int32)
    row = ct.gather(src, (i, cols))
    ct.atomic_add(out, (r, cols), row)


@ct.kernel
def atomic_max_rows(x, best, BN: ct.Constant[int]):
    """The global maximum of each row tile folded into ``best[0]`` by ``ct.atomic_max`` (int32)."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, BN))
    ct.atomic_max(best, 0, ct.max(t))


@ct.kernel
def divisible_hint(x, y, n_elems: int, n: ct.Constant[int]):
    """``ct.assume_divisible_by`` on a runtime length, then a loop over its tiles."""
    n_elems = ct.assume_divisible_by(n_elems, 16)
    acc = ct.zeros((n,), dtype=ct.float32)
    for t in range(ct.cdiv(n_elems, n)):
        acc = acc + ct.load(x, index=(t,), shape=(n,), padding_mode=ZERO)
    ct.store(y, index=(ct.bid(0),), tile=acc)


@ct.kernel
def scalar_0d_io(alpha, x, total, n: ct.Constant[int]):
    """0-d arrays the way cuTile can take them: ``ct.gather(alpha, ())`` reads one, and
    ``ct.scatter(total, (), v)`` writes one (the sum of ``alpha * x``, one program)."""
    t = ct.load(x, index=(0,), shape=(n,), padding_mode=ZERO) * ct.gather(alpha, ())
    ct.scatter(total, (), ct.sum(t))


_add("scalar_0d_io", scalar_0d_io, [((), "float32"), ((200,), "float32"), ((), "float32"), 256], (1,), "simt",
     outputs=(2,))
_add("transpose_permute", transpose_permute, [((64, 96), "float16"), ((96, 64), "float16"), 32, 32], (2, 3), "simt",
     outputs=(1,))
_add("int16_saturate", int16_saturate, [((256,), "int16"), ((256,), "int16"), ((256,), "int16"), 128], (2,), "simt",
     outputs=(2,))
_add("bool_mask_store", bool_mask_store, [((300,), "float32"), 0.25, ((300,), "bool_"), ((3,), "int32"), 128], (3,),
     "simt", outputs=(2, 3))
_add("where_broadcast", where_broadcast, [((16, 32), "float32"), ((16,), "int32"), ((16, 32), "float32"), 8, 32],
     (2,), "simt", outputs=(2,))
_add("tile_4d_sum", tile_4d_sum, [((2, 4, 8, 16), "float32"), ((2, 4, 8), "float32"), 2, 4, 8, 16], (2,), "simt",
     outputs=(1,))
_add("outer_product", outer_product, [((48,), "float32"), ((80,), "float32"), ((48, 80), "float32"), 16, 32], (3, 3),
     "simt", outputs=(2,))
_add("cat_halves", cat_halves, [((256,), "float32"), ((256,), "float32"), 64], (2,), "simt", outputs=(1,))
_add("constants_mixed", constants_mixed, [((256,), "float32"), ((256,), "float32"), ((256,), "int32"), 128], (2,),
     "simt", outputs=(1, 2))
_add("mixed_promotion", mixed_promotion, [((256,), "float16"), ((256,), "int32"), ((256,), "float32"), 0.5, 128],
     (2,), "simt", outputs=(2,))
_add("pow_isnan", pow_isnan, [((256,), "float32"), ((256,), "float32"), 128], (2,), "simt", outputs=(1,))
_add("strided_tile_sum", strided_tile_sum, [((1000,), "float32"), ((64,), "float32"), 1, 3, 64], (1,), "simt",
     outputs=(1,))
_add("newton_rsqrt_while", newton_rsqrt_while, [((256,), "float32"), ((256,), "float32"), 1e-6, 128], (2,), "simt",
     outputs=(1,))
_add("nested_if_modes", nested_if_modes, [((256,), "float32"), ((256,), "float32"), 2, True, 128], (2,), "simt",
     outputs=(1,))
@ct.kernel
def tanh_rows(x, y, z, n: ct.Constant[int]):
    """``tanh`` at cuTile's default (full) precision into ``y`` and with ``rounding_mode=APPROX``
    into ``z``."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    ct.store(y, index=(i,), tile=ct.tanh(t))
    ct.store(z, index=(i,), tile=ct.tanh(t, rounding_mode=ct.RoundingMode.APPROX))


_add("tanh_rows", tanh_rows, [((4096,), "float32"), ((4096,), "float32"), ((4096,), "float32"), 256], (16,), "simt",
     outputs=(1, 2))
_add("helper_and_static_iter", helper_and_static_iter, [((512,), "float32"), ((128,), "float32"), 64, 4], (2,),
     "simt", outputs=(1,))
_add("loop_tail_mask", loop_tail_mask, [((1000,), "float32"), ((1000,), "float32"), 1000, 128], (3,), "simt",
     outputs=(1,))
_add("row_gather_scatter_add", row_gather_scatter_add, [((8, 64), "float32"), ((8,), "int32"), ((4, 64), "float32"),
                                                        64], (8,), "simt", outputs=(2,))
_add("atomic_max_rows", atomic_max_rows, [((6, 64), "int32"), ((1,), "int32"), 64], (6,), "simt", outputs=(1,))
_add("divisible_hint", divisible_hint, [((1024,), "float32"), ((256,), "float32"), 1024, 128], (2,), "simt",
     outputs=(1,))


# ----------------------------------------------------------------------------------------------- more idioms


@ct.kernel
def gemm_persistent(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The samples' persistent GEMM: each program walks output tiles ``bid, bid + num_blocks, ...``
    (row-major tile order from one counter)."""
    n_m = ct.cdiv(A.shape[0], tm)
    n_n = ct.cdiv(B.shape[1], tn)
    for tile in range(ct.bid(0), n_m * n_n, ct.num_blocks(0)):
        pm = tile // n_n
        pn = tile % n_n
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(pm, k), shape=(tm, tk)), ct.load(B, index=(k, pn), shape=(tk, tn)), acc)
        ct.store(C, index=(pm, pn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_b_colmajor(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """B read through ``order="F"``: the tile space of B's transpose, so B is stored ``[N, K]``
    (an nn.Linear weight) and the program computes ``A @ B^T``."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(pid_m, k), shape=(tm, tk))
        b = ct.load(B, index=(k, pid_n), shape=(tk, tn), order="F")
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(pid_m, pid_n), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_fp8(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """fp8 e4m3 operands, an f32 accumulator, a bf16 output."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    ct.store(C, index=(pid_m, pid_n), tile=acc.astype(ct.bfloat16))


@ct.kernel
def fp8_quant_rows(X, Q, S, N: ct.Constant[int]):
    """Per-row fp8 quantisation: ``scale = 448 / absmax``, ``q = fp8(x * scale)``, ``1 / scale`` stored."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=ZERO).astype(ct.float32)
    amax = ct.maximum(ct.max(ct.abs(x), axis=1, keepdims=True), 1e-12)
    scale = 448.0 / amax
    ct.store(Q, index=(r, 0), tile=(x * scale).astype(ct.float8_e4m3fn))
    ct.store(S, index=(r,), tile=ct.reshape(1.0 / scale, (1,)))


@ct.kernel
def uint8_normalize(img, mean, out, n: ct.Constant[int]):
    """uint8 pixels to ``p / 255 - mean`` (the mean a device scalar, ``ct.gather(mean, 0)``)."""
    i = ct.bid(0)
    p = ct.load(img, index=(i,), shape=(n,), padding_mode=ZERO)
    m = ct.gather(mean, 0)
    ct.store(out, index=(i,), tile=p.astype(ct.float32) / 255.0 - m)


@ct.kernel
def int_div_scalar(x, y, k: int, n: ct.Constant[int]):
    """Integer ops by a runtime scalar through the named functions: ``(t // k) ^ (t & 7) + ((t % k) << 1)``."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    ct.store(y, index=(i,), tile=ct.bitwise_xor(t // k, ct.bitwise_and(t, 7)) + ct.bitwise_lshift(t % k, 1))


@ct.kernel
def sum_all_axes_3d(x, y, b: ct.Constant[int], c: ct.Constant[int]):
    """A (1, b, c) tile summed over axis 2 then axis 1: one value per program."""
    t = ct.load(x, index=(ct.bid(0), 0, 0), shape=(1, b, c))
    ct.store(y, index=(ct.bid(0),), tile=ct.sum(ct.sum(t, axis=2), axis=1))


@ct.kernel
def softmax_exp2_ftz(X, Y, N: ct.Constant[int]):
    """Softmax through ``exp2`` of ``x * log2(e)`` with ``flush_to_zero`` and an approximate division."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=NEG_INF).astype(ct.float32) * LOG2E
    e = ct.exp2(x - ct.max(x, axis=1, keepdims=True), flush_to_zero=True)
    y = ct.truediv(e, ct.sum(e, axis=1, keepdims=True), flush_to_zero=True, rounding_mode=ct.RoundingMode.APPROX)
    ct.store(Y, index=(r, 0), tile=y.astype(Y.dtype))


@ct.kernel
def cumsum_bool_count(m, y, n: ct.Constant[int]):
    """Running count of set flags in each tile (a bool tile cast to int32, ``ct.cumsum``)."""
    t = ct.load(m, index=(ct.bid(0),), shape=(n,), padding_mode=ZERO)
    ct.store(y, index=(ct.bid(0),), tile=ct.cumsum(t.astype(ct.int32), axis=0))


@ct.kernel
def max_int8(x, y, n: ct.Constant[int]):
    """Row maximum of int8 values, stored as int8."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n))
    ct.store(y, index=(ct.bid(0),), tile=ct.max(t, axis=1))


_add("gemm_persistent", gemm_persistent, [((512, 256), "float16"), ((256, 384), "float16"), ((512, 384), "float16"),
                                          128, 128, 64], (5,), "gemm", outputs=(2,))
_add("gemm_b_colmajor", gemm_b_colmajor, [((256, 192), "float16"), ((256, 192), "float16"), ((256, 256), "float16"),
                                          128, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("gemm_fp8", gemm_fp8, [((256, 256), "float8_e4m3fn"), ((256, 256), "float8_e4m3fn"), ((256, 256), "bfloat16"),
                            128, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("fp8_quant_rows", fp8_quant_rows, [((4, 300), "bfloat16"), ((4, 300), "float8_e4m3fn"), ((4,), "float32"), 512],
     (4,), "simt", outputs=(1, 2))
_add("uint8_normalize", uint8_normalize, [((1000,), "uint8"), ((1,), "float32"), ((1000,), "float32"), 256], (4,),
     "simt", outputs=(2,))
_add("int_div_scalar", int_div_scalar, [((256,), "int32"), ((256,), "int32"), 7, 128], (2,), "simt", outputs=(1,))
_add("sum_all_axes_3d", sum_all_axes_3d, [((3, 8, 16), "float32"), ((3,), "float32"), 8, 16], (3,), "simt",
     outputs=(1,))
_add("softmax_exp2_ftz", softmax_exp2_ftz, [((4, 300), "float16"), ((4, 300), "float16"), 512], (4,), "simt",
     outputs=(1,))
_add("cumsum_bool_count", cumsum_bool_count, [((300,), "bool_"), ((300,), "int32"), 128], (3,), "simt",
     outputs=(1,))
_add("max_int8", max_int8, [((4, 64), "int8"), ((4,), "int8"), 64], (4,), "simt", outputs=(1,))


@ct.kernel
def float_mod_floordiv(x, y, z, n: ct.Constant[int]):
    """Float ``%`` and ``//`` (Python semantics: the sign of the divisor, floor) and ``** 0.5``."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.store(y, index=(ct.bid(0),), tile=t % 0.75)
    ct.store(z, index=(ct.bid(0),), tile=t // 0.5 + ct.abs(t) ** 0.5)


@ct.kernel
def atomics_bits(flags, vals, n: ct.Constant[int]):
    """Bitwise atomics: ``atomic_or`` at an index tile, ``atomic_xor`` of an xor-reduction (a
    lambda), ``atomic_xchg`` of the tile's maximum."""
    i = ct.bid(0)
    v = ct.load(vals, index=(i,), shape=(n,))
    lanes = ct.arange(n, dtype=ct.int32) % 4
    ct.atomic_or(flags, lanes, v & 0xF)
    ct.atomic_xor(flags, 4 + i, ct.reduce(v, axis=0, func=lambda a, b: a ^ b, identity=0))
    ct.atomic_xchg(flags, 6 + i, ct.max(v))


@ct.kernel
def batched_tile2(A, B, C, bt: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Two batches per program: a 3-D ``ct.mma`` on ``[bt, tm, tk] x [bt, tk, tn]`` tiles."""
    b = ct.bid(0)
    acc = ct.zeros((bt, tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(bt, tm, tk))):
        a = ct.load(A, index=(b, 0, k), shape=(bt, tm, tk))
        acc = ct.mma(a, ct.load(B, index=(b, k, 0), shape=(bt, tk, tn)), acc)
    ct.store(C, index=(b, 0, 0), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_const_k(A, B, C, KT: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The K trip count a compile-time constant (``range(KT)``)."""
    pid_m, pid_n = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(KT):
        acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk)), ct.load(B, index=(k, pid_n), shape=(tk, tn)), acc)
    ct.store(C, index=(pid_m, pid_n), tile=acc.astype(C.dtype))


@ct.kernel
def mlp_gelu_chain(X, W1, W2, Y, TM: ct.Constant[int], TH: ct.Constant[int], D: ct.Constant[int],
                   DO: ct.Constant[int]):
    """``gelu_tanh(X @ W1) @ W2`` fused over hidden tiles (two chained dots)."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(TM, D))
    acc = ct.zeros((TM, DO), dtype=ct.float32)
    for j in range(ct.num_tiles(W1, axis=1, shape=(D, TH))):
        h = ct.mma(x, ct.load(W1, index=(0, j), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        h = 0.5 * h * (1.0 + ct.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h)))
        acc = ct.mma(h.astype(ct.float16), ct.load(W2, index=(j, 0), shape=(TH, DO)), acc)
    ct.store(Y, index=(bm, 0), tile=acc.astype(Y.dtype))


@ct.kernel
def cat_cols_2d(x, z, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    """``ct.cat`` of two 2-D tiles along axis 1 (z first)."""
    i = ct.bid(0)
    a = ct.load(x, index=(i, 0), shape=(tm, tn))
    b = ct.load(z, index=(i, 0), shape=(tm, tn))
    ct.store(y, index=(i, 0), tile=ct.cat((b, a), axis=1))


@ct.kernel
def extract_dynamic(x, y, n: ct.Constant[int], parts: ct.Constant[int]):
    """``ct.extract`` of row ``bid`` (a runtime index) of a reshaped tile."""
    t = ct.load(x, index=(0,), shape=(n * parts,))
    h = ct.reshape(t, (parts, n))
    row = ct.extract(h, index=(ct.bid(0), 0), shape=(1, n))
    ct.store(y, index=(ct.bid(0), 0), tile=row * 2.0)


@ct.kernel
def f16_scalar_math(x, y, n: ct.Constant[int]):
    """f16 math without casts: ``rsqrt``, ``exp``, ``minimum`` with float constants."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.store(y, index=(ct.bid(0),), tile=ct.rsqrt(ct.abs(t) + 1.0) * ct.exp(t * 0.5) + ct.minimum(t, 0.25))


@ct.kernel
def argmax_int_tile(x, idx, n: ct.Constant[int]):
    """``ct.argmax`` of int32 rows padded with zeros."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n), padding_mode=ZERO)
    ct.store(idx, index=(ct.bid(0),), tile=ct.argmax(t, axis=1))

_add("float_mod_floordiv", float_mod_floordiv, [((256,), "float32"), ((256,), "float32"), ((256,), "float32"), 128],
     (2,), "simt", outputs=(1, 2))
_add("atomics_bits", atomics_bits, [((8,), "int32"), ((256,), "int32"), 128], (2,), "simt", outputs=(0,))
# more than one batch per program, the batch on program id 0, M and N one tile each: the tier splits
# the batch tile, moves the batch to axis 2 and runs the batched WGMMA GEMM (split_batch_tiles.py)
_add("batched_tile2", batched_tile2, [((4, 64, 128), "float16"), ((4, 128, 64), "float16"), ((4, 64, 64), "float16"),
                                      2, 64, 64, 32], (2,), "gemm", outputs=(2,))
_add("gemm_const_k", gemm_const_k, _F16_GEMM + [((256, 256), "float16"), 3, 128, 128, 64], (2, 2), "gemm",
     outputs=(2,))
_add("mlp_gelu_chain", mlp_gelu_chain, [((256, 64), "float16"), ((64, 256), "float16"), ((256, 64), "float16"),
                                        ((256, 64), "float16"), 128, 64, 64, 64], (2,), "chained", outputs=(3,))
_add("cat_cols_2d", cat_cols_2d, [((16, 32), "float32"), ((16, 32), "float32"), ((16, 64), "float32"), 8, 32], (2,),
     "simt", outputs=(2,))
_add("extract_dynamic", extract_dynamic, [((256,), "float32"), ((4, 64), "float32"), 64, 4], (4,), "simt",
     outputs=(1,))
_add("f16_scalar_math", f16_scalar_math, [((256,), "float16"), ((256,), "float16"), 128], (2,), "simt", outputs=(1,))
_add("argmax_int_tile", argmax_int_tile, [((4, 100), "int32"), ((4,), "int32"), 128], (4,), "simt", outputs=(1,))
