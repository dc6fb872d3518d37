"""The twenty-third user sweep (``tileorch.testing.user_programs23``: programs written as users write them,
mostly without a dot) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through
test_user_sweep_interp.run) against numpy references computed from the inputs alone (float64, or the
program's own f32 steps where rounding decides an integer: histogram bins, int8 codes; Python integers for
integer semantics; ml_dtypes for fp8 and bf16), ragged sizes, outputs pre-filled with NaN / an integer
sentinel / the bool byte 2 (where NaN is a right answer, with 1234.0 instead; tables the atomics update
start as the user's ``torch.zeros``).  tests/gpu/test_user_sweep23_gpu.py runs every test here again on the
GPU; test_user_sweep23_emulated.py runs a subset on the PTX emulator."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import run, sample  # noqa: E402
from test_user_sweep_interp import wrap_bits as _wrap  # noqa: E402

from tileorch.testing.user_programs23 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"uint16": np.uint16, "uint32": np.uint32, "float8_e4m3fn": np.uint8})

RNG = np.random.default_rng(2323)
INF = np.inf


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _d(x):
    return np.asarray(x, np.float64)


def _close(got, ref, atol, rtol=0.0):
    np.testing.assert_allclose(_d(got), _d(ref), atol=atol, rtol=rtol)


def _bf16(x):
    """``x`` rounded to bf16 (nearest even), as float32 values."""
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def every_case(test) -> None:
    """Call the test function ``test`` (the emulated and GPU files call each through this)."""
    test()


# ----------------------------------------------------------------------------------------------- norms, backward


def test_rmsnorm_bwd_dx_dgamma_partials():
    x, dy, w = _f((77, 300), "bfloat16"), _f((77, 300), "bfloat16"), _f(300)
    rstd = (1.0 / np.sqrt((_d(x) ** 2).mean(1) + 1e-6)).astype(np.float32)
    out = run("rmsnorm_bwd_dx_dgamma_partials", {0: x, 1: w, 2: dy, 3: rstd})
    xh = _d(x) * _d(rstd)[:, None]
    wdy = _d(dy) * _d(w)
    dx = (wdy - xh * (wdy * xh).mean(1, keepdims=True)) * _d(rstd)[:, None]
    _close(out[4], dx, 2e-2, 1e-2)  # bf16 out
    part = np.zeros((10, 512))
    for p in range(10):
        part[p, :300] = (_d(dy) * xh)[p * 8:(p + 1) * 8].sum(0)
    _close(out[5], part, 1e-4, 1e-5)


def test_layernorm_bwd_block_rows_partials():
    x, dy, w = _f((70, 200), "float16", 2.0), _f((70, 200), "float16"), _f(200)
    xd = _d(x)
    mean = xd.mean(1).astype(np.float32)
    rstd = (1.0 / np.sqrt(xd.var(1) + 1e-5)).astype(np.float32)
    out = run("layernorm_bwd_block_rows_partials", {0: x, 1: w, 2: dy, 3: mean, 4: rstd})
    xh = (xd - _d(mean)[:, None]) * _d(rstd)[:, None]
    wdy = _d(w) * _d(dy)
    dx = (wdy - (xh * (xh * wdy).mean(1, keepdims=True) + wdy.mean(1, keepdims=True))) * _d(rstd)[:, None]
    _close(out[5], dx, 3e-3, 3e-3)  # f16 out
    dw, db = np.zeros((5, 256)), np.zeros((5, 256))
    for p in range(5):
        dw[p, :200] = (_d(dy) * xh)[p * 16:(p + 1) * 16].sum(0)
        db[p, :200] = _d(dy)[p * 16:(p + 1) * 16].sum(0)
    _close(out[6], dw, 1e-4, 1e-5)
    _close(out[7], db, 1e-4, 1e-5)


# ----------------------------------------------------------------------------------------------- rotary


def _angles(t, half):
    inv = 10000.0 ** (-np.arange(half) / half)
    a = np.arange(t)[:, None] * inv[None, :]
    return np.cos(a).astype(np.float32), np.sin(a).astype(np.float32)


def test_rope_half_split_neox():
    q = _f((37, 8, 64), "float16")
    c, s = _angles(37, 32)
    y = run("rope_half_split_neox", {0: q, 1: c, 2: s})[3]
    x1, x2 = _d(q[..., :32]), _d(q[..., 32:])
    cd, sd = _d(c)[:, None, :], _d(s)[:, None, :]
    _close(y, np.concatenate([x1 * cd - x2 * sd, x2 * cd + x1 * sd], axis=-1), 4e-3, 2e-3)


def test_rope_interleaved_gather_pairs():
    x = _f((45, 64), "bfloat16")
    c, s = _angles(45, 32)
    y = run("rope_interleaved_gather_pairs", {0: x, 1: c, 2: s})[3]
    ev, od = _d(x[:, 0::2]), _d(x[:, 1::2])
    ref = np.empty((45, 64))
    ref[:, 0::2] = ev * c - od * s
    ref[:, 1::2] = od * c + ev * s
    _close(y, ref, 2e-2, 8e-3)  # bf16 out


# ----------------------------------------------------------------------------------------------- softmax


def _masked_rows(m, n, dead):
    keep = RNG.random((m, n)) < 0.7
    keep[dead] = False
    return keep


def test_softmax_additive_mask_torch_nan_rows():
    """Rows 3 and 11 masked everywhere: NaN, as ``torch.softmax(x + mask, -1)`` (the output starts as 1234
    so that a NaN is written, not left)."""
    x = _f((20, 100))
    keep = _masked_rows(20, 100, [3, 11])
    mask = np.where(keep, 0.0, -INF).astype(np.float32)
    y = run("softmax_additive_mask_torch_nan_rows", {0: x, 1: mask, 2: np.full((20, 100), 1234.0, np.float32)})[2]
    z = _d(x) + _d(mask)
    with np.errstate(invalid="ignore"):
        e = np.exp(z - z.max(1, keepdims=True))
        ref = e / e.sum(1, keepdims=True)
    assert np.isnan(y[[3, 11]]).all() and not np.isnan(np.delete(y, [3, 11], 0)).any()
    _close(y, ref, 1e-6, 1e-5)


def test_softmax_bool_mask_safe_zero_rows():
    x = _f((20, 100), "bfloat16", 4.0)
    keep = _masked_rows(20, 100, [0, 19])
    y = run("softmax_bool_mask_safe_zero_rows", {0: x, 1: keep})[2]
    z = np.where(keep, _d(x) * 0.125, -INF)
    m = z.max(1, keepdims=True)
    m = np.where(np.isneginf(m), 0.0, m)
    e = np.exp(z - m)
    s = e.sum(1, keepdims=True)
    ref = e / np.where(s == 0, 1.0, s)
    assert (y[[0, 19]] == 0).all()
    _close(y, ref, 1e-6, 1e-5)


# ----------------------------------------------------------------------------------------------- arg reductions


def test_top1_ties_rows_and_cols():
    """Integer values 0..3 (ties in every row and column): the first index of the max, as numpy and torch."""
    x = RNG.integers(0, 4, (30, 50)).astype(np.float32)
    out = run("top1_ties_rows_and_cols", {0: x})
    np.testing.assert_array_equal(out[1], np.argmax(x, 1))
    np.testing.assert_array_equal(out[2], x.max(1))
    np.testing.assert_array_equal(out[3], np.argmax(x, 0))


def test_column_nanmax_argmin_propagate():
    """NaNs in a third of the columns (two in column 5, the first at row 7): torch.amax / argmin semantics."""
    x = _f((50, 70))
    nan_cols = RNG.choice(70, 23, replace=False)
    x[RNG.integers(0, 50, 23), nan_cols] = np.nan
    x[7, 5], x[30, 5] = np.nan, np.nan
    x[:7, 5] = 0.5
    out = run("column_nanmax_argmin_propagate", {0: x})
    has = np.isnan(x).any(0)
    ref_max = np.where(has, np.nan, np.nanmax(np.where(np.isnan(x), -INF, x), 0))
    np.testing.assert_array_equal(np.isnan(out[1]), has)
    _close(out[1][~has], ref_max[~has], 0)
    ref_amin = np.where(has, np.argmax(np.isnan(x), 0), np.argmin(np.where(np.isnan(x), INF, x), 0))
    np.testing.assert_array_equal(out[2], ref_amin)
    np.testing.assert_array_equal(out[3], np.isnan(x).sum(0))


# ----------------------------------------------------------------------------------------------- atomics, segments


def test_histc_float_bins_atomic():
    """The bins from the program's own f32 steps (``(x - lo) * (17 / 4.5)`` floored), values at lo and hi, out of
    range, NaN."""
    x = _f(1000, scale=1.5)
    x[:6] = [-2.0, 2.5, np.nan, -2.0001, 2.5001, 0.0]
    out = run("histc_float_bins_atomic", {0: x, 1: np.zeros(17, np.int32)})
    lo, hi = np.float32(-2.0), np.float32(2.5)
    with np.errstate(invalid="ignore"):
        ok = (x >= lo) & (x <= hi)
        idx = np.minimum(np.floor((x - lo) * (np.float32(17) / (hi - lo))), 16)
    np.testing.assert_array_equal(out[1], np.bincount(idx[ok].astype(np.int64), minlength=17))


def test_segment_sum_csr_runtime_trip():
    """Segments of 10, 0, 47, 43, 1 and 49 rows (one empty: no trip)."""
    x = _f((150, 32))
    offs = np.array([0, 10, 10, 57, 100, 101, 150], np.int32)
    y = run("segment_sum_csr_runtime_trip", {0: x, 1: offs})[2]
    ref = np.stack([_d(x[offs[s]:offs[s + 1]]).sum(0) for s in range(6)])
    _close(y, ref, 1e-5, 1e-5)


def _collatz(n):
    k = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        k += 1
    return k


def test_collatz_steps_while_loop():
    n = np.concatenate([[1, 2, 27, 97, 871], RNG.integers(1, 5000, 35)]).astype(np.int64)
    out = run("collatz_steps_while_loop", {0: n})
    np.testing.assert_array_equal(out[1], [_collatz(int(v)) for v in n])


def test_first_above_threshold_while_break():
    """Rows with no hit, a hit at column 0, at the last column only, two hits (the first counts)."""
    x = _f((6, 100))
    x[0] = 0.0
    x[1] = 0.0
    x[1, 99] = 3.0
    x[2, 0] = 3.0
    x[3, :50] = 0.0
    x[3, [50, 70]] = 3.0
    out = run("first_above_threshold_while_break", {0: x})
    np.testing.assert_array_equal(out[1], [int(np.argmax(r > 2)) if (r > 2).any() else -1 for r in x])


def test_nested_loops_segments_rows():
    offs = np.array([0, 5, 5, 20, 21, 40, 40, 41, 60], np.int32)
    x = _f((60, 16))
    y = run("nested_loops_segments_rows", {0: offs, 1: x})[2]
    _close(y, np.stack([_d(x[offs[s]:offs[s + 1]]).sum(0) for s in range(8)]), 1e-5, 1e-5)


# ----------------------------------------------------------------------------------------------- scans


def test_cumsum_axis0_carry_row_tiles():
    x = _f((300, 40))
    _close(run("cumsum_axis0_carry_row_tiles", {0: x})[1], np.cumsum(_d(x), 0), 1e-4, 1e-5)


def test_cumprod_axis1_f64_reverse():
    x = 1.0 + 0.1 * RNG.standard_normal((9, 50))
    out = run("cumprod_axis1_f64_reverse", {0: x})
    _close(out[1], np.cumprod(x, 1), 0, 1e-14)
    _close(out[2], np.cumprod(x[:, ::-1], 1)[:, ::-1], 0, 1e-14)


def test_exclusive_positions_bool_mask_int64():
    keep = RNG.random((11, 90)) < 0.4
    keep[4] = False
    out = run("exclusive_positions_bool_mask_int64", {0: keep})
    k = keep.astype(np.int64)
    np.testing.assert_array_equal(out[1], np.where(keep, np.cumsum(k, 1) - k, -1))
    np.testing.assert_array_equal(out[2], k.sum(1))


# ----------------------------------------------------------------------------------------------- quantization


def test_int8_per_row_quant_saturate():
    """Rows of scale 3 (amax above the clip of 4: codes saturate at -128 / 127) and of scale 0.5; the codes from
    the program's f32 steps."""
    x = _f((25, 130)) * np.where(np.arange(25) % 2 == 0, 3.0, 0.5).astype(np.float32)[:, None]
    out = run("int8_per_row_quant_saturate", {0: x})
    amax = np.abs(x).max(1, keepdims=True)
    scale = (np.maximum(np.minimum(amax, np.float32(4)), np.float32(1e-8)) / np.float32(100)).astype(np.float32)
    q = np.clip(np.floor(x / scale + np.float32(0.5)), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(out[2], scale[:, 0])
    np.testing.assert_array_equal(out[1], q)
    assert (q == 127).any() and (q == -128).any()


def test_fp8_e4m3_per_row_scale_clamp():
    x = _f((25, 130), "bfloat16", 2.0)
    x[6] = 0.0
    out = run("fp8_e4m3_per_row_scale_clamp", {0: x})
    amax = np.maximum(np.abs(x).max(1, keepdims=True), np.float32(1e-12))
    scale = (amax / np.float32(448)).astype(np.float32)
    y = np.clip(x / scale, -448, 448).astype(np.float32)
    np.testing.assert_array_equal(out[2], scale[:, 0])
    got = np.asarray(out[1], np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    _close(got, y.astype(ml_dtypes.float8_e4m3fn).astype(np.float64), 0)
    assert (got[6] == 0).all() and (np.abs(got).max(1)[np.arange(25) != 6] == 448).all()


def test_int8_dequant_group_scales_bf16():
    w = RNG.integers(-128, 128, (70, 128)).astype(np.int8)
    s = _f((70, 4), "float16", 0.01)
    y = run("int8_dequant_group_scales_bf16", {0: w, 1: s})[2]
    ref = _bf16(w.astype(np.float32) * np.repeat(s.astype(np.float32), 32, axis=1))
    np.testing.assert_array_equal(y, ref)


# ----------------------------------------------------------------------------------------------- integers


def test_int_floordiv_mod_negatives_shifts():
    a = RNG.integers(-2**31, 2**31, 300).astype(np.int32)
    a[:8] = [-7, 7, -7, 7, -1, 0, -2**31, 2**31 - 1]
    b = RNG.integers(-50, 50, 300).astype(np.int32)
    b[:8] = [2, -2, -2, 2, 3, 0, -1, -1]
    out = run("int_floordiv_mod_negatives_shifts", {0: a, 1: b})
    bb = np.where(b == 0, 1, b).astype(np.int64)
    aa = a.astype(np.int64)
    q = _wrap(aa // bb, 32)  # -2**31 // -1 wraps to -2**31
    np.testing.assert_array_equal(out[2], q)
    np.testing.assert_array_equal(out[3], aa - bb * (aa // bb))
    np.testing.assert_array_equal(out[4], aa >> 3)
    np.testing.assert_array_equal(out[5], _wrap((_wrap(aa << 4, 32) ^ (aa & 0xFF)) | ~bb, 32))


def test_uint32_min_max_shift_high_values():
    a = RNG.integers(0, 2**32, 200, dtype=np.uint64).astype(np.uint32)
    b = RNG.integers(0, 2**32, 200, dtype=np.uint64).astype(np.uint32)
    a[:4] = [0x80000000, 0x7FFFFFFF, 0xFFFFFFFF, 0]
    b[:4] = [0x7FFFFFFF, 0x80000000, 0, 0xFFFFFFFF]
    out = run("uint32_min_max_shift_high_values", {0: a, 1: b})
    np.testing.assert_array_equal(out[2], np.minimum(a, b))
    np.testing.assert_array_equal(out[3], np.maximum(a, b))
    ref = (a.astype(np.uint64) >> 28) + (b.astype(np.uint64) * 2654435761 % 2**32) % 16
    np.testing.assert_array_equal(out[4], ref.astype(np.uint32))


def test_uint8_saturating_add_image():
    a = RNG.integers(0, 256, (37, 53)).astype(np.uint8)
    b = RNG.integers(0, 256, (37, 53)).astype(np.uint8)
    y = run("uint8_saturating_add_image", {0: a, 1: b})[2]
    np.testing.assert_array_equal(y, np.minimum(a.astype(np.int32) + b, 255))


# ----------------------------------------------------------------------------------------------- casts, clamp, where


def test_casts_nan_inf_overflow_f16_bf16():
    x = _f(100, scale=100.0)
    x[:12] = [np.nan, INF, -INF, 70000.0, 65519.0, 65520.0, -65520.0, 1e-8, 3e-5, 1e38, -0.0, 6.1e-5]
    out = run("casts_nan_inf_overflow_f16_bf16", {0: x})
    with np.errstate(over="ignore"):
        h = x.astype(np.float16)
    np.testing.assert_array_equal(out[1].view(np.uint16)[1:], h.view(np.uint16)[1:])  # bit for bit, -0 kept
    assert np.isnan(out[1][0])
    np.testing.assert_array_equal(out[2], _bf16(x))
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(out[3], h.astype(np.float32) - x)


def test_clamp_nan_propagate_where_broadcast():
    x = _f((40, 70), scale=2.0)
    x[RNG.integers(0, 40, 60), RNG.integers(0, 70, 60)] = np.nan
    lo, hi = -np.abs(_f(40)), np.abs(_f(70))
    fill = np.full((40, 70), 1234.0, np.float32)
    out = run("clamp_nan_propagate_where_broadcast", {0: x, 1: lo, 2: hi, 3: fill, 4: fill.copy()})
    ref = np.minimum(np.maximum(x, lo[:, None]), hi[None, :])  # numpy's minimum / maximum propagate NaN
    np.testing.assert_array_equal(out[3], ref)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(out[4], np.where(x > hi, hi, np.where(x < lo[:, None], lo[:, None], x)))
    assert np.isnan(out[3]).sum() == np.isnan(x).sum() == np.isnan(out[4]).sum()


def test_keepdims_reductions_each_axis_3d():
    x = _f((8, 8, 16))
    out = run("keepdims_reductions_each_axis_3d", {0: x})
    xd = _d(x).reshape(2, 4, 8, 16)
    _close(out[1], (xd - xd.sum(1, keepdims=True)).reshape(8, 8, 16), 1e-5, 1e-5)
    _close(out[2], _d(x).max(1, keepdims=True), 0)
    _close(out[3], _d(x) / np.abs(_d(x)).min(2, keepdims=True), 0, 1e-6)


# ----------------------------------------------------------------------------------------------- shapes


def test_bhsd_to_bshd_permute_three_axis_grid():
    x = _f((2, 4, 50, 16), "float16")
    np.testing.assert_array_equal(run("bhsd_to_bshd_permute_three_axis_grid", {0: x})[1], x.transpose(0, 2, 1, 3))


def test_maxpool2x2_odd_image_neg_inf():
    x = _f((3, 37, 29))
    y = run("maxpool2x2_odd_image_neg_inf", {0: x})[1]
    p = np.full((3, 38, 30), -INF, np.float32)
    p[:, :37, :29] = x
    np.testing.assert_array_equal(y, p.reshape(3, 19, 2, 15, 2).max((2, 4)))


def test_scale_heads_of_a_transposed_view():
    """X the ``[2, 4, 50, 32]`` view of a ``[2, 50, 4, 32]`` buffer (the values are the view's: the runner lays
    them out with the view's strides)."""
    x, g = _f((2, 4, 50, 32), "float16"), _f(4)
    y = run("scale_heads_of_a_transposed_view", {0: x, 1: g})[2]
    _close(y, _d(x) * _d(g)[None, :, None, None], 2e-3, 1e-3)


def test_row_stats_of_a_column_major_view():
    x = _f((70, 45))
    out = run("row_stats_of_a_column_major_view", {0: x})
    _close(out[1], _d(x).mean(1), 1e-6, 1e-6)
    np.testing.assert_array_equal(out[2], np.abs(x).max(1))


def test_add_bias_to_a_sliced_3d_view():
    x, bias = _f((2, 30, 50)), _f(50)
    y = run("add_bias_to_a_sliced_3d_view", {0: x, 1: bias})[2]
    np.testing.assert_array_equal(y, x + bias)


def test_gather_scatter_index_holes():
    x, src = _f(60), _f(150)
    idx = np.where(RNG.random(150) < 0.3, -1, RNG.integers(0, 60, 150)).astype(np.int32)
    out = run("gather_scatter_index_holes", {0: x, 1: idx, 2: src, 4: np.zeros(60, np.float32)})
    ok = idx >= 0
    np.testing.assert_array_equal(out[3], np.where(ok, x[np.maximum(idx, 0)], np.float32(-1.5)))
    acc = np.zeros(60)
    np.add.at(acc, idx[ok], _d(src[ok]))
    _close(out[4], acc, 1e-5, 1e-5)


def test_whole_array_stats_one_program():
    x = _f(1000, scale=2.0) + 1.0
    out = run("whole_array_stats_one_program", {0: x})[1]
    xd = _d(x)
    _close(out, [xd.mean(), xd.var(ddof=1), xd.min(), xd.max()], 1e-4, 1e-4)
    assert out[2] == x.min() and out[3] == x.max()


# ----------------------------------------------------------------------------------------------- dtypes


def test_bool_mask_logic_counts():
    a, b = RNG.random((12, 70)) < 0.5, RNG.random((12, 70)) < 0.3
    b[5] = False
    x = _f((12, 70))
    out = run("bool_mask_logic_counts", {0: a, 1: b, 2: x})
    np.testing.assert_array_equal(out[3], a & b)
    np.testing.assert_array_equal(out[4], a ^ (x > 0))
    np.testing.assert_array_equal(out[5], (~a).sum(1))
    np.testing.assert_array_equal(out[6], b.any(1))


def test_f64_two_pass_variance_exp():
    x = RNG.standard_normal((9, 100)) * 30.0 + 1e3
    out = run("f64_two_pass_variance_exp", {0: x})
    _close(out[1], x.var(1, ddof=1), 0, 1e-13)
    m = x.max(1, keepdims=True)
    _close(out[2], (m + np.log(np.exp(x - m).sum(1, keepdims=True)))[:, 0], 0, 1e-14)


def test_mixed_f16_bf16_f32_one_expression():
    a, b, c = _f(300, "float16"), _f(300, "bfloat16"), _f(300)
    y = run("mixed_f16_bf16_f32_one_expression", {0: a, 1: b, 2: c})[3]
    ref = _d(a) * _d(b) + 0.5 * _d(c) + _d(a)
    _close(y, ref, 1e-6, 2 ** -8)  # bf16 out: half an ulp, one f32 rounding besides


def test_scalar_args_every_width():
    x = _f(300, "float16")
    out = run("scalar_args_every_width", {0: x})
    _close(out[1], -(_d(x) * 0.75 - 7) + 0.5, 1e-6, 1e-7)
    np.testing.assert_array_equal(out[2], np.arange(300) % 128 + ((2**40 + 12345) >> 20) + 3)


# ----------------------------------------------------------------------------------------------- with a dot (SIMT)


def test_causal_scores_per_head_three_axes():
    q, k = _f((2, 3, 100, 64), "bfloat16"), _f((2, 3, 100, 64), "bfloat16")
    s = run("causal_scores_per_head_three_axes", {0: q, 1: k})[2]
    ref = np.einsum("bhqd,bhkd->bhqk", _d(q), _d(k)) * 0.125
    ref = np.where(np.arange(100)[None, :] > np.arange(100)[:, None], -INF, ref)
    _close(s, ref, 1e-4, 1e-5)


def test_embedding_grad_onehot_matmul():
    ids = RNG.integers(0, 200, 300).astype(np.int32)
    dy = _f((300, 64), "float16")
    out = run("embedding_grad_onehot_matmul", {0: ids, 1: dy})[2]
    ref = np.zeros((200, 64))
    np.add.at(ref, ids, _d(dy))
    _close(out, ref, 1e-4, 1e-5)
