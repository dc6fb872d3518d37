"""The thirty-second user sweep's programs on the SIMT path (``tileorch.testing.user_programs32``: a softmax down the
columns, a two-pass variance, argmin with ties, segmented sums by id masks, int8 -> int32 row sums, a prefix sum down
the columns carried between row tiles, a piecewise ``where`` chain keeping NaN, bool logic to uint8, a bool count,
an online logsumexp, bf16 column means, one-hot rows, per-row int8 quantisation, cross entropy, ``nan_to_num``; and
the GEMM the tier refuses with a located diagonstic -- the N tiles looped inside the kernel) on the CPU's lockstep
SIMT interpreter (tests/unit/simt_interp.py, through test_user_sweep_interp.run) against numpy references computed
from the inputs alone (float64; Python integers), outputs pre-filled with NaN / an integer sentinel. CI runs a few
cheap tests here (:data:`CI`); ``TILEORCH_EMULATE_ALL=1`` runs every one. tests/gpu/test_user_sweep32_gpu.py runs
every test here on the GPU; test_user_sweep32_emulated.py runs them on the PTX emulator."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

from interp_sweep_checks import F32, _ci_subset, _close, _d, every_case, register, sampler  # noqa: E402,F401
from test_user_sweep_interp import run  # noqa: E402

from tileorch.testing.user_programs32 import PROGRAMS  # noqa: E402

register(PROGRAMS)
RNG, _f = sampler(3232)
CI = {"test_argmin_rows_ties_first_index", "test_prefix_sum_down_columns_carried", "test_bool_logic_xor_not_to_uint8"}
"""The tests run in CI (the suite's time budget); every test with ``TILEORCH_EMULATE_ALL=1``."""


def test_gemm_batched_n_tiles_looped_in_kernel():
    a, b = _f((3, 100, 64), "float16"), _f((3, 64, 144), "float16", 0.3)
    out = run("gemm_batched_n_tiles_looped_in_kernel", {0: a, 1: b})[2]
    _close(out, np.einsum("zmk,zkn->zmn", _d(a), _d(b)), 1e-3, 1e-3)


def test_gemm_c_and_ct_stored():
    a, b = _f((100, 64), "float16"), _f((64, 80), "float16", 0.3)
    out = run("gemm_c_and_ct_stored", {0: a, 1: b})
    c = _d(a) @ _d(b)
    _close(out[2], c, 1e-3, 1e-3)
    _close(out[3], c.T, 1e-2, 2e-3)  # f16 copy


def test_attn_qk_e4m3_pv_f16():
    q8 = (RNG.standard_normal((2, 150, 64)) * 2).astype(F32).astype(ml_dtypes.float8_e4m3fn)
    k8 = (RNG.standard_normal((2, 170, 64)) * 2).astype(F32).astype(ml_dtypes.float8_e4m3fn)
    v = _f((2, 170, 64), "float16")
    out = run("attn_qk_e4m3_pv_f16", {0: q8.view(np.uint8), 1: k8.view(np.uint8), 2: v})[3]
    q, k = q8.astype(np.float64), k8.astype(np.float64)
    s = np.einsum("hqd,hkd->hqk", q, k) / 8.0
    p = np.exp(s - s.max(-1, keepdims=True))
    _close(out, np.einsum("hqk,hkd->hqd", p / p.sum(-1, keepdims=True), _d(v)), 2e-2, 1e-2)  # f16 P and out


def test_any_all_rows_bool():
    x = _f((5, 100))
    x[1] = np.abs(x[1]) + 0.1  # all positive
    x[2] = -np.abs(x[2])  # none positive
    x[3, :99] = -1.0  # one positive, in the last (ragged) column
    x[3, 99] = 2.0
    out = run("any_all_rows_bool", {0: x})
    assert out[1].tolist() == [int((r > 0).any()) for r in x]
    assert out[2].tolist() == [int((r > 0).all()) for r in x]


def test_gemm_k_unrolled_by_two():
    a, b = _f((100, 256), "float16"), _f((256, 80), "float16", 0.3)
    out = run("gemm_k_unrolled_by_two", {0: a, 1: b})[2]
    _close(out, _d(a) @ _d(b), 1e-3, 1e-3)


def test_cumsum_int32_rows():
    x = RNG.integers(-1000, 1000, (4, 100)).astype(np.int32)
    out = run("cumsum_int32_rows", {0: x})[1]
    assert (np.asarray(out, np.int64) == np.cumsum(x.astype(np.int64), 1)).all()


def test_cumprod_rows_f32():
    x = (1.0 + 0.05 * RNG.standard_normal((4, 100))).astype(F32)
    out = run("cumprod_rows_f32", {0: x})[1]
    _close(out, np.cumprod(_d(x), 1), 1e-5, 1e-5)


def test_argmax_down_columns_int32_ties():
    x = RNG.integers(0, 3, (50, 40)).astype(np.int32)  # ties everywhere: the first row wins
    x[:, 5] = -7  # a column of equal values: row 0
    x[49, 9] = 100  # the maximum in the last (ragged) row tile
    out = run("argmax_down_columns_int32_ties", {0: x})[1]
    assert out.tolist() == [int(np.argmax(c)) for c in x.T]


def test_top3_by_repeated_argmax():
    x = _f((5, 100))
    out = run("top3_by_repeated_argmax", {0: x})
    idx = np.argsort(-x.astype(np.float64), 1, kind="stable")[:, :3]
    assert out[2].tolist() == idx.tolist()
    _close(out[1], np.take_along_axis(x, idx, 1), 0.0)


def test_int32_products_summed_int64():
    a = RNG.integers(-2 ** 31, 2 ** 31, (4, 100)).astype(np.int32)
    b = RNG.integers(-2 ** 31, 2 ** 31, (4, 100)).astype(np.int32)
    out = run("int32_products_summed_int64", {0: a, 1: b})[2]
    ref = [(sum(int(p) * int(q) for p, q in zip(ra, rb)) + 2 ** 63) % 2 ** 64 - 2 ** 63 for ra, rb in zip(a, b)]
    assert [int(v) for v in out] == ref


def test_uint8_image_normalised_f16():
    x = RNG.integers(0, 256, 200).astype(np.uint8)
    out = run("uint8_image_normalised_f16", {0: x})[1]
    _close(out, (x / 255.0 - 0.45) / 0.225, 3e-3, 1e-3)  # f16 out


def test_masked_row_max_all_masked_rows():
    x, m = _f((4, 100)), RNG.random((4, 100)) < 0.3
    m[1] = False  # no True: -inf
    m[2, 99] = True  # in the last (ragged) column
    out = run("masked_row_max_all_masked_rows", {0: x, 1: m})[2]
    _close(out, [np.where(mm, xx.astype(np.float64), -np.inf).max() for xx, mm in zip(x, m)], 0.0)


def test_softmax_down_columns_online_row_tiles():
    x = _f((150, 100), scale=3.0)
    out = run("softmax_down_columns_online_row_tiles", {0: x})[1]
    e = np.exp(_d(x) - _d(x).max(0, keepdims=True))
    _close(out, e / e.sum(0, keepdims=True), 1e-6, 1e-5)


def test_variance_two_pass_row_loops():
    x = _f((5, 300), scale=2.0) + np.array([[0.0], [50.0], [-7.0], [1e3], [3.0]], F32)
    out = run("variance_two_pass_row_loops", {0: x})[1]
    _close(out, _d(x).var(1, ddof=1), 1e-3, 1e-4)


def test_argmin_rows_ties_first_index():
    x = RNG.integers(0, 4, (6, 100)).astype(F32)  # ties everywhere: the first index of the minimum wins
    x[2, :] = 5.0
    x[3, 99] = -1.0  # the minimum in the last (ragged) column
    out = run("argmin_rows_ties_first_index", {0: x})
    assert out[1].tolist() == [int(np.argmin(r)) for r in x]
    _close(out[2], x.min(1), 0.0)


def test_segmented_sums_by_id_masks():
    x = _f((4, 100))
    seg = RNG.integers(0, 10, (4, 100)).astype(np.int32)  # ids 8, 9 belong to no output segment
    out = run("segmented_sums_by_id_masks", {0: x, 1: seg})[2]
    ref = np.array([[_d(x[r])[seg[r] == s].sum() for s in range(8)] for r in range(4)])
    _close(out, ref, 1e-5, 1e-6)


def test_int8_row_sums_into_int32():
    x = RNG.integers(-128, 128, (5, 300)).astype(np.int8)
    x[0, :] = 127  # 300 x 127 wraps an int8 or int16 sum
    out = run("int8_row_sums_into_int32", {0: x})[1]
    assert out.tolist() == [int(r.astype(np.int64).sum()) for r in x]


def test_prefix_sum_down_columns_carried():
    x = _f((70, 50))
    out = run("prefix_sum_down_columns_carried", {0: x})[1]
    _close(out, np.cumsum(_d(x), 0), 1e-5, 1e-6)


def test_clamp_where_chain_piecewise():
    x = _f((200,), scale=2.0)
    x[[3, 77]] = np.nan
    out = run("clamp_where_chain_piecewise", {0: x})[1]
    xd = _d(x)
    ref = np.where(xd < -1.0, -1.0 + 0.1 * (xd + 1.0), np.where(xd > 1.5, 2.25, xd * xd))
    np.testing.assert_array_equal(np.isnan(out), np.isnan(xd))
    _close(out[~np.isnan(xd)], ref[~np.isnan(xd)], 1e-6, 1e-6)


def test_bool_logic_xor_not_to_uint8():
    a, b = RNG.random(200) < 0.5, RNG.random(200) < 0.3
    out = run("bool_logic_xor_not_to_uint8", {0: a, 1: b})[2]
    assert out.tolist() == [int((x != y) or not (x or y)) for x, y in zip(a, b)]


def test_count_in_range_bool_sum_int32():
    x = _f((5, 100))
    x[0, :10] = -0.5  # the closed bound counts
    x[1, :10] = 0.5  # the open one does not
    out = run("count_in_range_bool_sum_int32", {0: x})[1]
    assert out.tolist() == [int(((r >= -0.5) & (r < 0.5)).sum()) for r in x]


def test_logsumexp_rows_online_loop():
    x = _f((4, 300), scale=4.0)
    out = run("logsumexp_rows_online_loop", {0: x})[1]
    m = _d(x).max(1, keepdims=True)
    _close(out, (m + np.log(np.exp(_d(x) - m).sum(1, keepdims=True)))[:, 0], 1e-5, 1e-6)


def test_column_mean_ragged_rows_bf16():
    x = _f((70, 50), "bfloat16")
    out = run("column_mean_ragged_rows_bf16", {0: x})[1]
    _close(out, _d(x).mean(0), 1e-6, 1e-5)


def test_one_hot_from_labels_f16():
    lab = RNG.integers(-2, 18, 50).astype(np.int32)  # some outside [0, 16): zero rows
    out = run("one_hot_from_labels_f16", {0: lab})[1]
    ref = (lab[:, None] == np.arange(16)[None, :]).astype(np.float64)
    _close(out, ref, 0.0)


def test_absmax_int8_quantize_rows():
    x = _f((5, 100), scale=3.0)
    out = run("absmax_int8_quantize_rows", {0: x})
    sc = np.maximum(np.abs(x).max(1, keepdims=True), np.float32(1e-8)).astype(F32) / F32(127.0)
    q = np.floor(x / sc + F32(0.5))  # float32 steps, as the kernel's f32 math
    assert np.abs(out[1].astype(np.int64) - np.clip(q, -127, 127).astype(np.int64)).max() <= 1  # a tie may round
    assert np.abs(out[1]).max() == 127
    _close(out[2], sc[:, 0], 0.0, 1e-6)


def test_cross_entropy_rows_gathered_label():
    x = _f((6, 100), scale=2.0)
    lab = np.array([0, 99, 50, 7, 63, 64], np.int32)
    out = run("cross_entropy_rows_gathered_label", {0: x, 1: lab})[2]
    xd = _d(x)
    m = xd.max(1)
    ref = m + np.log(np.exp(xd - m[:, None]).sum(1)) - xd[np.arange(6), lab]
    _close(out, ref, 1e-5, 1e-6)


def test_nan_to_num_clamped_f16():
    x = _f((200,), scale=3.0)
    x[[0, 5, 9]] = [np.nan, np.inf, -np.inf]
    x[10] = 1e6
    out = run("nan_to_num_clamped_f16", {0: x})[1]
    ref = np.clip(np.nan_to_num(_d(x), nan=0.0, posinf=65504.0, neginf=-65504.0), -65504, 65504)
    _close(out, ref.astype(np.float16), 0.0)
