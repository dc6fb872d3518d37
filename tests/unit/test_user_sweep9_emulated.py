"""Ninth user sweep (``tileorch.testing.user_programs9``): f16 programs the GEMM tier takes, their
PTX run on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on the same inputs,
outputs NaN-prefilled (the helpers of test_user_sweep3/4_emulated.py: every CTA, the launcher's own
problem derivation and tensor maps).  The nested K loops that ``tileas-flatten-nested-k-loops``
flattens (found by this sweep: they were SIMT fallbacks) are checked here first.  bf16 / fp8 /
int8 programs run on the GPU (tests/gpu/test_user_sweep9_gpu.py).  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.user_programs9 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(9191)


@pytest.fixture(autouse=True)
def _ninth_sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _h(*shape, scale=0.5):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


@pytest.mark.parametrize("name", ["mm_nested_k_blocks", "mm_nested_k_strided_outer", "mm_static_iter_halves"])
def test_nested_k_loops_flattened(name):
    """Found by this sweep: K walked in blocks of K tiles by two nested loops (or a ct.static_iter
    pair inside the K loop) was refused by the tier; flattened, every K tile is summed once."""
    a, b = _h(256, 256), _h(256, 128)
    c = s4._s3_gemm(name, {0: a, 1: b})[2]
    s4._check(c, s4._mm(a, b), 4e-3, 5e-3)


def test_ragged_k200():
    a, b = _h(200, 200), _h(200, 136)
    c = s4._s3_gemm("mm_ragged_k200", {0: a, 1: b})[2]
    s4._check(c, s4._mm(a, b), 4e-3, 5e-3)


def test_alpha_beta_in_place_f32():
    a, b = _h(256, 256), _h(256, 128)
    c0 = RNG.standard_normal((256, 128)).astype(np.float32)
    c = s4._s3_gemm("mm_alpha_beta_inplace_f32", {0: a, 1: b, 2: c0.copy()})[2]
    s4._check(c, 1.5 * s4._mm(a, b) - 0.5 * c0, 4e-3, 5e-3)


def test_a_transposed_by_ct_transpose():
    at, b = _h(256, 256), _h(256, 128)
    c = s4._s3_gemm("mm_a_transposed_by_ct_transpose", {0: at, 1: b})[2]
    s4._check(c, s4._mm(at.T, b), 4e-3, 5e-3)


def test_two_dots_sharing_b():
    """``A1 B - A2 B``: each stage holds A1's and A2's tiles beside the one B tile (since session 27), two
    accumulators; the output NaN-prefilled."""
    a1, a2, b = _h(256, 256), _h(256, 256), _h(256, 128)
    c = s4._s3_gemm("mm_two_dots_shared_b", {0: a1, 1: a2, 2: b, 3: np.full((256, 128), np.nan, np.float16)})[3]
    ref = a1.astype(np.float64) @ b.astype(np.float64) - a2.astype(np.float64) @ b.astype(np.float64)
    assert not np.isnan(c.astype(np.float64)).any()
    np.testing.assert_allclose(c.astype(np.float64), ref, atol=2e-2, rtol=1e-2)


def test_row_bias_column_broadcast():
    a, b = _h(256, 256), _h(256, 128)
    bias = RNG.standard_normal(256).astype(np.float32)
    c = s4._s3_gemm("mm_row_bias_column_broadcast", {0: a, 1: b, 2: bias})[3]
    s4._check(c, s4._mm(a, b) + bias[:, None], 4e-3, 5e-3)


def _lse(x):
    m = x.max(1, keepdims=True)
    return m + np.log(np.exp(x - m).sum(1, keepdims=True))


def test_logits_with_row_logsumexp_beside():
    """Found by this sweep: a row logsumexp ``m + log(sum(exp(x - m)))`` (two row reductions, the
    second reading the first) stored beside the logits was refused ('a second output tile [128, 1]
    at other indices than C's'); now both reductions are evaluated in the accumulator's registers."""
    a, b = _h(256, 256), _h(256, 128)
    out = s4._s3_gemm("mm_logits_and_row_lse", {0: a, 1: b})
    ref = s4._mm(a, b)
    s4._check(out[2], ref, 4e-3, 5e-3)
    s4._check(out[3], _lse(ref), 2e-3, 1e-4)
