"""The second attention set's programs the chained tier refuses (test_attention_programs2_compile.py:
located reasons) run on their SIMT fallback by the CPU's lockstep interpreter (tests/unit/simt_interp.py
through test_user_sweep_interp.run) against numpy float64 references: the probabilities stored by
a second pass over the keys, differential attention, RoPE fused on Q by ``ct.cat``.  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, resized, run, sample  # noqa: E402

from tileorch.testing.attention_programs2 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS

RNG = np.random.default_rng(1602)


def _f(shape, dt="float16"):
    return sample(RNG, shape, dt)


def _d(x):
    return np.asarray(x, np.float64)


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _scores(q, k, scale):
    return (_d(q) @ np.swapaxes(_d(k), -1, -2)) * scale


def test_probabilities_stored_by_a_second_pass():
    q, k, v = _f((2, 128, 64)), _f((2, 256, 64)), _f((2, 256, 64))
    out = run("attn_store_probs", {0: q, 1: k, 2: v})
    p = _softmax(_scores(q, k, 0.125))
    _close(out[4], p, 1e-3, 1e-2)
    _close(out[3], _d(np.asarray(p, np.float16)) @ _d(v), 3e-3, 1e-2)  # O from the f16 P


def test_differential_attention():
    q1, k1, q2, k2, v = _f((2, 128, 64)), _f((2, 128, 64)), _f((2, 128, 64)), _f((2, 128, 64)), _f((2, 128, 64))
    p = resized("attn_differential", {1: (2, 128, 64), 3: (2, 128, 64), 4: (2, 128, 64)})  # 2 key tiles (the table: 4)
    out = run("attn_differential", {0: q1, 1: k1, 2: q2, 3: k2, 4: v}, p)
    ref = _softmax(_scores(q1, k1, 0.125)) @ _d(v) - 0.3 * (_softmax(_scores(q2, k2, 0.125)) @ _d(v))
    _close(out[5], ref, 3e-3, 1e-2)


def test_fused_rope_on_q():
    q, k, v = _f((2, 128, 64)), _f((2, 256, 64)), _f((2, 256, 64))
    ang = np.arange(128)[:, None] * (10000.0 ** (-np.arange(32) / 32))[None, :]
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    out = run("attn_fused_rope_q", {0: q, 1: k, 2: v, 3: cos, 4: sin})
    q1, q2 = _d(q[..., :32]), _d(q[..., 32:])
    qr = np.concatenate([q1 * cos - q2 * sin, q2 * cos + q1 * sin], -1).astype(np.float16)  # the program's f16 Q
    _close(out[5], _softmax(_scores(qr, k, 0.125)) @ _d(v), 3e-3, 1e-2)
