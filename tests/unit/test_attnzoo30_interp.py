"""Session 30's attention zoo (``tileorch.testing.attnzoo30_programs``): the programs the tensor-core tier
refuses (f32 arrays cast to bf16 in the kernel; the two-pass softmax), run on their SIMT fallback by the
CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py through test_user_sweep_interp.run) against
numpy float64, outputs NaN-prefilled.  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, run, sample  # noqa: E402

from tileorch.testing.attnzoo30_programs import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(30021)


@pytest.fixture(autouse=True)
def _zoo(monkeypatch):
    monkeypatch.setattr(sweep, "PROGRAMS", {**sweep.PROGRAMS, **PROGRAMS})
    monkeypatch.setattr(sweep, "NP", {**sweep.NP, "float8_e4m3fn": np.uint8})  # e4m3 arrays passed as their bytes


def _attn(q, k, v, scale=0.125):
    s = (np.asarray(q, np.float64) @ np.swapaxes(np.asarray(k, np.float64), -1, -2)) * scale
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ np.asarray(v, np.float64)


def test_two_pass_softmax_on_the_simt_path():
    """200 keys (the last tile 8 keys, masked) for 128 queries."""
    q, k, v = (sample(RNG, s, "float16") for s in ((2, 128, 64), (2, 200, 64), (2, 200, 64)))
    o = run("zoo_two_pass_max_then_sum", {0: q, 1: k, 2: v})[3]
    _close(o, _attn(q, k, v), 3e-3, 1e-2)


def test_f32_arrays_cast_to_bf16_on_the_simt_path():
    """bf16 operands (the kernel's casts), f32 out: the reference rounds Q, K, V and P to bf16 too."""
    from test_user_sweep_interp import _bf16_bits, _bf16_value

    def bf16(x):
        return _bf16_value(_bf16_bits(np.asarray(x, np.float32)))

    q, k, v = (sample(RNG, s) for s in ((2, 128, 64),) * 3)
    o = run("zoo_f32_arrays_cast_bf16", {0: q, 1: k, 2: v})[3]
    _close(o, _attn(bf16(q), bf16(k), bf16(v)), 2e-2, 2e-2)


def test_o_stored_transposed_on_the_simt_path():
    """O^T ``[BH, D, S]``; 170 keys (ragged, masked)."""
    q, k, v = (sample(RNG, s, "float16") for s in ((2, 128, 64), (2, 170, 64), (2, 170, 64)))
    o = run("zoo_o_stored_transposed", {0: q, 1: k, 2: v})[3]
    _close(o, np.swapaxes(_attn(q, k, v), -1, -2), 3e-3, 1e-2)


def test_fp8_e4m3_on_the_simt_path():
    """e4m3 Q, K, V (P rounded to e4m3 for P V, as the kernel casts it): the reference rounds P too."""
    import ml_dtypes

    e4 = ml_dtypes.float8_e4m3fn
    q, k, v = (sample(RNG, s, "float32").astype(e4) for s in ((2, 128, 64),) * 3)
    o = run("zoo_fp8_e4m3", {0: q.view(np.uint8), 1: k.view(np.uint8), 2: v.view(np.uint8)})[3]
    s = (np.asarray(q, np.float64) @ np.swapaxes(np.asarray(k, np.float64), -1, -2)) * 0.125
    p = np.exp(s - s.max(-1, keepdims=True))
    ref = (p.astype(e4).astype(np.float64) @ np.asarray(v, np.float64)) / p.sum(-1, keepdims=True)
    _close(o, ref, 3e-2, 3e-2)
