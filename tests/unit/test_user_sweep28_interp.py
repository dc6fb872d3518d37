"""The twenty-eighth user sweep's programs on the SIMT path (``tileorch.testing.user_programs28``: normalization,
softmax with a temperature, log-softmax, top-p, online log-sum-exp, rotary embedding on interleaved pairs, uint8 /
int4 unpacking, int8 quantization, masked mean pooling, a depthwise 1-D convolution, a histogram by atomics, a
bitonic network and a rank sort, GEMV by a reduction, outer products, ``break``-like masks, grid-stride loops,
``ct.bid(2)`` batches, default arguments, and the dots the tier refuses with a located warning) on the CPU's
lockstep SIMT interpreter (tests/unit/simt_interp.py, through test_user_sweep_interp.run) against numpy references
computed from the inputs alone (float64; Python integers), ragged sizes, outputs pre-filled with NaN / an integer
sentinel.  tests/gpu/test_user_sweep28_gpu.py runs every test here again on the GPU; test_user_sweep28_emulated.py
runs them on the PTX emulator (a CI subset; all with ``TILEORCH_EMULATE_ALL=1``)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import run, sample  # noqa: E402

from tileorch.testing.user_programs28 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64})

RNG = np.random.default_rng(2828)
F32 = np.float32


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _d(x):
    return np.asarray(x, np.float64)


_close = sweep._close  # float64 assert_allclose(got, ref, atol, rtol=0)


def every_case(test) -> None:
    """Call the test function ``test`` (the emulated and GPU files call each through this)."""
    test()


# ----------------------------------------------------------------------------------------------- the refused dots


def test_geglu_gate_up_in_one_weight():
    a, w = _f((100, 64), "bfloat16"), _f((64, 256), "bfloat16", 0.3)
    y = run("geglu_gate_up_in_one_weight", {0: a, 1: w})[2]
    g, u = _d(a) @ _d(w)[:, :128], _d(a) @ _d(w)[:, 128:]
    ref = 0.5 * g * (1 + np.tanh(0.7978845608028654 * (g + 0.044715 * g ** 3))) * u
    _close(y, ref, 1e-3, 1e-3)


def test_gemm_fp32_operands_plain():
    a, b = _f((100, 64)), _f((64, 80))
    _close(run("gemm_fp32_operands_plain", {0: a, 1: b})[2], _d(a) @ _d(b), 1e-4, 1e-5)  # 3xTF32: f32 accuracy


def test_gemm_last_row_tile_specialised_by_if():
    a, b = _f((130, 64), "float16"), _f((64, 96), "float16")
    _close(run("gemm_last_row_tile_specialised_by_if", {0: a, 1: b})[2], _d(a) @ _d(b), 1e-3, 1e-4)


def test_gemm_a_from_one_of_two_arrays_by_if():
    a, a2, b = _f((130, 64), "float16"), _f((130, 64), "float16"), _f((64, 96), "float16")
    ref = _d(a) @ _d(b)
    ref[:64] = _d(a2)[:64] @ _d(b)  # the first row tile (bm == 0) reads A2
    _close(run("gemm_a_from_one_of_two_arrays_by_if", {0: a, 1: a2, 2: b})[3], ref, 1e-3, 1e-4)


def test_lora_linear_two_chained_dots():
    x, w, la, lb = _f((100, 64), "float16"), _f((64, 96), "float16", 0.3), _f((64, 16), "float16", 0.3), \
        _f((16, 96), "float16", 0.3)
    y = run("lora_linear_two_chained_dots", {0: x, 1: w, 2: la, 3: lb})[4]
    xa = (_d(x) @ _d(la)).astype(np.float16)  # the low-rank product rounded to f16 before the second dot
    _close(y, _d(x) @ _d(w) + 0.5 * (_d(xa) @ _d(lb)), 2e-3, 1e-3)



def test_gemm_two_k_tiles_a_step_by_hand():
    a, b = _f((100, 160), "float16"), _f((160, 80), "float16")
    _close(run("gemm_two_k_tiles_a_step_by_hand", {0: a, 1: b})[2], _d(a) @ _d(b), 1e-3, 1e-4)

# ----------------------------------------------------------------------------------------------- normalization


def test_rmsnorm_gemma_residual_fused():
    x, res, w = _f((6, 100), "float16"), _f((6, 100), "float16"), _f((100,), "float16", 0.2)
    out = run("rmsnorm_gemma_residual_fused", {0: x, 1: res, 2: w})
    r = (x.astype(F32) + res.astype(F32))
    np.testing.assert_array_equal(out[3], r.astype(np.float16))
    rd = _d(r)
    ref = rd / np.sqrt((rd * rd).mean(1, keepdims=True) + 1e-6) * (1 + _d(w))
    _close(out[4], ref, 2e-3, 2e-3)  # f16 out


def test_softmax_with_temperature():
    x = _f((5, 100), scale=3.0)
    z = _d(x) / 0.7
    e = np.exp(z - z.max(1, keepdims=True))
    _close(run("softmax_with_temperature", {0: x})[1], e / e.sum(1, keepdims=True), 1e-6, 1e-5)


def test_log_softmax_f16_in_f32_out():
    x = _f((5, 100), "float16", 4.0)
    z = _d(x) - _d(x).max(1, keepdims=True)
    _close(run("log_softmax_f16_in_f32_out", {0: x})[1], z - np.log(np.exp(z).sum(1, keepdims=True)), 1e-5, 1e-5)


def test_top_p_mask_by_cumsum():
    p = RNG.random((4, 50)).astype(F32) ** 4
    p = -np.sort(-(p / p.sum(1, keepdims=True)), axis=1).astype(F32)
    keep = run("top_p_mask_by_cumsum", {0: p})[1]
    before = np.cumsum(_d(p), 1) - _d(p)
    ref = before < 0.9
    near = np.abs(before - 0.9) < 1e-5  # (f32 rounding of the scan at the threshold)
    assert keep.dtype == np.uint8 and set(np.unique(keep)) <= {0, 1}
    np.testing.assert_array_equal(keep.astype(bool)[~near], ref[~near])


def test_log_sum_exp_online_over_chunks():
    x = _f((5, 300), scale=5.0)
    m = _d(x).max(1)
    ref = m + np.log(np.exp(_d(x) - m[:, None]).sum(1))
    _close(run("log_sum_exp_online_over_chunks", {0: x})[1], ref, 1e-5, 1e-6)


# ----------------------------------------------------------------------------------------------- positional, quant


def test_rotary_interleaved_pairs():
    x = _f((10, 16, 2))
    ang = RNG.random((10, 16)) * 6.0
    c, s = np.cos(ang).astype(F32), np.sin(ang).astype(F32)
    y = run("rotary_interleaved_pairs", {0: x, 1: c, 2: s})[3]
    x0, x1 = _d(x[..., 0]), _d(x[..., 1])
    ref = np.stack([x0 * c - x1 * s, x0 * s + x1 * c], axis=-1)
    _close(y, ref, 1e-6, 1e-6)


def test_unpack_uint8_nibbles_dequant():
    q = RNG.integers(0, 256, (4, 100)).astype(np.uint8)
    q[0, :4] = [0, 255, 0x0F, 0xF0]
    s = (RNG.random(4) + 0.5).astype(F32)
    out = run("unpack_uint8_nibbles_dequant", {0: q, 1: s})
    qi = q.astype(np.int64)
    np.testing.assert_array_equal(out[2], ((qi & 15) - 8).astype(F32) * s[:, None])  # one f32 product
    np.testing.assert_array_equal(out[3], ((qi >> 4) - 8).astype(F32) * s[:, None])


def test_unpack_int4_words_by_shift_arange():
    w = RNG.integers(-2**31, 2**31, 50, dtype=np.int64).astype(np.int32)
    w[0] = -1
    w[1] = 0x789ABCDE - 2**32 if 0x789ABCDE >= 2**31 else 0x789ABCDE
    out = run("unpack_int4_words_by_shift_arange", {0: w})[1]
    u = w.astype(np.int64) & 0xFFFFFFFF
    nib = np.stack([(u >> (4 * j)) & 15 for j in range(8)], axis=1)
    np.testing.assert_array_equal(out, np.where(nib >= 8, nib - 16, nib).astype(F32))


def test_quantize_rows_int8_symmetric():
    x = _f((5, 100), scale=2.0)
    x[4] = 0.0  # an all-zero row: the scale's floor 1e-8 / 127
    q, s = [run("quantize_rows_int8_symmetric", {0: x})[i] for i in (1, 2)]
    amax = np.maximum(np.abs(x).max(1), F32(1e-8)).astype(F32)
    scale = (amax / F32(127)).astype(F32)
    _close(s, scale, 0)
    ref = np.clip(np.floor((x / scale[:, None]).astype(F32) + F32(0.5)), -127, 127)
    assert q.dtype == np.int8
    assert np.abs(q.astype(np.int64) - ref).max() <= 1  # (f32 division rounding at .5 boundaries)
    assert (q.astype(np.int64) == ref).mean() > 0.99


def test_image_uint8_normalize_channels_last():
    img = RNG.integers(0, 256, (50, 4)).astype(np.uint8)
    img[0] = [0, 255, 128, 1]
    mean, std = np.array([0.485, 0.456, 0.406, 0.5], F32), np.array([0.229, 0.224, 0.225, 0.25], F32)
    out = run("image_uint8_normalize_channels_last", {0: img, 1: mean, 2: std})[3]
    _close(out, (_d(img) / 255 - _d(mean)) / _d(std), 1e-5, 1e-6)


# ----------------------------------------------------------------------------------------------- pooling, conv


def test_masked_mean_pool_by_lengths():
    x = _f((4, 20, 32))
    lens = np.array([20, 7, 0, 13], np.int32)
    out = run("masked_mean_pool_by_lengths", {0: x, 1: lens})[2]
    ref = np.stack([_d(x[b, :n]).sum(0) / max(n, 1) for b, n in enumerate(lens)])
    _close(out, ref, 1e-6, 1e-6)


def test_conv1d_depthwise_k3_by_gather():
    x, w = _f((6, 100)), _f((6, 4))
    y = run("conv1d_depthwise_k3_by_gather", {0: x, 1: w})[2]
    xp = np.pad(_d(x), ((0, 0), (1, 1)))
    ref = _d(w)[:, :1] * xp[:, :-2] + _d(w)[:, 1:2] * xp[:, 1:-1] + _d(w)[:, 2:3] * xp[:, 2:]
    _close(y, ref, 1e-6, 1e-6)


def test_avg_pool1d_stride2_by_reshape():
    x = _f((4, 100))
    _close(run("avg_pool1d_stride2_by_reshape", {0: x})[1], _d(x).reshape(4, 50, 2).mean(2), 1e-7, 1e-6)


# ----------------------------------------------------------------------------------------------- atomics, sorting


def test_histogram_int32_atomic_bins():
    x = _f((300,), scale=1.5)
    x[:3] = [-2.0, 2.0, 2.5]  # both edges in range (the top one in the last bin), one outside
    counts = run("histogram_int32_atomic_bins", {0: x, 1: np.zeros(16, np.int32)})[1]
    f = np.floor((x.astype(F32) - F32(-2.0)) * F32(16 / 4.0)).astype(np.int64)
    ok = (x >= -2.0) & (x <= 2.0)
    ref = np.bincount(np.minimum(f[ok], 15), minlength=16)
    np.testing.assert_array_equal(counts, ref)


def test_bitonic_sort_rows_of_16():
    x = _f((5, 16))
    x[1] = np.arange(16)[::-1]
    x[2] = 1.0  # all equal
    x[3, ::2] = x[3, 1::2]  # pairs of ties
    np.testing.assert_array_equal(run("bitonic_sort_rows_of_16", {0: x})[1], np.sort(x, axis=1))


def test_rank_sort_by_comparison_matrix():
    x = _f((5, 32))
    x[1] = np.round(x[1])  # many ties
    x[2] = 3.0
    np.testing.assert_array_equal(run("rank_sort_by_comparison_matrix", {0: x})[1], np.sort(x, axis=1))


def test_argmin_int64_with_first_tie():
    x = _f((6, 70))
    x[2, [5, 40]] = -100.0  # a tie: the first
    x[3, 69] = -100.0  # the last valid column
    out = run("argmin_int64_with_first_tie", {0: x})[1]
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, np.argmin(x, axis=1))


# ----------------------------------------------------------------------------------------------- products, control


def test_gemv_by_row_reduction():
    a, x = _f((100, 200), "float16"), _f((200,))
    _close(run("gemv_by_row_reduction", {0: a, 1: x})[2], _d(a) @ _d(x), 1e-4, 1e-5)


def test_outer_product_scaled():
    u, v = _f((70,)), _f((50,))
    _close(run("outer_product_scaled", {0: u, 1: v})[2], 2.0 * np.outer(_d(u), _d(v)), 1e-6, 1e-6)


def test_first_crossing_with_done_mask():
    x = np.abs(_f((5, 100), scale=0.2))
    x[4] = 0.0  # never crosses: -1
    x[3, 31] = 10.0  # crosses at the last column of the first chunk
    out = run("first_crossing_with_done_mask", {0: x})[1]
    c = np.cumsum(_d(x), 1)
    ref = np.array([int(np.argmax(r > 3.0)) if (r > 3.0).any() else -1 for r in c])
    np.testing.assert_array_equal(out, ref)


def test_bucketize_by_binary_search_while():
    bounds = np.sort(_f((100,)))
    q = _f((200,))
    q[:4] = [bounds[0], bounds[50], 100.0, -100.0]  # on a bound (left side: its index), past both ends
    out = run("bucketize_by_binary_search_while", {0: bounds, 1: q})[2]
    np.testing.assert_array_equal(out, np.searchsorted(bounds, q, side="left"))

def test_scale_3d_batch_on_bid2():
    x, s = _f((3, 20, 30)), _f((3,))
    np.testing.assert_array_equal(run("scale_3d_batch_on_bid2", {0: x, 1: s})[2], x * s[:, None, None])


def test_grid_stride_copy_num_blocks():
    x = _f((200,))
    _close(run("grid_stride_copy_num_blocks", {0: x})[1], 2 * _d(x), 0)


def test_edge_programs_specialised_by_if():
    x = _f((200,))
    xp = np.concatenate([[x[0]], _d(x), [x[-1]]])
    ref = (xp[:-2] + xp[1:-1] + xp[2:]) / 3
    _close(run("edge_programs_specialised_by_if", {0: x})[1], ref, 1e-6, 1e-6)


def test_defaults_scale_and_tile():
    x = _f((100,))
    _close(run("defaults_scale_and_tile", {0: x})[1], 0.5 * _d(x), 0)


def test_causal_mask_fill_scores():
    s = _f((100, 64))
    out = run("causal_mask_fill_scores", {0: s})[1]
    rows, cols = np.arange(100)[:, None], np.arange(64)[None, :]
    z = np.where(cols > rows, -np.inf, _d(s))
    e = np.exp(z - z.max(1, keepdims=True))
    _close(out, e / e.sum(1, keepdims=True), 1e-6, 1e-5)


def test_cumprod_discount_factors():
    g = (0.9 + 0.1 * RNG.random((4, 50))).astype(F32)
    _close(run("cumprod_discount_factors", {0: g})[1], np.cumprod(_d(g), 1), 1e-6, 1e-5)


def test_layer_scale_residual_bf16():
    x, f, g = _f((10, 64), "bfloat16"), _f((10, 64), "bfloat16"), _f((64,), "bfloat16", 0.1)
    out = run("layer_scale_residual_bf16", {0: x, 1: f, 2: g})[3]
    _close(out, _d(x) + _d(g) * _d(f), 1e-6, 2 ** -7)  # bf16 out
