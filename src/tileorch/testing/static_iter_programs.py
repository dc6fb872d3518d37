"""cuTile dot programs whose loop is unrolled at compile time (``ct.static_iter``) or written out by
hand: the Tile IR holds straight-line copies of the loop body, which ``tileas-reroll-unrolled-loops``
rolls back into a loop for the tensor-core tiers.

* ``attn_static_kv``: FlashAttention forward over a constant number ``KT`` of key tiles
  (``for j in ct.static_iter(range(KT))``: three carried values, the running max, sum and output);
* ``attn_static_kv_masked``: the same with the keys past a launch-time length masked (each copy's
  key positions a constant tile: a progression of splat tiles);
* ``mm_static_iter_bias``: a GEMM whose K loop is ``ct.static_iter(range(KT))``, with a bias
  (a row of N) added and ReLU applied in the epilogue, stored as f16;
* ``mm_persistent_static_k``: a persistent GEMM (a loop over the output tiles) with that K loop;
* ``mm_k_written_out``: the three K steps of a GEMM written out one after another by hand.

Each is a :class:`tileorch.testing.user_programs.UserProgram` (``spec``, grid, the path it takes) in
``PROGRAMS``; tests/unit/test_static_iter_programs.py runs them on the PTX emulator,
tests/gpu/test_static_iter_gpu.py on the GPU.  Importing this module needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)


@ct.kernel
def attn_static_kv(Q, K, V, O, qk_scale: float, KT: ct.Constant[int], TILE_M: ct.Constant[int],
                   TILE_N: ct.Constant[int], D: ct.Constant[int]):
    """Attention over ``KT * TILE_N`` keys, the key loop unrolled by ``ct.static_iter``; Q, K, V, O
    ``[BH, S, D]``, grid ``(S / TILE_M, BH)``, ``qk_scale`` the softmax scale times log2(e)."""
    bm, bh = ct.bid(0), ct.bid(1)
    q = ct.reshape(ct.load(Q, index=(bh, bm, 0), shape=(1, TILE_M, D)), (TILE_M, D))
    m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE_M, D), 0.0, dtype=ct.float32)
    for j in ct.static_iter(range(KT)):
        k = ct.reshape(ct.load(K, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
        s = ct.mma(q, ct.transpose(k), ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32))
        m_ij = ct.maximum(m_i, ct.max(s, axis=-1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - m_ij)
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.reshape(ct.load(V, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_ij
    out = acc / l_i
    ct.store(O, index=(bh, bm, 0), tile=ct.reshape(out.astype(O.dtype), (1, TILE_M, D)))


@ct.kernel
def attn_static_kv_masked(Q, K, V, O, qk_scale: float, kv_len: int, KT: ct.Constant[int], TILE_M: ct.Constant[int],
                          TILE_N: ct.Constant[int], D: ct.Constant[int]):
    """``attn_static_kv`` with the keys at or past ``kv_len`` (a launch argument) masked to ``-inf``:
    ``j * TILE_N + cols`` of a static ``j`` is a constant tile in each copy (0, 64, 128, ...)."""
    bm, bh = ct.bid(0), ct.bid(1)
    q = ct.reshape(ct.load(Q, index=(bh, bm, 0), shape=(1, TILE_M, D)), (TILE_M, D))
    cols = ct.arange(TILE_N, dtype=ct.int32)[None, :]
    m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TILE_M, D), 0.0, dtype=ct.float32)
    for j in ct.static_iter(range(KT)):
        k = ct.reshape(ct.load(K, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
        s = ct.mma(q, ct.transpose(k), ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32))
        s = ct.where(j * TILE_N + cols < kv_len, s, -math.inf)
        m_ij = ct.maximum(m_i, ct.max(s, axis=-1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - m_ij)
        alpha = ct.exp2(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
        v = ct.reshape(ct.load(V, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_ij
    out = acc / l_i
    ct.store(O, index=(bh, bm, 0), tile=ct.reshape(out.astype(O.dtype), (1, TILE_M, D)))


@ct.kernel
def mm_static_iter_bias(A, B, bias, C, KT: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                        tk: ct.Constant[int]):
    """``C = relu(A @ B + bias)`` (f16), the K loop over ``KT`` tiles unrolled by ``ct.static_iter``;
    ``bias`` f32 ``[N]``."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in ct.static_iter(range(KT)):
        a = ct.load(A, index=(i, k), shape=(tm, tk))
        b = ct.load(B, index=(k, j), shape=(tk, tn))
        acc = ct.mma(a, b, acc)
    acc = acc + ct.load(bias, index=(j,), shape=(tn,))[None, :]
    ct.store(C, index=(i, j), tile=ct.maximum(acc, 0.0).astype(C.dtype))


@ct.kernel
def mm_persistent_static_k(A, B, C, KT: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                           tk: ct.Constant[int]):
    """A persistent GEMM (``for t in range(bid(0), tiles, num_blocks(0))``, row-major tile order) whose
    K loop is ``ct.static_iter(range(KT))``: cuTile hoists each copy's views out of the tile loop."""
    n_m = ct.cdiv(A.shape[0], tm)
    n_n = ct.cdiv(B.shape[1], tn)
    for t in range(ct.bid(0), n_m * n_n, ct.num_blocks(0)):
        pm = t // n_n
        pn = t % n_n
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in ct.static_iter(range(KT)):
            acc = ct.mma(ct.load(A, index=(pm, k), shape=(tm, tk)), ct.load(B, index=(k, pn), shape=(tk, tn)), acc)
        ct.store(C, index=(pm, pn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_k_written_out(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A GEMM over K = 3 * tk with its three K steps written out by hand (no loop)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(i, 0), shape=(tm, tk)), ct.load(B, index=(0, j), shape=(tk, tn)), acc)
    acc = ct.mma(ct.load(A, index=(i, 1), shape=(tm, tk)), ct.load(B, index=(1, j), shape=(tk, tn)), acc)
    acc = ct.mma(ct.load(A, index=(i, 2), shape=(tm, tk)), ct.load(B, index=(2, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


_add("attn_static_kv", attn_static_kv, [((2, 256, 64), "float16")] * 3 + [((2, 256, 64), "float16"),
                                                                          LOG2E / math.sqrt(64), 4, 128, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("attn_static_kv_masked", attn_static_kv_masked, [((2, 256, 64), "float16")] * 4 + [
    LOG2E / math.sqrt(64), 200, 4, 128, 64, 64], (2, 2), "chained", outputs=(3,))
_add("mm_static_iter_bias", mm_static_iter_bias, [((256, 256), "float16"), ((256, 256), "float16"),
                                                  ((256,), "float32"), ((256, 256), "float16"), 4, 128, 128, 64],
     (2, 2), "gemm", outputs=(3,))
_add("mm_persistent_static_k", mm_persistent_static_k, [((384, 256), "float16"), ((256, 256), "float16"),
                                                        ((384, 256), "float16"), 4, 128, 128, 64],
     (2,), "gemm", outputs=(2,))
_add("mm_k_written_out", mm_k_written_out, [((128, 192), "float16"), ((192, 256), "float16"),
                                            ((128, 256), "float32"), 128, 128, 64], (1, 2), "gemm", outputs=(2,))
