"""Inputs and float64 numpy references of session 43's attention-shaped sweep
(:mod:`tileorch.testing.attnsweep43_programs`), written from the programs' docstrings, shared by the CPU emulator's
test (numpy inputs) and the GPU test (torch inputs, compared after a copy to numpy).

:func:`inputs` builds a program's input arrays with ``make(shape, dtype_name)`` (a random array of the backend) and
its integer / small float side arrays with ``host(numpy array)`` (the backend's copy).  :func:`reference` takes those
inputs as numpy arrays (any float type) and returns {output position: float64 array}.  Importing it needs
``cuda.tile`` (the program table)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tileorch.testing import attnsweep43_programs as P
from tileorch.testing.attnsweep43_programs import NATURAL, PAGED_CTX, PAGED_NB, PROGRAMS, VARLEN
from tileorch.testing.user_programs import LOG2E

LN2 = math.log(2.0)


def alibi_slopes(h: int) -> np.ndarray:
    """ALiBi's slopes for ``h`` heads: ``2^(-8 (i + 1) / h)``."""
    return np.array([2.0 ** (-8.0 * (i + 1) / h) for i in range(h)], np.float32)


def prefix_lengths() -> np.ndarray:
    return np.array([90, 130], np.int32)


def sinks(h: int) -> np.ndarray:
    """Learned sink logits (natural units), one per head, large enough to matter."""
    return np.array([1.5, -0.5, 3.0, 0.0][:h], np.float32)


def block_table() -> np.ndarray:
    """Two sequences' pages (6 each) of the 16-page pool: disjoint, scrambled."""
    perm = np.random.default_rng(4343).permutation(PAGED_NB)[:12]
    return perm.reshape(2, 6).astype(np.int32)


def _tiles(n: int, bm: int = 64) -> int:
    return -(-n // bm)


def cu_tiles() -> np.ndarray:
    return np.concatenate([[0], np.cumsum([_tiles(n) for n in VARLEN])]).astype(np.int32)


def cu_seqlens() -> np.ndarray:
    return np.concatenate([[0], np.cumsum(VARLEN)]).astype(np.int32)


def _scalar(p, k: int):
    """The spec's ``k``-th non-array argument."""
    return [s for s in p.spec if not isinstance(s, tuple)][k]


def scale_of(name: str) -> float:
    """The softmax's natural scale of program ``name``."""
    p = PROGRAMS[name]
    x = _scalar(p, 0)
    return x if p.kernel in NATURAL else x / LOG2E


def inputs(name: str, make: Callable, host: Callable) -> dict:
    """Argument position -> input array of program ``name`` (every array it reads)."""
    p = PROGRAMS[name]
    kern, spec = p.kernel, p.spec
    x = {i: make(spec[i][0], spec[i][1]) for i in range(3)}
    if kern is P.a43_alibi_causal:
        x[3] = host(alibi_slopes(spec[0][0][1]))
    elif kern is P.a43_bias_tile:
        x[3] = make(spec[3][0], spec[3][1])
    elif kern is P.a43_prefix_lm_lens:
        x[3] = host(prefix_lengths())
    elif kern is P.a43_sink_state:
        x[3] = host(sinks(spec[0][0][1]))
    elif kern is P.a43_sink_block_dot_before:
        x[3], x[4] = make(spec[3][0], spec[3][1]), make(spec[4][0], spec[4][1])
    elif kern is P.a43_paged_prefill:
        x[3] = host(block_table())
    elif kern is P.a43_varlen_padded_tiles:
        x[3], x[4] = host(cu_tiles()), host(np.array(VARLEN, np.int32))
    elif kern is P.a43_varlen_gathered:
        x[3] = host(cu_seqlens())
    return x


def _attn(q, k, v, scale, keep=None, bias=None, cap=None, sink=None):
    """Softmax attention on the last two axes in float64: scores ``q k^T scale`` (natural units), then the tanh
    cap, plus ``bias``, keys where ``keep`` is false dropped, an extra sink logit in the denominator; returns
    ``(O, natural LSE)``."""
    s = np.asarray(q, np.float64) @ np.swapaxes(np.asarray(k, np.float64), -1, -2) * scale
    if cap is not None:
        s = cap * np.tanh(s / cap)
    if bias is not None:
        s = s + bias
    if keep is not None:
        s = np.where(keep, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    if sink is not None:
        m = np.maximum(m, sink)
    e = np.exp(s - m)
    den = e.sum(axis=-1, keepdims=True) + (np.exp(sink - m) if sink is not None else 0.0)
    o = (e @ np.asarray(v, np.float64)) / den
    return o, (m + np.log(den))[..., 0]


def _causal(sq, sk, offset=0):
    return np.arange(sk)[None, :] <= np.arange(sq)[:, None] + offset


def reference(name: str, x: dict) -> dict:
    """Output position -> float64 reference of program ``name`` on inputs ``x`` (numpy arrays, as :func:`inputs`
    built them)."""
    p = PROGRAMS[name]
    kern, spec = p.kernel, p.spec
    scale = scale_of(name)
    q, k, v = (np.asarray(x[i], np.float64) for i in range(3))
    sq, sk = q.shape[-2], k.shape[-2]
    if kern is P.a43_alibi_causal:
        rel = (np.arange(sk)[None, :] - np.arange(sq)[:, None]).astype(np.float64)
        bias = np.asarray(x[3], np.float64)[None, :, None, None] * rel
        return {4: _attn(q, k, v, scale, _causal(sq, sk), bias=bias)[0]}
    if kern is P.a43_softcap:
        return {3: _attn(q, k, v, scale, cap=_scalar(p, 1))[0]}
    if kern is P.a43_bias_tile:
        return {4: _attn(q, k, v, scale, bias=np.asarray(x[3], np.float64)[..., :sk])[0]}
    if kern is P.a43_gqa_causal:
        g = q.shape[1] // k.shape[1]
        return {3: _attn(q, np.repeat(k, g, axis=1), np.repeat(v, g, axis=1), scale, _causal(sq, sk))[0]}
    if kern is P.a43_mqa_out_bshd:
        return {3: np.swapaxes(_attn(q, k[:, None], v[:, None], scale)[0], 1, 2)}
    if kern is P.a43_out_bshd_lse:
        o, lse = _attn(q, k, v, scale, _causal(sq, sk))
        return {3: np.swapaxes(o, 1, 2), 4: lse / LN2}
    if kern is P.a43_window_causal:
        w = _scalar(p, 1)
        keep = _causal(sq, sk) & (np.arange(sk)[None, :] > np.arange(sq)[:, None] - w)
        return {3: _attn(q, k, v, scale, keep)[0]}
    if kern is P.a43_prefix_lm_lens:
        pre = np.asarray(x[3])
        keep = _causal(sq, sk)[None, None] | (np.arange(sk)[None, None, None, :] < pre[:, None, None, None])
        return {4: _attn(q, k, v, scale, keep)[0]}
    if kern in (P.a43_penalty_mask, P.a43_q_prescaled):
        return {3: _attn(q, k, v, scale, _causal(sq, sk))[0]}
    if kern is P.a43_cross_lse_natural:
        o, lse = _attn(q, k, v, scale)
        return {3: o, 4: lse}
    if kern is P.a43_sink_state:
        sink = np.asarray(x[3], np.float64)[None, :, None, None]
        return {4: _attn(q, k, v, scale, _causal(sq, sk), sink=sink)[0]}
    if kern is P.a43_sink_block_dot_before:
        ks, vs = np.asarray(x[3], np.float64), np.asarray(x[4], np.float64)
        return {5: _attn(q, np.concatenate([ks, k], axis=1), np.concatenate([vs, v], axis=1), scale)[0]}
    if kern is P.a43_lse_scatter:
        o, lse = _attn(q, k, v, scale)
        return {3: o, 4: lse / LN2}
    if kern is P.a43_decode_split_kv:
        tps, bn = _scalar(p, 1), _scalar(p, 3)
        ns = spec[3][0][1]
        op, lp = [], []
        for s in range(ns):
            lo, hi = s * tps * bn, min((s + 1) * tps * bn, sk)
            o, lse = _attn(q, k[:, lo:hi], v[:, lo:hi], scale)
            op.append(o)
            lp.append(lse / LN2)
        return {3: np.stack(op, axis=1), 4: np.stack(lp, axis=1)}
    if kern is P.a43_paged_prefill:
        table, g = np.asarray(x[3]), _scalar(p, 3)
        n = PAGED_CTX + q.shape[1]
        out = np.empty(q.shape)
        for b in range(q.shape[0]):
            kb = np.concatenate([k[t] for t in table[b]], axis=0)[:n]  # [n, Hkv, D]
            vb = np.concatenate([v[t] for t in table[b]], axis=0)[:n]
            for h in range(q.shape[2]):
                keep = _causal(q.shape[1], n, PAGED_CTX)
                out[b, :, h] = _attn(q[b, :, h], kb[:, h // g], vb[:, h // g], scale, keep)[0]
        return {4: out}
    if kern is P.a43_varlen_padded_tiles:
        out = np.full(q.shape, np.nan)
        for t0, n in zip(cu_tiles()[:-1].tolist(), VARLEN):
            r0, rows = t0 * 64, _tiles(n) * 64  # the tiles the kernel stores (padding rows too: keys < n)
            keep = _causal(rows, n)
            for h in range(q.shape[1]):
                out[r0:r0 + rows, h] = _attn(q[r0:r0 + rows, h], k[r0:r0 + n, h], v[r0:r0 + n, h], scale, keep)[0]
        return {5: out}
    if kern is P.a43_varlen_gathered:
        out = np.full(q.shape, np.nan)
        cu = cu_seqlens().tolist()
        for a, b in zip(cu[:-1], cu[1:]):
            for h in range(q.shape[1]):
                out[a:b, h] = _attn(q[a:b, h], k[a:b, h], v[a:b, h], scale, _causal(b - a, b - a))[0]
        return {4: out}
    raise KeyError(name)

