"""Inputs and float64 numpy references of session 36's attention-shaped sweep
(:mod:`tileorch.testing.attnsweep36_programs`), written from the programs' docstrings, shared by the CPU emulator's
test (numpy inputs) and the GPU test (torch inputs, compared after a copy to numpy).

:func:`inputs` builds a program's input arrays with ``make(shape, dtype_name)`` (a random array of the backend) and
integer side arrays with ``ints(numpy array)`` (the backend's copy); cache rows a mask must hide hold large finite
values; K and V of the sequence-major cross attention are views of one packed ``[B, Sk, 2, H, D]`` buffer.
:func:`reference` takes those inputs as numpy arrays (any float type) and returns {output position: float64 array}.
Importing it needs ``cuda.tile`` (the program table)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tileorch.testing import attnsweep36_programs as P
from tileorch.testing.attnsweep36_programs import HASH_MUL, NATURAL, PROGRAMS
from tileorch.testing.user_programs import LOG2E


def segments(s: int) -> np.ndarray:
    """Document ids of two sequences of ``s`` tokens: three documents, then two."""
    a, b = s * 7 // 20, s * 13 // 20
    return np.stack([np.repeat([0, 1, 2], [a, b - a, s - b]), np.repeat([0, 1], [b, s - b])]).astype(np.int32)


def lengths(s: int) -> np.ndarray:
    """Valid key counts of two sequences of a cache of ``s`` rows."""
    return np.array([s - 40, 77], np.int32)


def dropout_keep(bh: int, sq: int, sk: int, seed: int, keep_min: int) -> np.ndarray:
    """The dropout kernel's hash (its docstring) in int32 with wrapping: the kept (query, key) pairs of head
    ``bh``."""
    i, k = np.arange(sq, dtype=np.int32)[:, None], np.arange(sk, dtype=np.int32)[None, :]
    with np.errstate(over="ignore"):
        x = (i * np.int32(65599) + k) ^ np.int32(seed + bh * 977)
        x = (x * np.int32(HASH_MUL)).astype(np.int32)
        x = x ^ (x >> 15)
    return (x & 0xFFFF) >= keep_min


def _arrays(spec) -> int:
    return sum(isinstance(x, tuple) for x in spec)


def scale_of(name: str) -> float:
    """The softmax's natural scale of program ``name`` (its spec's scale argument, converted from log2 units where
    the kernel takes it so)."""
    p = PROGRAMS[name]
    x = p.spec[_arrays(p.spec)]
    return x if p.kernel in NATURAL else x / LOG2E


def inputs(name: str, make: Callable, ints: Callable) -> dict:
    """Argument position -> input array of program ``name`` (every array it reads)."""
    p = PROGRAMS[name]
    kern, spec = p.kernel, p.spec
    if kern is P.s36_bshd_cross_grid3:
        b, sk, h, d = spec[1][0]
        kv = make((b, sk, 2, h, d), spec[1][1])
        return {0: make(spec[0][0], spec[0][1]), 1: kv[:, :, 0], 2: kv[:, :, 1]}
    if kern is P.s36_packed_qkv_causal:
        b, s, h, d = spec[0][0]
        qkv = make((b, s, 3, h, d), spec[0][1])
        return {0: qkv[:, :, 0], 1: qkv[:, :, 1], 2: qkv[:, :, 2]}
    qkv = {i: make(spec[i][0], spec[i][1]) for i in range(3)}
    if kern in (P.s36_document_mask, P.s36_gqa_bshd_docs):
        seq = spec[0][0][2] if kern is P.s36_document_mask else spec[0][0][1]
        return {**qkv, 3: ints(segments(seq))}
    if kern is P.s36_key_padding_lens:
        n = lengths(spec[1][0][2])
        for b, x in enumerate(n.tolist()):
            qkv[1][b, :, x:], qkv[2][b, :, x:] = 30.0, 1000.0
        return {**qkv, 3: ints(n)}
    return qkv


def _scores(q, k, scale):
    return (np.asarray(q, np.float64) @ np.swapaxes(np.asarray(k, np.float64), -1, -2)) * scale


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _attn(q, k, v, keep=None, scale=None):
    s = _scores(q, k, scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
    if keep is not None:
        s = np.where(keep, s, -np.inf)
    return _softmax(s) @ np.asarray(v, np.float64)


def _lse(s):
    return s.max(-1) + np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1))


def reference(name: str, x: dict) -> dict:
    """Output position -> float64 reference of program ``name`` on inputs ``x`` (numpy arrays, as
    :func:`inputs` built them)."""
    p = PROGRAMS[name]
    kern, spec = p.kernel, p.spec
    scale = scale_of(name)
    q, k, v = x[0], x[1], x[2]
    if kern in (P.s36_bshd_cross_grid3, P.s36_sample_gqa_bshd, P.s36_gqa_bshd_docs, P.s36_packed_qkv_causal):
        g = spec[6] if kern in (P.s36_sample_gqa_bshd, P.s36_gqa_bshd_docs) else 1
        keep = None
        if kern is P.s36_packed_qkv_causal:
            keep = np.arange(k.shape[1])[None, :] <= np.arange(q.shape[1])[:, None]
        if kern is P.s36_gqa_bshd_docs:
            seg = x[3]
            keep = seg[:, :, None] == seg[:, None, :]
        out = np.stack([_attn(q[:, :, h], k[:, :, h // g], v[:, :, h // g], keep, scale) for h in range(q.shape[2])],
                       axis=2)
        return {4 if kern is P.s36_gqa_bshd_docs else 3: out}
    if kern is P.s36_kt_array_cross:
        return {3: _attn(q, np.swapaxes(k, -1, -2), v, None, scale)}
    if kern is P.s36_v_transposed_cross:
        return {3: _attn(q, k, np.swapaxes(v, -1, -2), None, scale)}
    if kern is P.s36_o_transposed:
        return {3: np.swapaxes(_attn(q, k, v, None, scale), -1, -2)}
    if kern is P.s36_o_transposed_lse:
        i, j = np.arange(q.shape[-2])[:, None], np.arange(k.shape[-2])[None, :]
        s = np.where(j <= i, _scores(q, k, scale), -np.inf)
        return {3: np.swapaxes(_attn(q, k, v, j <= i, scale), -1, -2), 4: _lse(s) / math.log(2.0)}
    sq, sk = q.shape[-2], k.shape[-2]
    i, j = np.arange(sq)[:, None], np.arange(sk)[None, :]
    if kern is P.s36_document_mask:
        seg = x[3]
        keep = (seg[:, None, :, None] == seg[:, None, None, :]) & (j <= i)
        return {4: _attn(q, k, v, keep, scale)}
    if kern is P.s36_key_padding_lens:
        keep = np.arange(sk)[None, None, None, :] < x[3][:, None, None, None]
        return {4: _attn(q, k, v, keep, scale)}
    if kern is P.s36_dropout_hashed:
        seed, keep_min = spec[5], spec[6]
        keep = np.stack([dropout_keep(bh, sq, sk, seed, keep_min) for bh in range(q.shape[0])])
        assert 0.6 < keep.mean() < 0.95
        pm = _softmax(_scores(q, k, scale)) * keep * (65536.0 / (65536 - keep_min))
        return {3: pm @ np.asarray(v, np.float64)}
    causal = {P.s36_plain: None, P.s36_runtime_scale_exp: None, P.s36_q_prescaled: None, P.s36_lse_log2: None,
              P.s36_two_pass: None, P.s36_user_persistent: None,
              P.s36_sample_kt_view_causal: lambda: (j <= i) if spec[-1] else None,
              P.s36_window_two_bounds: lambda: (j >= i - spec[5]) & (j <= i + spec[6]),
              P.s36_prefix_lm: lambda: (j < spec[5]) | (j <= i),
              P.s36_causal_bottom_right: lambda: j <= i + (sk - sq),
              P.s36_window_lse_1d: lambda: (j <= i) & (j > i - spec[6])}
    mask = causal.get(kern, lambda: j <= i)
    keep = mask() if mask is not None else None
    refs = {3: _attn(q, k, v, keep, scale)}
    if _arrays(spec) == 5:  # O and the LSE, in log2 units where the kernel's scores are
        s = _scores(q, k, scale)
        lse = _lse(np.where(keep, s, -np.inf) if keep is not None else s)
        refs[4] = lse if kern in NATURAL else lse / math.log(2.0)
    return refs
