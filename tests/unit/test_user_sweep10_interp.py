"""The tenth user sweep (``tileorch.testing.user_programs10``: programs without a dot) on the CPU's
lockstep SIMT interpreter (tests/unit/simt_interp.py, through test_user_sweep_interp.run) against
numpy references computed independently in float64 from the same inputs, outputs pre-filled with
NaN / a sentinel, ragged sizes: layernorm / RMSNorm forward and backward, softmax backward,
log-softmax and cross-entropy over a vocabulary loop, online top-1, column argmin, scans, histograms
and scatter-adds by atomics, embedding gather, RoPE (interleaved and half-split), dropout by a hash,
fp8 / int8 quantisation, bit operations, integer division of negatives, NaN / inf cleanup, bool
masks, rank 3 / 4 shapes (pixel shuffle, transpose, outer sums, extract / insert), one-element
tiles, padding modes, kernel options, static helpers, ``Array.slice``, advanced indexing, atomics of
every kind, acquire / release, grid dependency control.  ``ct.printf`` and ``ct.assert_`` (system
calls the interpreter does not model) run on the PTX emulator (test_user_sweep10_emulated.py) and
the GPU (tests/gpu/test_user_sweep10_gpu.py); both run every test here again on the PTX."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, run, sample  # noqa: E402

from tileorch.testing.user_programs10 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"uint16": np.uint16, "uint64": np.uint64, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8})

RNG = np.random.default_rng(1010)


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _d(x):
    return np.asarray(x, np.float64)


def _ints(lo, hi, shape, dt=np.int32):
    return RNG.integers(lo, hi, shape).astype(dt)


# ----------------------------------------------------------------------------------------------- normalisations


def _layernorm_stats(x):
    x = _d(x)
    mean = x.mean(1, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(1, keepdims=True) + 1e-5)
    return mean, rstd


def test_layernorm_forward_with_saved_statistics():
    x, w, b = _f((37, 300), "float16"), _f((300,), "float16"), _f((300,), "float16")
    out = run("layernorm_fwd_stats", {0: x, 1: w, 2: b})
    mean, rstd = _layernorm_stats(x)
    _close(out[3], (_d(x) - mean) * rstd * _d(w) + _d(b), 1e-2, 1e-2)
    _close(out[4], mean[:, 0], 1e-5, 1e-5)
    _close(out[5], rstd[:, 0], 1e-4, 1e-4)


def test_layernorm_backward_dx_and_group_partials_then_column_sums():
    x, dy, w = _f((40, 300), "float16"), _f((40, 300), "float16"), _f((300,), "float16")
    mean, rstd = _layernorm_stats(x)
    out = run("layernorm_bwd_dx_group_partials",
              {0: x, 1: dy, 2: w, 3: mean[:, 0].astype(np.float32), 4: rstd[:, 0].astype(np.float32)})
    xhat = (_d(x) - mean) * rstd
    wdy = _d(w) * _d(dy)
    dx = (wdy - (xhat * (xhat * wdy).mean(1, keepdims=True) + wdy.mean(1, keepdims=True))) * rstd
    _close(out[5], dx, 2e-2, 1e-2)
    dw = (_d(dy) * xhat).reshape(5, 8, 300).sum(1)
    _close(out[6], dw, 1e-3, 1e-3)
    _close(out[7], _d(dy).reshape(5, 8, 300).sum(1), 1e-3, 1e-4)
    p = _f((13, 300))
    _close(run("column_sums_of_partials", {0: p})[1], _d(p).sum(0), 1e-4, 1e-5)


def test_rmsnorm_backward_with_atomic_dgamma():
    x, dy, w = _f((33, 200), "bfloat16"), _f((33, 200), "bfloat16"), _f((200,), "bfloat16")
    out = run("rmsnorm_bwd_atomic_dgamma", {0: x, 1: dy, 2: w, 4: np.zeros(200, np.float32)})
    xd, dyd, wd = _d(x), _d(dy), _d(w)
    rstd = 1 / np.sqrt((xd * xd).mean(1, keepdims=True) + 1e-6)
    dyw = dyd * wd
    dx = rstd * (dyw - xd * rstd ** 2 * (dyw * xd).mean(1, keepdims=True))
    _close(out[3], dx, 3e-2, 2e-2)
    _close(out[4], (dyd * xd * rstd).sum(0), 2e-3, 1e-3)


def test_rmsnorm_3d_equals_its_2d_form():
    x, w = _f((4, 6, 256), "float16"), _f((256,), "float16")
    y3 = run("rmsnorm_rows_3d", {0: x, 1: w})[2]
    y2 = run("rmsnorm_rows_2d", {0: x.reshape(24, 256), 1: w})[2]
    xd = _d(x)
    ref = xd / np.sqrt((xd * xd).mean(-1, keepdims=True) + 1e-6) * _d(w)
    _close(y3, ref, 1e-2, 1e-2)
    np.testing.assert_array_equal(y3.reshape(24, 256), y2)


def test_layernorm_over_4d_tiles():
    x = _f((2, 3, 50, 64))
    y = run("layernorm_4d_heads", {0: x})[1]
    xd = _d(x)
    m = xd.mean(-1, keepdims=True)
    _close(y, (xd - m) / np.sqrt(((xd - m) ** 2).mean(-1, keepdims=True) + 1e-5), 1e-4, 1e-4)


# ----------------------------------------------------------------------------------------------- softmax, cross-entropy


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_softmax_backward_two_rows_per_program():
    y = _softmax(_d(_f((13, 200)))).astype(np.float16)
    dy = _f((13, 200), "float16")
    dx = run("softmax_bwd_two_rows", {0: y, 1: dy})[2]
    yd, dyd = _d(y), _d(dy)
    _close(dx, yd * (dyd - (yd * dyd).sum(1, keepdims=True)), 2e-3, 1e-2)


def test_log_softmax_over_a_vocabulary_loop():
    x = _f((6, 1000), "bfloat16", 3.0)
    y = run("log_softmax_vocab_loop", {0: x})[1]
    xd = _d(x)
    m = xd.max(1, keepdims=True)
    _close(y, xd - m - np.log(np.exp(xd - m).sum(1, keepdims=True)), 5e-2, 1e-2)


def test_cross_entropy_forward_and_backward_with_ignore_index():
    x = _f((8, 1000), "float16", 2.0)
    labels = RNG.integers(0, 1000, 8).astype(np.int64)
    labels[[2, 5]] = -100
    labels[0], labels[1] = 999, 0  # the last and the first column
    out = run("cross_entropy_fwd_bwd_vocab", {0: x, 1: labels})
    xd = _d(x)
    lse = np.log(np.exp(xd - xd.max(1, keepdims=True)).sum(1)) + xd.max(1)
    keep = labels != -100
    picked = xd[np.arange(8), np.where(keep, labels, 0)]
    _close(out[2], np.where(keep, lse - picked, 0.0), 1e-3, 1e-4)
    onehot = np.zeros_like(xd)
    onehot[np.arange(8)[keep], labels[keep]] = 1
    _close(out[3], np.where(keep[:, None], (np.exp(xd - lse[:, None]) - onehot) * 0.125, 0.0), 1e-4, 1e-2)


def test_online_top1_keeps_the_first_of_ties():
    x = _f((5, 1000), "float16")
    x[1, 10] = x[1, 700] = 9.0  # a tie across chunks: the first
    x[2, 300] = x[2, 301] = 9.0  # a tie inside a chunk
    x[3, 999] = 9.0  # in the ragged last chunk
    out = run("online_top1_vocab", {0: x})
    np.testing.assert_array_equal(out[2], x.astype(np.float32).argmax(1))
    np.testing.assert_array_equal(out[1], x.astype(np.float32).max(1))


def test_column_argmin_over_row_chunks():
    x = _f((100, 200))
    x[50, 3] = x[90, 3] = -9.0  # a tie: the first row
    x[99, 4] = -9.0  # in the ragged last chunk
    out = run("column_argmin_row_chunks", {0: x})[1]
    np.testing.assert_array_equal(out[0], x.argmin(0))


# ----------------------------------------------------------------------------------------------- scans


def test_cumprod_down_columns_with_a_carry():
    x = (1.0 + _f((100, 96), scale=0.05)).astype(np.float32)
    _close(run("cumprod_cols_carry", {0: x})[1], np.cumprod(_d(x), 0), 1e-4, 1e-4)


def test_reversed_int64_cumsum_across_rows():
    x = _ints(-2**30, 2**30, (10, 100))
    y = run("cumsum_int64_reverse_rows", {0: x})[1]
    np.testing.assert_array_equal(y, np.cumsum(x.astype(np.int64)[:, ::-1], 1)[:, ::-1])


def test_custom_scan_and_reduce():
    x = (1.0 + _f((4, 64), scale=0.1)).astype(np.float32)
    x[1, 5] = -3.0
    out = run("custom_scan_reduce", {0: x})
    _close(out[1], np.cumprod(_d(x)[:, ::-1], 1)[:, ::-1], 1e-5, 1e-5)
    np.testing.assert_array_equal(out[2][:, 0], np.abs(x).max(1))


# ----------------------------------------------------------------------------------------------- atomics


def test_histogram_of_float_bins_skips_out_of_range():
    x = _f((1000,), scale=1.5)
    x[:4] = [-2.0, 1.9999, -2.0001, 2.0]  # the first bin's edge, the last bin, below, past the end
    h = run("histogram_float_bins_atomic", {0: x, 1: np.zeros(20, np.int32)})[1]
    b = np.floor((_d(x) + 2.0) * 5.0)
    np.testing.assert_array_equal(h, np.bincount(b[(b >= 0) & (b < 20)].astype(int), minlength=20))


def test_row_histograms_with_2d_indices():
    x = _ints(0, 256, (6, 100), np.uint8)
    h = run("row_histogram_2d_indices", {0: x, 1: np.zeros((6, 16), np.int32)})[1]
    np.testing.assert_array_equal(h, np.stack([np.bincount(r >> 4, minlength=16) for r in x]))


def test_embedding_gather_with_int64_ids_and_width_96():
    ids = RNG.integers(0, 40, 50).astype(np.int64)
    table = _f((40, 96), "bfloat16")
    np.testing.assert_array_equal(run("embedding_gather_int64_ids", {0: ids, 1: table})[2], table[ids])


def test_embedding_backward_scatter_add_with_collisions():
    ids = RNG.integers(0, 20, 50).astype(np.int32)
    dy = _f((50, 64))
    dw = run("embedding_bwd_scatter_add_2d", {0: ids, 1: dy, 2: np.zeros((20, 64), np.float32)})[2]
    ref = np.zeros((20, 64))
    np.add.at(ref, ids, _d(dy))
    _close(dw, ref, 1e-5, 1e-5)


def test_global_sum_by_atomics_to_a_scalar():
    x = _f((1000,))
    out = run("sum_to_scalar_atomic", {0: x, 1: np.zeros(1, np.float32), 2: np.zeros(1, np.int32)})
    _close(out[1], [_d(x).sum()], 1e-3, 1e-5)
    np.testing.assert_array_equal(out[2], [(x > 0).sum()])


def test_segment_sum_of_sorted_keys():
    keys = np.sort(RNG.integers(0, 40, 1000)).astype(np.int32)
    vals = _f((1000,))
    out = run("segment_sum_sorted_keys", {0: keys, 1: vals, 2: np.zeros(40, np.float32)})[2]
    _close(out, np.bincount(keys, _d(vals), minlength=40), 1e-4, 1e-5)


def test_bitwise_atomics_and_exchange():
    bits = np.full(64, 0x0000FF00, np.int32)
    v = _ints(-1000, 1000, (8 * 64,))
    xchg = _ints(0, 9, (8 * 64,))
    out = run("atomics_bitwise_exchange", {0: bits, 1: xchg.copy(), 3: v})
    ref = 0x0000FF00
    for p in range(8):
        ref = ((ref | (1 << p)) & ~(1 << (p + 8))) ^ (1 << (p + 16))
    np.testing.assert_array_equal(out[0], np.full(64, ref, np.int32))
    np.testing.assert_array_equal(out[1], v)
    np.testing.assert_array_equal(out[2], xchg)


def test_atomic_min_max_of_int32_and_int64():
    x = _ints(-2**31, 2**31 - 1, (9, 64))
    out = run("atomic_min_max_int32_int64", {0: x, 1: np.full(64, 2**31 - 1, np.int32),
                                             2: np.full(64, -2**31, np.int32), 3: np.full(64, -2**63, np.int64)})
    np.testing.assert_array_equal(out[1], x.min(0))
    np.testing.assert_array_equal(out[2], x.max(0))
    np.testing.assert_array_equal(out[3], (x.astype(np.int64) * (1 << 33)).max(0))  # each product wraps


def test_atomic_cas_gives_one_winner_per_slot():
    out = run("atomic_cas_claim_slots", {0: np.zeros(4, np.int32)})
    assert out[1].reshape(3, 4).sum(0).tolist() == [1, 1, 1, 1], out[1]
    assert sorted(out[0] % 4) == [0, 1, 2, 3] and set(out[0]) <= set(range(1, 13))
    winners = np.flatnonzero(out[1]) + 1
    assert sorted(winners) == sorted(out[0])


def test_tiled_view_atomic_max_min_or():
    x = _ints(-50, 50, (30, 16))
    out = run("tiled_view_atomic_max_min_or", {0: x, 1: np.full((8, 16), -999, np.int32),
                                               2: np.full((8, 16), 999, np.int32), 3: np.zeros((8, 16), np.int32)})
    xp = np.concatenate([x, np.zeros((2, 16), np.int32)]).reshape(4, 8, 16)  # the padded rows read zeros and count
    np.testing.assert_array_equal(out[1], xp.max(0))
    np.testing.assert_array_equal(out[2], xp.min(0))
    np.testing.assert_array_equal(out[3], np.bitwise_or.reduce(xp & 7, 0))


# ----------------------------------------------------------------------------------------------- RoPE, dropout, quantisation


def test_rope_interleaved_by_reshape_permute():
    x, ang = _f((64, 64), "float16"), RNG.uniform(0, 6.3, (64, 32))
    c, s = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    y = run("rope_interleaved_reshape_permute", {0: x, 1: c, 2: s})[3]
    ev, od = _d(x)[:, 0::2], _d(x)[:, 1::2]
    ref = np.empty((64, 64))
    ref[:, 0::2], ref[:, 1::2] = ev * c - od * s, ev * s + od * c
    _close(y, ref, 4e-3, 2e-3)


def test_rope_half_split_with_positions():
    x = _f((40, 4, 128), "bfloat16")
    pos = RNG.integers(0, 2048, 40).astype(np.int32)
    y = run("rope_half_split_positions", {0: x, 1: pos})[2]
    inv = 10000.0 ** (-2 * np.arange(64) / 128)
    ang = pos[:, None, None] * inv[None, None, :]
    x1, x2 = _d(x)[..., :64], _d(x)[..., 64:]
    ref = np.concatenate([x1 * np.cos(ang) - x2 * np.sin(ang), x2 * np.cos(ang) + x1 * np.sin(ang)], -1)
    _close(y, ref, 3e-2, 2e-2)


def _murmur_keep(n, seed, p):
    h = (np.arange(n, dtype=np.uint64) ^ np.uint64(seed)) & np.uint64(0xFFFFFFFF)
    m = np.uint64(0xFFFFFFFF)
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & m
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & m
    h ^= h >> np.uint64(16)
    return (h >> np.uint64(8)).astype(np.float64) >= p * 16777216.0


def test_dropout_by_an_integer_hash():
    x = _f((1000,))
    out = run("dropout_hash_uint32", {0: x})
    keep = _murmur_keep(1000, 1234, 0.25)
    assert 0.65 < keep.mean() < 0.85
    np.testing.assert_array_equal(out[2], keep.astype(np.uint8))
    _close(out[1], np.where(keep, _d(x) / 0.75, 0.0), 1e-6, 1e-6)


def test_fp8_quantisation_per_row_and_back():
    x = _f((9, 300), "float16", 3.0)
    x[4] = 0  # scale 1
    out = run("quant_rows_absmax_fp8", {0: x})
    amax = np.abs(_d(x)).max(1, keepdims=True)
    s4 = np.where(amax > 0, amax / 448, 1.0)
    s5 = np.where(amax > 0, amax / 57344, 1.0)
    _close(out[3], s4[:, 0], 1e-7, 1e-6)
    e4 = (_d(x) / s4).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
    e5 = (_d(x) / s5).astype(np.float32).astype(ml_dtypes.float8_e5m2)
    np.testing.assert_array_equal(out[1], e4.view(np.uint8))
    np.testing.assert_array_equal(out[2], e5.view(np.uint8))
    y = run("dequant_fp8_rows", {0: out[1], 1: out[3]})[2]
    _close(y, e4.astype(np.float64) * _d(out[3])[:, None], 1e-2, 1e-2)


def test_int8_quantisation_rounds_half_away_and_back():
    x = _f((7, 200), scale=2.0)
    x[0, :3] = [2.0, -2.0, 0.5]
    out = run("quant_int8_round_half_away", {0: x})
    s = np.abs(_d(x)).max(1, keepdims=True) / 127
    v = _d(x.astype(np.float32) / s.astype(np.float32))
    q = np.clip(np.trunc(v + np.where(v < 0, -0.5, 0.5)), -127, 127).astype(np.int8)
    np.testing.assert_array_equal(out[1], q)
    _close(out[2], s[:, 0], 1e-7, 1e-6)
    y = run("dequant_int8_to_f16", {0: q, 1: out[2]})[2]
    _close(y, q.astype(np.float64) * _d(out[2])[:, None], 2e-3, 1e-3)


# ----------------------------------------------------------------------------------------------- bits and integers


def test_rotate_popcount_and_bitwise_functions():
    x = RNG.integers(0, 2**32, 300, dtype=np.uint64).astype(np.uint32)
    out = run("bit_ops_rotate_popcount", {0: x})
    np.testing.assert_array_equal(out[1], ((x << np.uint32(7)) | (x >> np.uint32(25))).astype(np.uint32))
    np.testing.assert_array_equal(out[2], np.array([bin(int(v)).count("1") for v in x], np.int32))
    np.testing.assert_array_equal(out[3], ((~x) & np.uint32(0xFFFF0000)) ^ np.uint32(0xFFFF))


def test_float_fields_by_bitcast():
    x = _f((300,), scale=100.0)
    x[:3] = [-1.5, 1e-3, -7e5]
    out = run("float_fields_by_bitcast", {0: x})
    m, e = np.frexp(_d(x))
    np.testing.assert_array_equal(out[1], (e - 1).astype(np.int32))
    np.testing.assert_array_equal(out[2], x.view(np.int32) & 0x7FFFFF)
    np.testing.assert_array_equal(out[3], np.ldexp(x, 3))


def test_shifts_by_tiles_of_negatives():
    x = _ints(-2**20, 2**20, (200,))
    s = _ints(0, 11, (200,))
    out = run("signed_shifts_by_tiles", {0: x, 1: s})
    np.testing.assert_array_equal(out[2], (x >> s) + (x << s))
    np.testing.assert_array_equal(out[3], (x.view(np.uint32) >> s.astype(np.uint32)).view(np.int32))


def test_pack_and_unpack_bytes():
    x = _f((256,), "float16")
    out = run("pack_unpack_bytes", {0: x})
    np.testing.assert_array_equal(out[1], x.view(np.uint8))
    np.testing.assert_array_equal(out[2], x.view(np.int16))


def test_int16_division_of_negatives():
    x = _ints(-30000, 30000, (300,), np.int16)
    y = _ints(-300, 300, (300,), np.int16)
    y[:3] = [0, -1, 7]
    out = run("int16_divmod_negatives", {0: x, 1: y})
    yy = np.where(y == 0, 1, y).astype(np.int16)
    np.testing.assert_array_equal(out[2], np.floor_divide(x, yy))
    np.testing.assert_array_equal(out[3], np.mod(x, yy))
    np.testing.assert_array_equal(out[4], np.floor_divide(x, np.int16(-5)))
    np.testing.assert_array_equal(out[5], np.mod(x, np.int16(-5)))
    _close(out[6], x.astype(np.float32) / yy.astype(np.float32), 0, 1e-6)


def test_int64_flat_index_gather_with_mask():
    x = _f((333 * 50,))
    r, c = _ints(-2, 52, (200,)), _ints(0, 333, (200,))
    out = run("int64_flat_index_gather", {0: x, 1: r, 2: c})[3]
    flat = r.astype(np.int64) * 333 + c
    ok = (flat >= 0) & (flat < x.size)
    np.testing.assert_array_equal(out, np.where(ok, x[np.clip(flat, 0, x.size - 1)], -1.0).astype(np.float32))


def test_nan_and_infinity_cleanup():
    x = _f((300,))
    x[[0, 5, 299]], x[[1, 7]], x[[2, 150]] = np.nan, np.inf, -np.inf
    out = run("nan_inf_cleanup", {0: x})
    np.testing.assert_array_equal(out[1], np.nan_to_num(x, nan=0.0, posinf=1e4, neginf=-1e4))
    np.testing.assert_array_equal(out[2], np.where(np.isnan(x), 1, np.where(np.isinf(x), 2, 0)).astype(np.int8))


def test_bool_mask_masked_mean():
    x, m = _f((6, 100)), RNG.random((6, 100)) < 0.4
    m[3] = False
    out = run("bool_mask_masked_mean", {0: x, 1: m})
    n = m.sum(1)
    _close(out[2], np.where(n > 0, (_d(x) * m).sum(1) / np.maximum(n, 1), 0.0), 1e-5, 1e-5)
    np.testing.assert_array_equal(out[3], n)


# ----------------------------------------------------------------------------------------------- shapes


def test_transpose_of_3d_and_2d_tiles():
    x = _f((2, 64, 32))
    out = run("transpose_3d_axes", {0: x})
    np.testing.assert_array_equal(out[1], x.transpose(2, 1, 0))
    np.testing.assert_array_equal(out[2], x[1].T)


def test_pixel_shuffle():
    x = _f((12, 16, 8))
    y = run("pixel_shuffle_rank4", {0: x})[1]
    ref = x.reshape(3, 2, 2, 16, 8).transpose(0, 3, 1, 4, 2).reshape(3, 32, 16)
    np.testing.assert_array_equal(y, ref)


def test_outer_sum_broadcast_in_rank_4():
    a, b, c, d = _f((2,)), _f((3,)), _f((20,)), _f((16,))
    y = run("outer_sum_rank4", {0: a, 1: b, 2: c, 3: d})[4]
    ref = (a[:, None, None, None] + b[None, :, None, None] * np.float32(10) + c[None, None, :, None] * np.float32(100)
           + d[None, None, None, :])
    _close(y, ref, 1e-4, 1e-6)


def test_extract_and_insert_of_rank_3():
    x = _f((4, 8, 16))
    y = run("extract_insert_rank3", {0: x})[1]
    ref = x.copy()
    ref[2:4, 4:8] *= 2
    ref[0:2, 7:8] = x[2:4, 4:8].astype(np.float64).sum(1, keepdims=True)
    _close(y, ref, 1e-5, 1e-6)


def test_one_element_tiles():
    x = _f((5,))
    out = run("one_element_tiles", {0: x})
    np.testing.assert_array_equal(out[1], x * x)
    np.testing.assert_array_equal(out[2][:, 0], x + np.float32(1))


def test_ragged_3d_tiles_with_each_padding_mode():
    x = _f((5, 7, 9))
    out = run("ragged_3d_padding_modes", {0: x})
    np.testing.assert_array_equal(out[1], x.max(2))
    np.testing.assert_array_equal(out[2], x.min(2))
    np.testing.assert_array_equal(out[3], np.full((5, 7), 16 - 9, np.int32))


def test_cat_of_rank_1_broadcast_to_rows():
    a, b = _f((64,)), _f((64,))
    y = run("cat_rank1_broadcast", {0: a, 1: b})[2]
    rows = np.concatenate([np.concatenate([a[i * 32:(i + 1) * 32], b[i * 32:(i + 1) * 32]]) for i in range(2)])
    np.testing.assert_array_equal(y, rows[None, :] * np.arange(4, dtype=np.float32)[:, None])


def test_nhwc_uint8_to_normalised_nchw():
    x = _ints(0, 256, (5, 50, 3), np.uint8)
    mean, std = np.array([0.485, 0.456, 0.406], np.float32), np.array([0.229, 0.224, 0.225], np.float32)
    y = run("nhwc_to_nchw_normalize", {0: x, 1: mean, 2: std})[3]
    ref = (x.transpose(2, 0, 1) / 255.0 - mean[:, None, None]) / std[:, None, None]
    _close(y, ref, 1e-5, 1e-5)


# ----------------------------------------------------------------------------------------------- API corners


def test_grid3_with_num_blocks_stride():
    x = _f((2, 3, 70, 32))
    y = run("grid3_num_blocks_stride", {0: x})[1]
    off = (np.arange(2)[:, None] * 3 + np.arange(3)[None, :]).astype(np.float32)[:, :, None, None]
    np.testing.assert_array_equal(y, x + off)


def test_kernel_options_axpy_and_by_target_softmax():
    x, y = _f((1000,), "bfloat16"), _f((1000,), "bfloat16")
    _close(run("axpy_kernel_options", {0: x, 1: y})[2], 0.5 * _d(x) + _d(y), 1e-2, 1e-2)
    s = _f((10, 300))
    _close(run("softmax_rows_by_target", {0: s})[1], _softmax(_d(s)), 1e-6, 1e-5)


def test_static_helpers_stencil():
    x = _f((300,))
    y = run("stencil_static_helpers", {0: x})[1]
    xp = np.concatenate([np.zeros(2), _d(x)])
    avg = (xp[2:] + xp[1:-1] + xp[:-2]) / 3
    _close(y, avg / (1 + np.exp(-avg)), 1e-5, 1e-5)


def test_divisible_hint_and_astile_weights():
    x = _f((3, 128))
    y = run("divisible_hint_astile_weights", {0: x})[1]
    ref = (_d(x).reshape(3, 32, 4) * [0.125, 0.375, 0.375, 0.125]).sum(-1)
    ref[:, 28:] = 0  # columns from 112 on
    _close(y, ref, 1e-5, 1e-6)


def test_array_slice_row_ranges():
    x = _f((50, 64))
    starts = np.array([0, 17, 30], np.int32)
    y = run("array_slice_row_ranges", {0: x, 1: starts})[2]
    _close(y, np.stack([_d(x)[s:s + 20].sum(0) for s in starts]), 1e-5, 1e-5)


def test_advanced_indexing_rows_permuted():
    x, perm = _f((32, 100)), RNG.permutation(32).astype(np.int32)
    y = run("advanced_indexing_rows_permuted", {0: x, 1: perm})[2]
    np.testing.assert_array_equal(y, x[perm] + np.float32(1))


def test_acquire_load_release_store_and_pdl():
    d = _f((256,))
    out = run("acquire_flag_release", {0: d, 1: np.zeros(4, np.int32)})
    np.testing.assert_array_equal(out[2], d * 2)
    np.testing.assert_array_equal(out[1], np.ones(4, np.int32))
    x = _f((300,))
    np.testing.assert_array_equal(run("pdl_wait_then_scale", {0: x})[1], x * np.float32(3))


# ----------------------------------------------------------------------------------------------- math and bandwidth


def test_transcendental_functions():
    x, y = _f((300,)), _f((300,))
    out = run("transcendental_zoo", {0: x, 1: y})
    xd, yd = _d(x), _d(y)
    _close(out[2], np.arctan2(yd, xd), 1e-5, 1e-5)
    t = (np.maximum(xd, 0) + np.log1p(np.exp(-np.abs(xd))) + np.tanh(xd) + np.sinh(xd / 2) - np.cosh(xd / 4)
         + np.tan(xd * 0.3) + np.log2(np.exp2(yd / 2) + 1) + (np.abs(yd) + 0.5) ** (xd / 2))
    _close(out[3], t, 1e-4, 1e-4)


def test_operator_functions_prod_max():
    x, y = _f((6, 64)), _f((6, 64))
    out = run("elementwise_functions", {0: x, 1: y})
    xd, yd = _d(x), _d(y)
    z = ((xd + yd) * xd - yd) / (np.abs(yd) + 1)
    _close(out[2], np.clip(z, -3, 3), 1e-5, 1e-5)
    _close(out[3][:, 0], z.max(1), 1e-5, 1e-5)
    _close(out[4][:, 0], np.prod(1 + xd * 0.01, 1), 1e-5, 1e-5)


def test_constructors_with_dtypes():
    out = run("constructors_dtypes", {})
    i = np.repeat(np.arange(4), 32)
    np.testing.assert_array_equal(out[0], i.astype(np.int64))
    np.testing.assert_array_equal(out[1], (i + 1).astype(np.float16))
    np.testing.assert_array_equal(out[2], (i % 2 == 0).astype(np.uint8))
    np.testing.assert_array_equal(out[3], (np.tile(-5 + 3 * np.arange(32), 4) + i).astype(np.int16))


def test_long_rows_and_bias_gelu_and_3d_column_sums_and_f64_norms():
    x = _f((6, 4096), scale=3.0)
    _close(run("softmax_long_rows_f32", {0: x})[1], _softmax(_d(x)), 1e-7, 1e-5)
    a, b = _f((100, 300), "bfloat16"), _f((300,), "bfloat16")
    v = _d(a) + _d(b)
    _close(run("bias_gelu_tanh_bf16", {0: a, 1: b})[2],
           0.5 * v * (1 + np.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3))), 2e-2, 1e-2)
    s = _f((3, 70, 64), "float16")
    _close(run("col_sum_3d_vs_2d", {0: s})[1], _d(s).sum(1), 1e-3, 1e-4)
    f = RNG.standard_normal((5, 100))
    _close(run("f64_row_norms", {0: f})[1], f / np.linalg.norm(f, axis=1, keepdims=True), 1e-15, 1e-14)


def test_embedding_backward_in_bf16_by_atomic_add():
    """Found by this sweep: ``ct.atomic_add`` on a bf16 array was refused ("atomic_rmw on bf16
    elements"); now ``atom.global.add.noftz.bf16``.  The gradients are multiples of 1/4 in [-2, 2] so
    every partial sum is exact in bf16 (whatever the order of the adds)."""
    ids = RNG.integers(0, 20, 50).astype(np.int32)
    dy = (RNG.integers(-8, 9, (50, 64)) / 4).astype(np.float32)
    start = (RNG.integers(-8, 9, (20, 64)) / 4).astype(np.float32)
    dw = run("embedding_bwd_bf16_atomic", {0: ids, 1: dy, 2: start})[2]
    ref = start.astype(np.float64)
    np.add.at(ref, ids, dy.astype(np.float64))
    np.testing.assert_array_equal(dw, ref)
