"""The thirteenth user sweep (``tileorch.testing.user_programs13``: issue 21, memory-bound programs of the
kinds a user writes first) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through
test_user_sweep_interp.run) against numpy references computed independently from the same inputs,
outputs pre-filled with NaN / an integer sentinel / the fp8 NaN byte, ragged sizes: load / store
``order``, NaN and +inf padding, ``check_bounds=False``, 2-D / 3-D gathers and scatters with masks and
padding values, bitcasts, NaN-aware min / max, floor division and modulo of negatives, reverse
cumprod, rank-3 and full reductions, tiles larger than their array, strided views, constexpr
branches, static_iter, early return, three grid axes, scalars of every kind, int8 / fp8
quantisation, the 2-D / 3-D pairs.  tests/gpu/test_user_sweep13_gpu.py runs every test here again
on the H200."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import run, sample  # noqa: E402

from tileorch.testing.user_programs13 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"uint16": np.uint16, "uint64": np.uint64, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8})

RNG = np.random.default_rng(1313)


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol)


def _bits(a):
    a = np.asarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


# ----------------------------------------------------------------------------------------------- load / store keywords


def test_load_order_f_transpose():
    x = _f((37, 50))
    np.testing.assert_array_equal(run("load_order_f_transpose", {0: x})[1], x.T)


def test_store_order_f_transpose():
    x = _f((37, 50), "float16")
    np.testing.assert_array_equal(run("store_order_f_transpose", {0: x})[1], x.T)


def test_load_nan_padding_row_max_latency():
    x = _f((5, 100))
    x[1, [3, 77]] = np.nan
    x[4, 99] = np.nan
    out = run("load_nan_padding_row_max_latency", {0: x})
    np.testing.assert_array_equal(out[1], np.nanmax(x, 1))
    np.testing.assert_array_equal(out[2], (128 - 100 + np.isnan(x).sum(1)).astype(np.int32))


def test_load_pos_inf_padding_min_keepdims():
    x = _f((4, 70))
    np.testing.assert_array_equal(run("load_pos_inf_padding_min_keepdims", {0: x})[1], x - x.min(1, keepdims=True))


def test_load_check_bounds_false_scale():
    x = _f(256)
    np.testing.assert_array_equal(run("load_check_bounds_false_scale", {0: x})[1], x * np.float32(1.5))


# ----------------------------------------------------------------------------------------------- gather / scatter


def test_gather_2d_outer_indices_padding():
    t = _f((20, 30))
    r = RNG.integers(-2, 24, 16).astype(np.int32)
    c = RNG.integers(-2, 34, 32).astype(np.int32)
    r[0], c[0] = -1, 29  # a negative row: out of bounds, not Python's last row
    y = run("gather_2d_outer_indices_padding", {0: t, 1: r, 2: c})[3]
    ok = ((r >= 0) & (r < 20))[:, None] & ((c >= 0) & (c < 30))[None, :]
    want = np.where(ok, t[np.clip(r, 0, 19)[:, None], np.clip(c, 0, 29)[None, :]], np.float32(-7.0))
    np.testing.assert_array_equal(y, want)


def test_gather_3d_broadcast_mask():
    t = _f((4, 8, 16))
    y = run("gather_3d_broadcast_mask", {0: t})[1]
    i, k = np.arange(4)[:, None, None], np.arange(16)[None, None, :]
    np.testing.assert_array_equal(y, np.where((i + k) < 12, t[:, ::-1, :], np.float32(0.5)))


def test_scatter_2d_lower_triangle():
    src = _f((40, 16))
    y = run("scatter_2d_lower_triangle", {0: src})[1]
    r, c = np.arange(40)[None, :], np.arange(16)[:, None]
    want = np.where(c <= r, src.T, np.nan).astype(np.float32)
    np.testing.assert_array_equal(y, want)


def test_gather_int64_indices_scaled():
    t = _f(200)
    idx = RNG.integers(0, 100, 90).astype(np.int64)
    np.testing.assert_array_equal(run("gather_int64_indices_scaled", {0: t, 1: idx})[2], t[2 * idx + 1])


# ----------------------------------------------------------------------------------------------- bits and NaN


def test_bitcast_f32_exponent_and_negate():
    x = _f(128, scale=1000.0)
    x[[0, 1, 2, 3]] = [0.0, np.inf, np.float32(1e-40), np.nan]  # zero, inf, a subnormal, NaN
    out = run("bitcast_f32_exponent_and_negate", {0: x})
    b = x.view(np.int32)
    np.testing.assert_array_equal(out[1], ((b >> 23) & 255) - 127)
    np.testing.assert_array_equal(_bits(out[2]), (x.view(np.uint32) ^ np.uint32(1 << 31)))


def test_bitcast_f16_to_int16_abs():
    x = _f(128, "float16", scale=100.0)
    x[[0, 1]] = [-np.inf, np.nan]
    out = run("bitcast_f16_to_int16_abs", {0: x})
    np.testing.assert_array_equal(out[1], x.view(np.int16))
    np.testing.assert_array_equal(_bits(out[2]), x.view(np.uint16) & np.uint16(0x7FFF))


def test_minimum_maximum_nan_modes():
    a, b = _f(128), _f(128)
    a[[1, 5, 9]] = np.nan
    b[[2, 5, 11]] = np.nan  # 5: both NaN
    out = run("minimum_maximum_nan_modes", {0: a, 1: b})
    np.testing.assert_array_equal(out[2], np.fmin(a, b))
    np.testing.assert_array_equal(out[3], np.fmax(a, b))
    np.testing.assert_array_equal(out[4], np.minimum(a, b))


# ----------------------------------------------------------------------------------------------- integer and float division


def test_int32_floordiv_mod_negatives():
    a = RNG.integers(-1000, 1000, 128).astype(np.int32)
    b = RNG.integers(1, 30, 128).astype(np.int32) * RNG.choice([-1, 1], 128).astype(np.int32)
    a[:4], b[:4] = [-7, 7, -7, 7], [2, -2, -2, 2]
    out = run("int32_floordiv_mod_negatives", {0: a, 1: b})
    np.testing.assert_array_equal(out[2], np.floor_divide(a, b))
    np.testing.assert_array_equal(out[3], np.mod(a, b))
    np.testing.assert_array_equal(out[4], np.floor_divide(a, -3))
    np.testing.assert_array_equal(out[5], np.mod(a, -3))


def test_int64_divmod_runtime_scalar():
    a = RNG.integers(-(2**41), 2**41, 128).astype(np.int64)
    a[:3] = [-1, 0, 6]
    out = run("int64_divmod_runtime_scalar", {0: a})
    np.testing.assert_array_equal(out[1], np.floor_divide(a, -7))
    np.testing.assert_array_equal(out[2], np.mod(a, -7))


def test_float_floordiv_mod():
    a, b = _f(128, scale=10.0), _f(128)
    b = np.where(np.abs(b) < 0.1, np.float32(0.5), b).astype(np.float32)
    out = run("float_floordiv_mod", {0: a, 1: b})
    np.testing.assert_array_equal(out[2], np.floor(a / b))
    r = np.fmod(a, b)
    r = np.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
    _close(out[3], r, 1e-5, 1e-5)


# ----------------------------------------------------------------------------------------------- scans and reductions


def test_f32_cumprod_reverse():
    x = (1.0 + 0.1 * _f((3, 32))).astype(np.float32)
    want = np.cumprod(x[:, ::-1].astype(np.float64), 1)[:, ::-1]
    _close(run("f32_cumprod_reverse", {0: x})[1], want)


def test_rank3_axis0_sum_keepdims_and_axis2_max():
    x = _f((4, 8, 32))
    out = run("rank3_axis0_sum_keepdims_and_axis2_max", {0: x})
    _close(out[1], x.astype(np.float64).sum(0, keepdims=True))
    np.testing.assert_array_equal(out[2], x.max(2))


def test_full_reduce_axis_none():
    x = _f((30, 40))
    out = run("full_reduce_axis_none", {0: x})
    blocks = [x[8 * b:8 * b + 8] for b in range(4)]
    _close(out[1], [blk.astype(np.float64).sum() for blk in blocks], 1e-5, 1e-5)
    np.testing.assert_array_equal(out[2], [blk.max() for blk in blocks])


def test_argmax_keepdims_gather_value():
    x = _f((5, 90))
    np.testing.assert_array_equal(run("argmax_keepdims_gather_value", {0: x})[1], x.max(1))


# ----------------------------------------------------------------------------------------------- sizes and views


def test_rank1_tile_larger_than_array():
    x = _f(1000)
    _close(run("rank1_tile_larger_than_array", {0: x})[1], x.astype(np.float64) ** 2 + 1)


def test_rank1_tile_8_over_13():
    x = _f(13, "float16")
    np.testing.assert_array_equal(run("rank1_tile_8_over_13", {0: x})[1], np.abs(x) - np.float16(1.0))


def test_strided_view_slices():
    x = _f((40, 64))
    np.testing.assert_array_equal(run("strided_view_slices", {0: x})[1], x[5:26, 9:46] * np.float32(2.0))


# ----------------------------------------------------------------------------------------------- control flow and launch


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_constexpr_branch_activation(mode):
    x = _f(200, scale=3.0)
    y = run(f"constexpr_branch_activation_{mode}", {0: x})[1]
    xd = x.astype(np.float64)
    want = [np.maximum(xd, 0), np.where(xd > 0, xd, xd * 0.1), xd / (1 + np.exp(-xd))][mode]
    _close(y, want, 1e-5, 1e-6)


def test_nested_static_iter_blocks():
    x = _f((12, 64))
    y = run("nested_static_iter_blocks", {0: x})[1]
    _close(y, sum((k + 1) * x[4 * k:4 * k + 4].astype(np.float64) for k in range(3)))


def test_early_return_on_runtime_bound():
    x = _f(256)
    y = run("early_return_on_runtime_bound", {0: x})[1]
    np.testing.assert_array_equal(y[:192], x[:192] + np.float32(1))
    assert np.isnan(y[192:]).all()  # the fourth program returned


def test_bid_and_num_blocks_three_axes():
    x = _f((4, 3, 64))
    y = run("bid_and_num_blocks_three_axes", {0: x})[1]
    z, yy, col = np.meshgrid(np.arange(4), np.arange(3), np.arange(64), indexing="ij")
    off = (col // 32) + 10 * yy + 100 * z + 1000 * (2 + 10 * 3 + 100 * 4)
    np.testing.assert_array_equal(y, x + off.astype(np.float32))


@pytest.mark.parametrize("flag", [True, False])
def test_scalars_of_every_kind(flag):
    x = _f(128)
    y = run("scalars_of_every_kind", {0: x, 5: flag})[1]
    want = ((x + np.float32(3)) * np.float32(0.5) + np.float32(5)) if flag else x * np.float32(2)
    _close(y, -want)


def test_assert_beside_scale():
    x = _f(128)
    np.testing.assert_array_equal(run("assert_beside_scale", {0: x})[1], x * np.float32(3))


# ----------------------------------------------------------------------------------------------- narrow outputs


def test_quantize_int8_clamped_rounded():
    x = _f(200, scale=4.0)
    q = run("quantize_int8_clamped_rounded", {0: x})[1]
    want = np.clip(np.floor(x.astype(np.float64) * 20 + 0.5), -128, 127).astype(np.int8)
    assert (q.astype(np.int32) - want).__abs__().max() <= 0  # exact (no value lands on a rounding edge here)
    assert q.min() == -128 and q.max() == 127  # both clamps taken


def test_quantize_fp8_rowwise_saturating():
    x = _f((4, 100), scale=3.0)
    out = run("quantize_fp8_rowwise_saturating", {0: x})
    scale = (np.abs(x).max(1, keepdims=True) / np.float32(448.0)).astype(np.float32)
    np.testing.assert_array_equal(out[2], scale[:, 0])
    q = np.clip(x / scale, -448, 448).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    np.testing.assert_array_equal(out[1], q)
    assert (np.abs(out[1].view(ml_dtypes.float8_e4m3fn).astype(np.float32)).max(1) == 448).all()


def test_expand_dims_broadcast_rank3():
    a, b = _f((4, 16)), _f((8, 16))
    y = run("expand_dims_broadcast_rank3", {0: a, 1: b})[2]
    np.testing.assert_array_equal(y, a[:, None, :] * b[None, :, :])


# ----------------------------------------------------------------------------------------------- 2-D / 3-D pairs


def _softmax(x):
    e = np.exp(x.astype(np.float64) - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_pair_row_softmax():
    x = _f((6, 300), scale=3.0)
    _close(run("pair2d_row_softmax", {0: x})[1], _softmax(x), 1e-5, 1e-7)
    _close(run("pair3d_row_softmax", {0: x[None]})[1], _softmax(x)[None], 1e-5, 1e-7)


def test_pair_axpby():
    x, y = _f((50, 200)), _f((50, 200))
    want = 2.0 * x.astype(np.float64) - 0.5 * y
    _close(run("pair2d_axpby", {0: x, 1: y})[2], want)
    _close(run("pair3d_axpby", {0: x[None], 1: y[None]})[2], want[None])


def test_pair_column_sum():
    x = _f((30, 200))
    want = x.astype(np.float64).sum(0)
    _close(run("pair2d_column_sum", {0: x})[1], want, 1e-5, 1e-5)
    _close(run("pair3d_column_sum", {0: x[None]})[1], want[None], 1e-5, 1e-5)


# ----------------------------------------------------------------------------------------------- second batch


def test_load_order_tuple_rank3():
    x = _f((4, 8, 16))
    np.testing.assert_array_equal(run("load_order_tuple_rank3", {0: x})[1], x.transpose(2, 0, 1))


def test_gather_scalar_column_index():
    t = _f((30, 12))
    r = RNG.integers(0, 34, 70).astype(np.int32)
    y = run("gather_scalar_column_index", {0: t, 1: r})[2]
    np.testing.assert_array_equal(y, np.where(r < 30, t[np.minimum(r, 29), 7], np.float32(0)))


def test_scatter_scalar_value_flags():
    idx = RNG.integers(0, 50, 100).astype(np.int32)  # 50..63 never named: keep the sentinel
    flags = run("scatter_scalar_value_flags", {0: idx, 1: np.zeros(64, np.int32)})[1]
    want = np.zeros(64, np.int32)
    want[idx] = 1
    np.testing.assert_array_equal(flags, want)


def test_store_scalar_fill():
    np.testing.assert_array_equal(run("store_scalar_fill", {})[0], np.full(200, -2.5, np.float32))


def test_cumsum_axis0_columns():
    x = _f((20, 96))
    _close(run("cumsum_axis0_columns", {0: x})[1], np.cumsum(x.astype(np.float64), 0), 1e-5, 1e-5)


def test_arange_start_step_int64():
    y = run("arange_start_step_int64", {})[0]
    k = np.arange(96)
    np.testing.assert_array_equal(y, 5 - 3 * (k % 32) + (k // 32).astype(np.int64) * (1 << 33))


def test_long_row_sum_loop_break():
    x = np.abs(_f((4, 1000))) * np.float32(0.1)
    x[3] = -x[3]  # never passes the limit: every chunk
    s = run("long_row_sum_loop_break", {0: x})[1]
    for r in range(4):
        acc, want = 0.0, None
        for k in range(8):
            acc += x[r, 128 * k:128 * (k + 1)].astype(np.float64).sum()
            if acc > 30.0:
                break
        _close(s[r], acc, 1e-5, 1e-5)


def test_loop_continue_skips_negative_chunks():
    x = _f((4, 1000))
    s = run("loop_continue_skips_negative_chunks", {0: x})[1]
    want = [sum(x[r, 128 * k:128 * (k + 1)].astype(np.float64).sum() for k in range(8) if x[r, 128 * k] >= 0)
            for r in range(4)]
    _close(s, want, 1e-5, 1e-5)


def test_while_halving_until_small():
    if run is sweep.run:
        pytest.skip("the SIMT interpreter does not model scf.while; the PTX emulator and the GPU run this test")
    x = _f(128, scale=20.0)
    y = run("while_halving_until_small", {0: x})[1]
    want = x.copy()
    for b in range(4):
        blk = want[32 * b:32 * (b + 1)]
        while np.abs(blk).max() >= 1.0:
            blk *= np.float32(0.5)
    np.testing.assert_array_equal(y, want)


def test_int8_input_widened_mean():
    x = RNG.integers(-128, 128, (5, 300)).astype(np.int8)
    _close(run("int8_input_widened_mean", {0: x})[1], x.astype(np.float64).mean(1), 1e-6, 1e-6)


def test_f64_accumulate_f32_rows():
    x = _f((4, 300))
    _close(run("f64_accumulate_f32_rows", {0: x})[1], x.astype(np.float64).sum(1), 1e-12, 1e-12)


def test_nan_fill_full_and_where():
    x = _f(128)
    np.testing.assert_array_equal(run("nan_fill_full_and_where", {0: x})[1], np.where(x < 0, np.nan, x))


def test_static_assert_and_static_eval():
    x = _f(128)
    np.testing.assert_array_equal(run("static_assert_and_static_eval", {0: x})[1], x * np.float32(1 / 64))


def test_reverse_range_loop_store():
    x = _f(96)
    np.testing.assert_array_equal(run("reverse_range_loop_store", {0: x})[1], x.reshape(3, 32)[::-1].reshape(-1))
