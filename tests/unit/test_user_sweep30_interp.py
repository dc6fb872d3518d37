"""The thirtieth user sweep's programs on the SIMT path (``tileorch.testing.user_programs30``: layernorm with weight
and bias, RMSNorm in bf16, a softmax down the columns, column sums by atomics, argmax with ties, int64 prefix sums,
an embedding gather with a padding index, a masked scatter, an atomic histogram, a 3-D tile, per-row int8
quantization, bool masks and counts, fp8 dequantization, log-sum-exp over column tiles, cross entropy with a
gathered target, uint8 image normalization, a running max, and the dot the tier refuses with a located warning) on
the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through test_user_sweep_interp.run) against numpy
references computed from the inputs alone (float64; Python integers), outputs pre-filled with NaN / an integer
sentinel.  CI runs a few cheap tests here (:data:`CI`); ``TILEORCH_EMULATE_ALL=1`` runs every one.
tests/gpu/test_user_sweep30_gpu.py runs every test here on the GPU; test_user_sweep30_emulated.py runs them on the
PTX emulator."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

from interp_sweep_checks import F32, _ci_subset, _close, _d, every_case, register, sampler  # noqa: E402,F401
from test_user_sweep_interp import run  # noqa: E402

from tileorch.testing.user_programs30 import PROGRAMS  # noqa: E402

register(PROGRAMS)
RNG, _f = sampler(3030)
CI = {"test_argmax_rows_with_ties_first_index", "test_histogram_atomic_bins_int32",
      "test_embedding_gather_padding_idx"}
"""The tests run in CI (the suite's time budget); every test with ``TILEORCH_EMULATE_ALL=1``."""


# ----------------------------------------------------------------------------------------------- the refused dot


def test_gemm_a_3d_unit_middle_dim():
    x, w = _f((100, 3, 64), "float16"), _f((64, 80), "float16", 0.3)
    out = run("gemm_a_3d_unit_middle_dim", {0: x, 1: w})[2]
    _close(out, np.einsum("mhk,kn->hmn", _d(x), _d(w)), 1e-3, 1e-4)


# ----------------------------------------------------------------------------------------------- norms, softmax


def test_layernorm_two_pass_weight_bias():
    x = _f((6, 100), "float16", 2.0) + np.float16(3.0)  # an offset mean: the two-pass variance matters
    w, b = _f((100,)), _f((100,))
    y = run("layernorm_two_pass_weight_bias", {0: x, 1: w, 2: b})[3]
    d = _d(x)
    mu = d.mean(1, keepdims=True)
    ref = (d - mu) / np.sqrt(((d - mu) ** 2).mean(1, keepdims=True) + 1e-5) * _d(w) + _d(b)
    _close(y, ref, 1e-2, 2e-3)  # f16 out


def test_rmsnorm_bf16_weight_plus_one():
    x, w = _f((6, 100), "bfloat16"), _f((100,), "bfloat16", 0.1)
    y = run("rmsnorm_bf16_weight_plus_one", {0: x, 1: w})[2]
    d = _d(x)
    ref = d / np.sqrt((d * d).mean(1, keepdims=True) + 1e-6) * (1 + _d(w))
    _close(y, ref, 2e-2, 1e-2)  # bf16 out


def test_softmax_down_columns_axis0():
    x = _f((50, 70), scale=3.0)
    y = run("softmax_down_columns_axis0", {0: x})[1]
    e = np.exp(_d(x) - _d(x).max(0))
    _close(y, e / e.sum(0), 1e-6, 1e-5)


def test_softmax_axis0_through_order_views():
    x = _f((50, 70), scale=3.0)
    y = run("softmax_axis0_through_order_views", {0: x})[1]
    e = np.exp(_d(x) - _d(x).max(0))
    _close(y, e / e.sum(0), 1e-6, 1e-5)


def test_logsumexp_rows_online_over_column_tiles():
    x = _f((4, 300), scale=4.0)
    x[1, 299] = 40.0  # the maximum in the ragged last tile
    out = run("logsumexp_rows_online_over_column_tiles", {0: x})[1]
    d = _d(x)
    m = d.max(1)
    _close(out, m + np.log(np.exp(d - m[:, None]).sum(1)), 1e-5, 1e-6)


def test_cross_entropy_rows_target_gather():
    x = _f((6, 100), "bfloat16", 2.0)
    t = np.array([0, 99, 5, -100, 50, 17], np.int32)
    out = run("cross_entropy_rows_target_gather", {0: x, 1: t})[2]
    d = _d(x)
    m = d.max(1)
    lse = m + np.log(np.exp(d - m[:, None]).sum(1))
    ref = np.where(t == -100, 0.0, lse - d[np.arange(6), np.maximum(t, 0)])
    _close(out, ref, 1e-4, 1e-5)


# ----------------------------------------------------------------------------------------------- reductions, scans


def test_column_sums_by_atomic_add_row_blocks():
    x = _f((50, 70))
    out = run("column_sums_by_atomic_add_row_blocks", {0: x, 1: np.zeros(70, F32)})[1]
    _close(out, _d(x).sum(0), 1e-4)


def test_argmax_rows_with_ties_first_index():
    x = RNG.integers(0, 4, (5, 40)).astype(F32)  # ties everywhere
    x[3] = -1.0  # a row of equal values: index 0
    x[4, 39] = 9.0  # the maximum in the last lane of the row
    out = run("argmax_rows_with_ties_first_index", {0: x})
    np.testing.assert_array_equal(out[1], [int(np.argmax(r)) for r in x])  # numpy: the first maximum
    _close(out[2], x.max(1), 0)


def test_cumsum_int64_rows_of_int32():
    x = RNG.integers(2**30, 2**31 - 1, (6, 50)).astype(np.int32)  # sums past int32
    x[1] = -x[1]
    out = run("cumsum_int64_rows_of_int32", {0: x})[1]
    np.testing.assert_array_equal(out, np.cumsum(x.astype(np.int64), 1))


def test_running_max_cummax_by_scan_free_loop():
    x = _f((3, 50))
    x[2, :] = np.arange(50, dtype=F32)[::-1]  # decreasing: the first element throughout
    out = run("running_max_cummax_by_scan_free_loop", {0: x})[1]
    _close(out, np.maximum.accumulate(_d(x), 1), 0)


# ----------------------------------------------------------------------------------------------- gather, scatter


def test_embedding_gather_padding_idx():
    emb = _f((30, 48), "float16")
    ids = RNG.integers(0, 30, 40).astype(np.int32)
    ids[[0, 7, 39]] = 0  # the padding index
    ids[5] = 31  # past the table
    out = run("embedding_gather_padding_idx", {0: ids, 1: emb})[2]
    ref = np.zeros((40, 64))
    for t, i in enumerate(ids):
        if i != 0 and i < 30:
            ref[t, :48] = emb[i]
    _close(out, ref, 0)


def test_masked_scatter_positive_to_slots():
    x = _f((100,))
    slot = RNG.permutation(100).astype(np.int32)
    y0 = np.full(100, -3.0, F32)
    out = run("masked_scatter_positive_to_slots", {0: x, 1: slot, 2: y0})[2]
    ref = y0.astype(np.float64).copy()
    ref[slot[x > 0]] = x[x > 0]
    _close(out, ref, 0)


def test_histogram_atomic_bins_int32():
    x = _f((200,), scale=2.0)
    x[:3] = [-100.0, 100.0, 1.99]  # clamped into the first and the last bins
    out = run("histogram_atomic_bins_int32", {0: x, 1: np.zeros(16, np.int32)})[1]
    bins = np.clip(np.floor((_d(x) + 2.0) / 0.25), 0, 15).astype(int)
    np.testing.assert_array_equal(out, np.bincount(bins, minlength=16))


# ----------------------------------------------------------------------------------------------- elementwise, dtypes


def test_tile_3d_bias_gelu_erf_free():
    x, b = _f((3, 10, 20)), _f((20,))
    out = run("tile_3d_bias_gelu_erf_free", {0: x, 1: b})[2]
    v = _d(x) + _d(b)
    _close(out, v / (1 + np.exp(-1.702 * v)), 1e-5, 1e-5)


def test_int8_quantize_per_row_absmax():
    x = _f((5, 100), scale=3.0)
    x[2] = 0.0  # a zero row: scale 1, q 0
    out = run("int8_quantize_per_row_absmax", {0: x})
    amax = np.abs(_d(x)).max(1)
    scale = np.where(amax > 0, amax / 127, 1.0)
    _close(out[2], scale, 1e-7, 1e-6)
    q = np.clip(np.floor(_d(x) / scale[:, None] + 0.5), -127, 127)
    assert np.abs(out[1].astype(np.int64) - q).max() <= 1  # f32 division vs float64 at the .5 boundary
    assert (out[1].astype(np.int64) == q).mean() > 0.99


def test_bool_mask_and_count_true():
    x = _f((100,))
    thr = np.array([0.5, -0.25], F32)
    out = run("bool_mask_and_count_true", {0: x, 1: thr})
    mk = x > np.repeat(thr, 64)[:100]
    np.testing.assert_array_equal(out[2].view(np.uint8), mk)
    np.testing.assert_array_equal(out[3], [mk[:64].sum(), mk[64:].sum()])


def test_fp8_e4m3_dequant_rows_to_bf16():
    e4 = ml_dtypes.float8_e4m3fn
    q = (RNG.standard_normal((10, 48)) * 8).astype(F32).astype(e4)
    s = (RNG.random(10) + 0.5).astype(F32)
    out = run("fp8_e4m3_dequant_rows_to_bf16", {0: q.view(np.uint8), 1: s})[2]
    _close(out, q.astype(np.float64) * _d(s)[:, None], 0, 8e-3)  # bf16 out


def test_rope_half_split_two_loads():
    x, c, s = _f((2, 50, 64), "bfloat16"), _f((50, 32)), _f((50, 32))
    y = run("rope_half_split_two_loads", {0: x, 1: c, 2: s})[3]
    x1, x2 = _d(x)[..., :32], _d(x)[..., 32:]
    ref = np.concatenate([x1 * _d(c) - x2 * _d(s), x2 * _d(c) + x1 * _d(s)], -1)
    _close(y, ref, 2e-2, 1e-2)  # bf16 out


def test_swiglu_rows_bf16():
    g, u = _f((6, 100), "bfloat16", 2.0), _f((6, 100), "bfloat16")
    y = run("swiglu_rows_bf16", {0: g, 1: u})[2]
    _close(y, _d(g) / (1 + np.exp(-_d(g))) * _d(u), 1e-2, 1e-2)  # bf16 out


def test_uint8_image_normalize_to_f16():
    x = RNG.integers(0, 256, (5, 20, 3)).astype(np.uint8)
    mu, sd = np.array([0.485, 0.456, 0.406], F32), np.array([0.229, 0.224, 0.225], F32)
    out = run("uint8_image_normalize_to_f16", {0: x, 1: mu, 2: sd})[3]
    _close(out, (_d(x) / 255 - _d(mu)) / _d(sd), 3e-3, 1e-3)  # f16 out
