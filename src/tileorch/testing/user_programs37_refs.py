"""Inputs and float64 numpy references of the thirty-seventh user sweep (:mod:`tileorch.testing.user_programs37`),
written from the programs' docstrings, shared by the CPU emulator's test (numpy inputs) and the GPU test (torch
inputs, compared after a copy to numpy).

:func:`inputs` builds a program's input arrays with ``make(shape, dtype_name)`` (a standard-normal array of the
backend) and its integer side arrays with ``host(numpy array)`` (the backend's copy); the weights of the two-dot
programs are scaled by ``1 / sqrt(fan-in)`` (activations of order one: the f16 / bf16 rounding of the hidden tile,
which the program casts before its second dot, stays inside the tolerance).  :func:`reference` takes those inputs as
numpy arrays (any float type) and returns {output position: float64 array}.  Importing it needs ``cuda.tile``."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tileorch.testing import user_programs37 as P
from tileorch.testing.user_programs37 import FOLDS_LOG2, PROGRAMS
from tileorch.testing.user_programs import LOG2E

SQRT_2_OVER_PI = 0.7978845608028654


def key_lengths() -> np.ndarray:
    """The cross-attention program's encoder lengths per batch (one full, one short of a tile boundary)."""
    return np.array([333, 200], np.int32)


def keep_mask(shape) -> np.ndarray:
    """The dropout program's keep mask: 1 with probability 0.9, fixed seed."""
    return (np.random.default_rng(3745).random(shape) < 0.9).astype(np.int8)


def key_padding(shape) -> np.ndarray:
    """The key padding mask: batch 0's last 30 keys and a run of 20 in batch 1's middle are padding."""
    m = np.ones(shape, np.int32)
    m[0, -30:] = 0
    m[1, 70:90] = 0
    return m


def _scalars(p) -> list:
    return [s for s in p.spec if not isinstance(s, tuple)]


def scale_of(name: str) -> float:
    """The natural softmax scale of attention program ``name``."""
    p = PROGRAMS[name]
    x = _scalars(p)[0]
    return x if p.kernel in FOLDS_LOG2 else x / LOG2E


_WEIGHTS = {P.s37_mlp_gelu_chained: (1, 2), P.s37_gated_mlp_chained: (1, 2, 3), P.s37_gemm_then_second_gemm: (1, 2),
            P.s37_low_rank_chain: (1, 2), P.s37_linear_relu_linear_weights_nk: (1, 2),
            P.s37_decode_two_layer_grid_over_n: (1, 2), P.s37_batched_two_dot_shared_first_weight: (1, 2),
            P.s37_gemm_row_sum_over_n_tiles: (1,), P.s37_gemm_softmax_over_n: (1,),
            P.s37_lm_head_logsumexp_over_vocab: (1,), P.s37_decode_linear_pre_and_post_activation: (1,)}
"""The two-dot programs' weight arguments (scaled by ``1 / sqrt(rows)``)."""


def inputs(name: str, make: Callable, host: Callable) -> dict:
    """Argument position -> input array of program ``name`` (every array it reads)."""
    p = PROGRAMS[name]
    kern, spec = p.kernel, p.spec
    if kern in _WEIGHTS:
        x = {}
        for i, s in enumerate(spec):
            if isinstance(s, tuple) and i not in p.outputs:
                x[i] = make(s[0], s[1]) * (1.0 / math.sqrt(s[0][-2])) if i in _WEIGHTS[kern] else make(s[0], s[1])
        return x
    x = {i: make(spec[i][0], spec[i][1]) for i in range(3)}
    if kern is P.s37_cross_attn_key_lengths:
        x[3] = host(key_lengths())
    elif kern in (P.s37_t5_relative_bias_per_head, P.s37_bias_tensor_causal_bf16):
        x[3] = make(spec[3][0], spec[3][1])
    elif kern is P.s37_dropout_keep_mask:
        x[3] = host(keep_mask(spec[3][0]))
    elif kern is P.s37_per_query_temperature:
        x[3] = host(np.random.default_rng(3746).uniform(0.5, 2.0, spec[3][0]).astype(np.float32))
    elif kern is P.s37_safe_softmax_guards:
        x[3] = host(np.array([140, 70, 0], np.int32))
    elif kern is P.s37_key_padding_mask_vector:
        x[3] = host(key_padding(spec[3][0]))
    return x


def _attn(q, k, v, scale, keep=None, bias=None, cap=None):
    """Softmax attention on the last two axes in float64: ``s = q k^T scale`` (natural units), the tanh cap, plus
    ``bias``, keys where ``keep`` is false dropped; returns ``(O, row max of s, natural LSE)``."""
    s = q @ np.swapaxes(k, -1, -2) * scale
    if cap is not None:
        s = cap * np.tanh(s / cap)
    if bias is not None:
        s = s + bias
    if keep is not None:
        s = np.where(keep, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    e = np.exp(s - m)
    den = e.sum(axis=-1, keepdims=True)
    return (e @ v) / den, m[..., 0], (m + np.log(den))[..., 0]


def _causal(sq, sk, offset=0):
    """Query row ``i`` (at position ``offset + i``) sees keys ``<= offset + i``."""
    return np.arange(sk)[None, :] <= np.arange(sq)[:, None] + offset


def _gelu_tanh(t):
    return 0.5 * t * (1.0 + np.tanh(SQRT_2_OVER_PI * (t + 0.044715 * t ** 3)))


def _two_dot(name: str, x: dict) -> dict:
    p = PROGRAMS[name]
    kern = p.kernel
    a = {i: np.asarray(v, np.float64) for i, v in x.items()}
    if kern is P.s37_mlp_gelu_chained:
        return {3: _gelu_tanh(a[0] @ a[1]) @ a[2]}
    if kern is P.s37_gated_mlp_chained:
        g, u = a[0] @ a[1], a[0] @ a[2]
        return {4: (g / (1.0 + np.exp(-g)) * u) @ a[3]}
    if kern is P.s37_gemm_then_second_gemm:
        return {3: np.maximum(a[0] @ a[1], 0.0) @ a[2]}
    if kern is P.s37_decode_two_layer_grid_over_n:
        return {3: np.maximum(a[0] @ a[1], 0.0) @ a[2]}
    if kern is P.s37_linear_relu_linear_weights_nk:
        return {3: np.maximum(a[0] @ a[1].T, 0.0) @ a[2].T}
    if kern is P.s37_low_rank_chain:
        return {3: (a[0] @ a[1]) @ a[2]}
    if kern is P.s37_batched_two_dot_shared_first_weight:
        return {3: np.maximum(a[0] @ a[1], 0.0) @ a[2]}
    if kern is P.s37_gemm_row_sum_over_n_tiles:
        return {2: (a[0] @ a[1]).sum(axis=1)}
    if kern is P.s37_gemm_softmax_over_n:
        z = a[0] @ a[1]
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return {2: e / e.sum(axis=1, keepdims=True)}
    if kern is P.s37_lm_head_logsumexp_over_vocab:
        z = a[0] @ a[1]
        m = z.max(axis=1)
        return {2: m + np.log(np.exp(z - m[:, None]).sum(axis=1))}
    if kern is P.s37_decode_linear_pre_and_post_activation:
        h = a[0] @ a[1]
        return {2: h, 3: h / (1.0 + np.exp(-h))}
    raise KeyError(name)


def reference(name: str, x: dict) -> dict:
    """Output position -> float64 reference of program ``name`` on inputs ``x`` (numpy arrays, as :func:`inputs`
    built them)."""
    p = PROGRAMS[name]
    kern, sc = p.kernel, _scalars(p)
    if kern in _WEIGHTS:
        return _two_dot(name, x)
    scale = scale_of(name)
    q, k, v = (np.asarray(x[i], np.float64) for i in range(3))
    if kern is P.s37_k_stored_transposed:
        k = np.swapaxes(k, -1, -2)
    if kern in (P.s37_gqa_group_in_grid_bshd, P.s37_bf16_out_f32_lse_bshd):
        q, k, v = (np.swapaxes(t, 1, 2) for t in (q, k, v))  # [B, S, H, D] -> [B, H, S, D]
    sq, sk = q.shape[-2], k.shape[-2]
    if kern is P.s37_fmha_sample:
        pos, g, causal = sc[1], sc[6], sc[7]
        k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
        return {3: _attn(q, k, v, scale, _causal(sq, sk, pos) if causal else None)[0]}
    if kern in (P.s37_causal_two_loops, P.s37_causal_reversed_tiles, P.s37_qk192_v128_causal):
        return {3: _attn(q, k, v, scale, _causal(sq, sk))[0]}
    if kern in (P.s37_k_stored_transposed, P.s37_decode_group_in_tile, P.s37_k_permuted_load_hints):
        return {3: _attn(q, k, v, scale)[0]}
    if kern is P.s37_cross_attn_key_lengths:
        keep = np.arange(sk)[None, None, None, :] < np.asarray(x[3])[:, None, None, None]
        return {4: _attn(q, k, v, scale, keep)[0]}
    if kern is P.s37_v_stored_transposed:
        return {3: _attn(q, k, np.swapaxes(v, -1, -2), scale)[0]}
    if kern is P.s37_per_query_temperature:
        tau = np.asarray(x[3], np.float64)[:, :sq, None]
        return {4: _attn(q / tau, k, v, scale, _causal(sq, sk))[0]}
    if kern is P.s37_matmul_operator_scores:
        # (``q @ k^T`` of f16 tiles is an f16 product: cuTile's matmul accumulates into an f16 tile)
        raw = (q @ np.swapaxes(k, -1, -2)).astype(np.float16).astype(np.float64)
        s = raw * scale
        s = s - s.max(axis=-1, keepdims=True)
        e = np.exp(s)
        return {3: (e @ v) / e.sum(axis=-1, keepdims=True)}
    if kern is P.s37_safe_softmax_guards:
        lens = np.asarray(x[3])
        keep = np.arange(sk)[None, None, None, :] < lens[:, None, None, None]
        o = np.zeros(q.shape[:-1] + (v.shape[-1],))
        live = lens > 0
        o[live] = _attn(q[live], k[live], v[live], scale, keep[live])[0]
        return {4: o}
    if kern is P.s37_key_padding_mask_vector:
        return {4: _attn(q, k, v, scale, np.asarray(x[3])[:, None, None, :] != 0)[0]}
    if kern is P.s37_decode_rows_causal_offset:
        return {3: _attn(q, k, v, scale, _causal(sq, sk, sk - sq))[0]}
    if kern is P.s37_gqa_group_in_grid_bshd:
        g = q.shape[1] // k.shape[1]
        o = _attn(q, np.repeat(k, g, axis=1), np.repeat(v, g, axis=1), scale)[0]
        return {3: np.swapaxes(o, 1, 2)}
    if kern is P.s37_alibi_symmetric_slope_in_kernel:
        h = sc[1]
        slopes = np.array([2.0 ** (-8.0 * (bh % h + 1) / h) for bh in range(q.shape[0])])
        dist = np.abs(np.arange(sk)[None, :] - np.arange(sq)[:, None]).astype(np.float64)
        return {3: _attn(q, k, v, scale, bias=-slopes[:, None, None] * dist)[0]}
    if kern is P.s37_t5_relative_bias_per_head:
        return {4: _attn(q, k, v, scale, bias=np.asarray(x[3], np.float64)[None])[0]}
    if kern is P.s37_bias_tensor_causal_bf16:
        return {4: _attn(q, k, v, scale, _causal(sq, sk), bias=np.asarray(x[3], np.float64))[0]}
    if kern is P.s37_softcap_log2_causal:
        return {3: _attn(q, k, v, scale, _causal(sq, sk), cap=sc[1])[0]}
    if kern is P.s37_local_window_both_sides:
        w = sc[1]
        return {3: _attn(q, k, v, scale, np.abs(np.arange(sk)[None, :] - np.arange(sq)[:, None]) <= w)[0]}
    if kern is P.s37_sink_tokens_sliding_window:
        sink, w = sc[1], sc[2]
        kk, qq = np.arange(sk)[None, :], np.arange(sq)[:, None]
        return {3: _attn(q, k, v, scale, (kk <= qq) & ((kk < sink) | (kk > qq - w)))[0]}
    if kern is P.s37_dropout_keep_mask:
        keep = np.asarray(x[3], np.float64)[..., :sk]
        s = q @ np.swapaxes(k, -1, -2) * scale
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return {4: ((e * keep * sc[1]) @ v) / e.sum(axis=-1, keepdims=True)}
    if kern is P.s37_returns_max_and_lse:
        o, m, lse = _attn(q, k, v, scale)
        return {3: o, 4: m, 5: lse}
    if kern is P.s37_bf16_out_f32_lse_bshd:
        o, _m, lse = _attn(q, k, v, scale, _causal(sq, sk))
        return {3: np.swapaxes(o, 1, 2), 4: lse}
    raise KeyError(name)
