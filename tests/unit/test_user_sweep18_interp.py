"""The eighteenth user sweep (``tileorch.testing.user_programs18``): the dot programs the tensor-core
tiers refuse, run on their SIMT fallback by the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py,
through test_user_sweep_interp.run) against numpy references computed independently from the same
inputs, outputs pre-filled with NaN / a sentinel: K = 8 in one product, an elementwise store before the K loop, a squared-ReLU MLP whose second dot follows the
loop, an attention whose output accumulator is f16, an f64 output.  (The e5m2 -> e4m3 program: the GPU alone, this harness holds no fp8 arrays; the tier programs:
test_user_sweep18_emulated.py and the GPU.)"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, run, sample  # noqa: E402

from tileorch.testing.user_programs18 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)

RNG = np.random.default_rng(1824)


def _h(*shape, scale=0.5):
    return sample(RNG, shape, "float16", scale)


def _d(x):
    return np.asarray(x, np.float64)


def test_k8_single_product():
    a, b = _h(200, 8), _h(8, 192)
    _close(run("gemm_k8_single_tile", {0: a, 1: b})[2], _d(a) @ _d(b), 1e-3, 1e-3)


def test_elementwise_store_before_the_k_loop():
    a, b, x2 = _h(200, 128), _h(128, 192, scale=0.2), _h(200, 192)
    out = run("gemm_elementwise_before_loop", {0: a, 1: b, 3: x2})
    _close(out[2], _d(a) @ _d(b), 4e-3, 5e-3)
    _close(out[4], np.maximum(_d(x2), 0.0), 0.0)


def test_squared_relu_mlp_second_dot_after_the_loop():
    """``h`` rounded to f16 before the second dot, as the program does."""
    x, w1, w2t = _h(200, 256), _h(256, 64, scale=0.2), _h(192, 64, scale=0.2)
    y = run("mlp_relu_sq_chain_wt", {0: x, 1: w1, 2: w2t})[3]
    h = np.maximum(_d(x) @ _d(w1), 0.0)
    hh = (h * h).astype(np.float16).astype(np.float64)
    _close(y, hh @ _d(w2t).T, 2e-2, 1e-2)


def test_attention_with_an_f16_output_accumulator():
    """The PV product accumulated and rescaled in f16 (the chained tier takes f32 accumulators only)."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = run("attn_f16_pv_accumulator", {0: q, 1: k, 2: v})[3]
    s = (_d(q) @ np.swapaxes(_d(k), 1, 2)) * 0.125
    s = np.where(np.arange(256)[None, :] <= np.arange(256)[:, None], s, -np.inf)
    e = np.exp(s - s.max(-1, keepdims=True))
    _close(o, (e / e.sum(-1, keepdims=True)) @ _d(v), 2e-2, 1e-2)


def test_f64_output():
    a, b = _h(200, 128), _h(128, 192, scale=0.2)
    _close(run("gemm_f64_output", {0: a, 1: b})[2], _d(a) @ _d(b), 1e-4, 1e-5)
