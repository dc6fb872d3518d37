"""The thirty-first user sweep's programs on the SIMT path (``tileorch.testing.user_programs31``: layernorm backward's
input gradient and its weight / bias gradients by a loop down the rows, Chan's variance merge over column tiles,
top-1 down the columns with its index, a weighted histogram and an index_add by atomics, a transposed view and a
column slice view, a bool-masked mean, fp8 e4m3 / e5m2 casts saturated first, a fused residual add + RMSNorm,
GroupNorm, a 3-D softmax, an argmin over broadcast distances, a reverse cumsum, an int32 -> uint8 clamp; and the dots
the tier refuses with a located diagnostic: V converted after its load (fp8 -> f16, f32 -> bf16), an f32 x f32 dot;
and a tier GEMM whose arrays are strided views, on its SIMT fallback) on the CPU's lockstep SIMT interpreter
(tests/unit/simt_interp.py, through test_user_sweep_interp.run) against numpy references computed from the inputs
alone (float64; Python integers), outputs pre-filled with NaN / an integer sentinel. CI runs a few cheap tests here
(:data:`CI`); ``TILEORCH_EMULATE_ALL=1`` runs every one. tests/gpu/test_user_sweep31_gpu.py runs every test here on
the GPU; test_user_sweep31_emulated.py runs them on the PTX emulator."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

from interp_sweep_checks import F32, _ci_subset, _close, _d, every_case, register, sampler  # noqa: E402,F401
from test_user_sweep_interp import run  # noqa: E402

from tileorch.testing.user_programs31 import PROGRAMS  # noqa: E402

register(PROGRAMS)
RNG, _f = sampler(3131)
CI = {"test_weighted_histogram_atomic_f32", "test_top1_down_columns_with_index",
      "test_fp8_e4m3_quantize_saturated_per_tensor"}
"""The tests run in CI (the suite's time budget); every test with ``TILEORCH_EMULATE_ALL=1``."""


def _attention(q, k, v, scale):
    """``softmax(q k^T scale) v`` per leading index in float64."""
    s = np.einsum("hqd,hkd->hqk", _d(q), _d(k)) * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("hqk,hkd->hqd", p / p.sum(-1, keepdims=True), _d(v))


# ----------------------------------------------------------------------------------------------- the refused dots


def test_attn_v_fp8_e4m3_cast_in_kernel():
    q, k = _f((2, 150, 64), "float16"), _f((2, 170, 64), "float16")
    v8 = (RNG.standard_normal((2, 170, 64)) * 4).astype(F32).astype(ml_dtypes.float8_e4m3fn)
    out = run("attn_v_fp8_e4m3_cast_in_kernel", {0: q, 1: k, 2: v8.view(np.uint8)})[3]
    _close(out, 0.5 * _attention(q, k, v8.astype(np.float64), 0.125), 2e-2, 1e-2)  # f16 out


def test_attn_bf16_qk_f16_v_cast():
    q, k, v = _f((2, 150, 64), "bfloat16"), _f((2, 170, 64), "bfloat16"), _f((2, 170, 64))
    out = run("attn_bf16_qk_f16_v_cast", {0: q, 1: k, 2: v})[3]
    _close(out, _attention(q, k, v, 0.125), 3e-2, 2e-2)  # bf16 probabilities, V and out


def test_tf32_linear_weight_nk_bias():
    x, w, b = _f((100, 64)), _f((80, 64), scale=0.3), _f((80,))
    out = run("tf32_linear_weight_nk_bias", {0: x, 1: w, 2: b})[3]
    _close(out, _d(x) @ _d(w).T + _d(b), 1e-4, 1e-5)  # f32 accuracy (3xTF32 on the SIMT path)


# ----------------------------------------------------------------------------------------------- norms


def test_layernorm_backward_dx_rows():
    x, dy, w = _f((6, 100), "float16"), _f((6, 100), "float16"), _f((100,))
    xd = _d(x)
    mu = xd.mean(1)
    rs = 1 / np.sqrt(xd.var(1) + 1e-5)
    out = run("layernorm_backward_dx_rows", {0: x, 1: dy, 2: w, 3: mu.astype(F32), 4: rs.astype(F32)})[5]
    mu, rs = _d(mu.astype(F32))[:, None], _d(rs.astype(F32))[:, None]
    xhat = (xd - mu) * rs
    g = _d(dy) * _d(w)
    ref = rs * (g - g.mean(1, keepdims=True) - xhat * (g * xhat).mean(1, keepdims=True))
    _close(out, ref, 1e-2, 2e-3)  # f16 out


def test_layernorm_grad_weight_bias_column_loop():
    x, dy = _f((50, 100), "float16"), _f((50, 100), "float16")
    mu, rs = _f((50,)), (RNG.random(50) + 0.5).astype(F32)
    out = run("layernorm_grad_weight_bias_column_loop", {0: x, 1: dy, 2: mu, 3: rs})
    xhat = (_d(x) - _d(mu)[:, None]) * _d(rs)[:, None]
    _close(out[4], (_d(dy) * xhat).sum(0), 1e-4, 1e-5)
    _close(out[5], _d(dy).sum(0), 1e-4, 1e-5)


def test_variance_chan_merge_over_column_tiles():
    x = _f((4, 300), scale=2.0) + np.array([[0.0], [100.0], [-3.0], [1e3]], F32)  # offsets the merge must survive
    out = run("variance_chan_merge_over_column_tiles", {0: x})
    _close(out[1], _d(x).mean(1), 1e-3, 1e-5)
    _close(out[2], _d(x).var(1), 1e-3, 1e-4)


def test_add_rmsnorm_residual_out_bf16():
    x, r, w = _f((6, 100), "bfloat16"), _f((6, 100), "bfloat16"), _f((100,))
    out = run("add_rmsnorm_residual_out_bf16", {0: x, 1: r, 2: w})
    h = _d(x) + _d(r)
    _close(out[4], h, 3e-2, 1e-2)  # bf16 residual
    _close(out[3], h / np.sqrt((h * h).mean(1, keepdims=True) + 1e-6) * _d(w), 3e-2, 1e-2)  # bf16 out


def test_group_norm_groups_of_rows():
    x = _f((3, 8, 50), scale=2.0) + 1.0
    out = run("group_norm_groups_of_rows", {0: x})[1]
    g = _d(x).reshape(3, 4, 100)
    ref = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5)).reshape(3, 8, 50)
    _close(out, ref, 1e-4, 1e-4)


# ----------------------------------------------------------------------------------------------- reductions


def test_top1_down_columns_with_index():
    x = RNG.integers(0, 5, (70, 50)).astype(F32)  # ties everywhere: the first row wins
    x[69, 3] = 9.0  # the maximum in the ragged last row tile
    x[:, 7] = -2.0  # a column of equal values: row 0
    out = run("top1_down_columns_with_index", {0: x})
    _close(out[1], x.max(0), 0)
    np.testing.assert_array_equal(out[2], x.argmax(0))  # numpy: the first maximum


def test_masked_mean_by_bool_array():
    x = _f((5, 100))
    mk = RNG.random((5, 100)) < 0.4
    mk[2] = False  # an all-False row: 0
    out = run("masked_mean_by_bool_array", {0: x, 1: mk})[2]
    cnt = mk.sum(1)
    _close(out, np.where(mk, _d(x), 0).sum(1) / np.maximum(cnt, 1), 1e-6, 1e-5)


def test_softmax_rows_3d_tile_heads():
    x = _f((8, 1, 100), scale=3.0)
    out = run("softmax_rows_3d_tile_heads", {0: x})[1]
    e = np.exp(_d(x) - _d(x).max(2, keepdims=True))
    _close(out, e / e.sum(2, keepdims=True), 1e-6, 1e-5)


def test_argmin_distance_to_centroids():
    c = np.array([[0] * 8, [4] * 8, [-4] * 8, [0, 8] * 4], F32)
    x = (c[RNG.integers(0, 4, 50)] + RNG.standard_normal((50, 8)) * 0.5).astype(F32)
    out = run("argmin_distance_to_centroids", {0: x, 1: c})[2]
    d = ((_d(x)[:, None, :] - _d(c)[None]) ** 2).sum(2)
    np.testing.assert_array_equal(out, d.argmin(1))


def test_first_index_above_threshold_argmax_bool():
    x = _f((5, 100))
    x[1] = -1.0  # no element passes: index 0
    x[2, :99], x[2, 99] = -1.0, 2.0  # the last element of the ragged tile
    x[3, 0] = 3.0  # the first element
    out = run("first_index_above_threshold_argmax_bool", {0: x})[1]
    ref = [int(np.argmax(r > 0.5)) for r in x]  # numpy: the first True, 0 when none is
    np.testing.assert_array_equal(out, ref)


def test_cumsum_reverse_by_index_arithmetic():
    x = _f((4, 50))
    out = run("cumsum_reverse_by_index_arithmetic", {0: x})[1]
    _close(out, np.cumsum(_d(x)[:, ::-1], 1)[:, ::-1], 1e-5, 1e-5)


# ----------------------------------------------------------------------------------------------- atomics


def test_weighted_histogram_atomic_f32():
    lab = RNG.integers(0, 10, 200).astype(np.int32)
    lab[:4] = [-1, 10, 99, -7]  # outside the table: dropped
    w = _f((200,))
    out = run("weighted_histogram_atomic_f32", {0: lab, 1: w, 2: np.zeros(10, F32)})[2]
    ok = (lab >= 0) & (lab < 10)
    _close(out, np.bincount(lab[ok], _d(w)[ok], minlength=10), 1e-4)


def test_index_add_rows_scatter_add():
    idx = RNG.integers(0, 12, 40).astype(np.int32)
    idx[[0, 1, 2]] = 5  # repeated rows accumulate
    src, base = _f((40, 48)), _f((12, 48))
    out = run("index_add_rows_scatter_add", {0: idx, 1: src, 2: base})[2]
    ref = _d(base).copy()
    np.add.at(ref, idx, _d(src))
    _close(out, ref, 1e-5)


# ----------------------------------------------------------------------------------------------- views, casts


def test_row_scale_of_transposed_view():
    x, s = _f((50, 70)), _f((50,))
    out = run("row_scale_of_transposed_view", {0: x, 1: s})[2]
    _close(out, _d(x) * _d(s)[:, None], 0, 1e-7)  # one f32 rounding


def test_column_slice_view_gelu_bf16():
    x = _f((6, 37), scale=2.0)
    out = run("column_slice_view_gelu_bf16", {0: x})[1]
    v = _d(x)
    _close(out, 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))), 2e-2, 1e-2)  # bf16 out


def test_fp8_e4m3_quantize_saturated_per_tensor():
    x = _f((200,), scale=300.0)
    x[:4] = [1e6, -1e6, 448.0, np.inf]  # saturated to +-448
    s = np.array([0.5], F32)
    out = run("fp8_e4m3_quantize_saturated_per_tensor", {0: x, 1: s})[2]
    ref = np.clip(x.astype(np.float64) / 0.5, -448, 448).astype(F32).astype(ml_dtypes.float8_e4m3fn)
    np.testing.assert_array_equal(out.view(ml_dtypes.float8_e4m3fn).astype(F32), ref.astype(F32))


def test_fp8_e5m2_gradient_cast_saturated():
    g = _f((10, 64), "bfloat16", 1e4)
    g[0, :3] = [1e9, -1e9, 6e4]  # saturated to +-57344
    out = run("fp8_e5m2_gradient_cast_saturated", {0: g})[1]
    ref = np.clip(g.astype(np.float32), -57344, 57344).astype(ml_dtypes.float8_e5m2)
    np.testing.assert_array_equal(out.view(ml_dtypes.float8_e5m2).astype(F32), ref.astype(F32))


def test_clamp_int32_to_uint8_saturate():
    x = RNG.integers(-1000, 1000, 100).astype(np.int32)
    out = run("clamp_int32_to_uint8_saturate", {0: x})[1]
    np.testing.assert_array_equal(out, np.clip(x, 0, 255))




def test_gemm_batched_strided_batch_view():
    """The tier's program on its SIMT fallback (the interpreter runs SIMT kernels; the PTX emulator's GEMM runner
    places contiguous arrays only: the tier kernel with the strided view runs on the GPU, test_user_sweep31_gpu)."""
    a, b = _f((3, 100, 64), "float16"), _f((3, 64, 80), "float16", 0.3)
    out = run("gemm_batched_strided_batch_view", {0: a, 1: b})[2]
    _close(out, np.einsum("zmk,zkn->zmn", _d(a), _d(b)), 1e-3, 1e-4)
