"""The seventeenth user sweep (``tileorch.testing.user_programs17``: issue 21, memory-bound and non-dot
programs at the edges of the element types and of the grid) on the CPU's lockstep SIMT interpreter
(tests/unit/simt_interp.py, through test_user_sweep_interp.run) against numpy references computed
independently (float64, Python integers for the wrapping arithmetic) from the same inputs; outputs
pre-filled with NaN / an integer sentinel / the fp8 NaN byte (tables the atomics update start as the
user's ``torch.full`` / ``zeros``), ragged sizes: top-k, segmented reductions over offsets, atomic
histograms (min / max / count, a CAS loop, xchg lists, a presence table), a cross-instance ticket,
odd-shape permutes / broadcasts / oversized tiles, int16 / uint16 / e5m2 conversions, NaN and
infinities in max / min / argmax, integer wrap, shifts past the width, int64 index math, broadcast
masks, odd strides, one-element tiles, long and short rows, six output dtypes, in-place updates.
tests/gpu/test_user_sweep17_gpu.py runs every test here again on the GPU."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import run, sample  # noqa: E402
from test_user_sweep_interp import wrap_bits as _wrap  # noqa: E402

from tileorch.testing.user_programs17 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"uint16": np.uint16, "uint64": np.uint64, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8})

RNG = np.random.default_rng(1717)
I32_MIN, I32_MAX = -2 ** 31, 2 ** 31 - 1


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _d(x):
    return np.asarray(x, np.float64)


def _close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(_d(got), _d(want), rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------------------------- selection


def test_topk_rows_repeated_argmax():
    x = _f((9, 100))
    x[1, [7, 60]] = 5.0  # a tie: the first index wins round 0, the second round 1
    x[2, 99] = 9.0  # the last valid column
    x[3, :] = -np.inf  # every value -inf: indices 0, 1, 2 (the first of the ties, then masked away)
    out = run("topk_rows_repeated_argmax", {0: x})
    want_i = np.zeros((9, 3), np.int64)
    want_v = np.zeros((9, 3))
    for r in range(9):
        row = x[r].astype(np.float64).copy()
        for k in range(3):
            j = int(np.argmax(row))
            want_i[r, k], want_v[r, k] = j, row[j]
            row[j] = -np.inf
    np.testing.assert_array_equal(out[2], want_i)
    np.testing.assert_array_equal(out[1], want_v)


def test_segmented_sum_csr_offsets():
    x = _f(300)
    off = np.array([0, 5, 5, 100, 101, 200, 300, 300], np.int32)  # empty, 95, 1, 99 (4 tiles), 100, empty
    out = run("segmented_sum_csr_offsets", {0: x, 1: off})
    want = [_d(x[a:b]).sum() for a, b in zip(off[:-1], off[1:])]
    _close(out[2], want, rtol=1e-5, atol=1e-5)


def test_segmented_max_argmax_int64_offsets():
    x = _f(300, "float16")
    x[40] = x[90] = 8.0  # a tie across tiles of segment [33, 150): the first
    x[250] = 7.0
    off = np.array([0, 33, 150, 150, 151, 240, 299, 300], np.int64)
    out = run("segmented_max_argmax_int64_offsets", {0: x, 1: off})
    want_v, want_a = [], []
    for a, b in zip(off[:-1], off[1:]):
        if a == b:
            want_v.append(-np.inf)
            want_a.append(-1)
        else:
            want_v.append(float(x[a:b].max()))
            want_a.append(a + int(np.argmax(x[a:b])))
    np.testing.assert_array_equal(out[2], want_v)
    np.testing.assert_array_equal(out[3], want_a)


# ----------------------------------------------------------------------------------------------- atomics


def test_histogram_bin_min_max_count():
    v = RNG.integers(-1000, 1000, 300).astype(np.int32)
    b = RNG.integers(0, 12, 300).astype(np.int32)  # bin 12 stays untouched
    out = run("histogram_bin_min_max_count", {0: v, 1: b, 2: np.full(13, I32_MAX, np.int32),
                                              3: np.full(13, I32_MIN, np.int32), 4: np.zeros(13, np.int32)})
    np.testing.assert_array_equal(out[2], [v[b == k].min() if (b == k).any() else I32_MAX for k in range(13)])
    np.testing.assert_array_equal(out[3], [v[b == k].max() if (b == k).any() else I32_MIN for k in range(13)])
    np.testing.assert_array_equal(out[4], np.bincount(b, minlength=13))


def test_histogram_float_max_cas_loop():
    v = _f(300, scale=10.0)
    b = RNG.integers(0, 4, 300).astype(np.int32)  # bin 4 keeps -inf
    init = np.full(5, -np.inf, np.float32).view(np.int32)
    out = run("histogram_float_max_cas_loop", {0: v, 1: b, 2: init})
    want = np.array([v[b == k].max() for k in range(4)] + [-np.inf], np.float32)
    np.testing.assert_array_equal(out[2].view(np.float32), want)


def test_bucket_lists_by_xchg_heads():
    b = RNG.integers(0, 10, 300).astype(np.int32)  # bucket 10 stays empty
    out = run("bucket_lists_by_xchg_heads", {0: b, 1: np.full(11, -1, np.int32)})
    head, nxt = out[1], out[2]
    assert head[10] == -1
    seen = []
    for k in range(11):
        members, j = [], int(head[k])
        while j != -1 and len(members) <= 300:
            members.append(j)
            j = int(nxt[j])
        assert sorted(members) == list(np.nonzero(b == k)[0]), k
        seen += members
    assert sorted(seen) == list(range(300))


def test_negative_ids_dropped_by_bounds_checks():
    ids = RNG.integers(-1, 45, 300).astype(np.int32)  # -1 and 40..44: outside the 40-entry tables
    ids[:3] = [-1, -2 ** 31, 2 ** 31 - 1]
    ids[3:43] = RNG.permutation(40)  # every slot written by exactly one position (the scatter's winner)
    ids[43:][(ids[43:] >= 0) & (ids[43:] < 40)] = -1
    src = _f(40)
    out = run("negative_ids_dropped_by_bounds_checks", {0: ids, 1: src, 2: np.zeros(40, np.int32),
                                                        4: np.full(40, -1, np.int32)})
    inside = (ids >= 0) & (ids < 40)
    np.testing.assert_array_equal(out[2], np.bincount(ids[inside], minlength=40))
    np.testing.assert_array_equal(out[3], np.where(inside, src[np.clip(ids, 0, 39)], 0.0))
    want = np.full(40, -1, np.int64)
    want[ids[inside]] = np.nonzero(inside)[0]
    np.testing.assert_array_equal(out[4], want.astype(np.int32))


def test_distinct_count_presence_xchg():
    x = RNG.integers(0, 200, 300).astype(np.int32) * 2  # even ids below 400: the odd ones stay unseen
    out = run("distinct_count_presence_xchg", {0: x, 1: np.zeros(500, np.int32), 2: np.zeros(1, np.int32)})
    np.testing.assert_array_equal(out[2], [len(np.unique(x))])
    np.testing.assert_array_equal(out[1], np.isin(np.arange(500), x).astype(np.int32))


def test_compaction_by_lane_atomic_slots():
    x = _f(300)
    out = run("compaction_by_lane_atomic_slots", {0: x, 2: np.zeros(1, np.int32)})
    keep = np.sort(x[x > 0])
    n = len(keep)
    np.testing.assert_array_equal(out[2], [n])
    np.testing.assert_array_equal(np.sort(out[1][:n]), keep)  # every kept value once: distinct slots
    assert np.isnan(out[1][n:]).all()


def test_joint_histogram_2d_atomic():
    a = RNG.integers(0, 5, 300).astype(np.int32)
    b = RNG.integers(0, 6, 300).astype(np.int32)  # column 6 stays 0
    out = run("joint_histogram_2d_atomic", {0: a, 1: b, 2: np.zeros((5, 7), np.int32)})
    want = np.zeros((5, 7), np.int64)
    np.add.at(want, (a, b), 1)
    np.testing.assert_array_equal(out[2], want)


def test_last_program_reduces_partials():
    x = _f(1000)
    out = run("last_program_reduces_partials", {0: x, 2: np.zeros(1, np.int32)})
    parts = [_d(x[k * 128:(k + 1) * 128]).sum() for k in range(8)]
    _close(out[1], parts, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out[2], [8])
    _close(out[3], [_d(x).sum()], rtol=1e-5, atol=1e-4)


def test_atomic_max_min_uint32_int64():
    u = RNG.integers(0, 2 ** 32, 300, dtype=np.int64).astype(np.uint32)
    u[:3] = [2 ** 31, 2 ** 32 - 1, 0]
    b = RNG.integers(0, 6, 300).astype(np.int32)  # bin 6 untouched
    v = RNG.integers(-2 ** 40, 2 ** 40, 300, dtype=np.int64)
    out = run("atomic_max_min_uint32_int64", {0: u, 1: b, 2: np.zeros(7, np.uint32),
                                              3: np.full(7, 2 ** 32 - 1, np.uint32), 4: v,
                                              5: np.full(7, -2 ** 63, np.int64)})
    np.testing.assert_array_equal(out[2], [u[b == k].max() for k in range(6)] + [0])
    np.testing.assert_array_equal(out[3], [u[b == k].min() for k in range(6)] + [2 ** 32 - 1])
    np.testing.assert_array_equal(out[5], [v[b == k].max() for k in range(6)] + [-2 ** 63])


def test_atomic_add_f16_and_f64_tables():
    x = (RNG.integers(-8, 8, 300) / 4).astype(np.float32)  # quarters: every partial sum exact in f16
    b = RNG.integers(0, 8, 300).astype(np.int32)  # bin 8 stays 0
    out = run("atomic_add_f16_and_f64_tables", {0: x, 1: b, 2: np.zeros(9, np.float16), 3: np.zeros(9)})
    want = np.bincount(b, weights=_d(x), minlength=9)
    np.testing.assert_array_equal(_d(out[2]), want)
    np.testing.assert_array_equal(out[3], want)


def test_chained_scan_flag_lookback():
    x = _f(300)
    flag = np.array([1, 0, 0, 0], np.int32)  # instance 0's predecessor is done
    carry = np.array([0, np.nan, np.nan, np.nan], np.float32)
    out = run("chained_scan_flag_lookback", {0: x, 2: carry, 3: flag})
    _close(out[1], np.cumsum(_d(x)), rtol=1e-5, atol=1e-5)
    _close(out[2], [0.0, _d(x[:128]).sum(), _d(x[:256]).sum(), _d(x).sum()], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out[3], [1, 1, 1, 1])


# ----------------------------------------------------------------------------------------------- shapes


def test_permute_4d_odd_tile_larger():
    x = _f((3, 5, 7, 2), "float16")
    out = run("permute_4d_odd_tile_larger", {0: x})
    np.testing.assert_array_equal(out[1], x.transpose(2, 0, 3, 1))


def test_broadcast_3d_odd_unit_dims():
    x, z, w = _f((5, 1, 7)), _f((1, 3, 1)), _f(7)
    out = run("broadcast_3d_odd_unit_dims", {0: x, 1: z, 2: w})
    _close(out[3], _d(x) + _d(z) * _d(w)[None, None, :])


def test_tiles_larger_than_array_3d():
    x = _f((3, 5, 2))
    out = run("tiles_larger_than_array_3d", {0: x})
    _close(out[1], 2 * _d(x) + 1)
    _close(out[2], [_d(x).sum()], rtol=1e-5, atol=1e-5)


def test_transpose_one_element_tiles():
    x = _f((7, 5))
    np.testing.assert_array_equal(run("transpose_one_element_tiles", {0: x})[1], x.T)


def test_where_broadcast_row_col_masks():
    x = _f((21, 50))
    rk, ck = RNG.random(21) > 0.4, RNG.random(50) > 0.3
    out = run("where_broadcast_row_col_masks", {0: x, 1: rk, 2: ck})
    want = np.where(rk[:, None] & ck[None, :], x, np.where(ck[None, :], -x, 0.5))
    np.testing.assert_array_equal(out[3], want.astype(np.float32))


def test_odd_stride_columns_gather():
    x = _f((13, 100))
    np.testing.assert_array_equal(run("odd_stride_columns_gather", {0: x})[1], x[:, 1::3])


def test_int64_index_math_past_2_32():
    x = _f(300)
    _close(run("int64_index_math_past_2_32", {0: x})[1], 3 * _d(x))


# ----------------------------------------------------------------------------------------------- element types


def _int16_inputs():
    x = _f(300, scale=30000.0)
    x[:8] = [np.nan, 40000.0, -40000.0, 70000.0, -0.9, 65535.7, 3e9, -3e9]
    return x


def test_int16_uint16_saturate_and_wrap():
    x = _int16_inputs()
    out = run("int16_uint16_saturate_and_wrap", {0: x})
    t = np.trunc(np.nan_to_num(_d(x), nan=0.0))
    a = np.clip(t, -2 ** 15, 2 ** 15 - 1).astype(np.int64)
    b = np.clip(t, 0, 2 ** 16 - 1).astype(np.int64)
    np.testing.assert_array_equal(out[1], a)
    np.testing.assert_array_equal(out[2], b)
    np.testing.assert_array_equal(out[3], _wrap(np.clip(t, I32_MIN, I32_MAX), 16))
    np.testing.assert_array_equal(out[4], a + b)


def _e5m2(bytes_):
    return np.asarray(bytes_, np.uint8).view(ml_dtypes.float8_e5m2).astype(np.float64)


def _e4m3(bytes_):
    return np.asarray(bytes_, np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)


def test_e5m2_saturate_roundtrip():
    x = _f(300, scale=100.0)
    x[:10] = [np.nan, np.inf, -np.inf, 60000.0, -1e6, 57344.0, 1e-9, -3.0e-5, 448.0, 500.0]
    out = run("e5m2_saturate_roundtrip", {0: x})
    # satfinite: values past the largest finite e5m2 (57344) and the infinities become +-57344, NaN stays NaN
    want = np.clip(x, -57344.0, 57344.0).astype(ml_dtypes.float8_e5m2).astype(np.float64)
    got = _e5m2(out[1])
    assert np.isnan(got[0]) and not np.isnan(got[1:]).any()
    np.testing.assert_array_equal(got[1:], want[1:])
    np.testing.assert_array_equal(_d(out[2])[1:], want[1:])
    assert np.isnan(out[2][0])
    q4 = _e4m3(out[3])
    assert np.isnan(q4[0])
    np.testing.assert_array_equal(q4[1:], np.clip(want[1:], -448, 448).astype(ml_dtypes.float8_e4m3fn).astype(np.float64))


def test_e5m2_to_small_integers_saturating():
    q = np.arange(256, dtype=np.uint8)  # every e5m2 byte: +-0, subnormals, +-57344, +-inf, the NaNs
    out = run("e5m2_to_small_integers_saturating", {0: q})
    v = _e5m2(q)
    t = np.trunc(np.where(np.isnan(v), 0.0, v))
    np.testing.assert_array_equal(out[1], np.clip(t, -128, 127))
    np.testing.assert_array_equal(out[2], np.clip(t, 0, 255))
    np.testing.assert_array_equal(out[3], np.clip(t, -2 ** 15, 2 ** 15 - 1))


def _nan_rows():
    x = _f((8, 100))
    x[1, 5], x[1, 50] = np.nan, 9.0
    x[2, 3], x[2, 70] = np.nan, np.inf
    x[3, :] = -np.inf
    x[4, :] = np.nan
    x[5, :] = -np.inf
    x[5, [20, 30]] = np.nan
    x[6, [10, 90]] = np.inf
    x[7, 99] = 9.0
    return x


def test_nan_inf_max_min_argmax():
    x = _nan_rows()
    out = run("nan_inf_max_min_argmax", {0: x})
    # the default max / min ignore NaN (maxf / minf without propagate_nan): an all-NaN row reads the
    # -inf padding (max) and the +inf fill (min)
    nanfree = np.where(np.isnan(x), -np.inf, x)
    np.testing.assert_array_equal(out[1], nanfree.max(1))
    np.testing.assert_array_equal(out[2], np.where(np.isnan(x), np.inf, x).min(1))
    np.testing.assert_array_equal(np.isnan(out[3]), np.isnan(x).any(1))
    np.testing.assert_array_equal(out[3][~np.isnan(x).any(1)], x[~np.isnan(x).any(1)].max(1))
    defined = [0, 1, 2, 3, 5, 6, 7]  # not the all-NaN row (the default argmax has no NaN-free value)
    np.testing.assert_array_equal(out[4][defined], np.argmax(nanfree, 1)[defined])
    np.testing.assert_array_equal(out[5], [int(np.argmax(np.isnan(r))) if np.isnan(r).any() else int(np.argmax(r))
                                           for r in x])


def test_float_compares_with_nan_inf():
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], np.float32)
    x = np.repeat(specials, 6)[:36]
    y = np.tile(specials, 6)  # every pair of the specials
    x = np.concatenate([x, _f(264)])
    y = np.concatenate([y, _f(264)])
    out = run("float_compares_with_nan_inf", {0: x, 1: y})
    with np.errstate(invalid="ignore"):
        want = np.stack([x < y, x <= y, x > y, x >= y, x == y, x != y]).astype(np.uint8)
    np.testing.assert_array_equal(out[2], want)


def test_integer_overflow_wraps():
    a = RNG.integers(I32_MIN, I32_MAX, 300, dtype=np.int64).astype(np.int32)
    b = RNG.integers(I32_MIN, I32_MAX, 300, dtype=np.int64).astype(np.int32)
    a[:4], b[:4] = [I32_MAX, I32_MIN, 127, -128], [1, -1, 1, -1]
    out = run("integer_overflow_wraps", {0: a, 1: b})
    ai, bi = [int(v) for v in a], [int(v) for v in b]
    np.testing.assert_array_equal(out[2], _wrap([p + q for p, q in zip(ai, bi)], 32))
    np.testing.assert_array_equal(out[3], _wrap([p * q for p, q in zip(ai, bi)], 32))
    np.testing.assert_array_equal(out[4], _wrap([int(_wrap(p, 8)) + int(_wrap(q, 8)) for p, q in zip(ai, bi)], 8))
    np.testing.assert_array_equal(out[5], _wrap([p * q * 4294967311 for p, q in zip(ai, bi)], 64))


def test_shifts_by_runtime_amounts():
    x = RNG.integers(I32_MIN, I32_MAX, 300, dtype=np.int64).astype(np.int32)
    u = RNG.integers(0, 2 ** 32, 300, dtype=np.int64).astype(np.uint32)
    s = (np.arange(300) % 41).astype(np.int32)  # 0..40: every amount at and past the width
    out = run("shifts_by_runtime_amounts", {0: x, 1: u, 2: s})
    xi, ui, si = [int(v) for v in x], [int(v) for v in u], [int(v) for v in s]
    np.testing.assert_array_equal(out[3], _wrap([p << k if k < 32 else 0 for p, k in zip(xi, si)], 32))
    np.testing.assert_array_equal(out[4], [p >> min(k, 31) for p, k in zip(xi, si)])
    np.testing.assert_array_equal(out[5], [q >> k if k < 32 else 0 for q, k in zip(ui, si)])


def test_float_floordiv_mod_mixed_signs():
    x, y = _f(300, scale=10.0), _f(300, scale=3.0)
    x[:6], y[:6] = [7.0, -7.0, 7.0, -7.0, 6.0, -0.5], [2.0, 2.0, -2.0, -2.0, 3.0, 0.25]
    out = run("float_floordiv_mod_mixed_signs", {0: x, 1: y})
    q = np.floor(x / y)  # f32 division, then floor: cuTile's float //
    np.testing.assert_array_equal(out[2], q)
    r = np.mod(_d(x), _d(y))  # Python's %: the divisor's sign
    _close(out[3], r, rtol=1e-5, atol=1e-5)
    assert (np.sign(out[3][out[3] != 0]) == np.sign(y[out[3] != 0])).all()


def test_int8_cumsum_wraps_bool_argmax():
    x = RNG.integers(-128, 128, (5, 100)).astype(np.int8)
    x[0] = 100  # wraps at the second element
    m = RNG.random((5, 100)) > 0.9
    m[1] = False  # none: 0
    m[2] = False
    m[2, 99] = True
    out = run("int8_cumsum_wraps_bool_argmax", {0: x, 1: m})
    np.testing.assert_array_equal(out[2], _wrap(np.cumsum(x.astype(np.int64), 1), 8))
    np.testing.assert_array_equal(out[3], np.argmax(m, 1))


def test_six_outputs_six_dtypes():
    x = _f(300, scale=3.0)
    x[:3] = [0.0, -0.0, 1e-4]
    out = run("six_outputs_six_dtypes", {0: x})
    np.testing.assert_array_equal(out[1], x.astype(np.float16))
    np.testing.assert_array_equal(out[2], np.sign(x).astype(np.int8))
    np.testing.assert_array_equal(out[3], (x > 0).astype(np.uint8))
    np.testing.assert_array_equal(out[4], np.floor(x * np.float32(1000)).astype(np.int64))
    np.testing.assert_array_equal(out[5], _d(x) ** 2)
    want = (x / np.float32(3)).astype(ml_dtypes.bfloat16).astype(np.float64)
    np.testing.assert_array_equal(_d(out[6]), want)


def test_bool_rows_any_all_count():
    x = RNG.random((6, 100)) > 0.5
    x[0], x[1] = False, True
    x[2] = False
    x[2, 99] = True
    x[3] = True
    x[3, 0] = False
    out = run("bool_rows_any_all_count", {0: x})
    np.testing.assert_array_equal(out[1], x.any(1).astype(np.uint8))
    np.testing.assert_array_equal(out[2], x.all(1).astype(np.uint8))
    np.testing.assert_array_equal(out[3], x.sum(1))


def test_reduce_custom_xor_and_absmax_index():
    x = _f((6, 100))
    x[1, [10, 60]] = [-7.0, 7.0]  # |x| tie: the smaller index
    x[2, 99] = 9.0
    k = RNG.integers(0, 2 ** 32, (6, 100), dtype=np.int64).astype(np.uint32)
    out = run("reduce_custom_xor_and_absmax_index", {0: x, 1: k})
    np.testing.assert_array_equal(out[2], np.bitwise_xor.reduce(k, axis=1))
    np.testing.assert_array_equal(out[3], np.argmax(np.abs(x), 1))


def test_scan_custom_cummax_and_suffix_min():
    x = _f((5, 100))
    out = run("scan_custom_cummax_and_suffix_min", {0: x})
    np.testing.assert_array_equal(out[1], np.maximum.accumulate(x, 1))
    np.testing.assert_array_equal(out[2], np.minimum.accumulate(x[:, ::-1], 1)[:, ::-1])


def test_unsigned_and_wide_conversions():
    u = RNG.integers(0, 2 ** 32, 300, dtype=np.int64).astype(np.uint32)
    u[:3] = [2 ** 31, 2 ** 32 - 1, 2 ** 31 + 1]
    f = _f(300, scale=3e9)
    f[:5] = [np.nan, -1.0, 5e9, 4294967295.0, 2147483648.5]
    lw = RNG.integers(-2 ** 40, 2 ** 40, 300, dtype=np.int64)
    lw[:4] = [65504, 65520, -70000, 2 ** 31 + 5]
    d = RNG.standard_normal(300) * 1e39
    d[:3] = [3.5e38, -1e300, 1e-50]
    q = RNG.integers(0, 2 ** 64, 300, dtype=np.uint64)
    q[0] = 2 ** 63 + 2 ** 11
    out = run("unsigned_and_wide_conversions", {0: u, 1: f, 2: lw, 3: d, 4: q})
    np.testing.assert_array_equal(out[5], u.astype(np.float32))
    t = np.trunc(np.nan_to_num(_d(f), nan=0.0))
    np.testing.assert_array_equal(out[6], np.clip(t, 0, 2 ** 32 - 1).astype(np.uint32))
    with np.errstate(over="ignore"):  # (the conversions past the largest finite value: inf, as wanted)
        np.testing.assert_array_equal(out[7], lw.astype(np.float16))  # rounding to nearest, past 65504: inf
        np.testing.assert_array_equal(out[8], d.astype(np.float32))
    np.testing.assert_array_equal(out[9], _wrap(lw, 32))
    np.testing.assert_array_equal(out[10], q.astype(np.float64))


def test_argmax_int64_argmin_uint32_rows():
    lw = RNG.integers(-2 ** 40, 2 ** 40, (5, 100), dtype=np.int64)
    lw[0, [3, 70]] = 2 ** 41  # a tie: the first
    lw[1] = -2 ** 40
    lw[1, 99] = -2 ** 33
    u = RNG.integers(2 ** 31, 2 ** 32, (5, 100), dtype=np.int64).astype(np.uint32)
    u[2, 50] = 5  # the one value below 2**31: the unsigned minimum
    out = run("argmax_int64_argmin_uint32_rows", {0: lw, 1: u})
    np.testing.assert_array_equal(out[2], np.argmax(lw, 1))
    np.testing.assert_array_equal(out[3], np.argmin(u, 1))


def test_middle_axis_reductions_4d():
    x = _f((3, 5, 7, 2))
    out = run("middle_axis_reductions_4d", {0: x})
    _close(out[1], _d(x).sum(2, keepdims=True))
    np.testing.assert_array_equal(out[2], x.max(1))


def test_scalar_flag_where_cat_extract():
    x = _f((14, 100))
    for flag in (0, 3):
        out = run("scalar_flag_where_cat_extract", {0: x, 3: flag})
        y = x if flag else -x
        np.testing.assert_array_equal(out[1], y)
        np.testing.assert_array_equal(out[2], 2 * y[1::2])


# ----------------------------------------------------------------------------------------------- row lengths


def test_long_row_sum_tiles_70001():
    x = _f((3, 70001))
    _close(run("long_row_sum_tiles_70001", {0: x})[1], _d(x).sum(1), rtol=1e-4, atol=1e-3)


def test_long_row_max_single_tile_64k():
    x = _f((2, 65000), "bfloat16")
    x[0, 64999] = 50.0  # the last valid element of the ragged tile
    x[1] = -x[1] ** 2 - 1.0  # every value negative: the -inf padding must not win
    np.testing.assert_array_equal(run("long_row_max_single_tile_64k", {0: x})[1], x.max(1))


def test_short_rows_softmax_width_3():
    x = _f((37, 3), "float16", 3.0)
    x[5] = [np.float16(-np.inf), 0.0, 1.0]
    out = run("short_rows_softmax_width_3", {0: x})
    e = np.exp(_d(x) - _d(x).max(1, keepdims=True))
    _close(out[1], e / e.sum(1, keepdims=True), rtol=2e-3, atol=2e-3)


def test_softmax_rows_of_2_one_per_program():
    x = _f((37, 2), scale=3.0)
    x[4] = [-np.inf, 1.0]
    out = run("softmax_rows_of_2_one_per_program", {0: x})
    e = np.exp(_d(x) - _d(x).max(1, keepdims=True))
    _close(out[1], e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_width_one_rows_log_softmax():
    x = _f((37, 1), scale=100.0)
    x[[3, 20]] = [[-np.inf], [np.inf]]  # torch.log_softmax gives NaN for both
    out = run("width_one_rows_log_softmax", {0: x})
    want = np.zeros((37, 1))
    want[[3, 20]] = np.nan
    np.testing.assert_array_equal(out[1], want)


# ----------------------------------------------------------------------------------------------- in place


def test_inplace_axpby_and_relu():
    x, y = _f(300), _f(300)
    out = run("inplace_axpby_and_relu", {0: x, 1: y})
    _close(out[1], 2.0 * _d(x) - 0.5 * _d(y))
    np.testing.assert_array_equal(out[0], np.maximum(x, 0))


def test_inplace_row_scale_by_own_max():
    x = _f((5, 200), "bfloat16", 4.0)
    x[2] = 0.0
    out = run("inplace_row_scale_by_own_max", {0: x})
    amax = np.abs(_d(x)).max(1, keepdims=True)
    _close(out[0], _d(x) / np.where(amax > 0, amax, 1.0), rtol=1e-2, atol=1e-2)
    assert (np.abs(out[0][[0, 1, 3, 4]]).max(1) == 1.0).all() and (out[0][2] == 0).all()
