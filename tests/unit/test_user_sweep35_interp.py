"""The thirty-fifth user sweep's programs on the SIMT path (``tileorch.testing.user_programs35``: vector add by load /
store and by gather / scatter, layer norm forward and both backward kernels, RMSNorm alone and with a fused residual,
softmax in one tile and online over several, RoPE (rotate-half), a SwiGLU activation of a fused gate-up array, a
histogram by atomics, row argmax, top-2, row prefix sums across tiles, a transpose, an embedding gather, a
cross-entropy loss) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through
test_user_sweep_interp.run) against numpy references computed from the inputs alone (float64; Python integers),
outputs pre-filled with NaN / an integer sentinel.  CI runs a few cheap tests here (:data:`CI`);
``TILEORCH_EMULATE_ALL=1`` runs every one.  tests/gpu/test_user_sweep35_gpu.py runs every test here on the GPU;
test_user_sweep35_emulated.py runs them on the PTX emulator."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

from interp_sweep_checks import F32, _ci_subset, _close, _d, every_case, register, sampler  # noqa: E402,F401
from test_user_sweep_interp import run  # noqa: E402

from tileorch.testing.user_programs35 import PROGRAMS  # noqa: E402

register(PROGRAMS)
RNG, _f = sampler(3535)
CI = {"test_vector_add_gather_scatter", "test_top2_per_row_values_and_indices", "test_histogram_atomic_add_bins"}
"""The tests run in CI (the suite's time budget); every test with ``TILEORCH_EMULATE_ALL=1``."""


def _bf16(x):
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)


def test_vector_add_sample_load_store():
    a, b = _f((1000,)), _f((1000,))
    out = run("vector_add_sample_load_store", {0: a, 1: b})[2]
    assert np.array_equal(out, _d(a.astype(F32) + b.astype(F32)))  # one f32 rounding, as numpy's


def test_vector_add_gather_scatter():
    a, b = _f((1000,)), _f((1000,))
    out = run("vector_add_gather_scatter", {0: a, 1: b})[2]
    assert np.array_equal(out, _d(a.astype(F32) + b.astype(F32)))


def _layernorm_stats(x):
    xd = _d(x)
    mean = xd.mean(1)
    return mean, 1 / np.sqrt(xd.var(1) + 1e-5)


def test_layernorm_fwd_mean_rstd_tiles():
    x, w, b = _f((6, 300), scale=2.0) + 3.0, _f((300,)), _f((300,))
    got = run("layernorm_fwd_mean_rstd_tiles", {0: x, 1: w, 2: b, 6: 1e-5})
    mean, rstd = _layernorm_stats(x)
    _close(got[4], mean, 1e-5)
    _close(got[5], rstd, 1e-5, 1e-5)
    _close(got[3], (_d(x) - mean[:, None]) * rstd[:, None] * _d(w) + _d(b), 1e-4)


def test_layernorm_bwd_dx_one_tile():
    x, dy, w = _f((6, 200)), _f((6, 200)), _f((200,))
    mean, rstd = _layernorm_stats(x)
    dx = run("layernorm_bwd_dx_one_tile", {0: dy, 1: x, 2: w, 3: mean.astype(F32), 4: rstd.astype(F32)})[5]
    # the gradient of sum(dy * layernorm(x)) by x, from the definition (float64)
    xhat = (_d(x) - mean[:, None]) * rstd[:, None]
    wdy = _d(w) * _d(dy)
    ref = rstd[:, None] * (wdy - wdy.mean(1, keepdims=True) - xhat * (wdy * xhat).mean(1, keepdims=True))
    _close(dx, ref, 1e-4)


def test_layernorm_bwd_dw_db_atomic_partials():
    x, dy = _f((50, 100)), _f((50, 100))
    mean, rstd = _layernorm_stats(x)
    got = run("layernorm_bwd_dw_db_atomic_partials", {0: dy, 1: x, 2: mean.astype(F32), 3: rstd.astype(F32),
                                                      4: np.zeros(100, F32), 5: np.zeros(100, F32)})
    xhat = (_d(x) - mean[:, None]) * rstd[:, None]
    _close(got[4], (_d(dy) * xhat).sum(0), 1e-4)
    _close(got[5], _d(dy).sum(0), 1e-4)


def test_rmsnorm_bf16_weight_one_tile():
    x, w = _f((5, 300), "bfloat16", 3.0), _f((300,), "bfloat16")
    y = run("rmsnorm_bf16_weight_one_tile", {0: x, 1: w, 3: 1e-6})[2]
    xd = _d(x)
    ref = xd / np.sqrt((xd * xd).mean(1, keepdims=True) + 1e-6) * _d(w)
    _close(y, ref, 2e-2, 8e-3)  # bf16 out


def test_fused_add_rmsnorm_residual_out():
    x, r, w = _f((5, 200), "float16"), _f((5, 200), "float16"), _f((200,))
    got = run("fused_add_rmsnorm_residual_out", {0: x, 1: r, 2: w, 4: 1e-6})
    h = _d(x) + _d(r)
    _close(got[1], h, 2e-3, 1e-3)  # f16 residual out
    _close(got[3], h / np.sqrt((h * h).mean(1, keepdims=True) + 1e-6) * _d(w), 1e-2, 2e-3)


def test_softmax_rows_one_tile_neg_inf():
    x = _f((6, 100), "float16", 3.0)
    y = run("softmax_rows_one_tile_neg_inf", {0: x})[1]
    e = np.exp(_d(x) - _d(x).max(1, keepdims=True))
    _close(y, e / e.sum(1, keepdims=True), 1e-3, 2e-3)  # f16 out


def test_softmax_online_over_column_tiles():
    x = _f((4, 700), scale=3.0)
    x[1, 650] = 40.0  # the maximum in the last (ragged) tile: earlier tiles' sums rescaled
    y = run("softmax_online_over_column_tiles", {0: x})[1]
    e = np.exp(_d(x) - _d(x).max(1, keepdims=True))
    _close(y, e / e.sum(1, keepdims=True), 1e-6, 1e-5)


def test_rope_rotate_half_bshd():
    x = _f((2, 50, 3, 64))
    ang = np.arange(50)[:, None] * (10000.0 ** (-np.arange(32) / 32.0))[None, :]
    c, s = np.cos(ang).astype(F32), np.sin(ang).astype(F32)
    y = run("rope_rotate_half_bshd", {0: x, 1: c, 2: s})[3]
    xd = _d(x)
    x1, x2 = xd[..., :32], xd[..., 32:]
    cb, sb = _d(c)[None, :, None, :], _d(s)[None, :, None, :]
    _close(y, np.concatenate([x1 * cb - x2 * sb, x2 * cb + x1 * sb], -1), 1e-5)


def test_swiglu_activation_from_concat():
    gu = _f((50, 256), "bfloat16", 2.0)
    y = run("swiglu_activation_from_concat", {0: gu})[1]
    g, u = _d(gu)[:, :128], _d(gu)[:, 128:]
    _close(y, g / (1 + np.exp(-g)) * u, 2e-2, 8e-3)  # bf16 out


def test_histogram_atomic_add_bins():
    x = RNG.random(1000).astype(F32)
    x[:3] = [0.0, 0.9999, 0.5]
    got = run("histogram_atomic_add_bins", {0: x, 1: np.zeros(16, np.int32)})[1]
    ref = np.bincount(np.floor(_d(x) * 16).astype(int), minlength=16)
    assert got.tolist() == ref.tolist() and sum(got.tolist()) == 1000  # the 24 padding lanes dropped


def test_argmax_rows_store_int32():
    x = _f((4, 1000))
    x[0, 999] = 9.0  # in the last real column (24 -inf padding columns after it)
    x[1, 3] = x[1, 500] = 9.0  # a tie: the first
    out = run("argmax_rows_store_int32", {0: x})[1]
    assert out.tolist() == [int(np.argmax(r)) for r in x]


def test_top2_per_row_values_and_indices():
    x = _f((5, 60))
    x[2, 10] = x[2, 40] = 5.0  # a tie for first: both picked, the lower index first
    got = run("top2_per_row_values_and_indices", {0: x})
    order = [sorted(range(60), key=lambda j: (-float(r[j]), j))[:2] for r in x]
    assert got[2].tolist() == order
    assert np.array_equal(got[1], np.array([[x[i, j] for j in o] for i, o in enumerate(order)], np.float64))


def test_cumsum_rows_across_tiles_carry():
    x = _f((4, 300))
    y = run("cumsum_rows_across_tiles_carry", {0: x})[1]
    _close(y, np.cumsum(_d(x), 1), 2e-4)


def test_transpose_2d_ragged():
    x = _f((100, 70))
    assert np.array_equal(run("transpose_2d_ragged", {0: x})[1], _d(x).T)


def test_embedding_gather_rows():
    table = _f((500, 64), "float16")
    ids = RNG.integers(0, 500, 100).astype(np.int32)
    ids[[0, 99]] = [499, 0]
    out = run("embedding_gather_rows", {0: table, 1: ids})[2]
    assert np.array_equal(np.asarray(out, np.float64), _d(table)[ids])


def test_cross_entropy_loss_rows():
    x = _f((6, 500), scale=3.0)
    labels = RNG.integers(0, 500, 6).astype(np.int32)
    labels[0] = 499
    loss = run("cross_entropy_loss_rows", {0: x, 1: labels})[2]
    xd = _d(x)
    m = xd.max(1)
    ref = m + np.log(np.exp(xd - m[:, None]).sum(1)) - xd[np.arange(6), labels]
    _close(loss, ref, 1e-5, 1e-5)


def test_dgemm_float64_tiles():
    a, b = RNG.standard_normal((100, 72)), RNG.standard_normal((72, 80))
    c = run("dgemm_float64_tiles", {0: a, 1: b})[2]
    _close(c, a @ b, 1e-12)  # f64 FMA loops: the float64 product up to its own rounding
