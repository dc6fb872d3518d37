"""Seventh user sweep (``tileorch.testing.user_programs7``): the f16 programs the GEMM tier takes,
their PTX run on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on the same
inputs, outputs NaN-prefilled (the helpers of test_user_sweep3/4_emulated.py: every CTA, the
launcher's own problem derivation and tensor maps): the matmul sample's ``swizzle_2d`` 1-D grid
with a bias and tanh-GELU epilogue over ragged M / N / K, and an LM head storing its row max and
sum-exp partials beside the logits.  The tf32, fp8 and two-B (GeGLU) tier programs run on the GPU
(tests/gpu/test_user_sweep7_gpu.py): the emulator's WGMMA is f16 and its GEMM harness maps one B.
Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.user_programs7 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(7171)


@pytest.fixture(autouse=True)
def _seventh_sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def test_sample_swizzle_grid_bias_gelu_ragged():
    """M = 200, N = 136, K = 96 (ragged in all three for 64 x 64 x 32 tiles) on the samples' 1-D
    grid of 12 programs raster-grouped by ``swizzle_2d``; f16 out."""
    a, b = _h(200, 96, scale=0.5), _h(96, 136, scale=0.5)
    bias = RNG.standard_normal(136).astype(np.float32)
    c = s4._s3_gemm("mm_f16_bias_gelu_swizzle", {0: a, 1: b, 2: bias})[3]
    s4._check(c, _gelu_tanh(s4._mm(a, b) + bias), 4e-3, 5e-3)


def test_lm_head_partial_max_and_sum_exp_beside_the_logits():
    h, w = _h(128, 128, scale=0.25), _h(128, 512, scale=0.25)
    out = s4._s3_gemm("mm_lm_head_partial_lse", {0: h, 1: w})
    z = s4._mm(h, w)
    s4._check(out[2], z, 4e-3, 5e-3)
    zt = z.reshape(128, 4, 128)
    mx = zt.max(2)
    s4._check(out[3], mx, 1e-4, 1e-5)
    s4._check(out[4], np.exp(zt - mx[..., None]).sum(2), 1e-4, 1e-5)
