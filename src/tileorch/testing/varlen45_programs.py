"""Session 45's varlen attention programs (issue 20): FlashAttention's varlen form on packed ``[T, H, D]`` buffers with
``cu_seqlens`` (``CuSeq [B + 1]``), Q, K and V rows gathered with ``ct.gather`` at ``start + positions`` under a row mask
(a Triton port's pointer loads), O scattered back at the same rows; a sequence uses the first ``Used[b]`` rows of its
part of the buffer (FlashAttention's ``seqused_k``: the rest, up to the next sequence, is not its own) — the form ``tileas-row-window-gather`` makes TMA
tiles of row windows.  Variants of ``attnsweep43_programs.a43_varlen_gathered`` (causal, MHA, d64): non-causal, GQA
(the KV head ``h // G``), head dim 128, bf16, sequences shorter than one tile and empty ones; and one whose key rows
are not consecutive (``start + 2 positions``: stays refused at its gather).  Program ``(query tile, h, b)``; tiles past
a sequence's end leave early.  Scales in log2 units (``exp2``).  Each entry a
:class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`; :func:`reference` the numpy float64 one, per
sequence.  Driven by tests/unit/test_varlen45_emulated.py and tests/gpu/test_varlen45_gpu.py.  Needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct
import numpy as np

from tileorch.testing.user_programs import LOG2E, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
C = ct.Constant
INF = math.inf


@ct.kernel
def a45_varlen_causal(Q, K, V, CuSeq, Used, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int], G: C[int]):
    """Causal within each sequence; KV head ``h // G``."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    hk = h // G
    start = ct.gather(CuSeq, b)
    n = ct.gather(Used, b)
    if qt * BM >= n:
        return
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    qrow = qt * BM + ct.arange(BM, dtype=ct.int32)
    qvalid = (qrow < n)[:, None]
    q = ct.gather(Q, (start + qrow[:, None], h, cols), mask=qvalid, padding_value=0.0)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(min((qt + 1) * BM, n), BN)):
        krow = j * BN + ct.arange(BN, dtype=ct.int32)
        kvalid = (krow < n)[:, None]
        k = ct.gather(K, (start + krow[:, None], hk, cols), mask=kvalid, padding_value=0.0)
        v = ct.gather(V, (start + krow[:, None], hk, cols), mask=kvalid, padding_value=0.0)
        ok = (krow[None, :] <= qrow[:, None]) & (krow[None, :] < n)
        s = ct.where(ok, ct.matmul(q, k.transpose()) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.scatter(O, (start + qrow[:, None], h, cols), (acc / l_i).astype(O.dtype), mask=qvalid)


@ct.kernel
def a45_varlen_full(Q, K, V, CuSeq, Used, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int], G: C[int]):
    """Non-causal: every key of the sequence (the keys past its end masked); KV head ``h // G``."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    hk = h // G
    start = ct.gather(CuSeq, b)
    n = ct.gather(Used, b)
    if qt * BM >= n:
        return
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    qrow = qt * BM + ct.arange(BM, dtype=ct.int32)
    qvalid = (qrow < n)[:, None]
    q = ct.gather(Q, (start + qrow[:, None], h, cols), mask=qvalid, padding_value=0.0)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        krow = j * BN + ct.arange(BN, dtype=ct.int32)
        kvalid = (krow < n)[:, None]
        k = ct.gather(K, (start + krow[:, None], hk, cols), mask=kvalid, padding_value=0.0)
        v = ct.gather(V, (start + krow[:, None], hk, cols), mask=kvalid, padding_value=0.0)
        s = ct.where(krow[None, :] < n, ct.matmul(q, k.transpose()) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.scatter(O, (start + qrow[:, None], h, cols), (acc / l_i).astype(O.dtype), mask=qvalid)


@ct.kernel
def a45_varlen_no_exit(Q, K, V, CuSeq, Used, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int], G: C[int]):
    """Non-causal without the early exit: a query tile past its sequence's end runs the key loop too (its rows all
    past the end: the masked scatter stores none of them); no branch around the chain (a persistent kernel)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    hk = h // G
    start = ct.gather(CuSeq, b)
    n = ct.gather(Used, b)
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    qrow = qt * BM + ct.arange(BM, dtype=ct.int32)
    qvalid = (qrow < n)[:, None]
    q = ct.gather(Q, (start + qrow[:, None], h, cols), mask=qvalid, padding_value=0.0)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        krow = j * BN + ct.arange(BN, dtype=ct.int32)
        kvalid = (krow < n)[:, None]
        k = ct.gather(K, (start + krow[:, None], hk, cols), mask=kvalid, padding_value=0.0)
        v = ct.gather(V, (start + krow[:, None], hk, cols), mask=kvalid, padding_value=0.0)
        s = ct.where(krow[None, :] < n, ct.matmul(q, k.transpose()) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.scatter(O, (start + qrow[:, None], h, cols), (acc / l_i).astype(O.dtype), mask=qvalid)


@ct.kernel
def a45_varlen_q_dense_kv(Q, K, V, CuSeq, Used, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int], G: C[int]):
    """Packed query rows (gathered at ``start + positions``) against a dense ``[B, S, H, D]`` context read by
    ``ct.load`` tiles (cross attention of varlen queries to one padded context per batch): Q alone a row window, K / V
    by TMA as before (the pipelined loop)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    start = ct.gather(CuSeq, b)
    n = ct.gather(Used, b)
    if qt * BM >= n:
        return
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    qrow = qt * BM + ct.arange(BM, dtype=ct.int32)
    qvalid = (qrow < n)[:, None]
    q = ct.gather(Q, (start + qrow[:, None], h, cols), mask=qvalid, padding_value=0.0)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(K.shape[1] // BN):
        k = ct.load(K, index=(b, j, h // G, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        v = ct.load(V, index=(b, j, h // G, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        s = ct.matmul(q, k.transpose()) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.scatter(O, (start + qrow[:, None], h, cols), (acc / l_i).astype(O.dtype), mask=qvalid)


@ct.kernel
def a45_varlen_padded_keys(Q, K, V, CuSeq, Used, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int], G: C[int]):
    """Non-causal with no key mask on the scores: the keys past a sequence's end are the gather's zero rows, each a
    score of 0 in the softmax (the sequence padded with zero keys and values to whole key tiles)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    hk = h // G
    start = ct.gather(CuSeq, b)
    n = ct.gather(Used, b)
    if qt * BM >= n:
        return
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    qrow = qt * BM + ct.arange(BM, dtype=ct.int32)
    qvalid = (qrow < n)[:, None]
    q = ct.gather(Q, (start + qrow[:, None], h, cols), mask=qvalid, padding_value=0.0)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        krow = j * BN + ct.arange(BN, dtype=ct.int32)
        kvalid = (krow < n)[:, None]
        k = ct.gather(K, (start + krow[:, None], hk, cols), mask=kvalid, padding_value=0.0)
        v = ct.gather(V, (start + krow[:, None], hk, cols), mask=kvalid, padding_value=0.0)
        s = ct.matmul(q, k.transpose()) * qk_scale
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.scatter(O, (start + qrow[:, None], h, cols), (acc / l_i).astype(O.dtype), mask=qvalid)


@ct.kernel
def a45_varlen_strided_keys(Q, K, V, CuSeq, Used, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int], G: C[int]):
    """Keys at every other row of the sequence (``start + 2 krow``): not a contiguous box (stays refused, located)."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    start = ct.gather(CuSeq, b)
    n = ct.gather(Used, b)
    if qt * BM >= n:
        return
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    qrow = qt * BM + ct.arange(BM, dtype=ct.int32)
    qvalid = (qrow < n)[:, None]
    q = ct.gather(Q, (start + qrow[:, None], h, cols), mask=qvalid, padding_value=0.0)
    m_i = ct.full((BM, 1), -INF, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(n, 2 * BN)):
        krow = j * BN + ct.arange(BN, dtype=ct.int32)
        kvalid = (2 * krow < n)[:, None]
        k = ct.gather(K, (start + 2 * krow[:, None], h, cols), mask=kvalid, padding_value=0.0)
        v = ct.gather(V, (start + 2 * krow[:, None], h, cols), mask=kvalid, padding_value=0.0)
        s = ct.where(2 * krow[None, :] < n, ct.matmul(q, k.transpose()) * qk_scale, -INF)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new
    ct.scatter(O, (start + qrow[:, None], h, cols), (acc / l_i).astype(O.dtype), mask=qvalid)


F16, BF16, I32 = "float16", "bfloat16", "int32"
LENS = {"mixed": ((150, 5), (64, 3), (200, 9)), "short": ((5, 2), (0, 4), (37, 8), (0, 0), (64, 7), (1, 8))}
"""Per sequence (rows used, rows after them up to the next sequence's start): ragged lengths, and lengths shorter than
a tile with empty sequences among them; the rows after a sequence hold Inf / NaN in the tests."""


def cu_seqlens(lens) -> np.ndarray:
    return np.concatenate([[0], np.cumsum([n + gap for n, gap in lens])]).astype(np.int32)


def used(lens) -> np.ndarray:
    return np.array([n for n, _ in lens], np.int32)


def _spec(lens, h, hk, d, dt=F16, bm=64, g=1):
    t = int(cu_seqlens(lens)[-1])
    return ([((t, h, d), dt), ((t, hk, d), dt), ((t, hk, d), dt), ((len(lens) + 1,), I32), ((len(lens),), I32),
             ((t, h, d), dt), LOG2E / math.sqrt(d), bm, 64, d, g],
            (max(1, -(-max(n for n, _ in lens) // bm)), h, len(lens)))


def _reg(name, kernel, lens, h, hk, d, dt=F16, bm=64, path="chained", error="", notes=""):
    spec, grid = _spec(LENS[lens], h, hk, d, dt, bm, h // hk)
    _add(name, kernel, spec, grid, path, error=error, notes=notes or name, outputs=(5,))


WHICH = {}
"""Program name -> its LENS key."""
for _name, _k, _l, _h, _hk, _d, _dt, _notes in (
        ("a45_causal_d64", a45_varlen_causal, "mixed", 2, 2, 64, F16, "causal, MHA, head dim 64"),
        ("a45_full_d64", a45_varlen_full, "mixed", 2, 2, 64, F16, "non-causal, MHA, head dim 64"),
        ("a45_short_d64", a45_varlen_causal, "short", 2, 2, 64, F16, "sequences of 5, 0, 37, 0, 64, 1 rows (causal)"),
        ("a45_gqa_d64", a45_varlen_full, "mixed", 4, 2, 64, F16, "GQA 2:1 (KV head h // 2), non-causal"),
        ("a45_causal_d128", a45_varlen_causal, "mixed", 2, 2, 128, F16, "causal, head dim 128"),
        ("a45_causal_bf16_d64", a45_varlen_causal, "mixed", 2, 2, 64, BF16, "causal, bf16"),
        ("a45_gqa_bf16_d128", a45_varlen_full, "short", 4, 1, 128, BF16, "MQA (one KV head), bf16, head dim 128"),
        ("a45_causal_bm128_d64", a45_varlen_causal, "mixed", 2, 2, 64, F16,
         "causal, 128-row query tiles (two consumer warp groups share each K / V stage)"),
        ("a45_no_exit_d64", a45_varlen_no_exit, "short", 2, 2, 64, F16,
         "non-causal, no early exit (a persistent kernel; empty sequences run no key tile)"),
        ("a45_padded_keys_d64", a45_varlen_padded_keys, "mixed", 2, 2, 64, F16,
         "no key mask: the zero keys past a sequence's end count in the softmax (K's zeroed rows matter)")):
    _reg(_name, _k, _l, _h, _hk, _d, _dt, bm=128 if "bm128" in _name else 64, notes=_notes)
    WHICH[_name] = _l
_SKV = 256
"""The dense context's keys (``a45_q_dense_kv``)."""
_qspec, _qgrid = _spec(LENS["short"], 2, 2, 64)
_qspec[1] = _qspec[2] = ((len(LENS["short"]), _SKV, 2, 64), F16)
_add("a45_q_dense_kv_d64", a45_varlen_q_dense_kv, _qspec, _qgrid, "chained", notes="varlen queries (a row window) "
     "against a dense [B, 256, H, D] context (K / V by ct.load: the pipelined loop)", outputs=(5,))
WHICH["a45_q_dense_kv_d64"] = "short"
_reg("a45_strided_keys_d64", a45_varlen_strided_keys, "mixed", 2, 2, 64, path="simt", error="gathered",
     notes="keys at every other row: no contiguous box (refused at K's gather)")
WHICH["a45_strided_keys_d64"] = "mixed"
POISON = (np.inf, -np.inf, np.nan)


def inputs(name: str, make) -> dict:
    """Argument position -> input array: Q, K, V from ``make(shape, dtype)`` with **Inf, -Inf and NaN planted in every
    row no sequence uses** (the rows after each sequence's used ones, before the next one's start); ``CuSeq``,
    ``Used``."""
    p, lens = PROGRAMS[name], LENS[WHICH[name]]
    x = {i: make(p.spec[i][0], p.spec[i][1]) for i in range(3)}
    cu = cu_seqlens(lens)
    for (n, gap), a in zip(lens, cu[:-1].tolist()):
        for r in range(a + n, a + n + gap):
            for i in range(3):
                if x[i].ndim == 3:  # (a packed [T, H, D] array; a dense context has no unused rows)
                    x[i][r] = POISON[r % 3]
    x[3], x[4] = cu, used(lens)
    return x


def _attn(q, k, v, scale, causal):
    s = np.asarray(q, np.float64) @ np.asarray(k, np.float64).T * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape, bool)), s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e @ np.asarray(v, np.float64)) / e.sum(axis=-1, keepdims=True)


def reference(name: str, x: dict) -> np.ndarray:
    """O in float64, NaN in every row no sequence uses (the kernel writes only its sequences' rows)."""
    p, lens = PROGRAMS[name], LENS[WHICH[name]]
    q, k, v = (np.asarray(x[i], np.float64) for i in range(3))
    h, hk = q.shape[1], k.shape[-2]
    scale = p.spec[6] / LOG2E  # natural units
    causal = p.kernel is a45_varlen_causal
    out = np.full(q.shape, np.nan)
    for bi, ((n, _), a) in enumerate(zip(lens, cu_seqlens(lens)[:-1].tolist())):
        pad = -(-n // 64) * 64 - n if p.kernel is a45_varlen_padded_keys else 0  # zero keys / values to whole tiles
        for hh in range(h):
            if n and p.kernel is a45_varlen_q_dense_kv:  # the batch's whole dense context, every key
                out[a:a + n, hh] = _attn(q[a:a + n, hh], k[bi, :, hh // (h // hk)], v[bi, :, hh // (h // hk)], scale,
                                         False)
            elif n:
                kk = np.concatenate([k[a:a + n, hh // (h // hk)], np.zeros((pad, k.shape[2]))])
                vv = np.concatenate([v[a:a + n, hh // (h // hk)], np.zeros((pad, v.shape[2]))])
                out[a:a + n, hh] = _attn(q[a:a + n, hh], kk, vv, scale, causal)
    return out
